#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_dcl_gen.py - write a memory capture whose data addresses fall in
every kind of map perf's dcacheline key tells apart:

    pd_dcl_gen.py OUT [--shared-anon]

One event (cycles, sample_type IP, TID, TIME, ADDR, PERIOD, DATA_SRC)
and two processes (100 and 200, comm "dcl").  Their MMAP2 maps:

  code    /opt/pd-dcl/bin r-xp, inode form 8:1 ino 1234 (both)
  data    /opt/pd-dcl/bin rw-p, the same file, pgoff 0x2000 (100)
  shm     /dev/shm/pd-dcl-seg rw-s, 0:25 ino 77 generation 3, at other
          addresses in 100 and 200 (one file's lines shared by both)
  anon    //anon rw-p, no inode, at the same address in 100 and 200
          (each process's lines its own)
  shanon  with --shared-anon: //anon rw-s, no inode (shared anonymous
          memory, 100, and 3 more samples there).  perf 6.1's
          sort__dcacheline_cmp() is no order then: it compares the
          process only when the left entry's map is private, so one
          line of private anonymous memory may become two rows, as its
          rb-tree places them (pdtool keeps one)
  shexec  /opt/pd-dcl/lib.so r-xs, 8:1 ino 99 (shared and executable)

and 23 samples: loads in each map (two in one line, the shm line
from both processes, the anon line from both), a load with no map, a
kernel sample at a kernel address, each with a period of its own.  No binary exists: every address
prints map-relative.  The bytes depend on nothing but this script.
"""

import struct
import sys

from pd_synth import file_bytes, one_event_features, pad8, record

# IP, TID, TIME, ADDR, PERIOD, DATA_SRC
SAMPLE_TYPE = 1 | 2 | 4 | 8 | (1 << 8) | (1 << 15)
MISC_KERNEL, MISC_USER = 1, 2
EVENT_ID = 1
PROT_RW, PROT_RX = 3, 5
MAP_SHARED, MAP_PRIVATE = 1, 2
# a load that hit L1 (mem_op LOAD, mem_lvl HIT|L1)
DATA_SRC = 0x2 | (0xa << 5)
CODE = 0x401000

MAPS = [
    # pid, start, len, pgoff, maj, min, ino, gen, prot, flags, name
    (100, 0x400000, 0x2000, 0, 8, 1, 1234, 0, PROT_RX, MAP_PRIVATE,
     "/opt/pd-dcl/bin"),
    (200, 0x400000, 0x2000, 0, 8, 1, 1234, 0, PROT_RX, MAP_PRIVATE,
     "/opt/pd-dcl/bin"),
    (100, 0x602000, 0x1000, 0x2000, 8, 1, 1234, 0, PROT_RW, MAP_PRIVATE,
     "/opt/pd-dcl/bin"),
    (100, 0x7f0000100000, 0x4000, 0x1000, 0, 25, 77, 3, PROT_RW,
     MAP_SHARED, "/dev/shm/pd-dcl-seg"),
    (200, 0x7f0000900000, 0x4000, 0x1000, 0, 25, 77, 3, PROT_RW,
     MAP_SHARED, "/dev/shm/pd-dcl-seg"),
    (100, 0x7f0000200000, 0x10000, 0, 0, 0, 0, 0, PROT_RW, MAP_PRIVATE,
     "//anon"),
    (200, 0x7f0000200000, 0x10000, 0, 0, 0, 0, 0, PROT_RW, MAP_PRIVATE,
     "//anon"),
    (100, 0x7f0000400000, 0x1000, 0, 8, 1, 99, 0, PROT_RX, MAP_SHARED,
     "/opt/pd-dcl/lib.so"),
]

SHARED_ANON_MAP = (100, 0x7f0000300000, 0x1000, 0, 0, 0, 0, 0, PROT_RW,
                   MAP_SHARED, "//anon")
SHARED_ANON_SAMPLES = [(100, MISC_USER, 0x7f0000300100),
                       (100, MISC_USER, 0x7f0000300140),
                       (100, MISC_USER, 0x7f0000300000)]

# pid, cpumode, data address, in time order
SAMPLES = [
    (100, MISC_USER, 0x602010),         # data: one line ...
    (100, MISC_USER, 0x602030),         # ... two samples
    (100, MISC_USER, 0x602050),         # the next line
    (100, MISC_USER, 0x7f0000100040),   # shm at pgoff 0x1000 + 0x40 ...
    (200, MISC_USER, 0x7f0000900048),   # ... the same line from 200
    (100, MISC_USER, 0x7f0000102000),
    (100, MISC_USER, 0x7f0000200080),   # anon: 100's line ...
    (200, MISC_USER, 0x7f0000200088),   # ... and 200's at that address
    (200, MISC_USER, 0x7f0000208000),
    (100, MISC_USER, 0x7f0000400200),   # shared executable
    (100, MISC_USER, 0x7ffff0000000),   # no map
    (200, MISC_USER, 0x7ffff0000010),   # no map, the same line
    (100, MISC_KERNEL, 0xffff888000001000),  # kernel, no kernel map
    (200, MISC_USER, 0x602010),         # 200 has no data map there
    (100, MISC_USER, 0x7f0000103000),
    (200, MISC_USER, 0x7f0000903000),
    (100, MISC_USER, 0x7f0000201000),
    (200, MISC_USER, 0x7f0000201000),
    (100, MISC_USER, 0x400100),         # the code map
    (200, MISC_USER, 0x400100),
    (100, MISC_USER, 0x7f0000400000),
    (100, MISC_USER, 0x602070),
    (200, MISC_USER, 0x7f0000208010),
]


def attr_bytes():
    return struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", 0, 128, 0, 4000,
                       SAMPLE_TYPE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0)[:128]


def data_records(shared_anon):
    maps = MAPS + ([SHARED_ANON_MAP] if shared_anon else [])
    samples = SAMPLES + (SHARED_ANON_SAMPLES if shared_anon else [])
    recs = []
    for pid in (100, 200):
        recs.append(record(3, 0, struct.pack("<II", pid, pid) +
                           pad8(b"dcl\0")))
    for (pid, start, length, pgoff, maj, mnr, ino, gen, prot, flags,
         name) in maps:
        body = struct.pack("<IIQQQIIQQII", pid, pid, start, length, pgoff,
                           maj, mnr, ino, gen, prot, flags)
        recs.append(record(10, MISC_USER, body +
                           pad8(name.encode() + b"\0")))
    for n, (pid, misc, addr) in enumerate(samples):
        ip = 0xffffffff81000000 if misc == MISC_KERNEL else CODE
        # distinct periods, the first samples the largest (--mem-mode
        # weighs each sample 1 without PERF_SAMPLE_WEIGHT)
        period = 1000 - 13 * n
        body = struct.pack("<QIIQQQQ", ip, pid, pid, 1000000000 + 1000 * n,
                           addr, period, DATA_SRC)
        recs.append(record(9, misc, body))
    recs.append(record(68, 0, b""))
    return b"".join(recs)


def main(argv):
    if len(argv) not in (2, 3) or argv[2:] not in ([], ["--shared-anon"]):
        sys.exit("usage: pd_dcl_gen.py OUT [--shared-anon]")
    attr = attr_bytes()
    feats = one_event_features("pd-dcl-host", "x86_64",
                               ["perf", "record", "-d"], attr, "cycles")
    with open(argv[1], "wb") as f:
        f.write(file_bytes([(attr, [EVENT_ID])],
                           data_records(len(argv) == 3), feats))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
