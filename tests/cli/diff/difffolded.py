#!/usr/bin/env python3
"""difffolded.py - a re-implementation of Brendan Gregg's difffolded.pl
(FlameGraph, 2014), the oracle of `pdtool diff --folded`
(tests/cli/diff/folded.test).  Debian does not package FlameGraph; this
carries its rules, read from the script, not its code:

    difffolded.py [-n] [-s] FOLDED1 FOLDED2

  - each line, its newline removed, is split by the Perl pattern
    ^(.*)\\s+?(\\d+(?:\\.\\d*)?)$ into stack and count: the stack is
    everything up to the last whitespace character before the count, so
    extra blanks stay in the stack, and counts may have decimals;
  - a line the pattern does not match adds nothing to the stack "" (Perl
    adds undef), which is still printed, as " 0 0";
  - -s replaces every 0x followed by hex digits in a stack with "0x...";
  - counts of equal stacks are summed per file;
  - every stack of either file is printed as "stack count1 count2", 0
    where a file lacks it, in Perl's hash order (that is, any order);
  - -n, when the files' totals differ, replaces count1 by
    int(count1 * total2 / total1): scaled to the second file's total and
    truncated towards zero.

Where `pdtool diff --folded` differs, and why (its man page says the
same): it scales by default (--scale total; --scale none prints raw
counts as difffolded.pl without -n) and rounds the scaled count to the
nearest whole number instead of truncating it, so that the scaled
counts add up to B's total as closely as whole numbers can; it prints
the stacks sorted bytewise, for reproducible output; it normalises
compiler suffixes in names unless --no-normalize-names; it takes only
whole-number counts and trims the blanks before them, and ignores (with
a warning) the lines that are not "stack count" instead of adding a
" 0 0" line; it has no -s.
"""
import re
import sys

LINE = re.compile(r"^(.*)\s+?(\d+(?:\.\d*)?)$")
HEX = re.compile(r"0x[0-9a-fA-F]+")


def number(text):
    return float(text) if "." in text else int(text)


def perl_num(v):
    """A number as Perl's print writes it."""
    if isinstance(v, int) or float(v).is_integer():
        return str(int(v))
    return "%.15g" % v


def read(path, which, folded, striphex):
    total = 0
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            if line.endswith("\n"):
                line = line[:-1]
            m = LINE.match(line)
            stack, count = (m.group(1), number(m.group(2))) if m else ("", 0)
            if striphex:
                stack = HEX.sub("0x...", stack)
            folded.setdefault(stack, [0, 0])[which] += count
            total += count
    return total


def main():
    args = sys.argv[1:]
    normalize = striphex = False
    while args and args[0].startswith("-") and len(args[0]) > 1:
        for c in args.pop(0)[1:]:
            if c == "n":
                normalize = True
            elif c == "s":
                striphex = True
            else:
                sys.exit("usage: difffolded.py [-ns] folded1 folded2")
    if len(args) < 2:
        sys.exit("usage: difffolded.py [-ns] folded1 folded2")
    folded = {}
    total1 = read(args[0], 0, folded, striphex)
    total2 = read(args[1], 1, folded, striphex)
    out = sys.stdout.buffer
    for stack, (c1, c2) in folded.items():
        if normalize and total1 != total2:
            c1 = int(c1 * total2 / total1)
        out.write(("%s %s %s\n" % (stack, perl_num(c1), perl_num(c2)))
                  .encode("utf-8", "surrogateescape"))


if __name__ == "__main__":
    main()
