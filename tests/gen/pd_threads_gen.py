#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_threads_gen.py - a capture with the READ records `perf record -s`
(inherit_stat) leaves, for perf report -T's per-thread table
(tests/cli/report/threads.test).

    pd_threads_gen.py DIR

Writes DIR/CASE.perf.data (file mode), DIR/CASE.pipe.data (the same
records as a pipe stream) and DIR/CASE.kallsyms for the cases sstat and
nostat (the same without the READ records: perf record -s without
inherit, an empty table): four software events
(cpu-clock, task-clock, page-faults; minor-faults reading as a group,
whose READ records perf 6.1 counts by their first u64, the number of
values), each with an id per CPU (2), sample_type IP, TID, TIME, ID,
PERIOD, sample_id_all, read_format TOTAL_TIME_ENABLED,
TOTAL_TIME_RUNNING, ID.  Samples of three processes' threads in kernel
functions, then a READ per exiting thread, event and CPU, as the kernel
writes them, the file's order not the time order (the table's rows and
columns come in the time order of their first READ), with pids and
values of several widths.
"""

import os
import struct
import sys

from pd_synth import file_bytes, pad8, pipe_bytes, record, string_feature

BASE = 0xffffffff81000000
FNS = ["a_fn", "b_fn", "c_fn"]
SAMPLE_TYPE = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 6) | (1 << 8)
# inherit, comm, inherit_stat, sample_id_all, mmap2, comm_exec
ATTR_FLAGS = (1 << 1) | (1 << 9) | (1 << 11) | (1 << 18) | (1 << 23) | \
    (1 << 24)
READ_FORMAT = 1 | 2 | 4        # TOTAL_TIME_ENABLED, _RUNNING, ID
GROUP = 8
TIME0 = 1000000000
REC_MMAP, REC_COMM, REC_READ, REC_SAMPLE = 1, 3, 8, 9
REC_FINISHED_ROUND = 68
MISC_KERNEL = 1

# name, config, read_format extra, ids (one per CPU)
EVENTS = [("cpu-clock", 0, 0, [11, 12]), ("task-clock", 1, 0, [21, 22]),
          ("page-faults", 2, 0, [31, 32]),
          ("minor-faults", 5, GROUP, [41, 42])]
# (pid, tid) of the threads, and their names
THREADS = [((7, 7), "short"), ((7, 8), "short"), ((1234567, 1234567), "wide"),
           ((1234567, 1234570), "wide"), ((300, 301), "mid")]
# READs: (time offset, thread index, event index, cpu, value), in the
# file's order (by CPU buffer, as perf writes them), not in time
READS = [
    # CPU 1's buffer first: task-clock of 7/8 is the first in time
    (50, 1, 1, 1, 12), (51, 1, 0, 1, 99999999999), (52, 1, 2, 1, 0),
    (53, 1, 3, 1, 5),
    (90, 3, 0, 1, 4000), (91, 3, 1, 1, 4100), (92, 3, 2, 1, 3),
    (93, 3, 3, 1, 5),
    # CPU 0's
    (60, 1, 0, 0, 1), (61, 1, 1, 0, 2), (62, 1, 2, 0, 7),
    (63, 1, 3, 0, 5),
    (70, 4, 2, 0, 1), (71, 4, 0, 0, 123456), (72, 4, 1, 0, 654321),
    (73, 4, 3, 0, 5),
    (95, 2, 0, 0, 5), (96, 2, 1, 0, 6), (97, 2, 2, 0, 18446744073709551615),
    (98, 2, 3, 0, 5),
    (99, 0, 0, 0, 70), (100, 0, 1, 0, 80), (101, 0, 2, 0, 90),
    (102, 0, 3, 0, 5),
]


def attr_bytes(config, read_format):
    return struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", 1, 128, config, 4000,
                       SAMPLE_TYPE, READ_FORMAT | read_format, ATTR_FLAGS,
                       0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       0)[:128]


def sid(pid, tid, time, ident):
    return struct.pack("<IIQQ", pid, tid, time, ident)


def data_records(reads):
    out = [record(REC_MMAP, MISC_KERNEL,
                  struct.pack("<IIQQQ", 0xffffffff, 0, BASE, 0x10000, BASE) +
                  pad8(b"[kernel.kallsyms]_text\0") +
                  sid(0, 0, TIME0, EVENTS[0][3][0]))]
    time = TIME0
    for (pid, tid), name in THREADS:
        time += 1
        out.append(record(REC_COMM, 0, struct.pack("<II", pid, tid) +
                          pad8(name.encode() + b"\0") +
                          sid(pid, tid, time, EVENTS[0][3][0])))
    for n in range(24):
        (pid, tid), _ = THREADS[n % len(THREADS)]
        ev = EVENTS[n % 3]
        time = TIME0 + 10 + n
        ip = BASE + 0x100 * (n % len(FNS) + 1) + 0x10
        out.append(record(REC_SAMPLE, MISC_KERNEL,
                          struct.pack("<QIIQQQ", ip, pid, tid, time,
                                      ev[3][n % 2], 1000 + n)))
    for dt, thread, event, cpu, value in reads:
        (pid, tid), _ = THREADS[thread]
        ident = EVENTS[event][3][cpu]
        time = TIME0 + 1000 + dt
        if EVENTS[event][2] & GROUP:
            # nr, times, then {value, id} for the one member
            body = struct.pack("<IIQQQQQ", pid, tid, 1, time, time,
                               value, ident)
        else:
            body = struct.pack("<IIQQQQ", pid, tid, value, time, time,
                               ident)
        out.append(record(REC_READ, 0, body + sid(pid, tid, time, ident)))
    out.append(record(REC_FINISHED_ROUND, 0, b""))
    return b"".join(out)


def features(pipe):
    desc = struct.pack("<II", len(EVENTS), 128)
    for name, config, rf, ids in EVENTS:
        desc += attr_bytes(config, rf) + struct.pack("<I", len(ids)) + \
            string_feature(name) + struct.pack("<%dQ" % len(ids), *ids)
    feats = [(3, string_feature("pd-threads-host")),
             (4, string_feature("6.1.0-pd-threads")),
             (5, string_feature("6.1.187")),
             (6, string_feature("x86_64")),
             (7, struct.pack("<II", 2, 2))]
    return feats if pipe else feats + [(12, desc)]


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: pd_threads_gen.py DIR")
    events = [(attr_bytes(c, rf), ids) for _, c, rf, ids in EVENTS]
    for name, reads in (("sstat", READS), ("nostat", [])):
        path = os.path.join(argv[1], name)
        with open(path + ".kallsyms", "w") as f:
            f.write("%x T _text\n" % BASE)
            for i, fn in enumerate(FNS):
                f.write("%x T %s\n" % (BASE + 0x100 * (i + 1), fn))
            f.write("%x T _etext\n" % (BASE + 0x100 * (len(FNS) + 2)))
        data = data_records(reads)
        with open(path + ".perf.data", "wb") as f:
            f.write(file_bytes(events, data, features(False)))
        with open(path + ".pipe.data", "wb") as f:
            f.write(pipe_bytes(events, data, features(True)))


if __name__ == "__main__":
    main(sys.argv)
