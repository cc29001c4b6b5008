#!/usr/bin/env python3
"""comp2to1.py - let perf 6.1 read a capture with COMPRESSED2 records.

    comp2to1.py IN OUT

perf 6.16 writes its zstd chunks as PERF_RECORD_COMPRESSED2 (type 83:
header, u64 data_size, the data, padding to 8 bytes); perf 6.1 only knows
PERF_RECORD_COMPRESSED (type 81: header, then the data up to header.size)
and stops at the first COMPRESSED2.  The two carry the same zstd stream,
so OUT is IN with each COMPRESSED2 rewritten as a COMPRESSED of the same
data (8 + data_size bytes, padding dropped).  Every other record is copied
byte for byte, in order, and so is anything after the last whole record
(a damaged tail stays as damaged).  A file-mode capture's data section shrinks by
what was dropped: data.size follows, and the feature section table, which
perf looks for right after the data, moves down with it; the feature
sections keep their absolute offsets.

Prints the number of COMPRESSED2 records rewritten and of COMPRESSED
records the file already had.  Exit status 0: OUT written; 3: not applicable (no COMPRESSED2 record,
not little-endian, a chunk whose data does not fit a u16 header.size, or
records carrying file offsets or payloads outside header.size: AUXTRACE,
HEADER_TRACING_DATA), with the reason on stderr; 2: error.
"""
import struct
import sys

COMPRESSED, COMPRESSED2 = 81, 83
HEADER_TRACING_DATA, AUXTRACE = 66, 71
NR_FEATURE_BITS = 256


def convert_stream(data, start, end):
    """(converted data[start:end], COMPRESSED2 rewritten, COMPRESSED
    already there)."""
    out = bytearray()
    pos, nr, nr_comp1 = start, 0, 0
    while pos + 8 <= end:
        rtype, _misc, size = struct.unpack_from("<IHH", data, pos)
        if size < 8 or pos + size > end:
            break       # damaged from here: copied as it is
        if rtype in (HEADER_TRACING_DATA, AUXTRACE):
            raise ValueError("record type %d at 0x%x has a payload past "
                             "header.size" % (rtype, pos))
        if rtype == COMPRESSED2:
            data_size = struct.unpack_from("<Q", data, pos + 8)[0]
            if size != (16 + data_size + 7) & ~7 or 8 + data_size > 0xffff:
                raise ValueError("COMPRESSED2 at 0x%x: header.size %d for "
                                 "%d bytes of data" % (pos, size, data_size))
            out += struct.pack("<IHH", COMPRESSED, _misc, 8 + data_size)
            out += data[pos + 16:pos + 16 + data_size]
            nr += 1
        else:
            nr_comp1 += rtype == COMPRESSED
            out += data[pos:pos + size]
        pos += size
    out += data[pos:end]
    return bytes(out), nr, nr_comp1


def convert(data):
    if data[:8] != b"PERFILE2":
        raise ValueError("not a little-endian perf.data")
    hdr_size = struct.unpack_from("<Q", data, 8)[0]
    if hdr_size == 16:                          # pipe mode
        body, nr, nr_comp1 = convert_stream(data, 16, len(data))
        out = data[:16] + body
    else:
        data_off, data_size = struct.unpack_from("<QQ", data, 40)
        flags = int.from_bytes(data[72:72 + NR_FEATURE_BITS // 8], "little")
        table = 16 * bin(flags).count("1")
        body, nr, nr_comp1 = convert_stream(data, data_off,
                                            data_off + data_size)
        end = data_off + data_size
        out = bytearray(data)
        out[data_off:data_off + len(body)] = body
        new_end = data_off + len(body)
        out[new_end:new_end + table] = data[end:end + table]
        struct.pack_into("<Q", out, 48, len(body))
        out = bytes(out)
    if nr == 0:
        raise ValueError("no COMPRESSED2 record")
    return out, nr, nr_comp1


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        with open(sys.argv[1], "rb") as f:
            data = f.read()
        out, nr, nr_comp1 = convert(data)
    except ValueError as e:
        print("comp2to1: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        sys.exit(3)
    except OSError as e:
        print("comp2to1: %s" % e, file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[2], "wb") as f:
        f.write(out)
    print(nr, nr_comp1)


if __name__ == "__main__":
    main()
