#!/usr/bin/env python3
"""tlsvg.py - check a `pdtool timeline` page as headless Chromium drew it
(tlbrowser.js's JSON) against the capture's own records.

    tlsvg.py range PAGE.json
        print the zoomed view's --time range as the page showed it (after
        checking it is the view's start rounded down and end rounded up
        to the microsecond, and the view the drag selected)
    tlsvg.py check PAGE.json DUMP.jsonl LEAVES ZOOMED MODE
        DUMP.jsonl: `pdtool dump --json --ordered` of the capture (the
        records, no symbols); LEAVES: `pdtool script --ns -F tid,time,ip,sym
        --max-stack 1` (each sample's leaf); ZOOMED: `pdtool script --ns -F
        tid,time --time RANGE` with range's output; MODE: function or cpu

What is checked, from the records alone: a lane per sampled thread, each
lane's sample count, each run of samples starting at one of its thread's
sample times, in time order, without overlap; each off-CPU span a switch
out to the thread's next switch in (blocked or preempted as the switch-out
says), per thread the same total; the leaf named on each run (function
mode) or the one on-CPU colour (cpu mode); the zoom's --time range holding
exactly the samples perf's rule puts in it and every sample in view; the
reset restoring the whole capture; and the page refusing nothing of its
own under its Content-Security-Policy.  Prints one line per failure and
exits 1 on any.
"""
import json
import math
import re
import sys

SWITCH_OUT, SWITCH_PREEMPT = 0x2000, 0x4000
COLOR_ON = '#e0662b'
fails = []


def fail(msg):
    fails.append(msg)


def view(page):
    a, _, w, _ = (float(v) for v in page['viewBox'].split())
    return a, a + w


def sec(us):
    s = us // 1000000
    return '%d.%06d' % (s, us - s * 1000000)


def want_range(page):
    a, b = view(page)
    base = int(page['start']) / 1000
    return '--time %s,%s' % (sec(math.floor(base + a)),
                             sec(math.ceil(base + b)))


def parse_range(text):
    m = re.match(r'^--time (\d+)\.(\d{6}),(\d+)\.(\d{6})$', text)
    if not m:
        return None
    s0, f0, s1, f1 = (int(v) for v in m.groups())
    return (s0 * 10**9 + f0 * 1000, s1 * 10**9 + f1 * 1000)


def cmd_range(page):
    z = page['zoomed']
    a, b = view(z)
    span = z['span']
    # two CSS pixels of the plot either side: the drag's own rounding
    tol = 2 * span / page['before']['box']['w']
    for got, frac in ((a, page['drag'][0]), (b, page['drag'][1])):
        if abs(got - frac * span) > tol:
            fail('zoom: view edge %.3f us, the drag asked %.3f' %
                 (got, frac * span))
    if z['range'] != want_range(z):
        fail('zoom: page shows %r, its view is %r' %
             (z['range'], want_range(z)))
    if z['unzoomHidden']:
        fail('zoom: no Reset Zoom offered')
    print(z['range'][len('--time '):])


def records(path):
    samples, switches = {}, {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r.get('type') == 'SAMPLE' and 'time' in r:
                samples.setdefault((r['pid'], r['tid']), []).append(r['time'])
            elif r.get('type') in ('SWITCH', 'SWITCH_CPU_WIDE'):
                sid = r.get('sample_id', {})
                if 'tid' in sid and 'time' in sid:
                    switches.setdefault(sid['tid'], []).append(
                        (sid['time'], r.get('misc', 0)))
    return samples, switches


def waits(switches, tid):
    """(start, end, preempted) of each switch out to the next switch in"""
    sw = sorted(switches.get(tid, []), key=lambda s: s[0])
    out = []
    for (t0, m0), (t1, m1) in zip(sw, sw[1:]):
        if m0 & SWITCH_OUT and not m1 & SWITCH_OUT:
            out.append((t0, t1, bool(m0 & SWITCH_PREEMPT)))
    return out


def leaves(path):
    head = re.compile(r'^\s*(\d+)\s+(\d+)\.(\d{9}):')
    got, cur = {}, None
    with open(path) as f:
        for line in f:
            m = head.match(line)
            if m:
                cur = (int(m.group(1)), int(m.group(2)) * 10**9 +
                       int(m.group(3)))
                got[cur] = '[no stack]'
            elif line.strip() and cur:
                parts = line.split(None, 1)
                got[cur] = parts[1].strip() if len(parts) > 1 else '[unknown]'
                # a symbol's offset and DSO are not part of its name
                got[cur] = re.sub(r'\+0x[0-9a-f]+$', '', got[cur].split(' (')[0])
                cur = None
    return got


def zoomed_script(path):
    head = re.compile(r'^\s*(\d+)\s+(\d+)\.(\d{9}):')
    out = set()
    with open(path) as f:
        for line in f:
            m = head.match(line)
            if m:
                out.add((int(m.group(1)),
                         int(m.group(2)) * 10**9 + int(m.group(3))))
    return out


def cmd_check(page, dump, leaf_path, zoomed_path, mode):
    samples, switches = records(dump)
    leaf = leaves(leaf_path)
    before, zoomed, reset = page['before'], page['zoomed'], page['reset']
    base = int(before['start'])
    for what in ('refused', 'errors'):
        for m in page[what]:
            fail('page %s: %s' % (what, m))
    lanes = {(l['pid'], l['tid']): l for l in before['lanes']}
    if set(lanes) != set(samples):
        fail('lanes %s, sampled threads %s' %
             (sorted(lanes), sorted(samples)))
    for key, lane in sorted(lanes.items()):
        times = sorted(samples.get(key, []))
        n = sum(r['n'] for r in lane['samples'])
        if n != len(times):
            fail('%d/%d: %d samples drawn, %d recorded' %
                 (key[0], key[1], n, len(times)))
        have, end = set(times), -1
        for r in lane['samples']:
            t = base + round(r['x'] * 1000)
            if t not in have:
                fail('%d/%d: a run starts at %d, no sample then' %
                     (key[0], key[1], t))
            if t < end:
                fail('%d/%d: runs overlap at %d' % (key[0], key[1], t))
            end = t + round(r['w'] * 1000)
            m = re.match(r'^(.*): (\d+) samples?, ', r['title'])
            if not m or int(m.group(2)) != r['n']:
                fail('%d/%d: title %r' % (key[0], key[1], r['title']))
            elif mode == 'cpu':
                if r['fill'] != COLOR_ON or m.group(1) != 'on CPU':
                    fail('%d/%d: cpu colouring %s %r' %
                         (key[0], key[1], r['fill'], m.group(1)))
            elif leaf.get((key[1], t)) != m.group(1):
                fail('%d/%d at %d: run named %r, the sample\'s leaf %r' %
                     (key[0], key[1], t, m.group(1), leaf.get((key[1], t))))
        want = waits(switches, key[1])
        got = sorted((base + round(o['x'] * 1000), o['ns']) for o in
                     lane['off'])
        exp = sorted((w[0], w[1] - w[0]) for w in want)
        if got != exp:
            fail('%d/%d: off-CPU spans %s, switch records %s' %
                 (key[0], key[1], got[:4], exp[:4]))
    # the zoom's range: the samples perf's --time keeps, and all in view
    lo, hi = parse_range(zoomed['range']) or (0, -1)
    a, b = view(zoomed)
    inrange = {(k[1], t) for k, ts in samples.items() for t in ts
               if lo <= t <= hi}
    inview = {(k[1], t) for k, ts in samples.items() for t in ts
              if base + a * 1000 <= t <= base + b * 1000}
    got = zoomed_script(zoomed_path)
    if got != inrange:
        fail('--time %s: pdtool script kept %d samples, %d are in it' %
             (zoomed['range'], len(got), len(inrange)))
    if not inview <= got or not inview:
        fail('--time %s: %d of the %d samples in view left out' %
             (zoomed['range'], len(inview - got), len(inview)))
    if reset['viewBox'] != before['viewBox'] or not reset['unzoomHidden'] \
            or reset['range'] != before['range']:
        fail('reset: view %s, range %s' % (reset['viewBox'], reset['range']))
    lo, hi = parse_range(before['range']) or (0, -1)
    every = [t for ts in samples.values() for t in ts]
    if not every or min(every) < lo or max(every) > hi + 999:
        fail('whole view %s does not hold every sample' % before['range'])
    if before['ticks'] < 2 or zoomed['ticks'] < 2:
        fail('time axis: %d ticks, %d zoomed' %
             (before['ticks'], zoomed['ticks']))


def main():
    page = json.load(open(sys.argv[2]))
    if sys.argv[1] == 'range':
        cmd_range(page)
    else:
        cmd_check(page, *sys.argv[3:7])
    for f in fails:
        print('FAIL ' + f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
