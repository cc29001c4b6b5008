#!/usr/bin/env python3
"""make_corrupt.py - build the broken captures of testdata/corrupt/.

Run through make.sh.  Reads one valid little-endian perf.data file (by
default base.perf.data next to this script), walks its header, attrs,
records and feature table with its own small parser, and writes one
broken variant per case below, each with NAME.expect: what `pdtool info`
and `pdtool dump --count` must do with it.  Offsets in the expected
messages are computed here from the base file, so the files and their
expectations are regenerated together.

NAME.expect lines (tests/cli/corrupt/corrupt.test reads them):
    exit N          the exit status
    error LINE      exit 2: stderr is exactly this one line
    warning LINE    exit 0: stderr holds this line (others may follow,
                    but every stderr line is a warning)
    info-warning LINE   the same, for `pdtool info` only (dump reads
                    records, not feature sections)
    records N       exit 0: `pdtool dump --json` prints N records
In LINE, @CMD@ stands for the subcommand (info, dump) and @FILE@ for the
path pdtool was given.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER_SIZE = 104
REC_NAMES = {
    1: "MMAP", 2: "LOST", 3: "COMM", 4: "EXIT", 5: "THROTTLE",
    6: "UNTHROTTLE", 7: "FORK", 8: "READ", 9: "SAMPLE", 10: "MMAP2",
    68: "FINISHED_ROUND", 69: "ID_INDEX", 73: "THREAD_MAP",
    74: "CPU_MAP", 78: "EVENT_UPDATE", 82: "FINISHED_INIT",
}
FEATURE_NAMES = {
    1: "tracing_data", 2: "build_id", 3: "hostname", 4: "osrelease",
    5: "version", 6: "arch", 7: "nrcpus", 8: "cpudesc", 9: "cpuid",
    10: "total_mem", 11: "cmdline", 12: "event_desc",
}


class Capture:
    """The parts of a little-endian PERFILE2 file the cases need."""

    def __init__(self, data):
        if data[:8] != b"PERFILE2":
            sys.exit("make_corrupt.py: the base must be a little-endian "
                     "perf.data file (PERFILE2)")
        self.data = bytearray(data)
        (self.header_size, self.attr_size, self.attrs_offset,
         self.attrs_size, self.data_offset, self.data_size) = \
            struct.unpack_from("<6Q", data, 8)
        if self.header_size != HEADER_SIZE:
            sys.exit("make_corrupt.py: unexpected header size %d"
                     % self.header_size)
        self.features = struct.unpack_from("<4Q", data, 72)
        self.data_end = self.data_offset + self.data_size
        # records: (offset, type, size)
        self.records = []
        off = self.data_offset
        while off + 8 <= self.data_end:
            rtype, _misc, size = struct.unpack_from("<IHH", data, off)
            if size < 8 or off + size > self.data_end:
                sys.exit("make_corrupt.py: the base is damaged at 0x%x"
                         % off)
            self.records.append((off, rtype, size))
            off += size
        # feature table: one {offset, size} per set bit, in bit order
        self.feat_bits = [b for b in range(256)
                          if self.features[b // 64] >> (b % 64) & 1]
        self.feat_sections = {}
        for i, bit in enumerate(self.feat_bits):
            self.feat_sections[bit] = struct.unpack_from(
                "<2Q", data, self.data_end + 16 * i)

    def copy(self):
        return bytearray(self.data)

    def rec_index(self, rtype, nth):
        """Index of the nth (0-based) record of type rtype."""
        seen = 0
        for i, (_off, t, _size) in enumerate(self.records):
            if t == rtype:
                if seen == nth:
                    return i
                seen += 1
        sys.exit("make_corrupt.py: the base has too few records of "
                 "type %d" % rtype)


def hx(v):
    return "0x%x" % v


def put_u64(buf, off, v):
    struct.pack_into("<Q", buf, off, v)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(HERE, "base.perf.data")
    out = sys.argv[2] if len(sys.argv) > 2 else HERE
    with open(src, "rb") as fp:
        cap = Capture(fp.read())
    if cap.attrs_size != cap.attr_size:
        sys.exit("make_corrupt.py: the base must have exactly one attr")
    cases = []

    def case(name, blob, expect):
        cases.append((name, bytes(blob), expect))

    def unreadable(msg):
        """exit 2 with one line naming the file"""
        return ["exit 2", "error pdtool @CMD@: '@FILE@': " + msg]

    def damaged(warn, nr_records, key="warning"):
        """exit 0, a warning naming the file, every complete record"""
        return ["exit 0", key + " pdtool @CMD@: warning: @FILE@: " + warn,
                "records %d" % nr_records]

    size = len(cap.data)
    nrec = len(cap.records)

    # -- unreadable ---------------------------------------------------
    case("empty", b"",
         unreadable("not a perf.data file: 0 bytes, too short for the "
                    "magic"))
    text = b"this is not a perf.data file, only some text\n"
    case("not_perf", text,
         unreadable("not a perf.data file: bad magic 0x%016x at offset 0"
                    % struct.unpack_from("<Q", text, 0)[0]))
    b = cap.copy()
    b[0:8] = b"PERFFILE"
    case("v1_magic", b,
         unreadable("perf.data version 1 ('PERFFILE' magic, perf before "
                    "2.6.37) is not supported"))
    case("truncated_header", cap.data[:40],
         unreadable("file header: 40 bytes, need 72"))
    # swapped magic: the rest is read big-endian, and is garbage
    garbage = bytes((i * 131 + 17) & 0xff for i in range(256))
    b = bytearray(b"2ELIFREP") + bytearray(garbage)
    data_off_be = struct.unpack_from(">Q", b, 40)[0]
    case("swapped_garbage", b,
         unreadable("data section starts at %s, past the end of the file "
                    "(%d bytes)" % (hx(data_off_be), len(b))))
    # the attrs section moved so that it overlaps the data
    b = cap.copy()
    new_attrs = cap.data_offset - cap.attr_size // 2
    put_u64(b, 24, new_attrs)
    case("attrs_overlap_data", b,
         unreadable("file header: attrs section %s+%d overlaps the data "
                    "section at %s" % (hx(new_attrs), cap.attrs_size,
                                       hx(cap.data_offset))))
    # perf_event_attr.size larger than the attr slot
    b = cap.copy()
    struct.pack_into("<I", b, cap.attrs_offset + 4, 4096)
    case("attr_size_large", b,
         unreadable("attr at offset %s: size 4096 exceeds the %d bytes "
                    "available" % (hx(cap.attrs_offset),
                                   cap.attr_size - 16)))
    # perf_event_attr.size below the first ABI's 64 bytes
    b = cap.copy()
    struct.pack_into("<I", b, cap.attrs_offset + 4, 32)
    case("attr_size_small", b,
         unreadable("attr at offset %s: size 32 < 64"
                    % hx(cap.attrs_offset)))
    # header.attr_size too small to hold an attr and its ids section
    b = cap.copy()
    put_u64(b, 16, 40)
    case("header_attr_size_small", b,
         unreadable("file header: attr_size 40 < 80 (perf_event_attr v0 "
                    "+ ids section)"))

    # -- damaged but readable ------------------------------------------
    # cut in the middle of a SAMPLE halfway through the data
    i = cap.rec_index(9, 20)
    off, rtype, rsize = cap.records[i]
    cut = off + rsize // 2
    missing = cap.data_end - cut
    declared = cap.data_end - cap.data_offset
    case("truncated_record", cap.data[:cut],
         damaged("record at offset %s (SAMPLE, %d bytes) runs "
                 "past the end of the data at %s; the file ends %d bytes "
                 "(%.1f%%) short of the %d-byte data section its header "
                 "declares" % (hx(off), rsize, hx(cut), missing,
                               100.0 * missing / declared, declared), i))
    # killed perf record: data_size 0, nothing after the data
    b = cap.copy()[:cap.data_end]
    put_u64(b, 48, 0)
    case("data_size0", b,
         damaged("the header's data size is 0 (was perf record "
                 "killed?); reading records up to the end of the file and "
                 "ignoring the feature sections", nrec))
    # a record whose size is 0, halfway through
    i = cap.rec_index(9, 10)
    off, rtype, rsize = cap.records[i]
    b = cap.copy()
    struct.pack_into("<H", b, off + 6, 0)
    case("record_size0", b,
         damaged("record at offset %s: size 0 < header size 8 "
                 "(type %d)" % (hx(off), rtype), i))
    # the last record claims more bytes than the data section has left
    i = nrec - 1
    off, rtype, rsize = cap.records[i]
    b = cap.copy()
    struct.pack_into("<H", b, off + 6, rsize + 64)
    case("record_past_end", b,
         damaged("record at offset %s (%s, %d bytes) runs past "
                 "the end of the data at %s"
                 % (hx(off), REC_NAMES.get(rtype, "type %d" % rtype),
                    rsize + 64, hx(cap.data_end)), i))
    # a feature section that lies outside the file
    b = cap.copy()
    bit = 3 if 3 in cap.feat_sections else cap.feat_bits[0]
    ent = cap.data_end + 16 * cap.feat_bits.index(bit)
    bad_off = size + 4096
    put_u64(b, ent, bad_off)
    case("feature_outside", b,
         damaged("feature %s: section %s+%d is outside the file "
                 "or overlaps the data; skipped"
                 % (FEATURE_NAMES.get(bit, str(bit)), hx(bad_off),
                    cap.feat_sections[bit][1]), nrec))
    # SAMPLE_TIME whose last sample comes before its first: --time's
    # percentages would be of a wrapped span; dropped with a warning
    st_bit = 21
    if st_bit not in cap.feat_sections:
        sys.exit("make_corrupt.py: the base has no sample_time section")
    b = cap.copy()
    st_off = cap.feat_sections[st_bit][0]
    first, last = struct.unpack_from("<2Q", cap.data, st_off)
    struct.pack_into("<2Q", b, st_off, last, first)
    case("sample_time_reversed", b,
         damaged("feature section sample_time is damaged (at byte 16 of "
                 "16: the last sample time %d is before the first %d); "
                 "what came before the damage is kept" % (first, last),
                 nrec, "info-warning"))
    # an unknown feature bit, with a well-formed table entry and section
    unknown = 200
    if unknown in cap.feat_bits or max(cap.feat_bits) > unknown:
        sys.exit("make_corrupt.py: the base already has bit %d" % unknown)
    b = cap.copy()
    sec_data = b"unknown feature section\0"
    table_end = cap.data_end + 16 * len(cap.feat_bits)
    # shift every section after the table by the new 16-byte entry
    for k, fbit in enumerate(cap.feat_bits):
        foff, fsize = cap.feat_sections[fbit]
        if foff >= table_end:
            put_u64(b, cap.data_end + 16 * k, foff + 16)
    new_sec = size + 16
    b[table_end:table_end] = struct.pack("<2Q", new_sec, len(sec_data))
    b += sec_data
    feats = list(cap.features)
    feats[unknown // 64] |= 1 << (unknown % 64)
    struct.pack_into("<4Q", b, 72, *feats)
    case("unknown_feature", b,
         damaged("feature bit %d is set but not known to this reader; "
                 "its section is skipped" % unknown, nrec, "info-warning"))

    for name, blob, expect in cases:
        path = os.path.join(out, name + ".perf.data")
        with open(path, "wb") as fp:
            fp.write(blob)
        with open(os.path.join(out, name + ".expect"), "w") as fp:
            fp.write("\n".join(expect) + "\n")
    print("make_corrupt.py: %d cases from %s" % (len(cases), src))


if __name__ == "__main__":
    main()
