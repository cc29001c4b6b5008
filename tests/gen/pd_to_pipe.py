#!/usr/bin/env python3
"""pd_to_pipe.py IN OUT - a file-mode perf.data capture as a pipe-mode
stream, as `perf record -o -` writes one: the 16-byte pipe header, a
HEADER_ATTR record per event (its attr and ids), a HEADER_FEATURE record
per header feature (its section as the file holds it: CPU_PMU_CAPS,
GROUP_DESC, ... every one, in bit order), then the data section's
records as they are.  perf inject -o - (6.1 and 7.2) drops what the
input's header said of the recording host's PMU (CPU_PMU_CAPS), which a
real pipe recording carries; this keeps it.  Little-endian captures."""
import struct
import sys

PERF_RECORD_HEADER_ATTR = 64
PERF_RECORD_HEADER_FEATURE = 80


def record(rtype, payload):
    size = 8 + len(payload)
    pad = (-size) % 8
    return struct.pack("<IHH", rtype, 0, size + pad) + payload + b"\0" * pad


def main():
    src, dst = sys.argv[1:3]
    d = open(src, "rb").read()
    if d[:8] != b"PERFILE2":
        sys.exit("pd_to_pipe.py: %s: not a little-endian file-mode capture"
                 % src)
    (hsize, attr_size, a_off, a_size, d_off, d_size, _et_off,
     _et_size) = struct.unpack_from("<8Q", d, 8)
    flags = struct.unpack_from("<4Q", d, 72)
    out = [b"PERFILE2" + struct.pack("<Q", 16)]
    for off in range(a_off, a_off + a_size, attr_size):
        attr = d[off:off + attr_size - 16]
        ids_off, ids_size = struct.unpack_from("<2Q", d, off + attr_size - 16)
        out.append(record(PERF_RECORD_HEADER_ATTR,
                          attr + d[ids_off:ids_off + ids_size]))
    sec = d_off + d_size
    for bit in range(256):
        if not flags[bit // 64] >> (bit % 64) & 1:
            continue
        f_off, f_size = struct.unpack_from("<2Q", d, sec)
        sec += 16
        out.append(record(PERF_RECORD_HEADER_FEATURE,
                          struct.pack("<Q", bit) + d[f_off:f_off + f_size]))
    out.append(d[d_off:d_off + d_size])
    open(dst, "wb").write(b"".join(out))


main()
