#!/usr/bin/env python3
"""report.py - the Markdown report of bench/run.sh.

    report.py FILES ROWS

FILES: one line per capture, "path size key=value..." (bench_reader's
counts).  ROWS: tab-separated "command, path, median microseconds, peak
RSS KB".  Prints the captures, the table and the targets of the issue:
pdtool dump --count at least 20x faster than perf script -F ip,tid,time
and at least 1 GB/s, with flat memory as the file grows.
"""
import sys

from benchlib import mb, read_anon, read_files, read_rows, short

PDTOOL = "pdtool dump --count"
PERF_SCRIPT = "perf script -F ip,tid,time"


def main():
    files, order = read_files(sys.argv[1])
    rows, t, rss = read_rows(sys.argv[2])
    anon = read_anon(sys.argv[2])

    print("Captures:")
    print()
    for p in order:
        f = files[p]
        extra = ""
        if f["decomp"]:
            extra = ", zstd: %.1f MB of records" % (f["decomp"] / 1e6)
        print("- %s: %.1f MB, %d records, %d samples%s"
              % (short(p), f["size"] / 1e6, f["records"], f["samples"],
                 extra))
    print()
    print("| file | command | median s | GB/s | peak RSS MB "
          "| peak anon MB | time / pdtool |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for cmd, p, s, kb in rows:
        pd = t.get((PDTOOL, p))
        ratio = "%.1f" % (s / pd) if pd else "-"
        print("| %s | `%s` | %.3f | %.2f | %.1f | %s | %s |"
              % (short(p), cmd, s, files[p]["size"] / s / 1e9, kb / 1024,
                 mb(anon.get((cmd, p))), ratio))
    print()
    print("GB/s is file bytes per second (for bigz, the compressed file).")
    print()
    print("Targets:")
    print()
    for p in order:
        pd = t.get((PDTOOL, p))
        ps = t.get((PERF_SCRIPT, p))
        cat = t.get(("cat", p))
        if not pd:
            continue
        f = files[p]
        if f["decomp"]:
            # the work is in the records zstd gives back
            gbs = f["decomp"] / pd / 1e9
            line = "- %s: pdtool %.2f GB/s of decompressed records " \
                   "(%.2f GB/s of the file; target >= 1: %s)" % (
                       short(p), gbs, f["size"] / pd / 1e9,
                       "met" if gbs >= 1 else "MISSED")
        else:
            gbs = f["size"] / pd / 1e9
            line = "- %s: pdtool %.2f GB/s (target >= 1: %s)" % (
                short(p), gbs, "met" if gbs >= 1 else "MISSED")
        if ps:
            line += "; perf script takes %.1fx pdtool's time " \
                    "(target >= 20x: %s)" % (ps / pd, "met" if ps / pd >= 20
                                             else "MISSED")
        if cat:
            line += "; pdtool takes %.1fx cat's time" % (pd / cat)
        print(line + ".")
    small = [p for p in order if short(p).startswith("small")]
    big = [p for p in order if short(p).startswith("big.")]
    if small and big:
        s, b = small[0], big[0]
        print("- Memory: pdtool dump --count peaks at %.1f MB on %s "
              "(%.0f MB) and %.1f MB on %s (%.0f MB); perf script at "
              "%s MB and %s MB."
              % (rss.get((PDTOOL, s), 0) / 1024, short(s),
                 files[s]["size"] / 1e6, rss.get((PDTOOL, b), 0) / 1024,
                 short(b), files[b]["size"] / 1e6,
                 "%.1f" % (rss[(PERF_SCRIPT, s)] / 1024)
                 if (PERF_SCRIPT, s) in rss else "-",
                 "%.1f" % (rss[(PERF_SCRIPT, b)] / 1024)
                 if (PERF_SCRIPT, b) in rss else "-"))


if __name__ == "__main__":
    main()
