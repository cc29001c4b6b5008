#!/usr/bin/env python3
"""premaps.py DUMP [HEADER]: the records before the data of a capture,
from `perf report -D` (DUMP), as one comparable text: the order of
ID_INDEX, the kernel's MMAP, EVENT_UPDATE, THREAD_MAP, CPU_MAP and
FINISHED_INIT, each
with its size and its decoded content, numbers that name a run (ids,
pids) replaced by their kind.  With HEADER (`perf report --header-only`
of a file), checks that the index names each id of the attrs once."""
import re
import sys

import perfdump

KEEP = ("PERF_RECORD_ID_INDEX", "PERF_RECORD_EVENT_UPDATE",
        "PERF_RECORD_THREAD_MAP", "PERF_RECORD_CPU_MAP",
        "PERF_RECORD_FINISHED_INIT")


def pid_kind(v):
    return v if int(v) < 0 else "PID"


def main():
    out, ids = [], []
    rec = re.compile(r"^(?:-?\d+ )+0x[0-9a-f]+ \[(0x[0-9a-f]+)\]: (PERF_RECORD_\w+):?(.*)")
    ent = re.compile(r"^ \.\.\. id: (\d+)\s+idx: (-?\d+)\s+cpu: (-?\d+)\s+tid: (-?\d+)")
    for line, raw in perfdump.lines(sys.argv[1]):
        m = rec.match(line)
        if m:
            size, name, rest = m.groups()
            if name == "PERF_RECORD_MMAP" and rest.strip().startswith("-1/0"):
                out.append("MMAP kernel [%s]" % size)
            elif name in KEEP:
                rest = re.sub(r"thread: ([-\d, ]+)", lambda t: "thread: " +
                              ",".join(pid_kind(x) for x in
                                       re.findall(r"-?\d+", t.group(1))),
                              rest)
                rest = rest.replace("unhandled!", "").rstrip()
                out.append("%s [%s]%s" % (name[12:], size, rest))
                if name == "PERF_RECORD_EVENT_UPDATE":
                    # its type and payload; the id is the attrs' (checked
                    # by perf, which warns of an unknown one)
                    out.append("  type %d %s" % (raw[8], raw[24:].hex()))
                elif name == "PERF_RECORD_CPU_MAP":
                    out.append("  bytes " + raw.hex())
                elif name == "PERF_RECORD_THREAD_MAP":
                    # each entry: pid, then its comm
                    out += ["  comm %r" % raw[o + 8:o + 24].rstrip(b"\0")
                            for o in range(16, len(raw) - 23, 24)]
            if name == "PERF_RECORD_FINISHED_INIT":
                break
            continue
        m = ent.match(line)
        if m:
            ids.append(int(m.group(1)))
            out.append("  idx %s cpu %s tid %s" %
                       (m.group(2), m.group(3), pid_kind(m.group(4))))
    print("\n".join(out))
    if len(sys.argv) > 2:
        attr = []
        for line in open(sys.argv[2]):
            m = re.search(r"id = \{([\d, ]+)\}", line)
            if m:
                attr += [int(x) for x in m.group(1).split(",")]
        if sorted(attr) != sorted(ids) or not ids:
            print("ID_INDEX ids %s != the attrs' %s" % (ids, attr))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
