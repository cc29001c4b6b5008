#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_capture.py - write a small perf.data naming the files, build-ids,
host and kernel a test chooses: a hostile capture for the tests of what
pdtool reads, asks and sends (issue 11).

    pd_capture.py OUT [--hostname NAME] [--release REL]
                      [--kernel-build-id HEX] [--kernel START LEN]
                      [--map PID START LEN PGOFF PATH [BUILDID]]...
                      [--anon PID START LEN]...
                      [--sample PID IP [IP...]]...
                      [--chain PID IP [WORD...]]...

One event (cycles, sample_type IP, TID, TIME, CALLCHAIN, PERIOD), laid
out as perf 6.1 lays out a file: a COMM per pid, then the maps in the
order given, then the samples.

  --hostname, --release  HEADER_HOSTNAME and HEADER_OSRELEASE (defaults
                         "pd-capture-host" and "6.1.0-pd-capture")
  --kernel-build-id HEX  a HEADER_BUILD_ID entry for [kernel.kallsyms]
  --kernel START LEN     the kernel map, "[kernel.kallsyms]_text" with
                         pgoff START (perf's reloc symbol)
  --map ... PATH BUILDID an MMAP2, r-x private, in its build-id form when
                         BUILDID (hex) is given, else the inode form
  --anon PID START LEN   an anonymous rwx map: JIT code, named
                         /tmp/perf-PID.map by pdtool as by perf
  --sample PID IP...     a sample of pid at IP, its callchain IP... (the
                         first is the leaf); kernel addresses (top bit
                         set) get PERF_CONTEXT_KERNEL, the rest USER
  --chain PID IP WORD... a sample of pid at IP whose callchain is the
                         words as given, PERF_CONTEXT markers and all
                         (none: an empty callchain); after the --sample
                         ones
"""

import argparse
import struct
import sys

from pd_synth import file_bytes, pad8, record, string_feature

SAMPLE_TYPE = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 5) | (1 << 8)
# mmap, comm, mmap2, comm_exec
ATTR_FLAGS = (1 << 8) | (1 << 9) | (1 << 23) | (1 << 24)
PERIOD = 1000
TIME0 = 1000000000
REC_MMAP, REC_COMM, REC_SAMPLE, REC_MMAP2, REC_FINISHED_ROUND = 1, 3, 9, 10, 68
MISC_KERNEL, MISC_USER = 1, 2
MISC_MMAP_BUILD_ID = 1 << 14
MISC_BUILD_ID_SIZE = 1 << 15
CONTEXT_KERNEL = (1 << 64) - 128
CONTEXT_USER = (1 << 64) - 512
EVENT_ID = 1


def attr_bytes():
    return struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", 0, 128, 0, 4000,
                       SAMPLE_TYPE, 0, ATTR_FLAGS, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0, 0, 0, 0, 0)[:128]


def build_id_entry(misc, name, hexid):
    raw = bytes.fromhex(hexid)
    if len(raw) > 20:
        raise SystemExit("pd_capture.py: a build-id has at most 20 bytes")
    body = struct.pack("<i", -1) + raw + bytes(20 - len(raw)) + \
        bytes([len(raw)]) + bytes(3) + pad8(name.encode() + b"\0")
    return record(0, misc | MISC_BUILD_ID_SIZE, body)


def data_records(args):
    recs = []
    pids = []
    for m in args.map:
        pids.append(int(m[0], 0))
    for a in args.anon:
        pids.append(int(a[0], 0))
    for s in args.sample + args.chain:
        pids.append(int(s[0], 0))
    for pid in sorted(set(pids)):
        recs.append(record(REC_COMM, 0, struct.pack("<II", pid, pid) +
                           pad8(b"victim\0")))
    if args.kernel:
        start, length = (int(v, 0) for v in args.kernel)
        recs.append(record(REC_MMAP, MISC_KERNEL,
                           struct.pack("<IIQQQ", 0xffffffff, 0, start,
                                       length, start) +
                           pad8(b"[kernel.kallsyms]_text\0")))
    for m in args.map:
        pid, start, length, pgoff = (int(v, 0) for v in m[:4])
        path = m[4]
        body = struct.pack("<IIQQQ", pid, pid, start, length, pgoff)
        misc = MISC_USER
        if len(m) > 5:
            raw = bytes.fromhex(m[5])
            body += bytes([len(raw), 0, 0, 0]) + raw + bytes(20 - len(raw))
            misc |= MISC_MMAP_BUILD_ID
        else:
            body += struct.pack("<IIQQ", 8, 1, 1234, 0)
        body += struct.pack("<II", 5, 2) + pad8(path.encode() + b"\0")
        recs.append(record(REC_MMAP2, misc, body))
    for a in args.anon:
        pid, start, length = (int(v, 0) for v in a)
        body = struct.pack("<IIQQQIIQQII", pid, pid, start, length, 0, 0, 0,
                           0, 0, 7, 0x22) + pad8(b"//anon\0")
        recs.append(record(REC_MMAP2, MISC_USER, body))
    for n, s in enumerate(args.sample):
        pid = int(s[0], 0)
        ips = [int(v, 0) for v in s[1:]]
        chain = []
        ctx = None
        for ip in ips:
            want = CONTEXT_KERNEL if ip >> 63 else CONTEXT_USER
            if want != ctx:
                chain.append(want)
                ctx = want
            chain.append(ip)
        misc = MISC_KERNEL if ips[0] >> 63 else MISC_USER
        body = struct.pack("<QIIQQ", ips[0], pid, pid, TIME0 + 1000 * n,
                           PERIOD)
        body += struct.pack("<Q%dQ" % len(chain), len(chain), *chain)
        recs.append(record(REC_SAMPLE, misc, body))
    for n, s in enumerate(args.chain, len(args.sample)):
        pid, ip = int(s[0], 0), int(s[1], 0)
        chain = [int(v, 0) for v in s[2:]]
        body = struct.pack("<QIIQQ", ip, pid, pid, TIME0 + 1000 * n, PERIOD)
        body += struct.pack("<Q%dQ" % len(chain), len(chain), *chain)
        recs.append(record(REC_SAMPLE,
                           MISC_KERNEL if ip >> 63 else MISC_USER, body))
    recs.append(record(REC_FINISHED_ROUND, 0, b""))
    return b"".join(recs)


def features(args):
    desc = struct.pack("<II", 1, 128) + attr_bytes() + \
        struct.pack("<I", 1) + string_feature("cycles") + \
        struct.pack("<Q", EVENT_ID)
    feats = []
    if args.kernel_build_id:
        feats.append((2, build_id_entry(MISC_KERNEL, "[kernel.kallsyms]",
                                        args.kernel_build_id)))
    feats += [
        (3, string_feature(args.hostname)),
        (4, string_feature(args.release)),
        (5, string_feature("6.1.187")),
        (6, string_feature("x86_64")),
        (7, struct.pack("<II", 1, 1)),
        (12, desc),
    ]
    return feats


def capture(args):
    return file_bytes([(attr_bytes(), [EVENT_ID])], data_records(args),
                      features(args))


def main(argv):
    p = argparse.ArgumentParser(prog="pd_capture.py")
    p.add_argument("out")
    p.add_argument("--hostname", default="pd-capture-host")
    p.add_argument("--release", default="6.1.0-pd-capture")
    p.add_argument("--kernel-build-id")
    p.add_argument("--kernel", nargs=2, metavar=("START", "LEN"))
    p.add_argument("--map", nargs="+", action="append", default=[])
    p.add_argument("--anon", nargs=3, action="append", default=[])
    p.add_argument("--sample", nargs="+", action="append", default=[])
    p.add_argument("--chain", nargs="+", action="append", default=[])
    args = p.parse_args(argv[1:])
    for m in args.map:
        if len(m) not in (5, 6):
            p.error("--map PID START LEN PGOFF PATH [BUILDID]")
    for s in args.sample:
        if len(s) < 2:
            p.error("--sample PID IP [IP...]")
    for s in args.chain:
        if len(s) < 2:
            p.error("--chain PID IP [WORD...]")
    with open(args.out, "wb") as f:
        f.write(capture(args))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
