#!/usr/bin/env python3
# mkseed_elf.py - a seed for fuzz_elf.c: a binary followed by the stack
# dump and registers of one of its samples in a DWARF capture, in the
# trailer fuzz_elf.c reads, so that the fuzzer starts from a real unwind.
#
#   tests/fuzz/mkseed_elf.py CAPTURE BINARY FLAGS OUT
#
# CAPTURE is a perf.data (.zst is decompressed with zstd) recorded with
# --call-graph dwarf; BINARY the program it ran.  The first sample of the
# process that maps BINARY's name is taken, the map at file offset 0
# giving the base.  FLAGS is the trailer's flags (1: libunwind, 2: no
# inlined frames, 4: source lines).  The seeds in tests/fuzz/corpus/elf/
# were made with
#
#   tests/fuzz/mkseed_elf.py testdata/dwarf.perf.data.zst testdata/bin/demo 4 \
#	tests/fuzz/corpus/elf/seed-demo-dwarf
#   tests/fuzz/mkseed_elf.py testdata/dwarf.perf.data.zst testdata/bin/demo 1 \
#	tests/fuzz/corpus/elf/seed-demo-dwarf-libunwind
import os
import struct
import subprocess
import sys

MAGIC = b"PDFZELF1"
NR_VADDRS = 8
NR_REGS = 33
MAX_STACK_DUMP = 8192

# sample_type bits, perf_event.h
IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW, \
    BRANCH_STACK, REGS_USER, STACK_USER, WEIGHT, DATA_SRC, IDENTIFIER = \
    [1 << i for i in range(17)]


def u64(b, off):
    return struct.unpack_from("<Q", b, off)[0]


def read_capture(path):
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-q", "-d", "-c", path], check=True,
                              stdout=subprocess.PIPE).stdout
    with open(path, "rb") as f:
        return f.read()


def sample_fields(rec, sample_type, regs_mask):
    """ip, pid, regs and stack dump of a SAMPLE record (little-endian)."""
    if sample_type & (READ | RAW | BRANCH_STACK):
        sys.exit("mkseed_elf: READ, RAW and BRANCH_STACK are not read here")
    off = 8
    out = {}
    for bit, name in ((IDENTIFIER, None), (IP, "ip"), (TID, "pidtid"),
                      (TIME, None), (ADDR, None), (ID, None),
                      (STREAM_ID, None), (CPU, None), (PERIOD, None)):
        if sample_type & bit:
            if name:
                out[name] = u64(rec, off)
            off += 8
    if sample_type & CALLCHAIN:
        off += 8 + 8 * u64(rec, off)
    out["regs"] = []
    if sample_type & REGS_USER:
        abi = u64(rec, off)
        off += 8
        if abi:
            n = bin(regs_mask).count("1")
            out["regs"] = [u64(rec, off + 8 * i) for i in range(n)]
            off += 8 * n
    out["stack"] = b""
    if sample_type & STACK_USER:
        size = u64(rec, off)
        off += 8
        if size:
            data = rec[off:off + size]
            dyn = u64(rec, off + size)
            out["stack"] = data[:min(dyn, size, MAX_STACK_DUMP) & ~7]
    out["pid"] = out["pidtid"] & 0xffffffff
    return out


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: mkseed_elf.py CAPTURE BINARY FLAGS OUT")
    cap = read_capture(sys.argv[1])
    binary = open(sys.argv[2], "rb").read()
    name = "/" + os.path.basename(sys.argv[2])
    flags = int(sys.argv[3])
    if cap[:8] != b"PERFILE2":
        sys.exit("mkseed_elf: not a little-endian perf.data file")
    attrs_off, data_off, data_size = u64(cap, 24), u64(cap, 40), u64(cap, 48)
    sample_type = u64(cap, attrs_off + 24)
    regs_mask = u64(cap, attrs_off + 80)
    base = pid = None
    at = data_off
    while at < data_off + data_size:
        typ, misc, size = struct.unpack_from("<IHH", cap, at)
        rec = cap[at:at + size]
        if typ == 10 and base is None:  # MMAP2
            fname = rec[72:].split(b"\0")[0].decode()
            if fname.endswith(name) and u64(rec, 32) == 0:
                pid, base = struct.unpack_from("<I", rec, 8)[0], u64(rec, 16)
        elif typ == 9 and base is not None:  # SAMPLE
            s = sample_fields(rec, sample_type, regs_mask)
            if s["pid"] == pid and s["regs"] and s["stack"]:
                break
        at += size
    else:
        sys.exit("mkseed_elf: no sample of %s with registers" % name)
    regs = (s["regs"] + [0] * NR_REGS)[:NR_REGS]
    vaddrs = [s["ip"] - base] + [0] * (NR_VADDRS - 1)
    trailer = struct.pack("<Q", base) + struct.pack("<%dQ" % NR_VADDRS, *vaddrs)
    trailer += struct.pack("<Q", regs_mask)
    trailer += struct.pack("<%dQ" % NR_REGS, *regs)
    trailer += struct.pack("<QQ", len(s["stack"]), flags) + MAGIC
    with open(sys.argv[4], "wb") as f:
        f.write(binary + s["stack"] + trailer)


if __name__ == "__main__":
    main()
