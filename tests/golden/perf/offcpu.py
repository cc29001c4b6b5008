#!/usr/bin/env python3
"""offcpu.py - off-CPU time per stack, independently of pdtool, from
perf 6.1's own records.

    python3 tests/golden/perf/offcpu.py [--wall-clock] CAPTURE > GOLDEN

Reads `perf script --ns --show-switch-events` (samples with their
callchains, switch records) in time order.  For each thread, a wait runs
from a PERF_RECORD_SWITCH OUT to the thread's next SWITCH IN; its length
in nanoseconds goes to the stack of the thread's last sample before the
switch-out (the comm alone when it had none).  Waits switched out with
the preempt flag (waiting for a CPU) are left out, as perf's --off-cpu
counts only sleeping tasks.  Prints folded lines, "comm;root;...;leaf NS",
sorted.  With --wall-clock: every sample too (its period, cpu-clock's
nanoseconds), and every wait, preempted ones included, under a last frame
[off-cpu] or [runnable].
"""
import re
import subprocess
import sys


def main():
    wall = '--wall-clock' in sys.argv[1:-1]
    path = sys.argv[-1]
    out = subprocess.run(
        ['perf', 'script', '-i', path, '--ns', '--show-switch-events',
         '-F', 'comm,tid,time,period,event,ip,sym'],
        capture_output=True, text=True, check=True).stdout
    head = re.compile(r'^\s*(.*?)\s+(\d+)\s+(\d+)\.(\d{9}):\s+(.*)$')
    last = {}        # tid: (comm, frames root first) of its last sample
    pending = {}     # tid: (time, preempted) of its switch-out
    folded = {}
    cur = None       # the sample whose callchain lines follow

    def add(stack, weight):
        folded[stack] = folded.get(stack, 0) + weight

    for line in out.splitlines():
        m = head.match(line)
        if not m:
            if cur is not None and line.strip():
                # a callchain line: "ADDR SYM"
                cur[1].insert(0, line.split(None, 1)[1].strip()
                              if len(line.split(None, 1)) > 1 else '[unknown]')
            continue
        if cur is not None and wall:
            add(';'.join([cur[0]] + cur[1]), cur[2])
        cur = None
        comm, tid = m.group(1), int(m.group(2))
        t = int(m.group(3)) * 1000000000 + int(m.group(4))
        rest = m.group(5)
        if rest.startswith('PERF_RECORD_SWITCH'):
            if ' OUT' in rest:
                pending[tid] = (t, 'preempt' in rest, comm)
            elif tid in pending:
                t0, pre, ocomm = pending.pop(tid)
                if pre and not wall:
                    continue
                c, frames = last.get(tid, (ocomm, []))
                frames = list(frames)
                if wall:
                    frames.append('[runnable]' if pre else '[off-cpu]')
                add(';'.join([c] + frames), t - t0)
            continue
        if rest.startswith('PERF_RECORD_'):
            continue
        s = re.match(r'(\d+)\s+\S+:', rest)
        if not s:
            continue
        cur = (comm.replace(' ', '_'), [], int(s.group(1)))
        last[tid] = (cur[0], cur[1])
    if cur is not None and wall:
        add(';'.join([cur[0]] + cur[1]), cur[2])
    for k in sorted(folded):
        print('%s %d' % (k, folded[k]))


main()
