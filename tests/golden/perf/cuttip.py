#!/usr/bin/env python3
"""cuttip.py IN OUT: perf report --stdio's output IN without the tip it
closes with ("#", "# (Tip: ...)", "#": chosen at random, so no golden
keeps it), written to OUT.  With -T the per-thread table ("# PID  TID
...") follows the tip: the tip before it is cut, and the end kept as
perf wrote it (its raw style ends in no newline)."""
import re
import sys

text = open(sys.argv[1], encoding='utf-8', errors='surrogateescape').read()
lines = text.split('\n')
end = '\n'
if lines and lines[-1] == '':
    lines.pop()
elif lines:
    end = ''    # the last line had none


def tip(i):
    return (i >= 0 and lines[i] == '#' and lines[i + 1].startswith('# (') and
            lines[i + 2] == '#')


if len(lines) >= 3 and tip(len(lines) - 3):
    lines = lines[:-3]
else:
    for i in range(len(lines) - 4, -1, -1):
        if tip(i) and re.match(r'# +PID  +TID', lines[i + 3]):
            del lines[i:i + 3]
            break
with open(sys.argv[2], 'w', encoding='utf-8', errors='surrogateescape') as f:
    f.write('\n'.join(lines) + end)
