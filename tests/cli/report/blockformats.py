#!/usr/bin/env python3
"""blockformats.py TEXT MD JSON - pdtool report --total-cycles's md and
json outputs against its text output (which total-cycles.test holds to
perf's): the same tables (title, entries), and in each the same blocks in
the same order, every column equal: the shares to the text's 0.01%, the
cycles and averages as the text abbreviates them (6.9K, 2.5M), the
Branch Counter cell, the range's source lines and the DSO.  Prints
"N tables, M blocks" and exits 0, else the first difference, exit 1."""
import json
import re
import sys

ROW = re.compile(r"^ +(\d+\.\d\d)% +(\S+) +(\d+\.\d\d)% +(\S+) +"
                 r"(?:(\|\S.*\|) +)?\[(.*) -> (.*)\] +(\S.*?) *$")


def abbrev(n):
    """block-info.c cycles_string()"""
    if n >= 1000000:
        return "%.1fM" % (n / 1000000.0)
    if n >= 1000:
        return "%.1fK" % (n / 1000.0)
    return str(n)


def text_tables(path):
    out = []
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        # the Samples line abbreviates (1K): the entries are the event
        # count's
        m = re.match(r"# Samples: \S+ +of events? '(.*)'", line)
        if m:
            out.append([m.group(1), None, []])
            continue
        m = re.match(r"# Event count \(approx\.\): (\d+)$", line)
        if m and out:
            out[-1][1] = int(m.group(1))
            continue
        m = ROW.match(line)
        if m and out:
            out[-1][2].append(m.groups())
    return out


def cell(text):
    """an md cell's text: its code span unwrapped, pipes unescaped"""
    text = text.strip()
    if text.startswith("`") and text.endswith("`"):
        text = text[1:-1]
    return text.replace("\\|", "|")


def md_tables(path):
    out, title = [], None
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("## "):
            title = line[3:]
            out.append([title, None, []])
            continue
        m = re.match(r"(\d+) branch entr", line)
        if m and out and out[-1][1] is None:
            out[-1][1] = int(m.group(1))
            continue
        if line.startswith("| ") and not line.startswith("| Sampled") \
                and not line.startswith("| ---") and out:
            cells = [cell(c) for c in
                     re.split(r"(?<!\\)\|", line.strip()[1:-1])]
            out[-1][2].append(cells)
    return out


def main():
    text, md, js = sys.argv[1:4]
    tt = text_tables(text)
    mt = md_tables(md)
    jt = json.load(open(js))["tables"]
    if not (len(tt) == len(mt) == len(jt)):
        print("tables: text %d, md %d, json %d" % (len(tt), len(mt), len(jt)))
        return 1
    nblocks = 0
    for (title, entries, rows), m, j in zip(tt, mt, jt):
        if m[0] != title or j["event"] != title or \
                m[1] != entries or j["entries"] != entries:
            print("table %r: md %r, json %r" % (title, m[:2],
                                                (j["event"], j["entries"])))
            return 1
        if not (len(rows) == len(m[2]) == len(j["blocks"])):
            print("%s: blocks: text %d, md %d, json %d" % (
                title, len(rows), len(m[2]), len(j["blocks"])))
            return 1
        for i, (r, mr, b) in enumerate(zip(rows, m[2], j["blocks"])):
            tp, cyc, ap, avg, cntr, start, end, dso = r
            want = [tp, cyc, ap, avg, cntr, start, end, dso]
            got_j = ["%.2f" % b["sampled_cycles_pct"],
                     abbrev(b["sampled_cycles"]),
                     "%.2f" % b["avg_cycles_pct"], abbrev(b["avg_cycles"]),
                     b.get("branch_counter"), b["start_line"],
                     b["end_line"], b["dso"]]
            rng = mr[5 if cntr else 4].split(" -> ")
            got_m = [mr[0].rstrip("%"), abbrev(int(mr[1])),
                     mr[2].rstrip("%"), abbrev(int(mr[3])),
                     mr[4] if cntr else None, rng[0], rng[1], mr[-1]]
            for name, got in (("json", got_j), ("md", got_m)):
                if got != want:
                    print("%s block %d: text %r, %s %r" % (title, i, want,
                                                          name, got))
                    return 1
            nblocks += 1
    print("%d tables, %d blocks" % (len(tt), nblocks))
    return 0


sys.exit(main())
