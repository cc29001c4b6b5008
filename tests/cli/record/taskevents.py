#!/usr/bin/env python3
"""taskevents.py DUMP SCRIPT: the task events (COMM, FORK, EXIT) of a
capture as one comparable text, from `perf report -D` (DUMP) and `perf
script --show-task-events` (SCRIPT).  Pids and tids but 0 become P1, P2,
... in the order they first appear in COMM and FORK records (by time,
then file order), then in EXIT records; times are left out.
The records the recorder synthesized (time 0) are printed in file order
with their size and raw bytes' misc, and where FINISHED_INIT falls
among them; the kernel's, whose order across
CPUs is the scheduler's, sorted; then perf script's lines (command, tid,
event), sorted.  Exits 1 when the dump has no task event at all."""
import re
import struct
import sys

import perfdump

REC = re.compile(r"^(?:-?\d+ )*?(\d+) (0x[0-9a-f]+) \[(0x[0-9a-f]+)\]: "
                 r"PERF_RECORD_(COMM|FORK|EXIT|FINISHED_INIT)(.*)")
SCRIPT = re.compile(r"^\s*(\S+)\s+(-?\d+)\s+[\d.]+: PERF_RECORD_"
                    r"(COMM|FORK|EXIT)(.*)")


class Pids:
    """Numbers that name a task, each by its first appearance."""

    def __init__(self):
        self.names = {}

    def name(self, text):
        def one(m):
            v = m.group(0)
            if v == "0":
                return v
            if v not in self.names:
                self.names[v] = "P%d" % (len(self.names) + 1)
            return self.names[v]
        return re.sub(r"\b\d+\b", one, text)


def main():
    recs = []
    for line, raw in perfdump.lines(sys.argv[1]):
        m = REC.match(line)
        if not m:
            continue
        time, off, size, kind, rest = m.groups()
        misc = struct.unpack_from("<H", raw, 4)[0] if len(raw) >= 8 else -1
        rest = rest.replace(": unhandled!", "")
        recs.append((int(time), int(off, 16), size, kind, misc, rest))
    if not recs:
        print("bad: no COMM, FORK or EXIT record")
        return 1
    pids = Pids()
    # EXIT records last: a thread may exit before the next is forked,
    # and the recorder's pid, an EXIT's parent, must not take its name
    for r in sorted(recs, key=lambda r: (r[3] == "EXIT", r[0], r[1])):
        pids.name(r[5])
    synth, kernel = [], []
    for time, _, size, kind, misc, rest in recs:
        text = "%s [%s] misc %#x%s" % (kind, size, misc, pids.name(rest))
        (synth if time == 0 else kernel).append(text)
    print("synthesized:")
    print("\n".join("  " + t for t in synth))
    print("kernel's:")
    print("\n".join("  " + t for t in sorted(kernel)))
    lines = []
    for line in open(sys.argv[2], errors="replace"):
        m = SCRIPT.match(line)
        if m:
            comm, tid, kind, rest = m.groups()
            lines.append("%s %s %s%s" % (comm, pids.name(tid), kind,
                                         pids.name(rest)))
    print("perf script:")
    print("\n".join("  " + t for t in sorted(lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
