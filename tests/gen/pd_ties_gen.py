#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_ties_gen.py - captures whose report rows tie across threads, for
the order of perf's output tree (tests/cli/report/ties.test).

    pd_ties_gen.py DIR

Writes DIR/CASE.perf.data and DIR/CASE.kallsyms for each case below:
kernel functions a_fn..h_fn at the addresses their order in the case
gives, and samples of pids 100-102 (one command name, "victim"), each a
callchain of those functions, leaf first.  Every row then has the same
period, one sample's or a few, so that perf's hist_entry__sort() ties
rows of one thread by their call graph's depth and rows of different
threads by their names: a comparison that is not transitive, so that
only the red-black tree perf inserts into gives its order.  The cases
were drawn at random and kept where that order is not a sort's.
"""

import os
import random
import subprocess
import sys

BASE = 0xffffffff81000000

# name: (functions in address order, [(pid, [function, ...leaf first])])
CASES = {
    "t17": ("d b a e f c h g",
            [(100, "h a f g"), (101, "d b"), (100, "e a")]),
    "t22": ("g h f d e a b c",
            [(100, "g f e"), (100, "b a g e c"), (102, "e d h")]),
    "t25": ("f e d c b a h g",
            [(100, "h f b"), (100, "c b h d e"), (101, "g b f a d"),
             (101, "c a e"), (101, "e")]),
    "t38": ("h c b e a f d g",
            [(102, "f b"), (101, "a e g"), (101, "c a")]),
    "t153": ("f b e d c g a h",
             [(102, "g h c b a"), (100, "b g e h"), (101, "f e g"),
              (101, "e f c b")]),
    "t191": ("b e h a f d g c",
             [(101, "g h b"), (100, "f b"), (101, "f"), (101, "a b h"),
              (100, "d a"), (100, "g a c f")]),
}


# Rows without a symbol, whose addresses perf compares by subtracting
# them as int64: garbage frames of a -g stack (doubles on the stack
# read as return addresses, as a -g capture of libm gives) lie more than
# 2^63 apart, so that the comparison is not transitive and the order of
# perf's hists->entries_in and collapsed trees is not a sort's.
WRAP_SEED, WRAP_SAMPLES = 7, 12
CONTEXT_USER = (1 << 64) - 512


def wrap_chains():
    """[(pid, ip, [callchain word, ...])] of the case "wrap"."""
    rnd = random.Random(WRAP_SEED)
    tops = (0x3fe0, 0x3fef, 0x4100, 0x40d3, 0xbfef, 0xbfc5, 0x7f12)
    out = []
    for _ in range(WRAP_SAMPLES):
        ip = 0x401000 + 0x10 * rnd.randrange(4)
        frames = [rnd.choice(tops) << 48 | rnd.getrandbits(48)
                  for _ in range(rnd.randrange(1, 4))]
        out.append((100, ip, [CONTEXT_USER, ip] + frames))
    return out


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: pd_ties_gen.py DIR")
    out = argv[1]
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "pd_capture.py")
    for name, (order, samples) in CASES.items():
        fns = [f + "_fn" for f in order.split()]
        addr = {f: BASE + 0x100 * (i + 1) for i, f in enumerate(fns)}
        with open(os.path.join(out, name + ".kallsyms"), "w") as f:
            f.write("%x T _text\n" % BASE)
            for fn in fns:
                f.write("%x T %s\n" % (addr[fn], fn))
            f.write("%x T _etext\n" % (BASE + 0x100 * (len(fns) + 2)))
        args = [sys.executable, gen, os.path.join(out, name + ".perf.data"),
                "--kernel", hex(BASE), "0x10000"]
        for pid, chain in samples:
            args += ["--sample", str(pid)]
            args += [hex(addr[f + "_fn"] + 0x10) for f in chain.split()]
        subprocess.run(args, check=True)
    with open(os.path.join(out, "wrap.kallsyms"), "w") as f:
        f.write("%x T _text\n%x T _etext\n" % (BASE, BASE + 0x1000))
    args = [sys.executable, gen, os.path.join(out, "wrap.perf.data"),
            "--kernel", hex(BASE), "0x10000"]
    for pid, ip, words in wrap_chains():
        args += ["--chain", str(pid), hex(ip)] + [hex(w) for w in words]
    subprocess.run(args, check=True)


if __name__ == "__main__":
    main(sys.argv)
