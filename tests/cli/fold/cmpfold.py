#!/usr/bin/env python3
"""cmpfold.py PERF PDTOOL [MIN%]: compare two folded-stack files.

Lines starting with '#' in PERF are notes.  Prints the share of perf's
sample weight whose folded stack pdtool has with the same weight (for each
stack, min(perf, pdtool) counts as identical), and the stacks that differ,
heaviest first.  Exits 0 when the share is >= MIN% (default 100: the files
are equal after sorting), else 1.
"""
import sys


def load(path):
    stacks = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            stack, _, count = line.rpartition(" ")
            stacks[stack] = stacks.get(stack, 0) + int(count)
    return stacks


def main():
    perf, pd = load(sys.argv[1]), load(sys.argv[2])
    need = float(sys.argv[3]) if len(sys.argv) > 3 else 100.0
    total = sum(perf.values())
    same = sum(min(w, pd.get(s, 0)) for s, w in perf.items())
    share = 100.0 * same / total if total else (100.0 if not pd else 0.0)
    diffs = []
    for s in set(perf) | set(pd):
        a, b = perf.get(s, 0), pd.get(s, 0)
        if a != b:
            diffs.append((max(a, b) - min(a, b), s, a, b))
    diffs.sort(key=lambda d: (-d[0], d[1]))
    print("%.2f%% of %d identical (%d stacks differ)" % (share, total, len(diffs)))
    for _, s, a, b in diffs[:8]:
        print("    perf %d pdtool %d: %s" % (a, b, s[:160]))
    ok = share >= need if need < 100.0 else not diffs
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
