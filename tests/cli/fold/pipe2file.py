#!/usr/bin/env python3
"""pipe2file.py - a pipe-mode perf.data stream rewritten as a file-mode
capture of the same records, for comparing what pdtool reads from the two
forms (perf 6.1's `perf inject` stops at a stream's tracing data with
"unexpected end of event stream"):

    pipe2file.py PIPE.DATA FILE.DATA

The stream's HEADER_ATTR records become the attrs section (each with its
ids), HEADER_FEATURE records and the bytes after HEADER_TRACING_DATA the
feature sections, and every other record, in the stream's order, the data
section, as perf's file header (perf_file_header, 104 bytes) lays them
out.  Little-endian streams only (what the tests record here).
"""
import struct
import sys

PIPE_MAGIC = b'PERFILE2'
HEADER_ATTR, HEADER_EVENT_TYPE, HEADER_TRACING_DATA = 64, 65, 66
HEADER_FEATURE = 80
FEAT_TRACING_DATA = 1


def main():
    raw = open(sys.argv[1], 'rb').read()
    magic, hsize = struct.unpack_from('<8sQ', raw, 0)
    if magic != PIPE_MAGIC or hsize != 16:
        sys.exit('pipe2file.py: %s: not a little-endian pipe-mode stream'
                 % sys.argv[1])
    attrs, feats, data = [], {}, bytearray()
    off = 16
    while off + 8 <= len(raw):
        typ, _, size = struct.unpack_from('<IHH', raw, off)
        if size < 8 or off + size > len(raw):
            sys.exit('pipe2file.py: record at offset %#x: size %d'
                     % (off, size))
        rec = raw[off:off + size]
        nxt = off + size
        if typ == HEADER_ATTR:
            asize = struct.unpack_from('<I', rec, 8 + 4)[0]
            attr = rec[8:8 + asize]
            ids = rec[8 + asize:]
            attrs.append((attr, ids))
        elif typ == HEADER_FEATURE:
            fid = struct.unpack_from('<Q', rec, 8)[0]
            # an empty one is a feature perf could not write: none
            if size > 16:
                feats[fid] = rec[16:]
        elif typ == HEADER_TRACING_DATA:
            tsize = struct.unpack_from('<I', rec, 8)[0]
            feats[FEAT_TRACING_DATA] = raw[nxt:nxt + tsize]
            nxt += tsize
        elif typ != HEADER_EVENT_TYPE:
            data += rec
        off = nxt
    if not attrs:
        sys.exit('pipe2file.py: %s: no HEADER_ATTR record' % sys.argv[1])
    asize = len(attrs[0][0])
    if any(len(a) != asize for a, _ in attrs):
        sys.exit('pipe2file.py: attrs of different sizes')

    out = bytearray(104)
    # each attr's ids, then the attrs section pointing at them
    id_secs = []
    for _, ids in attrs:
        id_secs.append((len(out), len(ids)))
        out += ids
    attr_off = len(out)
    for (attr, _), (ioff, isize) in zip(attrs, id_secs):
        out += attr + struct.pack('<QQ', ioff, isize)
    data_off = len(out)
    out += data
    # the feature index after the data, then each section's bytes
    order = sorted(feats)
    idx_off = len(out)
    out += bytes(16 * len(order))
    for i, fid in enumerate(order):
        struct.pack_into('<QQ', out, idx_off + 16 * i, len(out),
                         len(feats[fid]))
        out += feats[fid]
    bits = [0, 0, 0, 0]
    for fid in order:
        bits[fid // 64] |= 1 << (fid % 64)
    struct.pack_into('<8sQQ', out, 0, PIPE_MAGIC, 104, asize + 16)
    struct.pack_into('<QQQQQQ', out, 24, attr_off, len(attrs) * (asize + 16),
                     data_off, len(data), 0, 0)
    struct.pack_into('<4Q', out, 72, *bits)
    open(sys.argv[2], 'wb').write(out)


if __name__ == '__main__':
    main()
