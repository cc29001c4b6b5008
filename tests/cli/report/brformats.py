#!/usr/bin/env python3
"""brformats.py - report --branch-stack's md, json and csv against its text.

    brformats.py TEXT JSON CSV MD

The same tables: per event the entries, and per row (in order) its
share, entries and the keys' cells as the text shows them (json's cells
by key name, csv's columns, md's code spans).  Prints a summary; exit 1
with the first difference.
"""
import csv
import json
import re
import sys


def text_rows(path):
    """[(event, [(pct, cells)])]; the text's columns split at 2+ blanks."""
    tables, cur = [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"# Samples: .* of event '(.*)'$", line)
            if m:
                cur = (m.group(1), [])
                tables.append(cur)
            elif cur is not None and re.match(r"^ +[0-9.]+%", line):
                cols = re.split(r"  +", line.strip())
                cur[1].append((cols[0], cols[1:]))
            elif line.startswith("# Branch Statistics"):
                cur = None
    return tables


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    text = text_rows(sys.argv[1])
    with open(sys.argv[2]) as f:
        js = json.load(f)
    with open(sys.argv[3], newline="") as f:
        rows = list(csv.reader(f))
    with open(sys.argv[4]) as f:
        md = [l for l in f if l.startswith("| ") and "%" in l.split("|")[1]]
    keys = js["keys"]
    n = 0
    if len(text) != len(js["tables"]):
        sys.exit("tables: text %d, json %d" % (len(text), len(js["tables"])))
    for (ev, trows), jt in zip(text, js["tables"]):
        if ev != jt["event"] or len(trows) != len(jt["rows"]):
            sys.exit("%s: text %d rows, json %s %d"
                     % (ev, len(trows), jt["event"], len(jt["rows"])))
        for (pct, cells), jr in zip(trows, jt["rows"]):
            jcells = [jr[k] for k in keys]
            if pct != "%.2f%%" % jr["overhead"] or cells[:len(keys)] != jcells:
                sys.exit("%s: text %s %s, json %s %s"
                         % (ev, pct, cells, jr["overhead"], jcells))
            n += 1
    crows = rows[1:]
    if rows[0][3:3 + len(keys)] != keys or len(crows) != n:
        sys.exit("csv: header %s, %d rows (text %d)" % (rows[0], len(crows), n))
    jrows = [(jt["event"], r) for jt in js["tables"] for r in jt["rows"]]
    for c, (ev, jr) in zip(crows, jrows):
        if (c[0] != ev or int(c[2]) != jr["entries"]
                or c[3:3 + len(keys)] != [jr[k] for k in keys]):
            sys.exit("csv row %s, json %s" % (c, jr))
    if len(md) != n:
        sys.exit("md: %d rows, text %d" % (len(md), n))
    for m, (ev, jr) in zip(md, jrows):
        cells = [c.strip() for c in m.strip().strip("|").split("|")]
        if (int(cells[1]) != jr["entries"]
                or [c.strip("`") for c in cells[2:2 + len(keys)]]
                != [jr[k] for k in keys]):
            sys.exit("md row %s, json %s" % (cells, jr))
    print("%d rows equal in text, json, csv and md" % n)


if __name__ == "__main__":
    main()
