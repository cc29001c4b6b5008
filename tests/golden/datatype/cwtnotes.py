#!/usr/bin/env python3
"""cwtnotes.py < LISTING: the "# data-type:" notes of an annotate
--code-with-type listing (perf's or pdtool's text), one "ADDR<TAB>NOTE"
line each (ADDR in hex, as the listing shows it), sorted by address.
pdtool's array indexes in a member ("(pts[1].x)") are cut to perf's
array name ("(pts)")."""
import re
import sys

notes = set()
for line in sys.stdin.buffer.read().decode('utf-8', 'surrogateescape').split('\n'):
    if '# data-type: ' not in line:
        continue
    m = re.search(r"\s([0-9a-f]+):\s", line)
    if not m:
        continue
    note = line.split('# data-type: ', 1)[1]
    note = re.sub(r"\(([^()]*?)\[\d+\][^()]*\)$", r"(\1)", note)
    notes.add((int(m.group(1), 16), note))
sys.stdout.write(''.join('%x\t%s\n' % n for n in sorted(notes)))
