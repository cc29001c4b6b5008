#!/usr/bin/env python3
# mkseed_tracing.py - a seed for fuzz_tracing.c: one tracepoint sample's
# raw bytes and its capture's tracing data, in the layout fuzz_tracing.c
# reads (u16 little-endian length, the raw bytes, the section), so that
# the fuzzer starts from real formats and a print fmt that evaluates.
#
#   tests/fuzz/mkseed_tracing.py CAPTURE EVENT OUT
#
# CAPTURE is a file-mode perf.data (.zst is decompressed with zstd) or a
# pipe-mode stream with tracepoint samples; EVENT the event whose first
# sample is taken ("sched:sched_switch").  The sample's offset, size and
# raw size come from `pdtool dump --json` (PDTOOL, default
# build/default/pdtool); its raw bytes are the record's last (the RAW
# field is the last of these captures' sample types).  The seeds in
# tests/fuzz/corpus/tracing/ were made with
#
#   for e in sched:sched_switch sched:sched_process_exec \
#	irq:irq_handler_entry timer:hrtimer_start; do
#	tests/fuzz/mkseed_tracing.py testdata/sched/tpmix.perf.data.zst $e \
#		tests/fuzz/corpus/tracing/seed-tpmix-${e#*:}
#   done
#   tests/fuzz/mkseed_tracing.py testdata/sched/offcpupipe.perf.data \
#	sched:sched_switch tests/fuzz/corpus/tracing/seed-offcpupipe-switch
import json
import os
import struct
import subprocess
import sys

FEAT_TRACING_DATA = 1
HEADER_TRACING_DATA = 66


def tracing_data(raw):
    """The capture's HEADER_TRACING_DATA bytes (little-endian only)."""
    magic, hsize = struct.unpack_from('<8sQ', raw, 0)
    if magic != b'PERFILE2':
        sys.exit('mkseed_tracing.py: not a little-endian perf.data')
    if hsize == 16:
        # pipe mode: the record, then its payload
        off = 16
        while off + 8 <= len(raw):
            typ, _, size = struct.unpack_from('<IHH', raw, off)
            if typ == HEADER_TRACING_DATA:
                n = struct.unpack_from('<I', raw, off + 8)[0]
                return raw[off + size:off + size + n]
            off += size
        sys.exit('mkseed_tracing.py: no HEADER_TRACING_DATA record')
    data_off, data_size = struct.unpack_from('<QQ', raw, 40)
    bits = struct.unpack_from('<4Q', raw, 72)
    if not bits[0] >> FEAT_TRACING_DATA & 1:
        sys.exit('mkseed_tracing.py: no tracing data section')
    # the feature index follows the data; tracing data is the lowest bit
    # set past bit 0 (bit 0 is reserved)
    idx = data_off + data_size + 16 * (bits[0] & 1)
    off, size = struct.unpack_from('<QQ', raw, idx)
    return raw[off:off + size]


def main():
    capture, event, out = sys.argv[1:4]
    pdtool = os.environ.get('PDTOOL', 'build/default/pdtool')
    if capture.endswith('.zst'):
        raw = subprocess.run(['zstd', '-q', '-d', '-c', capture],
                             check=True, capture_output=True).stdout
    else:
        raw = open(capture, 'rb').read()
    dump = subprocess.run([pdtool, 'dump', '--json', capture], check=True,
                          capture_output=True, text=True).stdout
    for line in dump.splitlines():
        rec = json.loads(line)
        if rec.get('type') == 'SAMPLE' and rec.get('event') == event:
            break
    else:
        sys.exit('mkseed_tracing.py: no sample of %s' % event)
    end = rec['offset'] + rec['size']
    sample_raw = raw[end - rec['raw_size']:end]
    sec = tracing_data(raw)
    with open(out, 'wb') as f:
        f.write(struct.pack('<H', len(sample_raw)) + sample_raw + sec)


if __name__ == '__main__':
    main()
