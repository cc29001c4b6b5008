#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_rawout_gen.py - write captures whose samples carry raw data perf
script prints itself: Intel PT's synthesized events (PERF_TYPE_SYNTH,
the -F synth field) and BPF output (the bpf-output field).

    pd_rawout_gen.py synth OUT [--seed N]
    pd_rawout_gen.py bpf OUT [--seed N]

This VM has no Intel PT and no BPF program writing perf events, so these
are written as perf would: `perf inject --itrace` writes the synthesized
events into a file (attr type PERF_TYPE_SYNTH, config the kind: ptwrite
0, mwait 1, pwre 2, exstop 3, pwrx 4, cbr 5, psb 6, evt 7, iflag 8, each
named as perf names it), and `perf record -e bpf-output` the software
event PERF_COUNT_SW_BPF_OUTPUT, whose samples' raw data is what the
program wrote.  Each sample's raw data is seeded random bytes of the
size perf's struct perf_synth_intel_* gives the kind (some a byte short,
which perf prints nothing of; evt with 0 to 3 event data), or for BPF
output a NUL-terminated string, binary bytes or a string followed by
other bytes, 1 to 40 bytes.  One thread ("pt-prog"/"bpf-prog", pid 4242)
on CPUs 0 and 1, its samples' ips in no map.  The output is a function
of the seed: the same bytes every time.
"""

import argparse
import random
import struct
import sys

from pd_synth import file_bytes, pad8, record, string_feature

PID = 4242
TIME0 = 3000000000
SAMPLE_TYPE = (1 << 16) | (1 << 0) | (1 << 1) | (1 << 2) | (1 << 7) | \
    (1 << 8) | (1 << 10)    # IDENTIFIER IP TID TIME CPU PERIOD RAW
# sample_id_all, comm, task, mmap
FLAGS = (1 << 18) | (1 << 9) | (1 << 13) | (1 << 8)
TYPE_SYNTH, TYPE_SOFTWARE, SW_BPF_OUTPUT = 1 << 31, 1, 10

# kind: (name, raw bytes: the struct's size less its u32 padding)
SYNTH = [("ptwrite", 12), ("mwait", 12), ("pwre", 12), ("exstop", 4),
         ("pwrx", 12), ("cbr", 12), ("psb", 12), ("evt", 4),
         ("iflag", 12)]


def attr(etype, config):
    return struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", etype, 128, config, 1,
                       SAMPLE_TYPE, 0, FLAGS, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0, 0, 0, 0)[:128]


def raw_field(data):
    """PERF_SAMPLE_RAW: u32 size, the bytes, padded so that the sample
    stays 8-byte aligned (size counts the padding, as the kernel's)."""
    size = len(data) + (-(len(data) + 4) % 8)
    return struct.pack("<I", size) + data + bytes(size - len(data))


def synth_raw(rng, kind):
    name, size = SYNTH[kind]
    if rng.random() < 0.1:
        size -= 1
    data = bytearray(rng.randrange(256) for _ in range(size))
    if name == "evt":
        # the cfe word's evd_cnt (bits 16..31): that many evd entries
        nr = rng.randrange(4)
        data[2:4] = struct.pack("<H", nr)
        data += bytes(rng.randrange(256) for _ in range(16 * nr))
    if name == "cbr" and rng.random() < 0.3:
        data[2] = 0     # max_nonturbo 0: no percentage
    return bytes(data)


def bpf_raw(rng):
    n = rng.randrange(1, 41)
    pick = rng.randrange(3)
    text = bytes(rng.choice(b"abcdefghijklmnop qrstuvwxyz0123456789:=")
                 for _ in range(n))
    if pick == 0:       # a string and its NUL (then NULs)
        return text[:max(1, n - 3)] + bytes(min(3, n - 1) or 1)
    if pick == 1:       # binary
        return bytes(rng.randrange(256) for _ in range(n))
    return text[:n // 2] + b"\0" + bytes(rng.randrange(1, 256)
                                         for _ in range(n - n // 2))


def capture(kind, seed):
    rng = random.Random(seed)
    if kind == "synth":
        events = [(attr(TYPE_SYNTH, k), name, [100 + k])
                  for k, (name, _) in enumerate(SYNTH)]
        comm = b"pt-prog\0"
    else:
        events = [(attr(TYPE_SOFTWARE, SW_BPF_OUTPUT), "bpf-output",
                   [100, 101])]
        comm = b"bpf-prog\0"
    first = events[0][2][0]
    recs = [record(3, 0, struct.pack("<II", PID, PID) + pad8(comm) +
                   struct.pack("<IIQIIQ", PID, PID, TIME0, 0, 0, first))]
    for n in range(60):
        cpu = rng.randrange(2)
        if kind == "synth":
            k = n % len(SYNTH) if n < 2 * len(SYNTH) else \
                rng.randrange(len(SYNTH))
            ident = events[k][2][0]
            raw = synth_raw(rng, k)
        else:
            ident = events[0][2][cpu]
            raw = bpf_raw(rng)
        ip = 0x7f0000001000 + 16 * rng.randrange(4096)
        body = struct.pack("<QQIIQIIQ", ident, ip, PID, PID,
                           TIME0 + 1000 * (n + 1), cpu, 0, 1) + raw_field(raw)
        recs.append(record(9, 2, body))
    recs.append(record(68, 0, b""))
    desc = struct.pack("<II", len(events), 128)
    for a, name, ids in events:
        desc += a + struct.pack("<I", len(ids)) + string_feature(name) + \
            struct.pack("<%dQ" % len(ids), *ids)
    feats = [
        (3, string_feature("rawout-host")),
        (4, string_feature("6.1.0-rawout")),
        (5, string_feature("6.1.187")),
        (6, string_feature("x86_64")),
        (7, struct.pack("<II", 2, 2)),
        (12, desc),
    ]
    return file_bytes([(a, ids) for a, _, ids in events], b"".join(recs),
                      feats)


def main(argv):
    p = argparse.ArgumentParser(prog="pd_rawout_gen.py")
    p.add_argument("kind", choices=["synth", "bpf"])
    p.add_argument("out")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv[1:])
    with open(a.out, "wb") as f:
        f.write(capture(a.kind, a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
