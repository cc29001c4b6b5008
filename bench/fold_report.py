#!/usr/bin/env python3
"""fold_report.py - the Markdown report of bench/fold.sh.

    fold_report.py FILES ROWS CMP TENX

FILES: one line per capture, "path size key=value..." (bench_reader's
counts).  ROWS: tab-separated "command, path, median microseconds, peak
RSS KB".  CMP: tab-separated "path, cmpfold.py's output" (lines joined by
vertical tabs), pdtool fold against perf's stackcollapse.  TENX:
tab-separated "path, path of the capture ten times over (bench/concat.py),
the check of its lines".  Prints the captures, the table, and the targets
of issue 14: pdtool fold at least 100x faster than `perf script report
stackcollapse` and 15x (10x on a zstd capture) faster than `perf report
--stdio`, within 10x of cat, -j2 at least 1.7x faster than -j1, peak
anonymous memory at most 64 MB and within 10% of it on the capture ten
times as large.
"""
import sys

from benchlib import mb, read_anon, read_files, read_rows, short

PDTOOL = "pdtool fold"
ONE = "pdtool fold -j1"
ANON_MAX_MB = 64
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
    tenx = {}
    if len(sys.argv) > 4:
        for line in open(sys.argv[4]):
            base, big, check = line.rstrip("\n").split("\t", 2)
            tenx[base] = (big, check)
    print("Targets (issue 14):")
    print()
    for p in order:
        pd = t.get((PDTOOL, p))
        if not pd or any(v[0] == p for v in tenx.values()):
            continue
        zstd = files[p]["decomp"] > 0
        parts = []
        sc = t.get((COLLAPSE, p))
        if sc:
            parts.append("stackcollapse takes %.1fx pdtool fold's time "
                         "(target >= 100x: %s)"
                         % (sc / pd, "met" if sc / pd >= 100 else "MISSED"))
        rp = t.get((REPORT, p))
        goal = 10 if zstd else 15
        if rp:
            parts.append("perf report --stdio %.1fx (target >= %dx: %s)"
                         % (rp / pd, goal,
                            "met" if rp / pd >= goal else "MISSED"))
        cat = t.get(("cat", p))
        if cat and not zstd:
            parts.append("pdtool fold takes %.1fx cat's time "
                         "(target <= 10x: %s)"
                         % (pd / cat, "met" if pd / cat <= 10 else "MISSED"))
        one = t.get((ONE, p))
        if one:
            parts.append("-j1 / -j2 %.2fx (target >= 1.7x: %s)"
                         % (one / pd, "met" if one / pd >= 1.7 else "MISSED"))
        a1 = anon.get((PDTOOL, p))
        if a1:
            parts.append("peak anon %.1f MB (target <= %d MB: %s)"
                         % (a1 / 1024, ANON_MAX_MB,
                            "met" if a1 / 1024 <= ANON_MAX_MB else "MISSED"))
        if p in tenx:
            big, check = tenx[p]
            a10 = anon.get((PDTOOL, big))
            if a1 and a10:
                parts.append("ten times the capture (%s, %.0f MB): %.1f MB, "
                             "%+.1f%% (target within 10%%: %s); %s"
                             % (short(big), files[big]["size"] / 1e6,
                                a10 / 1024, 100.0 * (a10 - a1) / a1,
                                "met" if abs(a10 - a1) <= 0.1 * a1
                                else "MISSED", check))
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
