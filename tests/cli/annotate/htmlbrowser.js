// htmlbrowser.js - an annotate HTML page in headless Chromium (playwright-
// core, from tests/cli/flame's npm packages), for html-escape.test: under
// its Content-Security-Policy the page's own style shades the rows and its
// own script still lights up a source line and its instructions under the
// pointer; the browser refuses nothing of the page's own (a stale hash
// would show as a CSP message) and runs nothing of a capture's (no dialog).
//
//	NODE_PATH=tests/cli/flame/node_modules node htmlbrowser.js CHROMIUM PAGE
'use strict';
const { chromium } = require('playwright-core');

const [browserPath, pagePath] = process.argv.slice(2);
let failures = 0;
function check(ok, what) {
	console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
	if (!ok)
		failures++;
}

(async () => {
	const browser = await chromium.launch({
		executablePath: browserPath,
		args: ['--no-sandbox', '--disable-gpu'],
	});
	const page = await browser.newPage();
	const messages = [], errors = [], dialogs = [], requests = [];
	page.on('console', m => messages.push(m.text()));
	page.on('pageerror', e => errors.push(e.message));
	page.on('dialog', d => { dialogs.push(d.message()); d.dismiss(); });
	page.on('request', r => {
		if (!r.url().startsWith('file:'))
			requests.push(r.url());
	});
	await page.goto('file://' + pagePath);
	await page.waitForLoadState('load');

	const shaded = await page.evaluate(() => {
		const r = document.querySelector('tr[class^="s"]');
		return r ? getComputedStyle(r).backgroundColor : null;
	});
	check(shaded && shaded !== 'rgba(0, 0, 0, 0)',
	      `the page's style shades a hot row (${shaded})`);
	// a hot instruction row: its source line lights up with it
	const row = 'section .cols > div:last-child tr[data-l][class^="s"]';
	await page.hover(row);
	const lit = await page.evaluate(() =>
		document.querySelectorAll('tr.sel').length);
	check(lit >= 2, `the page's script lights up ${lit} rows under the pointer`);
	const csp = messages.filter(m => /Content Security Policy/i.test(m));
	check(csp.length === 0, `no CSP refusal: ${JSON.stringify(csp)}`);
	check(errors.length === 0, `no script errors: ${JSON.stringify(errors)}`);
	check(dialogs.length === 0, `nothing from a name ran: ${JSON.stringify(dialogs)}`);
	check(requests.length === 0, `no request: ${JSON.stringify(requests)}`);
	await browser.close();
	process.exit(failures ? 1 : 0);
})().catch(e => {
	console.log(`FAIL: ${e.stack || e}`);
	process.exit(1);
});
