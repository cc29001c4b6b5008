#!/usr/bin/env python3
"""blockcmp.py [--perf7] PERF PDTOOL - compare perf's and pdtool's report
--total-cycles --stdio outputs (perf's block view).

Prints "identical" when the texts are, and exits 0; else the first
difference, and exits 1.

--perf7: PERF is perf 7.x's output (where perf 6.1 crashes).  Then:
- its "# Samples:" and "# Event count" lines count samples where perf
  6.1's (and pdtool's) count branch entries: not compared;
- perf 7's Branch Counter cell keeps a "+" once shown on every later
  event's column (annotation_br_cntr_entry()); pdtool's "+" is each
  event's own: pdtool's cells are turned into perf's form to compare.
Prints "identical (perf 7: ...)" saying what was set aside.

The "Branch Statistics" block after the tables (captures with recorded
types) is left out where the texts differ: perf counts each entry with
the flags and ends of its row's first entry, pdtool each entry's own
(tests/cli/report/branch-stack.test holds those to the generator's
truth); "stats judged" says the block was there."""
import re
import sys

CELL = re.compile(r"\|(?:[A-Z+\- ]{4}\|)+")


def perf_cell(cell):
    """pdtool's Branch Counter cell in perf 7.2's form."""
    cols = cell.strip("|").split("|")
    out, sat = [], False
    for c in cols:
        body = c.rstrip()
        if body != "-":
            sat |= body.endswith("+")
            if sat and not body.endswith("+"):
                body += "+"
        out.append(body.ljust(4))
    return "|" + "|".join(out) + "|"


def tables(lines):
    """[(title, [lines])]: the text split at each "# Samples:" line"""
    out, cur = [], ("", [])
    for line in lines:
        if line.startswith("# Samples:"):
            out.append(cur)
            cur = (line, [])
            continue
        cur[1].append(line)
    out.append(cur)
    return out


def main():
    args = sys.argv[1:]
    p7 = args[0] == "--perf7"
    if p7:
        args = args[1:]
    perf = open(args[0], encoding="utf-8", errors="replace").read()
    pd = open(args[1], encoding="utf-8", errors="replace").read()
    if perf == pd:
        print("identical")
        return 0
    notes = []
    if "# Branch Statistics:" in perf:
        perf = perf[:perf.index("# Branch Statistics:")]
        pd = pd[:pd.index("# Branch Statistics:")] \
            if "# Branch Statistics:" in pd else pd
        notes.append("stats judged")
    if not p7:
        if diff(perf.splitlines(), pd.splitlines()):
            return 1
        print("identical (%s)" % ", ".join(notes))
        return 0
    pd = CELL.sub(lambda m: perf_cell(m.group(0)), pd)
    tp, td = tables(perf.splitlines()), tables(pd.splitlines())
    drop = re.compile(r"# Event count \(approx\.\): ")
    strip = lambda t: [l for l in t[1] if not drop.match(l)]
    a = [l for t in tp for l in strip(t)]
    b = [l for t in td for l in strip(t)]
    if diff(a, b, quiet=True):
        return diff(a, b)
    print("identical (perf 7: %s)" % ", ".join(
        ["sample counts not compared"] + notes))
    return 0


def diff(a, b, quiet=False):
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "(end)"
        y = b[i] if i < len(b) else "(end)"
        if x != y:
            if not quiet:
                print("line %d: perf %r, pdtool %r" % (i + 1, x, y))
            return 1
    return 0


sys.exit(main())
