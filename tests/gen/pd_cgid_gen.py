#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_cgid_gen.py - write a capture whose threads change cgroup
namespace (PERF_RECORD_NAMESPACES) while they are sampled, as
`perf record --namespaces` writes it, for the cgroup_id sort key:

    pd_cgid_gen.py OUT

One event (cpu-clock, sample_type IP, TID, TIME, CPU, PERIOD,
CALLCHAIN, sample_id_all: a user callchain of two or three frames, some
recursive), processes 100 "web" (threads 100, 101, and 102 made by a
FORK mid-run), 200 "batch" and 300 "orphan" (never named by a
NAMESPACES record: "0/0x0"), each with a code map (/opt/pd-cgid/bin).
NAMESPACES records (seven namespaces, the cgroup one sixth) at time 0,
as perf synthesizes them for running threads, then mid-run: 101 moves
to a namespace of its own (unshare), 200 to one whose device and inode
are all ones (a text wider than the column, and perf's left - right
order wrapping round), 102 gets its first only after its first samples
(a new thread inherits none in perf); 101 exits and its tid is made
again by a FORK (no namespace again); one record shares its timestamp
with a sample written before it, and one is written after samples
later than itself (perf's ordered events place it by time).  64
samples.  No binary exists.  The bytes depend on nothing but this
script.
"""

import struct
import sys

from pd_synth import cpu_clock_attr, one_event_main, pad8, record

# IP, TID, TIME, CPU, PERIOD, CALLCHAIN
SAMPLE_TYPE = 1 | 2 | 4 | (1 << 7) | (1 << 8) | (1 << 5)
CONTEXT_USER = (1 << 64) - 512
MISC_USER = 2
COMM, EXIT, FORK, MMAP2, SAMPLE, NAMESPACES, ROUND = 3, 4, 7, 10, 9, 16, 12
T0 = 5000000000
NS_HOST = (4, 0xeffffffb)
NS_WEB = (4, 0xf0000151)
NS_BATCH = (4, 0xf0000160)
NS_WIDE = ((1 << 64) - 1, (1 << 64) - 1)
NS_LATE = (7, 0x1234)


def trailer(pid, tid, time):
    """sample_id_all's fields of this sample_type: TID, TIME, CPU."""
    return struct.pack("<IIQII", pid, tid, time, 0, 0)


def namespaces(pid, tid, time, cgns):
    """NAMESPACES: net, uts, ipc, pid, user, mnt, then cgroup."""
    links = [(4, 0xf0000000 + i) for i in range(6)] + [cgns]
    body = struct.pack("<IIQ", pid, tid, len(links))
    for dev, ino in links:
        body += struct.pack("<QQ", dev, ino)
    return (time, record(NAMESPACES, 0, body + trailer(pid, tid, time)))


def comm(pid, tid, name, time):
    return (time, record(COMM, 0, struct.pack("<II", pid, tid) +
                         pad8(name + b"\0") + trailer(pid, tid, time)))


def fork(rtype, pid, ppid, tid, ptid, time):
    return (time, record(rtype, 0, struct.pack("<IIIIQ", pid, ppid, tid,
                                               ptid, time) +
                         trailer(pid, tid, time)))


def mmap2(pid, time):
    body = struct.pack("<IIQQQIIQQII", pid, pid, 0x400000, 0x4000, 0, 8, 1,
                       77, 0, 5, 2) + pad8(b"/opt/pd-cgid/bin\0")
    return (time, record(MMAP2, MISC_USER, body + trailer(pid, pid, time)))


def sample(n, pid, tid, time):
    ip = 0x401000 + 0x40 * (n % 4)
    if n % 5 == 0:
        tail = [0x402000, 0x402000]     # a recursion: children's he_tmp
    elif n % 2:
        tail = [0x402000]
    else:
        tail = [0x402000, 0x403000]
    chain = [CONTEXT_USER, ip] + tail
    body = struct.pack("<QIIQIIQQ%dQ" % len(chain), ip, pid, tid, time,
                       n % 2, 0, 1000 + 7 * n, len(chain), *chain)
    return (time, record(SAMPLE, MISC_USER, body))


# the sampled threads in turn: (pid, tid)
THREADS = [(100, 100), (100, 101), (200, 200), (300, 300), (100, 102)]


def data_records():
    recs = []
    for pid, name in ((100, b"web"), (200, b"batch"), (300, b"orphan")):
        recs += [comm(pid, pid, name, 0), mmap2(pid, 0)]
    recs += [fork(FORK, 100, 100, 101, 100, 0), comm(100, 101, b"web", 0),
             namespaces(100, 100, 0, NS_HOST),
             namespaces(100, 101, 0, NS_HOST),
             namespaces(200, 200, 0, NS_BATCH)]
    # thread 102 made at T0 + 5000, its namespace named at + 25000
    recs.append(fork(FORK, 100, 100, 102, 100, T0 + 5000))
    for n in range(64):
        pid, tid = THREADS[n % len(THREADS)]
        if tid == 102 and n < 5:
            pid, tid = 100, 100
        time = T0 + 1000 * n
        if tid in (101, 102) and T0 + 40000 <= time < T0 + 44000:
            continue    # 101 exits at + 40000 and is made again
        recs.append(sample(n, pid, tid, time))
        if n == 21:
            # 101 unshares at + 21000, the time of this sample of it,
            # written after it: it comes after the sample too
            recs.append(namespaces(100, 101, time, NS_WEB))
        if n == 36:
            # written here, at + 30000: before samples 31..36 in time
            recs.append(namespaces(200, 200, T0 + 30000, NS_WIDE))
    recs.append(namespaces(100, 102, T0 + 25000, NS_LATE))
    recs += [fork(EXIT, 100, 100, 101, 100, T0 + 40000),
             fork(FORK, 100, 100, 101, 100, T0 + 41000)]
    # perf's ordered events sort the whole capture before the one
    # round's end (records of one time keep the file's order)
    recs.append((1 << 64, record(ROUND, 0, b"")))
    return b"".join(r for _, r in recs)


def main(argv):
    attr = cpu_clock_attr(["sample_id_all", "namespaces"], SAMPLE_TYPE)
    return one_event_main(argv, "pd_cgid_gen.py", "pd-cgid-host",
                          ["perf", "record", "--namespaces", "-g"], attr,
                          "cpu-clock", data_records())


if __name__ == "__main__":
    sys.exit(main(sys.argv))
