#!/usr/bin/env python3
"""tlcheck.py - a checker of our own for the timelines `pdtool export`
writes: speedscope's evented profiles (--format speedscope) and Chrome's
trace event format (--format chrome).

  tlcheck.py fold speedscope|chrome FILE
        check the file's structure (below), then print each thread's
        samples as folded stacks, root first: "PID/TID;func;...;func
        COUNT", sorted, each frame named as pdtool fold --srcline names
        it ("func:file:line" where the frame has a line): what pdtool
        fold --srcline --pid --tid gives with its roots as PID/TID
  tlcheck.py want < FOLD
        pdtool fold --srcline --pid --tid's text as "fold" prints it: the
        root comm-PID/TID as PID/TID (a pid or tid of 4294967295 as -1,
        as perf prints it), the counts of a thread's stacks summed over
        its comms (a thread that called exec has two), sorted
  tlcheck.py times speedscope|chrome FILE SCRIPT
        each thread's sample times against `pdtool script -F tid,time`
        text (SCRIPT): the same times, to the microsecond script prints,
        from the first sample

On a bad file: the first error, exit 1.  The structure checked is what
the viewers rely on:
  speedscope  the fields of src/lib/file-format-spec.ts: $schema, frames
              with a string name and optional string file and integer
              line; "evented" profiles with a unit, startValue <= every
              event's "at" <= endValue, "at" never going back, every
              frame index in shared.frames, every "C" closing the frame
              on top, every opened frame closed
  chrome      a "traceEvents" array; "M" events naming each process and
              thread that has slices (process_name, thread_name with
              args.name); per thread, "B" and "E" events with integer
              pid and tid and a numeric ts that never goes back, every
              "E" closing an open "B", nothing left open; a "B" has a
              name and a category

A sample is one run of opens followed by closes: the frames open when
the first close comes are its stack (the file opens and closes each
sample's stack whole).  In a Chrome trace of several events, a sample's
root slice names its event (category "event") and is not a frame.
"""
import json
import sys

# the script's directory is on the path: ffcheck's checks and times
from ffcheck import Bad, compare_times, is_int, need


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def frame_name(name, path, line):
    # as fold writes a name: ';' would split the stack
    name = name.replace(';', ':')
    if line is not None and path:
        name += ':%s:%d' % (path.rsplit('/', 1)[-1], line)
    return name


def samples_of(events, key_open, key_close):
    """[(time, [frame ids root first])] from (type, frame, at) events."""
    out, stack, closing = [], [], False
    for typ, fr, at in events:
        if typ == key_open:
            closing = False
            stack.append((fr, at))
        else:
            need(stack, 'a close with nothing open at %r' % at)
            need(fr is None or stack[-1][0] == fr,
                 'closing %r, %r is on top' % (fr, stack[-1][0]))
            if not closing:
                out.append((stack[-1][1], [f for f, _ in stack]))
            closing = True
            stack.pop()
    need(not stack, '%d frames left open' % len(stack))
    return out


def speedscope(p):
    """{(pid, tid): [(time ns, [names root first])]}"""
    need(p.get('$schema') ==
         'https://www.speedscope.app/file-format-schema.json', '$schema')
    frames = p['shared']['frames']
    need(isinstance(frames, list), 'shared.frames')
    names = []
    for i, f in enumerate(frames):
        need(isinstance(f.get('name'), str), 'frame %d: name' % i)
        need('file' not in f or isinstance(f['file'], str),
             'frame %d: file' % i)
        need('line' not in f or is_int(f['line']), 'frame %d: line' % i)
        names.append(frame_name(f['name'], f.get('file'), f.get('line')))
    need(isinstance(p['profiles'], list), 'profiles')
    api = p.get('activeProfileIndex', 0)
    need(is_int(api) and (not p['profiles'] or
                          0 <= api < len(p['profiles'])),
         'activeProfileIndex')
    threads = {}
    for i, pr in enumerate(p['profiles']):
        need(pr.get('type') == 'evented', 'profile %d: type' % i)
        need(pr.get('unit') == 'nanoseconds', 'profile %d: unit' % i)
        need(isinstance(pr.get('name'), str), 'profile %d: name' % i)
        start, end = pr['startValue'], pr['endValue']
        need(is_num(start) and is_num(end) and start <= end,
             'profile %d: startValue, endValue' % i)
        # the name ends "PID/TID" or "PID/TID (event)"
        words = pr['name'].split(' (')[0].split()
        pid, tid = (int(x) for x in words[-1].split('/'))
        evs, last = [], start
        for k, e in enumerate(pr['events']):
            need(e.get('type') in ('O', 'C'),
                 'profile %d event %d: type' % (i, k))
            need(is_int(e.get('frame')) and 0 <= e['frame'] < len(frames),
                 'profile %d event %d: frame' % (i, k))
            need(is_num(e.get('at')) and last <= e['at'] <= end,
                 'profile %d event %d: at %r after %r (end %r)' %
                 (i, k, e.get('at'), last, end))
            last = e['at']
            evs.append((e['type'], e['frame'], e['at']))
        got = samples_of(evs, 'O', 'C')
        threads.setdefault((pid, tid), []).extend(
            (at, [names[f] for f in st]) for at, st in got)
    return threads


def chrome(p):
    evs = p['traceEvents']
    need(isinstance(evs, list), 'traceEvents')
    pnames, tnames, per = set(), set(), {}
    for k, e in enumerate(evs):
        ph = e.get('ph')
        need(is_int(e.get('pid')) and is_int(e.get('tid')),
             'event %d: pid, tid' % k)
        key = (e['pid'], e['tid'])
        if ph == 'M':
            need(isinstance(e.get('args', {}).get('name'), str),
                 'event %d: args.name' % k)
            if e.get('name') == 'process_name':
                pnames.add(e['pid'])
            elif e.get('name') == 'thread_name':
                tnames.add(key)
            continue
        need(ph in ('B', 'E'), 'event %d: ph %r' % (k, ph))
        need(is_num(e.get('ts')), 'event %d: ts' % k)
        lst = per.setdefault(key, [])
        need(not lst or lst[-1][2] <= e['ts'],
             'event %d: ts %r before %r' % (k, e['ts'], lst and lst[-1][2]))
        if ph == 'B':
            need(isinstance(e.get('name'), str) and
                 isinstance(e.get('cat'), str), 'event %d: name, cat' % k)
            a = e.get('args', {})
            lst.append(('B', None if e['cat'] == 'event' else
                        frame_name(e['name'], a.get('file'),
                                   a.get('line')), e['ts']))
        else:
            lst.append(('E', None, e['ts']))
    threads = {}
    for key, lst in per.items():
        need(key[0] in pnames, 'process %d has no process_name' % key[0])
        need(key in tnames, 'thread %d/%d has no thread_name' % key)
        got = samples_of(lst, 'B', 'E')
        # ts in microseconds: ns as speedscope's
        threads[key] = [(at * 1000, [f for f in st if f is not None])
                        for at, st in got]
    return threads


def want():
    counts = {}
    for line in sys.stdin:
        stack, _, count = line.rstrip('\n').rpartition(' ')
        root, _, rest = stack.partition(';')
        pid, tid = root.rsplit('-', 1)[1].split('/')
        root = '/'.join('-1' if x == '4294967295' else x
                        for x in (pid, tid))
        key = root + (';' + rest if rest else '')
        counts[key] = counts.get(key, 0) + int(count)
    for k in sorted(counts):
        print('%s %d' % (k, counts[k]))


def fold(threads):
    counts = {}
    for (pid, tid), smp in threads.items():
        for _, st in smp:
            key = ';'.join(['%d/%d' % (pid, tid)] + st)
            counts[key] = counts.get(key, 0) + 1
    for k in sorted(counts):
        print('%s %d' % (k, counts[k]))


def times(threads, script):
    got = {}
    for (_, tid), smp in threads.items():
        got.setdefault(tid, []).extend(at for at, _ in smp)
    compare_times(got, script, 1e9, 'ns')


def main():
    a = sys.argv[1:]
    if a == ['want']:
        want()
        return 0
    if (len(a) != 3 + (a[:1] == ['times']) or
            a[0] not in ('fold', 'times') or
            a[1] not in ('speedscope', 'chrome')):
        sys.stderr.write('usage: tlcheck.py fold speedscope|chrome FILE, '
                         'tlcheck.py want < FOLD, '
                         'tlcheck.py times speedscope|chrome FILE SCRIPT\n')
        return 2
    try:
        with open(a[2]) as f:
            p = json.load(f)
        threads = speedscope(p) if a[1] == 'speedscope' else chrome(p)
        if a[0] == 'fold':
            fold(threads)
        else:
            times(threads, a[3])
    except Bad as e:
        print('bad %s file: %s' % (a[1], e))
        return 1
    except (KeyError, TypeError, ValueError, IndexError) as e:
        print('bad %s file: %s: %s' % (a[1], type(e).__name__, e))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
