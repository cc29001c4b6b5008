#!/usr/bin/env python3
"""truthcheck.py - pdtool mem's SPE numbers against the generator's truth.

    truthcheck.py TRUTH PDTOOL_JSON

TRUTH is testdata/spe/NAME.truth (tests/gen/pd_spe_synth.py: one line per
SPE record, "cpu offset pc el ns tgt va pa ts ctx op_class op_raw events
source tot issue xlat ended_by", hex, '-' absent).  perf synthesizes a
memory sample of every load or store (op class 1; op_raw bit 0 a store),
weighing its total latency.  Computed here from the records alone, and
held to `pdtool mem --format json` (every row, all views):
  - the totals: samples, loads, stores, weight, samples with an address;
  - per 64-byte line (the line view): samples, loads, stores, weight,
    latency min..max, p50/p90/p99 (nearest rank), the issue and
    translation latencies' averages, distinct CPUs and offsets;
  - per level row: its latency histogram sums to its samples;
  - the samples per level and per snoop: each record's data source as
    perf >= 6.13 reads it (arm-spe.c: the common encoding of Neoverse
    N1, N2, V1, V2 and Cortex-A720 hosts; AmpereOne's own codes mapped
    onto it; HiSilicon HIP12's by its own table, as perf 7.2; each CPU's model from the per-CPU metadata, the capture's
    from the original), tabled here from perf's source, not pdtool's.
A --per-thread capture's samples carry no CPU: its lines have none.
Prints each difference and exits 1 if there is any.
"""
import json
import math
import sys


def h(x):
    return None if x == "-" else int(x, 16)


def rank(vals, p):
    n = len(vals)
    r = max(1, math.ceil(n * p / 100))
    return vals[r - 1]


# the common data sources: (level, snoop) as perf's strings say them
COMMON = {0x0: ("L1 or L1 hit", "None"), 0x8: ("L2 or L2 hit", "None"),
          0x9: ("L2 or L2 hit", "Peer"), 0xa: ("L3 or L3 hit", "Peer"),
          0xb: ("L3 or L3 hit", "Hit"), 0xc: ("L3 or L3 hit", "Peer"),
          0xd: ("Remote N/A or N/A", "Peer"),
          0xe: ("Local RAM or RAM hit", "None")}
AMPEREONE = {0x0: 0x9, 0x3: 0xb, 0x5: 0xd, 0x7: 0xe, 0x8: 0x0, 0x9: 0x8}
# HiSilicon HIP12's own codes (perf 7's arm_spe__synth_data_source_hisi_hip:
# a peer cluster is "remote cache, 1 hop" at L3, the other socket "remote
# cache, 2 hops" in any cache, remote memory RAM 1 hop away, a device
# I/O, which perf 6.1's strings call level L10)
_CCE1 = "Remote Cache (1 hop) or L3 hit"
_CCE2 = "Remote Remote Cache (2 hops) or Any cache"
HISI = {0: ("L2 or L2 hit", "Peer"), 1: ("L2 or L2 hit", "HitM or Peer"),
        2: ("L3 or L3 hit", "Hit"), 3: ("L3 or L3 hit", "HitM"),
        4: (_CCE1, "Peer"), 5: (_CCE1, "HitM or Peer"),
        6: (_CCE2, "Peer"), 7: (_CCE2, "HitM or Peer"),
        8: ("Local RAM or RAM hit", "None"),
        9: ("Remote Remote RAM (1 hop) or RAM hit", "N/A"),
        13: ("I/O or L10 hit", "None"), 16: ("L2 or L2 hit", "None"),
        17: ("L2 or L2 hit", "HitM"), 18: ("L1 or L1 hit", "None")}


def expected_level(host, store, source):
    if store:
        return ("N/A or N/A", "N/A")
    if host == "ampere1a":
        source = AMPEREONE[source]
    if host == "hip12":
        return HISI[source]
    return COMMON[source]


def main():
    truth, js = sys.argv[1:3]
    doc = json.load(open(js, encoding="utf-8"))
    recs = []
    per_thread = False
    hdr = {}
    for ln in open(truth, encoding="utf-8"):
        if ln.startswith("#"):
            per_thread = per_thread or "per_thread=True" in ln
            hdr.update(kv.split("=", 1) for kv in ln[1:].split())
            continue
        if not ln.strip():
            continue
        f = ln.split()
        if h(f[10]) != 1:
            continue
        recs.append({"cpu": int(f[0]), "va": h(f[6]), "source": h(f[13]),
                     "store": (h(f[11]) or 0) & 1,
                     "tot": h(f[14]) or 0, "issue": h(f[15]) or 0,
                     "xlat": h(f[16]) or 0})
    bad = []

    def eq(what, want, got):
        if isinstance(want, float):
            if abs(want - got) > 1e-9 * max(1.0, abs(want)):
                bad.append(f"{what}: truth {want}, pdtool {got}")
        elif want != got:
            bad.append(f"{what}: truth {want}, pdtool {got}")

    eq("samples", len(recs), doc["samples"])
    eq("stores", sum(r["store"] for r in recs), doc["stores"])
    eq("loads", sum(1 - r["store"] for r in recs), doc["loads"])
    eq("weight", sum(r["tot"] for r in recs), doc["weight"])
    eq("with_addr", sum(1 for r in recs if r["va"]), doc["with_addr"])
    lines = {}
    for r in recs:
        if r["va"]:
            lines.setdefault(r["va"] & ~63, []).append(r)
    got = {int(row["line"], 16): row for row in doc["line"]}
    eq("lines", len(lines), len(got))
    for base, rs in sorted(lines.items()):
        row = got.get(base)
        if row is None:
            bad.append(f"line {base:#x}: not in pdtool's")
            continue
        lat = sorted(r["tot"] for r in rs)
        n = len(rs)
        w = f"line {base:#x}"
        eq(w + " samples", n, row["samples"])
        eq(w + " stores", sum(r["store"] for r in rs), row["stores"])
        eq(w + " loads", n - sum(r["store"] for r in rs), row["loads"])
        eq(w + " weight", sum(lat), row["weight"])
        eq(w + " max", lat[-1], row["latency_max"])
        for p in (50, 90, 99):
            eq(f"{w} p{p}", rank(lat, p), row[f"latency_p{p}"])
        eq(w + " avg", sum(lat) / n, row["latency_avg"])
        eq(w + " issue", sum(r["issue"] for r in rs) / n, row["issue_avg"])
        eq(w + " xlat", sum(r["xlat"] for r in rs) / n,
           row["translation_avg"])
        # a --per-thread capture's samples have no CPU (its truth's cpu
        # is the buffer's): none known
        eq(w + " cpus", 0 if per_thread else len({r["cpu"] for r in rs}),
           row["cpus"])
        eq(w + " offsets", len({r["va"] & 63 for r in rs}), row["offsets"])
    for row in doc["level"]:
        eq(f"level {row['level']!r} histogram",
           row["samples"], sum(b["samples"] for b in row["latency_hist"]))
    hosts = hdr["cpu_hosts"].split(",") if "cpu_hosts" in hdr else None
    want = [{}, {}]
    for r in recs:
        host = hosts[r["cpu"]] if hosts else hdr["host"]
        for i, lab in enumerate(expected_level(host, r["store"],
                                               r["source"])):
            want[i][lab] = want[i].get(lab, 0) + 1
    for i, (view, col) in enumerate((("level", "level"),
                                     ("snoop", "snoop"))):
        # rows are data_src values: two can read alike (a snoop of 0
        # and SNOOP_NA both say N/A, as perf's rows do)
        got = {}
        for row in doc[view]:
            got[row[col]] = got.get(row[col], 0) + row["samples"]
        eq(view + " samples per row", dict(sorted(want[i].items())),
           dict(sorted(got.items())))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
