"""perfdump.py: the lines of `perf report -D` output, each with the raw
bytes of the record it belongs to (the hex dump perf prints before the
record's own line), for the record tests' checkers."""
import re

HEX = re.compile(r"^\.\s+[0-9a-f]{4}:\s+((?:[0-9a-f]{2} )+)")
START = re.compile(r"^0x[0-9a-f]+@")


def lines(path):
    """Yield (line, raw) for every line of the dump at path but the hex
    dump's own: raw is the current record's bytes."""
    raw = b""
    for line in open(path, errors="replace"):
        h = HEX.match(line)
        if h:
            raw += bytes.fromhex(h.group(1))
            continue
        if START.match(line):
            raw = b""
        yield line, raw
