#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_jitdump.py - write a jitdump file (jit-PID.dump), the format of
perf's tools/perf/util/jitdump.h that `perf inject --jit` reads, with
the functions of FUNCS below.

    pd_jitdump.py OUT PID [--swap] [--cut N] [--listing]

A header (magic "JiTD" 0x4A695444 in the writer's byte order, version 1,
elf_mach EM_X86_64, the pid), then in order: a JIT_CODE_LOAD per
function (name, then its x86-64 code bytes), a JIT_CODE_DEBUG_INFO and a
JIT_CODE_UNWINDING_INFO (which a reader of symbols skips), the
JIT_CODE_MOVE of MOVED, a second load at the address of RELOADED (the
later one wins) and a JIT_CODE_CLOSE.  --swap writes it in the other
byte order; --cut N leaves out the last N bytes (a JIT killed
mid-write).

Prints "START SIZE NAME" per function a reader should find, the last
load at each address, as perf-PID.map lines would; with --listing, its
instructions instead, "NAME ADDR: MNEMONIC OPERANDS" in AT&T syntax.
"""

import struct
import sys

MAGIC = 0x4A695444
EM_X86_64 = 62
LOAD, MOVE, DEBUG_INFO, CLOSE, UNWINDING_INFO = 0, 1, 2, 3, 4
BASE = 0x7F0000001000


def listing(n_add):
    return ["pushq %rbp", "movq %rsp, %rbp"] + ["addq $1, %rax"] * n_add + \
        ["popq %rbp", "retq"]


def body(n_add):
    # push rbp; mov rbp,rsp; add rax,imm8 x n; pop rbp; ret
    return bytes([0x55, 0x48, 0x89, 0xE5]) + \
        bytes([0x48, 0x83, 0xC0, 0x01]) * n_add + bytes([0x5D, 0xC3])


# name, address, code
FUNCS = [
    ("Interpreter::run", BASE, body(6)),
    ("js::compiled_add", BASE + 0x100, body(3)),
    ("LambdaForm$DMH/0x1234.invoke", BASE + 0x200, body(2)),
    ("old_version", BASE + 0x300, body(1)),
]
MOVED = (2, BASE + 0x400)          # FUNCS index, new address
RELOADED = ("new_version", BASE + 0x300, body(4))


def records(e):
    out = []
    ts = 1000

    def rec(rid, payload):
        nonlocal ts
        ts += 10
        out.append(struct.pack(e + "IIQ", rid, 16 + len(payload), ts) +
                   payload)

    def load(index, name, addr, code):
        rec(LOAD, struct.pack(e + "IIQQQQ", 4242, 4242, addr, addr,
                              len(code), index) + name.encode() + b"\0" +
            code)

    for i, (name, addr, code) in enumerate(FUNCS):
        load(i, name, addr, code)
    # one line entry for the first function (file name, line 7)
    rec(DEBUG_INFO, struct.pack(e + "QQ", BASE, 1) +
        struct.pack(e + "Qii", BASE + 4, 7, 0) + b"run.js\0")
    rec(UNWINDING_INFO, struct.pack(e + "QQQ", 8, 0, 8) + bytes(8))
    i, new = MOVED
    rec(MOVE, struct.pack(e + "IIQQQQQ", 4242, 4242, new, FUNCS[i][1], new,
                          len(FUNCS[i][2]), i))
    load(len(FUNCS), *RELOADED)
    rec(CLOSE, b"")
    return b"".join(out)


def expected():
    funcs = {addr: (name, len(code)) for name, addr, code in FUNCS}
    i, new = MOVED
    funcs[new] = (FUNCS[i][0], len(FUNCS[i][2]))
    funcs[RELOADED[1]] = (RELOADED[0], len(RELOADED[2]))
    return sorted((a, s, n) for a, (n, s) in funcs.items())


def dump(pid, swap=False):
    e = "<" if (sys.byteorder == "little") != swap else ">"
    head = struct.pack(e + "IIIIIIQQ", MAGIC, 1, 40, EM_X86_64, 0, pid,
                       1000, 0)
    return head + records(e)


def main(argv):
    args = argv[1:]
    swap = "--swap" in args
    cut = 0
    if "--cut" in args:
        cut = int(args[args.index("--cut") + 1])
        del args[args.index("--cut"):args.index("--cut") + 2]
    show = "--listing" in args
    args = [a for a in args if a not in ("--swap", "--listing")]
    if len(args) != 2:
        sys.stderr.write("usage: pd_jitdump.py OUT PID [--swap] [--cut N]\n")
        return 64
    data = dump(int(args[1]), swap)
    with open(args[0], "wb") as f:
        f.write(data[:len(data) - cut] if cut else data)
    for addr, size, name in expected():
        if not show:
            print("%x %x %s" % (addr, size, name))
            continue
        off = addr
        for insn in listing((size - 6) // 4):
            print("%s %x: %s" % (name, off, insn))
            off += 1 if insn in ("pushq %rbp", "popq %rbp", "retq") else \
                3 if insn.startswith("movq") else 4
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
