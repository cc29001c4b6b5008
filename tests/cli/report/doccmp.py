#!/usr/bin/env python3
"""doccmp.py REPORT.JSON REPORT.TXT [STAT.JSON] [BRANCHES.JSON] [TYPES.JSON]
- the
profile report's numbers against the commands it summarises, on the
same inputs:

- each Hotspots table against `pdtool report --no-children -n -s
  dso,sym`'s table of the same event: the same rows in the same order
  (the report's top N), each with the same share (to perf's two
  decimals), samples, DSO and symbol, and the same samples and period;
- the Topdown and Cache metrics of the --stat captures against `pdtool
  stat --format json`'s derived metrics: every one there, with the same
  value and assessment, and no other;
- the Branch hotspots against `pdtool branches --format json --by sym`:
  the same first rows in rank order, counts, mispredict rates and
  average cycles;
- the Data types against `pdtool annotate --data-type --format json`:
  the same first rows (type, binary, samples), each type's share of its
  event's attributed period and its hottest member's share of the
  type's, and the coverage's attributed count.

Use '-' for an input that is not compared.  Prints "ok N" with the
number of values compared, or each difference (exit 1)."""
import json
import re
import sys

ROW = re.compile(r'^\s+([\d.]+)%\s+(\d+)\s+(\S.*?)\s+\[([.k])\] (.*?)\s*$')
HEAD = re.compile(r"^# Samples: (\d+)([KMG]?)\s+of events? '(.*)'$")
UNIT = {'': 1, 'K': 1000, 'M': 1000000, 'G': 1000000000}
PERIOD = re.compile(r'^# Event count \(approx\.\): (\d+)$')


def report_tables(path):
    tables, cur = [], None
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        m = HEAD.match(line)
        if m:
            # perf's convert_unit(): 1413 samples show as "1K"
            cur = {'event': m.group(3), 'samples': int(m.group(1)),
                   'unit': UNIT[m.group(2)], 'rows': []}
            tables.append(cur)
            continue
        m = PERIOD.match(line)
        if m and cur:
            cur['period'] = int(m.group(1))
            continue
        m = ROW.match(line)
        if m and cur:
            cur['rows'].append((m.group(1), int(m.group(2)), m.group(3),
                                m.group(5)))
    return tables


def parts(doc, key):
    for s in doc['sections']:
        if s['key'] == key:
            return s['parts']
    return []


def items(doc, key, table):
    for p in parts(doc, key):
        for it in p['items']:
            if it['type'] == 'table' and it['key'] == table:
                yield p, it


def fields(part):
    out = {}
    for it in part['items']:
        if it['type'] == 'fields':
            out.update(it['fields'])
    return out


def same_sym(text, json_name):
    if text.startswith('0x') and json_name.startswith('0x'):
        return int(text, 16) == int(json_name, 16)
    return text == json_name


def cmp_types(doc, ann, errs):
    """The Data types section against annotate --data-type's JSON; the
    number of values compared."""
    n = 0
    types = ann['types']
    period = {}
    for t in types:
        period[t['event']] = period.get(t['event'], 0) + t['period']
    rows = [r for _, it in items(doc, 'data_types', 'types')
            for r in it['rows']]
    if not types:
        if rows:
            errs.append(f'{len(rows)} data types, annotate has none')
        return 0
    if not rows:
        errs.append(f'no Data types section, annotate has {len(types)}')
        return 0
    for i, (r, t) in enumerate(zip(rows, types)):
        share = t['period'] / period[t['event']] if period[t['event']] else 0
        hot = None
        for m in t['members'][1:]:
            if m['period'] and (hot is None or m['period'] >= hot['period']):
                hot = m
        want = (t['type'], t['dso'], t['event'], t['samples'])
        got = (r['type'], r['dso'], r['event'], r['samples'])
        if got != want or abs(r['share'] - share) > 1e-9:
            errs.append(f'data type row {i + 1}: {r} against {t}')
        if hot and abs(r['member_share'] - hot['percent'] / 100) > 1e-9:
            errs.append(f'data type row {i + 1}: member {r} against {hot}')
        n += 6
    attributed = ann['coverage'].get('attributed')
    text = json.dumps(parts(doc, 'data_types'))
    if f'{attributed} of ' not in text:
        errs.append(f'data types: the attributed count {attributed} '
                    f'not in the section')
    n += 1
    return n


def main():
    doc = json.load(open(sys.argv[1]))
    errs, n = [], 0
    tables = report_tables(sys.argv[2])
    hot = list(items(doc, 'hotspots', 'functions'))
    if len(hot) != len(tables):
        errs.append(f'{len(hot)} hotspot tables, report has {len(tables)}')
    for (part, it), t in zip(hot, tables):
        f = fields(part)
        if (f.get('event'), f.get('samples', 0) // t['unit'],
                f.get('period')) != \
                (t['event'], t['samples'], t.get('period')):
            errs.append(f"event {t['event']}: {f} against {t}")
        n += 3
        rows = it['rows']
        want = t['rows'][:len(rows)]
        if len(rows) != min(len(t['rows']), len(rows)) or not rows and want:
            errs.append(f"{t['event']}: {len(rows)} rows")
        for i, (r, w) in enumerate(zip(rows, want)):
            got = ('%.2f' % (r['self_share'] * 100), r['samples'],
                   r['module'])
            if got != w[:3] or not same_sym(w[3], r['function']):
                errs.append(f"{t['event']} row {i + 1}: {got} "
                            f"{r['function']} against {w}")
            n += 4
    if len(sys.argv) > 3 and sys.argv[3] != '-':
        stat = json.load(open(sys.argv[3]))['derived_metrics']['metrics']
        want = {(m['group'], m['label']): m for m in stat}
        got = {}
        for _, it in list(items(doc, 'topdown', 'stat_metrics')):
            for r in it['rows']:
                got[(r['group'], r['metric'])] = (r['value'],
                                                  r['assessment'])
        for _, it in list(items(doc, 'cache', 'stat_levels')):
            for r in it['rows']:
                m = [k for k in want if k[1] == r['level']]
                if len(m) == 1:
                    got[m[0]] = (r['miss_rate'], r['assessment'])
                    ops = want[m[0]]['inputs']
                    if (r['misses'], r['accesses']) != \
                            (ops[0]['value'], ops[1]['value']):
                        errs.append(f'{r["level"]}: counts {r} against '
                                    f'{ops}')
                    n += 2
                else:
                    errs.append(f"cache level {r['level']}: not one metric")
        for k, m in want.items():
            if k not in got:
                errs.append(f'metric {k} missing')
            elif got[k] != (m['value'], m['assessment']):
                errs.append(f'metric {k}: {got[k]} against {m["value"]} '
                            f'{m["assessment"]}')
            n += 2
        for k in got:
            if k not in want:
                errs.append(f'metric {k}: not in pdtool stat')
    if len(sys.argv) > 4 and sys.argv[4] != '-':
        br = json.load(open(sys.argv[4]))['branches']
        for _, it in items(doc, 'branches', 'branches'):
            for i, r in enumerate(it['rows']):
                w = br[i]
                rate = w.get('mispredict_rate')
                got_rate = None if r['mispredict_rate'] is None \
                    else r['mispredict_rate'] * 100
                if r['count'] != w['count'] or \
                        abs(r['share'] * 100 - w['share']) > 1e-9 or \
                        (rate is None) != (got_rate is None) or \
                        (rate is not None and abs(rate - got_rate) > 1e-9) \
                        or not r['from'].startswith(
                            '(not recorded)'
                            if w['from'].get('recorded') is False
                            else (w['from']['sym'] + '+')
                            if w['from']['sym']
                            else w['from']['addr'] + ' '):
                    errs.append(f'branch row {i + 1}: {r} against {w}')
                cyc = w.get('cycles_avg')
                if r['rank'] != i + 1 or (cyc is None) != (
                        r['cycles_avg'] is None) or (
                        cyc is not None and abs(cyc - r['cycles_avg']) > 0.05):
                    errs.append(f'branch row {i + 1}: rank or cycles {r} '
                                f'against {w}')
                n += 6
    if len(sys.argv) > 5 and sys.argv[5] != '-':
        n += cmp_types(doc, json.load(open(sys.argv[5])), errs)
    for e in errs:
        print(e)
    if not errs:
        print(f'ok {n}')
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
