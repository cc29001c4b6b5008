#!/usr/bin/env python3
"""textcheck.py - what pdtool writes from hostile names is inert text.

    textcheck.py text FILE...   no control character
    textcheck.py md FILE...     that, and no raw '<' in Markdown

A capture's or a binary's names (comms, paths, symbols, DWARF file names)
can hold any byte.  pdtool must write them so that none acts: in text
(stdout and messages), no C0 control other than the newline that ends a
line, no DEL, no C1 control (U+0080..U+009F, as UTF-8 or as a lone byte);
in Markdown, moreover, no '<' outside a code span or a fenced code block
unless backslash-escaped (GitHub would take it for HTML), which a broken
code fence or code span would also show.  Prints each offence with its
line and exits 1 when there is one.
"""

import re
import sys

CONTROL = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
FENCE = re.compile(rb"^ {0,3}(`{3,}|~{3,})")


def lone_c1(line):
    """Bytes 0x80..0x9f that are not inside valid UTF-8."""
    text = line.decode("utf-8", "surrogateescape")
    return [ord(c) - 0xdc00 for c in text
            if 0xdc80 <= ord(c) <= 0xdc9f]


def check_text(name, data, problems):
    for no, line in enumerate(data.split(b"\n"), 1):
        for m in CONTROL.finditer(line):
            problems.append("%s:%d: control byte(s) %r in %r" %
                            (name, no, m.group(0), line[:120]))
        for b in lone_c1(line):
            problems.append("%s:%d: byte 0x%02x in %r" %
                            (name, no, b, line[:120]))


def raw_lt(line):
    """Offsets of the '<' of an inline line outside code spans that no
    backslash escapes (CommonMark: a backtick run opens a code span
    closed by the next run of the same length)."""
    found = []
    i = 0
    while i < len(line):
        c = line[i:i + 1]
        if c == b"\\":
            i += 2
            continue
        if c == b"`":
            run = len(re.match(rb"`+", line[i:]).group(0))
            close = re.compile(rb"(?<!`)`{%d}(?!`)" % run)
            m = close.search(line, i + run)
            if m:
                i = m.end()
                continue
            i += run
            continue
        if c == b"<":
            found.append(i)
        i += 1
    return found


def check_md(name, data, problems):
    check_text(name, data, problems)
    fence = None
    for no, line in enumerate(data.split(b"\n"), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if m and m.group(1)[:1] == fence[:1] and \
                    len(m.group(1)) >= len(fence) and \
                    not line[m.end():].strip():
                fence = None
            continue
        for off in raw_lt(line):
            problems.append("%s:%d: raw '<' at %d in %r" %
                            (name, no, off, line[:120]))
    if fence is not None:
        problems.append("%s: a code block is not closed" % name)


def main(argv):
    if len(argv) < 3 or argv[1] not in ("text", "md"):
        sys.stderr.write(__doc__)
        return 64
    problems = []
    for path in argv[2:]:
        with open(path, "rb") as f:
            data = f.read()
        (check_md if argv[1] == "md" else check_text)(path, data, problems)
    for p in problems[:20]:
        print(p)
    if len(problems) > 20:
        print("... %d more" % (len(problems) - 20))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
