#!/usr/bin/env python3
"""memmode.py GOLDEN CSV JSON: pdtool report --mem-mode's csv and json
rows against perf 6.1's text table GOLDEN (perf report --mem-mode
--stdio -n): the same rows in the same order, each csv cell equal to
the text's cell (cut at the columns the dotted line gives; the text's
padding stripped), and each json row's self share, samples and memory
strings equal to the csv's.  Prints the differences; exit 1 if any."""
import csv
import json
import sys


def text_rows(path):
    lines = open(path, encoding='utf-8').read().split('\n')
    dots = next(i for i, l in enumerate(lines) if l.startswith('# ....'))
    spans, pos = [], 2
    for part in lines[dots][2:].split('  '):
        spans.append((pos, pos + len(part)))
        pos += len(part) + 2
    rows = []
    for l in lines[dots + 2:]:
        if not l.strip() or l.startswith('#'):
            continue
        cells = []
        for i, (a, b) in enumerate(spans):
            # the last column runs to the end of the line
            cells.append((l[a:] if i == len(spans) - 1 else l[a:b]).strip())
        rows.append(cells)
    return rows


def main():
    want = text_rows(sys.argv[1])
    with open(sys.argv[2], encoding='utf-8') as f:
        got = [r[1:] for r in list(csv.reader(f))[1:]]
    doc = json.load(open(sys.argv[3], encoding='utf-8'))
    jrows = [r for t in doc['tables'] for r in t['rows']]
    bad = 0
    if len(want) != len(got) or len(got) != len(jrows):
        print(f"rows: perf {len(want)}, csv {len(got)}, json {len(jrows)}")
        return 1
    for i, (w, g, j) in enumerate(zip(want, got, jrows)):
        g = [c.strip() for c in g]
        if w != g:
            print(f"row {i + 1}: perf {w}\n       csv  {g}")
            bad += 1
        if f"{j['self']:.2f}%" != g[0] or str(j['samples']) != g[1]:
            print(f"row {i + 1}: json {j['self']:.2f}% {j['samples']},"
                  f" csv {g[0]} {g[1]}")
            bad += 1
        for k in ('mem', 'snoop', 'tlb', 'locked', 'blocked'):
            if k in j and j[k].strip() not in g:
                print(f"row {i + 1}: json {k} '{j[k]}' not in the csv's")
                bad += 1
    return 1 if bad else 0


sys.exit(main())
