#!/usr/bin/env python3
"""mkseed_spe.py - seeds for the spe fuzz target (tests/fuzz/fuzz_spe.c)
long enough for pd_spe_next_record_lean()'s straight-line path (which
needs 144 bytes ahead): the first AUXTRACE payload bytes of each capture
given, after the input's metadata byte and two version-1 words, written
to DIR/seed-lean-NAME.

    python3 tests/fuzz/mkseed_spe.py DIR CAPTURE...

The captures: testdata/spe/*.perf.data (made by testdata/spe.md's
recipes) and a small one of bench/spe_gen.c (its PAD runs between
records).
"""
import os
import struct
import sys

AUXTRACE = 71
KEEP = 2048  # bytes of trace: a few dozen records


def first_aux(path):
    with open(path, 'rb') as f:
        d = f.read()
    if d[:8] != b'PERFILE2':
        return None
    data_off, data_size = struct.unpack_from('<QQ', d, 40)
    pos, end = data_off, data_off + data_size
    while pos + 8 <= end:
        typ, _misc, size = struct.unpack_from('<IHH', d, pos)
        if size < 8:
            return None
        if typ == AUXTRACE:
            n = struct.unpack_from('<Q', d, pos + 8)[0]
            return d[pos + size:pos + size + min(n, KEEP)]
        pos += size
    return None


def main():
    out = sys.argv[1]
    for cap in sys.argv[2:]:
        trace = first_aux(cap)
        if not trace:
            sys.exit('mkseed_spe: no AUXTRACE in ' + cap)
        # byte 0: two metadata words (version 1: PMU type, per-CPU)
        seed = bytes([2]) + struct.pack('<QQ', 8, 1) + trace
        name = os.path.basename(cap).split('.')[0]
        with open(os.path.join(out, 'seed-lean-' + name), 'wb') as f:
            f.write(seed)


main()
