#!/usr/bin/env python3
"""statjson.py DIFF.TXT DIFF.JSON - `pdtool diff --format json` of perf
stat record captures says what the text table says (which statdiff.py
holds to an independent computation): the same events and metrics in the
same order, each A, B, change and noise equal at the table's precision,
"-" where JSON has null, and "real" as significant.  Prints "ok N" or
each difference."""
import json
import sys


def num(s):
    return None if s == '-' else float(s.rstrip('%'))


def main():
    d = json.load(open(sys.argv[2]))
    rows = {'event': d['events'], 'metric': d['metrics']}
    at = {'event': 0, 'metric': 0}
    errs, n, part = [], 0, None
    for line in open(sys.argv[1]):
        if line.startswith('#'):
            s = line.rstrip()
            part = 'event' if s.endswith(' event') else (
                'metric' if s.endswith(' metric') else part)
            continue
        f = line.split()
        j = rows[part][at[part]]
        at[part] += 1
        pct = part == 'metric' and j['unit'] == '%'
        for k, (got, key) in enumerate(zip(map(num, f[:4]),
                                           ('a', 'b', 'change', 'noise'))):
            v = j[key]
            if v is not None and (k >= 2 or pct):
                v *= 100
            # the table's precision: 2 decimals of %, 3 of a ratio or
            # msec, integers for counts
            tol = 0.0051 if k >= 2 or pct else (
                0.00051 if part == 'metric' or j['unit'] == 'msec' else 0.51)
            if (got is None) != (v is None) or (
                    got is not None and abs(got - v) > tol):
                errs.append('%s %s %s: text %s, json %s' % (
                    part, j['name'], key, got, v))
        rest = f[4:]
        real = rest.pop(0) if rest and rest[0] in ('yes', 'no') else ''
        want = '' if j['significant'] is None else (
            'yes' if j['significant'] else 'no')
        if real != want:
            errs.append('%s %s real: text %r, json %r' % (
                part, j['name'], real, want))
        if not ' '.join(rest).startswith(j['name']):
            errs.append('%s: text %r, json %r' % (part, ' '.join(rest),
                                                  j['name']))
        n += 1
    for p in rows:
        if at[p] != len(rows[p]):
            errs.append('%s: %d in the text, %d in json' % (
                p, at[p], len(rows[p])))
    for e in errs:
        print(e)
    if not errs:
        print('ok', n)
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
