#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_cgroup_gen.py - write a capture whose samples carry cgroup ids
(PERF_SAMPLE_CGROUP) and whose PERF_RECORD_CGROUPs name them, as
`perf record --all-cgroups` writes:

    pd_cgroup_gen.py OUT

One event (cpu-clock, sample_type IP, TID, TIME, CPU, PERIOD,
CALLCHAIN, CGROUP: a user callchain of two or three frames), two
processes (100 "web", 200 "batch") with a code map each
(/opt/pd-cgroup/bin r-xp), CGROUP records for ids 1 ("/"), 0x2a
("/system.slice/web.service") and 0x2b ("/user.slice/batch-job"; given
twice, the second path different: perf keeps the first), one record
coming after the samples that use its id (0x2c, "/late.scope": perf
names a cgroup when it prints), and 40 samples over ids 1, 0x2a, 0x2b,
0x2c, 0x99 (no record: "unknown") and 0 (none: "N/A").  No binary
exists.  The bytes depend on nothing but this script.
"""

import struct
import sys

from pd_synth import cpu_clock_attr, one_event_main, pad8, record

# IP, TID, TIME, CPU, PERIOD, CALLCHAIN, CGROUP
SAMPLE_TYPE = 1 | 2 | 4 | (1 << 7) | (1 << 8) | (1 << 5) | (1 << 21)
CONTEXT_USER = (1 << 64) - 512
MISC_USER = 2
CGROUP = 19
IDS = [0x2a, 0x2a, 1, 0x2b, 0x2a, 0x2c, 0x99, 0]


def cgroup_rec(cid, path):
    return record(CGROUP, 0, struct.pack("<Q", cid) + pad8(path + b"\0"))


def data_records():
    recs = [cgroup_rec(1, b"/"),
            cgroup_rec(0x2a, b"/system.slice/web.service"),
            cgroup_rec(0x2b, b"/user.slice/batch-job"),
            cgroup_rec(0x2b, b"/user.slice/batch-job-renamed")]
    for pid, comm in ((100, b"web"), (200, b"batch")):
        recs.append(record(3, 0, struct.pack("<II", pid, pid) +
                           pad8(comm + b"\0")))
        body = struct.pack("<IIQQQIIQQII", pid, pid, 0x400000, 0x4000, 0,
                           8, 1, 77, 0, 5, 2)
        recs.append(record(10, MISC_USER, body +
                           pad8(b"/opt/pd-cgroup/bin\0")))
    for n in range(40):
        pid = 100 if n % 3 else 200
        ip = 0x401000 + 0x40 * (n % 4)
        chain = [CONTEXT_USER, ip, 0x402000] + ([] if n % 2 else [0x403000])
        body = struct.pack("<QIIQIIQQ%dQQ" % len(chain), ip, pid, pid,
                           3000000000 + 1000 * n, n % 2, 0, 1000 + 3 * n,
                           len(chain), *chain, IDS[n % len(IDS)])
        recs.append(record(9, MISC_USER, body))
    recs.append(cgroup_rec(0x2c, b"/late.scope"))
    recs.append(record(68, 0, b""))
    return b"".join(recs)


def main(argv):
    return one_event_main(argv, "pd_cgroup_gen.py", "pd-cgroup-host",
                          ["perf", "record", "--all-cgroups", "-g"],
                          cpu_clock_attr([], SAMPLE_TYPE), "cpu-clock",
                          data_records())


if __name__ == "__main__":
    sys.exit(main(sys.argv))
