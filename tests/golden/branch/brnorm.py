#!/usr/bin/env python3
"""brnorm.py perf|pdtool [FILE]: a digest of every sample's branch stack.

perf: FILE is `perf script -F brstack` output (perf 6.1: one line per
sample, each branch "FROM/TO/M|P|-/X|-/A|-/CYCLES/"); pdtool: FILE is
`pdtool dump` output.  Each sample with a non-empty branch stack becomes
one line, its branches "from/to/prediction/in_tx/abort/cycles" in
order, addresses in lowercase hex; the lines are sorted (perf script
prints samples in time order, pdtool dump in file order) and the result is
"NR_SAMPLES SHA256".
"""
import hashlib
import re
import sys

DUMP_RE = re.compile(r"\{from=(0x[0-9a-f]+) to=(0x[0-9a-f]+) mispred=(\d) "
                     r"predicted=(\d) in_tx=(\d) abort=(\d) cycles=(\d+)")


def from_perf(lines):
    for line in lines:
        out = []
        for br in line.split():
            f = br.split("/")
            if len(f) < 6:
                break
            out.append("%x/%x/%s/%s/%s/%d" % (int(f[0], 16), int(f[1], 16),
                                               f[2], f[3], f[4], int(f[5])))
        if out:
            yield " ".join(out)


def from_pdtool(lines):
    for line in lines:
        if " SAMPLE " not in line:
            continue
        out = []
        for fr, to, mis, pred, tx, ab, cyc in DUMP_RE.findall(line):
            p = "M" if mis == "1" else "P" if pred == "1" else "-"
            out.append("%x/%x/%s/%s/%s/%d" % (int(fr, 16), int(to, 16), p,
                                               "X" if tx == "1" else "-",
                                               "A" if ab == "1" else "-",
                                               int(cyc)))
        if out:
            yield " ".join(out)


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in ("perf", "pdtool"):
        sys.exit(__doc__)
    src = open(sys.argv[2], errors="replace") if len(sys.argv) == 3 else sys.stdin
    rows = sorted((from_perf if sys.argv[1] == "perf" else from_pdtool)(src))
    digest = hashlib.sha256("\n".join(rows).encode()).hexdigest()
    print(len(rows), digest)


if __name__ == "__main__":
    main()
