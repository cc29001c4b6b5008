#!/usr/bin/env python3
"""cuttip.py IN OUT: perf report --stdio's output IN without the tip it
closes with ("#", "# (Tip: ...)", "#": chosen at random, so no golden
keeps it), written to OUT."""
import sys

lines = open(sys.argv[1], encoding='utf-8', errors='surrogateescape').read().split('\n')
if lines and lines[-1] == '':
    lines.pop()
if len(lines) >= 3 and lines[-3] == '#' and lines[-2].startswith('# (') and lines[-1] == '#':
    lines = lines[:-3]
with open(sys.argv[2], 'w', encoding='utf-8', errors='surrogateescape') as f:
    f.write('\n'.join(lines) + '\n')
