#!/usr/bin/env python3
"""kallsyms_trim.py KALLSYMS IPS OUT: the lines of a /proc/kallsyms that
resolve the kernel addresses in IPS (one hex address a line).

A kallsyms symbol has no size: perf and pdtool end it where the next one
starts.  So for each address the trimmed file keeps, per symbol type, the
last symbol at or below it and the first one above it (every line at those
two addresses), plus _text, _stext and _etext, which place the kernel
(KASLR relocation).  Any reader that picks a symbol for an address among
the kept types gets the same answer from the trimmed file as from the
whole one.  Lines keep their order.
"""
import bisect
import sys


def main():
    src, ips_path, out = sys.argv[1:4]
    lines = open(src, encoding="utf-8", errors="surrogateescape").read().splitlines()
    by_type = {}
    for i, line in enumerate(lines):
        f = line.split()
        if len(f) < 3:
            continue
        by_type.setdefault(f[1].upper(), []).append((int(f[0], 16), i))
    for v in by_type.values():
        v.sort()
    keep_addr = {}  # type -> set of addresses
    ips = [int(x, 16) for x in open(ips_path).read().split()]
    for t, syms in by_type.items():
        addrs = [a for a, _ in syms]
        keep = keep_addr.setdefault(t, set())
        for ip in ips:
            k = bisect.bisect_right(addrs, ip)
            if k > 0:
                keep.add(addrs[k - 1])
            if k < len(addrs):
                keep.add(addrs[k])
    kept = []
    for i, line in enumerate(lines):
        f = line.split()
        if len(f) < 3:
            continue
        if f[2] in ("_text", "_stext", "_etext") or \
                int(f[0], 16) in keep_addr.get(f[1].upper(), ()):
            kept.append(line)
    with open(out, "w", encoding="utf-8", errors="surrogateescape") as fp:
        for line in kept:
            fp.write(line + "\n")


if __name__ == "__main__":
    main()
