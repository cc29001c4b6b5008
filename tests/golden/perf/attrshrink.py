#!/usr/bin/env python3
"""attrshrink.py - let perf 6.1 read a capture whose attrs are too new.

    attrshrink.py IN OUT

perf >= 6.3 (and simpleperf) write a perf_event_attr of 136 bytes or more;
perf 6.1 knows 128 and refuses a file-mode capture whose attr.size is
bigger ("file uses a more recent and unsupported ABI").  When every byte
past the first 128 of every attr is zero (config3 and later unused), the
attr says nothing perf 6.1 cannot represent, so OUT is IN with the attrs
section rewritten: each entry becomes the attr's first 128 bytes, with
attr.size = 128, followed by its ids file section, and the header's
attr_size and attrs.size follow.  The section only shrinks, in place;
nothing else moves.  The data section, and so every record, is
untouched: what perf 6.1 reads in OUT is what the file holds.

Exit status 0: OUT written; 3: not applicable (not a little-endian
file-mode PERFILE2 header, attrs already <= 128 bytes, or a non-zero
byte past 128), with the reason on stderr; 2: error.
"""
import struct
import sys

PERF_ATTR_SIZE_VER7 = 128
SECTION = 16        # struct perf_file_section: offset, size


def shrink(data):
    if data[:8] != b"PERFILE2":
        raise ValueError("not a little-endian file-mode perf.data header")
    hdr_size, attr_size, attrs_off, attrs_size = struct.unpack_from(
        "<QQQQ", data, 8)
    if attr_size <= SECTION or attrs_size % attr_size:
        raise ValueError("attr_size %d does not divide the attrs section "
                         "(%d bytes)" % (attr_size, attrs_size))
    on_file = attr_size - SECTION
    if on_file <= PERF_ATTR_SIZE_VER7:
        raise ValueError("attrs are %d bytes: perf 6.1 reads them" % on_file)
    out = bytearray(data)
    new_entries = bytearray()
    for i in range(attrs_size // attr_size):
        entry = data[attrs_off + i * attr_size:
                     attrs_off + (i + 1) * attr_size]
        attr, ids = entry[:on_file], entry[on_file:]
        if any(attr[PERF_ATTR_SIZE_VER7:]):
            raise ValueError("attr %d has non-zero bytes past %d" %
                             (i, PERF_ATTR_SIZE_VER7))
        attr = bytearray(attr[:PERF_ATTR_SIZE_VER7])
        struct.pack_into("<I", attr, 4, PERF_ATTR_SIZE_VER7)
        new_entries += attr + ids
    out[attrs_off:attrs_off + attrs_size] = \
        new_entries + bytes(attrs_size - len(new_entries))
    struct.pack_into("<QQQ", out, 16, PERF_ATTR_SIZE_VER7 + SECTION,
                     attrs_off, len(new_entries))
    return bytes(out)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        with open(sys.argv[1], "rb") as f:
            data = f.read()
        out = shrink(data)
    except ValueError as e:
        print("attrshrink: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        sys.exit(3)
    except OSError as e:
        print("attrshrink: %s" % e, file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[2], "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
