// tlbrowser.js - drive a `pdtool timeline` SVG or HTML page in headless
// Chromium (playwright-core): read each lane's samples and off-CPU spans
// as drawn, drag over the lanes to zoom, read the `--time` range the page
// offers, reset.  Prints JSON for tltimeline.py to check against pdtool
// script; checks here only what the page alone decides (the zoom fills
// the plot with the dragged range, reset restores it, the page's own
// Content-Security-Policy refuses nothing of its own).
//
//	node tlbrowser.js CHROMIUM FILE FROM TO [SHOT.png]
//
// FROM and TO: the drag's ends as fractions of the plot's width.
'use strict';
const path = require('path');
const { chromium } = require(path.join(__dirname, '../flame/node_modules/playwright-core'));

const [browserPath, file, fromArg, toArg, shot] = process.argv.slice(2);
const from = +fromArg, to = +toArg;
(async () => {
	const browser = await chromium.launch({ executablePath: browserPath, args: ['--no-sandbox'] });
	const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
	const refused = [], errors = [];
	page.on('console', (m) => {
		if (/Content Security Policy|Refused/.test(m.text()))
			refused.push(m.text());
	});
	page.on('pageerror', (e) => errors.push(String(e)));
	await page.goto('file://' + path.resolve(file));
	const read = () => page.evaluate(() => {
		const lanes = [];
		for (const g of document.querySelectorAll('#plot > g.lane')) {
			const samples = [], off = [];
			for (const r of g.querySelectorAll('rect.s'))
				samples.push({ x: +r.getAttribute('x'), w: +r.getAttribute('width'),
					n: +r.getAttribute('data-n'), fill: r.getAttribute('fill'),
					title: r.querySelector('title').textContent });
			for (const r of g.querySelectorAll('rect.o'))
				off.push({ x: +r.getAttribute('x'), w: +r.getAttribute('width'),
					ns: +r.getAttribute('data-ns') });
			lanes.push({ pid: +g.getAttribute('data-pid'), tid: +g.getAttribute('data-tid'),
				samples, off });
		}
		const svg = document.getElementById('timeline');
		const plot = document.getElementById('plot');
		const b = plot.getBoundingClientRect();
		return {
			lanes, start: svg.getAttribute('data-start'), span: +svg.getAttribute('data-span'),
			viewBox: plot.getAttribute('viewBox'), range: document.getElementById('range').textContent,
			unzoomHidden: document.getElementById('unzoom').classList.contains('hide'),
			ticks: document.querySelectorAll('#ticks text').length,
			labels: document.querySelectorAll('svg > text').length,
			box: { x: b.x, y: b.y, w: b.width, h: b.height },
		};
	});
	const before = await read();
	const b = before.box;
	const y = b.y + Math.min(b.h / 2, 8);
	await page.mouse.move(b.x + b.w * from, y);
	await page.mouse.down();
	await page.mouse.move(b.x + b.w * (from + to) / 2, y, { steps: 3 });
	await page.mouse.move(b.x + b.w * to, y, { steps: 3 });
	await page.mouse.up();
	const zoomed = await read();
	if (shot)
		await page.screenshot({ path: shot });
	await page.click('#unzoom');
	const reset = await read();
	await browser.close();
	console.log(JSON.stringify({ before, zoomed, reset, refused, errors,
		drag: [from, to] }));
})().catch((e) => { console.error(String(e)); process.exit(1); });
