#!/usr/bin/env python3
"""brcheck.py truth TRUTH.json PDTOOL.json
   brcheck.py perf PERF.report PDTOOL.json

truth: PDTOOL.json is `pdtool branches --by addr --format json` of a
capture tests/gen/pd_branch_gen.py wrote; every row must equal the
truth's (from, to) pair, named sym+0xOFF: count, mispredicted (null where
the layout records no prediction), cycles summed (null without cycles),
the cycles histogram's total, the type.

perf: PDTOOL.json is `pdtool branches --format json` (by symbol);
PERF.report the table lines of perf 6.1's `perf report --branch-stack
--sort symbol_from,symbol_to,mispredict --stdio` (tests/golden/branch/).
perf splits a (from, to) pair into a row per mispredict flag, and its
mispredict comparison is no ordering (sort__mispredict_cmp returns 0 or
1), so one flag can come in several rows: rows are summed by (from, to,
flag) before comparing.  Each pair's share of the entries (N + Y) and
mispredicted share (Y) must equal pdtool's to perf's 0.01%.

Prints "ok: N rows" and exits 0, or each difference and exits 1.
"""
import json
import re
import sys


def check_truth(truth, pd):
    want = {(p["from_sym"], p["to_sym"]): p for p in truth["pairs"]}
    bad = []
    seen = set()
    for r in pd["branches"]:
        k = (r["from"]["name"], r["to"]["name"])
        seen.add(k)
        w = want.get(k)
        if not w:
            bad.append("%s -> %s: not in the truth" % k)
            continue
        got = (r["count"], r["mispredicted"], r["cycles"], r["type"])
        exp = (w["count"], w["mispred"], w["cycles_sum"], w["type"])
        if got != exp:
            bad.append("%s -> %s: pdtool %s, truth %s" % (k + (got, exp)))
        if w["cycles"] is not None:
            hist = sum(b["count"] for b in r.get("cycles_hist", []))
            if hist != w["count"] or r["cycles_min"] != min(
                    int(c) for c in w["cycles"]) or r["cycles_max"] != max(
                    int(c) for c in w["cycles"]):
                bad.append("%s -> %s: cycles distribution differs" % k)
    for k in set(want) - seen:
        bad.append("%s -> %s: truth only" % k)
    if pd["entries"] != truth["entries"]:
        bad.append("entries: pdtool %d, truth %d" % (pd["entries"],
                                                     truth["entries"]))
    return bad, len(want)


# the flag is N/A where the entry says neither mispredicted nor predicted
ROW = re.compile(r"^\s*([0-9.]+)%\s+\[.\]\s+(.+?)\s+\[.\]\s+(.+?)\s+"
                 r"(N/A|[NY])\s")


def check_perf(report, pd):
    perf = {}
    for line in open(report):
        m = ROW.match(line)
        if not m:
            continue
        k = (m.group(2), m.group(3))
        e = perf.setdefault(k, [0.0, 0.0])
        e[0] += float(m.group(1))
        if m.group(4) == "Y":
            e[1] += float(m.group(1))
    total = pd["entries"]
    mine = {}
    for r in pd["branches"]:
        k = (r["from"]["name"], r["to"]["name"])
        mine[k] = (100.0 * r["count"] / total,
                   100.0 * (r["mispredicted"] or 0) / total)
    bad = []
    for k in sorted(set(perf) | set(mine)):
        p, m = perf.get(k), mine.get(k)
        if not p or not m:
            bad.append("%s -> %s: perf %s, pdtool %s" % (k + (p, m)))
            continue
        # perf rounds each row to 0.01%; a pair sums at most a few rows
        if abs(p[0] - m[0]) > 0.03 or abs(p[1] - m[1]) > 0.03:
            bad.append("%s -> %s: perf %.2f%%/%.2f%%, pdtool %.2f%%/%.2f%%"
                       % (k + (p[0], p[1], m[0], m[1])))
    return bad, len(perf)


def main(argv):
    pd = json.load(open(argv[3]))
    if argv[1] == "truth":
        bad, n = check_truth(json.load(open(argv[2])), pd)
    else:
        bad, n = check_perf(argv[2], pd)
    for b in bad:
        print(b)
    if bad:
        return 1
    print("ok: %d rows" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
