#!/usr/bin/env python3
"""latency.py - an independent latency profile from perf 6.1's records.

    python3 tests/golden/perf/latency.py CAPTURE > GOLDEN
    python3 tests/golden/perf/latency.py --by parallelism CAPTURE > GOLDEN
    python3 tests/golden/perf/latency.py --children CAPTURE > GOLDEN

perf 6.1 has no `perf report --latency` (perf >= 6.15 does, and no perf
7.x runs here), so this recomputes what perf >= 6.15 computes, from the
records perf 6.1 itself prints in time order (`perf script
--show-switch-events --show-task-events`): a counter from 1, +1 at each
switch-in, -1 at each switch-out and EXIT, clamped to [1, nrcpus avail]
(`perf report --header-only`); each sample's latency is period * 1000 //
level.  Prints one line per symbol, "LATENCY% OVERHEAD% SYMBOL", the
percentages with two decimals as perf prints them, ordered by latency,
then overhead, then name.  With --by parallelism, perf >= 6.15's
`report -s parallelism` instead: "OVERHEAD% LEVEL" per parallelism level,
ordered by overhead, then level.  With --children (a capture with
callchains), perf >= 6.15's report --latency --children -s sym: each
symbol's children latency and period (every sample whose callchain holds
it, once a sample) and its own, "CHILDREN_LAT% CHILDREN% LATENCY% SELF%
SYMBOL", ordered by those four columns, then name.
"""
import re
import subprocess
import sys


def main():
    by_level = sys.argv[1:3] == ['--by', 'parallelism']
    children = '--children' in sys.argv[1:-1]
    path = sys.argv[-1]
    hdr = subprocess.run(['perf', 'report', '--header-only', '-i', path],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r'nrcpus avail : (\d+)', hdr)
    nr_cpus = int(m.group(1)) if m else 0
    out = subprocess.run(
        ['perf', 'script', '-i', path, '--show-switch-events',
         '--show-task-events', '-F', 'comm,tid,time,period,event,ip,sym'],
        capture_output=True, text=True, check=True).stdout
    level = 1
    lat, per, at = {}, {}, {}
    if children:
        return print_children(out, nr_cpus)
    for line in out.splitlines():
        if 'PERF_RECORD_' in line:
            level += change(line)
            continue
        s = re.match(r'\s*\S.*?\s+\d+\s+[\d.]+:\s+(\d+)\s+\S+:\s+[0-9a-f]+\s+(.*)$',
                     line)
        if not s:
            continue
        period, sym = int(s.group(1)), s.group(2).strip()
        clamped = max(1, min(level, nr_cpus))
        lat[sym] = lat.get(sym, 0) + period * 1000 // clamped
        per[sym] = per.get(sym, 0) + period
        at[clamped] = at.get(clamped, 0) + period
    if by_level:
        total = sum(at.values())
        for k in sorted(at, key=lambda k: (-at[k], k)):
            print('%.2f%% %d' % (100.0 * at[k] / total, k))
        return
    tl, tp = sum(lat.values()), sum(per.values())
    rows = sorted(lat, key=lambda k: (-lat[k], -per[k], k))
    for k in rows:
        print('%.2f%% %.2f%% %s' % (100.0 * lat[k] / tl, 100.0 * per[k] / tp, k))


def change(line):
    """What a record line does to the counter: +1 a switch in, -1 a
    switch out or an exit, 0 any other."""
    if 'PERF_RECORD_SWITCH' in line:
        return -1 if 'PERF_RECORD_SWITCH OUT' in line or \
            'PERF_RECORD_SWITCH_CPU_WIDE OUT' in line else 1
    return -1 if 'PERF_RECORD_EXIT' in line else 0


def print_children(out, nr_cpus):
    """--children: samples with their callchains, leaf first."""
    level = 1
    cols = {}   # sym: [children latency, children period, latency, period]
    cur = None  # [period, latency, frames]

    def flush():
        if cur is None or not cur[2]:
            return
        for i, sym in enumerate(cur[2]):
            c = cols.setdefault(sym, [0, 0, 0, 0])
            if sym not in cur[2][:i]:
                c[0] += cur[1]
                c[1] += cur[0]
        c = cols[cur[2][0]]
        c[2] += cur[1]
        c[3] += cur[0]

    for line in out.splitlines():
        frame = re.match(r'\s+[0-9a-f]+\s+(.*)$', line)
        if frame and cur is not None and not line.lstrip().startswith('PERF'):
            cur[2].append(frame.group(1).strip())
            continue
        if not line.strip():
            continue
        flush()
        cur = None
        if 'PERF_RECORD_' in line:
            level += change(line)
            continue
        s = re.match(r'\s*\S.*?\s+\d+\s+[\d.]+:\s+(\d+)\s+\S+:\s*$', line)
        if s:
            period = int(s.group(1))
            clamped = max(1, min(level, nr_cpus))
            cur = [period, period * 1000 // clamped, []]
    flush()
    tl = sum(c[2] for c in cols.values())
    tp = sum(c[3] for c in cols.values())
    for k in sorted(cols, key=lambda k: ([-v for v in cols[k]], k)):
        c = cols[k]
        print('%.2f%% %.2f%% %.2f%% %.2f%% %s' % (
            100.0 * c[0] / tl, 100.0 * c[1] / tp, 100.0 * c[2] / tl,
            100.0 * c[3] / tp, k))


main()
