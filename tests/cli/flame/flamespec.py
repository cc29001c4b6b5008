#!/usr/bin/env python3
"""flamespec.py - what a browser should show for a flame graph, from the
folded text alone (not from pdtool): the spec browser.js and firefox.mjs
check against.

    flamespec.py FOLDED ZOOM REGEX BROWSER SVG [SHOTS]

ZOOM is the path of the frame to click, "comm;f;g" (root's child first);
REGEX a JavaScript-compatible regular expression.  Prints JSON: the
frames shown once zoomed, and the "Matched" share (two decimals) of the
zoomed frame's samples and of all samples.
"""
import json
import re
import sys


def main():
    folded, zoom, regex, browser, svg = sys.argv[1:6]
    shots = sys.argv[6] if len(sys.argv) > 6 else ""
    path = zoom.split(";")
    rx = re.compile(regex)
    lines = []
    for line in open(folded, encoding="utf-8"):
        m = re.match(r"^(.*?)\s+(\d+)\s*$", line)
        if m and int(m.group(2)):
            lines.append((m.group(1).split(";"), int(m.group(2))))
    total = sum(c for _, c in lines)
    under = [(f, c) for f, c in lines if f[:len(path)] == path]

    def hit(frames):
        return any(rx.search(x) for x in frames)

    # shown when zoomed: the root and the callers, then every distinct
    # path under the zoomed frame (itself included)
    subtree = {tuple(f[:k]) for f, _ in under
               for k in range(len(path), len(f) + 1)}
    json.dump({
        "browser": browser, "svg": svg, "zoom": path,
        "visible": len(path) + len(subtree), "regex": regex,
        # a match among the callers covers all of the zoomed frame
        "matchedZoomed": "%.2f" % (100.0 * sum(c for f, c in under if hit(f))
                                   / sum(c for _, c in under)),
        "matchedAll": "%.2f" % (100.0 * sum(c for f, c in lines if hit(f))
                                / total),
        "shots": shots or None,
    }, sys.stdout)


if __name__ == "__main__":
    main()
