#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_spe_synth.py - write an Arm SPE capture as `perf record -e
arm_spe_0//` writes one on a Neoverse host, with the ground truth of
every SPE record in it.

    pd_spe_synth.py [options] ELF RECORDED_PATH OUT TRUTH

Options:
    --host n1|v1|n2|v2|a720|ampere1a|hip08|hip09
                        the CPU (MIDR in HEADER_CPUID and the metadata);
                        an AmpereOne's and a HiSilicon HIP's data
                        sources are their own encodings (HIP's with
                        HITM, remote memory and device sources), the
                        others' the common (Neoverse) one
    --cpu-hosts H0,H1   with --meta 2: each CPU's own model (a
                        heterogeneous host), in the metadata and in the
                        data sources of its records
    --meta 1|2          AUXTRACE_INFO form: 1 the original two words
                        (perf < 6.13), 2 the per-CPU form (perf >= 6.13)
    --per-thread        one AUX buffer for the process (perf record
                        --per-thread), not one per CPU
    --no-ts             no TIMESTAMP packets (records end with END) and
                        no PERF_SAMPLE_TIME (perf decodes "timeless")
    --no-context        no CONTEXT packets (pids from switch records)
    --task-switch       with --no-context: the events bound to the task
                        (`perf record -- cmd`), so the switches are
                        PERF_RECORD_SWITCH in and out of the traced
                        threads, not SWITCH_CPU_WIDE; per CPU, the two
                        threads take turns on the CPUs (each round, CPU
                        0 and 1 swap them); with --per-thread, the one
                        thread's switches (without a CPU).  TRUTH's
                        .threads sibling lists who ran where: "cpu from
                        to pid tid", times in ns, one line per buffer
    --records N         SPE records per CPU (default 24)
    --seed N            the choice of instructions, events and latencies
    --pbt               each record after a CPU's first taken branch has
                        its previous branch target (the PBT address
                        packet of FEAT_SPE_PBT, SPEv1p2): the target of
                        the last taken branch record on that CPU before
                        it (TRUTH's lines end with pbt=ADDR then)
    --samples           after each buffer's AUX record, a sample of the
                        dummy event (a recorded PERF_RECORD_SAMPLE, its
                        ip the buffer's middle record's pc) at that
                        record's time: recorded samples among the
                        synthesized ones, each after some of them and
                        before the others
    --zoo               one more buffer, on CPU 0, with every kind of
                        packet at every size and class and bad bytes (its
                        records are not in TRUTH: it is for comparing
                        packet descriptions)

This VM has no SPE hardware, so the trace is built here, packet by
packet as the Arm ARM lays them out, from ELF's own instructions: a load
record sits at a load instruction with a data address, a store at a
store, a branch at a branch with its target (the direct target from the
encoding, or a function start for an indirect one), an "other" at any
other instruction.  Events, data sources and latencies are drawn from a
seeded generator, kept consistent with one another (a load whose data
came from DRAM missed L1D and the LLC).  The capture is laid out as perf
6.1 writes one on a Neoverse host: the arm_spe_0 event and a dummy:u
tracking event, TIME_CONV, AUXTRACE_INFO, COMM and MMAP2 of the process,
ITRACE_START, context switches, AUXTRACE records with the trace bytes
after them and AUX records.

TRUTH gets one line per SPE record, in the order of the AUXTRACE buffers
in the file and of the records in each (the order pdtool decodes them):

    cpu offset pc el ns tgt va pa ts ctx op_class op_raw events source
    tot issue xlat ended_by

numbers in hex, '-' for a field the record does not have; pdtool's
decoded records must equal it (tests/unit/check_spe.c).
"""

import random
import struct
import sys

import pd_arch_synth
import pd_synth

MIDR = {"n1": 0x410fd0c0, "v1": 0x410fd400, "n2": 0x410fd490,
        "v2": 0x410fd4f0, "a720": 0x410fd810, "ampere1a": 0xc00fac40,
        "hip08": 0x480fd010, "hip09": 0x480fd020, "hip12": 0x480fd060}
PMU_TYPE = 8                    # arm_spe_0 as the host numbered it
PID = 4343
TIDS = [4343, 4344]
BASE = 0xaaaa00000000
STACK = 0xffffc0000000          # user data addresses come from here
PHYS = 0x80000000
TIME0 = 5000000000
# TIME_CONV: a 25 MHz generic timer (Neoverse N1 SDP, Ampere Altra)
TIME_SHIFT = 22
TIME_MULT = 40 << TIME_SHIFT
TICK0 = 125000000               # the counter at TIME0
TIME_ZERO = TIME0 - TICK0 * 40

# sample_type bits
IP, TID, TIME, CPU, PERIOD, IDENTIFIER = 1, 2, 4, 128, 256, 1 << 16
SPE_ID, DUMMY_ID = 17, 33       # per CPU: + cpu

# SPE DATA_SOURCE values of Neoverse N1, V1, N2 (their TRMs)
NV_L1D, NV_L2, NV_PEER_CORE, NV_LOCAL_CLUSTER = 0x0, 0x8, 0x9, 0xa
NV_SYS_CACHE, NV_PEER_CLUSTER, NV_REMOTE, NV_DRAM = 0xb, 0xc, 0xd, 0xe
# AmpereOne's own codes of the common sources it has (perf's
# ARM_SPE_AMPEREONE_*)
AMPEREONE = {NV_PEER_CORE: 0x0, NV_SYS_CACHE: 0x3, NV_REMOTE: 0x5,
             NV_DRAM: 0x7, NV_L1D: 0x8, NV_L2: 0x9}
# HiSilicon HIP's own codes (perf's ARM_SPE_HISI_HIP_*) of the common
# sources; each but DRAM and L1 has a HITM twin one above it (the line
# was modified where it was found)
HISI = {NV_PEER_CORE: 0, NV_LOCAL_CLUSTER: 2, NV_SYS_CACHE: 2,
        NV_PEER_CLUSTER: 4, NV_REMOTE: 6, NV_DRAM: 8, NV_L2: 16,
        NV_L1D: 18}
HISI_HITM = (0, 2, 4, 6, 16)
HISI_REMOTE_MEM, HISI_NC_DEV = 9, 13

EV = {"retired": 1, "l1d_access": 2, "l1d_refill": 3, "tlb_access": 4,
      "tlb_walk": 5, "not_taken": 6, "mispred": 7, "llc_access": 8,
      "llc_miss": 9, "remote": 10}


# ---- packets (Arm ARM, SPE packet formats) ------------------------------

def size_bits(n):
    return {1: 0, 2: 1, 4: 2, 8: 3}[n] << 4


def pkt_addr(index, value):
    return bytes([0xb0 | index]) + struct.pack("<Q", value)


def pkt_counter(index, value):
    return bytes([0x98 | index]) + struct.pack("<H", value)


def pkt_events(value, n):
    return bytes([0x42 | size_bits(n)]) + value.to_bytes(n, "little")


def pkt_source(value, n):
    return bytes([0x43 | size_bits(n)]) + value.to_bytes(n, "little")


def pkt_context(value, index):
    return bytes([0x64 | index]) + struct.pack("<I", value)


def pkt_op(cls, value):
    return bytes([0x48 | cls, value])


def pkt_ts(value):
    return bytes([0x71]) + struct.pack("<Q", value)


def zoo():
    """Every packet kind the format has, each size and class, then bytes
    no packet starts with: one buffer, for comparing descriptions."""
    out = []
    for n in (1, 2, 4, 8):                      # EVENTS at every size
        out.append(pkt_events((1 << (8 * n)) - 1 if n < 8 else
                              0xffffffffffffffff, n))
        out.append(pkt_events(0x5a5a5a5a5a5a5a5a & ((1 << (8 * n)) - 1), n))
    for n in (1, 2, 4, 8):
        out.append(pkt_source(0x0e & ((1 << (8 * n)) - 1), n))
    for v in range(256):                        # every OP_TYPE payload
        for cls in (0, 1, 2):
            out.append(pkt_op(cls, v))
    out.append(pkt_op(3, 0x12))                 # the reserved class
    out.append(pkt_addr(0, 0xffff800080123456 | 1 << 63 | 1 << 61))
    out.append(pkt_addr(0, 0x0000aaaa00001000 | 2 << 61))
    out.append(pkt_addr(1, 0x0000aaaa00002000 | 3 << 61 | 1 << 63))
    out.append(pkt_addr(2, 0xf0ffc00012345678))           # tagged VA
    out.append(pkt_addr(2, 0x00fff00012345678))           # kernel VA
    out.append(pkt_addr(3, 0x80000012345678 | 1 << 63 | 1 << 62 |
                        0x5 << 56))
    out.append(pkt_addr(4, 0x0000aaaa00003000 | 1 << 63))  # PBT
    out.append(pkt_addr(5, 0x1234))                        # reserved
    # extended headers: index 8 + n of address and counter
    out.append(bytes([0x21, 0xb0 | 2]) + struct.pack("<Q", 0xaaaa1000))
    out.append(bytes([0x20, 0x98 | 1]) + struct.pack("<H", 77))
    out.append(bytes([0x20, 0xb0 | 1]) + struct.pack("<Q", 0xaaaa2000))
    for i in range(8):
        out.append(pkt_counter(i, 1000 + i))
    out.append(pkt_context(0x1234, 0))
    out.append(pkt_context(0x5678, 1))
    out.append(bytes([0x66]) + struct.pack("<I", 0x9abc))
    out.append(pkt_ts(0x123456789))
    out.append(b"\x01")                         # END
    out.append(bytes(20))                       # a PAD run past 16
    out.append(bytes([0x20, 0x00]) + bytes(14))  # alignment to 2..16
    out.append(bytes([0x23, 0x00]) + bytes(14))
    out.append(bytes([0x02, 0x03, 0xff, 0x20, 0x30]))   # bad bytes
    out.append(bytes([0x71, 1, 2]))             # cut short at the end
    return b"".join(out)


# ---- the binary's instructions ------------------------------------------

def classify(elf):
    """(loads, stores, branches, others, functions) of ELF's .text: lists
    of vaddrs, branches as (vaddr, target or None, conditional,
    indirect)."""
    syms = dict(elf.symbols())
    funcs = sorted(v for n, v in syms.items() if v and n in
                   ("main", "checksum", "fill", "mix"))
    text = [p for p in elf.phdrs() if p[0] == 1 and p[1] & 1][0]
    _, _, offset, vaddr, filesz, _ = text
    lo = min(funcs)
    hi = max(funcs) + 0x100
    loads, stores, branches, others = [], [], [], []
    for va in range(lo, min(hi, vaddr + filesz), 4):
        (insn,) = struct.unpack_from("<I", elf.data, offset + va - vaddr)
        if insn & 0x0a000000 == 0x08000000:
            (loads if insn & (1 << 22) else stores).append(va)
        elif insn & 0x7c000000 == 0x14000000:
            imm = insn & 0x3ffffff
            imm -= (imm & 0x2000000) << 1
            branches.append((va, va + 4 * imm, False, False))
        elif insn & 0xff000010 == 0x54000000 or \
                insn & 0x7e000000 == 0x34000000:
            imm = (insn >> 5) & 0x7ffff
            imm -= (imm & 0x40000) << 1
            branches.append((va, va + 4 * imm, True, False))
        elif insn & 0x7e000000 == 0x36000000:
            imm = (insn >> 5) & 0x3fff
            imm -= (imm & 0x2000) << 1
            branches.append((va, va + 4 * imm, True, False))
        elif insn & 0xfe000000 == 0xd6000000:
            branches.append((va, None, False, True))
        else:
            others.append(va)
    return loads, stores, branches, others, funcs


# ---- records --------------------------------------------------------------

class Gen:
    def __init__(self, args, elf, start_of):
        self.rng = random.Random(args["seed"])
        self.args = args
        (self.loads, self.stores, self.branches, self.others,
         self.funcs) = classify(elf)
        self.start_of = start_of
        self.last_tgt = {}      # per CPU: the last taken branch's target
        self.tick = TICK0 + 100

    def host_of(self, cpu):
        hosts = self.args.get("cpu_hosts")
        return hosts[cpu] if hosts else self.args["host"]

    def mem(self, store, host):
        """Events, the data source as the host encodes it (None for a
        store), and the total, issue and translation latencies."""
        ev, source, tot, issue, xlat = self.mem_common(store)
        if host == "ampere1a" and source is not None:
            # AmpereOne has no cluster sources: its SLC stands for them
            if source in (NV_LOCAL_CLUSTER, NV_PEER_CLUSTER):
                source = NV_SYS_CACHE
            source = AMPEREONE[source]
        elif host.startswith("hip") and source is not None:
            source = HISI[source]
            r = self.rng.random()
            if source in HISI_HITM and r < 0.3:
                source += 1
            elif source == HISI[NV_DRAM] and r < 0.3:
                source = HISI_REMOTE_MEM
            elif r > 0.95:
                source = HISI_NC_DEV
        return ev, source, tot, issue, xlat

    def mem_common(self, store):
        rng = self.rng
        ev = {"retired", "l1d_access", "tlb_access"}
        if store:
            source = None       # Neoverse gives none for stores
            if rng.random() < 0.2:
                ev.add("l1d_refill")
        else:
            source = rng.choice([NV_L1D] * 5 + [NV_L2] * 3 +
                                [NV_PEER_CORE, NV_LOCAL_CLUSTER,
                                 NV_SYS_CACHE, NV_PEER_CLUSTER, NV_REMOTE,
                                 NV_DRAM, NV_DRAM])
            if source != NV_L1D:
                ev.add("l1d_refill")
            if source in (NV_SYS_CACHE, NV_PEER_CLUSTER, NV_REMOTE,
                          NV_DRAM):
                ev.add("llc_access")
            if source in (NV_REMOTE, NV_DRAM):
                ev.add("llc_miss")
            if source == NV_REMOTE:
                ev.add("remote")
        if rng.random() < 0.15:
            ev.add("tlb_walk")
        lat = {NV_L1D: 4, NV_L2: 11, NV_PEER_CORE: 40, NV_LOCAL_CLUSTER: 45,
               NV_SYS_CACHE: 60, NV_PEER_CLUSTER: 70, NV_REMOTE: 300,
               NV_DRAM: 180, None: 3}[source]
        xlat = 1 + (30 if "tlb_walk" in ev else rng.randrange(3))
        issue = rng.randrange(1, 20)
        return ev, source, lat + issue + xlat + rng.randrange(8), issue, xlat

    def record(self, cpu, tid):
        """One record's truth (a dict) and bytes."""
        rng = self.rng
        kind = rng.choice(["load"] * 4 + ["store"] * 2 + ["branch"] * 3 +
                          ["other"])
        t = {"cpu": cpu, "el": 0, "ns": 1, "tgt": None, "va": None,
             "pa": None, "ts": None, "ctx": None, "source": None,
             "xlat": None}
        pkts = []
        if not self.args["no_context"]:
            t["ctx"] = tid
            pkts.append(pkt_context(tid, 1))     # CONTEXTIDR_EL2 (VHE)
        if kind in ("load", "store"):
            va = rng.choice(self.loads if kind == "load" else self.stores)
            ev, source, tot, issue, xlat = self.mem(kind == "store",
                                                    self.host_of(cpu))
            t["op_class"], t["op_raw"] = 1, 0x01 if kind == "store" else 0
            data = STACK + 8 * rng.randrange(0x4000)
            t["va"] = data
            t["pa"] = PHYS + (data & 0xfffffff)
            t["source"] = source
            t["xlat"] = xlat
        elif kind == "branch":
            va, target, cond, indirect = rng.choice(self.branches)
            if target is None:
                target = rng.choice(self.funcs)
            ev = {"retired"}
            taken = not cond or rng.random() < 0.7
            if not taken:
                ev.add("not_taken")
                target = va + 4
            if rng.random() < 0.25:
                ev.add("mispred")
            t["op_class"] = 2
            t["op_raw"] = (1 if cond else 0) | (2 if indirect else 0)
            t["tgt"] = self.start_of + target
            tot, issue = rng.randrange(1, 12), rng.randrange(0, 6)
        else:
            va = rng.choice(self.others)
            ev = {"retired"}
            t["op_class"], t["op_raw"] = 0, 0
            tot, issue = rng.randrange(1, 6), rng.randrange(0, 3)
        t["pc"] = self.start_of + va
        t["events"] = sum(1 << EV[e] for e in ev)
        t["tot"], t["issue"] = tot, issue
        pkts.append(pkt_addr(0, t["pc"] | 1 << 63))      # EL0, NS
        pkts.append(pkt_counter(1, issue))
        pkts.append(pkt_counter(0, tot))
        pkts.append(pkt_events(t["events"], 2))
        pkts.append(pkt_op(t["op_class"], t["op_raw"]))
        if t["va"] is not None:
            pkts.append(pkt_addr(2, t["va"]))
            pkts.append(pkt_counter(2, t["xlat"]))
            pkts.append(pkt_addr(3, t["pa"] | 1 << 63))
            if t["source"] is not None:
                pkts.append(pkt_source(t["source"], 1))
        if t["tgt"] is not None:
            pkts.append(pkt_addr(1, t["tgt"] | 1 << 63))
        if self.args.get("pbt") and cpu in self.last_tgt:
            t["pbt"] = self.last_tgt[cpu]
            pkts.append(pkt_addr(4, t["pbt"] | 1 << 63))   # EL0, NS
        if t["tgt"] is not None and "not_taken" not in ev:
            self.last_tgt[cpu] = t["tgt"]
        if self.args["no_ts"]:
            pkts.append(b"\x01")
            t["ended_by"] = "END"
        else:
            self.tick += rng.randrange(20, 400)
            t["ts"] = self.tick
            pkts.append(pkt_ts(self.tick))
            t["ended_by"] = "TS"
        return t, b"".join(pkts)


def tick_to_time(tick):
    quot, rem = tick >> TIME_SHIFT, tick & ((1 << TIME_SHIFT) - 1)
    return TIME_ZERO + quot * TIME_MULT + ((rem * TIME_MULT) >> TIME_SHIFT)


def truth_line(t, offset):
    def h(v):
        return "-" if v is None else "%x" % v
    return " ".join([
        "%d" % t["cpu"], "%x" % offset, h(t["pc"]), "%d" % t["el"],
        "%d" % t["ns"], h(t["tgt"]), h(t["va"]), h(t["pa"]), h(t["ts"]),
        h(t["ctx"]), "%d" % t["op_class"], "%x" % t["op_raw"],
        h(t["events"]), h(t["source"]), h(t["tot"]), h(t["issue"]),
        h(t["xlat"]), t["ended_by"]] +
        (["pbt=%x" % t["pbt"]] if "pbt" in t else []))


# ---- the capture ----------------------------------------------------------

def attrs(args):
    per_cpu = not args["per_thread"]
    st = IP | TID | IDENTIFIER | (CPU if per_cpu else 0) | \
        (0 if args["no_ts"] else TIME)
    fb = pd_synth.FLAG_BITS
    spe = struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", PMU_TYPE, 128,
                      0x3 if not args["no_ts"] else 0x2, 4096, st, 0,
                      sum(1 << fb[f] for f in ("disabled", "sample_id_all",
                                               "exclude_guest")),
                      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)[:128]
    flags = ["exclude_kernel", "exclude_hv", "mmap", "comm", "task",
             "sample_id_all", "exclude_guest", "mmap2", "comm_exec"]
    if per_cpu:
        flags.append("context_switch")
    dummy = struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", 1, 128, 9, 1, st, 0,
                        sum(1 << fb[f] for f in flags),
                        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)[:128]
    return spe, dummy, st


def sid(st, pid, tid, time, cpu, ident):
    out = struct.pack("<II", pid, tid)
    if st & TIME:
        out += struct.pack("<Q", time)
    if st & CPU:
        out += struct.pack("<II", cpu, 0)
    return out + struct.pack("<Q", ident)


def auxtrace_info(args, ncpu):
    if args["meta"] == 1:
        priv = [PMU_TYPE, 0 if args["per_thread"] else 1]
    else:
        priv = [2, 4, PMU_TYPE, ncpu]
        for cpu in range(ncpu):
            host = (args["cpu_hosts"][cpu] if "cpu_hosts" in args
                    else args["host"])
            priv += [0x1010101010101010, cpu, 3, MIDR[host], PMU_TYPE, 256]
    return pd_synth.record(70, 0, struct.pack("<II", 4, 0) +
                           struct.pack("<%dQ" % len(priv), *priv))


def capture(args, elf, recorded):
    ncpu = 1 if args["per_thread"] else 2
    text = [p for p in elf.phdrs() if p[0] == 1 and p[1] & 1][0]
    _, _, offset, vaddr, _, memsz = text
    page = 0x1000
    start = BASE + (vaddr & ~(page - 1))
    start_of = start - (vaddr & ~(page - 1))
    length = (vaddr + memsz - (vaddr & ~(page - 1)) + page - 1) & ~(page - 1)
    bid = elf.build_id()
    spe_attr, dummy_attr, st = attrs(args)
    gen = Gen(args, elf, start_of)

    def dsid(time, cpu):
        # per thread, the one dummy event's id serves every CPU
        return sid(st, PID, PID, time, cpu, DUMMY_ID + cpu % ncpu)

    recs = [pd_synth.record(79, 0, struct.pack(
        "<QQQQQBB6x", TIME_SHIFT, TIME_MULT, TIME_ZERO, 0, 0xffffffffffffff,
        1, 1))]
    recs.append(auxtrace_info(args, ncpu))
    recs.append(pd_synth.record(3, 0, struct.pack("<II", PID, PID) +
                                pd_synth.pad8(b"loop\0") +
                                dsid(TIME0, 0)))
    body = struct.pack("<IIQQQBBH20sII", PID, PID, start, length,
                       offset & ~(page - 1), len(bid), 0, 0, bid, 5, 2)
    body += pd_synth.pad8(recorded.encode() + b"\0") + dsid(TIME0 + 1, 0)
    recs.append(pd_synth.record(10, 2 | 1 << 14, body))
    recs.append(pd_synth.record(7, 0, struct.pack(
        "<IIIIQ", PID, PID, TIDS[1], PID, TIME0 + 2) + dsid(TIME0 + 2, 1)))
    recs.append(pd_synth.record(3, 0, struct.pack("<II", PID, TIDS[1]) +
                                pd_synth.pad8(b"loop\0") +
                                dsid(TIME0 + 3, 1)))
    for cpu in range(ncpu):
        recs.append(pd_synth.record(12, 0, struct.pack("<II", PID, TIDS[cpu])
                                    + sid(st, PID, TIDS[cpu], TIME0 + 4, cpu,
                                          SPE_ID + cpu)))
    truth = []
    threads = []
    nrec = args["records"]
    # two rounds, each one AUXTRACE buffer per CPU
    aux_offset = [0] * ncpu
    for rnd in range(2):
        for cpu in range(ncpu):
            tid = TIDS[cpu] if not args["per_thread"] else TIDS[0]
            if args.get("task_switch"):
                # the thread switches in on this CPU: the record's
                # sample_id names it (no next/prev fields)
                if not args["per_thread"]:
                    tid = TIDS[(cpu + rnd) % 2]
                t = tick_to_time(gen.tick)
                recs.append(pd_synth.record(14, 0, sid(
                    st, PID, tid, t, cpu, DUMMY_ID + cpu)))
                threads.append([cpu, t, None, PID, tid])
            elif not args["per_thread"] and args["no_context"]:
                # who runs on this CPU from now, as perf's switch says
                t = tick_to_time(gen.tick) if not args["no_ts"] else 0
                recs.append(pd_synth.record(15, 1 << 13, struct.pack(
                    "<II", PID, tid) + sid(st, PID, 0, t, cpu,
                                            DUMMY_ID + cpu)))
            trace = b""
            lines = []
            first_tick = gen.tick
            for n in range(nrec // 2):
                t, raw = gen.record(cpu, tid)
                lines.append((t, len(trace)))
                trace += raw
                if n % 5 == 4:
                    trace += bytes(3)                   # PAD run
            trace += bytes(-len(trace) % 8)             # padded as perf does
            last = gen.tick
            head = pd_synth.record(71, 0, struct.pack(
                "<QQQIIII", len(trace), aux_offset[cpu],
                0x1000 * (rnd + 1) + cpu,
                cpu if not args["per_thread"] else 0,
                tid if args["per_thread"] else 0xffffffff,
                cpu if not args["per_thread"] else 0xffffffff, 0))
            recs.append(head)
            recs.append(trace)
            for t, off in lines:
                truth.append(truth_line(t, off))
            aux_time = tick_to_time(last) + 1 if not args["no_ts"] else 0
            recs.append(pd_synth.record(11, 0, struct.pack(
                "<QQQ", aux_offset[cpu], len(trace), 0) +
                sid(st, PID, tid, aux_time, cpu, SPE_ID + cpu)))
            aux_offset[cpu] += len(trace)
            if args.get("samples") and lines and \
                    lines[len(lines) // 2][0]["ts"] is not None:
                mid = lines[len(lines) // 2][0]
                ts = tick_to_time(mid["ts"])
                # IDENTIFIER, IP, TID, TIME, CPU: the dummy's sample_type
                body = struct.pack("<QQII", DUMMY_ID + cpu % ncpu,
                                   mid["pc"], PID, tid)
                if st & TIME:
                    body += struct.pack("<Q", ts)
                if st & CPU:
                    body += struct.pack("<II", cpu, 0)
                recs.append(pd_synth.record(9, 2, body))
            if args.get("task_switch"):
                # ... and out a little after its last record (some
                # ticks: perf compares times in ticks)
                t = tick_to_time(last + 5)
                recs.append(pd_synth.record(14, 1 << 13, sid(
                    st, PID, tid, t, cpu, DUMMY_ID + cpu)))
                threads[-1][2] = t
            del first_tick
        recs.append(pd_synth.record(68, 0, b""))
    recs.append(pd_synth.record(4, 0, struct.pack(
        "<IIIIQ", PID, PID, PID, PID, tick_to_time(gen.tick) + 10) +
        dsid(tick_to_time(gen.tick) + 10, 0)))
    if args["zoo"]:
        trace = zoo()
        pad = bytes(-len(trace) % 8)
        recs.append(pd_synth.record(71, 0, struct.pack(
            "<QQQIIII", len(trace) + len(pad), aux_offset[0], 0x9000, 0,
            0xffffffff, 0, 0)))
        recs.append(trace + pad)
    recs.append(pd_synth.record(68, 0, b""))
    data = b"".join(recs)

    cmdline = ["/usr/bin/perf", "record", "-e", "arm_spe_0//",
               "--", "loop"]
    if args["per_thread"]:
        cmdline[2:2] = ["--per-thread"]
    cmd = struct.pack("<I", len(cmdline))
    for arg in cmdline:
        cmd += pd_synth.string_feature(arg)
    desc = struct.pack("<II", 2, 128)
    for attr, name, ident in ((spe_attr, "arm_spe_0//", SPE_ID),
                              (dummy_attr, "dummy:u", DUMMY_ID)):
        desc += attr + struct.pack("<I", ncpu) + \
            pd_synth.string_feature(name) + \
            struct.pack("<%dQ" % ncpu, *[ident + c for c in range(ncpu)])
    pmus = struct.pack("<I", 2) + struct.pack("<I", PMU_TYPE) + \
        pd_synth.string_feature("arm_spe_0") + struct.pack("<I", 1) + \
        pd_synth.string_feature("software")
    feats = [
        (3, pd_synth.string_feature("synth-%s" % args["host"])),
        (4, pd_synth.string_feature("6.1.0-synth")),
        (5, pd_synth.string_feature("6.1.187")),
        (6, pd_synth.string_feature("aarch64")),
        (7, struct.pack("<II", ncpu, ncpu)),
        (9, pd_synth.string_feature("0x%016x" % MIDR[args["host"]])),
        (11, cmd),
        (12, desc),
        (16, pmus),
    ]
    ids = []
    events = [(spe_attr, [SPE_ID + c for c in range(ncpu)]),
              (dummy_attr, [DUMMY_ID + c for c in range(ncpu)])]
    for _, i in events:
        ids.append(i)
    return pd_synth.file_bytes(events, data, feats), truth, threads


def main(argv):
    args = {"host": "n1", "meta": 1, "per_thread": False, "no_ts": False,
            "no_context": False, "records": 24, "seed": 1, "zoo": False}
    rest = []
    it = iter(argv[1:])
    for a in it:
        if a == "--host":
            args["host"] = next(it)
        elif a == "--meta":
            args["meta"] = int(next(it))
        elif a == "--cpu-hosts":
            # only when given: the other captures' truth headers stay
            args["cpu_hosts"] = next(it).split(",")
        elif a == "--per-thread":
            args["per_thread"] = True
        elif a == "--no-ts":
            args["no_ts"] = True
        elif a == "--no-context":
            args["no_context"] = True
        elif a == "--task-switch":
            # only when given: the other captures' truth headers stay
            args["task_switch"] = True
        elif a == "--pbt":
            # only when given: the other captures' truth headers stay
            args["pbt"] = True
        elif a == "--samples":
            # only when given: the other captures' truth headers stay
            args["samples"] = True
        elif a == "--zoo":
            args["zoo"] = True
        elif a == "--records":
            args["records"] = int(next(it))
        elif a == "--seed":
            args["seed"] = int(next(it))
        else:
            rest.append(a)
    if len(rest) != 4 or args["host"] not in MIDR or any(
            h not in MIDR for h in args.get("cpu_hosts", [])) or (
            "cpu_hosts" in args and (args["meta"] != 2 or
                                     args["per_thread"] or
                                     len(args["cpu_hosts"]) != 2)) or (
            args.get("task_switch") and (args["no_ts"] or
                                         not args["no_context"])):
        sys.stderr.write(__doc__)
        return 64
    elf_path, recorded, out, truth_path = rest
    elf = pd_arch_synth.Elf(open(elf_path, "rb").read())
    data, truth, threads = capture(args, elf, recorded)
    with open(out, "wb") as f:
        f.write(data)
    with open(truth_path, "w") as f:
        f.write("# " + " ".join(
            "%s=%s" % (k, ",".join(args[k]) if isinstance(args[k], list)
                       else args[k]) for k in sorted(args)) + "\n")
        f.write("\n".join(truth) + "\n")
    if threads:
        path = truth_path[:-len(".truth")] + ".threads" \
            if truth_path.endswith(".truth") else truth_path + ".threads"
        with open(path, "w") as f:
            f.write("# cpu from to pid tid\n")
            for cpu, t0, t1, pid, tid in threads:
                f.write("%d %d %d %d %d\n" % (cpu, t0, t1, pid, tid))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
