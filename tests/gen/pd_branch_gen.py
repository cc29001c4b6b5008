#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_branch_gen.py - add real branch stacks to a capture recorded here.

    pd_branch_gen.py IN OUT BINARY RECORDED_PATH LAYOUT [--seed N]
                     [--truth FILE] [--depth N] [--objdump PROG]
                     [--repeat N]

This machine has no PMU, so no `perf record -b`.  This writes what one
would have written: IN (a file-mode capture, uncompressed) copied to OUT
with PERF_SAMPLE_BRANCH_STACK added to every event, the HEADER_BRANCH_STACK
feature set, and a branch stack in every sample.  For a sample whose ip
lies in BINARY (mapped in the capture as RECORDED_PATH), the stack is a
path the program could really have taken to the ip, newest entry first:
every `from` is a taken-branch instruction of BINARY (llvm-objdump's
disassembly: conditional and unconditional jumps, calls, returns), every
`to` its target (a return's: the instruction after a call of the
function it returns from), and the code from each entry's `to` to the
next newer entry's `from` (to the ip for the newest) is straight-line code
with no taken branch.  The path is drawn backwards from the ip, each step
picking among the branches that reach the current block, with a seeded
random generator.  Other samples get an empty stack (nr 0).

Each branch site (its `from` address) has a fixed mispredict
probability and a fixed mean of basic-block cycles, derived from the seed
and its address; each entry draws its misprediction and its cycles from
those.  LAYOUT says what the hardware records:

  intel        Intel LBR with LBR_INFO (Skylake+): mispred/predicted,
               cycles; branch_sample_type ANY|USER
  intel-type   the same with TYPE_SAVE: each entry's type
  intel-hwidx  the same with HW_INDEX: hw_idx before the entries
  intel-nocyc  Haswell's LBR: mispred/predicted, no cycles (what perf
               6.1's branch-mode report reads without crashing)
  intel-cntr   the intel layout with branch counters (Sierra Forest+,
               `-j any,u,counter`, perf >= 6.8): the first --counters
               events (a group, leader first) carry
               BRANCH_SAMPLE_COUNTERS, and their samples a u64 per entry
               after the entries holding, 2 bits per event in the
               group's order, how often each event occurred in the
               entry's basic block (3: saturated, perhaps more); the
               header's CPU_PMU_CAPS says branch_counter_nr=4 and
               branch_counter_width=2, as the kernel's cpu PMU does
  zen4         AMD Zen 4 LbrExtV2: mispred/predicted and the speculation
               outcome (spec), no cycles
  brs          AMD Zen 3 BRS: taken branches only, no prediction, no
               cycles (mispred = predicted = 0: unknown)
  brbe         ARM BRBE (aarch64 BINARY): TYPE_SAVE and PRIV_SAVE, type,
               privilege (user), cycles
  brbe-notype  the same without TYPE_SAVE (types are then decoded from
               the aarch64 instructions)
  bts          Intel BTS (`perf record -e branches:u -c 1`): no branch
               stack; the event becomes the hardware branch-instructions
               event, user only, period 1, sampling ADDR and no callchain,
               and each sample in BINARY one taken branch, ip its `from`
               and addr its `to` (the newest entry of the stack above);
               the other samples are dropped

--half SHARE (brbe layouts) records that share of the entries half, as
the kernel's BRBE driver (perf >= 6.17) writes the records whose source
or target lay at a level the event does not record: source-only (to = 0,
no privilege) and target-only (from = 0, no prediction), half each.  No
basic block is told across a missing end.

--truth FILE writes the ground truth as JSON (counted as perf counts:
a sample that reads its group, PERF_SAMPLE_READ with FORMAT_GROUP,
once per value read, so "entries" is then more than the capture's): the layout, the sites
(address, symbol+offset, mnemonic, perf's branch type, mispredict
probability, mean cycles), and per (from, to) pair its count,
mispredictions and cycles (sum and each value's count), and per basic
block (the straight-line code from one entry's `to` to the next newer
entry's `from`, which the newer entry's cycles time) its instructions,
executions and cycles summed.  --repeat N
writes each sample N times (with the same stack drawn anew each time),
for a big capture.  With counters, each pair also has per event its
counts summed and how often the counter saturated.
"""

import argparse
import json
import random
import re
import struct
import subprocess
import sys

SAMPLE_IDENTIFIER = 1 << 16
SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR = 1, 2, 4, 8
SAMPLE_READ, SAMPLE_CALLCHAIN, SAMPLE_ID, SAMPLE_CPU = 16, 32, 64, 128
SAMPLE_PERIOD, SAMPLE_STREAM_ID, SAMPLE_RAW = 256, 512, 1024
SAMPLE_BRANCH_STACK = 2048

BR_USER, BR_ANY = 1 << 0, 1 << 3
BR_TYPE_SAVE, BR_HW_INDEX, BR_PRIV_SAVE = 1 << 16, 1 << 17, 1 << 18
BR_COUNTERS = 1 << 19

FORMAT_TOTAL_ENABLED, FORMAT_TOTAL_RUNNING = 1, 2
FORMAT_ID, FORMAT_GROUP, FORMAT_LOST = 4, 8, 16

REC_MMAP, REC_SAMPLE, REC_MMAP2 = 1, 9, 10
FEAT_EVENT_DESC, FEAT_BRANCH_STACK, FEAT_CPU_PMU_CAPS = 12, 15, 28
HEADER_SIZE = 104

# perf's branch types (include/uapi/linux/perf_event.h)
BR_COND, BR_UNCOND, BR_IND, BR_CALL, BR_IND_CALL, BR_RET = 1, 2, 3, 4, 5, 6
TYPE_NAMES = {BR_COND: "COND", BR_UNCOND: "UNCOND", BR_IND: "IND",
              BR_CALL: "CALL", BR_IND_CALL: "IND_CALL", BR_RET: "RET"}
SPEC_NON_SPEC_CORRECT, SPEC_CORRECT = 2, 3
PRIV_USER = 1

LAYOUTS = {
    # name: branch_sample_type, prediction, cycles, type, spec, priv, depth
    "intel": (BR_ANY | BR_USER, True, True, False, False, False, 16),
    "intel-type": (BR_ANY | BR_USER | BR_TYPE_SAVE, True, True, True,
                   False, False, 16),
    "intel-hwidx": (BR_ANY | BR_USER | BR_HW_INDEX, True, True, False,
                    False, False, 32),
    "intel-nocyc": (BR_ANY | BR_USER, True, False, False, False, False, 16),
    "intel-cntr": (BR_ANY | BR_USER | BR_COUNTERS, True, True, False,
                   False, False, 16),
    "zen4": (BR_ANY | BR_USER, True, False, False, True, False, 16),
    "brs": (BR_ANY | BR_USER, False, False, False, False, False, 16),
    "brbe": (BR_ANY | BR_USER | BR_TYPE_SAVE | BR_PRIV_SAVE, True, True,
             True, False, True, 32),
    "brbe-notype": (BR_ANY | BR_USER | BR_PRIV_SAVE, True, True, False,
                    False, True, 32),
    "bts": (0, False, False, False, False, False, 1),
}
# bts: perf's "branches:u" (PERF_TYPE_HARDWARE, BRANCH_INSTRUCTIONS)
HW_BRANCH_INSTRUCTIONS = 4
ATTR_FREQ, ATTR_EXCLUDE_KERNEL, ATTR_EXCLUDE_HV = 1 << 10, 1 << 5, 1 << 6
BTS_NAME = b"branches:u"



class Insn:
    __slots__ = ("addr", "end", "mnem", "kind", "target", "func")

    def __init__(self, addr, mnem, func):
        self.addr, self.mnem, self.func = addr, mnem, func
        self.end = 0
        self.kind = 0       # a BR_* type, 0 for no branch
        self.target = None  # direct target


X86_JCC = re.compile(r"^j(?!mp)[a-z]+$|^loop[a-z]*$")
A64_COND = re.compile(r"^(b\.[a-z]+|bc\.[a-z]+|cbn?z|tbn?z)$")


def classify(arch, mnem, ops):
    """The perf branch type of an instruction and its direct target."""
    words = mnem.split()
    # x86 prefixes llvm-objdump prints as part of the mnemonic
    while arch == "x86_64" and len(words) > 1 and words[0] in (
            "bnd", "notrack", "rep", "repz", "repnz", "lock", "ds", "cs"):
        words = words[1:]
    m = words[-1] if words else mnem
    target = None
    t = re.match(r"^(0x[0-9a-f]+)\b", ops) or \
        re.search(r"(?:^|,\s*)(0x[0-9a-f]+)\s*<", ops)
    if t:
        target = int(t.group(1), 16)
    if arch == "x86_64":
        indirect = ops.startswith("*")
        if m in ("ret", "retq", "retl"):
            return BR_RET, None
        if m in ("jmp", "jmpq"):
            return (BR_IND, None) if indirect else (BR_UNCOND, target)
        if m in ("call", "callq"):
            return (BR_IND_CALL, None) if indirect else (BR_CALL, target)
        if X86_JCC.match(m) and target is not None:
            return BR_COND, target
        return 0, None
    if m in ("ret", "retaa", "retab"):
        return BR_RET, None
    if m == "b":
        return BR_UNCOND, target
    if m == "bl":
        return BR_CALL, target
    if m in ("br", "braa", "brab", "braaz", "brabz"):
        return BR_IND, None
    if m in ("blr", "blraa", "blrab", "blraaz", "blrabz"):
        return BR_IND_CALL, None
    if A64_COND.match(m) and target is not None:
        return BR_COND, target
    return 0, None


def disassemble(objdump, path, arch):
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", path],
                         check=True, capture_output=True, text=True).stdout
    insns, func = [], None
    for line in out.splitlines():
        f = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if f:
            func = f.group(2)
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s*(.*)$", line)
        if not m or func is None:
            continue
        parts = m.group(2).strip().split("\t", 1)
        mnem = parts[0].strip()
        ops = parts[1].strip() if len(parts) > 1 else ""
        if mnem in ("", "..."):
            continue
        insn = Insn(int(m.group(1), 16), mnem, func)
        insn.kind, insn.target = classify(arch, mnem, ops)
        insns.append(insn)
    insns.sort(key=lambda i: i.addr)
    for a, b in zip(insns, insns[1:]):
        a.end = b.addr
    if insns:
        insns[-1].end = insns[-1].addr + 4
    return insns


def load_segments(path):
    """(offset, vaddr, filesz) of each PT_LOAD of an ELF64 LE file."""
    with open(path, "rb") as fh:
        elf = fh.read()
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise SystemExit("pd_branch_gen.py: '%s': not an ELF64 LE file"
                         % path)
    machine = struct.unpack_from("<H", elf, 18)[0]
    phoff, = struct.unpack_from("<Q", elf, 32)
    phentsize, phnum = struct.unpack_from("<HH", elf, 54)
    segs = []
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", elf, phoff + i * phentsize)
        if p_type == 1:
            segs.append((p_offset, p_vaddr, p_filesz))
    arch = {62: "x86_64", 183: "aarch64"}.get(machine)
    if not arch:
        raise SystemExit("pd_branch_gen.py: '%s': e_machine %d: x86_64 "
                         "or aarch64 only" % (path, machine))
    return segs, arch


class Program:
    """The binary's branches: what reaches each address."""

    def __init__(self, insns, arch):
        self.arch = arch
        self.insns = insns
        self.by_addr = {i.addr: n for n, i in enumerate(insns)}
        self.into = {}           # address -> [branch insn reaching it]
        rets = {}
        for i in insns:
            rets.setdefault(i.func, [])
            if i.kind == BR_RET:
                rets[i.func].append(i)
        entry = {}
        for i in insns:
            entry.setdefault(i.func, i.addr)
        func_at = {a: f for f, a in entry.items()}
        for i in insns:
            if i.kind in (BR_COND, BR_UNCOND, BR_CALL) and \
                    i.target in self.by_addr:
                self.into.setdefault(i.target, []).append(i)
            # a call's return address is reached by the callee's returns
            if i.kind == BR_CALL and i.target in func_at and \
                    i.end in self.by_addr:
                for r in rets.get(func_at[i.target], []):
                    self.into.setdefault(i.end, []).append(r)

    def barrier(self, insn):
        """An instruction after which execution never falls through."""
        return insn.kind in (BR_UNCOND, BR_IND, BR_CALL, BR_IND_CALL,
                             BR_RET)

    def step_back(self, addr, rng):
        """A taken branch (from, to) after which straight-line code runs
        up to addr; None at a dead end (reached from outside the binary,
        or indirectly)."""
        n = self.by_addr.get(addr)
        if n is None:
            return None
        cands = []
        func = self.insns[n].func
        while True:
            for b in self.into.get(self.insns[n].addr, ()):
                cands.append((b, self.insns[n].addr))
            if n == 0:
                break
            prev = self.insns[n - 1]
            if prev.func != func or self.barrier(prev):
                break
            n -= 1
        if not cands:
            return None
        return rng.choice(cands)


class Site:
    """A branch site's fixed behaviour, drawn from the seed and its
    address."""

    def __init__(self, seed, insn):
        r = random.Random("%d:%x" % (seed, insn.addr))
        self.insn = insn
        if insn.kind == BR_COND:
            self.p_mis = r.choice([0.0, 0.01, 0.05, 0.2, 0.5])
        elif insn.kind == BR_RET:
            self.p_mis = r.choice([0.0, 0.02])
        else:
            self.p_mis = 0.0
        self.cycles = r.randint(1, 40)
        # each counting event's chance per trial; 3 trials give 0..3
        # occurrences per block, 3 being the 2-bit counter's saturation
        self.p_cntr = [r.choice([0.0, 0.1, 0.4, 0.9]) for _ in range(4)]

    def draw_counters(self, rng, nr):
        return [sum(rng.random() < self.p_cntr[k] for _ in range(3))
                for k in range(nr)]

    def draw(self, rng):
        mis = rng.random() < self.p_mis
        cyc = self.cycles + rng.randint(0, self.cycles // 2)
        if mis:
            cyc += 15   # the refetch after a mispredicted branch
        return mis, min(cyc, 0xffff)


class Capture:
    def __init__(self, raw):
        if raw[:8] != b"PERFILE2":
            raise SystemExit("pd_branch_gen.py: not a little-endian "
                             "file-mode perf.data (compressed whole? "
                             "zstd -d it first)")
        self.raw = raw
        (_, self.hsize, self.attr_size, self.attrs_off, self.attrs_sz,
         self.data_off, self.data_sz, _, _) = struct.unpack_from(
            "<8sQQQQQQQQ", raw, 0)
        self.feat_bits = int.from_bytes(raw[72:104], "little")
        # attr_size is perf_file_attr's: the attr and its ids' section
        self.attr_size -= 16
        nr = self.attrs_sz // (self.attr_size + 16)
        self.attrs = []
        self.id_attr = {}
        for i in range(nr):
            off = self.attrs_off + i * (self.attr_size + 16)
            ids_off, ids_sz = struct.unpack_from("<QQ", raw,
                                                 off + self.attr_size)
            self.attrs.append(off)
            for k in range(ids_sz // 8):
                self.id_attr[struct.unpack_from(
                    "<Q", raw, ids_off + 8 * k)[0]] = i
            if ids_off + ids_sz > self.data_off or \
                    off + self.attr_size > self.data_off:
                raise SystemExit("pd_branch_gen.py: attrs after data")

    def sample_type(self, i):
        return struct.unpack_from("<Q", self.raw, self.attrs[i] + 24)[0]

    def read_format(self, i):
        return struct.unpack_from("<Q", self.raw, self.attrs[i] + 32)[0]

    def features(self):
        """[(bit, offset, size)] in the section table's order."""
        pos = self.data_off + self.data_sz
        out = []
        for bit in range(256):
            if self.feat_bits >> bit & 1:
                off, sz = struct.unpack_from("<QQ", self.raw, pos)
                out.append((bit, off, sz))
                pos += 16
        return out


def sample_attr(cap, body):
    if len(cap.attrs) == 1:
        return 0
    st = cap.sample_type(0)
    if st & SAMPLE_IDENTIFIER:
        ident = struct.unpack_from("<Q", body, 0)[0]
    else:
        raise SystemExit("pd_branch_gen.py: several events without "
                         "SAMPLE_IDENTIFIER")
    return cap.id_attr.get(ident, 0)


def split_sample(cap, ai, body):
    """(ip, pid, offset where the branch stack goes, deliveries: how
    many samples perf makes of it, one per value of a group read)."""
    st = cap.sample_type(ai)
    pos, ip, pid, deliveries = 0, 0, 0, 1
    if st & SAMPLE_IDENTIFIER:
        pos += 8
    if st & SAMPLE_IP:
        ip = struct.unpack_from("<Q", body, pos)[0]
        pos += 8
    if st & SAMPLE_TID:
        pid = struct.unpack_from("<I", body, pos)[0]
        pos += 8
    for bit in (SAMPLE_TIME, SAMPLE_ADDR, SAMPLE_ID, SAMPLE_STREAM_ID,
                SAMPLE_CPU, SAMPLE_PERIOD):
        if st & bit:
            pos += 8
    if st & SAMPLE_READ:
        rf = cap.read_format(ai)
        per = 8 + (8 if rf & FORMAT_ID else 0) + (8 if rf & FORMAT_LOST
                                                  else 0)
        head = (8 if rf & FORMAT_TOTAL_ENABLED else 0) + \
            (8 if rf & FORMAT_TOTAL_RUNNING else 0)
        if rf & FORMAT_GROUP:
            nr = struct.unpack_from("<Q", body, pos)[0]
            pos += 8 + head + nr * per
            deliveries = max(nr, 1)
        else:
            pos += head + per
    if st & SAMPLE_CALLCHAIN:
        nr = struct.unpack_from("<Q", body, pos)[0]
        pos += 8 + 8 * nr
    if st & SAMPLE_RAW:
        size = struct.unpack_from("<I", body, pos)[0]
        pos += 4 + size
    if st & SAMPLE_BRANCH_STACK:
        raise SystemExit("pd_branch_gen.py: the capture has branch "
                         "stacks already")
    return ip, pid, pos, deliveries


def bts_body(cap, ai, body, frm, to):
    """A sample's body as BTS writes it: ip frm, ADDR to after TIME,
    period 1, no callchain."""
    st = cap.sample_type(ai)
    if st & (SAMPLE_READ | SAMPLE_RAW | SAMPLE_ADDR):
        raise SystemExit("pd_branch_gen.py: bts: the capture samples "
                         "READ, RAW or ADDR")
    words, pos = [], 0
    for bit in (SAMPLE_IDENTIFIER, SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME,
                SAMPLE_ADDR, SAMPLE_ID, SAMPLE_STREAM_ID, SAMPLE_CPU,
                SAMPLE_PERIOD):
        if bit == SAMPLE_ADDR:
            words.append(to)
            continue
        if not st & bit:
            continue
        w = struct.unpack_from("<Q", body, pos)[0]
        pos += 8
        words.append(frm if bit == SAMPLE_IP else
                     1 if bit == SAMPLE_PERIOD else w)
    if st & SAMPLE_CALLCHAIN:
        nr = struct.unpack_from("<Q", body, pos)[0]
        pos += 8 + 8 * nr
    return struct.pack("<%dQ" % len(words), *words) + body[pos:]


def bts_attr(buf, off):
    """An attr made perf's branches:u with period 1, sampling ADDR
    and no callchain."""
    st, = struct.unpack_from("<Q", buf, off + 24)
    flags, = struct.unpack_from("<Q", buf, off + 40)
    struct.pack_into("<IIQQQ", buf, off, 0,
                     struct.unpack_from("<I", buf, off + 4)[0],
                     HW_BRANCH_INSTRUCTIONS, 1,
                     (st | SAMPLE_ADDR) & ~SAMPLE_CALLCHAIN)
    struct.pack_into("<Q", buf, off + 40, (flags & ~ATTR_FREQ) |
                     ATTR_EXCLUDE_KERNEL | ATTR_EXCLUDE_HV)


def mmap_of(rtype, body):
    """(pid, start, len, pgoff, filename) of an MMAP or MMAP2."""
    pid, _, start, length, pgoff = struct.unpack_from("<IIQQQ", body, 0)
    name_off = 32 if rtype == REC_MMAP else 32 + 24 + 8
    name = body[name_off:].split(b"\0", 1)[0].decode("utf-8", "replace")
    return pid, start, length, pgoff, name


HALF_SOURCE, HALF_TARGET = 1, 2


def draw_half(hrng, share):
    """0 (a complete record), HALF_SOURCE or HALF_TARGET."""
    if not share:
        return 0
    r = hrng.random()
    return HALF_SOURCE if r < share / 2 else HALF_TARGET if r < share \
        else 0


def branch_word(layout, kind, mis, cycles):
    _, pred, cyc, typ, spec, priv, _ = LAYOUTS[layout]
    w = 0
    if pred:
        w |= 1 if mis else 2
    if cyc:
        w |= cycles << 4
    if typ:
        w |= kind << 20
    if spec:
        w |= SPEC_NON_SPEC_CORRECT << 24
    if priv:
        w |= PRIV_USER << 30
    return w


class Truth:
    def __init__(self, layout, prog, sym):
        self.layout = layout
        self.prog = prog
        self.sym = sym
        self.pairs = {}
        self.blocks = {}
        self.sites = {}
        self.samples = 0
        self.entries = 0
        self.stacked = 0
        self.nr_cntr = 0
        self.halves = {}

    def add(self, site, to, mis, cycles, cntr=(), weight=1):
        """An entry, counted weight times: perf delivers a sample that
        reads its group once per value read."""
        key = (site.insn.addr, to)
        p = self.pairs.setdefault(key, {"count": 0, "mispred": 0,
                                        "cycles_sum": 0, "cycles": {},
                                        "cntr_sum": [0] * len(cntr),
                                        "cntr_sat": [0] * len(cntr),
                                        "with_cntr": 0})
        p["with_cntr"] += weight if cntr else 0
        for k, v in enumerate(cntr):
            p["cntr_sum"][k] += weight * v
            p["cntr_sat"][k] += weight * (v == 3)
        p["count"] += weight
        p["mispred"] += weight * int(mis)
        p["cycles_sum"] += weight * cycles
        p["cycles"][cycles] = p["cycles"].get(cycles, 0) + weight
        self.sites[site.insn.addr] = site
        self.entries += weight

    def add_half(self, half, site, to, mis, cycles, weight=1):
        """A half record: source-only (its from known) or target-only
        (its to known), counted by the end it has."""
        key = (half, site.insn.addr if half == HALF_SOURCE else to)
        h = self.halves.setdefault(key, {"count": 0, "mispred": 0,
                                         "cycles_sum": 0,
                                         "type": site.insn.kind})
        h["count"] += weight
        h["mispred"] += weight * int(mis)
        h["cycles_sum"] += weight * cycles
        self.entries += weight

    def add_block(self, start, end, cycles, weight=1):
        """The straight-line code from an entry's `to` (start) to the
        next newer entry's `from` (end), run in the entry's cycles."""
        b = self.blocks.setdefault((start, end), {"count": 0,
                                                  "cycles_sum": 0})
        b["count"] += weight
        b["cycles_sum"] += weight * cycles

    def json(self):
        _, pred, cyc, typ, spec, priv, _ = LAYOUTS[self.layout]
        blocks = []
        for (s, e) in sorted(self.blocks):
            b = self.blocks[(s, e)]
            blocks.append({
                "start": "0x%x" % s, "end": "0x%x" % e,
                "start_sym": self.sym(s), "end_sym": self.sym(e),
                "insns": self.prog.by_addr[e] - self.prog.by_addr[s] + 1,
                "count": b["count"],
                "cycles_sum": b["cycles_sum"] if cyc else None})
        sites = []
        for a in sorted(self.sites):
            s = self.sites[a]
            sites.append({"addr": "0x%x" % a, "sym": self.sym(a),
                          "mnemonic": s.insn.mnem,
                          "type": TYPE_NAMES[s.insn.kind],
                          "p_mispred": s.p_mis, "mean_cycles": s.cycles})
        pairs = []
        for (f, t) in sorted(self.pairs):
            p = self.pairs[(f, t)]
            pair = {
                "from": "0x%x" % f, "to": "0x%x" % t,
                "from_sym": self.sym(f), "to_sym": self.sym(t),
                "type": TYPE_NAMES[self.sites[f].insn.kind],
                "count": p["count"],
                "mispred": p["mispred"] if pred else None,
                "cycles_sum": p["cycles_sum"] if cyc else None,
                "cycles": {str(k): v for k, v in sorted(
                    p["cycles"].items())} if cyc else None}
            if self.nr_cntr:
                # per counting event: occurrences summed, and the
                # entries whose counter saturated
                pair["counters"] = p["cntr_sum"]
                pair["saturated"] = p["cntr_sat"]
                pair["with_counters"] = p["with_cntr"]
            pairs.append(pair)
        out = {"layout": self.layout, "arch": self.prog.arch,
                "prediction": pred, "cycles": cyc, "type_saved": typ,
                "spec": spec, "priv": priv,
                "addresses": "binary virtual addresses",
                "samples": self.samples, "samples_with_stack": self.stacked,
                "entries": self.entries, "sites": sites, "pairs": pairs,
                "blocks": blocks}
        if self.nr_cntr:
            out["counter_events"] = self.nr_cntr
        if self.halves:
            # per recorded end: source-only records by their from (with
            # prediction), target-only ones by their to (without)
            for half, key, end in ((HALF_SOURCE, "source_only", "from"),
                                   (HALF_TARGET, "target_only", "to")):
                out[key] = [{
                    end: "0x%x" % a, end + "_sym": self.sym(a),
                    "type": TYPE_NAMES[h["type"]], "count": h["count"],
                    "mispred": h["mispred"] if half == HALF_SOURCE
                    and pred else None,
                    "cycles_sum": h["cycles_sum"] if cyc else None}
                    for (k, a), h in sorted(self.halves.items())
                    if k == half]
        return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("binary")
    ap.add_argument("recorded")
    ap.add_argument("layout", choices=sorted(LAYOUTS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--truth")
    ap.add_argument("--depth", type=int)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--objdump", default="llvm-objdump")
    ap.add_argument("--half", type=float, default=0.0,
                    help="brbe layouts: the share of entries recorded "
                    "half, source-only and target-only alike")
    ap.add_argument("--counters", type=int, default=2,
                    help="intel-cntr: the number of events, from the "
                    "first, that count (at most 4)")
    a = ap.parse_args(argv[1:])

    with open(a.inp, "rb") as fh:
        cap = Capture(fh.read())
    segs, arch = load_segments(a.binary)
    prog = Program(disassemble(a.objdump, a.binary, arch), arch)
    funcs = {}
    for i in prog.insns:
        funcs.setdefault(i.func, i.addr)
    starts = sorted((v, k) for k, v in funcs.items())

    def sym(addr):
        best = None
        for s, name in starts:
            if s > addr:
                break
            best = (s, name)
        return "%s+0x%x" % (best[1], addr - best[0]) if best else "?"

    bst, _, _, _, _, _, depth = LAYOUTS[a.layout]
    depth = a.depth or depth
    nr_cntr = 0
    if bst & BR_COUNTERS:
        nr_cntr = a.counters
        if not 1 <= nr_cntr <= min(4, len(cap.attrs)):
            raise SystemExit("pd_branch_gen.py: --counters %d: 1 to 4 "
                             "events of the capture's %d" %
                             (nr_cntr, len(cap.attrs)))
    rng = random.Random(a.seed)
    # half records drawn apart, so that --half 0 writes what it did
    hrng = random.Random("%d:half" % a.seed)
    if a.half and not LAYOUTS[a.layout][5]:
        raise SystemExit("pd_branch_gen.py: --half: BRBE layouts only")
    sites = {}
    truth = Truth(a.layout, prog, sym)
    truth.nr_cntr = nr_cntr
    maps = {}       # pid -> [(start, end, pgoff)]
    raw = cap.raw
    out = bytearray()
    pos, end = cap.data_off, cap.data_off + cap.data_sz
    hw_idx = 0

    def to_vaddr(pid, ip):
        for start, stop, pgoff in maps.get(pid, ()):
            if start <= ip < stop:
                off = ip - start + pgoff
                for s_off, s_va, s_sz in segs:
                    if s_off <= off < s_off + s_sz:
                        return off - s_off + s_va, start - pgoff + \
                            s_off - s_va
        return None, None

    while pos + 8 <= end:
        rtype, misc, size = struct.unpack_from("<IHH", raw, pos)
        if size < 8 or pos + size > end:
            raise SystemExit("pd_branch_gen.py: bad record at %#x" % pos)
        body = raw[pos + 8:pos + size]
        if rtype in (REC_MMAP, REC_MMAP2):
            pid, start, length, pgoff, name = mmap_of(rtype, body)
            if name == a.recorded:
                maps.setdefault(pid, []).append((start, start + length,
                                                 pgoff))
        if rtype != REC_SAMPLE:
            out += raw[pos:pos + size]
            pos += size
            continue
        ai = sample_attr(cap, body)
        ip, pid, at, deliveries = split_sample(cap, ai, body)
        if a.layout == "bts":
            va, bias = to_vaddr(pid, ip)
            step = prog.step_back(va, rng) if va is not None else None
            if step:
                b, to = step
                nbody = bts_body(cap, ai, body, b.addr + bias, to + bias)
                out += struct.pack("<IHH", rtype, misc, len(nbody) + 8) + \
                    nbody
                site = sites.get(b.addr)
                if not site:
                    site = sites[b.addr] = Site(a.seed, b)
                truth.add(site, to, False, 0)
                truth.samples += 1
                truth.stacked += 1
            pos += size
            continue
        for _ in range(a.repeat):
            entries = []
            va, bias = to_vaddr(pid, ip)
            cur = va
            while cur is not None and len(entries) < depth:
                step = prog.step_back(cur, rng)
                if not step:
                    break
                b, to = step
                site = sites.get(b.addr)
                if not site:
                    site = sites[b.addr] = Site(a.seed, b)
                mis, cyc = site.draw(rng)
                cntr = site.draw_counters(rng, nr_cntr) \
                    if ai < nr_cntr else []
                half = draw_half(hrng, a.half)
                word = branch_word(a.layout, b.kind, mis, cyc)
                ends = (b.addr + bias, to + bias)
                if half == HALF_SOURCE:
                    # the target's level was not recorded: no target,
                    # no privilege (the kernel's source-only record)
                    ends = (ends[0], 0)
                    word &= ~(7 << 30)
                    truth.add_half(half, site, to, mis, cyc, deliveries)
                elif half == HALF_TARGET:
                    # the source's level was not: no source, no
                    # prediction (a target-only record)
                    ends = (0, ends[1])
                    word &= ~3
                    truth.add_half(half, site, to, mis, cyc, deliveries)
                else:
                    truth.add(site, to, mis, cyc, cntr, deliveries)
                # this entry's cycles are those of the block it ends,
                # which starts at the older entry's `to`, drawn next:
                # unknown where either end was not recorded
                if entries and half != HALF_SOURCE and \
                        entries[-1][5] != HALF_TARGET:
                    truth.add_block(to, entries[-1][0] - bias,
                                    entries[-1][3], deliveries)
                entries.append(ends + (word, cyc, cntr, half))
                cur = b.addr
            truth.samples += 1
            truth.stacked += bool(entries)
            bs = struct.pack("<Q", len(entries))
            if bst & BR_HW_INDEX:
                bs += struct.pack("<Q", hw_idx)
                hw_idx = (hw_idx + len(entries)) % 32
            for f, t, w, _, _, _ in entries:
                bs += struct.pack("<QQQ", f, t, w)
            if ai < nr_cntr:
                for e in entries:
                    bs += struct.pack("<Q", sum(v << (2 * k) for k, v
                                                in enumerate(e[4])))
            nbody = body[:at] + bs + body[at:]
            if len(nbody) + 8 > 0xffff:
                raise SystemExit("pd_branch_gen.py: a sample outgrows "
                                 "64 KiB: --depth")
            out += struct.pack("<IHH", rtype, misc, len(nbody) + 8) + nbody
        pos += size

    # the header, attrs and ids as they were, but every event samples
    # branch stacks; the data; then the features, moved by the data's
    # growth, with HEADER_BRANCH_STACK (empty, as perf writes it)
    head = bytearray(raw[:cap.data_off])
    for i, off in enumerate(cap.attrs):
        if a.layout == "bts":
            bts_attr(head, off)
            continue
        st, = struct.unpack_from("<Q", head, off + 24)
        struct.pack_into("<Q", head, off + 24, st | SAMPLE_BRANCH_STACK)
        struct.pack_into("<Q", head, off + 72, attr_bst(bst, i, nr_cntr))
    feats = cap.features()
    bits = cap.feat_bits | (1 << FEAT_BRANCH_STACK if bst else 0)
    if nr_cntr:
        bits |= 1 << FEAT_CPU_PMU_CAPS
    table_len = 16 * bin(bits).count("1")
    old_table = 16 * len(feats)
    base = cap.data_off + len(out) + table_len
    feat_bytes = bytearray()
    table = bytearray()
    old = {bit: (off, sz) for bit, off, sz in feats}
    for bit in range(256):
        if not bits >> bit & 1:
            continue
        if bit in old:
            off, sz = old[bit]
            chunk = bytearray(raw[off:off + sz])
            if bit == FEAT_EVENT_DESC and a.layout == "bts":
                chunk = bts_event_desc(chunk)
            elif bit == FEAT_EVENT_DESC:
                patch_event_desc(chunk, bst, nr_cntr)
        elif bit == FEAT_CPU_PMU_CAPS:
            chunk = cpu_pmu_caps(CNTR_CAPS)
        else:
            chunk = bytearray()
        table += struct.pack("<QQ", base + len(feat_bytes), len(chunk))
        feat_bytes += chunk
    del old_table
    struct.pack_into("<QQ", head, 40, cap.data_off, len(out))
    struct.pack_into("<4Q", head, 72, *[(bits >> (64 * k)) & (2**64 - 1)
                                        for k in range(4)])
    with open(a.out, "wb") as fh:
        fh.write(head + out + table + feat_bytes)
    if a.truth:
        with open(a.truth, "w") as fh:
            json.dump(truth.json(), fh, indent=1, sort_keys=True)
            fh.write("\n")
    return 0


def attr_bst(bst, i, nr_cntr):
    """Event i's branch_sample_type: counters only for the counting
    group's events."""
    return bst if i < nr_cntr else bst & ~BR_COUNTERS


# the cpu PMU's caps of an Intel core with branch counters (sysfs's
# /sys/bus/event_source/devices/cpu/caps, as perf record writes them)
CNTR_CAPS = [("branch_counter_nr", "4"), ("branch_counter_width", "2"),
             ("branches", "32"), ("max_precise", "3"),
             ("pmu_name", "sierra_forest")]


def perf_string(text):
    """perf's do_write_string: u32 length padded to 64, then the bytes"""
    raw = text.encode() + b"\0"
    raw += bytes(-len(raw) % 64)
    return struct.pack("<I", len(raw)) + raw


def cpu_pmu_caps(caps):
    """HEADER_CPU_PMU_CAPS: u32 nr, then {name, value} strings."""
    out = bytearray(struct.pack("<I", len(caps)))
    for name, value in caps:
        out += perf_string(name) + perf_string(value)
    return out


def patch_event_desc(chunk, bst, nr_cntr):
    """HEADER_EVENT_DESC's copies of the attrs sample branch stacks too."""
    nr, attr_size = struct.unpack_from("<II", chunk, 0)
    pos = 8
    for i in range(nr):
        st, = struct.unpack_from("<Q", chunk, pos + 24)
        struct.pack_into("<Q", chunk, pos + 24, st | SAMPLE_BRANCH_STACK)
        struct.pack_into("<Q", chunk, pos + 72, attr_bst(bst, i, nr_cntr))
        pos += attr_size
        nr_ids, = struct.unpack_from("<I", chunk, pos)
        slen, = struct.unpack_from("<I", chunk, pos + 4)
        pos += 8 + slen + 8 * nr_ids


def bts_event_desc(chunk):
    """HEADER_EVENT_DESC with the attrs made branches:u (bts_attr) and
    named so."""
    nr, attr_size = struct.unpack_from("<II", chunk, 0)
    out, pos = bytearray(chunk[:8]), 8
    name = BTS_NAME + b"\0" * (8 - len(BTS_NAME) % 8)
    for _ in range(nr):
        attr = bytearray(chunk[pos:pos + attr_size])
        bts_attr(attr, 0)
        pos += attr_size
        nr_ids, slen = struct.unpack_from("<II", chunk, pos)
        ids = chunk[pos + 8 + slen:pos + 8 + slen + 8 * nr_ids]
        pos += 8 + slen + 8 * nr_ids
        out += attr + struct.pack("<II", nr_ids, len(name)) + name + ids
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv))
