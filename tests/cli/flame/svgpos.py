#!/usr/bin/env python3
"""svgpos.py PL.svg PDTOOL.svg: compare where two flame graphs of the
same folded stacks draw their frames, flamegraph.pl's and pdtool's.

Each frame is its name (the title less its "(N samples, P%)"), its depth
(the rank of its y, the root lowest), its x and its width.  Frames are
paired by name and depth, left to right; every pair must lie within
0.15 px (flamegraph.pl rounds to 0.1, pdtool to 0.01).  Exits 0 when
all agree, else 1 with the first differences."""
import html
import re
import sys

FRAME = re.compile(r'<title>(.*?)</title><rect x="([0-9.]+)" y="([0-9.]+)"'
                   r' width="([0-9.]+)"')


def frames(path):
    text = open(path, encoding="utf-8").read()
    raw = [(html.unescape(m.group(1)).rsplit(" (", 1)[0], float(m.group(2)),
            float(m.group(3)), float(m.group(4)))
           for m in FRAME.finditer(text)]
    ys = sorted({y for _, _, y, _ in raw}, reverse=True)
    depth = {y: i for i, y in enumerate(ys)}
    out = {}
    for name, x, y, w in raw:
        out.setdefault((name, depth[y]), []).append((x, w))
    for v in out.values():
        v.sort()
    return out


def main():
    pl, pd = frames(sys.argv[1]), frames(sys.argv[2])
    bad = []
    for key in sorted(set(pl) | set(pd)):
        a, b = pl.get(key, []), pd.get(key, [])
        if len(a) != len(b):
            bad.append("%s at depth %d: %d frames in flamegraph.pl's, %d in "
                       "pdtool's" % (key[0], key[1], len(a), len(b)))
            continue
        for (xa, wa), (xb, wb) in zip(a, b):
            if abs(xa - xb) > 0.15 or abs(wa - wb) > 0.15:
                bad.append("%s at depth %d: x %.2f width %.2f in "
                           "flamegraph.pl's, x %.2f width %.2f in pdtool's"
                           % (key[0], key[1], xa, wa, xb, wb))
    for line in bad[:10]:
        print("  " + line)
    print("%d frames, %d differ" % (sum(len(v) for v in pl.values()),
                                   len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
