// ssapp.js - load a `pdtool export --format speedscope` file into the
// speedscope app itself (the npm package's dist/release/index.html, from
// file://, installed by `npm ci` in tests/cli/flame) in headless
// Chromium: it must be imported as speedscope's own format with no
// error or alert, and show the profile the file makes active, by name
// and as "N/M" of the file's profiles; its Sandwich view then lists the
// active profile's functions (a row per frame name with time in it).
//
//	NODE_PATH=tests/cli/flame/node_modules \
//		node ssapp.js CHROMIUM PROFILE.json
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const [exe, file] = process.argv.slice(2);
const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
const app = path.join(path.dirname(require.resolve('speedscope/package.json')),
		      'dist', 'release', 'index.html');
const active = doc.profiles[doc.activeProfileIndex];
// speedscope adds " (N/M)" only where there are several profiles
const want = doc.profiles.length > 1
	? `${active.name} (${doc.activeProfileIndex + 1}/${doc.profiles.length})`
	: active.name;

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
	await page.setInputFiles('input[type=file]', file);
	let shown = false;
	try {
		await page.waitForFunction(w => document.body.innerText.includes(w),
					   want, { timeout: 20000 });
		shown = true;
		await page.click('text=Sandwich');
		await page.waitForFunction(() => /Symbol Name/.test(document.body.innerText));
		const text = await page.evaluate(() => document.body.innerText);
		// the frame names the active profile's events open
		const names = new Set(active.events.map(e => doc.shared.frames[e.frame].name));
		const missing = [...names].filter(n => !text.includes(n));
		// the table is virtualized: only the rows in view are in the page
		if (missing.length === names.size)
			problems.push('no function of the profile in the Sandwich view');
	} catch (e) {
		problems.push(`"${want}" not shown: ${e.message}`);
	}
	await browser.close();
	if (!imported)
		problems.push('not imported as speedscope json');
	if (problems.length || !shown) {
		console.log('FAIL: ' + problems.join('; '));
		process.exit(1);
	}
	console.log(`ok: ${want}`);
})().catch(e => { console.log('FAIL: ' + e.message); process.exit(1); });
