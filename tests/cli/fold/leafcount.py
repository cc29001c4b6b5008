#!/usr/bin/env python3
"""leafcount.py GOLDEN.tsv EVENT FOLDED: whether the folded stacks' leaf
frames carry, symbol by symbol, the samples perf report gives EVENT's
leaf symbols in GOLDEN (tests/golden/collect/testdata/NAME.tsv), but
for the PLT entries perf leaves unnamed.  Prints the symbols that differ
and exits 1 when any does."""
import collections
import sys


def main():
    gold, event, folded = sys.argv[1:4]
    want = collections.Counter()
    for line in open(gold, encoding="utf-8"):
        if line.startswith("#"):
            continue
        ev, _dso, sym, samples, _period = line.rstrip("\n").split("\t")
        if ev == event:
            want[sym] += int(samples)
    got = collections.Counter()
    for line in open(folded, encoding="utf-8"):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        got[stack.split(";")[-1]] += int(count)
    # perf 6.1 leaves some PLT entries unnamed ("@plt": libc's for
    # __tunable_get_val, in multi), which pdtool names by relocation
    for s in [s for s in got if s.endswith("@plt") and s not in want]:
        if want["@plt"]:
            got["@plt"] += got.pop(s)
    bad = sorted(s for s in set(want) | set(got) if want[s] != got[s])
    for s in bad:
        print(f"  {s}: perf report {want[s]}, pdtool {got[s]}")
    print(f"{event}: {sum(got.values())} samples, {len(want)} leaf symbols, "
          f"{len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
