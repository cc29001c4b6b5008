#!/usr/bin/env python3
"""latdoc.py - the Latency section of `pdtool report --format md -o DIR`
against the text reports it says it summarizes:

    latdoc.py REPORT.md FUNCTIONS.txt LEVELS.txt

FUNCTIONS.txt: `pdtool report --latency --no-children -g none -s dso,sym
--stdio` (Latency, Overhead, DSO, symbol); LEVELS.txt: `pdtool report
--latency -s parallelism -g none --stdio` (latency, overhead, twice with
children, then the level).  Each of the section's function rows must be
the text report's row of that rank (latency and CPU shares, symbol and
module), each level row that level's shares.  Exits 1 on a difference.
"""
import re
import sys


def section(md):
    text = open(md).read()
    m = re.search(r'^## Latency\n(.*?)(?=^## )', text, re.M | re.S)
    if not m:
        print('FAIL no Latency section')
        sys.exit(1)
    return [[c.strip().strip('`') for c in l.strip().strip('|').split('|')]
            for l in m.group(1).splitlines()
            if l.startswith('|') and not l.startswith('|-')
            and not l.startswith('|:') and not l.startswith('|--')]


def main():
    rows = section(sys.argv[1])
    fn = [r for r in rows if len(r) == 6 and r[0].isdigit()]
    lv = [r for r in rows if len(r) == 4 and r[0].isdigit()]
    want_fn = []
    for l in open(sys.argv[2]):
        m = re.match(r'^\s+(\d+\.\d+%)\s+(\d+\.\d+%)\s+(\S+)\s+\[.\]\s+(.+?)\s*$',
                     l)
        if m:
            want_fn.append(m.groups())
    want_lv = {}
    for l in open(sys.argv[3]):
        m = re.match(r'^\s+(\d+\.\d+%)\s+(\d+\.\d+%)\s+\S+\s+\S+\s+(\d+)\s*$',
                     l)
        if m:
            want_lv[m.group(3)] = (m.group(1), m.group(2))
    fail = not fn or not lv
    for r in fn:
        w = want_fn[int(r[0]) - 1] if int(r[0]) <= len(want_fn) else None
        ok = w is not None and (r[1], r[2], r[5], r[4]) == w
        fail |= not ok
        print('%s function %s: %s; report %s' % ('ok' if ok else 'FAIL',
                                                  r[0], r[1:], w))
    for r in lv:
        w = want_lv.get(r[0])
        ok = w == (r[3], r[2])
        fail |= not ok
        print('%s parallelism %s: latency %s cpu %s; report %s' %
              ('ok' if ok else 'FAIL', r[0], r[3], r[2], w))
    if len(lv) != len(want_lv):
        print('FAIL %d levels, report %d' % (len(lv), len(want_lv)))
        fail = True
    return 1 if fail else 0


if __name__ == '__main__':
    sys.exit(main())
