#!/usr/bin/env python3
"""inheritstat.py DUMP THREADS: the per-thread counts of a capture
recorded with -s, from `perf report -D` (DUMP) and the table `perf
report -T` ends with (THREADS).  Prints the READ records' count and
sizes, the table's columns and its number of rows, comparable between
two captures of one command; exits 1 (a "bad" line) when a row names a
process or thread the capture's COMM exec and FORK records do not give
the workload, no clock counted a thread (or a count is negative), or a
row's counts are not the sums of its thread's READ records."""
import re
import sys

import perfdump


def main():
    reads, sizes, tasks, pid, nr_reads = {}, set(), set(), None, 0
    rec = re.compile(r"^(?:-?\d+ )*?\d+ 0x[0-9a-f]+ \[(0x[0-9a-f]+)\]: "
                     r"PERF_RECORD_(READ|FORK|COMM exec)[:(] ?(.*)")
    for line, _ in perfdump.lines(sys.argv[1]):
        m = rec.match(line)
        if not m:
            continue
        size, kind, rest = m.groups()
        if kind == "READ":
            p, t, name, value = rest.split()
            key = (int(p), int(t), name)
            reads[key] = reads.get(key, 0) + int(value)
            sizes.add(size)
            nr_reads += 1
        elif kind == "FORK":
            f = re.match(r"(\d+):(\d+)\)", rest)
            tasks.add((int(f.group(1)), int(f.group(2))))
        elif pid is None:
            c = re.search(r":(\d+)/(\d+)$", rest.strip())
            pid = int(c.group(1))
            tasks.add((pid, pid))
    table = [ln.split() for ln in open(sys.argv[2])]
    head = next((i for i, t in enumerate(table)
                 if t[:3] == ["#", "PID", "TID"]), None)
    bad = []
    rows = []
    if head is None:
        bad.append("no PID TID table")
        columns = []
    else:
        columns = table[head][3:]
        rows = [t for t in table[head + 1:] if t and t[0] != "#"]
    for row in rows:
        p, t = int(row[0]), int(row[1])
        if (p, t) not in tasks:
            bad.append("row %d/%d: not the workload's" % (p, t))
        clocks = [int(v) for name, v in zip(columns, row[2:])
                  if name.endswith("-clock")]
        # every thread ran, so some clock counted it; one clock alone
        # may read 0 (perf's own capture once had a row of cpu-clock
        # 94506193, task-clock 0), and a thread may fault no page in (a
        # thread stack glibc reuses is mapped in already)
        if clocks and max(clocks) <= 0:
            bad.append("row %d/%d: no clock counted it" % (p, t))
        for name, v in zip(columns, row[2:]):
            if int(v) < 0:
                bad.append("row %d/%d: %s %s" % (p, t, name, v))
            if int(v) != reads.get((p, t, name)):
                bad.append("row %d/%d: %s %s, its READ records %s" %
                           (p, t, name, v, reads.get((p, t, name))))
    print("READ %d records, sizes %s" % (nr_reads, " ".join(sorted(sizes))))
    print("columns: %s" % " ".join(columns))
    print("rows: %d" % len(rows))
    for b in bad:
        print("bad: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
