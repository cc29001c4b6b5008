#!/usr/bin/env python3
"""report.py REPORT SCRIPT: perf report's per-event (dso, sym) table and
perf script's distinct ips per event as the TSV regen.sh describes."""
import re
import sys


def main():
    rows = {}
    event = None
    for line in open(sys.argv[1], encoding='utf-8', errors='replace'):
        m = re.match(r"^# Samples: \S+\s+of event '(.*)'$", line)
        if m:
            event = m.group(1)
            continue
        if line.startswith('#') or not line.strip() or event is None:
            continue
        m = re.match(r'^\s*(\d+)\s+(\d+)\s+(.+?)\s+\[(.)\] (.*?)\s*$', line)
        if not m:
            sys.exit('report.py: not a row: %r' % line)
        samples, period, dso, sym = (int(m.group(1)), int(m.group(2)),
                                     m.group(3), m.group(5))
        if re.fullmatch(r'0x[0-9a-f]+', sym):
            sym = '[unknown]'
        key = (event, dso, sym)
        old = rows.get(key, (0, 0))
        rows[key] = (old[0] + samples, old[1] + period)
    ips = {}
    for line in open(sys.argv[2], encoding='utf-8', errors='replace'):
        m = re.match(r'^\s*(.*):\s+([0-9a-f]+)\s*$', line)
        if not m:
            continue
        ips.setdefault(m.group(1), set()).add(int(m.group(2), 16))
    print('# event\tdso\tsym\tsamples\tperiod (tests/golden/collect/regen.sh)')
    for (ev, dso, sym), (samples, period) in sorted(rows.items()):
        print('%s\t%s\t%s\t%d\t%d' % (ev, dso, sym, samples, period))
    for ev in sorted(ips):
        print('#ips\t%s\t%d' % (ev, len(ips[ev])))


main()
