#!/usr/bin/env python3
"""cmpscript.py PERF PDTOOL [MIN]: compare pdtool script's text with perf
script's (a golden of tests/golden/script, "# " notes first) sample by
sample, and print one line: how many samples are identical, how many
differ in a way judged deliberate, how many differ otherwise, then the
first differences.

A sample is its line with the callchain lines under it (the output's
blank lines separate them) or, without callchains, its one line.  The
judged differences:

  plt     a frame (or a page fault's addr) in a PLT entry: pdtool names
          it after the function it jumps to ("memset@plt"), perf 6.1 by
          its section ("@plt", ".plt") or the symbol before it
          ("_init+0x26"); only the symbols differ
  named   perf prints "[unknown]" where pdtool names the function (the
          symbols a simpleperf capture recorded for a binary not found)
  kernel  a kernel address past the recorded kernel map: pdtool places
          it in the kernel (pda_session.c kernel_image), perf 6.1 in no
          map ("[unknown] ([unknown])")
  module  a kernel module's DSO: pdtool names it "[name]" as perf 6.1 does
          for the module maps of a kernel mmap; perf prints the recorded
          path of some older captures' modules instead
  srcline a source line under a frame whose address is in inlined code:
          perf 6.1 prints the file of the outermost function there with
          the innermost line (binutils' inliner walk keeps the last file
          and the first line), pdtool the line table's file; the line
          numbers agree
  tflags  timer:timer_start's flags (its print fmt's "REC->flags &
          (0x00040000 | 0x00080000 | 0x00100000 | 0x00200000)"): perf
          6.1's libtraceevent evaluates it as (REC->flags & 0x00040000)
          | 0x00080000 | ..., printing "D|P|I" for every timer; pdtool
          with C's precedence; the text before " flags=" agrees
  unwind  the capture's user stacks are unwound from DWARF ("# dwarf" in
          the golden) and perf's frames are the leaf end of pdtool's:
          perf 6.1's unwinder stopped where pdtool's went on
  unwind-end  in such a capture, perf's stack is pdtool's and a last
          frame at ip ffffffffffffffff ([unknown]): perf 6.1's error
          marker where the return address lies past the stack dump,
          where pdtool stops

Exit 0 when at least MIN percent (default 100) of perf's samples are
identical or judged, else 1."""
import re
import sys

SYM = re.compile(r"^(.*\s[0-9a-f]+ )(.*?)( \([^()]*\))?$")


def read(path):
    notes, lines = [], []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if not lines and line.startswith("# "):
                notes.append(line)
                continue
            lines.append(line)
    return notes, lines


def samples(lines):
    if "" not in lines:
        return [[l] for l in lines]
    out, cur = [], []
    for l in lines:
        if l == "":
            out.append(cur)
            cur = []
        else:
            cur.append(l)
    if cur:
        out.append(cur)
    return out


def plt_line(a, b):
    ma, mb = SYM.match(a), SYM.match(b)
    if ma and mb and ma.group(1) == mb.group(1) and \
            ma.group(3) == mb.group(3) and "plt" in ma.group(2) + mb.group(2):
        return True
    # a line with two symbols (a page fault's addr and its ip): each
    # word that differs names a PLT entry
    ta, tb = a.split(" "), b.split(" ")
    diff = [(x, y) for x, y in zip(ta, tb) if x != y]
    return len(ta) == len(tb) and bool(diff) and \
        all("plt" in x + y for x, y in diff)


def named_line(a, b):
    ma, mb = SYM.match(a), SYM.match(b)
    return bool(ma and mb and ma.group(1) == mb.group(1) and
                ma.group(3) == mb.group(3) and ma.group(2) == "[unknown]")


def kernel_line(a, b):
    return a.endswith(" [unknown] ([unknown])") and \
        b.endswith(" [unknown] ([kernel.kallsyms])") and \
        a[:-len(" [unknown] ([unknown])")] == \
        b[:-len(" [unknown] ([kernel.kallsyms])")]


MODULE = re.compile(r"\(/[^()]*/([^/()]+)\.ko(\.xz|\.gz|\.zst)?\)$")


def module_line(a, b):
    m = MODULE.search(a)
    if not m:
        return False
    short = "([%s])" % m.group(1).replace("-", "_")
    return a[:m.start()] + short == b


SRCLINE = re.compile(r"^  ([^ :]+):(\d+)$")


def srcline_line(a, b):
    ma, mb = SRCLINE.match(a), SRCLINE.match(b)
    return bool(ma and mb and ma.group(2) == mb.group(2))


def tflags_line(a, b):
    i = a.rfind(" flags=")
    return ("bucket_expiry=" in a and i >= 0 and b.rfind(" flags=") == i
            and a[:i] == b[:i])


ERROR_FRAME = re.compile(r"^\s*ffffffffffffffff \[unknown\] \(\[unknown\]\)$")


def judge(p, q, dwarf):
    if len(p) == len(q):
        for name, rule in (("plt", plt_line), ("named", named_line),
                           ("kernel", kernel_line),
                           ("module", module_line),
                           ("srcline", srcline_line),
                           ("tflags", tflags_line)):
            if all(a == b or rule(a, b) for a, b in zip(p, q)):
                return name
    if dwarf and len(p) < len(q) and q[:len(p)] == p:
        return "unwind"
    # perf 6.1 ends a DWARF stack its unwinder could not finish (the
    # return address past the stack dump) with a frame at ip -1, its
    # error marker, which is no caller; pdtool stops before it
    if dwarf and len(p) == len(q) + 1 and p[:len(q)] == q and \
            ERROR_FRAME.match(p[-1]):
        return "unwind-end"
    return None


def main():
    notes, perf = read(sys.argv[1])
    _, pd = read(sys.argv[2])
    need = float(sys.argv[3]) if len(sys.argv) > 3 else 100.0
    dwarf = any(n.startswith("# dwarf") for n in notes)
    ps, qs = samples(perf), samples(pd)
    same = 0
    judged = {}
    diffs = []
    for i, p in enumerate(ps):
        q = qs[i] if i < len(qs) else []
        if p == q:
            same += 1
            continue
        why = judge(p, q, dwarf) if q else None
        if why:
            judged[why] = judged.get(why, 0) + 1
            continue
        diffs.append((i, p, q))
    extra = len(qs) - len(ps)
    ok = same + sum(judged.values())
    share = 100.0 * ok / len(ps) if ps else 100.0
    j = ", ".join("%s %d" % kv for kv in sorted(judged.items()))
    print("%d samples: %d identical, %d judged%s, %d differ%s (%.2f%%)" % (
        len(ps), same, sum(judged.values()), " (" + j + ")" if j else "",
        len(diffs),
        "; pdtool has %d more" % extra if extra > 0 else
        "; pdtool has %d fewer" % -extra if extra < 0 else "", share))
    for i, p, q in diffs[:3]:
        print("  sample %d:" % (i + 1))
        for a, b in zip(p + [""] * (len(q) - len(p)),
                        q + [""] * (len(p) - len(q))):
            if a != b:
                print("    perf:   %s\n    pdtool: %s" % (a, b))
                break
    good = share >= need and (extra == 0 or need < 100)
    sys.exit(0 if good else 1)


main()
