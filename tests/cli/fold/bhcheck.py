#!/usr/bin/env python3
"""bhcheck.py - pdtool fold --branch-history against perf 6.1's branch
history (tests/golden/branch/hist/, regen_gen.sh).

    bhcheck.py suffix PERF.folded PDTOOL.folded
    bhcheck.py exact PERF.folded PDTOOL.folded
    bhcheck.py subset ALL.folded MISPRED.folded NR

PERF.folded is perf report --branch-history -g folded,...,callee,count's
lines ("COUNT leaf;...;root"), an address without a symbol (0x...) read
as pdtool's [unknown].  PDTOOL.folded is pdtool fold's ("root;...;leaf
COUNT").

suffix: perf 6.1 drops as many of a callchain's outer entries as the
path has entries, so each of perf's lines, reversed, must be the leaf end
of pdtool's for as many samples: perf's lines are matched to pdtool's
longest first, each taking the samples of the shortest pdtool lines it
ends.  pdtool's first frame (the comm) is not compared.  A pdtool line
left over must be a single frame: a sample with neither callchain nor
branch entries, for which perf prints no line.

exact: pdtool's lines (--no-comm --no-ip-frame, a capture without
callchains) are perf's, with their counts; a line with no frame (a
sample without entries, which perf leaves out) is not compared.

subset: MISPRED.folded (--mispredicted-only) holds NR samples, each of
its lines is one of ALL.folded (--branch-history) with at most its count.

Prints what differs and exits 1, or a summary and exits 0.
"""

import collections
import re
import sys


def read_perf(path):
    out = collections.Counter()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"^(\d+) (.*)$", line.rstrip("\n"))
            if not m:
                continue
            frames = ["[unknown]" if re.fullmatch(r"0x[0-9a-f]+", f) else f
                      for f in m.group(2).split(";")]
            out[tuple(reversed(frames))] += int(m.group(1))
    return out


def read_pdtool(path, drop_root):
    out = collections.Counter()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            frames = tuple(stack.split(";")) if stack else ()
            out[frames[1:] if drop_root else frames] += int(count)
    return out


def suffix(perf, pd):
    left = dict(pd)
    bad = []
    by_len = sorted(left, key=len)
    for p in sorted(perf, key=lambda k: (-len(k), k)):
        need = perf[p]
        for line in by_len:
            if need == 0:
                break
            if left[line] and len(line) >= len(p) and \
                    line[len(line) - len(p):] == p:
                take = min(need, left[line])
                left[line] -= take
                need -= take
        if need:
            bad.append("perf's %d sample(s) of %s: no pdtool line ends so"
                       % (need, ";".join(p)))
    for line, n in sorted(left.items()):
        if n and len(line) != 1:
            bad.append("pdtool's %d sample(s) of %s: no perf line ends it"
                       % (n, ";".join(line)))
    return bad, sum(perf.values())


def exact(perf, pd):
    pd = collections.Counter({k: v for k, v in pd.items() if k})
    bad = ["%s: perf %d, pdtool %d" % (";".join(k), perf[k], pd[k])
           for k in sorted(set(perf) | set(pd)) if perf[k] != pd[k]]
    return bad, sum(perf.values())


def subset(every, mis, nr):
    bad = ["%s: %d with --mispredicted-only, %d without"
           % (";".join(k), n, every[k]) for k, n in sorted(mis.items())
           if n > every[k]]
    if sum(mis.values()) != nr:
        bad.append("--mispredicted-only kept %d samples, perf script "
                   "shows %d with a mispredicted entry"
                   % (sum(mis.values()), nr))
    return bad, nr


def main(argv):
    mode = argv[1]
    if mode == "subset":
        bad, n = subset(read_pdtool(argv[2], False),
                        read_pdtool(argv[3], False), int(argv[4]))
    elif mode == "suffix":
        bad, n = suffix(read_perf(argv[2]), read_pdtool(argv[3], True))
    elif mode == "exact":
        bad, n = exact(read_perf(argv[2]), read_pdtool(argv[3], False))
    else:
        sys.exit("bhcheck.py: suffix, exact or subset")
    for b in bad[:10]:
        print("  " + b[:400])
    if bad:
        print("  %s: %d difference(s)" % (mode, len(bad)))
        return 1
    print("%s %d" % (mode, n), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
