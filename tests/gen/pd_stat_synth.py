#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_stat_synth.py - write `perf stat record` captures with hardware
events, laid out as perf 6.1 writes them, for hosts this VM is not; and
sampling captures of the same events (`perf record -e ...`).

    pd_stat_synth.py --list | --list-all | --list-sampled
    pd_stat_synth.py NAME OUT
    pd_stat_synth.py --list-sample
    pd_stat_synth.py --sample [--pipe|--stray] NAME ELF OUT [TRUTH.json]

This VM has no PMU, so perf cannot count cycles or instructions here; this
writes what `perf stat record` would have written on an Arm Neoverse N1
or V1, an Intel or an AMD host: the attrs (sample_type IDENTIFIER,
read_format TOTAL_TIME_ENABLED|RUNNING), EVENT_UPDATE (unit and scale of
the clocks), THREAD_MAP, CPU_MAP, STAT_CONFIG, one STAT per event, CPU and
thread, and STAT_ROUND; the features perf stat record writes that perf
stat report reads (command line, event descriptions, CPU topology, NUMA
nodes, PMU mappings, the STAT feature).  Counts are made up but
deterministic, multiplexed where a host has fewer counters than events
(enabled != running), cumulative over the intervals of an -I capture, as
the kernel reports them.

CAPTURES below is the specification; tests/golden/perf/stat-regen.sh has
perf 6.1 read each capture, and tests/cli/stat/ compare pdtool with it.

--sample writes SAMPLE_CAPTURES' sampling captures (sample_capture()):
hardware events sampled in the functions of ELF (a test binary, mapped
by its build-id as perf 5.12+ writes MMAP2), on two CPUs, either as
separate events each with its own period (`-e cycles,instructions -c
N`) or as one group whose leader samples and reads every member's
counter (`-e '{cycles,instructions}:S'`: PERF_SAMPLE_READ, read_format
GROUP|ID|LOST, members with no period, HEADER_GROUP_DESC).  Each
function has its own made-up rates per cycle (its IPC, its miss
rates), deterministic; TRUTH.json gets each function's count of each
event, which a group's read values give exactly.  --pipe writes the
same as perf record -o - streams it (HEADER_ATTR and HEADER_FEATURE
records first); --stray adds two samples whose read value names an id
no event has, which perf 6.1 counts as samples with id not present in
the header and leaves out.

SAMPLED are `perf record` captures of the same hosts' hardware events
(--list-sampled): SAMPLE records with IP, TID, TIME, ID, CPU and PERIOD
at a frequency of 4000 a second, or, for a group sampled on its leader
(-e '{a,b,...}:S'), READ with each member's cumulative count.
sampled_totals() is what they hold: each event's period sum, or a read
member's last value per counter summed.
"""

import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pd_synth import file_bytes, pad8, pipe_bytes, record, string_feature  # noqa: E402,E501

# perf_event_attr types and the generic events perf names
HW, SW, HW_CACHE = 0, 1, 3
GENERIC = {
    "cycles": (HW, 0), "instructions": (HW, 1),
    "cache-references": (HW, 2), "cache-misses": (HW, 3),
    "branches": (HW, 4), "branch-misses": (HW, 5),
    "stalled-cycles-frontend": (HW, 7), "stalled-cycles-backend": (HW, 8),
    "L1-dcache-loads": (HW_CACHE, 0x0), "L1-dcache-load-misses": (HW_CACHE, 0x10000),
    "L1-icache-loads": (HW_CACHE, 0x1), "L1-icache-load-misses": (HW_CACHE, 0x10001),
    "LLC-loads": (HW_CACHE, 0x2), "LLC-load-misses": (HW_CACHE, 0x10002),
    "dTLB-loads": (HW_CACHE, 0x3), "dTLB-load-misses": (HW_CACHE, 0x10003),
    "iTLB-loads": (HW_CACHE, 0x4), "iTLB-load-misses": (HW_CACHE, 0x10004),
    "task-clock": (SW, 1), "cpu-clock": (SW, 0),
    "context-switches": (SW, 3), "cpu-migrations": (SW, 4),
    "page-faults": (SW, 2),
}
# The architectural Arm PMUv3 event numbers (Arm ARM D17.10, and the
# Neoverse N1/V1 TRMs for the IMPLEMENTATION DEFINED 0x4xxx ones)
ARM = {
    "l1d_cache_refill": 0x03, "l1d_cache": 0x04, "inst_retired": 0x08,
    "br_mis_pred": 0x10, "cpu_cycles": 0x11, "br_pred": 0x12,
    "mem_access": 0x13, "l1i_cache": 0x14, "l2d_cache": 0x16,
    "l2d_cache_refill": 0x17, "br_retired": 0x21,
    "br_mis_pred_retired": 0x22, "stall_frontend": 0x23,
    "stall_backend": 0x24, "dtlb_walk": 0x34, "itlb_walk": 0x35,
    "l1d_cache_lmiss_rd": 0x39, "stall_backend_mem": 0x4005,
    "l2d_cache_lmiss_rd": 0x4009,
    "l1i_cache_refill": 0x01, "ll_cache_rd": 0x36, "ll_cache_miss_rd": 0x37,
    # PMUv3.5's slot events (Neoverse N2/V2/V3 TopdownL1)
    "op_retired": 0x3a, "op_spec": 0x3b, "stall_slot_backend": 0x3d,
    "stall_slot_frontend": 0x3e, "stall_slot": 0x3f,
}
ARM_PMU_TYPE = 8    # armv8_pmuv3_0, as PMU_MAPPINGS says
# The x86 core PMU ("cpu", type 4): Intel's slots and topdown metric
# pseudo-events (event 0x00, umask 0x04 and 0x80..0x87), AMD Zen 4's
# PipelineL1 events (event bits 7:0 and 11:8 at 35:32, umask 15:8)
X86_PMU_TYPE = 4
INTEL = {
    "slots": 0x0400, "topdown-retiring": 0x8000,
    "topdown-bad-spec": 0x8100, "topdown-fe-bound": 0x8200,
    "topdown-be-bound": 0x8300, "topdown-heavy-ops": 0x8400,
    "topdown-br-mispredict": 0x8500, "topdown-fetch-lat": 0x8600,
    "topdown-mem-bound": 0x8700,
}
AMD = {
    "ls_not_halted_cyc": 0x76, "ex_ret_ops": 0xc1,
    "de_src_op_disp.all": 0x07aa,
    "de_no_dispatch_per_slot.no_ops_from_frontend": 0x1000001a0,
    "de_no_dispatch_per_slot.backend_stalls": 0x100001ea0,
    "de_no_dispatch_per_slot.smt_contention": 0x1000060a0,
}

# attr flags perf stat record sets: disabled, inherit, exclude_guest; a
# workload's counters are also enable_on_exec
FLAGS_SYSTEM = (1 << 0) | (1 << 1) | (1 << 20)
FLAGS_TASK = FLAGS_SYSTEM | (1 << 12)

HOSTS = {
    "n1": {"arch": "aarch64", "desc": "", "cpuid": "0x00000000413fd0c1",
           "release": "5.15.0-1051-aws", "pmu": "armv8_pmuv3_0"},
    "v1": {"arch": "aarch64", "desc": "", "cpuid": "0x00000000411fd401",
           "release": "6.1.0-18-cloud-arm64", "pmu": "armv8_pmuv3_0"},
    # an N2 r0p0 (STALL_SLOT counts a slot too many each cycle before
    # r0p3) and a V2, each with its PMU's slots in PMU_CAPS
    "n2": {"arch": "aarch64", "desc": "", "cpuid": "0x00000000410fd490",
           "release": "6.8.0-1009-aws", "pmu": "armv8_pmuv3_0",
           "caps": {"slots": "0x00000005"}},
    "v2": {"arch": "aarch64", "desc": "", "cpuid": "0x00000000410fd4f1",
           "release": "6.8.0-1009-aws", "pmu": "armv8_pmuv3_0",
           "caps": {"slots": "0x00000008"}},
    "intel": {"arch": "x86_64",
              "desc": "Intel(R) Xeon(R) Platinum 8488C",
              "cpuid": "GenuineIntel,6,143,8", "release": "6.1.0-18-amd64",
              "pmu": "cpu"},
    "amd": {"arch": "x86_64", "desc": "AMD EPYC 9R14 96-Core Processor",
            "cpuid": "AuthenticAMD,25,17,1", "release": "6.1.0-18-amd64",
            "pmu": "cpu"},
}

# name: host, events, CPUs (None: a workload's counters, not -a),
# sockets, aggregation mode as saved (perf 6.1 numbering: 0 none, 1
# global, 2 socket, 3 die, 4 core, 5 thread), intervals (0: one final
# round), hardware counters (more events than this are multiplexed),
# the command perf ran
CAPTURES = {
    "n1-global": dict(host="n1", cpus=4, sockets=1, aggr=1, intervals=0,
                      counters=6, events=[
                          "task-clock", "cycles", "instructions",
                          "cpu_cycles", "inst_retired", "stall_frontend",
                          "stall_backend", "br_retired",
                          "br_mis_pred_retired", "br_pred", "br_mis_pred",
                          "l1d_cache", "l1d_cache_refill", "l2d_cache",
                          "l2d_cache_refill", "mem_access", "dtlb_walk",
                          "l1i_cache", "itlb_walk"]),
    "v1-cpu": dict(host="v1", cpus=2, sockets=1, aggr=0, intervals=0,
                   counters=3, events=[
                       "cpu-clock", "cpu_cycles", "inst_retired",
                       "stall_frontend", "stall_backend",
                       "stall_backend_mem", "l1d_cache",
                       "l1d_cache_refill", "l1d_cache_lmiss_rd",
                       "l2d_cache_refill", "l2d_cache_lmiss_rd",
                       "br_mis_pred_retired", "br_retired"]),
    "intel-task": dict(host="intel", cpus=None, sockets=2, aggr=1,
                       intervals=0, counters=8, events=[
                           "task-clock", "context-switches",
                           "cpu-migrations", "page-faults", "cycles",
                           "instructions", "branches", "branch-misses",
                           "cache-references", "cache-misses",
                           "L1-dcache-loads", "L1-dcache-load-misses",
                           "LLC-loads", "LLC-load-misses", "dTLB-loads",
                           "dTLB-load-misses", "iTLB-loads",
                           "iTLB-load-misses"]),
    "intel-socket": dict(host="intel", cpus=4, sockets=2, aggr=2,
                         intervals=0, counters=4, events=[
                             "cpu-clock", "cycles", "instructions",
                             "branches", "branch-misses",
                             "cache-references", "cache-misses"]),
    "amd-interval": dict(host="amd", cpus=2, sockets=1, aggr=1,
                         intervals=3, counters=6, events=[
                             "cpu-clock", "cycles", "instructions",
                             "stalled-cycles-frontend",
                             "stalled-cycles-backend", "branches",
                             "branch-misses", "L1-icache-loads",
                             "L1-icache-load-misses"]),
    "n2-topdown": dict(host="n2", cpus=4, sockets=1, aggr=1, intervals=0,
                       counters=6, events=[
                           "task-clock", "cpu_cycles", "inst_retired",
                           "stall_slot_frontend", "stall_slot_backend",
                           "stall_slot", "op_retired", "op_spec",
                           "br_mis_pred", "br_retired",
                           "br_mis_pred_retired", "stall_frontend",
                           "stall_backend"], shared_busy=True),
    "v2-topdown": dict(host="v2", cpus=2, sockets=1, aggr=0, intervals=0,
                       counters=6, events=[
                           "cpu-clock", "cpu_cycles", "inst_retired",
                           "stall_slot_frontend", "stall_slot_backend",
                           "stall_slot", "op_retired", "op_spec",
                           "l1d_cache", "l1d_cache_refill"],
                       shared_busy=True),
    "intel-topdown": dict(host="intel", cpus=4, sockets=2, aggr=1,
                          intervals=0, counters=12, events=[
                              "cpu-clock", "cycles", "instructions",
                              "slots", "topdown-retiring",
                              "topdown-bad-spec", "topdown-fe-bound",
                              "topdown-be-bound", "topdown-heavy-ops",
                              "topdown-br-mispredict",
                              "topdown-fetch-lat", "topdown-mem-bound"],
                          shared_busy=True),
    "amd-pipeline": dict(host="amd", cpus=2, sockets=1, aggr=1,
                         intervals=0, counters=6, events=[
                             "task-clock", "ls_not_halted_cyc",
                             "ex_ret_ops", "de_src_op_disp.all",
                             "de_no_dispatch_per_slot.no_ops_from_frontend",
                             "de_no_dispatch_per_slot.backend_stalls",
                             "de_no_dispatch_per_slot.smt_contention",
                             "branches", "branch-misses"],
                         shared_busy=True),
}
# the N2 capture as a perf before 6.2 writes it: no PMU_CAPS, so no
# slots per cycle to compute TopdownL1 with
HOSTS["n2-nocaps"] = {k: v for k, v in HOSTS["n2"].items() if k != "caps"}
CAPTURES["n2-nocaps"] = dict(CAPTURES["n2-topdown"], host="n2-nocaps",
                             seed="n2-topdown")
# perf 6.8 and later: the saved aggregation mode in the new numbering (6
# is AGGR_CORE there, 4 before), the AGGR_LEVEL term after it, and a
# VERSION to tell them by; the counts are n1-global's, so that reading it
# right gives what perf 6.1 prints for n1-global --per-core.  perf 6.1
# cannot read it right ("unknown stat config term 3"): no perf golden.
CAPTURES["n1-perf7"] = dict(CAPTURES["n1-global"], aggr=6, level=True,
                            version="6.12.0", seed="n1-global")

WALL_NS = 1_000_000_000       # a second of work
INTERVAL_NS = 100_000_000     # -I 100


class Rng:
    """xorshift64*: the same numbers on every host"""

    def __init__(self, seed):
        self.s = seed or 1

    def next(self):
        self.s ^= (self.s >> 12)
        self.s ^= (self.s << 25) & 0xffffffffffffffff
        self.s ^= (self.s >> 27)
        return (self.s * 0x2545F4914F6CDD1D) & 0xffffffffffffffff

    def frac(self):
        return (self.next() >> 11) / float(1 << 53)


def event_attr(name, host):
    if name in GENERIC:
        return GENERIC[name]
    if name in INTEL:
        return X86_PMU_TYPE, INTEL[name]
    if name in AMD:
        return X86_PMU_TYPE, AMD[name]
    return ARM_PMU_TYPE, ARM[name]


# how many of each event a CPU counts in a second of a busy loop
RATE = {
    "cycles": 2.6e9, "cpu_cycles": 2.6e9, "instructions": 4.1e9,
    "inst_retired": 4.1e9, "stall_frontend": 0.31e9,
    "stall_backend": 0.93e9, "stall_backend_mem": 0.52e9,
    "stalled-cycles-frontend": 0.28e9, "stalled-cycles-backend": 0.77e9,
    "branches": 0.82e9, "br_retired": 0.82e9, "br_pred": 0.97e9,
    "branch-misses": 0.011e9, "br_mis_pred_retired": 0.012e9,
    "br_mis_pred": 0.019e9, "cache-references": 0.09e9,
    "cache-misses": 0.013e9, "l1d_cache": 1.6e9, "L1-dcache-loads": 1.4e9,
    "l1d_cache_refill": 0.11e9, "L1-dcache-load-misses": 0.09e9,
    "l1d_cache_lmiss_rd": 0.046e9, "l2d_cache": 0.21e9,
    "l2d_cache_refill": 0.031e9, "l2d_cache_lmiss_rd": 0.009e9,
    "LLC-loads": 0.021e9, "LLC-load-misses": 0.004e9,
    "mem_access": 1.7e9, "dtlb_walk": 0.0061e9, "dTLB-loads": 1.4e9,
    "dTLB-load-misses": 0.0021e9, "l1i_cache": 1.2e9, "itlb_walk": 0.0007e9,
    "iTLB-loads": 0.0011e9, "iTLB-load-misses": 0.0002e9,
    "l1i_cache_refill": 0.015e9, "ll_cache_rd": 0.025e9,
    "ll_cache_miss_rd": 0.006e9,
    "L1-icache-loads": 1.1e9, "L1-icache-load-misses": 0.013e9,
    "context-switches": 210, "cpu-migrations": 7, "page-faults": 1900,
    # ns a CPU counts in a second (stat captures compute the clocks
    # from their enabled time instead)
    "task-clock": 1e9,
    "op_retired": 4.4e9, "op_spec": 5.1e9,
    "slots": 2.6e9 * 6, "topdown-retiring": 2.6e9 * 6 * 0.41,
    "topdown-bad-spec": 2.6e9 * 6 * 0.09,
    "topdown-fe-bound": 2.6e9 * 6 * 0.18,
    "topdown-be-bound": 2.6e9 * 6 * 0.32,
    "topdown-heavy-ops": 2.6e9 * 6 * 0.07,
    "topdown-br-mispredict": 2.6e9 * 6 * 0.06,
    "topdown-fetch-lat": 2.6e9 * 6 * 0.11,
    "topdown-mem-bound": 2.6e9 * 6 * 0.19,
    "ls_not_halted_cyc": 2.6e9, "ex_ret_ops": 2.6e9 * 6 * 0.36,
    "de_src_op_disp.all": 2.6e9 * 6 * 0.44,
    "de_no_dispatch_per_slot.no_ops_from_frontend": 2.6e9 * 6 * 0.21,
    "de_no_dispatch_per_slot.backend_stalls": 2.6e9 * 6 * 0.29,
    "de_no_dispatch_per_slot.smt_contention": 2.6e9 * 6 * 0.04,
}


# slot-based Arm events: slots per cycle times cycles times the share; an
# N2 before r0p3 counts one more slot a cycle in STALL_SLOT and
# STALL_SLOT_FRONTEND (the erratum perf's N2 metrics correct for)
RATE_HOST = {
    "n2": {"stall_slot_frontend": 2.6e9 * (5 * 0.17 + 1),
           "stall_slot_backend": 2.6e9 * 5 * 0.38,
           "stall_slot": 2.6e9 * (5 * 0.55 + 1)},
    "v2": {"stall_slot_frontend": 2.6e9 * 8 * 0.17,
           "stall_slot_backend": 2.6e9 * 8 * 0.38,
           "stall_slot": 2.6e9 * 8 * 0.55},
}

RATE_HOST["n2-nocaps"] = RATE_HOST["n2"]


def rate(name, host):
    return RATE_HOST.get(host, {}).get(name, RATE.get(name))


def counts(spec, rng):
    """[round][event][cpu] -> (val, ena, run), cumulative"""
    ncpu = spec["cpus"] or 1
    nev = len(spec["events"])
    rounds = spec["intervals"] or 1
    span = INTERVAL_NS if spec["intervals"] else WALL_NS
    hw = [i for i, e in enumerate(spec["events"])
          if event_attr(e, spec["host"])[0] not in (SW,)]
    out = []
    cum = [[(0, 0, 0)] * ncpu for _ in range(nev)]
    for r in range(rounds):
        this = []
        shared = [0.55 + 0.4 * rng.frac() for _ in range(ncpu)] \
            if spec.get("shared_busy") else []
        for i, name in enumerate(spec["events"]):
            row = []
            for c in range(ncpu):
                if spec.get("shared_busy"):
                    # one load per CPU and round for every event, so
                    # that the events' ratios stay those of RATE
                    busy = shared[c]
                else:
                    busy = 0.55 + 0.4 * rng.frac()
                ena = int(span * (0.97 + 0.03 * rng.frac()))
                run = ena
                if i in hw and len(hw) > spec["counters"]:
                    # round robin over the counters: each event gets its
                    # share of the time
                    run = int(ena * spec["counters"] / len(hw) *
                              (0.9 + 0.2 * rng.frac()))
                    run = min(run, ena)
                if name in ("task-clock", "cpu-clock"):
                    val = int(ena * busy)
                else:
                    val = int(rate(name, spec["host"]) * busy * run / 1e9 *
                              (0.9 + 0.2 * rng.frac()))
                pv, pe, pr = cum[i][c]
                cum[i][c] = (pv + val, pe + ena, pr + run)
                row.append(cum[i][c])
            this.append(row)
        out.append(this)
    return out


def attr_bytes(type_, config, flags):
    return struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", type_, 128, config, 0,
                       1 << 16, 3, flags, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0, 0)[:128]


def capture(name):
    spec = CAPTURES[name]
    host = HOSTS[spec["host"]]
    seed = spec.get("seed", name)
    rng = Rng(sum(map(ord, seed)) * 0x9E3779B97F4A7C15 & 0xffffffffffffffff)
    ncpu = spec["cpus"] or 1
    cpu_list = list(range(spec["cpus"])) if spec["cpus"] else [-1]
    flags = FLAGS_SYSTEM if spec["cpus"] else FLAGS_TASK
    pid = 4242
    ids, events = [], []
    next_id = 100
    for ev in spec["events"]:
        t, c = event_attr(ev, spec["host"])
        ev_ids = list(range(next_id, next_id + ncpu))
        next_id += ncpu
        ids.append(ev_ids)
        events.append((attr_bytes(t, c, flags), ev_ids))

    recs = []
    for i, ev in enumerate(spec["events"]):
        if ev in ("task-clock", "cpu-clock"):
            recs.append(record(78, 0, struct.pack("<QQ", 0, ids[i][0]) +
                               b"msec\0\0\0\0"))
            recs.append(record(78, 0, struct.pack("<QQd", 1, ids[i][0],
                                                  1e-6)))
    thread_pid = -1 if spec["cpus"] else pid
    recs.append(record(73, 0, struct.pack("<Qq", 1, thread_pid) +
                       bytes(16)))
    if spec["cpus"]:
        # perf 6.1's RANGE form: type 2, any_cpu, pad, start, end
        recs.append(record(74, 0, struct.pack("<HBBHH", 2, 0, 0, 0,
                                              spec["cpus"] - 1)))
    else:
        recs.append(record(74, 0, struct.pack("<HHh", 0, 1, -1) +
                           bytes(2)))
    terms = [0, spec["aggr"], 1,
             INTERVAL_NS // 1000000 if spec["intervals"] else 0, 2, 1]
    if spec.get("level"):
        terms += [3, 0]
    recs.append(record(75, 0, struct.pack("<Q", len(terms) // 2) +
                       struct.pack("<%dQ" % len(terms), *terms)))
    data = counts(spec, rng)
    for r, rnd in enumerate(data):
        for c in range(ncpu):
            for i in range(len(spec["events"])):
                val, ena, run = rnd[i][c]
                recs.append(record(76, 0, struct.pack(
                    "<QIIQQQ", ids[i][c], cpu_list[c] & 0xffffffff, 0,
                    val, ena, run)))
        if spec["intervals"]:
            recs.append(record(77, 0, struct.pack(
                "<QQ", 0, (r + 1) * INTERVAL_NS + 1234567)))
    if not spec["intervals"]:
        recs.append(record(77, 0, struct.pack("<QQ", 1,
                                              WALL_NS + 3456789)))

    return file_bytes(events, b"".join(recs), features(spec, host, ids))


def features(spec, host, ids, cmd_args=None, attr_of=None):
    """the feature sections; cmd_args (None: perf stat record's) and
    attr_of(i) (None: perf stat's attrs) for a perf record capture"""
    ncpu = spec["cpus"] or 4
    per_socket = max(1, ncpu // spec["sockets"])
    stat_args = cmd_args is None
    cmd_args = cmd_args or ["/usr/bin/perf", "stat", "record", "-o",
                            "stat.data"]
    if spec["cpus"] and stat_args:
        cmd_args.append("-a")
        if spec["aggr"] == 0:
            cmd_args.append("-A")
        if spec["aggr"] == 2:
            cmd_args.append("--per-socket")
        if spec.get("level") and spec["aggr"] == 6:
            cmd_args.append("--per-core")
    if spec["intervals"]:
        cmd_args += ["-I", str(INTERVAL_NS // 1000000)]
    if stat_args:
        cmd_args += ["-e", ",".join(spec["events"]), "--", "./work"]
    cmd = struct.pack("<I", len(cmd_args))
    for arg in cmd_args:
        cmd += string_feature(arg)
    desc = struct.pack("<II", len(spec["events"]), 128)
    flags = FLAGS_SYSTEM if spec["cpus"] else FLAGS_TASK
    for i, ev in enumerate(spec["events"]):
        t, c = event_attr(ev, spec["host"])
        desc += attr_of(i) if attr_of else attr_bytes(t, c, flags)
        desc += struct.pack("<I", len(ids[i]))
        desc += string_feature(ev)
        desc += struct.pack("<%dQ" % len(ids[i]), *ids[i])
    sockets = [",".join(str(c) for c in range(s * per_socket,
                                              (s + 1) * per_socket))
               for s in range(spec["sockets"])]
    topo = struct.pack("<I", len(sockets))
    for s in sockets:
        topo += string_feature(s)
    topo += struct.pack("<I", ncpu)
    for c in range(ncpu):
        topo += string_feature(str(c))
    for c in range(ncpu):
        topo += struct.pack("<II", c % per_socket, c // per_socket)
    topo += struct.pack("<I", len(sockets))
    for s in sockets:
        topo += string_feature(s)
    for c in range(ncpu):
        topo += struct.pack("<I", 0)
    numa = struct.pack("<I", spec["sockets"])
    for s in range(spec["sockets"]):
        numa += struct.pack("<IQQ", s, 64 << 20, 32 << 20)
        numa += string_feature("%d-%d" % (s * per_socket,
                                           (s + 1) * per_socket - 1))
    pmus = [(1, "software"), (2, "tracepoint"), (5, "breakpoint")]
    if host["arch"] == "aarch64":
        pmus.append((ARM_PMU_TYPE, host["pmu"]))
    else:
        pmus.append((X86_PMU_TYPE, "cpu"))
    pmu = struct.pack("<I", len(pmus))
    for t, n in pmus:
        pmu += struct.pack("<I", t) + string_feature(n)
    feats = [
        (3, string_feature("synth-" + spec["host"])),
        (4, string_feature(host["release"])),
        (5, string_feature(spec.get("version", "6.1.187"))),
        (6, string_feature(host["arch"])),
        (7, struct.pack("<II", ncpu, ncpu)),
    ]
    if host["desc"]:
        feats.append((8, string_feature(host["desc"])))
    feats += [
        (9, string_feature(host["cpuid"])),
        (10, struct.pack("<Q", 64 << 20)),
        (11, cmd),
        (12, desc),
        (13, topo),
        (14, numa),
        (16, pmu),
        (19, b""),
    ]
    if host.get("caps"):
        # PMU_CAPS (31) as perf 6.2 and later write it: nr PMUs, then
        # per PMU nr caps, its "name" "value" strings and the PMU's name
        caps = struct.pack("<II", 1, len(host["caps"]))
        for k, v in sorted(host["caps"].items()):
            caps += string_feature(k) + string_feature(v)
        caps += string_feature(host["pmu"])
        feats.append((31, caps))
    return feats


# ---- sampling captures ---------------------------------------------------

# name: host, binary's functions (sym+offset samples land at), the events
# ("group": one :S group, leader first; else separate events, each its
# own counter's reader with "read": `-e cycles:S,instructions:S`),
# samples of the first event per CPU
SAMPLE_CAPTURES = {
    "intel-sep": dict(host="intel", group=False, samples=400, funcs=[
        "hash_block", "mix", "walk", "worker", "sum_squares"], events=[
            "cycles", "instructions", "branches", "branch-misses",
            "cache-references", "cache-misses"]),
    "intel-group": dict(host="intel", group=True, samples=300, funcs=[
        "hash_block", "mix", "walk", "worker", "sum_squares"], events=[
            "cycles", "instructions", "branches", "branch-misses",
            "cache-references", "cache-misses", "L1-dcache-loads",
            "L1-dcache-load-misses"]),
    "intel-lone": dict(host="intel", group=False, read=True, samples=300,
                       funcs=["hash_block", "mix", "walk", "worker"],
                       events=["cycles", "instructions", "branches",
                               "branch-misses"]),
    "n1-sep": dict(host="n1", group=False, samples=400, funcs=[
        "checksum", "fill", "main"], events=[
            "cpu_cycles", "inst_retired", "br_retired",
            "br_mis_pred_retired", "l1d_cache", "l1d_cache_refill"]),
    "n1-group": dict(host="n1", group=True, samples=300, funcs=[
        "checksum", "fill", "main"], events=[
            "cpu_cycles", "inst_retired", "l1d_cache", "l1d_cache_refill",
            "br_retired", "br_mis_pred_retired", "ll_cache_rd",
            "ll_cache_miss_rd", "l1i_cache", "l1i_cache_refill"]),
}

SAMPLE_PID = 5151
SAMPLE_BASE = 0x555555554000 // 0x1000 * 0x1000
SAMPLE_TIME0 = 7_000_000_000
KERNEL_TEXT = 0xffffffff81000000   # tests/golden/fold/kallsyms' _text
# IDENTIFIER IP TID TIME CPU PERIOD (+ READ in a group)
S_IP, S_TID, S_TIME, S_CPU, S_PERIOD, S_READ, S_IDENT = \
    1, 2, 4, 128, 256, 16, 1 << 16
FMT_ID, FMT_GROUP, FMT_LOST = 4, 8, 16
FEAT_GROUP_DESC = 17
FLAG_BITS = {"disabled": 0, "inherit": 1, "mmap": 8, "comm": 9,
             "sample_id_all": 18, "exclude_guest": 20, "mmap2": 23,
             "comm_exec": 24}


def sample_attr(type_, config, period, stype, rfmt, flags):
    bits = 0
    for f in flags:
        bits |= 1 << FLAG_BITS[f]
    return struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", type_, 128, config,
                       period, stype, rfmt, bits, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0, 0, 0, 0, 0)[:128]


STRAY_ID = 999999


def sample_capture(name, elf_path, pipe=False, stray=False):
    import pd_arch_synth    # noqa: E402 (its ELF reader)

    spec = SAMPLE_CAPTURES[name]
    host = HOSTS[spec["host"]]
    rng = Rng(sum(map(ord, name)) * 0x9E3779B97F4A7C15 &
              0xffffffffffffffff)
    elf = pd_arch_synth.Elf(open(elf_path, "rb").read())
    syms = dict(elf.symbols())
    text = [p for p in elf.phdrs() if p[0] == 1 and p[1] & 1]
    _, _, offset, vaddr, _, memsz = text[0]
    page = 0x1000
    start = SAMPLE_BASE + (vaddr & ~(page - 1))
    pgoff = offset & ~(page - 1)
    length = (vaddr + memsz - (vaddr & ~(page - 1)) + page - 1) & \
        ~(page - 1)
    bid = elf.build_id()
    events = spec["events"]
    ncpu = 2
    lead = events[0]
    # each function's rate of each event per cycle: the host's, scaled
    # by a factor of its own (0.3..1.7), its time share 1..3
    funcs = spec["funcs"]
    share = [1 + 2 * rng.frac() for _ in funcs]
    per_cycle = [{e: rate(e, spec["host"]) / rate(lead, spec["host"]) *
                  (0.3 + 1.4 * rng.frac()) if e != lead else 1.0
                  for e in events} for _ in funcs]
    for k in range(len(funcs)):
        # a miss is one of its references: at most all of them
        for num, den in (("branch-misses", "branches"),
                         ("cache-misses", "cache-references"),
                         ("L1-dcache-load-misses", "L1-dcache-loads"),
                         ("br_mis_pred_retired", "br_retired"),
                         ("l1d_cache_refill", "l1d_cache"),
                         ("ll_cache_miss_rd", "ll_cache_rd"),
                         ("l1i_cache_refill", "l1i_cache")):
            if num in events and den in events:
                per_cycle[k][num] = min(per_cycle[k][num],
                                        per_cycle[k][den])
    ip_of = []
    for f in funcs:
        if f not in syms:
            raise SystemExit("pd_stat_synth.py: no symbol %s in %s" %
                             (f, elf_path))
        ip_of.append(start + syms[f] - (vaddr & ~(page - 1)))
    lead_period = 100003
    periods = {e: 0 if spec["group"] and e != lead else
               max(1, int(lead_period * rate(e, spec["host"]) /
                          rate(lead, spec["host"])))
               for e in events}
    stype = S_IDENT | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD
    rfmt = 0
    lone = spec.get("read", False)
    if spec["group"]:
        stype |= S_READ
        rfmt = FMT_ID | FMT_GROUP | FMT_LOST
    elif lone:
        stype |= S_READ
        rfmt = FMT_ID | FMT_LOST
    ids = [[1000 + 10 * i + c for c in range(ncpu)]
           for i in range(len(events))]
    attrs = []
    for i, e in enumerate(events):
        t, c = event_attr(e, spec["host"])
        flags = ["disabled", "sample_id_all", "exclude_guest"]
        if not spec["group"] and not lone:
            flags.append("inherit")
        if i == 0:
            flags += ["mmap", "comm", "mmap2", "comm_exec"]
        attrs.append(sample_attr(t, c, periods[e], stype, rfmt, flags))

    def trailer(time, cpu):
        return struct.pack("<IIQIIQ", SAMPLE_PID, SAMPLE_PID, time, cpu, 0,
                           ids[0][cpu])

    recs = [record(3, 0, struct.pack("<II", SAMPLE_PID, SAMPLE_PID) +
                   pad8(b"work\0") + trailer(SAMPLE_TIME0, 0))]
    # the kernel map as perf record writes it first (pid -1), relocated
    # by _text: without it perf warns that kernel maps were restricted
    recs.append(record(1, 1, struct.pack(
        "<IIQQQ", 0xffffffff, 0, KERNEL_TEXT, 0x1000000, KERNEL_TEXT) +
        pad8(b"[kernel.kallsyms]_text\0") + trailer(SAMPLE_TIME0, 0)))
    body = struct.pack("<IIQQQBBH20sII", SAMPLE_PID, SAMPLE_PID, start,
                       length, pgoff, len(bid), 0, 0, bid, 5, 2)
    body += pad8(b"/opt/work/bin/work\0") + trailer(SAMPLE_TIME0 + 1, 0)
    recs.append(record(10, 2 | (1 << 14), body))
    # the samples: (time, cpu, event index, function), the truth: each
    # function's count of each event
    truth = {f: {e: 0 for e in events} for f in funcs}
    todo = []
    weights = [s / sum(share) for s in share]
    if spec["group"]:
        for c in range(ncpu):
            for n in range(spec["samples"]):
                k = pick(rng, weights)
                todo.append((SAMPLE_TIME0 + 10 + n * 1000 + c, c, 0, k))
    else:
        for i, e in enumerate(events):
            for c in range(ncpu):
                # each event's samples follow the function's count of it
                for k, f in enumerate(funcs):
                    want = spec["samples"] * weights[k] * \
                        per_cycle[k][e] * lead_period / periods[e]
                    for _ in range(int(want + rng.frac())):
                        t = SAMPLE_TIME0 + 10 + \
                            int(rng.frac() * spec["samples"] * 1000)
                        todo.append((t, c, i, k))
    todo.sort()
    values = [[0] * len(events) for _ in range(ncpu)]
    for t, c, i, k in todo:
        ip = ip_of[k] + 4 * (1 + int(rng.frac() * 6))
        sample = struct.pack("<QQIIQIIQ", ids[i][c], ip, SAMPLE_PID,
                             SAMPLE_PID, t, c, 0, periods[events[i]])
        if spec["group"]:
            sample += struct.pack("<Q", len(events))
            for j, e in enumerate(events):
                # the counters moved by the function's rates over the
                # leader's period, each jittered
                step = lead_period if j == 0 else \
                    int(lead_period * per_cycle[k][e] *
                        (0.8 + 0.4 * rng.frac()))
                if j and events[j - 1] in ("branches", "cache-references",
                                           "L1-dcache-loads", "br_retired",
                                           "l1d_cache", "ll_cache_rd",
                                           "l1i_cache"):
                    step = min(step, last_step)
                last_step = step
                values[c][j] += step
                truth[funcs[k]][e] += step
                sample += struct.pack("<QQQ", values[c][j], ids[j][c], 0)
        elif lone:
            # the counter's count since its previous sample: the period,
            # and the periods of samples in between the kernel could not
            # write (a full buffer), which perf 6.1 counts here
            step = periods[events[i]] * (1 + (int(rng.frac() * 3)
                                              if rng.frac() < 0.3 else 0))
            values[c][i] += step
            truth[funcs[k]][events[i]] += step
            sample += struct.pack("<QQQ", values[c][i], ids[i][c], 0)
        else:
            truth[funcs[k]][events[i]] += periods[events[i]]
        recs.append(record(9, 2, sample))
    if stray:
        # --stray: two samples of the first event whose read value names
        # an id no event has (perf 6.1: "2 samples with id not present
        # in the header", and neither counted)
        if not (spec["group"] or lone):
            raise SystemExit("pd_stat_synth.py: --stray needs read values")
        t = todo[-1][0]
        for n in range(2):
            sample = struct.pack("<QQIIQIIQ", ids[0][0], ip_of[0],
                                 SAMPLE_PID, SAMPLE_PID, t + 1 + n, 0, 0,
                                 periods[events[0]])
            if spec["group"]:
                sample += struct.pack("<Q", 1)
            sample += struct.pack("<QQQ", 1 << 40, STRAY_ID, 0)
            recs.append(record(9, 2, sample))
    recs.append(record(68, 0, b""))

    cmd_args = ["/usr/bin/perf", "record", "-a", "-e",
                ("{%s}:S" if spec["group"] else "%s") %
                ",".join(e + ":S" if lone else e for e in events)]
    if not spec["group"]:
        cmd_args[-1:-1] = []
    cmd_args += ["--", "./work"]
    cmd = struct.pack("<I", len(cmd_args))
    for arg in cmd_args:
        cmd += string_feature(arg)
    desc = struct.pack("<II", len(events), 128)
    for i, e in enumerate(events):
        desc += attrs[i] + struct.pack("<I", len(ids[i]))
        desc += string_feature(e)
        desc += struct.pack("<%dQ" % len(ids[i]), *ids[i])
    pmus = [(1, "software"), (2, "tracepoint"), (5, "breakpoint")]
    pmus.append((ARM_PMU_TYPE, host["pmu"]) if host["arch"] == "aarch64"
                else (X86_PMU_TYPE, "cpu"))
    pmu = struct.pack("<I", len(pmus))
    for t, n in pmus:
        pmu += struct.pack("<I", t) + string_feature(n)
    feats = [(3, string_feature("synth-" + spec["host"])),
             (4, string_feature(host["release"])),
             (5, string_feature("6.1.187")),
             (6, string_feature(host["arch"])),
             (7, struct.pack("<II", ncpu, ncpu))]
    if host["desc"]:
        feats.append((8, string_feature(host["desc"])))
    feats += [(9, string_feature(host["cpuid"])),
              (10, struct.pack("<Q", 64 << 20)),
              (11, cmd), (12, desc), (16, pmu)]
    if spec["group"]:
        feats.append((FEAT_GROUP_DESC, struct.pack("<I", 1) +
                      string_feature("{anon_group}") +
                      struct.pack("<II", 0, len(events))))
    data = (pipe_bytes if pipe else file_bytes)(list(zip(attrs, ids)),
                                                b"".join(recs), feats)
    return data, {"events": events, "group": spec["group"], "read": lone,
                  "functions": truth}


def pick(rng, weights):
    x = rng.frac()
    for k, w in enumerate(weights):
        if x < w:
            return k
        x -= w
    return len(weights) - 1


# name: host, CPUs the samples come from, events, group: the events are
# one group sampled on its leader (PERF_SAMPLE_READ), samples per CPU and
# event (group: per CPU)
SAMPLED = {
    "n1-sampled": dict(host="n1", cpus=2, samples=150, events=[
        "cpu_cycles", "inst_retired", "stall_frontend", "stall_backend",
        "br_retired", "br_mis_pred_retired", "l1d_cache",
        "l1d_cache_refill"]),
    "v1-group": dict(host="v1", cpus=2, samples=120, group=True, events=[
        "cpu_cycles", "inst_retired", "stall_backend",
        "stall_backend_mem", "l2d_cache", "l2d_cache_refill"]),
    "n2-sampled": dict(host="n2", cpus=1, samples=200, events=[
        "cpu_cycles", "stall_slot_frontend", "stall_slot_backend",
        "stall_slot", "op_retired", "op_spec"]),
    "intel-sampled": dict(host="intel", cpus=2, samples=100, events=[
        "cycles", "instructions", "branches", "branch-misses",
        "dTLB-loads", "dTLB-load-misses"]),
    # perf stat's default events on x86, sampled: its metrics (CPUs
    # utilized, GHz, insn per cycle, stalled cycles, miss ratios) from
    # the samples
    "x86-default": dict(host="intel", cpus=2, samples=100, events=[
        "task-clock", "cycles", "instructions", "stalled-cycles-frontend",
        "stalled-cycles-backend", "branches", "branch-misses",
        "cache-references", "cache-misses"]),
    "amd-group": dict(host="amd", cpus=1, samples=90, group=True, events=[
        "ls_not_halted_cyc", "ex_ret_ops", "de_src_op_disp.all",
        "de_no_dispatch_per_slot.no_ops_from_frontend",
        "de_no_dispatch_per_slot.backend_stalls"]),
}

SAMPLE_FREQ = 4000
# IP TID TIME ID CPU PERIOD IDENTIFIER, and READ for a group
SAMPLE_TYPE = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 6) | (1 << 7) | \
    (1 << 8) | (1 << 16)
SAMPLE_READ = 1 << 4
READ_GROUP_ID = (1 << 3) | (1 << 2)
# disabled inherit mmap comm freq enable_on_exec sample_id_all
# exclude_guest mmap2 comm_exec; a sampled group is not inherited
FLAGS_RECORD = (1 << 0) | (1 << 1) | (1 << 8) | (1 << 9) | (1 << 10) | \
    (1 << 12) | (1 << 18) | (1 << 20) | (1 << 23) | (1 << 24)


def sampled_attr(spec, i):
    t, c = event_attr(spec["events"][i], spec["host"])
    st, rf, fl, freq = SAMPLE_TYPE, 0, FLAGS_RECORD, SAMPLE_FREQ
    if spec.get("group"):
        st |= SAMPLE_READ
        rf = READ_GROUP_ID
        fl &= ~(1 << 1)
        if i:
            # perf 6.1 evsel__config_leader_sampling(): members do not
            # sample, and only the leader is enabled on exec
            freq, fl = 0, fl & ~((1 << 0) | (1 << 12) | (1 << 10))
    return struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", t, 128, c, freq, st, rf,
                       fl, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       0)[:128]


def sampled_samples(name):
    """[(cpu, event index, time, period, [(id, value)] or None, id)] in
    time order, and the events' ids [event][cpu]"""
    spec = SAMPLED[name]
    rng = Rng(sum(map(ord, name)) * 0x9E3779B97F4A7C15 & 0xffffffffffffffff)
    ncpu, nev = spec["cpus"], len(spec["events"])
    ids = [[1000 + e * ncpu + c for c in range(ncpu)] for e in range(nev)]
    out = []
    for c in range(ncpu):
        busy = 0.55 + 0.4 * rng.frac()
        sampled = [0] if spec.get("group") else range(nev)
        cum = [0] * nev
        for e in sampled:
            t = 5_000_000_000 + c * 1000
            for k in range(spec["samples"]):
                t += WALL_NS // SAMPLE_FREQ + int(1000 * rng.frac())
                # the kernel's frequency loop: periods near rate / freq
                period = max(1, int(rate(spec["events"][e], spec["host"]) *
                                    busy / SAMPLE_FREQ *
                                    (0.8 + 0.4 * rng.frac())))
                reads = None
                if spec.get("group"):
                    for m in range(nev):
                        cum[m] += period if m == 0 else int(
                            period * rate(spec["events"][m], spec["host"]) /
                            rate(spec["events"][0], spec["host"]) *
                            (0.9 + 0.2 * rng.frac()))
                    reads = [(ids[m][c], cum[m]) for m in range(nev)]
                out.append((c, e, t, period, reads, ids[e][c]))
    out.sort(key=lambda s: (s[2], s[0], s[1]))
    return out, ids


def sampled_totals(name):
    """event name -> the count the capture holds: the period sum, or for
    a read group member the last value of each of its counters summed"""
    spec = SAMPLED[name]
    samples, _ = sampled_samples(name)
    tot = {e: 0 for e in spec["events"]}
    last = {}
    for _, e, _, period, reads, _ in samples:
        if reads is None:
            tot[spec["events"][e]] += period
        for ident, value in reads or []:
            last[ident] = value
    if spec.get("group"):
        nev, ncpu = len(spec["events"]), spec["cpus"]
        for m in range(nev):
            tot[spec["events"][m]] = sum(
                last.get(1000 + m * ncpu + c, 0) for c in range(ncpu))
    return tot


def sampled_capture(name):
    spec = SAMPLED[name]
    host = HOSTS[spec["host"]]
    samples, ids = sampled_samples(name)
    pid = 4242
    # the kernel's map as perf record writes it first (its pgoff the
    # address of _text, which perf report checks it can relocate by)
    name = b"[kernel.kallsyms]_text"
    name += bytes(8 - len(name) % 8)
    recs = [record(1, 1, struct.pack("<IIQQQ", 0xffffffff, 0,
                                     0xffffffff81000000, 0x1000000,
                                     0xffffffff81000000) + name +
                   struct.pack("<IIQQIIQ", 0xffffffff, 0, 0, ids[0][0], 0,
                               0, ids[0][0]))]
    for c, e, t, period, reads, ident in samples:
        body = struct.pack("<QQIIQQIIQ", ident, 0x400000 + 4 * (t % 997),
                           pid, pid, t, ident, c, 0, period)
        if reads is not None:
            body += struct.pack("<Q", len(reads))
            for rid, value in reads:
                body += struct.pack("<QQ", value, rid)
        recs.append(record(9, 2, body))     # PERF_RECORD_MISC_USER
    events = [(sampled_attr(spec, i), ids[i])
              for i in range(len(spec["events"]))]
    args = ["/usr/bin/perf", "record", "-a", "-F", str(SAMPLE_FREQ), "-e"]
    if spec.get("group"):
        args.append("{" + ",".join(spec["events"]) + "}:S")
    else:
        args.append(",".join(spec["events"]))
    args += ["-o", "perf.data", "--", "./work"]
    fspec = dict(spec, sockets=1, aggr=1, intervals=0)
    feats = [(f, b) for f, b in features(fspec, host, ids, args,
                                          lambda i: sampled_attr(spec, i))
             if f != 19]
    return file_bytes(events, b"".join(recs), feats)


def main(argv):
    if len(argv) == 2 and argv[1] == "--list-sample":
        print("\n".join(SAMPLE_CAPTURES))
        return 0
    pipe = len(argv) > 2 and argv[1] == "--sample" and argv[2] == "--pipe"
    if pipe:
        argv = argv[:2] + argv[3:]
    stray = len(argv) > 2 and argv[1] == "--sample" and argv[2] == "--stray"
    if stray:
        argv = argv[:2] + argv[3:]
    if len(argv) in (5, 6) and argv[1] == "--sample" and \
            argv[2] in SAMPLE_CAPTURES:
        data, truth = sample_capture(argv[2], argv[3], pipe, stray)
        with open(argv[4], "wb") as f:
            f.write(data)
        if len(argv) == 6:
            with open(argv[5], "w") as f:
                json.dump(truth, f, indent=1, sort_keys=True)
                f.write("\n")
        return 0
    if len(argv) == 2 and argv[1] == "--list-sampled":
        print("\n".join(SAMPLED))
        return 0
    if len(argv) == 3 and argv[1] in SAMPLED:
        with open(argv[2], "wb") as f:
            f.write(sampled_capture(argv[1]))
        return 0
    if len(argv) == 2 and argv[1] in ("--list", "--list-all"):
        # --list: the captures perf 6.1 reads right
        print("\n".join(n for n in CAPTURES
                        if argv[1] == "--list-all" or
                        not CAPTURES[n].get("level")))
        return 0
    if len(argv) != 3 or argv[1] not in CAPTURES:
        sys.stderr.write("usage: pd_stat_synth.py --list | --list-all | "
                         "--list-sampled | --list-sample | NAME OUT |\n"
                         "       pd_stat_synth.py --sample [--pipe] NAME ELF "
                         "OUT [TRUTH.json]\n")
        return 64
    with open(argv[2], "wb") as f:
        f.write(capture(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
