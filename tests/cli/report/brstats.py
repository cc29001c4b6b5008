#!/usr/bin/env python3
"""brstats.py TRUTH.json REPORT - the "Branch Statistics" block of a
pdtool report --branch-stack output against the generator's truth.

perf's branch_type_count() counts each entry with a recorded type: its
type, whether a conditional one goes forward or backward, whether it
crosses a 2 MiB boundary, else a 4 KiB one; the block gives each as a
share of the typed entries ("%8s: %5.1f%%", only those above zero).
The truth has every (from, to) pair with its count and type; the
addresses are the binary's, whose load base is page-aligned (the 4 KiB
crossings are the same) and, for these small PIE binaries, in one 2 MiB
region (checked: a 2 MiB crossing in the truth would be reported).
Prints "equal (N lines)" or the difference, exit 1.  Without a recorded
type (truth's type_saved false) the block must be absent."""
import json
import sys

NAMES = ['N/A', 'COND', 'UNCOND', 'IND', 'CALL', 'IND_CALL', 'RET',
         'SYSCALL', 'SYSRET', 'COND_CALL', 'COND_RET', 'ERET', 'IRQ',
         'SERROR', 'NO_TX', 'EXTEND_ABI']


def expected(truth):
    if not truth.get('type_saved'):
        return []
    counts, fwd, bwd, c4k, c2m = {}, 0, 0, 0, 0
    for p in truth['pairs']:
        f, t, n = int(p['from'], 16), int(p['to'], 16), p['count']
        counts[p['type']] = counts.get(p['type'], 0) + n
        if p['type'] == 'COND':
            if t > f:
                fwd += n
            else:
                bwd += n
        if (f ^ t) >> 21:
            c2m += n
        elif (f ^ t) >> 12:
            c4k += n
    total = sum(counts.values())
    out = []
    for name, n in (('COND_FWD', fwd), ('COND_BWD', bwd),
                    ('CROSS_4K', c4k), ('CROSS_2M', c2m)):
        if n:
            out.append('%8s: %5.1f%%' % (name, 100.0 * n / total))
    for name in NAMES:
        if counts.get(name):
            out.append('%8s: %5.1f%%' % (name, 100.0 * counts[name] / total))
    return out


def block(path):
    lines = open(path, encoding='utf-8').read().split('\n')
    if '# Branch Statistics:' not in lines:
        return []
    i = lines.index('# Branch Statistics:') + 2
    return [x for x in lines[i:] if x]


def main():
    want = expected(json.load(open(sys.argv[1])))
    got = block(sys.argv[2])
    if want != got:
        print('Branch Statistics differ:\n  truth:  %s\n  pdtool: %s'
              % (want, got))
        return 1
    print('equal (%d lines)' % len(want))
    return 0


sys.exit(main())
