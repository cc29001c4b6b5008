#!/usr/bin/env python3
"""lostcheck.py DUMP [HEADER]: the lost samples of a capture, from
`perf report -D` (DUMP) and `perf report --header-only` (HEADER) of a
file; a pipe's stream has no header: its ATTR records in the dump give
the attrs and their ids.
Prints the LOST records' count and their lost samples, the LOST_SAMPLES
records' count and theirs, and the LOST_SAMPLES layouts (size, misc and
the sample_id trailer, with each id replaced by ID when the attrs have
it and the CPU by CPU: perf 6.1 writes 0 there, pdtool the counter's
CPU).  Exits 1 when a LOST_SAMPLES record names an id no attr has, or
its trailer has a pid, tid or time (perf 6.1 writes them zero)."""
import re
import struct
import sys

import perfdump

TRAILER = [("TID", 8), ("TIME", 8), ("ID", 8), ("STREAM_ID", 8),
           ("CPU", 8), ("IDENTIFIER", 8)]
# PERF_SAMPLE_* bits of the trailer's fields
BITS = {"TID": 1 << 1, "TIME": 1 << 2, "ID": 1 << 6, "CPU": 1 << 7,
        "STREAM_ID": 1 << 9, "IDENTIFIER": 1 << 16}


def header_attrs(path, ids):
    """The attrs' ids into ids; the sample_type of the last event but
    dummy, as a set of names, from `perf report --header-only`."""
    stype = None
    for line in open(path):
        m = re.search(r"id = \{([\d, ]+)\}", line)
        if m:
            ids |= {int(x) for x in m.group(1).split(",")}
        m = re.search(r"sample_type = ([A-Z_|]+)", line)
        if m and line.startswith("# event : name = ") and "dummy" not in line:
            stype = set(m.group(1).split("|"))
    return stype


def pipe_attrs(path, ids):
    """The same from a pipe's ATTR records (header, attr, ids)."""
    stype = None
    for line, raw in perfdump.lines(path):
        if "PERF_RECORD_ATTR" not in line or len(raw) < 8 + 32:
            continue
        asize = struct.unpack_from("<I", raw, 8 + 4)[0]
        typ, config, st = (struct.unpack_from("<I", raw, 8)[0],
                           struct.unpack_from("<Q", raw, 8 + 8)[0],
                           struct.unpack_from("<Q", raw, 8 + 24)[0])
        ids |= set(struct.unpack_from("<%dQ" % ((len(raw) - 8 - asize) // 8),
                                      raw, 8 + asize))
        if not (typ == 1 and config == 9):  # software dummy
            stype = {n for n, b in BITS.items() if st & b}
    return stype


def main():
    ids = set()
    if len(sys.argv) > 2:
        stype = header_attrs(sys.argv[2], ids)
    else:
        stype = pipe_attrs(sys.argv[1], ids)
    lost = [0, 0]
    lost_samples = [0, 0]
    layouts, bad = set(), []
    for line, raw in perfdump.lines(sys.argv[1]):
        m = re.search(r"PERF_RECORD_LOST: id:\d+: lost:(\d+)", line)
        if m:
            lost[0] += 1
            lost[1] += int(m.group(1))
            continue
        if "PERF_RECORD_LOST_SAMPLES" not in line:
            continue
        typ, misc, size, count = struct.unpack_from("<IHHQ", raw)
        lost_samples[0] += 1
        lost_samples[1] += count
        fields, off = [], 16
        for name, n in TRAILER:
            if name not in stype:
                continue
            v = struct.unpack_from("<Q", raw, off)[0]
            off += n
            if name in ("ID", "IDENTIFIER"):
                if v not in ids:
                    bad.append("id %d of no attr" % v)
                v = name
            elif name == "CPU":
                v = "CPU"
            elif v:
                bad.append("%s %#x, not 0" % (name, v))
            fields.append("%s=%s" % (name, v))
        if off != size:
            bad.append("size %d, the trailer ends at %d" % (size, off))
        layouts.add("LOST_SAMPLES size %d misc %d %s" %
                    (size, misc, " ".join(fields)))
    print("LOST %d records, %d samples" % tuple(lost))
    print("LOST_SAMPLES %d records, %d samples" % tuple(lost_samples))
    print("\n".join(sorted(layouts)))
    for b in bad:
        print("bad LOST_SAMPLES: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
