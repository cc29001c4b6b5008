#!/usr/bin/env python3
"""perf7lat.py - compare `pdtool report --stdio` with perf 7.2's report of
the same view (tests/golden/perf/perf7/NAME.VIEW, perf7-latency-regen.sh):

    perf7lat.py GOLDEN PDTOOL_OUTPUT

Equal: the "# Samples" and "# Event count" lines, the column headers (as
words), and the rows in order, each row's percentages and its key text.
Not compared: the spaces between columns, and a symbol's level marker
("[k]" or "[.]") in the rows of callers that children mode adds (perf 7.2
marks a kernel caller "[.]" where perf 6.1, whose output pdtool's text
follows, marks it "[k]"; a sample's own row is "[k]" in both).
Prints the first difference; exits 1 on one.
"""
import re
import sys

LEVEL = re.compile(r'\[[.kgHu]\] ')


def parse(path):
    head, cols, rows = [], None, []
    for line in open(path, encoding='utf-8', errors='surrogateescape'):
        line = line.rstrip('\n')
        if line.startswith('# Samples') or line.startswith('# Event count'):
            head.append(line)
        elif line.startswith('# ') and cols is None and '%' not in line \
                and not line.startswith('# .') and \
                re.search(r'(Overhead|Latency|Children)', line):
            cols = line[2:].split()
        elif line and not line.startswith('#'):
            vals = re.findall(r'\d+\.\d+%', line)
            key = re.sub(r'\s+', ' ', LEVEL.sub('', re.sub(
                r'^\s*(\d+\.\d+%\s+)+', '', line))).strip()
            rows.append((vals, key))
    return head, cols, rows


def main():
    want = parse(sys.argv[1])
    got = parse(sys.argv[2])
    what = ('header', 'columns', 'rows')
    for name, w, g in zip(what, want, got):
        if name != 'rows':
            if w != g:
                print('%s differ: perf 7.2 %r, pdtool %r' % (name, w, g))
                return 1
            continue
        for i, (wr, gr) in enumerate(zip(w, g)):
            if wr != gr:
                print('row %d differs: perf 7.2 %r, pdtool %r' % (i + 1, wr, gr))
                return 1
        if len(w) != len(g):
            print('perf 7.2 has %d rows, pdtool %d' % (len(w), len(g)))
            return 1
    print('ok %s: %d rows' % (sys.argv[1].rsplit('/', 1)[-1], len(want[2])))
    return 0


if __name__ == '__main__':
    sys.exit(main())
