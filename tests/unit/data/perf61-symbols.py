#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""perf61-symbols.py - record what perf 6.1 names addresses of test
binaries, for check_elf.c's perf61 test, and how it demangles names, for
check_demangle.c (run from the repository root):

    python3 tests/unit/data/perf61-symbols.py

For each binary below (testdata/bin and the shared corpus), a few hundred
file offsets are picked around its symbols (start, start + 1, the middle,
the last byte, the end and one past it), across its PLT and .init/.fini
sections and at random in its load segments.  A pipe-mode capture with
one MMAP2 of the whole file and one user-space sample per offset goes to
`perf script -F ip,sym`, and perf's answers are written to
tests/unit/data/perf61/NAME.txt as "OFFSET NAME" lines (hex offset;
"[unknown]" when perf names nothing), after a header naming the binary
and the perf version.

perf maps a sample address to a file offset (ip - map start + pgoff) and
looks the symbol up there, so the capture needs nothing but the binary.
The binaries are read where they are; nothing is copied.

Demangling: a C program is built whose functions carry the mangled names
in DEMANGLE (asm labels), one sample is put at each function's start, and
perf's name for each is written to tests/unit/data/perf61/demangle.txt as
"MANGLED<TAB>NAME" lines.
"""

import os
import random
import struct
import subprocess
import sys
import tempfile

BINARIES = [
    ("inline", "testdata/bin/inline"),
    ("demo", "testdata/bin/demo"),
    ("libro_sample", "../shared/corpus/autofdo/libro_sample.so"),
    ("propeller_sample_1", "../shared/corpus/autofdo/propeller_sample_1.bin"),
    ("autofdo_test", "../shared/corpus/autofdo/test.binary"),
    ("cpp-inlining", "../shared/corpus/perfparser/cpp-inlining/cpp-inlining"),
    ("fork_static_gcc", "../shared/corpus/perfparser/fork_static_gcc/fork"),
    ("vector_static_clang",
     "../shared/corpus/perfparser/vector_static_clang/vector_static_clang_v8.0.1"),
]
MAX_OFFSETS = 800
# How the header names a corpus binary, whatever $PD_CORPUS says: from the
# repository root, as check_elf.c's PERF61_CORPUS expects it.
CORPUS_NAME = "../shared/corpus/"
# C++ (functions, templates, namespaces, lambdas, constructors, thunks,
# operators, clones), Rust legacy and v0, OCaml, plain C.  D names are
# left out: pdtool demangles them, perf does not (check_demangle.c).
DEMANGLE = [
    "_ZN6pdtest11AccumulatorImE3runEm",
    "_ZN9__gnu_cxx13new_allocatorIcE8allocateEmPKv",
    "_ZN12_GLOBAL__N_13fooEv",
    "_ZZ4mainENKUlvE_clEv",
    "_ZN3fooC2Ev",
    "_ZN3fooD1Ev",
    "_Z3foov.cold",
    "_ZN3foo3barEv.constprop.0",
    "_ZL3bazv",
    "_GLOBAL__sub_I_main",
    "_ZThn8_N3FooD1Ev",
    "_ZNKSt6vectorIiSaIiEE4sizeEv",
    "_Z1fIiEvT_",
    "_ZdlPv",
    "_Znwm",
    "_ZNSt8ios_base4InitC1Ev",
    "_ZN4core3fmt5write17h0123456789abcdefE",
    "_ZN5alloc3vec12Vec$LT$T$GT$4push17hfedcba9876543210E",
    "_ZN57_$LT$std..io..stdio..Stdout$u20$as$u20$std..io..Write$GT$5flush17h0011223344556677E",
    "_RNvCs1234_7mycrate3foo",
    "_RNvNtCs1234_7mycrate3foo3bar",
    "_RNvMNtCs1234_7mycrate3fooNtB2_3Bar3baz",
    "camlStdlib__array__map_154",
    "camlStdlib__anon_fn$5bstdlib$2eml$3a334$2c0$2d$2d54$5d_1453",
    "caml_program",
    "main_helper",
    "__libc_csu_init_like",
    "_Z",
    "_ZN",
    "_R",
]
BASE = 0x7f0000000000
PID = 4242


def readelf(args, path):
    return subprocess.run(["readelf"] + args + [path], capture_output=True,
                          text=True, check=True).stdout


def segments(path):
    segs = []
    for line in readelf(["-lW"], path).splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16),
                         int(f[5], 16)))
    return segs


def offsets(path):
    segs = segments(path)

    def to_off(vaddr):
        for off, va, filesz, memsz in segs:
            if va <= vaddr < va + max(filesz, memsz):
                return vaddr - va + off
        return None

    rnd = random.Random(path)
    picked = set()
    for line in readelf(["-sW"], path).splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].endswith(":") or f[6] in ("UND", "ABS"):
            continue
        try:
            value = int(f[1], 16)
            size = int(f[2], 0) if not f[2].startswith("0x") else int(f[2], 16)
        except ValueError:
            continue
        off = to_off(value)
        if off is None or off >= os.path.getsize(path):
            continue
        for d in (0, 1, size // 2, size - 1, size, size + 1):
            if d >= 0:
                picked.add(off + d)
    for line in readelf(["-SW"], path).splitlines():
        f = line.replace("[ ", "[").split()
        if len(f) > 6 and f[1] in (".plt", ".plt.got", ".plt.sec", ".init",
                                   ".fini") and f[2] != "NOBITS":
            start, size = int(f[4], 16), int(f[5], 16)
            picked.update(range(start, start + size + 8, 4))
    # only what a mapping of the file can hold: a segment's pages
    def mappable(off):
        for seg_off, va, filesz, memsz in segs:
            if seg_off & ~4095 <= off < (seg_off + filesz + 4095) & ~4095:
                return True
        return False
    picked = sorted(o for o in picked if mappable(o))
    if len(picked) > MAX_OFFSETS:
        picked = sorted(rnd.sample(picked, MAX_OFFSETS))
    for off, va, filesz, memsz in segs:
        for _ in range(20):
            picked.append(off + rnd.randrange(max(filesz, 1)))
    return sorted(set(picked))


def record(typ, misc, body):
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body


def capture(path, offs):
    attr_size = 128
    attr = struct.pack("<IIQQQQQ", 1, attr_size, 0, 1, 1 | 2, 0, 0)
    attr += b"\0" * (attr_size - len(attr))
    out = bytearray(b"PERFILE2" + struct.pack("<Q", 16))
    out += record(64, 0, attr)  # PERF_RECORD_HEADER_ATTR, no ids
    out += record(3, 0, struct.pack("<II", PID, PID) + b"test\0\0\0\0")
    name = path.encode() + b"\0"
    name += b"\0" * (-len(name) % 8)
    size = (os.path.getsize(path) + 4095) & ~4095
    out += record(10, 2, struct.pack("<IIQQQIIQQII", PID, PID, BASE, size, 0,
                                     0, 0, os.stat(path).st_ino, 0, 5, 2)
                  + name)  # MMAP2, r-x, MAP_PRIVATE
    for off in offs:
        out += record(9, 2, struct.pack("<QII", BASE + off, PID, PID))
    return bytes(out)


def demangle_table(version, outdir, tmp):
    src = os.path.join(tmp, "dm.c")
    exe = os.path.join(tmp, "dm")
    with open(src, "w") as f:
        for i, name in enumerate(DEMANGLE):
            f.write('void f%d(void) __asm__("\\"%s\\"");\n' % (i, name))
            f.write("void f%d(void) {}\n" % i)
        f.write("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-O0", "-o", exe, src], check=True)
    syms = {}
    for line in readelf(["-sW"], exe).splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND":
            syms[f[7]] = int(f[1], 16)
    segs = segments(exe)
    offs = []
    for name in DEMANGLE:
        vaddr = syms[name]
        for off, va, filesz, memsz in segs:
            if va <= vaddr < va + filesz:
                offs.append(vaddr - va + off)
    r = subprocess.run(["perf", "script", "-i", "-", "-F", "ip,sym",
                        "--no-inline"], input=capture(exe, offs),
                       capture_output=True, check=True)
    lines = [l.strip() for l in r.stdout.decode().splitlines() if l.strip()]
    if len(lines) != len(DEMANGLE):
        sys.exit("demangle: perf printed %d lines for %d samples"
                 % (len(lines), len(DEMANGLE)))
    with open(os.path.join(outdir, "demangle.txt"), "w") as f:
        f.write("# how %s prints these ELF symbol names\n" % version)
        for name, line in zip(DEMANGLE, lines):
            f.write("%s\t%s\n" % (name, line.partition(" ")[2]))
    print("demangle: %d names" % len(DEMANGLE))


def located(rel):
    """Where rel is read from: the corpus is $PD_CORPUS when it is set."""
    corpus = os.environ.get("PD_CORPUS")
    if corpus and rel.startswith(CORPUS_NAME):
        return os.path.join(corpus, rel[len(CORPUS_NAME):])
    return rel


def main():
    version = subprocess.run(["perf", "version"], capture_output=True,
                             text=True, check=True).stdout.strip()
    outdir = os.path.join(os.path.dirname(sys.argv[0]), "perf61")
    os.makedirs(outdir, exist_ok=True)
    for name, rel in BINARIES:
        path = os.path.abspath(located(rel))
        if not os.path.exists(path):
            print("%s: %s absent, kept as it was" % (name, rel))
            continue
        offs = offsets(path)
        r = subprocess.run(["perf", "script", "-i", "-", "-F", "ip,sym",
                            "--no-inline"], input=capture(path, offs),
                           capture_output=True, check=True)
        lines = [l.strip() for l in r.stdout.decode().splitlines()
                 if l.strip()]
        if len(lines) != len(offs):
            sys.exit("%s: perf printed %d lines for %d samples"
                     % (name, len(lines), len(offs)))
        with open(os.path.join(outdir, name + ".txt"), "w") as f:
            f.write("# %s: what %s names these file offsets of %s\n"
                    % (name, version, rel))
            for off, line in zip(offs, lines):
                ip, _, sym = line.partition(" ")
                if int(ip, 16) != BASE + off:
                    sys.exit("%s: out of order: %s" % (name, line))
                f.write("%x %s\n" % (off, sym))
        print("%s: %d offsets" % (name, len(offs)))
    with tempfile.TemporaryDirectory() as tmp:
        demangle_table(version, outdir, tmp)


main()
