#!/usr/bin/env python3
"""brmerge.py [--perf7] PERF PDTOOL - compare perf 6.1's and pdtool's report
--branch-stack --stdio outputs.

Prints "identical" when the texts are.  Else compares them after undoing
perf 6.1's split rows: its sort__mispredict_cmp() says only "differ"
(1, never -1), so its collapse tree can miss a row of equal keys and
start another one; those rows are merged by their key cells, their
shares summed (each rounded to 0.01%: the sums may differ by half of
that a row).  Prints "perf rows merged: N" when the headers and every
key's share agree, else the first difference, and exits 1.

The "Branch Statistics" block after the tables (captures with recorded
types) is left out of the comparison: perf 6.1 counts each entry with
the flags and ends of its row's first entry (hist_iter__branch_callback
reads he->branch_info), so its shares change with --sort; pdtool counts
each entry's own, which brstats.py checks against the generator's
truth.  "stats judged" says the block was there.

--perf7: PERF is perf 7.x's output (where perf 6.1 crashes), whose
"# Samples:" line counts the samples with a branch stack where perf
6.1's (and pdtool's) counts the entries: that line is not compared."""
import re
import sys


def parse(path):
    head, rows, total = [], {}, None
    order = []
    for line in open(path, encoding='utf-8', errors='surrogateescape'):
        line = line.rstrip('\n')
        if line == '# Branch Statistics:':
            if head and head[-1] == '#':
                head.pop()
            head.append('(Branch Statistics)')
            break
        m = re.match(r'# Event count \(approx\.\): (\d+)$', line)
        if m:
            total = int(m.group(1))
        m = re.match(r'^ +(\d+\.\d\d)%  (.*)$', line)
        if not m or total is None:
            head.append(line)
            continue
        key = m.group(2).rstrip()
        pct, nrows = rows.get(key, (0.0, 0))
        if key not in rows:
            order.append(key)
        rows[key] = (pct + float(m.group(1)), nrows + 1)
    return head, rows, order


def main():
    args = sys.argv[1:]
    perf7 = args[0] == '--perf7'
    if perf7:
        args = args[1:]
    perf, pd = args[0], args[1]
    if open(perf, 'rb').read() == open(pd, 'rb').read():
        print('identical')
        return 0
    ph, pr, po = parse(perf)
    dh, dr, do = parse(pd)
    stats = bool(ph) and ph[-1] == '(Branch Statistics)'
    for h in (ph, dh):
        if h and h[-1] == '(Branch Statistics)':
            h.pop()
        while h and h[-1] == '':
            h.pop()
    if perf7:
        ph = [x for x in ph if not x.startswith('# Samples: ')]
        dh = [x for x in dh if not x.startswith('# Samples: ')]
    if ph != dh:
        for a, b in zip(ph, dh):
            if a != b:
                print('header differs:\n  perf:   %s\n  pdtool: %s' % (a, b))
                return 1
        print('header lengths differ')
        return 1
    for k in sorted(set(pr) | set(dr)):
        p, d = pr.get(k), dr.get(k)
        # each printed share is rounded to 0.01%: a key's sum is within
        # half of that a row of either side
        if not p or not d or abs(p[0] - d[0]) > 0.005 * (p[1] + d[1]) + 1e-9:
            print('row %r: perf %s, pdtool %s' % (
                k, p and '%.2f%%' % p[0], d and '%.2f%%' % d[0]))
            return 1
    nperf = sum(1 for line in open(perf) if re.match(r'^ +\d+\.\d\d%  ', line))
    print('perf rows merged: %d%s' % (nperf - len(pr),
                            ', stats judged' if stats else ''))
    return 0


sys.exit(main())
