/*
 * ffcheck.js - the browser half of firefox.test: run in a page (headless
 * chromium) that holds a processed profile as JSON in
 * <script type="application/json" id="profile">, it parses it as the
 * Firefox Profiler does (JSON.parse in the page), walks every thread's
 * tables from each sample's stack down to its strings, as the profiler's
 * call tree does, and writes into the page "ok: ..." or "bad: why".
 */
'use strict';
(function () {
	function fail(why) {
		throw new Error(why);
	}
	function inTable(v, n, what) {
		if (!Number.isInteger(v) || v < 0 || v >= n)
			fail(what + ': ' + v + ' not in 0..' + (n - 1));
	}
	function run() {
		const p = JSON.parse(
			document.getElementById('profile').textContent);
		const strs = p.shared.stringArray;
		const cats = p.meta.categories;
		let samples = 0, named = 0;
		const leaves = new Map();

		if (p.meta.preprocessedProfileVersion !== 58)
			fail('version ' + p.meta.preprocessedProfileVersion);
		p.threads.forEach(function (t, ti) {
			const st = t.stackTable, fr = t.frameTable;
			const fn = t.funcTable, rs = t.resourceTable;

			t.samples.stack.forEach(function (s, si) {
				let leaf = true;

				samples++;
				for (; s !== null; s = st.prefix[s]) {
					inTable(s, st.length, 'thread ' + ti +
						' sample ' + si + ' stack');
					const f = st.frame[s];
					inTable(f, fr.length, 'frame');
					inTable(fr.category[f], cats.length,
						'category');
					const func = fr.func[f];
					inTable(func, fn.length, 'func');
					inTable(fn.name[func], strs.length,
						'func name');
					if (fn.resource[func] !== -1) {
						inTable(fn.resource[func],
							rs.length, 'resource');
						inTable(rs.lib[fn.resource[func]],
							p.libs.length, 'lib');
					}
					if (st.prefix[s] !== null &&
					    st.prefix[s] >= s)
						fail('stack ' + s + ': prefix after it');
					if (!leaf)
						continue;
					leaf = false;
					const name = strs[fn.name[func]];
					if (name.length)
						named++;
					leaves.set(name,
						   (leaves.get(name) || 0) + 1);
				}
			});
		});
		const top = Array.from(leaves.entries())
			.sort(function (a, b) {
				return b[1] - a[1] || (a[0] < b[0] ? -1 : 1);
			})[0];
		return 'ok: ' + p.threads.length + ' threads, ' + samples +
		       ' samples, ' + named + ' named leaves, top ' +
		       (top ? top[0] : '(none)');
	}
	let out;

	try {
		out = run();
	} catch (e) {
		out = 'bad: ' + e.message;
	}
	document.getElementById('result').textContent = out;
})();
