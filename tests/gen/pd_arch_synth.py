#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_arch_synth.py - write a perf.data capture of samples in a binary of
any architecture, for annotating foreign captures without that machine.

    pd_arch_synth.py [--hostname NAME] [--mem [--raw]] ELF RECORDED_PATH ARCH OUT SYM+OFF=COUNT...

This VM is x86_64 and has no aarch64 (or other) CPU to record on, so this
writes what perf record would have written there: a file-mode capture
whose HEADER_ARCH is ARCH, one process mapping ELF's executable segment
(an MMAP2 in its build-id form, perf 5.12+, carrying ELF's GNU build-id
and RECORDED_PATH) and COUNT cpu-clock samples at each SYM+OFF (OFF in
hex, from the symbol's value in ELF's .symtab), each with period 1000000.
The samples are the ground truth: an instruction's share of its function
is its COUNT over the function's total.  HEADER_HOSTNAME is NAME, by
default synth-ARCH: a test gives this host's name (uname -n) to make a
capture of this host, or another to make one from elsewhere.

With --mem the samples are memory samples, as a PEBS or SPE host records
them (perf record -d --data-src -W): each SPEC is
SYM+OFF=COUNT@DATA[:st], DATA the address accessed, DSYM+DOFF (a symbol
of ELF, DOFF in hex) or a hex address (0x...: the stack or the heap),
each sample with PERF_SAMPLE_ADDR, a weight of 4 and a data source of
an L1 hit, a load (a store with :st); the process maps ELF's writable
segment too, where DSYM's addresses are.  --raw makes their event a
raw one (PERF_TYPE_RAW, config 0x1cd, named cpu/mem-loads,ldlat=30/P),
as perf mem record's on an Intel host, whose data_src and weight perf
script prints by default.
"""

import struct
import sys

import pd_synth

PID = 4343
BASE = 0xaaaa00000000          # where the process maps the binary
PERIOD = 1000000
TIME0 = 5000000000
# IP TID TIME PERIOD
SAMPLE_TYPE = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 8)
# --mem: ADDR WEIGHT DATA_SRC too
MEM_SAMPLE_TYPE = SAMPLE_TYPE | (1 << 3) | (1 << 14) | (1 << 15)
# perf_mem_data_src: an L1 hit (lvl HIT|L1, lvl_num L1), op LOAD or STORE
DS_L1_HIT = ((0x2 | 0x8) << 5) | (1 << 33)
DS_LOAD, DS_STORE = 2, 4
MEM_WEIGHT = 4
FLAGS = ["disabled", "inherit", "mmap", "comm", "freq", "sample_id_all",
         "mmap2", "comm_exec", "enable_on_exec"]
MISC_USER = 2
MISC_MMAP_BUILD_ID = 1 << 14


class Elf:
    def __init__(self, data):
        if data[:4] != b"\x7fELF":
            raise SystemExit("not an ELF file")
        self.data = data
        self.is64 = data[4] == 2
        self.e = "<" if data[5] == 1 else ">"
        e = self.e
        (self.machine,) = struct.unpack_from(e + "H", data, 0x12)
        if self.is64:
            (self.phoff, self.shoff) = struct.unpack_from(e + "QQ", data, 0x20)
            (self.phentsize, self.phnum, self.shentsize, self.shnum) = \
                struct.unpack_from(e + "HHHH", data, 0x36)
        else:
            (self.phoff, self.shoff) = struct.unpack_from(e + "II", data, 0x1C)
            (self.phentsize, self.phnum, self.shentsize, self.shnum) = \
                struct.unpack_from(e + "HHHH", data, 0x2A)

    def phdrs(self):
        e = self.e
        for i in range(self.phnum):
            off = self.phoff + i * self.phentsize
            if self.is64:
                typ, flags, offset, vaddr, _, filesz, memsz, _ = \
                    struct.unpack_from(e + "IIQQQQQQ", self.data, off)
            else:
                typ, offset, vaddr, _, filesz, memsz, flags, _ = \
                    struct.unpack_from(e + "IIIIIIII", self.data, off)
            yield typ, flags, offset, vaddr, filesz, memsz

    def shdrs(self):
        e = self.e
        for i in range(self.shnum):
            off = self.shoff + i * self.shentsize
            if self.is64:
                (name, typ, _, addr, offset, size, link, _, _, entsize) = \
                    struct.unpack_from(e + "IIQQQQIIQQ", self.data, off)
            else:
                (name, typ, _, addr, offset, size, link, _, _, entsize) = \
                    struct.unpack_from(e + "IIIIIIIIII", self.data, off)
            yield typ, offset, size, link, entsize

    def opd(self):
        """ppc64 ELFv1's .opd as (address, file offset, size), or None:
        its function symbols are descriptors there, whose first
        doubleword is the code's address."""
        if self.machine != 21 or not self.is64:         # EM_PPC64
            return None
        e = self.e
        (shstrndx,) = struct.unpack_from(e + "H", self.data, 0x3E)
        hdr = lambda i: struct.unpack_from(
            e + "IIQQQQIIQQ", self.data, self.shoff + i * self.shentsize)
        stroff = hdr(shstrndx)[4]
        for i in range(self.shnum):
            name, _, _, addr, offset, size = hdr(i)[:6]
            end = self.data.index(b"\0", stroff + name)
            if self.data[stroff + name:end] == b".opd":
                return addr, offset, size
        return None

    def symbols(self):
        opd = self.opd()
        for name, value in self.table():
            if opd and opd[0] <= value < opd[0] + opd[2]:
                (value,) = struct.unpack_from(self.e + "Q", self.data,
                                              opd[1] + value - opd[0])
            yield name, value

    def table(self):
        shdrs = list(self.shdrs())
        for typ, offset, size, link, entsize in shdrs:
            if typ != 2 or not entsize:     # SHT_SYMTAB
                continue
            stroff = shdrs[link][1]
            for i in range(size // entsize):
                off = offset + i * entsize
                if self.is64:
                    name, _, _, _, value, _ = struct.unpack_from(
                        self.e + "IBBHQQ", self.data, off)
                else:
                    name, value, _, _, _, _ = struct.unpack_from(
                        self.e + "IIIBBH", self.data, off)
                end = self.data.index(b"\0", stroff + name)
                yield self.data[stroff + name:end].decode(), value

    def build_id(self):
        for typ, offset, size, _, _ in self.shdrs():
            if typ != 7:                    # SHT_NOTE
                continue
            pos = offset
            while pos + 12 <= offset + size:
                namesz, descsz, ntype = struct.unpack_from(self.e + "III",
                                                           self.data, pos)
                name_end = pos + 12 + ((namesz + 3) & ~3)
                if ntype == 3 and self.data[pos + 12:pos + 15] == b"GNU":
                    return self.data[name_end:name_end + descsz]
                pos = name_end + ((descsz + 3) & ~3)
        raise SystemExit("no GNU build-id note")


RAW_NAME = "cpu/mem-loads,ldlat=30/P"


def attr(mem=False, raw=False):
    a = pd_synth.cpu_clock_attr(FLAGS, MEM_SAMPLE_TYPE if mem
                                else SAMPLE_TYPE)
    if raw:
        # type PERF_TYPE_RAW (4), config 0x1cd: Intel's mem-loads
        a = struct.pack("<I", 4) + a[4:8] + struct.pack("<Q", 0x1cd) + a[16:]
    return a


def sample_id(time):
    return struct.pack("<IIQ", PID, PID, time)


def main(argv):
    hostname = None
    if len(argv) > 2 and argv[1] == "--hostname":
        hostname = argv[2]
        argv = argv[:1] + argv[3:]
    mem = len(argv) > 1 and argv[1] == "--mem"
    if mem:
        argv = argv[:1] + argv[2:]
    raw = mem and len(argv) > 1 and argv[1] == "--raw"
    if raw:
        argv = argv[:1] + argv[2:]
    if len(argv) < 6:
        sys.stderr.write(__doc__)
        return 64
    elf_path, recorded, arch, out = argv[1:5]
    elf = Elf(open(elf_path, "rb").read())
    syms = dict(elf.symbols())
    text = [p for p in elf.phdrs() if p[0] == 1 and p[1] & 1]   # PT_LOAD X
    if not text:
        raise SystemExit("no executable PT_LOAD")
    _, _, offset, vaddr, filesz, memsz = text[0]
    page = 0x1000
    start = BASE + (vaddr & ~(page - 1))
    pgoff = offset & ~(page - 1)
    length = (vaddr + memsz - (vaddr & ~(page - 1)) + page - 1) & ~(page - 1)
    bid = elf.build_id()

    recs = [pd_synth.record(3, 0, struct.pack("<II", PID, PID) +
                            pd_synth.pad8(b"loop\0") + sample_id(TIME0))]
    body = struct.pack("<IIQQQBBH20sII", PID, PID, start, length, pgoff,
                       len(bid), 0, 0, bid, 5, 2)
    body += pd_synth.pad8(recorded.encode() + b"\0") + sample_id(TIME0 + 1)
    recs.append(pd_synth.record(10, MISC_USER | MISC_MMAP_BUILD_ID, body))
    rw = [p for p in elf.phdrs() if p[0] == 1 and p[1] & 2]    # PT_LOAD W
    if mem and rw:
        # the data segment, where the globals are (BASE its load bias
        # too): a private writable mapping of the file
        _, _, roff, rvaddr, _, rmemsz = rw[0]
        rstart = BASE + (rvaddr & ~(page - 1))
        rlen = (rvaddr + rmemsz - (rvaddr & ~(page - 1)) + page - 1) & \
            ~(page - 1)
        body = struct.pack("<IIQQQBBH20sII", PID, PID, rstart, rlen,
                           roff & ~(page - 1), len(bid), 0, 0, bid, 3, 2)
        body += pd_synth.pad8(recorded.encode() + b"\0") + \
            sample_id(TIME0 + 2)
        recs.append(pd_synth.record(10, MISC_USER | MISC_MMAP_BUILD_ID,
                                    body))
    n = 0
    for spec in argv[5:]:
        data, ds = None, DS_LOAD
        if mem:
            spec, data = spec.split("@")
            if data.endswith(":st"):
                data, ds = data[:-3], DS_STORE
            if data.startswith("0x"):
                daddr = int(data, 16)
            else:
                dname, doff = data.split("+")
                if dname not in syms:
                    raise SystemExit("no symbol %s" % dname)
                daddr = BASE + syms[dname] + int(doff, 16)
        where, count = spec.split("=")
        name, off = where.split("+")
        if name not in syms:
            raise SystemExit("no symbol %s" % name)
        va = syms[name] + int(off, 16)
        if elf.machine == 40:                           # EM_ARM: Thumb bit
            va &= ~1
        ip = start + (va - (vaddr & ~(page - 1)))
        for _ in range(int(count)):
            n += 1
            if mem:
                recs.append(pd_synth.record(9, MISC_USER, struct.pack(
                    "<QIIQQQQQ", ip, PID, PID, TIME0 + 1000 * n, daddr,
                    PERIOD, MEM_WEIGHT, ds | DS_L1_HIT)))
                continue
            recs.append(pd_synth.record(9, MISC_USER, struct.pack(
                "<QIIQQ", ip, PID, PID, TIME0 + 1000 * n, PERIOD)))
    recs.append(pd_synth.record(68, 0, b""))        # FINISHED_ROUND
    data = b"".join(recs)

    name = RAW_NAME if raw else "cpu-clock"
    feats = pd_synth.one_event_features(
        hostname or "synth-%s" % arch, arch,
        ["perf", "record", "-e", name, "--", "loop"], attr(mem, raw), name)
    attrs = attr(mem, raw) + struct.pack("<QQ", 0, 0)
    with open(out, "wb") as f:
        f.write(pd_synth.file_layout(b"", attrs, data, feats))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
