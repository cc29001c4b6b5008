#!/usr/bin/env python3
"""brcheck.py truth TRUTH.json PDTOOL.json
   brcheck.py perf PERF.report PDTOOL.json
   brcheck.py blocks TRUTH.json PDTOOL.json
   brcheck.py lines TRUTH.json PDTOOL.json BINARY

blocks: PDTOOL.json is `pdtool branches --blocks --format json` (by
block) of a generated capture; every row must equal the truth's block,
named "sym+0xOFF .. sym+0xOFF": executions, instructions (the
generator's disassembly), cycles summed (0 without cycles), and its IPC
instructions x timed executions / cycles.

lines: PDTOOL.json is `--blocks --by srcline --format json`; the truth's
blocks spread over their instructions' source lines as llvm-objdump -l
names them (not pdtool's DWARF reader): per line, executions,
instructions run and the cycles split by instructions, to 0.01 cycles.

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
import subprocess
import sys


def check_truth(truth, pd):
    want = {(p["from_sym"], p["to_sym"]): p for p in truth["pairs"]}
    # BRBE half records: a row per recorded end, the other not recorded
    for h in truth.get("source_only", []):
        want[(h["from_sym"], None)] = dict(h, cycles=None)
    for h in truth.get("target_only", []):
        want[(None, h["to_sym"])] = dict(h, cycles=None)
    bad = []
    seen = set()
    for r in pd["branches"]:
        k = (r["from"]["name"], r["to"]["name"])
        if None in k and r.get("record") != ("source_only" if k[1] is None
                                             else "target_only"):
            bad.append("%s -> %s: a missing end, record %s"
                       % (k + (r.get("record"),)))
        seen.add(k)
        w = want.get(k)
        if not w:
            bad.append("%s -> %s: not in the truth" % k)
            continue
        got = (r["count"], r["mispredicted"], r["cycles"], r["type"])
        exp = (w["count"], w["mispred"], w["cycles_sum"], w["type"])
        if got != exp:
            bad.append("%s -> %s: pdtool %s, truth %s" % (k + (got, exp)))
        if "counters" in w:
            # branch counters: every entry carried them; per event the
            # occurrences summed and whether one saturated
            got_c = [(c["sum"], c["saturated"]) for c in r["counters"]]
            exp_c = [(n, sat > 0) for n, sat in zip(w["counters"],
                                                    w["saturated"])]
            if got_c != exp_c or r["with_counters"] != w["with_counters"]:
                bad.append("%s -> %s: counters %s, truth %s"
                           % (k + (got_c, exp_c)))
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


def end_name(name):
    """An end's name for comparing: a symbol as it is; an address without
    one (perf's "0x0000000000001b41", or "0000000000000000" for 0;
    pdtool's "0x1b41 (dso)", both the map-relative al_addr) as "0x1b41"."""
    m = re.match(r"^(?:0x([0-9a-f]+)(?: \(.*\))?|([0-9a-f]{16}))$", name)
    if not m:
        return name
    return "0x%x" % int(m.group(1) or m.group(2), 16)


def check_perf(report, pd):
    perf = {}
    for line in open(report):
        m = ROW.match(line)
        if not m:
            continue
        k = (end_name(m.group(2)), end_name(m.group(3)))
        e = perf.setdefault(k, [0.0, 0.0, 0])
        e[0] += float(m.group(1))
        e[2] += 1
        if m.group(4) == "Y":
            e[1] += float(m.group(1))
    total = pd["entries"]
    mine = {}
    for r in pd["branches"]:
        k = (end_name(r["from"]["name"]), end_name(r["to"]["name"]))
        # ends without a symbol in several processes or maps: one name
        c, mp = mine.get(k, (0.0, 0.0))
        mine[k] = (c + 100.0 * r["count"] / total,
                   mp + 100.0 * (r["mispredicted"] or 0) / total)
    bad = []
    for k in sorted(set(perf) | set(mine)):
        p, m = perf.get(k), mine.get(k)
        if not p or not m:
            bad.append("%s -> %s: perf %s, pdtool %s" % (k + (p, m)))
            continue
        # perf rounds each row to 0.01%: a pair's sum is within half of
        # that a row it sums
        tol = 0.005 * (p[2] + 1) + 1e-9
        if abs(p[0] - m[0]) > tol or abs(p[1] - m[1]) > tol:
            bad.append("%s -> %s: perf %.2f%%/%.2f%%, pdtool %.2f%%/%.2f%%"
                       % (k + (p[0], p[1], m[0], m[1])))
    return bad, len(perf)


def check_blocks(truth, pd):
    want = {"%s .. %s" % (b["start_sym"], b["end_sym"]): b
            for b in truth["blocks"]}
    bad = []
    seen = set()
    for r in pd["blocks"]:
        k = r["name"]
        seen.add(k)
        w = want.get(k)
        if not w:
            bad.append("%s: not in the truth" % k)
            continue
        cyc = w["cycles_sum"] or 0
        got = (r["count"], r["insns"], r["executed"], round(r["cycles"], 6))
        exp = (w["count"], w["insns"], w["count"] * w["insns"], cyc)
        if got != exp:
            bad.append("%s: pdtool %s, truth %s" % (k, got, exp))
        want_ipc = w["insns"] * w["count"] / cyc if cyc else None
        if (r["ipc"] is None) != (want_ipc is None) or (
                want_ipc is not None and abs(r["ipc"] - want_ipc) > 1e-6):
            bad.append("%s: IPC %s, truth %s" % (k, r["ipc"], want_ipc))
    for k in set(want) - seen:
        bad.append("%s: truth only" % k)
    return bad, len(want)


def objdump_lines(binary):
    """{address: "file:line"} of every instruction, by llvm-objdump -l."""
    out = subprocess.run(["llvm-objdump", "-d", "-l", "--no-show-raw-insn",
                          binary], check=True, capture_output=True,
                         text=True).stdout
    lines, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^; (/.*:\d+)", line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r"^\s*([0-9a-f]+):", line)
        if m and cur:
            lines[int(m.group(1), 16)] = cur
        elif re.match(r"^[0-9a-f]+ <", line):
            cur = None
    return lines


def check_lines(truth, pd, binary):
    at = objdump_lines(binary)
    addrs = sorted(at)
    want = {}
    for b in truth["blocks"]:
        s, e = int(b["start"], 16), int(b["end"], 16)
        ins = [a for a in addrs if s <= a <= e]
        if len(ins) != b["insns"]:
            return ["%s: llvm-objdump has %d line-mapped instructions, the "
                    "truth %d" % (b["start_sym"], len(ins), b["insns"])], 0
        cyc = b["cycles_sum"] or 0
        per = {}
        for a in ins:
            per[at[a]] = per.get(at[a], 0) + 1
        for ln, n in per.items():
            w = want.setdefault(ln, [0, 0, 0.0])
            w[0] += b["count"]
            w[1] += b["count"] * n
            w[2] += cyc * n / b["insns"]
    mine = {r["name"]: r for r in pd["blocks"]}
    bad = []
    for k in sorted(set(want) | set(mine)):
        w, r = want.get(k), mine.get(k)
        if not w or not r:
            bad.append("%s: truth %s, pdtool %s" % (k, w, r and r["name"]))
            continue
        if (r["count"], r["executed"]) != (w[0], w[1]) or \
                abs(r["cycles"] - w[2]) > 0.01:
            bad.append("%s: pdtool %s/%s/%.2f, truth %s/%s/%.2f" % (
                k, r["count"], r["executed"], r["cycles"], w[0], w[1], w[2]))
    return bad, len(want)


def main(argv):
    pd = json.load(open(argv[3]))
    if argv[1] == "truth":
        bad, n = check_truth(json.load(open(argv[2])), pd)
    elif argv[1] == "blocks":
        bad, n = check_blocks(json.load(open(argv[2])), pd)
    elif argv[1] == "lines":
        bad, n = check_lines(json.load(open(argv[2])), pd, argv[4])
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
