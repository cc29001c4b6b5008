#!/usr/bin/env python3
"""diffsvg.py - check a differential flame graph (`pdtool diff -o`)
against the folded stacks of its two sides.

    diffsvg.py A.folded B.folded SVG [--negate] [--minwidth PX]

A and B hold each side's raw counts (one capture a side, --scale total,
the default).  The tree and its geometry come from tests/cli/flame/
flamecheck.py's oracle, merged from the shape side (B, or A with
--negate); this then checks, for every frame drawn, its tooltip (both
sides' samples of the frame and its callees, both shares and the
change in points, from the folded text) and its colour: red for growth
and blue for shrinkage, interpolated from near-white by the change over
the largest change drawn.  Prints one line of totals; exits 1 with the
differences.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "flame"))
import flamecheck  # noqa: E402

WHITE, RED, BLUE = (250, 250, 250), (220, 30, 30), (30, 80, 220)


def paths(root):
    """{path tuple (root's children first): total} of an oracle tree."""
    out, stack = {(): root[0]}, [((), root)]
    while stack:
        p, node = stack.pop()
        for name, kid in node[1].items():
            out[p + (name,)] = kid[0]
            stack.append((p + (name,), kid))
    return out


def main():
    args = sys.argv[1:]
    negate = "--negate" in args
    minwidth = 0.1
    if "--minwidth" in args:
        minwidth = float(args[args.index("--minwidth") + 1])
    a_path, b_path, svg = [x for x in args if not x.startswith("--") and
                           not re.match(r"^[0-9.]+$", x)][:3]
    trees = {"A": flamecheck.oracle(a_path, False),
             "B": flamecheck.oracle(b_path, False)}
    shape = "A" if negate else "B"
    counts = {s: paths(t) for s, t in trees.items()}
    totals = {s: t[0] for s, t in trees.items()}
    nodes = flamecheck.walk(trees[shape])
    scale = (1200 - 2 * flamecheck.XPAD) / totals[shape]
    # walk() gives (name, depth, start, total) depth first: rebuild paths
    want, path = [], []
    for name, depth, start, n in nodes:
        del path[depth:]
        path.append(name)
        key = tuple(path[1:])
        if n * scale < minwidth:
            continue
        a, b = counts["A"].get(key, 0), counts["B"].get(key, 0)
        va, vb = 100.0 * a / totals["A"], 100.0 * b / totals["B"]
        want.append((name.decode(), depth, start, n, a, b, va, vb))
    maxc = max(abs(w[7] - w[6]) for w in want)
    doc = ET.parse(svg).getroot()
    got = doc.find(flamecheck.NS + "g[@id='frames']").findall(
        flamecheck.NS + "g")
    bad = []
    if len(got) != len(want):
        bad.append("%d frames drawn, want %d" % (len(got), len(want)))
    nr_red = nr_blue = 0
    for g, (name, depth, start, n, a, b, va, vb) in zip(got, want):
        title = g.find(flamecheck.NS + "title").text
        exp = "%s (A %s, B %s samples; %.2f%% -> %.2f%%, %+.2f points)" % (
            name, format(a, ","), format(b, ","), va, vb, vb - va)
        s, cnt, d = (int(g.get(k)) for k in ("data-s", "data-n", "data-d"))
        if (title, s, cnt, d) != (exp, start, n, depth):
            bad.append("%r s=%d n=%d d=%d, want %r s=%d n=%d d=%d" %
                       (title, s, cnt, d, exp, start, n, depth))
            continue
        rect = g.find(flamecheck.NS + "rect")
        rgb = tuple(int(v) for v in
                    re.match(r"rgb\((\d+),(\d+),(\d+)\)",
                             rect.get("fill")).groups())
        change = vb - va
        to = RED if change > 0 else BLUE
        v = abs(change) / maxc if maxc else 0
        exp_rgb = tuple(w + (t - w) * v for w, t in zip(WHITE, to))
        if any(abs(x - y) > 1 for x, y in zip(rgb, exp_rgb)):
            bad.append("%r: fill %s, want about %s" % (title, rgb, exp_rgb))
        nr_red += rgb[0] > rgb[2] + 20
        nr_blue += rgb[2] > rgb[0] + 20
        if abs(float(rect.get("width")) - n * scale) > 0.006:
            bad.append("%r: width %s, want %.3f" %
                       (title, rect.get("width"), n * scale))
    print("%s: %d frames shaped like %s, %d red, %d blue, largest change "
          "%.2f points" % (svg, len(got), shape, nr_red, nr_blue, maxc))
    for x in bad[:20]:
        print("  " + x)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
