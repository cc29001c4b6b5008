#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_comm_gen.py - captures whose threads sample before their first
COMM, for the names perf's report gives them (tests/cli/report/
latecomm.test).

    pd_comm_gen.py DIR

Writes DIR/CASE.perf.data (file mode), DIR/CASE.pipe.data (the same
records as a pipe stream) and DIR/CASE.kallsyms for each case below:
kernel functions a_fn..d_fn, one event (cycles, sample_type IP, TID,
TIME, CALLCHAIN, PERIOD, sample_id_all) and the records of the case in
time order.  perf 6.1's report names a thread that has no comm ":TID"
until its first COMM, which overrides that name in place
(____thread__set_comm, comm__override), so the rows made before take
it; a FORK makes the thread anew (the old one, and its rows, keep
":TID"), with its parent's comm when the parent has one, else none.
perf script prints the name at the sample's time.
"""

import os
import struct
import sys

from pd_synth import file_bytes, pad8, pipe_bytes, record, string_feature

BASE = 0xffffffff81000000
FNS = ["a_fn", "b_fn", "c_fn", "d_fn"]
SAMPLE_TYPE = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 5) | (1 << 8)
# mmap, comm, sample_id_all, mmap2, comm_exec
ATTR_FLAGS = (1 << 8) | (1 << 9) | (1 << 18) | (1 << 23) | (1 << 24)
TIME0 = 1000000000
EVENT_ID = 1
REC_MMAP, REC_COMM, REC_FORK, REC_SAMPLE = 1, 3, 7, 9
REC_FINISHED_ROUND = 68
MISC_KERNEL = 1
MISC_COMM_EXEC = 1 << 13
CONTEXT_KERNEL = (1 << 64) - 128

# name: records in time order
#   ("s", tid, "fn fn ...")       a sample of thread tid (its own pid,
#                                 or of pid with tid a (pid, tid) pair)
#   ("c", tid, name[, "exec"])    a COMM (tid as a sample's)
#   ("f", tid, parent)            a FORK of process tid from parent
CASES = {
    # 200 named late, then again by exec; 201 never named; 202 named
    # first
    "late": [("c", 202, "early"), ("s", 200, "a_fn b_fn"),
             ("s", 201, "a_fn b_fn"), ("s", 202, "a_fn b_fn"),
             ("s", 200, "c_fn"), ("c", 200, "late"),
             ("s", 200, "a_fn b_fn"), ("c", 200, "later", "exec"),
             ("s", 200, "a_fn"), ("s", 201, "d_fn")],
    # 300 samples, is forked anew from a nameless parent, samples, then
    # is named; 301 samples, is forked from a named one, samples, is
    # named; 302 is forked from nameless 303 and named later.  (A row
    # the new 300 makes before its COMM must be one the old 300 did not
    # make: perf adds such a sample to the old row, ":300" by then, as
    # pdtool does not; and of another period: perf's children order
    # puts callers first within one thread, the old 300 another than
    # the new to perf, the same tid to pdtool.)
    "fork": [("c", 310, "parent"), ("s", 300, "a_fn b_fn"),
             ("s", 300, "a_fn b_fn"),
             ("s", 301, "a_fn"), ("s", 303, "d_fn"),
             ("f", 300, 309), ("s", 300, "d_fn"),
             ("f", 301, 310), ("s", 301, "a_fn"),
             ("f", 302, 303), ("s", 302, "c_fn b_fn"),
             ("c", 300, "child"), ("c", 301, "other"),
             ("c", 302, "kid"), ("s", 300, "b_fn"), ("s", 301, "c_fn"),
             ("s", 302, "c_fn")],
    # threads 400, 401 and 402 of process 400 sample the same stack
    # without a comm, each its own ":TID" row, and 403 is named later;
    # 404 samples it again with a comm of its own.  (The memo must not
    # give one thread's row to another.)
    "threads": [("c", (400, 404), "own"), ("s", (400, 400), "a_fn b_fn"),
                ("s", (400, 401), "a_fn b_fn"),
                ("s", (400, 403), "a_fn b_fn"),
                ("s", (400, 402), "a_fn b_fn"),
                ("s", (400, 404), "a_fn b_fn"),
                ("c", (400, 403), "named"), ("s", (400, 401), "a_fn b_fn"),
                ("s", (400, 400), "a_fn b_fn")],
}


def ids(r):
    """The (pid, tid) of record r."""
    return r[1] if isinstance(r[1], tuple) else (r[1], r[1])


def attr_bytes(pipe):
    return struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", 0, 128, 0, 4000,
                       SAMPLE_TYPE, 0, ATTR_FLAGS, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0, 0, 0, 0, 0)[:128]


def sid(pid, tid, time):
    return struct.pack("<IIQ", pid, tid, time)


def data_records(recs):
    out = [record(REC_MMAP, MISC_KERNEL,
                  struct.pack("<IIQQQ", 0xffffffff, 0, BASE, 0x10000, BASE) +
                  pad8(b"[kernel.kallsyms]_text\0") + sid(0, 0, TIME0))]
    addr = {f: BASE + 0x100 * (i + 1) for i, f in enumerate(FNS)}
    for n, r in enumerate(recs):
        time = TIME0 + 1000 * (n + 1)
        if r[0] == "s":
            ips = [addr[f] + 0x10 for f in r[2].split()]
            chain = [CONTEXT_KERNEL] + ips
            body = struct.pack("<QIIQQ", ips[0], *ids(r), time, 1000)
            body += struct.pack("<Q%dQ" % len(chain), len(chain), *chain)
            out.append(record(REC_SAMPLE, MISC_KERNEL, body))
        elif r[0] == "c":
            misc = MISC_COMM_EXEC if len(r) > 3 else 0
            out.append(record(REC_COMM, misc,
                              struct.pack("<II", *ids(r)) +
                              pad8(r[2].encode() + b"\0") +
                              sid(*ids(r), time)))
        else:
            out.append(record(REC_FORK, 0,
                              struct.pack("<IIIIQ", r[1], r[2], r[1], r[2],
                                          time) + sid(r[1], r[1], time)))
    out.append(record(REC_FINISHED_ROUND, 0, b""))
    return b"".join(out)


def features(pipe):
    desc = struct.pack("<II", 1, 128) + attr_bytes(pipe) + \
        struct.pack("<I", 1) + string_feature("cycles") + \
        struct.pack("<Q", EVENT_ID)
    return [(3, string_feature("pd-comm-host")),
            (4, string_feature("6.1.0-pd-comm")),
            (5, string_feature("6.1.187")),
            (6, string_feature("x86_64")),
            (7, struct.pack("<II", 1, 1)),
            (12, desc)]


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: pd_comm_gen.py DIR")
    out = argv[1]
    for name, recs in CASES.items():
        with open(os.path.join(out, name + ".kallsyms"), "w") as f:
            f.write("%x T _text\n" % BASE)
            for i, fn in enumerate(FNS):
                f.write("%x T %s\n" % (BASE + 0x100 * (i + 1), fn))
            f.write("%x T _etext\n" % (BASE + 0x100 * (len(FNS) + 2)))
        data = data_records(recs)
        with open(os.path.join(out, name + ".perf.data"), "wb") as f:
            f.write(file_bytes([(attr_bytes(False), [EVENT_ID])], data,
                               features(False)))
        with open(os.path.join(out, name + ".pipe.data"), "wb") as f:
            f.write(pipe_bytes([(attr_bytes(True), [EVENT_ID])], data,
                               features(True)[:-1]))


if __name__ == "__main__":
    main(sys.argv)
