// firefox.mjs - drive a pdtool flame SVG in headless Firefox over
// WebDriver BiDi (Firefox's own remote protocol; no npm package): zoom by
// clicking a frame, search, reset, and compare with the spec that
// flamespec.py computed from the folded text.  Clicks are DOM events sent
// to the frame's rect (browser.js, in Chromium, clicks with the mouse).
//
//	node firefox.mjs SPEC.json PROFILE_DIR
//
// Needs a global WebSocket (node >= 22, or node 20 with
// --experimental-websocket).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const profile = process.argv[3];
let failures = 0;
function check(ok, what) {
	console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
	if (!ok)
		failures++;
}

const ff = spawn(spec.browser, ['--headless', '--no-remote', '--profile',
	profile, '--remote-debugging-port', '0', 'about:blank'],
	{ stdio: ['ignore', 'ignore', 'pipe'] });
const timer = setTimeout(() => {
	console.log('FAIL: timed out');
	ff.kill('SIGKILL');
	process.exit(1);
}, 60000);
const url = await new Promise((resolve, reject) => {
	let err = '';
	ff.stderr.on('data', d => {
		err += d;
		const m = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(err);
		if (m)
			resolve(m[1]);
	});
	ff.on('exit', c => reject(new Error(`firefox exited (${c}): ${err}`)));
});
const ws = new WebSocket(url + '/session');
await new Promise((resolve, reject) => {
	ws.onopen = resolve;
	ws.onerror = reject;
});
let lastId = 0;
const pending = new Map();
ws.onmessage = m => {
	const d = JSON.parse(m.data);
	if (d.id && pending.has(d.id)) {
		pending.get(d.id)(d);
		pending.delete(d.id);
	}
};
function cmd(method, params) {
	return new Promise((resolve, reject) => {
		const id = ++lastId;
		pending.set(id, d => d.error ? reject(new Error(`${method}: ${d.error} ${d.message}`)) : resolve(d.result));
		ws.send(JSON.stringify({ id, method, params }));
	});
}

try {
	await cmd('session.new', { capabilities: {} });
	const { contexts } = await cmd('browsingContext.getTree', {});
	const context = contexts[0].context;
	await cmd('browsingContext.setViewport',
		  { context, viewport: { width: 1200, height: 800 } });
	await cmd('browsingContext.navigate',
		  { context, url: 'file://' + spec.svg, wait: 'complete' });
	// run fn(arg) in the page; it returns JSON text
	const run = async (fn, arg) => {
		const r = await cmd('script.evaluate', {
			expression: `(${fn})(${JSON.stringify(arg)})`,
			target: { context }, awaitPromise: true,
		});
		if (r.type === 'exception')
			throw new Error(r.exceptionDetails.text);
		return JSON.parse(r.result.value);
	};
	const shot = async name => {
		if (!spec.shots)
			return;
		const r = await cmd('browsingContext.captureScreenshot', { context });
		writeFileSync(`${spec.shots}/firefox-${name}.png`,
			      Buffer.from(r.data, 'base64'));
	};
	const state = () => run(() => {
		const out = [], path = [];
		for (const g of document.querySelectorAll('#frames > g')) {
			const t = g.querySelector('title').textContent;
			const d = +g.getAttribute('data-d');
			path.length = d;
			path.push(t.slice(0, t.lastIndexOf(' (')));
			const r = g.querySelector('rect');
			out.push({ path: path.slice(1).join(';'), d,
				   s: +g.getAttribute('data-s'), n: +g.getAttribute('data-n'),
				   x: +r.getAttribute('x'), w: +r.getAttribute('width'),
				   hidden: getComputedStyle(g).display === 'none' });
		}
		return JSON.stringify({ frames: out,
			matched: document.getElementById('matched').textContent,
			marked: document.querySelectorAll('#frames > g.m').length });
	});
	const click = sel => run(s => {
		const el = typeof s === 'number'
			? document.querySelectorAll('#frames > g')[s].querySelector('rect')
			: document.querySelector(s);
		el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
		return 'true';
	}, sel);
	const near = (a, b) => Math.abs(a - b) < 0.011;

	const before = (await state()).frames;
	check(before.length > 0, `${before.length} frames drawn`);
	const i = before.findIndex(f => f.path === spec.zoom.join(';'));
	check(i >= 0, `frame ${spec.zoom.join(';')} found`);
	await click(i);
	let st = await state();
	const z = st.frames[i];
	check(near(z.x, 10) && near(z.w, 1180),
	      `zoomed frame fills the width: x=${z.x} width=${z.w}`);
	const shown = st.frames.filter(f => !f.hidden);
	check(shown.length === spec.visible,
	      `${shown.length} frames shown after zooming, want ${spec.visible}`);
	check(shown.filter(f => f.d > z.d).every(f =>
		near(f.w, f.n * 1180 / z.n) && near(f.x, 10 + (f.s - z.s) * 1180 / z.n)),
	      'callees scaled to the zoomed frame');
	await run(re => { window.prompt = () => re; return 'true'; }, spec.regex);
	await click('#search');
	await shot('search-zoomed');
	st = await state();
	check(st.matched === `Matched: ${spec.matchedZoomed}%` && st.marked > 0,
	      `search /${spec.regex}/ zoomed: '${st.matched}', want ${spec.matchedZoomed}%`);
	await click('#unzoom');
	st = await state();
	check(st.matched === `Matched: ${spec.matchedAll}%`,
	      `search /${spec.regex}/ unzoomed: '${st.matched}', want ${spec.matchedAll}%`);
	check(st.frames.every((f, k) => !f.hidden && near(f.x, before[k].x) &&
	      near(f.w, before[k].w)), 'Reset Zoom restores every frame');
	await click('#search');
	st = await state();
	check(st.matched.trim() === '' && st.marked === 0,
	      'Reset Search clears the marks');
	await cmd('browser.close', {}).catch(() => {});
} catch (e) {
	check(false, e.message);
}
clearTimeout(timer);
ff.kill();
process.exit(failures ? 1 : 0);
