#!/usr/bin/env python3
"""cmppprof.py - compare what a pprof profile of `pdtool export` says with
what pdtool's own report and fold say of the same capture.

  cmppprof.py flat REPORT EVENT OTHER  REPORT: `pdtool report --no-children
      -s sym` text; OTHER: `pprofdec.py flat` or `go tool pprof -top`
      output.  Each function's share of EVENT (flat%) must be the report's
      row share for it (summed over rows of the same name), within the
      rounding of two decimals; frames without a symbol count as one
      "[unknown]" on both sides (perf names them by address, pprof by
      mapping).
  cmppprof.py traces FOLD OTHER  FOLD: `pdtool fold --srcline --pid --tid`
      lines (":file:line" is cut from each frame: pprof keeps lines apart);
      OTHER: `go tool pprof -traces` output (sample counts) or
      `pprofdec.py stacks`.  The same stacks with the same counts.

Prints each difference; exit 1 when there is any.
"""
import re
import sys
from collections import defaultdict

TOL = 0.015


def shown(name):
    """A name as go tool pprof shows it: it drops C++ template arguments
    and parameter lists (its ShortenFunctionName), so both sides are
    compared so."""
    out, depth = [], 0
    for c in name:
        if c == "<" and not name.startswith("<"):
            depth += 1
        elif c == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(c)
    s = "".join(out)
    if s.endswith(" (inline)"):  # -traces marks inlined frames so
        s = s[:-9]
    if s.endswith(")") and "(" in s and not s.startswith("("):
        s = s[:s.index("(")]
    return s


def unknown(name):
    return (name.startswith("0x") or name in ("[unknown]", "<unknown>") or
            (name.startswith("[") and name.endswith("]")))


def report_rows(path, event, counts):
    rows, cur = defaultdict(float), None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"# Samples: .* of event '(.*)'", line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r"\s+([\d.]+)%\s+\[.\]\s+(.*\S)\s*$", line)
        if m and cur == event:
            name = m.group(2)
            key = "[unknown]" if unknown(name) else shown(name)
            rows[key] += float(m.group(1))
            counts[key] += 1
    return rows


def other_rows(path):
    rows = defaultdict(float)
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^([\d.]+)\t(.*)$", line)  # pprofdec.py flat
        if not m:  # go tool pprof -top: flat flat% sum% cum cum% name
            m = re.match(r"^\s*\S+\s+([\d.]+)%\s+\S+%\s+\S+\s+\S+%\s+(.*\S)\s*$", line)
        if m:
            name = m.group(2)
            rows["[unknown]" if unknown(name) else shown(name)] += float(m.group(1))
    return rows


def flat(report, event, other):
    counts = defaultdict(int)
    a, b = report_rows(report, event, counts), other_rows(other)
    bad = 0
    for k in sorted(set(a) | set(b)):
        # each row summed into k was rounded to two decimals
        if abs(a.get(k, 0) - b.get(k, 0)) > TOL + 0.005 * counts[k]:
            print("%s: report %.2f%%, pprof %.2f%%" % (k, a.get(k, 0), b.get(k, 0)))
            bad = 1
    if not a:
        print("no report rows of event %s" % event)
        bad = 1
    return bad


def norm(frames):
    return ";".join("[unknown]" if unknown(f) else shown(f) for f in frames)


def fold_stacks(path):
    st = defaultdict(int)
    for line in open(path, encoding="utf-8"):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        fr = [re.sub(r":[^:;]*:\d+$", "", f) for f in stack.split(";")]
        st[norm(fr)] += int(n)
    return st


def trace_stacks(path):
    st = defaultdict(int)
    lines = open(path, encoding="utf-8").read().splitlines()
    if lines and "\t" in lines[0]:  # pprofdec.py stacks
        for line in lines:
            n, _, stack = line.partition("\t")
            st[norm(stack.split(";"))] += int(n)
        return st
    cur, n = None, 0
    for line in lines + ["-----------+"]:
        if line.startswith("-----------+"):
            if cur is not None:
                st[norm(reversed(cur))] += n
            cur = None
            continue
        m = re.match(r"^\s*(\d+)\s{3}(.*\S)\s*$", line)
        if m and cur is None:
            cur, n = [m.group(2)], int(m.group(1))
        elif cur is not None and line.strip():
            cur.append(line.strip())
    return st


def traces(fold, other):
    a, b = fold_stacks(fold), trace_stacks(other)
    bad = 0
    for k in sorted(set(a) | set(b)):
        if a.get(k, 0) != b.get(k, 0):
            print("%s: fold %d, pprof %d" % (k, a.get(k, 0), b.get(k, 0)))
            bad = 1
    if not a:
        print("no folded stacks")
        bad = 1
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "flat":
        sys.exit(flat(*sys.argv[2:5]))
    sys.exit(traces(*sys.argv[2:4]))
