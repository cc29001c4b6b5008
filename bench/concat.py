#!/usr/bin/env python3
"""concat.py - a capture N times as large as FILE, of the same workload:
its data section written N times in a row (issue 14's "capture 10x larger
of the same workload ... concatenated data sections").

    python3 bench/concat.py N IN OUT

The first copy is the data section as it is; the others hold its SAMPLE
(and FINISHED_ROUND) records only, with the same timestamps, so each
sample of a copy meets the threads, comms and maps of its own moment as
in IN (repeated sideband records without timestamps, such as perf's
synthesized COMMs, would land after the earlier copies in time order
and rename threads there).  OUT has the same threads, maps and distinct
stacks as IN and every stack N times the weight: what a reader keeps per distinct stack stays the same,
what it keeps per record or per decompressed byte grows N times.  That is
what the memory target measures.  `pdtool fold OUT` must print IN's lines
with N times the counts (checked by bench/fold.sh).

Only the file layout is touched: the header's data size, and the feature
sections moved behind the longer data with their index rewritten.  A `-z`
capture's COMPRESSED records are one zstd stream that perf flushes but
never ends, so copies of it cannot follow each other: for such a capture
the records before the first COMPRESSED record are written once, then
the stream's records N times over, compressed again (the zstd command)
as one stream cut into COMPRESSED records of at most perf's size.  A
capture whose features hold offsets into the data (AUXTRACE's index)
or a pipe-mode capture is refused.
"""
import struct
import subprocess
import sys

MAGIC = b"PERFILE2"
HEADER_AUXTRACE = 18
PERF_RECORD_COMPRESSED = 81
PERF_RECORD_COMPRESSED2 = 83
PERF_RECORD_FINISHED_ROUND = 68
PERF_RECORD_SAMPLE = 9
# perf's COMPRESSED records: at most a u16 size, as perf cuts them
MAX_PAYLOAD = 65535 - 8


def die(msg):
    sys.stderr.write("concat.py: %s\n" % msg)
    sys.exit(2)


def records(data):
    pos = 0
    while pos + 8 <= len(data):
        rtype, _, rsize = struct.unpack_from("<IHH", data, pos)
        if rsize < 8:
            die("%s: record of %d bytes at data offset %d" %
                (sys.argv[2], rsize, pos))
        if pos + rsize > len(data):
            return
        yield rtype, data[pos:pos + rsize]
        pos += rsize


def any_compressed(data):
    for rtype, _ in records(data):
        if rtype == PERF_RECORD_COMPRESSED2:
            die("%s: COMPRESSED2 records are not handled" % sys.argv[2])
        if rtype == PERF_RECORD_COMPRESSED:
            return True
    return False


def samples_only(data):
    return b"".join(r for t, r in records(data)
                    if t in (PERF_RECORD_SAMPLE, PERF_RECORD_FINISHED_ROUND))


def recompress(data, n):
    prefix, stream = bytearray(), bytearray()
    for rtype, rec in records(data):
        if rtype == PERF_RECORD_COMPRESSED:
            stream += rec[8:]
        elif rtype == PERF_RECORD_FINISHED_ROUND:
            continue
        elif stream:
            die("%s: a record other than FINISHED_ROUND among the "
                "COMPRESSED ones" % sys.argv[2])
        else:
            prefix += rec
    # the stream never ends: zstd says "premature end" after the whole
    # of it, so the exit status is not the test; the records are
    inflated = subprocess.run(["zstd", "-dcq"], input=bytes(stream),
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL).stdout
    whole = sum(len(r) for _, r in records(inflated))
    if not whole:
        die("%s: the COMPRESSED records inflate to no record" % sys.argv[2])
    if whole < len(inflated):
        # perf's last flush can stop inside a record; readers skip it
        sys.stderr.write("concat.py: %s: %d bytes of a last record that "
                         "the stream does not complete left out\n" %
                         (sys.argv[2], len(inflated) - whole))
        inflated = inflated[:whole]
    packed = subprocess.run(["zstd", "-cq", "-3"],
                            input=inflated + samples_only(inflated) * (n - 1),
                            stdout=subprocess.PIPE, check=True).stdout
    out = bytearray(prefix)
    for i in range(0, len(packed), MAX_PAYLOAD):
        piece = packed[i:i + MAX_PAYLOAD]
        out += struct.pack("<IHH", PERF_RECORD_COMPRESSED, 0,
                           8 + len(piece)) + piece
    return bytes(out)


def main():
    if len(sys.argv) != 4:
        die("usage: concat.py N IN OUT")
    n = int(sys.argv[1])
    if n < 1:
        die("N must be at least 1")
    with open(sys.argv[2], "rb") as f:
        buf = f.read()
    if buf[:8] != MAGIC:
        die("%s: not a little-endian perf.data file (pipe mode, or "
            "another byte order)" % sys.argv[2])
    size, attr_size = struct.unpack_from("<QQ", buf, 8)
    data_off, data_size = struct.unpack_from("<QQ", buf, 40)
    bits = struct.unpack_from("<4Q", buf, 72)
    feats = [b for b in range(256) if bits[b // 64] >> (b % 64) & 1]
    if HEADER_AUXTRACE in feats:
        die("%s: AUXTRACE's index holds offsets into the data" % sys.argv[2])
    if data_off + data_size > len(buf):
        die("%s: data section beyond the file" % sys.argv[2])
    index_off = data_off + data_size
    sections = [struct.unpack_from("<QQ", buf, index_off + 16 * i)
                for i in range(len(feats))]

    data = buf[data_off:data_off + data_size]
    if any_compressed(data):
        data = recompress(data, n)
        n = 1
    more = samples_only(data) if n > 1 else b""
    total = len(data) + len(more) * (n - 1)

    out = bytearray(buf[:data_off])
    struct.pack_into("<Q", out, 48, total)
    with open(sys.argv[3], "wb") as f:
        f.write(out)
        f.write(data)
        for _ in range(n - 1):
            f.write(more)
        new_index = data_off + total
        pos = new_index + 16 * len(sections)
        index = bytearray()
        blobs = []
        for off, sz in sections:
            index += struct.pack("<QQ", pos, sz)
            blobs.append(buf[off:off + sz])
            pos += sz
        f.write(index)
        for b in blobs:
            f.write(b)


if __name__ == "__main__":
    main()
