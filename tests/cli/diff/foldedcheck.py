#!/usr/bin/env python3
"""foldedcheck.py - checks of `pdtool diff --folded` output against
difffolded.py's (tests/cli/diff/folded.test).

    foldedcheck.py same PD PL
        the same lines, whatever their order (difffolded.pl prints in
        hash order), and PD's stacks strictly increasing bytewise
    foldedcheck.py scaled PD PL A B
        PD from --scale total, PL from difffolded.py -n on the folded
        files A and B: the same stacks, the same B counts, and each A
        count round(a * total(B) / total(A)) where difffolded.pl
        truncates (so PD - PL is 0 or 1)
    foldedcheck.py normalize IN OUT
        IN's frames with compiler suffixes stripped, by the rules of
        pdtool-diff(1) written here as regular expressions
"""
import re
import sys

SUFFIX = re.compile(r"(\.cold|\.(?:cold|isra|constprop|part|lto_priv)\.[0-9]+"
                    r"| \[clone \.(?:cold|(?:cold|isra|constprop|part|"
                    r"lto_priv)\.[0-9]+)\]|::h[0-9a-f]{16})$")
ANNOT = re.compile(r"_\[[kji]\]$")


def lines(path):
    with open(path, "rb") as f:
        return [l.rstrip(b"\n") for l in f if l.strip()]


def split(line):
    stack, a, b = line.rsplit(b" ", 2)
    return stack, a, b


def same(pd, pl):
    got, want = lines(pd), lines(pl)
    bad = []
    if sorted(got) != sorted(want):
        extra = sorted(set(got) - set(want))[:5]
        missing = sorted(set(want) - set(got))[:5]
        bad.append("lines differ: pdtool only %r, difffolded only %r" %
                   (extra, missing))
    stacks = [split(l)[0] for l in got]
    for x, y in zip(stacks, stacks[1:]):
        if not x < y:
            bad.append("not sorted bytewise: %r before %r" % (x, y))
            break
    return bad, "%d lines" % len(got)


def total(path):
    t = 0
    for l in lines(path):
        t += int(l.rsplit(b" ", 1)[1])
    return t


def scaled(pd, pl, a, b):
    ta, tb = total(a), total(b)
    got = {s: (int(x), int(y)) for s, x, y in map(split, lines(pd))}
    want = {s: (int(x), int(y)) for s, x, y in map(split, lines(pl))}
    raw = {}
    for l in lines(a):
        s, n = l.rsplit(b" ", 1)
        raw[s] = raw.get(s, 0) + int(n)
    bad = []
    if set(got) != set(want):
        bad.append("stacks differ")
    nr_rounded_up = 0
    for s in sorted(set(got) & set(want)):
        (pa, pb), (la, lb) = got[s], want[s]
        exact = raw.get(s, 0) * tb / ta
        if pb != lb:
            bad.append("%r: B %d, difffolded %d" % (s, pb, lb))
        if pa != int(exact + 0.5):
            bad.append("%r: A %d, want round(%f)" % (s, pa, exact))
        if pa - la not in (0, 1):
            bad.append("%r: A %d, difffolded -n %d" % (s, pa, la))
        nr_rounded_up += pa - la
    return bad, "%d stacks, A scaled by %d/%d, %d rounded up where " \
        "difffolded.pl truncates" % (len(got), tb, ta, nr_rounded_up)


def normalize(src, dst):
    with open(src, "rb") as f, open(dst, "wb") as out:
        for line in f:
            stack, count = line.decode("utf-8", "surrogateescape") \
                .rstrip("\n").rsplit(" ", 1)
            frames = []
            for fr in stack.split(";"):
                annot = ANNOT.search(fr)
                tail = annot.group(0) if annot else ""
                name = fr[:len(fr) - len(tail)]
                while True:
                    m = SUFFIX.search(name)
                    if not m or m.start() == 0:
                        break
                    name = name[:m.start()]
                frames.append(name + tail)
            out.write((";".join(frames) + " " + count + "\n")
                      .encode("utf-8", "surrogateescape"))
    return [], "normalised"


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    bad, what = {"same": same, "scaled": scaled,
                 "normalize": normalize}[cmd](*args)
    print("%s: %s%s" % (cmd, what, "" if not bad else ", FAILED"))
    for b in bad[:20]:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
