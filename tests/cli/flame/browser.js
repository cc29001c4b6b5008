// browser.js - drive a pdtool flame SVG in headless Chromium (playwright-
// core): click a frame to zoom, search, reset.  Expectations come from the
// caller (browser.test computes them from the folded text).  All of it
// under the file's own Content-Security-Policy (emit/pde_flame.c), which
// must refuse nothing of the file's and refuse a script it did not carry.
//
//	node browser.js SPEC.json
//
// SPEC (flamespec.py): { browser, svg, zoom: [names from the root's child down],
//         visible: frames shown when zoomed, regex, matchedZoomed,
//         matchedAll (strings as the page prints them, "12.34"),
//         shots: a directory for PNGs, or null }
'use strict';
const fs = require('fs');
const { chromium } = require('playwright-core');

const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
let failures = 0;
function check(ok, what) {
	console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
	if (!ok)
		failures++;
}
const near = (a, b) => Math.abs(a - b) < 0.011;

// Every frame's state, read in the page.
function frames(page) {
	return page.evaluate(() => {
		const out = [], path = [];
		for (const g of document.querySelectorAll('#frames > g')) {
			const t = g.querySelector('title').textContent;
			const d = +g.getAttribute('data-d');
			path.length = d;
			path.push(t.slice(0, t.lastIndexOf(' (')));
			const r = g.querySelector('rect');
			out.push({
				path: path.slice(1).join(';'), d,
				s: +g.getAttribute('data-s'), n: +g.getAttribute('data-n'),
				x: +r.getAttribute('x'), w: +r.getAttribute('width'),
				cls: g.getAttribute('class'),
				hidden: getComputedStyle(g).display === 'none',
				label: g.querySelector('text').textContent,
			});
		}
		return out;
	});
}

async function shot(page, name) {
	if (spec.shots)
		await page.screenshot({ path: `${spec.shots}/${name}.png` });
}

(async () => {
	const browser = await chromium.launch({
		executablePath: spec.browser,
		args: ['--no-sandbox', '--disable-gpu'],
	});
	const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
	const errors = [], messages = [];
	page.on('pageerror', e => errors.push(e.message));
	page.on('console', msg => messages.push(msg.text()));
	await page.goto('file://' + spec.svg);
	await shot(page, '1-loaded');
	const before = await frames(page);
	check(before.length > 0 && before.every(f => !f.hidden),
	      `${before.length} frames drawn, all visible`);

	// zoom
	const want = spec.zoom.join(';');
	const i = before.findIndex(f => f.path === want);
	check(i >= 0, `frame ${want} found`);
	const z = before[i];
	// scrolled into view, hit-tested at its centre, clicked with the mouse
	await page.locator('#frames > g').nth(i).locator('rect').click();
	await shot(page, '2-zoomed');
	const zoomed = await frames(page);
	const zf = zoomed[i];
	check(near(zf.x, 10) && near(zf.w, 1180),
	      `zoomed frame fills the width: x=${zf.x} width=${zf.w}`);
	const shown = zoomed.filter(f => !f.hidden);
	check(shown.length === spec.visible,
	      `${shown.length} frames shown after zooming, want ${spec.visible}`);
	const kids = shown.filter(f => f.d > z.d);
	check(kids.length > 0 && kids.every(f => near(f.w, f.n * 1180 / z.n) &&
	      near(f.x, 10 + (f.s - z.s) * 1180 / z.n)),
	      `${kids.length} callees scaled by 1180/${z.n}`);
	const anc = shown.filter(f => f.d < z.d);
	check(anc.length === z.d && anc.every(f => /\banc\b/.test(f.cls) && near(f.w, 1180)),
	      `${anc.length} callers dimmed across the width`);
	check(zf.label.length > 0 && want.endsWith(zf.label),
	      `zoomed frame labelled '${zf.label}'`);
	const unzoomShown = await page.locator('#unzoom').evaluate(
		e => getComputedStyle(e).display !== 'none');
	check(unzoomShown, 'Reset Zoom shown');

	// search, zoomed: the share of the zoomed frame's samples
	page.once('dialog', d => d.accept(spec.regex));
	await page.click('#search');
	await shot(page, '3-search-zoomed');
	let m = await page.textContent('#matched');
	check(m === `Matched: ${spec.matchedZoomed}%`,
	      `search /${spec.regex}/ zoomed: '${m}', want ${spec.matchedZoomed}%`);
	const nHit = await page.locator('#frames > g.m').count();
	check(nHit > 0, `${nHit} frames marked`);

	// reset zoom: everything back in place, the share now of all samples
	await page.click('#unzoom');
	await shot(page, '4-search-all');
	m = await page.textContent('#matched');
	check(m === `Matched: ${spec.matchedAll}%`,
	      `search /${spec.regex}/ unzoomed: '${m}', want ${spec.matchedAll}%`);
	const after = await frames(page);
	check(after.every((f, k) => !f.hidden && near(f.x, before[k].x) &&
	      near(f.w, before[k].w) && f.label === before[k].label),
	      'Reset Zoom restores every frame and label');

	// Reset Search clears the marks
	await page.click('#search');
	m = await page.textContent('#matched');
	check(m.trim() === '' && await page.locator('#frames > g.m').count() === 0,
	      'Reset Search clears the marks');
	check(errors.length === 0, `no script errors ${errors.join('; ')}`);

	// the policy: nothing of the file's refused, a foreign script is
	const refused = () => messages.filter(t => /Content Security Policy/i.test(t));
	check(refused().length === 0,
	      `the policy refuses nothing of the file's: ${JSON.stringify(refused())}`);
	const ran = await page.evaluate(() => {
		const s = document.createElementNS('http://www.w3.org/2000/svg',
						   'script');
		s.textContent = "document.documentElement.setAttribute('data-x', '1')";
		document.documentElement.appendChild(s);
		return document.documentElement.getAttribute('data-x');
	});
	check(ran === null && refused().length === 1,
	      `the policy refuses a script the file did not carry (${ran})`);
	await browser.close();
	process.exit(failures ? 1 : 0);
})().catch(e => {
	console.log('FAIL:', e.message);
	process.exit(1);
});
