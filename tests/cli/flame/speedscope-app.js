// speedscope-app.js - load a pdtool speedscope profile into the speedscope
// app itself (the npm package's dist/release/index.html, from file://) in
// headless Chromium, and compare its Sandwich table (total and self
// samples per function) with the caller's expectations.
//
//	node speedscope-app.js CHROMIUM PROFILE.json EXPECT.json [SHOT.png]
//
// EXPECT: { name: the profile's name, funcs: { NAME: [total, self] } }
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const [exe, profile, expectFile, shotFile] = process.argv.slice(2);
const expect = JSON.parse(fs.readFileSync(expectFile, 'utf8'));
const app = path.join(path.dirname(require.resolve('speedscope/package.json')),
		      'dist', 'release', 'index.html');
let failures = 0;
function check(ok, what) {
	console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
	if (!ok)
		failures++;
}

(async () => {
	const browser = await chromium.launch({
		executablePath: exe, args: ['--no-sandbox', '--disable-gpu'],
	});
	const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
	const problems = [];
	let imported = false;
	page.on('pageerror', e => problems.push('error: ' + e.message));
	page.on('dialog', d => { problems.push('dialog: ' + d.message()); d.dismiss(); });
	page.on('console', m => {
		if (/Importing as speedscope json file/.test(m.text()))
			imported = true;
	});
	await page.goto('file://' + app);
	await page.setInputFiles('input[type=file]', profile);
	await page.waitForFunction(n => document.title === `${n} - speedscope`,
				   expect.name, { timeout: 20000 });
	check(imported, 'speedscope imported it as its own JSON format');
	await page.click('text=Sandwich');
	await page.waitForFunction(() => /Symbol Name/.test(document.body.innerText));
	if (shotFile)
		await page.screenshot({ path: shotFile });
	const text = await page.evaluate(() => document.body.innerText);
	const row = /(\d+) \([^)]*\)\n\t(\d+) \([^)]*\)\n\t([^\n]+)/g;
	let nr = 0, bad = 0;
	for (let m; (m = row.exec(text));) {
		const want = expect.funcs[m[3]];
		nr++;
		if (!want || want[0] !== +m[1] || want[1] !== +m[2]) {
			bad++;
			console.log(`  ${m[3]}: total ${m[1]} self ${m[2]}, want ${want}`);
		}
	}
	check(nr >= 10 && bad === 0,
	      `${nr} rows of the Sandwich table match the folded text`);
	check(problems.length === 0, `no errors or alerts ${problems.join('; ')}`);
	await browser.close();
	process.exit(failures ? 1 : 0);
})().catch(e => {
	console.log('FAIL:', e.message);
	process.exit(1);
});
