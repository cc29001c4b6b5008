#!/usr/bin/env python3
"""offcpusched.py - check `pdtool fold --off-cpu --tid` on a capture of
sched:sched_switch samples and switch records against two recomputations
that do not use pdtool's tracepoint decoding:

    offcpusched.py TRACE DUMP.jsonl FOLDED

TRACE: perf 6.1's `perf script --ns -F tid,time,trace` of the capture (its
own decoding of prev_pid, prev_state and next_pid); DUMP.jsonl: `pdtool
dump --json --ordered` (the switch records); FOLDED: pdtool's lines.

1. perf's decoded samples as switch-outs (blocked unless prev_state is R
   or R+) and switch-ins of next_pid, with the SWITCH IN records, paired
   per thread: the waits per thread equal pdtool's to the nanosecond.
2. The switch records alone, paired as pdtool pairs them without
   tracepoints: the same waits within 0.5% per thread (the tracepoint
   fires a few microseconds before the switch record is written).
3. The known wait: main's sleep_wait() sleeps 100 ms; its stack is the
   one taken at the switch (in clock_nanosleep, where the switch records
   alone give the last sample's, in the spin before it) and its wait is
   within 5%.
Prints one line per thread; exits 1 on any failure.
"""
import json
import re
import sys

OUT, PREEMPT = 0x2000, 0x4000


def pair(events):
    """events: (time, order, tid, kind, preempted); blocked ns per tid"""
    waits, pending = {}, {}
    for t, _, tid, kind, pre in sorted(events):
        if kind == 'out':
            pending[tid] = (t, pre)
        elif tid in pending:
            t0, p = pending.pop(tid)
            if not p:
                waits[tid] = waits.get(tid, 0) + t - t0
    return waits


def main():
    trace, dump, folded = sys.argv[1:4]
    line = re.compile(r'^\s*(\d+)\s+(\d+)\.(\d{9}):\s+prev_comm=.* '
                      r'prev_pid=(\d+) .*prev_state=(\S+) ==> .* '
                      r'next_pid=(\d+) ')
    tp, ins, sw = [], [], []
    for n, text in enumerate(open(trace)):
        m = line.match(text)
        if not m:
            continue
        t = int(m.group(2)) * 10**9 + int(m.group(3))
        tp.append((t, n, int(m.group(4)), 'out',
                   m.group(5) in ('R', 'R+')))
        if int(m.group(6)):
            tp.append((t, n, int(m.group(6)), 'in', False))
    for n, text in enumerate(open(dump)):
        r = json.loads(text)
        if r.get('type') != 'SWITCH':
            continue
        sid = r['sample_id']
        misc = r.get('misc', 0)
        ev = (sid['time'], n, sid['tid'], 'out' if misc & OUT else 'in',
              bool(misc & PREEMPT))
        sw.append(ev)
        if not misc & OUT:
            ins.append(ev)
    want_tp, want_sw = pair(tp + ins), pair(sw)
    got, sleep = {}, 0
    for text in open(folded):
        stack, ns = text.rsplit(' ', 1)
        tid = int(stack.split(';', 1)[0].rsplit('-', 1)[1])
        got[tid] = got.get(tid, 0) + int(ns)
        if ';sleep_wait;' in stack:
            sleep += int(ns)
            if ';sleep_wait;clock_nanosleep' not in stack:
                print('FAIL sleep_wait stack not taken at the switch: ' +
                      stack)
                return 1
    fail = not tp or set(got) != set(want_tp)
    for tid in sorted(set(got) | set(want_tp)):
        g, a, b = got.get(tid, 0), want_tp.get(tid, 0), want_sw.get(tid, 0)
        ok = g == a and b and abs(g - b) <= 0.005 * b
        print('%s tid %d: %d ns off CPU; perf-decoded %d; switch records %d'
              % ('ok' if ok else 'FAIL', tid, g, a, b))
        fail |= not ok
    ok = abs(sleep - 100e6) <= 5e6
    print('%s sleep_wait: %d ns (100 ms slept)' % ('ok' if ok else 'FAIL',
                                                   sleep))
    return 1 if fail or not ok else 0


if __name__ == '__main__':
    sys.exit(main())
