#!/usr/bin/env python3
"""compare.py PERF PDTOOL [--judge RULE...]: perf report --stdio's text
(a tests/golden/report golden) against pdtool report's, table by table
and row by row.  Prints each difference (the header lines that differ,
rows perf has and pdtool lacks, rows pdtool has and perf lacks, rows in
both whose columns differ, rows out of perf's order) and exits 1 if
there is any that no rule judges.

A table is the lines from "# Samples: ... of event 'E'" (and perf's
" (time slices: T)" with --time) to the next; perf's text without one
is a difference (a golden that holds no table checks nothing);
its rows are the lines not starting with '#' that start with 2 to 10
spaces and a number (perf's "  %7.2f%%").  A row's key is its text
after the numeric columns (the sort keys); its values are the
percentages and counts before.  The lines after a row up to the next
(its call graph, with -g: graph and fractal lines indented 12 and more,
flat's 11, folded's unindented; blank lines at its end left out) are
compared line by line, and the first that differs is printed.

Rules (--judge), each "KIND:EVENT-REGEX:why":
  self-only   for these events compare only the rows with a non-zero
              Self column, their Self and counts, not Children, not
              the column widths and not the call graphs (perf gives a
              sample without a callchain the callchain of the sample
              before it: see golden.test)
"""
import re
import sys

NUM = re.compile(r'^\s*((?:\s*-?[0-9.]+%?)+)\s{2}(.*)$')
ROW = re.compile(r'^ {2,10}-?[0-9]')


def tables(path):
    out = []
    cur = None
    for line in open(path, encoding='utf-8', errors='surrogateescape'):
        line = line.rstrip('\n')
        m = re.match(r"^# Samples: .* of events? '(.*)'"
                     r"(?: \(time slices: .*\))?$", line)
        if m:
            cur = {'event': m.group(1), 'head': [line], 'rows': [],
                   'graphs': []}
            out.append(cur)
            continue
        if cur is None:
            continue
        # perf's closing tip ("#", "# (Tip: ...)", "#") is no header
        if line.startswith('# (') or (line == '#' and cur['rows']):
            continue
        if line.startswith('#'):
            cur['head'].append(line)
        elif ROW.match(line) and NUM.match(line):
            cur['rows'].append(line)
            cur['graphs'].append([])
        elif cur['rows'] and (line.strip() or cur['graphs'][-1]):
            cur['graphs'][-1].append(line)
    for t in out:
        for g in t['graphs']:
            while g and not g[-1].strip():
                g.pop()
    return out


def split_row(line):
    m = NUM.match(line)
    if not m:
        return (), line.strip()
    return tuple(m.group(1).split()), m.group(2).rstrip()


def main():
    args = sys.argv[1:]
    rules = []
    while '--judge' in args:
        i = args.index('--judge')
        kind, rx, why = args[i + 1].split(':', 2)
        rules.append((kind, re.compile(rx), why))
        del args[i:i + 2]
    perf, pd = tables(args[0]), tables(args[1])
    bad = 0
    judged = 0
    if not perf:
        print('no table in perf\'s text %s' % args[0])
        bad += 1
    if len(perf) != len(pd):
        print('tables: perf %d, pdtool %d' % (len(perf), len(pd)))
        bad += 1
    for tp, tq in zip(perf, pd):
        ev = tp['event']
        self_only = [r for r in rules if r[0] == 'self-only' and r[1].search(ev)]
        rp = [split_row(r) for r in tp['rows']]
        rq = [split_row(r) for r in tq['rows']]
        if self_only:
            # Children is the first column: keep rows with a Self > 0
            rp = [(v[1:], k) for v, k in rp if len(v) > 1 and v[1] != '0.00%']
            rq = [(v[1:], k) for v, k in rq if len(v) > 1 and v[1] != '0.00%']
            judged += 1
            hp, hq = tp['head'][:2], tq['head'][:2]
        else:
            hp, hq = tp['head'], tq['head']
        for a, b in zip(hp, hq):
            if a != b:
                print("[%s] header:\n  perf:   %s\n  pdtool: %s" % (ev, a, b))
                bad += 1
        if len(hp) != len(hq):
            print("[%s] header lines: perf %d, pdtool %d" % (ev, len(hp), len(hq)))
            bad += 1
        kp = [k for _, k in rp]
        kq = [k for _, k in rq]
        vp = dict((k, v) for v, k in rp)
        vq = dict((k, v) for v, k in rq)
        for i, k in enumerate(kp):
            if k not in vq:
                print('[%s] row %d only in perf: %s  %s' % (ev, i + 1, ' '.join(vp[k]), k))
                bad += 1
            elif vp[k] != vq[k]:
                print('[%s] row %d values: perf %s, pdtool %s: %s' %
                      (ev, i + 1, ' '.join(vp[k]), ' '.join(vq[k]), k))
                bad += 1
        for i, k in enumerate(kq):
            if k not in vp:
                print('[%s] row %d only in pdtool: %s  %s' % (ev, i + 1, ' '.join(vq[k]), k))
                bad += 1
        # the call graphs, by row key (self-only: the rows compared)
        gp = dict((split_row(r)[1], g) for r, g in zip(tp['rows'], tp['graphs']))
        gq = dict((split_row(r)[1], g) for r, g in zip(tq['rows'], tq['graphs']))
        for i, k in enumerate(kp):
            if self_only or k not in gq or gp[k] == gq[k]:
                continue
            a, b = gp[k], gq[k]
            j = next((j for j, (x, y) in enumerate(zip(a, b)) if x != y),
                     min(len(a), len(b)))
            print('[%s] row %d graph, line %d (perf %d lines, pdtool %d): %s\n  perf:   %r\n  pdtool: %r' %
                  (ev, i + 1, j + 1, len(a), len(b), k,
                   a[j] if j < len(a) else '(none)', b[j] if j < len(b) else '(none)'))
            bad += 1
        common_p = [k for k in kp if k in vq]
        common_q = [k for k in kq if k in vp]
        if common_p != common_q:
            for i, (a, b) in enumerate(zip(common_p, common_q)):
                if a != b:
                    print('[%s] order differs from row %d: perf %s, pdtool %s' % (ev, i + 1, a, b))
                    break
            bad += 1
        if not self_only and tp['rows'] != tq['rows'] and not bad:
            for a, b in zip(tp['rows'], tq['rows']):
                if a != b:
                    print('[%s] row text:\n  perf:   %r\n  pdtool: %r' % (ev, a, b))
                    bad += 1
                    break
    nrows = sum(len(t['rows']) for t in perf)
    if bad:
        print('%d difference%s (%d rows in perf)' % (bad, '' if bad == 1 else 's', nrows))
    else:
        print('same: %d table%s, %d rows%s' % (len(perf), '' if len(perf) == 1 else 's', nrows,
              ' (%d judged self-only)' % judged if judged else ''))
    return 1 if bad else 0


sys.exit(main())
