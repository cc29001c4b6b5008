#!/usr/bin/env python3
"""statdiff.py DIFF.TXT A.JSON B.JSON - `pdtool diff`'s table of perf
stat record captures against an independent computation from `pdtool
stat --format json` of each side: each event's mean (the final round's
value), the change (B - A) / A, the noise 2 * sqrt(sdA^2 + sdB^2) / A
with sd = noise_pct% of the mean, summed in quadrature over an event's
aggregates (only with several runs a side), and
"yes" where |B - A| is past it; each derived metric's A and B.  Prints
"ok N" or each difference."""
import json
import math
import sys


def side(path):
    d = json.load(open(path))
    # each event's aggregates (per CPU, socket...) added up, their
    # spreads in quadrature
    ev = {}
    for c in d['rounds'][-1]['counts']:
        if not c['counted']:
            continue
        e = ev.setdefault(c['event'], {'value': 0.0, 'var': 0.0,
                                       'unit': c['unit']})
        e['value'] += c['value']
        e['var'] += (c.get('noise_pct', 0) * c['value'] / 100) ** 2
    met = {f"{m['label']} [{m['group']}]": m
           for m in d['derived_metrics']['metrics']}
    return d['runs'], ev, met


def num(s):
    return None if s == '-' else float(s.rstrip('%'))


def main():
    runs_a, ev_a, met_a = side(sys.argv[2])
    runs_b, ev_b, met_b = side(sys.argv[3])
    several = runs_a > 1 or runs_b > 1
    errs, n, part = [], 0, None
    for line in open(sys.argv[1]):
        if line.startswith('#'):
            if line.rstrip().endswith(' event'):
                part = 'event'
            elif line.rstrip().endswith(' metric'):
                part = 'metric'
            continue
        f = line.split()
        a, b, change, noise = map(num, f[:4])
        rest = f[4:]
        real = rest.pop(0) if rest and rest[0] in ('yes', 'no') else ''
        name = ' '.join(rest)
        if part == 'event':
            name = name.rsplit(' (', 1)[0] if name.endswith(')') else name
            wa, wb = ev_a.get(name), ev_b.get(name)
            va = wa['value'] if wa else None
            vb = wb['value'] if wb else None
            prec = 0.0005 if (wa or wb)['unit'] == 'msec' else 0.5
            prec = max(prec, 1e-12 * max(abs(va or 0), abs(vb or 0)))
            for got, want in ((a, va), (b, vb)):
                if (got is None) != (want is None) or \
                        (got is not None and abs(got - want) > prec):
                    errs.append(f'{name}: {got} against {want}')
            if va and vb is not None:
                wc = (vb - va) / abs(va) * 100
                if change is None or abs(change - wc) > 0.006:
                    errs.append(f'{name}: change {change} against {wc}')
                if several:
                    sd = math.sqrt(wa['var'] + wb['var'])
                    wn = 2 * sd / abs(va) * 100
                    wr = 'yes' if sd > 0 and abs(vb - va) > 2 * sd else 'no'
                    if noise is None or abs(noise - wn) > 0.006 or \
                            real != wr:
                        errs.append(f'{name}: noise {noise} {real} '
                                    f'against {wn} {wr}')
                elif noise is not None or real:
                    errs.append(f'{name}: a noise from one run a side')
            n += 1
        elif part == 'metric':
            wa, wb = met_a.get(name), met_b.get(name)
            for got, want in ((a, wa), (b, wb)):
                if want is None:
                    ok = got is None
                else:
                    scale = 100 if want['unit'] == 'fraction' else 1
                    ok = got is not None and \
                        abs(got - want['value'] * scale) <= 0.006
                if not ok:
                    errs.append(f'metric {name}: {got} against {want}')
            n += 1
    want_n = len(set(ev_a) | set(ev_b)) + len(set(met_a) | set(met_b))
    if n != want_n:
        errs.append(f'{n} rows, the captures have {want_n}')
    print('\n'.join(errs) if errs else f'ok {n}')
    return int(bool(errs))


if __name__ == '__main__':
    sys.exit(main())
