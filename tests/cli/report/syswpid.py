#!/usr/bin/env python3
"""syswpid.py - one process's parallelism in a system-wide capture,
recomputed from `pdtool dump --json --ordered` (the records in time
order, no pdtool analysis), as `pdtool report --pid PID -s
parallelism,comm` should show it:

    syswpid.py DUMP.jsonl PID NR_CPUS REPORT

A counter starting at 1 for the process: +1 when one of its threads
switches in (a CPU-wide switch record without the OUT flag whose
sample_id is that thread's), -1 when one switches out and when one
exits; each sample of the process has the counter clamped to [1,
NR_CPUS] at its place.  Each level's share of all samples' periods must
be the sum of REPORT's rows of that level (`--stdio` text, one row per
comm the process had, each to two decimals: within their rounding);
prints the levels and exits 1 on a difference.
"""
import json
import re
import sys

OUT = 0x2000


def main():
    dump, pid, ncpu, report = sys.argv[1], int(sys.argv[2]), \
        int(sys.argv[3]), sys.argv[4]
    level, rows, total = 1, {}, 0
    for line in open(dump):
        r = json.loads(line)
        t = r.get('type')
        if t == 'SAMPLE':
            total += r['period']
            if r['pid'] == pid:
                lv = max(1, min(level, ncpu))
                rows[lv] = rows.get(lv, 0) + r['period']
        elif t == 'SWITCH_CPU_WIDE' and r['sample_id']['pid'] == pid:
            level += -1 if r.get('misc', 0) & OUT else 1
        elif t == 'EXIT' and r.get('pid') == pid:
            level -= 1
    want = {lv: 100.0 * p / total for lv, p in rows.items()}
    got, nrows = {}, {}
    for line in open(report):
        m = re.match(r'^\s+(\d+\.\d+)%\s+(\d+)\s+\S', line)
        if m:
            lv = int(m.group(2))
            got[lv] = got.get(lv, 0) + float(m.group(1))
            nrows[lv] = nrows.get(lv, 0) + 1
    fail = not want or set(want) != set(got)
    for lv in sorted(set(want) | set(got)):
        ok = lv in want and lv in got and \
            abs(want[lv] - got[lv]) <= 0.005 * nrows[lv] + 1e-9
        fail |= not ok
        print('%s parallelism %d: report %.2f%% (%d rows), recomputed '
              '%.4f%%' % ('ok' if ok else 'FAIL', lv, got.get(lv, 0),
                          nrows.get(lv, 0), want.get(lv, 0)))
    return 1 if fail else 0


if __name__ == '__main__':
    sys.exit(main())
