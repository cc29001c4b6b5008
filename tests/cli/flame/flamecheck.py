#!/usr/bin/env python3
"""flamecheck.py - check a pdtool flame SVG against folded stacks.

    flamecheck.py FOLDED SVG [--minwidth PX] [--width PX] [--reverse]

An oracle written from the format, not from pdtool's code: merge the
folded lines into a tree (children in bytewise name order, as the man page
promises), then check that the SVG draws exactly the frames at least
--minwidth px wide, each once, with data-s/data-n/data-d, title counts and
percentages from the tree, and rect x and width proportional to the counts.
Prints one line of totals; exits 1 with the differences.
"""
import re
import sys
import xml.etree.ElementTree as ET

XPAD = 10
NS = "{http://www.w3.org/2000/svg}"


def parse_args(argv):
    opts = {"minwidth": 0.1, "width": 1200, "reverse": False}
    pos = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--reverse":
            opts["reverse"] = True
        elif a in ("--minwidth", "--width"):
            opts[a[2:]] = float(argv[i + 1])
            i += 1
        else:
            pos.append(a)
        i += 1
    return pos[0], pos[1], opts


def oracle(path, reverse):
    """The merged tree: {name bytes: [total, children]} under a root."""
    root = [0, {}]
    line_re = re.compile(rb"^(.*?)[ \t]+([0-9]+)[ \t\r\n]*$", re.S)
    with open(path, "rb") as f:
        for line in f:
            m = line_re.match(line)
            if not m or int(m.group(2)) == 0:
                continue
            count = int(m.group(2))
            frames = m.group(1).split(b";") if m.group(1) else []
            if reverse:
                frames.reverse()
            node = root
            node[0] += count
            for fr in frames:
                node = node[1].setdefault(fr, [0, {}])
                node[0] += count
    return root


def walk(root):
    """Depth first, in flamegraph.pl's order, which sorts the folded lines
    bytewise: a node's own samples first, then its children by name and
    the ' ' or ';' that follows it in a line: (name, depth, start,
    total)."""
    out = []
    stack = [(b"all", root, 0, 0)]
    while stack:
        name, node, depth, start = stack.pop()
        out.append((name, depth, start, node[0]))
        kids = []
        x = start + node[0] - sum(k[0] for k in node[1].values())
        for k in sorted(node[1], key=lambda k: k + (b";" if node[1][k][1]
                                                    else b" ")):
            kids.append((k, node[1][k], depth + 1, x))
            x += node[1][k][0]
        stack.extend(reversed(kids))
    return out


def main():
    folded, svg, o = parse_args(sys.argv[1:])
    nodes = walk(oracle(folded, o["reverse"]))
    total = nodes[0][3]
    # no samples: no frames, not even "all"
    scale = (o["width"] - 2 * XPAD) / total if total else 0
    want = [n for n in nodes if n[3] and n[3] * scale >= o["minwidth"]]
    doc = ET.parse(svg).getroot()
    frames = doc.find(NS + "g[@id='frames']")
    got = frames.findall(NS + "g")
    bad = []
    if len(got) != len(want):
        bad.append("%d frames drawn, want %d" % (len(got), len(want)))
    for g, (name, depth, start, n) in zip(got, want):
        title = g.find(NS + "title").text
        rect = g.find(NS + "rect")
        tname = title[:title.rindex(" (")]
        exp_name = name.decode("utf-8", "replace")
        s, cnt, d = (int(g.get(k)) for k in ("data-s", "data-n", "data-d"))
        if (tname, s, cnt, d) != (exp_name, start, n, depth):
            bad.append("frame %r s=%d n=%d d=%d, want %r s=%d n=%d d=%d" %
                       (tname, s, cnt, d, exp_name, start, n, depth))
            continue
        m = re.search(r" \(([0-9,]+) [^,]*, ([0-9.]+)%\)$", title)
        # an exact half (40 of 256: 15.625%) rounds either way: 0.005
        # off, which the float difference puts just over 0.005
        if (not m or int(m.group(1).replace(",", "")) != n or
                abs(float(m.group(2)) - 100.0 * n / total) > 0.005 + 1e-9):
            bad.append("title %r: want %d and %.2f%%" %
                       (title, n, 100.0 * n / total))
        x, w = float(rect.get("x")), float(rect.get("width"))
        if abs(w - n * scale) > 0.006 or abs(x - XPAD - start * scale) > 0.006:
            bad.append("%r: x=%s width=%s, want %.3f %.3f" %
                       (tname, x, w, XPAD + start * scale, n * scale))
    # every frame's width over its count is the same: proportional
    ratios = [float(g.find(NS + "rect").get("width")) / int(g.get("data-n"))
              for g in got]
    if ratios and max(ratios) - min(ratios) > 0.006:
        bad.append("width/count varies: %f..%f" % (min(ratios), max(ratios)))
    print("%s: %d frames drawn of %d, %d samples, %.4f px per sample" %
          (svg, len(got), len(nodes), total, scale))
    for b in bad[:20]:
        print("  " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
