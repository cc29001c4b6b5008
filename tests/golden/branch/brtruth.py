#!/usr/bin/env python3
"""brtruth.py TRUTH.json FILE: check branch stacks against the generator's
ground truth (tests/gen/pd_branch_gen.py --truth).

FILE is `perf script -F brstacksym` output (one sample a line, each branch
"FROM_SYM/TO_SYM/M|P|-/X|-/A|-/CYCLES/[TYPE]").  Every branch is counted by
its (from, to) symbol+offset pair, with its mispredictions and cycles; the
result must equal the truth's pairs, field by field.  Prints "ok: N
entries in M pairs" and exits 0, or prints each difference and exits 1.
"""
import json
import sys


def main(argv):
    truth = json.load(open(argv[1]))
    got = {}
    for line in open(argv[2]):
        for br in line.split():
            f = br.split("/")
            if len(f) < 6:
                continue
            p = got.setdefault((f[0], f[1]), [0, 0, 0])
            p[0] += 1
            p[1] += f[2] == "M"
            p[2] += int(f[5])
    want = {}
    for p in truth["pairs"]:
        want[(p["from_sym"], p["to_sym"])] = [
            p["count"], p["mispred"] or 0, p["cycles_sum"] or 0]
    bad = 0
    for k in sorted(set(got) | set(want)):
        if got.get(k) != want.get(k):
            print("%s -> %s: perf %s, truth %s" % (k[0], k[1], got.get(k),
                                                   want.get(k)))
            bad += 1
    if bad:
        return 1
    print("ok: %d entries in %d pairs" % (truth["entries"], len(want)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
