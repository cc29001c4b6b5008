#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_stat_metrics.py - the derived metrics of a pd_stat_synth.py capture,
computed here from the generator's own counts, and checked against what
`pdtool stat --format json` says.

    pd_stat_metrics.py NAME PDTOOL_JSON

NAME is a capture of pd_stat_synth.py's CAPTURES or SAMPLED (there the
counts are each event's period sum, or its read group values: what the
samples hold, pd_stat_synth.sampled_totals()); PDTOOL_JSON the file
`pdtool stat --format json` wrote for it.  The counts come from
pd_stat_synth.counts() (what the generator wrote), totalled as perf
totals them (per interval what each counter gained; scaled by
enabled/running once over the sum in the global aggregation, per CPU
otherwise), each metric from the issue's formulas written out here by
event name (not from pdtool's tables: pdtool tells events by PMU and
config), and its assessment from the issue's thresholds.  Every metric
computed here must be in pdtool's output with the same value (relative
1e-9) and assessment, and pdtool must give no other.  Prints one line per
metric; exit 1 on any difference.
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pd_stat_synth as synth  # noqa: E402


def totals_by(name):
    """[(round, aggregate, {event name: count})]: each interval's (or the
    run's) counts per aggregate, as pdtool stat's per-interval and
    per-aggregate metrics take them: per CPU (saved aggregation 0) each
    CPU's scaled by its own enabled/running, per socket (2) the sum of
    its CPUs' scaled counts, globally (1) the values, enabled and running
    times summed, then scaled; the aggregate is ("cpu", n), ("socket", n) or None"""
    spec = synth.CAPTURES[name]
    seed = spec.get("seed", name)
    rng = synth.Rng(sum(map(ord, seed)) * 0x9E3779B97F4A7C15 &
                    0xffffffffffffffff)
    data = synth.counts(spec, rng)
    ncpu = spec["cpus"] or 1
    per_socket = max(1, ncpu // spec["sockets"])
    prev = [[(0, 0, 0)] * ncpu for _ in spec["events"]]
    out = []
    for r, rnd in enumerate(data):
        by = {}
        for i, ev in enumerate(spec["events"]):
            deltas = [tuple(a - b for a, b in zip(rnd[i][c], prev[i][c]))
                      for c in range(ncpu)]
            prev[i] = rnd[i]
            for c in range(ncpu):
                # perf 6.8's numbering (level): 6 is per core; each
                # CPU its own core in the generator's topology
                key = ({6: ("core", c % per_socket)} if spec.get("level")
                       else {0: ("cpu", c), 2: ("socket", c // per_socket)}
                       ).get(spec["aggr"])
                acc = by.setdefault(key, {}).setdefault(ev, [])
                acc.append(deltas[c])
        for key, evs in by.items():
            c = {}
            for ev, ds in evs.items():
                if key is None:
                    # global: one sum, scaled once
                    ds = [tuple(map(sum, zip(*ds)))]
                # a socket: each CPU's scaled, then added up
                c[ev] = sum(int(v * e / u) if u and u < e else v
                            for v, e, u in ds)
            out.append((r, key, c))
    return out, spec


def totals(name):
    """event name -> count over the run, as perf scales it: the sum of
    every interval's and aggregate's"""
    by, spec = totals_by(name)
    out = {e: 0 for e in spec["events"]}
    for _, _, c in by:
        for ev, v in c.items():
            out[ev] += v
    return out, spec


def div(a, b):
    return a / b if b else None


def metrics(name):
    """metric key -> value, from the issue's formulas"""
    if name in synth.SAMPLED:
        # a sampling capture: the counts its samples hold
        c, spec = synth.sampled_totals(name), synth.SAMPLED[name]
    else:
        c, spec = totals(name)
    return derive(c, spec)


def derive(c, spec):
    """metric key -> value of counts c on spec's host"""
    host = synth.HOSTS[spec["host"]]
    m = {}

    def have(*evs):
        return all(e in c for e in evs)

    arm = host["arch"] == "aarch64"
    cyc = "cpu_cycles" if arm and "cpu_cycles" in c else (
        "ls_not_halted_cyc" if "ls_not_halted_cyc" in c else "cycles")
    ins = "inst_retired" if arm and "inst_retired" in c else "instructions"
    if have(cyc, ins):
        m["ipc"] = div(c[ins], c[cyc])
    if arm:
        for key, num, den in [
                ("frontend_bound", "stall_frontend", "cpu_cycles"),
                ("backend_bound", "stall_backend", "cpu_cycles"),
                ("backend_memory", "stall_backend_mem", "cpu_cycles"),
                ("branch_mispredict_rate", "br_mis_pred_retired",
                 "br_retired"),
                ("speculative_mispredict_rate", "br_mis_pred", "br_pred"),
                ("branch_density", "br_retired", "inst_retired"),
                ("l1d_miss_rate", "l1d_cache_refill", "l1d_cache"),
                ("l1d_to_l2_rate", "l1d_cache_lmiss_rd", "l1d_cache_refill"),
                ("l2_miss_rate", "l2d_cache_refill", "l2d_cache"),
                ("l2_to_llc_rate", "l2d_cache_lmiss_rd", "l2d_cache_refill"),
                ("dtlb_walk_rate", "dtlb_walk", "mem_access"),
                ("itlb_walk_rate", "itlb_walk", "l1i_cache")]:
            if have(num, den):
                m[key] = div(c[num], c[den])
        slots = int(host.get("caps", {}).get("slots", "0"), 0)
        # Neoverse N2 r0p0..r0p2: a slot too many each cycle
        midr = int(host["cpuid"], 16)
        fix = c["cpu_cycles"] if ((midr >> 4) & 0xfff) == 0xd49 and \
            (midr & 0xf) < 3 and "cpu_cycles" in c else 0
        if slots and "cpu_cycles" in c:
            total = slots * c["cpu_cycles"]
            if "stall_slot_frontend" in c:
                m["td_frontend_bound"] = (c["stall_slot_frontend"] -
                                          fix) / total
            if "stall_slot_backend" in c:
                m["td_backend_bound"] = c["stall_slot_backend"] / total
            if have("op_retired", "op_spec", "stall_slot"):
                busy = 1 - (c["stall_slot"] - fix) / total
                ret = c["op_retired"] / c["op_spec"]
                m["td_retiring"] = ret * busy
                m["td_bad_speculation"] = (1 - ret) * busy
    if have("topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
            "topdown-be-bound"):
        s = (c["topdown-retiring"] + c["topdown-bad-spec"] +
             c["topdown-fe-bound"] + c["topdown-be-bound"])
        m["td_retiring"] = c["topdown-retiring"] / s
        m["td_bad_speculation"] = c["topdown-bad-spec"] / s
        m["td_frontend_bound"] = c["topdown-fe-bound"] / s
        m["td_backend_bound"] = c["topdown-be-bound"] / s
        for part, whole, key, rest in [
                ("topdown-heavy-ops", "topdown-retiring",
                 "td_heavy_operations", "td_light_operations"),
                ("topdown-br-mispredict", "topdown-bad-spec",
                 "td_branch_mispredicts", "td_machine_clears"),
                ("topdown-fetch-lat", "topdown-fe-bound",
                 "td_fetch_latency", "td_fetch_bandwidth"),
                ("topdown-mem-bound", "topdown-be-bound",
                 "td_memory_bound", "td_core_bound")]:
            if part in c:
                m[key] = c[part] / s
                m[rest] = max(0.0, c[whole] / s - c[part] / s)
    if "ls_not_halted_cyc" in c and host["cpuid"].startswith(
            "AuthenticAMD,25,"):
        total = 6 * c["ls_not_halted_cyc"]
        p = "de_no_dispatch_per_slot."
        if p + "no_ops_from_frontend" in c:
            m["td_frontend_bound"] = c[p + "no_ops_from_frontend"] / total
        if have("de_src_op_disp.all", "ex_ret_ops"):
            m["td_bad_speculation"] = (c["de_src_op_disp.all"] -
                                       c["ex_ret_ops"]) / total
        if p + "backend_stalls" in c:
            m["td_backend_bound"] = c[p + "backend_stalls"] / total
        if p + "smt_contention" in c:
            m["td_smt_contention"] = c[p + "smt_contention"] / total
        if "ex_ret_ops" in c:
            m["td_retiring"] = c["ex_ret_ops"] / total
    return {k: v for k, v in m.items() if v is not None}


# the thresholds: (healthy if better than, investigate if worse
# than, higher is better)
THRESHOLDS = {
    "ipc": (2.0, 1.0, True), "frontend_bound": (0.10, 0.20, False),
    "backend_bound": (0.30, 0.40, False),
    "backend_memory": (0.15, 0.25, False),
    "branch_mispredict_rate": (0.01, 0.03, False),
    "speculative_mispredict_rate": (0.01, 0.03, False),
    "l1d_miss_rate": (0.05, 0.10, False),
    "l1d_to_l2_rate": (0.30, 0.50, False),
    "l2_miss_rate": (0.10, 0.20, False),
    "l2_to_llc_rate": (0.20, 0.40, False),
    "dtlb_walk_rate": (0.005, 0.02, False),
    "itlb_walk_rate": (0.001, 0.01, False),
    "td_bad_speculation": (None, 0.15, False),
    "td_frontend_bound": (None, 0.20, False),
    "td_backend_bound": (None, 0.40, False),
}


def assessment(key, v):
    if key == "td_retiring":
        return "near peak" if v > 0.80 else ""
    if key not in THRESHOLDS:
        return ""
    healthy, investigate, higher = THRESHOLDS[key]
    worse = v < investigate if higher else v > investigate
    if worse:
        return "investigate"
    if healthy is None or (v > healthy if higher else v < healthy):
        return "healthy"
    return "borderline"


def check(label, want, got):
    """compare metric key -> value want with pdtool's key -> object"""
    bad = 0
    for key in sorted(set(want) | set(got)):
        if key not in got:
            print("%s %s: pdtool gives none, expected %.9g" %
                  (label, key, want[key]))
            bad = 1
            continue
        if key not in want:
            print("%s %s: pdtool gives %.9g, expected none" %
                  (label, key, got[key]["value"]))
            bad = 1
            continue
        g, w = got[key]["value"], want[key]
        a = assessment(key, w)
        ok = math.isclose(g, w, rel_tol=1e-9, abs_tol=1e-12) and \
            got[key]["assessment"] == a
        print("%s %s %s: pdtool %.9g %s, expected %.9g %s" % (
            "ok" if ok else "FAIL", label, key, g,
            got[key]["assessment"] or "-", w, a or "-"))
        bad |= not ok
    return bad


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: pd_stat_metrics.py NAME PDTOOL_JSON\n")
        return 64
    name = argv[1]
    want = metrics(name)
    with open(argv[2]) as f:
        doc = json.load(f)
    bad = check(name, want,
                {m["key"]: m for m in doc["derived_metrics"]["metrics"]})
    if not want:
        print("%s: no metric expected" % name)
    if name in synth.SAMPLED:
        return bad
    # each interval's and aggregate's metrics, where pdtool gives them
    spec = synth.CAPTURES[name]
    by = spec["intervals"] or spec["aggr"] != 1
    for r, key, c in totals_by(name)[0] if by else []:
        rnd = doc["rounds"][r]
        aggs = [a for a in rnd.get("derived_metrics", [])
                if key is None or a.get(key[0]) == key[1]]
        label = "%s round %d%s" % (name, r, " %s %d" % key if key else "")
        if len(aggs) != 1:
            print("FAIL %s: %d aggregates in pdtool's output" %
                  (label, len(aggs)))
            bad = 1
            continue
        bad |= check(label, derive(c, spec),
                     {m["key"]: m for m in aggs[0]["metrics"]})
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
