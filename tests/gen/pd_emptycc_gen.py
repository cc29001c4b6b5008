#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_emptycc_gen.py - a capture whose samples have callchains that give
no frame, in a mapped binary (tests/cli/report/emptycc.test).

    pd_emptycc_gen.py ELF RECORDED_PATH OUT

Writes OUT: processes 100 and 101 ("victim") map ELF's executable
segment (an MMAP2 in its build-id form, at RECORDED_PATH), with samples
at functions of ELF's .symtab: some with a callchain through main, and
some whose callchain gives no frame, as `perf record -a -g` captures
hold: no entries at all (twice at one address, once at another, so that
a process's empty chains differ only by their ip), the ip followed by
an invalid context (-1, which makes perf drop the chain), a
PERF_CONTEXT_USER marker alone, and an ip outside every map.  perf
report makes such a sample's entry from its resolved ip and adds it to
no call graph.
"""

import os
import subprocess
import sys

from pd_arch_synth import Elf

START = 0x555555555000          # where the processes map the segment
CONTEXT_USER = (1 << 64) - 512
INVALID = (1 << 64) - 1


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: pd_emptycc_gen.py ELF RECORDED_PATH OUT")
    with open(argv[1], "rb") as f:
        elf = Elf(f.read())
    seg = next(p for p in elf.phdrs() if p[0] == 1 and p[1] & 1)
    _, _, offset, vaddr, filesz, _ = seg
    syms = dict(elf.symbols())

    def at(spec):
        name, off = spec.split("+")
        return hex(START + syms[name] - vaddr + int(off, 16))

    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "pd_capture.py")
    args = [sys.executable, gen, argv[3]]
    for pid in ("100", "101"):
        args += ["--map", pid, hex(START), hex(filesz), hex(offset), argv[2],
                 elf.build_id().hex()]
    for pid, chain in (("100", "mix+4 walk+10 main+20"),
                       ("100", "sum_squares+2 worker+6 main+20"),
                       ("101", "mix+4 walk+10 main+20")):
        args += ["--sample", pid] + [at(s) for s in chain.split()]
    for pid, ip, words in (("100", "mix+8", []),
                           ("100", "walk+3", []),
                           ("100", "mix+8", []),
                           ("101", "hash_block+5",
                            [hex(CONTEXT_USER), "IP", hex(INVALID)]),
                           ("101", "worker+2", [hex(CONTEXT_USER)]),
                           ("101", None, [])):
        addr = at(ip) if ip else hex(0x7f0000001000)
        args += ["--chain", pid, addr] + \
            [addr if w == "IP" else w for w in words]
    subprocess.run(args, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
