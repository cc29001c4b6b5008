#!/usr/bin/env python3
"""ffcheck.py - a checker of our own for the Firefox Profiler's processed
profile (version 58) that `pdtool export --format firefox` writes.

  ffcheck.py check FILE   walk every table of the profile and check every
                          index, column length, type and null the format
                          allows (the field list of the profiler's
                          src/types/profile.ts at format version 58); print
                          a one-line summary, or the first error and exit 1
  ffcheck.py fold FILE    each thread's samples as folded stacks, root
                          first: "PID/TID;func;...;func COUNT", sorted,
                          each frame named as pdtool fold --srcline names
                          it: "func:file:line" where the frame has a line
  ffcheck.py markers FILE each marker type: how many, and for LostSamples
                          the samples they say were lost
  ffcheck.py times FILE SCRIPT
                          each thread's sample times against `pdtool script
                          -F tid,time` text (SCRIPT): the same times, to
                          the microsecond script prints, from the first
                          sample; print the first difference and exit 1

FILE may be gzipped (told by its first bytes).  The checks are what the
profiler's own code relies on: a stack's prefix comes before it, every
frame, func, resource, lib, source, string and category index is in its
table, a frame's subcategory is valid for its category, the default
category (the first grey one) exists, samples' times do not go back.
"""
import gzip
import json
import sys

VERSION = 58


class Bad(Exception):
    pass


def load(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return json.loads(data)


def need(cond, what):
    if not cond:
        raise Bad(what)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def index(v, n, what, null=False):
    if v is None:
        need(null, what + ': null')
        return
    need(is_int(v) and 0 <= v < n, '%s: %r not in 0..%d' % (what, v, n - 1))


def table(t, name, cols):
    """t has the columns cols, each a list of t['length'] entries."""
    need(isinstance(t, dict), name + ': not an object')
    n = t.get('length')
    need(is_int(n) and n >= 0, name + '.length: not a count')
    for c in cols:
        need(isinstance(t.get(c), list), '%s.%s: missing' % (name, c))
        need(len(t[c]) == n, '%s.%s: %d entries, length %d' %
             (name, c, len(t[c]), n))
    return n


def check_meta(meta, nr_threads):
    need(meta.get('preprocessedProfileVersion') == VERSION,
         'meta.preprocessedProfileVersion: %r' %
         meta.get('preprocessedProfileVersion'))
    for k in ('interval', 'startTime', 'version', 'processType'):
        need(isinstance(meta.get(k), (int, float)), 'meta.%s: missing' % k)
    need(meta['interval'] > 0, 'meta.interval: not positive')
    need(meta.get('stackwalk') in (0, 1), 'meta.stackwalk')
    need(isinstance(meta.get('product'), str), 'meta.product')
    need(isinstance(meta.get('markerSchema'), list), 'meta.markerSchema')
    cats = meta.get('categories')
    need(isinstance(cats, list) and cats, 'meta.categories: none')
    need(any(c.get('color') == 'grey' for c in cats),
         'meta.categories: no grey (default) category')
    for i, c in enumerate(cats):
        need(isinstance(c.get('name'), str), 'categories[%d].name' % i)
        need(isinstance(c.get('subcategories'), list) and c['subcategories'],
             'categories[%d].subcategories: none' % i)
    names = set()
    for s in meta['markerSchema']:
        need(isinstance(s.get('name'), str), 'markerSchema: a name')
        need(isinstance(s.get('display'), list), s['name'] + '.display')
        need(isinstance(s.get('fields'), list), s['name'] + '.fields')
        for fld in s['fields']:
            need('key' in fld and 'format' in fld,
                 s['name'] + ': a field without key and format')
        names.add(s['name'])
    return cats, names


def check_thread(i, t, nr_strs, nr_libs, nr_sources, cats, schemas):
    w = 'threads[%d]' % i
    for k in ('name', 'pid', 'processType'):
        need(isinstance(t.get(k), str), '%s.%s: not a string' % (w, k))
    need(is_int(t.get('tid')), w + '.tid')
    need(isinstance(t.get('isMainThread'), bool), w + '.isMainThread')
    need(isinstance(t.get('pausedRanges'), list), w + '.pausedRanges')
    res = t['resourceTable']
    nr_res = table(res, w + '.resourceTable', ('lib', 'name', 'host', 'type'))
    for r in range(nr_res):
        index(res['lib'][r], nr_libs, '%s.resourceTable.lib[%d]' % (w, r),
              null=True)
        index(res['name'][r], nr_strs, '%s.resourceTable.name[%d]' % (w, r))
        index(res['host'][r], nr_strs, '%s.resourceTable.host[%d]' % (w, r),
              null=True)
    fn = t['funcTable']
    nr_funcs = table(fn, w + '.funcTable',
                     ('name', 'isJS', 'relevantForJS', 'resource', 'source',
                      'lineNumber', 'columnNumber'))
    for f in range(nr_funcs):
        index(fn['name'][f], nr_strs, '%s.funcTable.name[%d]' % (w, f))
        need(isinstance(fn['isJS'][f], bool), w + '.funcTable.isJS')
        r = fn['resource'][f]
        need(r == -1 or (is_int(r) and 0 <= r < nr_res),
             '%s.funcTable.resource[%d]: %r' % (w, f, r))
        index(fn['source'][f], nr_sources, '%s.funcTable.source[%d]' % (w, f),
              null=True)
    ns = t['nativeSymbols']
    nr_ns = table(ns, w + '.nativeSymbols',
                  ('libIndex', 'address', 'name', 'functionSize'))
    fr = t['frameTable']
    nr_frames = table(fr, w + '.frameTable',
                      ('address', 'inlineDepth', 'category', 'subcategory',
                       'func', 'nativeSymbol', 'innerWindowID', 'line',
                       'column'))
    for k in range(nr_frames):
        a = fr['address'][k]
        need(is_int(a) and a >= -1, '%s.frameTable.address[%d]' % (w, k))
        d = fr['inlineDepth'][k]
        need(is_int(d) and d >= 0, '%s.frameTable.inlineDepth[%d]' % (w, k))
        c = fr['category'][k]
        index(c, len(cats), '%s.frameTable.category[%d]' % (w, k), null=True)
        if c is not None:
            index(fr['subcategory'][k], len(cats[c]['subcategories']),
                  '%s.frameTable.subcategory[%d]' % (w, k))
        index(fr['func'][k], nr_funcs, '%s.frameTable.func[%d]' % (w, k))
        index(fr['nativeSymbol'][k], nr_ns,
              '%s.frameTable.nativeSymbol[%d]' % (w, k), null=True)
        ln = fr['line'][k]
        need(ln is None or (is_int(ln) and ln > 0),
             '%s.frameTable.line[%d]: %r' % (w, k, ln))
    st = t['stackTable']
    nr_stacks = table(st, w + '.stackTable', ('frame', 'prefix'))
    for s in range(nr_stacks):
        index(st['frame'][s], nr_frames, '%s.stackTable.frame[%d]' % (w, s))
        # a prefix always comes before the stacks it prefixes
        index(st['prefix'][s], s, '%s.stackTable.prefix[%d]' % (w, s),
              null=True)
    sm = t['samples']
    nr_samples = table(sm, w + '.samples', ('stack', 'time'))
    need(sm.get('weightType') in ('samples', 'tracing-ms', 'bytes'),
         w + '.samples.weightType')
    need(sm.get('weight') is None or len(sm['weight']) == nr_samples,
         w + '.samples.weight')
    last = None
    for k in range(nr_samples):
        index(sm['stack'][k], nr_stacks, '%s.samples.stack[%d]' % (w, k),
              null=True)
        tm = sm['time'][k]
        need(isinstance(tm, (int, float)) and tm >= 0,
             '%s.samples.time[%d]' % (w, k))
        need(last is None or tm >= last,
             '%s.samples.time[%d]: %r goes back' % (w, k, tm))
        last = tm
    mk = t['markers']
    nr_markers = table(mk, w + '.markers',
                       ('data', 'name', 'startTime', 'endTime', 'phase',
                        'category'))
    for k in range(nr_markers):
        index(mk['name'][k], nr_strs, '%s.markers.name[%d]' % (w, k))
        index(mk['category'][k], len(cats), '%s.markers.category[%d]' % (w, k))
        ph = mk['phase'][k]
        need(ph in (0, 1, 2, 3), '%s.markers.phase[%d]' % (w, k))
        s, e = mk['startTime'][k], mk['endTime'][k]
        if ph == 0:
            need(isinstance(s, (int, float)) and e is None,
                 '%s.markers[%d]: an instant needs a start only' % (w, k))
        elif ph == 1:
            need(isinstance(s, (int, float)) and isinstance(e, (int, float))
                 and e >= s, '%s.markers[%d]: an interval' % (w, k))
        d = mk['data'][k]
        need(d is None or d.get('type') in schemas,
             '%s.markers.data[%d]: no schema for %r' % (w, k, d))
    return nr_samples, nr_stacks, nr_frames, nr_funcs, nr_markers


def check(p):
    need(isinstance(p, dict), 'not an object')
    cats, schemas = check_meta(p['meta'], len(p['threads']))
    strs = p['shared']['stringArray']
    need(all(isinstance(s, str) for s in strs), 'stringArray: not strings')
    src = p['shared']['sources']
    nr_sources = table(src, 'shared.sources', ('uuid', 'filename'))
    for i in range(nr_sources):
        index(src['filename'][i], len(strs), 'sources.filename[%d]' % i)
    libs = p['libs']
    for i, lib in enumerate(libs):
        for k in ('arch', 'name', 'path', 'debugName', 'debugPath',
                  'breakpadId'):
            need(isinstance(lib.get(k), str), 'libs[%d].%s' % (i, k))
        need(lib.get('codeId') is None or isinstance(lib['codeId'], str),
             'libs[%d].codeId' % i)
    tot = [0] * 5
    for i, t in enumerate(p['threads']):
        for k, v in enumerate(check_thread(i, t, len(strs), len(libs),
                                           nr_sources, cats, schemas)):
            tot[k] += v
    return ('version %d: %d threads, %d samples, %d stacks, %d frames, '
            '%d funcs, %d markers, %d libs, %d strings' %
            (VERSION, len(p['threads']), tot[0], tot[1], tot[2], tot[3],
             tot[4], len(libs), len(strs)))


def fold(p):
    strs = p['shared']['stringArray']
    counts = {}
    for t in p['threads']:
        st, fr, fn = t['stackTable'], t['frameTable'], t['funcTable']
        root = '%s/%d' % (t['pid'], t['tid'])
        for s in t['samples']['stack']:
            names = []
            while s is not None:
                k = st['frame'][s]
                func = fr['func'][k]
                # as fold writes a name: ';' would split the stack
                name = strs[fn['name'][func]].replace(';', ':')
                src = fn['source'][func]
                if fr['line'][k] is not None and src is not None:
                    path = strs[p['shared']['sources']['filename'][src]]
                    name += ':%s:%d' % (path.rsplit('/', 1)[-1],
                                        fr['line'][k])
                names.append(name)
                s = st['prefix'][s]
            key = ';'.join([root] + names[::-1])
            counts[key] = counts.get(key, 0) + 1
    for k in sorted(counts):
        print('%s %d' % (k, counts[k]))


def markers(p):
    strs = p['shared']['stringArray']
    nr, lost = {}, 0
    for t in p['threads']:
        mk = t['markers']
        for k in range(mk['length']):
            name = strs[mk['name'][k]]
            nr[name] = nr.get(name, 0) + 1
            if name == 'LostSamples':
                lost += mk['data'][k]['lost']
    for name in sorted(nr):
        print('%s %d' % (name, nr[name]))
    print('lost %d' % lost)


def compare_times(got, script, per_second, unit):
    """got: {tid: [sample times from the first sample, per_second to the
    second]} against `pdtool script -F tid,time` text (script)."""
    want = {}
    for line in open(script):
        f = line.split()
        if len(f) < 2:
            continue
        want.setdefault(int(f[0]), []).append(float(f[1].rstrip(':')))
    t0 = min(min(v) for v in want.values()) if want else 0
    need(sorted(got) == sorted(want), 'threads %s, script has %s' %
         (sorted(got)[:8], sorted(want)[:8]))
    for tid in want:
        w = sorted((x - t0) * per_second for x in want[tid])
        g = sorted(got[tid])
        need(len(w) == len(g), 'tid %d: %d samples, script has %d' %
             (tid, len(g), len(w)))
        for a, b in zip(g, w):
            # script prints microseconds, truncated
            need(abs(a - b) < 2e-6 * per_second, 'tid %d: a sample at '
                 '%.6f %s, script has %.6f %s' % (tid, a, unit, b, unit))
    print('%d threads, times as script prints them' % len(want))


def times(p, script):
    got = {}
    for t in p['threads']:
        got.setdefault(t['tid'], []).extend(t['samples']['time'])
    compare_times(got, script, 1e3, 'ms')


def main():
    if (len(sys.argv) != 3 + (sys.argv[1:2] == ['times']) or
            sys.argv[1] not in ('check', 'fold', 'markers', 'times')):
        sys.stderr.write('usage: ffcheck.py check|fold|markers FILE, '
                         'ffcheck.py times FILE SCRIPT\n')
        return 2
    try:
        p = load(sys.argv[2])
        if sys.argv[1] == 'check':
            print(check(p))
        elif sys.argv[1] == 'fold':
            fold(p)
        elif sys.argv[1] == 'markers':
            markers(p)
        else:
            times(p, sys.argv[3])
    except Bad as e:
        print('bad profile: %s' % e)
        return 1
    except (KeyError, TypeError, ValueError, IndexError) as e:
        print('bad profile: %s: %s' % (type(e).__name__, e))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
