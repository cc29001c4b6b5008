#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_swap.py - rewrite a little-endian perf.data as a big-endian host
(s390x, ppc64) would have written the same records.

    pd_swap.py [-v] IN OUT

IN is a little-endian perf.data in file mode, pipe mode or the directory
format of perf record --threads; OUT is written in the same form.  This is the independent check for pdtool's big-endian
reading (issue 2): it shares no code or tables with the C reader, and it
converts from the writer's point of view, field by field, the way the
kernel and perf lay the structures out on a big-endian machine.  perf's own
reader takes short cuts that this program must not copy (it swaps whole
samples as u64 words and reverses the bits of each byte of the attr flags),
so where the two differ the comments below say which is the writer's view.

What a big-endian writer does, and so what this program does:
  * Every integer field is stored most significant byte first, at the same
    offset.  Structures keep their layout: a {u32 pid, tid} pair stays two
    u32s in that order, each swapped on its own.
  * Bit-fields are allocated from the most significant bit of their storage
    unit (the s390x and ppc64 ABIs), so a field at little-endian bit offset o
    with width w in a 64-bit unit sits at bit 64 - o - w of the big-endian
    word.  This matters for perf_event_attr's flags (precise_ip is 2 bits
    wide), aux_action (a u32 unit) and perf_branch_entry's flags (cycles,
    type, spec, new_type and priv are several bits wide).  The uapi unions
    that define a big-endian variant (perf_mem_data_src, perf_sample_weight)
    keep their numeric value, so they are plain u64 swaps.
  * Strings, build-id bytes, user stack dumps and AUX data are memory and
    stay as they are.  PERF_SAMPLE_RAW keeps its payload: only its u32 size
    is swapped.  The tracing data blob (HEADER_TRACING_DATA feature and
    record) and BPF BTF blobs declare their own byte order inside, and the
    RAW payloads are in the tracing data's order, so both are left
    little-endian together: a reader must take the tracepoint byte order
    from the tracing data header, as perf does.
  * COMPRESSED and COMPRESSED2 payloads hold records, which a big-endian
    host writes big-endian: the zstd stream is decompressed chunk by chunk
    as perf's reader does, the records are converted, and the big-endian
    bytes are compressed again as one stream flushed at the end of each
    chunk, at the level the COMPRESSED feature names, as perf's writer does.
    Every chunk decompresses to as many bytes as before, so records that
    span two chunks still do.  The compressed sizes change, so offsets after
    the first compressed record move; the AUXTRACE index and every header
    offset are updated to match.

Everything is checked: each byte of a record, attr, id array and feature
section must be claimed by exactly one field, a record whose fields do not
add up to its size is an error, and a feature section, record type or attr
field this program does not know stops it with a message naming it.

Exit status: 0 written, 1 malformed input or I/O error, 3 the input holds
something this program does not model (the message names it), 64 usage.
"""

import os
import struct
import sys
import weakref

MAGIC_LE = b"PERFILE2"
MAGIC_BE = b"2ELIFREP"


class Malformed(Exception):
    """The input is not a well-formed little-endian perf.data."""


class Unsupported(Exception):
    """The input holds something this converter does not model."""


# perf_event_attr.sample_type bits (include/uapi/linux/perf_event.h)
S_IP = 1 << 0
S_TID = 1 << 1
S_TIME = 1 << 2
S_ADDR = 1 << 3
S_READ = 1 << 4
S_CALLCHAIN = 1 << 5
S_ID = 1 << 6
S_CPU = 1 << 7
S_PERIOD = 1 << 8
S_STREAM_ID = 1 << 9
S_RAW = 1 << 10
S_BRANCH_STACK = 1 << 11
S_REGS_USER = 1 << 12
S_STACK_USER = 1 << 13
S_WEIGHT = 1 << 14
S_DATA_SRC = 1 << 15
S_IDENTIFIER = 1 << 16
S_TRANSACTION = 1 << 17
S_REGS_INTR = 1 << 18
S_PHYS_ADDR = 1 << 19
S_AUX = 1 << 20
S_CGROUP = 1 << 21
S_DATA_PAGE_SIZE = 1 << 22
S_CODE_PAGE_SIZE = 1 << 23
S_WEIGHT_STRUCT = 1 << 24
S_KNOWN = (1 << 25) - 1

# read_format bits
R_TOTAL_TIME_ENABLED = 1 << 0
R_TOTAL_TIME_RUNNING = 1 << 1
R_ID = 1 << 2
R_GROUP = 1 << 3
R_LOST = 1 << 4

# branch_sample_type bits that change the sample layout
B_HW_INDEX = 1 << 17
B_COUNTERS = 1 << 19

MISC_MMAP_BUILD_ID = 1 << 14
ATTR_FLAG_SAMPLE_ID_ALL = 1 << 18

# Bit-field layouts as (little-endian bit offset, width) in their unit.
# perf_event_attr flags: every field is one bit wide except precise_ip:2 at
# bit 15; the reserved tail is zero and handled bit by bit.
ATTR_FLAG_FIELDS = ([(o, 1) for o in range(15)] + [(15, 2)] +
                    [(o, 1) for o in range(17, 64)])
# perf_event_attr aux_action (u32): aux_start_paused, aux_pause,
# aux_resume, __reserved_3:29.
AUX_ACTION_FIELDS = [(0, 1), (1, 1), (2, 1), (3, 29)]
# perf_branch_entry flags: mispred, predicted, in_tx, abort, cycles:16,
# type:4, spec:2, new_type:4, priv:3, reserved:31.
BRANCH_FLAG_FIELDS = [(0, 1), (1, 1), (2, 1), (3, 1), (4, 16), (20, 4),
                      (24, 2), (26, 4), (30, 3), (33, 31)]

REC_NAMES = {
    1: "MMAP", 2: "LOST", 3: "COMM", 4: "EXIT", 5: "THROTTLE",
    6: "UNTHROTTLE", 7: "FORK", 8: "READ", 9: "SAMPLE", 10: "MMAP2",
    11: "AUX", 12: "ITRACE_START", 13: "LOST_SAMPLES", 14: "SWITCH",
    15: "SWITCH_CPU_WIDE", 16: "NAMESPACES", 17: "KSYMBOL",
    18: "BPF_EVENT", 19: "CGROUP", 20: "TEXT_POKE", 21: "AUX_OUTPUT_HW_ID",
    22: "CALLCHAIN_DEFERRED",
    64: "HEADER_ATTR", 65: "HEADER_EVENT_TYPE", 66: "HEADER_TRACING_DATA",
    67: "HEADER_BUILD_ID", 68: "FINISHED_ROUND", 69: "ID_INDEX",
    70: "AUXTRACE_INFO", 71: "AUXTRACE", 72: "AUXTRACE_ERROR",
    73: "THREAD_MAP", 74: "CPU_MAP", 75: "STAT_CONFIG", 76: "STAT",
    77: "STAT_ROUND", 78: "EVENT_UPDATE", 79: "TIME_CONV",
    80: "HEADER_FEATURE", 81: "COMPRESSED", 82: "FINISHED_INIT",
    83: "COMPRESSED2", 84: "BPF_METADATA",
}
REC_COMPRESSED = 81
REC_COMPRESSED2 = 83

FEAT_NAMES = {
    1: "TRACING_DATA", 2: "BUILD_ID", 3: "HOSTNAME", 4: "OSRELEASE",
    5: "VERSION", 6: "ARCH", 7: "NRCPUS", 8: "CPUDESC", 9: "CPUID",
    10: "TOTAL_MEM", 11: "CMDLINE", 12: "EVENT_DESC", 13: "CPU_TOPOLOGY",
    14: "NUMA_TOPOLOGY", 15: "BRANCH_STACK", 16: "PMU_MAPPINGS",
    17: "GROUP_DESC", 18: "AUXTRACE", 19: "STAT", 20: "CACHE",
    21: "SAMPLE_TIME", 22: "MEM_TOPOLOGY", 23: "CLOCKID", 24: "DIR_FORMAT",
    25: "BPF_PROG_INFO", 26: "BPF_BTF", 27: "COMPRESSED", 28: "CPU_PMU_CAPS",
    29: "CLOCK_DATA", 30: "HYBRID_TOPOLOGY", 31: "PMU_CAPS",
    32: "CPU_DOMAIN_INFO", 33: "E_MACHINE", 34: "CLN_SIZE",
}
FEAT_NRCPUS = 7
FEAT_COMPRESSED = 27


def feat_name(feat):
    return FEAT_NAMES.get(feat, "unknown feature %d" % feat)


def rec_name(rtype):
    return REC_NAMES.get(rtype, "record type %d" % rtype)


def be_bitfield(value, fields, bits):
    """Re-lay a little-endian bit-field unit as a big-endian compiler does."""
    out = 0
    for off, width in fields:
        out |= ((value >> off) & ((1 << width) - 1)) << (bits - off - width)
    return out


def popcount(value):
    return bin(value).count("1")


def align8(n):
    return (n + 7) & ~7


class Buf:
    """A little-endian source, its big-endian image and a byte claim map.

    Every conversion claims the bytes it covers; claiming a byte twice is a
    bug in this program, and a structure left with unclaimed bytes means a
    field was not accounted for.
    """

    def __init__(self, data, name):
        self.src = bytes(data)
        self.out = bytearray(data)
        self.cov = bytearray(len(data))
        self.name = name

    def claim(self, off, size, what):
        if off < 0 or size < 0 or off + size > len(self.src):
            raise Malformed("%s: %s at offset %#x (%d bytes) runs past the "
                            "end (%#x)" % (self.name, what, off, size,
                                           len(self.src)))
        if size and self.cov.find(1, off, off + size) != -1:
            raise Malformed("%s: %s at %#x overlaps a structure already "
                            "converted" % (self.name, what, off))
        self.cov[off:off + size] = b"\x01" * size

    def get(self, fmt, off):
        return struct.unpack_from("<" + fmt, self.src, off)[0]

    def swap(self, fmt, off, what):
        self.claim(off, struct.calcsize(fmt), what)
        value = struct.unpack_from("<" + fmt, self.src, off)[0]
        struct.pack_into(">" + fmt, self.out, off, value)
        return value

    def put(self, fmt, off, value, what):
        """Store a value this program computed (a moved offset, a bit-field
        laid out for big-endian) in big-endian order."""
        self.claim(off, struct.calcsize(fmt), what)
        struct.pack_into(">" + fmt, self.out, off, value)

    def keep(self, off, size, what):
        self.claim(off, size, what)

    def first_unclaimed(self, lo, hi):
        return self.cov.find(0, lo, hi)


class Cur:
    """A cursor over [pos, end) of a Buf, for one named structure."""

    def __init__(self, buf, pos, end, what):
        if end > len(buf.src):
            raise Malformed("%s: %s at %#x ends at %#x, past the end (%#x)"
                            % (buf.name, what, pos, end, len(buf.src)))
        self.buf = buf
        self.pos = pos
        self.end = end
        self.what = what

    def need(self, size, field):
        if size < 0 or self.pos + size > self.end:
            raise Malformed("%s: %s at %#x: field %s (%d bytes) runs past "
                            "its end (%d bytes left)"
                            % (self.buf.name, self.what, self.pos, field,
                               size, self.end - self.pos))

    def _swap(self, fmt, size, field):
        self.need(size, field)
        value = self.buf.swap(fmt, self.pos, self.what + "." + field)
        self.pos += size
        return value

    def u16(self, field):
        return self._swap("H", 2, field)

    def u32(self, field):
        return self._swap("I", 4, field)

    def u64(self, field):
        return self._swap("Q", 8, field)

    def u64s(self, count, field):
        self.need(8 * count, field)
        for _ in range(count):
            self._swap("Q", 8, field)

    def put_u64(self, value, field):
        self.need(8, field)
        self.buf.put("Q", self.pos, value, self.what + "." + field)
        self.pos += 8

    def peek(self, fmt):
        self.need(struct.calcsize(fmt), "peek")
        return self.buf.get(fmt, self.pos)

    def bitfield64(self, fields, field):
        self.need(8, field)
        value = self.buf.get("Q", self.pos)
        self.put_u64(be_bitfield(value, fields, 64), field)
        return value

    def bitfield32(self, fields, field):
        self.need(4, field)
        value = self.buf.get("I", self.pos)
        self.buf.put("I", self.pos, be_bitfield(value, fields, 32),
                     self.what + "." + field)
        self.pos += 4
        return value

    def keep(self, size, field):
        self.need(size, field)
        self.buf.keep(self.pos, size, self.what + "." + field)
        data = self.buf.src[self.pos:self.pos + size]
        self.pos += size
        return data

    def string(self, field):
        """perf's do_write_string(): u32 padded length, then the bytes."""
        size = self.u32(field + ".len")
        return self.keep(size, field)

    def rest(self, field):
        return self.keep(self.end - self.pos, field)

    def left(self):
        return self.end - self.pos

    def peek_bytes(self):
        return self.buf.src[self.pos:self.end]

    def done(self):
        if self.pos != self.end:
            raise Malformed("%s: %s: %d bytes left over after its last "
                            "field" % (self.buf.name, self.what,
                                       self.end - self.pos))


class Attr:
    """The layout-relevant part of one perf_event_attr, read little-endian."""

    def __init__(self, buf, off, size):
        get = buf.get
        self.sample_type = get("Q", off + 24)
        self.read_format = get("Q", off + 32)
        flags = get("Q", off + 40)
        self.sample_id_all = bool(flags & ATTR_FLAG_SAMPLE_ID_ALL)
        self.branch_sample_type = get("Q", off + 72) if size >= 80 else 0
        self.regs_user = get("Q", off + 80) if size >= 88 else 0
        self.regs_intr = get("Q", off + 96) if size >= 104 else 0
        self.ids = []
        if self.sample_type & ~S_KNOWN:
            raise Unsupported("perf_event_attr sample_type %#x has bits this "
                              "converter does not know"
                              % (self.sample_type & ~S_KNOWN))

    def layout(self):
        return (self.sample_type, self.read_format, self.sample_id_all,
                self.branch_sample_type, popcount(self.regs_user),
                popcount(self.regs_intr))

    def id_trailer_size(self):
        if not self.sample_id_all:
            return 0
        return 8 * popcount(self.sample_type & (S_TID | S_TIME | S_ID |
                                                S_STREAM_ID | S_CPU |
                                                S_IDENTIFIER))


# perf_event_attr fields by offset, as (offset, struct format, name); the
# flags word and aux_action are bit-fields and handled on their own.
ATTR_FIELDS = [
    (0, "I", "type"), (4, "I", "size"), (8, "Q", "config"),
    (16, "Q", "sample_period"), (24, "Q", "sample_type"),
    (32, "Q", "read_format"), (40, None, "flags"),
    (48, "I", "wakeup_events"), (52, "I", "bp_type"), (56, "Q", "config1"),
    (64, "Q", "config2"), (72, "Q", "branch_sample_type"),
    (80, "Q", "sample_regs_user"), (88, "I", "sample_stack_user"),
    (92, "i", "clockid"), (96, "Q", "sample_regs_intr"),
    (104, "I", "aux_watermark"), (108, "H", "sample_max_stack"),
    (110, "H", "__reserved_2"), (112, "I", "aux_sample_size"),
    (116, None, "aux_action"), (120, "Q", "sig_data"), (128, "Q", "config3"),
]
ATTR_SIZE_VER0 = 64
ATTR_SIZE_KNOWN = 136


def conv_attr(buf, off, room, what):
    """Convert one perf_event_attr at off with room bytes for it; returns
    (Attr, bytes used).  attr.size 0 means the first ABI (64 bytes)."""
    size = buf.get("I", off + 4) if room >= 8 else 0
    if room < ATTR_SIZE_VER0:
        raise Malformed("%s: %s at %#x: %d bytes, fewer than the %d of the "
                        "first perf_event_attr" % (buf.name, what, off, room,
                                                   ATTR_SIZE_VER0))
    if size == 0:
        size = ATTR_SIZE_VER0
    if size > room:
        raise Malformed("%s: %s at %#x: attr.size %d but only %d bytes"
                        % (buf.name, what, off, size, room))
    if size > ATTR_SIZE_KNOWN:
        raise Unsupported("%s: %s at %#x: perf_event_attr of %d bytes; the "
                          "fields past config3 (%d bytes) are unknown here"
                          % (buf.name, what, off, size, ATTR_SIZE_KNOWN))
    if size % 8:
        raise Malformed("%s: %s at %#x: attr.size %d is not a multiple of 8"
                        % (buf.name, what, off, size))
    attr = Attr(buf, off, size)
    cur = Cur(buf, off, off + size, what)
    for foff, fmt, name in ATTR_FIELDS:
        if foff >= size:
            break
        if name == "flags":
            cur.bitfield64(ATTR_FLAG_FIELDS, name)
        elif name == "aux_action":
            cur.bitfield32(AUX_ACTION_FIELDS, name)
        else:
            cur._swap(fmt, struct.calcsize(fmt), name)
    cur.done()
    return attr, size


class State:
    """What the records of one file need to be decoded: attrs and ids."""

    def __init__(self):
        self.attrs = []
        self.by_id = {}
        self.nr_cpus_avail = None
        self.comp_level = None

    def add_attr(self, attr, ids):
        attr.ids = list(ids)
        self.attrs.append(attr)
        for i in ids:
            self.by_id.setdefault(i, attr)

    def _need_attr(self, what):
        if not self.attrs:
            raise Malformed("%s comes before any perf_event_attr" % what)

    def _by_id(self, ident, what):
        attr = self.by_id.get(ident)
        if attr is not None:
            return attr
        if ident == 0:
            # perf synthesizes records with a zeroed sample_id, laid out
            # for the first event (evlist__event2evsel() says so too)
            return self.attrs[0]
        # perf falls back to the first event as well; refuse only when that
        # could change the layout.
        first = self.attrs[0].layout()
        if any(a.layout() != first for a in self.attrs[1:]):
            raise Malformed("%s: id %d matches no attr and the attrs differ "
                            "in layout" % (what, ident))
        return self.attrs[0]

    def sample_attr(self, buf, body, end, what):
        """The attr of a SAMPLE whose fields start at body: found by id at
        the position the first attr's sample_type gives, as perf does."""
        self._need_attr(what)
        if len(self.attrs) == 1:
            return self.attrs[0]
        stype = self.attrs[0].sample_type
        if stype & S_IDENTIFIER:
            pos = body
        elif stype & S_ID:
            pos = body + 8 * popcount(stype & (S_IP | S_TID | S_TIME |
                                               S_ADDR))
        else:
            return self.attrs[0]
        if pos + 8 > end:
            raise Malformed("%s: too short to hold its id" % what)
        return self._by_id(buf.get("Q", pos), what)

    def trailer_attr(self, buf, start, end, what):
        """The attr of a non-sample kernel record's sample_id trailer, found
        by its id counted from the end of the record."""
        self._need_attr(what)
        first = self.attrs[0]
        if len(self.attrs) == 1 or not first.sample_id_all:
            return first
        stype = first.sample_type
        if stype & S_IDENTIFIER:
            back = 1
        elif stype & S_ID:
            back = 1 + popcount(stype & (S_STREAM_ID | S_CPU))
        else:
            return first
        pos = end - 8 * back
        if pos < start:
            raise Malformed("%s: too short to hold a sample_id" % what)
        return self._by_id(buf.get("Q", pos), what)


def conv_read_format(cur, read_format):
    if read_format & R_GROUP:
        nr = cur.u64("read.nr")
        if read_format & R_TOTAL_TIME_ENABLED:
            cur.u64("read.time_enabled")
        if read_format & R_TOTAL_TIME_RUNNING:
            cur.u64("read.time_running")
        per = 1 + bool(read_format & R_ID) + bool(read_format & R_LOST)
        cur.u64s(nr * per, "read.values")
    else:
        cur.u64("read.value")
        if read_format & R_TOTAL_TIME_ENABLED:
            cur.u64("read.time_enabled")
        if read_format & R_TOTAL_TIME_RUNNING:
            cur.u64("read.time_running")
        if read_format & R_ID:
            cur.u64("read.id")
        if read_format & R_LOST:
            cur.u64("read.lost")


def conv_regs(cur, mask, field):
    abi = cur.u64(field + ".abi")
    if abi:
        cur.u64s(popcount(mask), field + ".regs")


def conv_sample(buf, off, end, st, what):
    body = off + 8
    attr = st.sample_attr(buf, body, end, what)
    stype = attr.sample_type
    cur = Cur(buf, body, end, what)
    if stype & S_IDENTIFIER:
        cur.u64("identifier")
    if stype & S_IP:
        cur.u64("ip")
    if stype & S_TID:
        cur.u32("pid")
        cur.u32("tid")
    if stype & S_TIME:
        cur.u64("time")
    if stype & S_ADDR:
        cur.u64("addr")
    if stype & S_ID:
        cur.u64("id")
    if stype & S_STREAM_ID:
        cur.u64("stream_id")
    if stype & S_CPU:
        cur.u32("cpu")
        cur.u32("res")
    if stype & S_PERIOD:
        cur.u64("period")
    if stype & S_READ:
        conv_read_format(cur, attr.read_format)
    if stype & S_CALLCHAIN:
        cur.u64s(cur.u64("callchain.nr"), "callchain.ips")
    if stype & S_RAW:
        cur.keep(cur.u32("raw.size"), "raw.data")
    if stype & S_BRANCH_STACK:
        nr = cur.u64("branch_stack.nr")
        if attr.branch_sample_type & B_HW_INDEX:
            cur.u64("branch_stack.hw_idx")
        cur.need(24 * nr, "branch_stack.entries")
        for _ in range(nr):
            cur.u64("branch.from")
            cur.u64("branch.to")
            cur.bitfield64(BRANCH_FLAG_FIELDS, "branch.flags")
        if attr.branch_sample_type & B_COUNTERS:
            cur.u64s(nr, "branch_stack.counters")
    if stype & S_REGS_USER:
        conv_regs(cur, attr.regs_user, "regs_user")
    if stype & S_STACK_USER:
        size = cur.u64("stack_user.size")
        if size:
            cur.keep(size, "stack_user.data")
            cur.u64("stack_user.dyn_size")
    if stype & (S_WEIGHT | S_WEIGHT_STRUCT):
        cur.u64("weight")
    if stype & S_DATA_SRC:
        cur.u64("data_src")
    if stype & S_TRANSACTION:
        cur.u64("transaction")
    if stype & S_REGS_INTR:
        conv_regs(cur, attr.regs_intr, "regs_intr")
    if stype & S_PHYS_ADDR:
        cur.u64("phys_addr")
    if stype & S_CGROUP:
        cur.u64("cgroup")
    if stype & S_DATA_PAGE_SIZE:
        cur.u64("data_page_size")
    if stype & S_CODE_PAGE_SIZE:
        cur.u64("code_page_size")
    if stype & S_AUX:
        cur.keep(cur.u64("aux.size"), "aux.data")
    cur.done()


def conv_sample_id(buf, pos, end, attr, what):
    cur = Cur(buf, pos, end, what + ".sample_id")
    stype = attr.sample_type
    if stype & S_TID:
        cur.u32("pid")
        cur.u32("tid")
    if stype & S_TIME:
        cur.u64("time")
    if stype & S_ID:
        cur.u64("id")
    if stype & S_STREAM_ID:
        cur.u64("stream_id")
    if stype & S_CPU:
        cur.u32("cpu")
        cur.u32("res")
    if stype & S_IDENTIFIER:
        cur.u64("identifier")
    cur.done()


def conv_kernel_body(cur, rtype, misc):
    """The fixed fields of a kernel record other than SAMPLE."""
    if rtype in (1, 10):                        # MMAP, MMAP2
        cur.u32("pid")
        cur.u32("tid")
        cur.u64("start")
        cur.u64("len")
        cur.u64("pgoff")
        if rtype == 10:
            if misc & MISC_MMAP_BUILD_ID:
                cur.keep(2, "build_id_size")
                cur.u16("__reserved_2")
                cur.keep(20, "build_id")
            else:
                cur.u32("maj")
                cur.u32("min")
                cur.u64("ino")
                cur.u64("ino_generation")
            cur.u32("prot")
            cur.u32("flags")
        cur.rest("filename")
    elif rtype == 2:                            # LOST
        cur.u64("id")
        cur.u64("lost")
    elif rtype == 3:                            # COMM
        cur.u32("pid")
        cur.u32("tid")
        cur.rest("comm")
    elif rtype in (4, 7):                       # EXIT, FORK
        cur.u32("pid")
        cur.u32("ppid")
        cur.u32("tid")
        cur.u32("ptid")
        cur.u64("time")
    elif rtype in (5, 6):                       # THROTTLE, UNTHROTTLE
        cur.u64("time")
        cur.u64("id")
        cur.u64("stream_id")
    elif rtype == 8:                            # READ: pid, tid, read_format
        cur.u32("pid")
        cur.u32("tid")
        if cur.left() % 8:
            raise Malformed("%s: values are not u64 words" % cur.what)
        cur.u64s(cur.left() // 8, "values")
    elif rtype == 11:                           # AUX
        cur.u64("aux_offset")
        cur.u64("aux_size")
        cur.u64("flags")
    elif rtype == 12:                           # ITRACE_START
        cur.u32("pid")
        cur.u32("tid")
    elif rtype == 13:                           # LOST_SAMPLES
        cur.u64("lost")
    elif rtype == 14:                           # SWITCH
        pass
    elif rtype == 15:                           # SWITCH_CPU_WIDE
        cur.u32("next_prev_pid")
        cur.u32("next_prev_tid")
    elif rtype == 16:                           # NAMESPACES
        cur.u32("pid")
        cur.u32("tid")
        nr = cur.u64("nr_namespaces")
        cur.u64s(2 * nr, "link_info")
    elif rtype == 17:                           # KSYMBOL
        cur.u64("addr")
        cur.u32("len")
        cur.u16("ksym_type")
        cur.u16("flags")
        cur.rest("name")
    elif rtype == 18:                           # BPF_EVENT
        cur.u16("type")
        cur.u16("flags")
        cur.u32("id")
        cur.keep(8, "tag")
    elif rtype == 19:                           # CGROUP
        cur.u64("id")
        cur.rest("path")
    elif rtype == 20:                           # TEXT_POKE
        cur.u64("addr")
        cur.u16("old_len")
        cur.u16("new_len")
        cur.rest("bytes")
    elif rtype == 21:                           # AUX_OUTPUT_HW_ID
        cur.u64("hw_id")
    elif rtype == 22:                           # CALLCHAIN_DEFERRED
        cur.u64("cookie")
        cur.u64s(cur.u64("nr"), "ips")
    else:
        raise Unsupported("%s: kernel %s: layout unknown here"
                          % (cur.buf.name, rec_name(rtype)))
    cur.done()


def conv_cpu_map_data(cur):
    """struct perf_record_cpu_map_data (packed): u16 type, then per type."""
    kind = cur.u16("type")
    if kind == 0:                               # PERF_CPU_MAP__CPUS
        for _ in range(cur.u16("nr")):
            cur.u16("cpu")
    elif kind == 1:                             # PERF_CPU_MAP__MASK
        nr = cur.u16("nr")
        long_size = cur.u16("long_size")
        if long_size == 4:
            for _ in range(nr):
                cur.u32("mask")
        elif long_size == 8:
            cur.keep(4, "__pad")
            cur.u64s(nr, "mask")
        else:
            raise Malformed("%s: cpu map mask long_size %d"
                            % (cur.what, long_size))
    elif kind == 2:                             # PERF_CPU_MAP__RANGE_CPUS
        cur.keep(2, "any_cpu")
        cur.u16("start_cpu")
        cur.u16("end_cpu")
    else:
        raise Unsupported("%s: cpu map type %d" % (cur.what, kind))
    cur.rest("padding")


def conv_user_record(buf, off, size, rtype, st, conv):
    """perf's own records (type >= 64).  Returns the number of payload bytes
    that follow the record outside header.size."""
    what = "%s at %#x" % (rec_name(rtype), off)
    cur = Cur(buf, off + 8, off + size, what)
    follow = 0
    if rtype == 64:                             # HEADER_ATTR: attr, ids
        attr, used = conv_attr(buf, cur.pos, cur.left(), what + ".attr")
        cur.pos += used
        if cur.left() % 8:
            raise Malformed("%s: ids are not u64 words" % what)
        ids = []
        for _ in range(cur.left() // 8):
            ids.append(cur.u64("id"))
        st.add_attr(attr, ids)
    elif rtype == 65:                           # HEADER_EVENT_TYPE
        cur.u64("event_id")
        cur.rest("name")
    elif rtype == 66:                           # HEADER_TRACING_DATA
        tsize = cur.u32("size")
        if size == 12:
            # perf: the tracing data follows the record; it declares its
            # own byte order and stays as written (see the top comment).
            follow = tsize
        else:
            # simpleperf keeps the tracing data inside the record.
            cur.rest("data")
    elif rtype == 67:                           # HEADER_BUILD_ID
        cur.u32("pid")
        cur.keep(22, "build_id")
        cur.u16("reserved2")
        cur.rest("filename")
    elif rtype in (68, 82):                     # FINISHED_ROUND, _INIT
        pass
    elif rtype == 69:                           # ID_INDEX: all u64
        if cur.left() % 8:
            raise Malformed("%s: not u64 words" % what)
        cur.u64s(cur.left() // 8, "entries")
    elif rtype == 70:                           # AUXTRACE_INFO
        cur.u32("type")
        cur.u32("reserved")
        if cur.left() % 8:
            raise Malformed("%s: priv is not u64 words" % what)
        cur.u64s(cur.left() // 8, "priv")
    elif rtype == 71:                           # AUXTRACE
        follow = cur.u64("size")
        cur.u64("offset")
        cur.u64("reference")
        cur.u32("idx")
        cur.u32("tid")
        cur.u32("cpu")
        cur.u32("reserved")
    elif rtype == 72:                           # AUXTRACE_ERROR
        for name in ("type", "code", "cpu", "pid", "tid", "fmt"):
            cur.u32(name)
        cur.u64("ip")
        cur.u64("time")
        cur.keep(min(64, cur.left()), "msg")
        if cur.left():
            cur.u32("machine_pid")
            cur.u32("vcpu")
    elif rtype == 73:                           # THREAD_MAP
        nr = cur.u64("nr")
        for _ in range(nr):
            cur.u64("pid")
            cur.keep(16, "comm")
    elif rtype == 74:                           # CPU_MAP
        conv_cpu_map_data(cur)
    elif rtype == 75:                           # STAT_CONFIG
        cur.u64s(2 * cur.u64("nr"), "data")
    elif rtype == 76:                           # STAT
        cur.u64("id")
        cur.u32("cpu")
        cur.u32("thread")
        cur.u64("val")
        cur.u64("ena")
        cur.u64("run")
    elif rtype == 77:                           # STAT_ROUND
        cur.u64("type")
        cur.u64("time")
    elif rtype == 78:                           # EVENT_UPDATE
        kind = cur.u64("type")
        cur.u64("id")
        if kind in (0, 2):                      # UNIT, NAME: a string
            cur.rest("string")
        elif kind == 1:                         # SCALE: a double
            cur.u64("scale")
            cur.rest("padding")
        elif kind == 3:                         # CPUS
            conv_cpu_map_data(cur)
        else:
            raise Unsupported("%s: event update type %d" % (what, kind))
    elif rtype == 79:                           # TIME_CONV
        cur.u64("time_shift")
        cur.u64("time_mult")
        cur.u64("time_zero")
        if cur.left():
            cur.u64("time_cycles")
            cur.u64("time_mask")
            cur.rest("caps")
    elif rtype == 80:                           # HEADER_FEATURE
        feat = cur.u64("feat_id")
        if cur.left():
            conv_feature(buf, feat, cur.pos, cur.end, st, conv, padded=True)
            cur.pos = cur.end
        # else: the end mark, perf's HEADER_LAST_FEATURE of the writer's
        # version with no section after it
    elif rtype == 84:                           # BPF_METADATA
        cur.keep(512, "prog_name")
        cur.u64("nr_entries")
        cur.rest("entries")
    else:
        raise Unsupported("%s: %s: layout unknown here" % (buf.name, what))
    cur.done()
    return follow


def conv_record(buf, off, st, conv):
    """Convert the record at off in place; returns (size, following)."""
    if off + 8 > len(buf.src):
        raise Malformed("%s: record header at %#x cut short by the end"
                        % (buf.name, off))
    rtype, misc, size = struct.unpack_from("<IHH", buf.src, off)
    what = "%s at %#x" % (rec_name(rtype), off)
    if size < 8:
        raise Malformed("%s: %s: size %d is smaller than its header"
                        % (buf.name, what, size))
    if off + size > len(buf.src):
        raise Malformed("%s: %s: size %d runs past the end"
                        % (buf.name, what, size))
    buf.swap("I", off, what + ".type")
    buf.swap("H", off + 4, what + ".misc")
    buf.swap("H", off + 6, what + ".size")
    end = off + size
    follow = 0
    if rtype == 9:
        conv_sample(buf, off, end, st, what)
    elif rtype < 64:
        attr = st.trailer_attr(buf, off + 8, end, what)
        tsize = attr.id_trailer_size()
        if off + 8 + tsize > end:
            raise Malformed("%s: %s: no room for a %d-byte sample_id"
                            % (buf.name, what, tsize))
        conv_kernel_body(Cur(buf, off + 8, end - tsize, what), rtype, misc)
        if tsize:
            conv_sample_id(buf, end - tsize, end, attr, what)
    else:
        follow = conv_user_record(buf, off, size, rtype, st, conv)
    if follow:
        if end + follow > len(buf.src):
            raise Malformed("%s: %s: its %d bytes of payload run past the "
                            "end" % (buf.name, what, follow))
        buf.keep(end, follow, what + ".payload")
    return size, follow


# ---------------------------------------------------------------------------
# Feature sections (tools/perf/util/header.c write_* functions)

def conv_build_ids(cur):
    """BUILD_ID: perf_record_header_build_id entries.  Files from before
    perf's a1645ce1 have no pid field; perf detects them by the kernel's
    name showing up 4 bytes early, and so does this."""
    old_abi = cur.buf.src[cur.pos + 36:cur.pos + 49] == b"nel.kallsyms]"
    while cur.left():
        start = cur.pos
        cur.u32("header.type")
        cur.u16("header.misc")
        size = cur.u16("header.size")
        if size < 8 + (24 if old_abi else 28) or start + size > cur.end:
            raise Malformed("%s: build-id entry at %#x has size %d"
                            % (cur.what, start, size))
        entry = Cur(cur.buf, cur.pos, start + size, cur.what)
        if old_abi:
            entry.keep(24, "build_id")
        else:
            entry.u32("pid")
            entry.keep(22, "build_id")
            entry.u16("reserved2")
        entry.rest("filename")
        cur.pos = start + size


def conv_cpu_topology(cur, st):
    for lists in ("core_siblings", "thread_siblings"):
        for _ in range(cur.u32(lists + ".nr")):
            cur.string(lists)
    if not cur.left():
        return
    if st.nr_cpus_avail is None:
        raise Malformed("%s: per-CPU ids but no NRCPUS feature before it"
                        % cur.what)
    for _ in range(st.nr_cpus_avail):
        cur.u32("core_id")
        cur.u32("socket_id")
    if not cur.left():
        return
    for _ in range(cur.u32("die_siblings.nr")):
        cur.string("die_siblings")
    for _ in range(st.nr_cpus_avail):
        cur.u32("die_id")


# struct bpf_prog_info (include/uapi/linux/bpf.h) by offset; 'bits' is the
# gpl_compatible:1 bit-field in a u32 unit, 'tag' and 'name' are bytes.
BPF_INFO_FIELDS = [
    (0, "I", "type"), (4, "I", "id"), (8, "tag", "tag"),
    (16, "I", "jited_prog_len"), (20, "I", "xlated_prog_len"),
    (24, "Q", "jited_prog_insns"), (32, "Q", "xlated_prog_insns"),
    (40, "Q", "load_time"), (48, "I", "created_by_uid"),
    (52, "I", "nr_map_ids"), (56, "Q", "map_ids"), (64, "name", "name"),
    (80, "I", "ifindex"), (84, "bits", "gpl_compatible"),
    (88, "Q", "netns_dev"), (96, "Q", "netns_ino"),
    (104, "I", "nr_jited_ksyms"), (108, "I", "nr_jited_func_lens"),
    (112, "Q", "jited_ksyms"), (120, "Q", "jited_func_lens"),
    (128, "I", "btf_id"), (132, "I", "func_info_rec_size"),
    (136, "Q", "func_info"), (144, "I", "nr_func_info"),
    (148, "I", "nr_line_info"), (152, "Q", "line_info"),
    (160, "Q", "jited_line_info"), (168, "I", "nr_jited_line_info"),
    (172, "I", "line_info_rec_size"), (176, "I", "jited_line_info_rec_size"),
    (180, "I", "nr_prog_tags"), (184, "Q", "prog_tags"),
    (192, "Q", "run_time_ns"), (200, "Q", "run_cnt"),
    (208, "Q", "recursion_misses"), (216, "I", "verified_insns"),
    (220, "I", "attach_btf_obj_id"), (224, "I", "attach_btf_id"),
    (228, "I", "pad"),
]
BPF_INFO_KNOWN = 232
# perf's perf_bpil arrays (tools/perf/util/bpf-utils.c), by bit in
# perf_bpil.arrays: (offset field, count field, element size or the field
# holding it, element kind).  perf stores each array's offset into data[]
# in its pointer field before writing.
BPF_ARRAYS = [
    (24, 16, 1, "bytes"),           # JITED_INSNS: machine code
    (32, 20, 1, "insns"),           # XLATED_INSNS: struct bpf_insn
    (56, 52, 4, "u32"),             # MAP_IDS
    (112, 104, 8, "u64"),           # JITED_KSYMS
    (120, 108, 4, "u32"),           # JITED_FUNC_LENS
    (136, 144, 132, "u32"),         # FUNC_INFO: struct bpf_func_info
    (152, 148, 172, "u32"),         # LINE_INFO: struct bpf_line_info
    (160, 168, 176, "u64"),         # JITED_LINE_INFO: u64 addresses
    (184, 180, 8, "bytes"),         # PROG_TAGS: 8-byte tags
]


def conv_bpf_prog_info(cur):
    """One perf_bpil: u32 info_len, u32 data_len, u64 arrays, the
    bpf_prog_info (info_len bytes) and data_len bytes of arrays."""
    buf = cur.buf
    info_len = cur.u32("info_len")
    data_len = cur.u32("data_len")
    arrays = cur.u64("arrays")
    info = cur.pos
    if info_len > BPF_INFO_KNOWN or info_len % 8:
        raise Unsupported("%s: bpf_prog_info of %d bytes" % (buf.name,
                                                             info_len))
    cur.need(info_len + data_len, "bpf_prog_info")
    icur = Cur(buf, info, info + info_len, cur.what + ".info")
    for off, fmt, name in BPF_INFO_FIELDS:
        if off >= info_len:
            break
        if fmt == "tag":
            icur.keep(8, name)
        elif fmt == "name":
            icur.keep(16, name)
        elif fmt == "bits":
            icur.bitfield32([(0, 1), (1, 31)], name)
        else:
            icur._swap(fmt, struct.calcsize(fmt), name)
    icur.done()
    data = info + info_len

    def field(off):
        if off + 4 > info_len:
            raise Malformed("%s: bpf_prog_info of %d bytes lacks the field "
                            "at %d that perf_bpil.arrays needs"
                            % (buf.name, info_len, off))
        return buf.get("I", info + off)

    for bit, (ptr, count, size, kind) in enumerate(BPF_ARRAYS):
        if not arrays >> bit & 1:
            continue
        if ptr + 8 > info_len:
            raise Malformed("%s: bpf_prog_info of %d bytes has no array %d"
                            % (buf.name, info_len, bit))
        start = data + buf.get("Q", info + ptr)
        nr = field(count)
        elem = size if size <= 8 else field(size)
        acur = Cur(buf, start, start + nr * elem, cur.what + ".array")
        if acur.end > data + data_len:
            raise Malformed("%s: bpf_prog_info array %d runs past data_len"
                            % (buf.name, bit))
        if kind == "bytes":
            acur.rest("bytes")
        elif kind == "insns":
            while acur.left():
                acur.keep(1, "code")
                regs = acur.peek("B")
                # dst_reg:4, src_reg:4: a big-endian compiler puts dst_reg
                # in the high nibble
                buf.put("B", acur.pos, (regs & 0xf) << 4 | regs >> 4,
                        acur.what + ".regs")
                acur.pos += 1
                acur.u16("off")
                acur.u32("imm")
        else:
            step = 4 if kind == "u32" else 8
            if elem % step:
                raise Malformed("%s: bpf_prog_info array %d: element of %d "
                                "bytes" % (buf.name, bit, elem))
            while acur.left():
                acur._swap("I" if step == 4 else "Q", step, kind)
        acur.done()
    # the padding between arrays (each is rounded up to 8 bytes)
    for hole in range(data, data + data_len):
        if not buf.cov[hole]:
            buf.keep(hole, 1, cur.what + ".padding")
    cur.pos = data + data_len


def conv_feature(buf, feat, start, end, st, conv, padded=False):
    """Convert one feature section.  padded: a HEADER_FEATURE record's
    payload, which newer perf pads with zeroes to 8 bytes."""
    name = feat_name(feat)
    cur = Cur(buf, start, end, "feature %s" % name)
    if feat in FEAT_NAMES and start == end:
        # an empty section (quipper writes some): nothing to swap
        return
    if feat == 1:                               # TRACING_DATA: see top
        cur.rest("tracing_data")
    elif feat == 2:
        conv_build_ids(cur)
    elif feat in (3, 4, 5, 6, 8, 9):            # strings
        cur.string("value")
    elif feat == FEAT_NRCPUS:
        st.nr_cpus_avail = cur.u32("nr_cpus_avail")
        cur.u32("nr_cpus_online")
    elif feat in (10, 21, 23, 24):              # TOTAL_MEM, SAMPLE_TIME,
        while cur.left():                       # CLOCKID, DIR_FORMAT: u64s
            cur.u64("value")
    elif feat == 11:                            # CMDLINE
        for _ in range(cur.u32("nr")):
            cur.string("arg")
    elif feat == 12:                            # EVENT_DESC
        nr_events = cur.u32("nr_events")
        attr_size = cur.u32("attr_size")
        for _ in range(nr_events):
            cur.need(attr_size, "attr")
            _, used = conv_attr(buf, cur.pos, attr_size, cur.what + ".attr")
            cur.pos += used
            cur.keep(attr_size - used, "attr.tail")
            nr_ids = cur.u32("nr_ids")
            cur.string("name")
            cur.u64s(nr_ids, "ids")
    elif feat == 13:
        conv_cpu_topology(cur, st)
    elif feat == 14:                            # NUMA_TOPOLOGY
        for _ in range(cur.u32("nr")):
            cur.u32("node")
            cur.u64("mem_total")
            cur.u64("mem_free")
            cur.string("cpus")
    elif feat in (15, 19):                      # BRANCH_STACK, STAT: empty
        pass
    elif feat == 16:                            # PMU_MAPPINGS
        for _ in range(cur.u32("nr")):
            cur.u32("type")
            cur.string("name")
    elif feat == 17:                            # GROUP_DESC
        for _ in range(cur.u32("nr")):
            cur.string("name")
            cur.u32("leader_idx")
            cur.u32("nr_members")
    elif feat == 18:                            # AUXTRACE index
        for _ in range(cur.u64("nr")):
            cur.put_u64(conv.map_record(cur.peek("Q")), "offset")
            cur.u64("size")
    elif feat == 20:                            # CACHE
        cur.u32("version")
        for _ in range(cur.u32("nr")):
            for field in ("level", "line_size", "sets", "ways"):
                cur.u32(field)
            for field in ("type", "size", "map"):
                cur.string(field)
    elif feat == 22:                            # MEM_TOPOLOGY
        cur.u64("version")
        cur.u64("block_size")
        for _ in range(cur.u64("nr")):
            cur.u64("node")
            cur.u64("size")
            bits = cur.u64("bitmap.size")
            cur.u64s((bits + 63) // 64, "bitmap")
    elif feat == 25:                            # BPF_PROG_INFO
        for _ in range(cur.u32("count")):
            conv_bpf_prog_info(cur)
    elif feat == 26:                            # BPF_BTF: blobs, see top
        for _ in range(cur.u32("count")):
            cur.u32("id")
            cur.keep(cur.u32("data_size"), "btf")
    elif feat == FEAT_COMPRESSED:
        cur.u32("version")
        cur.u32("type")
        st.comp_level = cur.u32("level")
        cur.u32("ratio")
        cur.u32("mmap_len")
    elif feat == 28:                            # CPU_PMU_CAPS
        for _ in range(cur.u32("nr")):
            cur.string("name")
            cur.string("value")
    elif feat == 29:                            # CLOCK_DATA
        cur.u32("version")
        cur.u32("clockid")
        cur.u64("tod_ns")
        cur.u64("clockid_ns")
    elif feat == 30:                            # HYBRID_TOPOLOGY
        for _ in range(cur.u32("nr")):
            cur.string("pmu_name")
            cur.string("cpus")
    elif feat == 31:                            # PMU_CAPS
        for _ in range(cur.u32("nr_pmus")):
            for _ in range(cur.u32("nr_caps")):
                cur.string("name")
                cur.string("value")
            cur.string("pmu_name")
    elif feat == 32:                            # CPU_DOMAIN_INFO
        version = cur.u32("schedstat_version")
        cur.u32("max_sched_domains")
        while cur.left():
            cur.u32("cpu")
            for _ in range(cur.u32("nr_domains")):
                cur.u32("domain")
                if version >= 17:
                    cur.string("dname")
                cur.string("cpumask")
                cur.string("cpulist")
    elif feat == 33:                            # E_MACHINE
        cur.u32("e_machine")
        cur.u32("e_flags")
    else:
        raise Unsupported("%s: %s: its layout is not modelled here"
                          % (buf.name, "feature " + name
                             if feat in FEAT_NAMES else name))
    if padded and 0 < cur.left() < 8 and not any(cur.peek_bytes()):
        cur.rest("padding")
    cur.done()


# ---------------------------------------------------------------------------
# zstd.  perf keeps one compression stream for the whole capture and flushes
# it at the end of every COMPRESSED record without ending the frame; its
# reader feeds each record's payload to one decompression stream and takes
# what comes out.  Reproducing that needs a streaming zstd: Python's own
# compression.zstd (3.14 and later) or libzstd through ctypes.  The zstd
# command-line tool cannot be used: it holds back output when its input
# stops inside a frame, so it cannot tell how much each chunk yields.

def _zstd_stdlib():
    try:
        from compression import zstd as czstd   # Python >= 3.14
    except ImportError:
        return None

    class Backend:
        name = "compression.zstd"

        @staticmethod
        def decompressor():
            dec = czstd.ZstdDecompressor()
            return dec.decompress

        @staticmethod
        def compressor(level):
            comp = czstd.ZstdCompressor(level=level)
            return lambda data: comp.compress(data,
                                              mode=comp.FLUSH_BLOCK)
    return Backend


def _zstd_ctypes():
    import ctypes
    import ctypes.util
    path = ctypes.util.find_library("zstd")
    try:
        lib = ctypes.CDLL(path or "libzstd.so.1")
    except OSError:
        return None

    class InBuf(ctypes.Structure):
        _fields_ = [("src", ctypes.c_void_p), ("size", ctypes.c_size_t),
                    ("pos", ctypes.c_size_t)]

    class OutBuf(ctypes.Structure):
        _fields_ = [("dst", ctypes.c_void_p), ("size", ctypes.c_size_t),
                    ("pos", ctypes.c_size_t)]

    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    lib.ZSTD_createDCtx.restype = vp
    lib.ZSTD_createCCtx.restype = vp
    lib.ZSTD_freeDCtx.argtypes = [vp]
    lib.ZSTD_freeCCtx.argtypes = [vp]
    lib.ZSTD_decompressStream.argtypes = [vp, ctypes.POINTER(OutBuf),
                                          ctypes.POINTER(InBuf)]
    lib.ZSTD_decompressStream.restype = sz
    lib.ZSTD_compressStream2.argtypes = [vp, ctypes.POINTER(OutBuf),
                                         ctypes.POINTER(InBuf), ctypes.c_int]
    lib.ZSTD_compressStream2.restype = sz
    lib.ZSTD_CCtx_setParameter.argtypes = [vp, ctypes.c_int, ctypes.c_int]
    lib.ZSTD_CCtx_setParameter.restype = sz
    lib.ZSTD_isError.argtypes = [sz]
    lib.ZSTD_getErrorName.argtypes = [sz]
    lib.ZSTD_getErrorName.restype = ctypes.c_char_p
    ZSTD_c_compressionLevel = 100
    ZSTD_e_flush = 1
    step = 1 << 20

    def check(ret, what):
        if lib.ZSTD_isError(ret):
            raise Malformed("zstd %s: %s" % (what, lib.ZSTD_getErrorName(
                ret).decode()))

    def pump(call, data):
        """Run call(out, in) until data is consumed and call says no more
        output is pending."""
        src = ctypes.create_string_buffer(data, len(data))
        inb = InBuf(ctypes.cast(src, vp), len(data), 0)
        out = bytearray()
        dst = ctypes.create_string_buffer(step)
        while True:
            outb = OutBuf(ctypes.cast(dst, vp), step, 0)
            more = call(ctypes.byref(outb), ctypes.byref(inb), outb)
            out += dst.raw[:outb.pos]
            if inb.pos == inb.size and not more:
                return bytes(out)

    class Backend:
        name = "libzstd"

        @staticmethod
        def decompressor():
            ctx = lib.ZSTD_createDCtx()

            def call(outp, inp, outb):
                check(lib.ZSTD_decompressStream(ctx, outp, inp),
                      "decompression")
                return outb.pos == outb.size    # full: maybe more

            def feed(data):
                return pump(call, data)
            weakref.finalize(feed, lib.ZSTD_freeDCtx, ctx)
            return feed

        @staticmethod
        def compressor(level):
            ctx = lib.ZSTD_createCCtx()
            check(lib.ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel,
                                             level), "level")

            def call(outp, inp, outb):
                ret = lib.ZSTD_compressStream2(ctx, outp, inp, ZSTD_e_flush)
                check(ret, "compression")
                return ret != 0                 # bytes left to flush

            def feed(data):
                return pump(call, data)
            weakref.finalize(feed, lib.ZSTD_freeCCtx, ctx)
            return feed
    return Backend


def zstd_backend():
    backend = _zstd_stdlib() or _zstd_ctypes()
    if backend is None:
        raise Unsupported("compressed records need a streaming zstd: "
                          "Python's compression.zstd or libzstd")
    return backend


# ---------------------------------------------------------------------------
# The record stream (data section, or everything after a pipe header)

class Converter:
    def __init__(self, src, name, verbose):
        self.buf = Buf(src, name)
        self.name = name
        self.verbose = verbose
        self.st = State()
        self.recmap = {}

    def note(self, msg):
        if self.verbose:
            sys.stderr.write("pd_swap: %s: %s\n" % (self.name, msg))

    def map_record(self, old):
        new = self.recmap.get(old)
        if new is None:
            raise Malformed("%s: AUXTRACE index names offset %#x, where no "
                            "record starts" % (self.name, old))
        return new

    def walk(self, buf, pos, end):
        """Convert the records in [pos, end) of buf in place; returns the
        list of (offset, bytes taken, record type)."""
        recs = []
        while pos < end:
            size = struct.unpack_from("<H", buf.src, pos + 6)[0] \
                if end - pos >= 8 else 0
            if buf is self.buf and (size < 8 or pos + size > end):
                # Not a whole record: a capture cut short, a record whose
                # size field was damaged, or text a shell appended to a
                # pipe capture.  No reader gets past it.  A record cut
                # short has a big-endian header on a big-endian host;
                # which of the three it is cannot be told, so the first 8
                # bytes are swapped as a header (a reader then reports the
                # same type and size in both byte orders) and the rest is
                # copied as it is.
                sys.stderr.write("pd_swap: %s: %d bytes at %#x to the end "
                                 "are not a whole record; header swapped, "
                                 "the rest copied\n"
                                 % (buf.name, end - pos, pos))
                head = 0
                if end - pos >= 8:
                    buf.swap("I", pos, "tail.type")
                    buf.swap("H", pos + 4, "tail.misc")
                    buf.swap("H", pos + 6, "tail.size")
                    head = 8
                buf.keep(pos + head, end - pos - head, "tail")
                recs.append((pos, end - pos, -1))
                break
            if end - pos < 8:
                raise Malformed("%s: %d stray bytes at %#x after the last "
                                "record" % (buf.name, end - pos, pos))
            rtype, _, size = struct.unpack_from("<IHH", buf.src, pos)
            if rtype in (REC_COMPRESSED, REC_COMPRESSED2):
                if buf is not self.buf:
                    raise Malformed("%s: compressed record inside a "
                                    "compressed stream" % buf.name)
                taken = self.compressed_header(pos, rtype, size, end)
            else:
                size, follow = conv_record(buf, pos, self.st, self)
                taken = size + follow
            if pos + taken > end:
                raise Malformed("%s: %s at %#x runs past the end of the "
                                "data (%#x)" % (buf.name, rec_name(rtype),
                                                pos, end))
            recs.append((pos, taken, rtype))
            pos += taken
        return recs

    def compressed_header(self, pos, rtype, size, end):
        buf = self.buf
        what = "%s at %#x" % (rec_name(rtype), pos)
        buf.keep(pos, 8, what + ".header")
        if rtype == REC_COMPRESSED:
            if size < 8:
                raise Malformed("%s: %s: size %d" % (self.name, what, size))
            buf.keep(pos + 8, size - 8, what + ".data")
            return size
        data_size = buf.get("Q", pos + 8) if pos + 16 <= end else 0
        buf.keep(pos + 8, 8, what + ".data_size")
        taken = align8(16 + data_size)
        if taken != size:
            # perf >= 6.16 lets the u16 header.size wrap; data_size is
            # the truth, and perf's own reader trusts it the same way.
            self.note("%s: header.size %d wrapped, data_size says %d"
                      % (what, size, taken))
        buf.keep(pos + 16, taken - 16, what + ".data")
        return taken

    def payload(self, pos, rtype):
        if rtype == REC_COMPRESSED:
            size = self.buf.get("H", pos + 6)
            return self.buf.src[pos + 8:pos + size]
        data_size = self.buf.get("Q", pos + 8)
        return self.buf.src[pos + 16:pos + 16 + data_size]

    def stream(self, start, end):
        """Convert a record stream; returns its big-endian bytes."""
        recs = self.walk(self.buf, start, end)
        comp = [r for r in recs if r[2] in (REC_COMPRESSED, REC_COMPRESSED2)]
        chunks = {}
        if comp:
            chunks = self.recompress(comp)
        out = bytearray()
        for pos, taken, rtype in recs:
            self.recmap[pos] = start + len(out)
            if pos in chunks:
                out += chunks[pos]
            else:
                out += self.buf.out[pos:pos + taken]
        return bytes(out)

    def recompress(self, comp):
        """Decompress the chunks as perf's reader does, convert the records
        they hold, and compress the big-endian bytes of each chunk as one
        flushed piece of a single stream, as perf's writer does: every
        chunk decompresses to the same number of bytes as before, so a
        record that spans two chunks still does."""
        backend = zstd_backend()
        feed = backend.decompressor()
        plain = [feed(self.payload(pos, rtype)) for pos, _, rtype in comp]
        inner = Buf(b"".join(plain), self.name + " (decompressed)")
        self.walk(inner, 0, len(inner.src))
        level = self.st.comp_level or 1
        self.note("%d compressed records, %d bytes decompressed, "
                  "recompressed at level %d with %s"
                  % (len(comp), len(inner.src), level, backend.name))
        compress = backend.compressor(level)
        result = {}
        done = 0
        for (pos, _, rtype), chunk in zip(comp, plain):
            be = bytes(inner.out[done:done + len(chunk)])
            done += len(chunk)
            result[pos] = compressed_records(rtype,
                                             self.buf.get("H", pos + 4),
                                             compress(be))
        return result


def compressed_records(rtype, misc, frame):
    """Big-endian COMPRESSED(2) records carrying frame; a frame too big for
    one record's u16 size goes on in the next, as the reader joins them."""
    out = bytearray()
    hdr = 8 if rtype == REC_COMPRESSED else 16
    room = 0xffff - hdr - 7
    pos = 0
    while True:
        piece = frame[pos:pos + room]
        pos += len(piece)
        if rtype == REC_COMPRESSED:
            out += struct.pack(">IHH", rtype, misc, hdr + len(piece)) + piece
        else:
            size = align8(hdr + len(piece))
            out += struct.pack(">IHHQ", rtype, misc, size, len(piece))
            out += piece + bytes(size - hdr - len(piece))
        if pos >= len(frame):
            return out


# ---------------------------------------------------------------------------
# File and pipe mode

FILE_HEADER_SIZE = 104
FILE_HEADER_V1_SIZE = 72   # before the feature bitmap


def convert_pipe(conv, src):
    buf = conv.buf
    buf.keep(0, 8, "magic")
    buf.swap("Q", 8, "header.size")
    body = conv.stream(16, len(src))
    return MAGIC_BE + bytes(buf.out[8:16]) + body


def convert_file(conv, src):
    buf = conv.buf
    name = conv.name
    hsize, attr_size, a_off, a_size, d_off, d_size, e_off, e_size = \
        struct.unpack_from("<8Q", src, 8)
    if hsize not in (FILE_HEADER_SIZE, FILE_HEADER_V1_SIZE):
        raise Unsupported("%s: file header of %d bytes" % (name, hsize))
    if attr_size < ATTR_SIZE_VER0 + 16 or a_size % attr_size:
        raise Malformed("%s: attr_size %d, attrs section %d bytes"
                        % (name, attr_size, a_size))
    features = []
    if hsize == FILE_HEADER_SIZE:
        bits = struct.unpack_from("<4Q", src, 72)
        features = [w * 64 + b for w in range(4) for b in range(64)
                    if bits[w] >> b & 1]
    d_end = d_off + d_size if d_size else len(src)
    if d_end > len(src):
        raise Malformed("%s: data section ends at %#x, past the end (%#x)"
                        % (name, d_end, len(src)))

    # attrs first: the records need them
    attrs = []
    for i in range(a_size // attr_size):
        off = a_off + i * attr_size
        what = "attr %d" % i
        attr, used = conv_attr(buf, off, attr_size - 16, what)
        buf.keep(off + used, attr_size - 16 - used, what + ".tail")
        ids_off, ids_size = struct.unpack_from("<QQ", src,
                                               off + attr_size - 16)
        if ids_size % 8 or ids_off + ids_size > len(src):
            raise Malformed("%s: %s ids at %#x, %d bytes" % (name, what,
                                                             ids_off,
                                                             ids_size))
        ids = [buf.swap("Q", ids_off + 8 * j, what + ".id")
               for j in range(ids_size // 8)]
        conv.st.add_attr(attr, ids)
        attrs.append((off + attr_size - 16, ids_off, ids_size))

    # features the records depend on, before the records
    table = d_off + d_size
    sections = []
    for n, feat in enumerate(features):
        f_off, f_size = struct.unpack_from("<QQ", src, table + 16 * n)
        if f_off + f_size > len(src):
            raise Malformed("%s: feature %s at %#x (%d bytes) runs past the "
                            "end" % (name, feat_name(feat), f_off, f_size))
        sections.append((feat, f_off, f_size))
        if feat not in FEAT_NAMES or feat == 34:
            # say so before converting anything
            conv_feature(buf, feat, f_off, f_off + f_size, conv.st, conv)
    for feat, f_off, f_size in sections:
        if feat in (FEAT_NRCPUS, FEAT_COMPRESSED):
            conv_feature(buf, feat, f_off, f_off + f_size, conv.st, conv)

    data = conv.stream(d_off, d_end)
    delta = len(data) - (d_end - d_off)

    def moved(off, what):
        if off < d_off or (off == d_off and d_size):
            return off
        if off >= d_end:
            return off + delta
        raise Malformed("%s: %s points into the data section" % (name,
                                                                  what))

    for feat, f_off, f_size in sections:
        if feat not in (FEAT_NRCPUS, FEAT_COMPRESSED):
            conv_feature(buf, feat, f_off, f_off + f_size, conv.st, conv)
    for n, (feat, f_off, f_size) in enumerate(sections):
        what = "feature %s section" % feat_name(feat)
        buf.put("Q", table + 16 * n, moved(f_off, what), what + ".offset")
        buf.swap("Q", table + 16 * n + 8, what + ".size")
    # perf sizes the table before writing the sections and clears the bit
    # of a section that failed, leaving its slot (zeroes, or the offset it
    # had reached) at the end of the table: still a {u64, u64} pair
    slot = table + 16 * len(sections)
    while (features and slot + 16 <= len(src)
           and buf.first_unclaimed(slot, slot + 16) == slot
           and buf.cov.find(1, slot, slot + 16) == -1):
        off = buf.get("Q", slot)
        buf.put("Q", slot, off + delta if off >= d_end else off,
                "unused feature slot.offset")
        buf.swap("Q", slot + 8, "unused feature slot.size")
        slot += 16
    for i, (sec, ids_off, ids_size) in enumerate(attrs):
        buf.put("Q", sec, moved(ids_off, "attr ids"), "attr %d.ids" % i)
        buf.swap("Q", sec + 8, "attr %d.ids.size" % i)

    # old perf's event_types section: {u64 event_id; char name[64]}
    if e_size % 72:
        raise Malformed("%s: event_types section of %d bytes" % (name,
                                                                e_size))
    for i in range(e_size // 72):
        buf.swap("Q", e_off + 72 * i, "event_type.event_id")
        buf.keep(e_off + 72 * i + 8, 64, "event_type.name")

    buf.keep(0, 8, "magic")
    buf.swap("Q", 8, "header.size")
    buf.swap("Q", 16, "header.attr_size")
    buf.put("Q", 24, moved(a_off, "attrs"), "header.attrs.offset")
    buf.swap("Q", 32, "header.attrs.size")
    buf.swap("Q", 40, "header.data.offset")
    buf.put("Q", 48, len(data) if d_size else 0, "header.data.size")
    buf.put("Q", 56, moved(e_off, "event_types") if e_size else e_off,
            "header.event_types.offset")
    buf.swap("Q", 64, "header.event_types.size")
    if hsize == FILE_HEADER_SIZE:
        # unsigned long adds_features[]: 64-bit words on s390x and ppc64
        for w in range(4):
            buf.swap("Q", 72 + 8 * w, "header.adds_features")

    # bytes no header field points at (padding, table slots perf left
    # unused) are copied as they are
    hole = buf.first_unclaimed(0, d_off)
    if hole == -1 and d_end < len(src):
        hole = buf.first_unclaimed(d_end, len(src))
    if hole != -1:
        conv.note("bytes at %#x are not referenced by any header field; "
                  "copied as they are" % hole)
    out = bytes(buf.out[:d_off]) + data + bytes(buf.out[d_end:])
    out = MAGIC_BE + out[8:]
    return out


def convert(src, name, verbose=False):
    if src[:8] == b"PERFFILE":
        raise Unsupported("%s: the legacy PERFFILE (version 1) header, "
                          "which has no byte-order magic" % name)
    if len(src) < 16 or src[:8] != MAGIC_LE:
        if src[:8] == MAGIC_BE:
            raise Malformed("%s: already big-endian" % name)
        raise Malformed("%s: not a perf.data file (no PERFILE2 magic)"
                        % name)
    conv = Converter(src, name, verbose)
    hsize = struct.unpack_from("<Q", src, 8)[0]
    if hsize == 16:
        return convert_pipe(conv, src)
    if len(src) < FILE_HEADER_V1_SIZE:
        raise Malformed("%s: file header cut short" % name)
    return convert_file(conv, src)


def convert_dir(src_dir, dst_dir, verbose=False):
    """perf record --threads: DIR/data holds the header and the synthesized
    records, DIR/data.N one thread's records each, with no header."""
    head = os.path.join(src_dir, "data")
    with open(head, "rb") as f:
        src = f.read()
    if src[:8] != MAGIC_LE or struct.unpack_from("<Q", src, 8)[0] == 16:
        raise Malformed("%s: not a perf.data header" % head)
    conv = Converter(src, head, verbose)
    outputs = {"data": convert_file(conv, src)}
    names = sorted((n for n in os.listdir(src_dir)
                    if n.startswith("data.") and n[5:].isdigit()),
                   key=lambda n: int(n[5:]))
    for name in names:
        path = os.path.join(src_dir, name)
        with open(path, "rb") as f:
            part = f.read()
        sub = Converter(part, path, verbose)
        sub.st = conv.st
        outputs[name] = sub.stream(0, len(part))
    os.makedirs(dst_dir, exist_ok=True)
    for name, data in outputs.items():
        with open(os.path.join(dst_dir, name), "wb") as f:
            f.write(data)


def main(argv):
    args = [a for a in argv[1:] if a != "-v"]
    verbose = len(args) != len(argv) - 1
    if len(args) != 2:
        sys.stderr.write("usage: pd_swap.py [-v] IN OUT\n")
        return 64
    src_path, dst_path = args
    try:
        if os.path.isdir(src_path):
            convert_dir(src_path, dst_path, verbose)
            return 0
        with open(src_path, "rb") as f:
            src = f.read()
        out = convert(src, src_path, verbose)
        tmp = dst_path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(out)
        os.replace(tmp, dst_path)
    except Unsupported as err:
        sys.stderr.write("pd_swap: unsupported: %s\n" % err)
        return 3
    except (Malformed, OSError) as err:
        sys.stderr.write("pd_swap: %s\n" % err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
