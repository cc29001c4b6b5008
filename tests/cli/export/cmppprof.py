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
  cmppprof.py prefixes ROOT LINES  LINES: `go tool pprof -top -lines`
      output.  Prints, one a line, the directory prefixes to trim from
      the profile's source files (recorded where the binaries were
      built) so that the rest names a file under ROOT, for -list's
      -trim_path.
  cmppprof.py list REPORT EVENT LIST...  REPORT: `pdtool report
      --no-children -g none -s srcline -n` text; LIST: `go tool pprof
      -list` outputs (sample counts).  Each source line's flat samples,
      summed over the routines whose source -list showed, must be the
      report's samples on that line (perf's srcline names the file by
      its basename); a routine listed twice counts once.

Prints each difference; exit 1 when there is any.
"""
import os
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


def event_lines(path, event):
    """The lines of pdtool report's table of event."""
    cur = None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"# Samples: .* of event '(.*)'", line)
        if m:
            cur = m.group(1)
        elif cur == event:
            yield line


def report_rows(path, event, counts):
    rows = defaultdict(float)
    for line in event_lines(path, event):
        m = re.match(r"\s+([\d.]+)%\s+\[.\]\s+(.*\S)\s*$", line)
        if m:
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


def prefixes(root, lines):
    out = set()
    for line in open(lines, encoding="utf-8"):
        m = re.search(r" (/\S+):\d+( \(inline\))?$", line.rstrip("\n"))
        if not m:
            continue
        parts = m.group(1).split("/")
        for i in range(1, len(parts) - 1):
            rest = "/".join(parts[i + 1:])
            if os.path.isfile(os.path.join(root, rest)):
                out.add("/".join(parts[:i + 1]))
                break
    for p in sorted(out):
        print(p)
    return 0


def list_lines(paths, got):
    """(basename, line) -> flat samples of go tool pprof -list outputs"""
    seen, files = set(), set()
    for path in paths:
        routine = None
        for line in open(path, encoding="utf-8"):
            m = re.match(r"ROUTINE =+ (.*) in (\S+)$", line.rstrip("\n"))
            if m:
                routine = None if m.group(0) in seen else m.group(0)
                seen.add(m.group(0))
                base = os.path.basename(m.group(2))
                continue
            if line.startswith(" Error:"):
                routine = None
            m = re.match(r"^\s+(\S+)\s+\S+\s+(\d+):", line)
            if not (m and routine):
                continue
            files.add(base)
            if m.group(1) != ".":
                got[(base, int(m.group(2)))] += int(m.group(1))
    return files


def listing(report, event, lists):
    got, want = defaultdict(int), defaultdict(int)
    files = list_lines(lists, got)
    for line in event_lines(report, event):
        m = re.match(r"\s+[\d.]+%\s+(\d+)\s+(\S+):(\d+)\s*$", line)
        if m and m.group(2) in files:
            want[(m.group(2), int(m.group(3)))] += int(m.group(1))
    bad = 0
    for k in sorted(set(got) | set(want)):
        if got.get(k, 0) != want.get(k, 0):
            print("%s:%d: report %d, pprof -list %d" %
                  (k[0], k[1], want.get(k, 0), got.get(k, 0)))
            bad = 1
    print("%d source files listed, %d lines with samples" %
          (len(files), len(want)))
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "flat":
        sys.exit(flat(*sys.argv[2:5]))
    if sys.argv[1] == "prefixes":
        sys.exit(prefixes(*sys.argv[2:4]))
    if sys.argv[1] == "list":
        sys.exit(listing(sys.argv[2], sys.argv[3], sys.argv[4:]))
    sys.exit(traces(*sys.argv[2:4]))
