#!/usr/bin/env python3
"""sums.py KEY < perf-script-output > sums.json: each row key's period of
each event, from `perf script -F comm,period,event,ip,sym` lines (KEY
comm or sym: perf report's --sort comm or sym rows), as the independent
side of tests/cli/report/ratios.test.  A symbol is written as pdtool's
JSON names it: the name alone; "[unknown]" rows are left out (their
address forms differ)."""
import json
import re
import sys

LINE = re.compile(r"^\s*(.*?)\s+(\d+)\s+(\S+):\s+([0-9a-f]+)\s+(.*?)\s*$")


def main(argv):
    key = argv[1]
    out = {}
    bad = 0
    for line in sys.stdin:
        m = LINE.match(line)
        if not m:
            bad += 1
            continue
        comm, period, event, _, sym = m.groups()
        k = comm if key == "comm" else sym
        if key == "sym" and k == "[unknown]":
            continue
        row = out.setdefault(k, {})
        row[event] = row.get(event, 0) + int(period)
    if bad:
        sys.stderr.write("sums.py: %d lines not understood\n" % bad)
        return 1
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
