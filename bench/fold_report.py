#!/usr/bin/env python3
"""fold_report.py - the Markdown report of bench/fold.sh.

    fold_report.py FILES ROWS CMP

FILES: one line per capture, "path size key=value..." (bench_reader's
counts).  ROWS: tab-separated "command, path, median microseconds, peak
RSS KB".  CMP: tab-separated "path, cmpfold.py's output" (lines joined by
vertical tabs), pdtool fold against perf's stackcollapse.  Prints the
captures, the table, and the targets of issue 3: pdtool fold at least 20x
faster than `perf script report stackcollapse` and 10x faster than `perf
report --stdio`, at most a quarter of perf report's peak RSS, and its
time against cat's (aim: within 5x).
"""
import sys

from benchlib import mb, read_anon, read_files, read_rows, short

PDTOOL = "pdtool fold"
COLLAPSE = "perf script report stackcollapse"
REPORT = "perf report --stdio"


def main():
    files, order = read_files(sys.argv[1])
    rows, t, rss = read_rows(sys.argv[2])
    anon = read_anon(sys.argv[2])
    cmp = {}
    for line in open(sys.argv[3]):
        path, text = line.rstrip("\n").split("\t", 1)
        cmp[path] = text.split("\v")

    print("Captures:")
    print()
    for p in order:
        f = files[p]
        extra = ""
        if f["decomp"]:
            extra = ", zstd holding %.1f MB of records" % (f["decomp"] / 1e6)
        print("- %s: %.1f MB, %d samples%s"
              % (short(p), f["size"] / 1e6, f["samples"], extra))
    print()
    print("| file | command | median s | samples/s | peak RSS MB "
          "| peak anon MB | time / pdtool fold |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for cmd, p, s, kb in rows:
        pd = t.get((PDTOOL, p))
        ratio = "%.1f" % (s / pd) if pd else "-"
        print("| %s | `%s` | %.3f | %s | %.1f | %s | %s |"
              % (short(p), cmd, s,
                 "%.0f" % (files[p]["samples"] / s) if s > 0 else "-",
                 kb / 1024, mb(anon.get((cmd, p))), ratio))
    print()
    print("Targets (issue 3):")
    print()
    for p in order:
        pd = t.get((PDTOOL, p))
        if not pd:
            continue
        parts = []
        sc = t.get((COLLAPSE, p))
        if sc:
            parts.append("stackcollapse takes %.1fx pdtool fold's time "
                         "(target >= 20x: %s)"
                         % (sc / pd, "met" if sc / pd >= 20 else "MISSED"))
        rp = t.get((REPORT, p))
        if rp:
            parts.append("perf report --stdio %.1fx (target >= 10x: %s)"
                         % (rp / pd, "met" if rp / pd >= 10 else "MISSED"))
        rr = rss.get((REPORT, p))
        if rr:
            q = rss[(PDTOOL, p)] / rr
            parts.append("peak RSS %.1f MB, %.2f of perf report's %.1f MB "
                         "(target <= 0.25: %s)"
                         % (rss[(PDTOOL, p)] / 1024, q, rr / 1024,
                            "met" if q <= 0.25 else "MISSED"))
        cat = t.get(("cat", p))
        if cat:
            parts.append("pdtool fold takes %.1fx cat's time (aim <= 5x: %s)"
                         % (pd / cat, "met" if pd / cat <= 5 else "not met"))
        print("- %s: %s." % (short(p), "; ".join(parts)))
    if cmp:
        print()
        print("pdtool fold against `perf script report stackcollapse` "
              "(tests/cli/fold/cmpfold.py: the share of perf's sample "
              "weight that pdtool folds into the same stack with the same "
              "weight, and the stacks that differ):")
        print()
        for p in order:
            lines = cmp.get(p)
            if not lines:
                continue
            print("- %s: %s" % (short(p), lines[0]))
            for line in lines[1:]:
                if line.strip():
                    print("  - `%s`" % line.strip())


if __name__ == "__main__":
    main()
