#!/usr/bin/env python3
"""ppfold.py EXPECTED.txt: perfparser's expected output as folded stacks.

perfparser's tests (tests/auto/perfdata/tst_perfdata.cpp) dump every sample
it unwound as text: a "comm<TAB>pid<TAB>tid<TAB>time" line, "<TAB>event:
value" lines, a blank line, then its frames leaf first, each a location
line and a symbol line ("<TAB>addr relAddr[<TAB>file:line:col]<TAB>symAddr
size<TAB>name binary path [kernel]"), inlined functions first, then a blank
line.  A frame's name is the text before the last two words of the symbol
line's last field ("" when unknown: "[unknown]", as perf names such
frames).  Prints "comm;outer;...;leaf count" lines, sorted, the comm with
spaces as '_' as perf's stackcollapse writes it; tracepoint samples
(whose value line has no count) are skipped, as perf's stackcollapse skips
them.
"""
import sys


def frame_name(field):
    if field.endswith("[kernel]"):
        field = field[: -len("[kernel]")]
    field = field.rstrip(" ")
    parts = field.rsplit(" ", 2)
    name = parts[0] if len(parts) == 3 else ""
    return name.replace(";", ":") if name.strip() else "[unknown]"


def samples(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        head = lines[i]
        if not head or head.startswith("\t"):
            i += 1
            continue
        comm = head.split("\t")[0]
        i += 1
        tracepoint = False
        while i < len(lines) and lines[i].startswith("\t"):
            if lines[i].startswith("\t\t") or not lines[i].rstrip().split(
                    ": ")[-1].isdigit():
                tracepoint = True
            i += 1
        i += 1  # the blank line
        frames = []
        while i < len(lines) and lines[i].startswith("\t"):
            fields = lines[i][1:].split("\t")
            # a symbol line ends with "name binary path [kernel]", a
            # location line with the symbol's address and size
            if len(fields) >= 2 and not _is_pair(fields[-1]):
                frames.append(frame_name(fields[-1]))
            i += 1
        if not tracepoint:
            yield comm, frames


def _is_pair(text):
    words = text.split(" ")
    return len(words) == 2 and all(
        w and all(c in "0123456789abcdef" for c in w) for w in words)


def main():
    stacks = {}
    for comm, frames in samples(sys.argv[1]):
        line = ";".join([comm.replace(" ", "_")] + frames[::-1])
        stacks[line] = stacks.get(line, 0) + 1
    for line in sorted(stacks):
        print("%s %d" % (line, stacks[line]))


if __name__ == "__main__":
    main()
