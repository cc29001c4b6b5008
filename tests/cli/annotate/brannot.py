#!/usr/bin/env python3
"""brannot.py - pdtool annotate's branch columns against their oracles.

    brannot.py PDTOOL.json TRUTH.json [PERF7.stdio2]

PDTOOL.json: `pdtool annotate --format json` of a generated capture of
testdata/branches/; TRUTH.json: its generator's truth (testdata/
branches.md).  Checks:

- every instruction's "branch" counts equal the truth's pairs summed by
  their from address: entries taken, mispredicted (with_prediction equal
  to taken where the layout records prediction, else 0), the average of
  the cycles truncated (where the layout records cycles); every from
  address of the truth is in an annotated function;
- with PERF7.stdio2 (perf 7's `perf annotate --stdio2`,
  tests/golden/branch/regen_annotate.sh): per function both list, the
  IPC and Cycle columns of each instruction equal pdtool's "ipc" (to
  two decimals, as perf prints it) and "cycles_avg", instruction by
  instruction (objdump's listing and capstone's have the same
  instructions here), and its Branch Counter cells pdtool's counters
  in perf's form;
- PERF7.stdio2 named *.v.stdio2 is perf 7's `annotate -v --stdio2`
  (tests/golden/branch/regen_brcntr.sh), PDTOOL.json pdtool's with -v:
  its cells by numbers ("A=1 ,B=3+") equal pdtool's "counters_cell".

Prints a summary line; exit 1 with the differences.
"""
import json
import re
import sys


def truth_by_from(truth):
    """{from addr: [taken, mispred, cycles_sum, counters summed, whether
    one saturated, entries]}"""
    out = {}
    for p in truth["pairs"]:
        a = int(p["from"], 16)
        n = len(p.get("counters") or [])
        e = out.setdefault(a, [0, 0, 0, [0] * n, [False] * n, 0])
        e[0] += p["count"]
        e[1] += p.get("mispred") or 0
        e[2] += p.get("cycles_sum") or 0
        for k in range(n):
            e[3][k] += p["counters"][k]
            e[4][k] |= p["saturated"][k] > 0
        e[5] += p["count"]
    # BRBE source-only records leave their from too (target-only ones
    # leave no instruction known)
    for h in truth.get("source_only", []):
        e = out.setdefault(int(h["from"], 16), [0, 0, 0, [], [], 0])
        e[0] += h["count"]
        e[1] += h.get("mispred") or 0
        e[2] += h.get("cycles_sum") or 0
        e[5] += h["count"]
    return out


def perf_cell(counters, n):
    """perf 7.2's Branch Counter cell of pdtool's json counters over n
    entries (annotation_br_cntr_entry(): its "+" once set stays on for
    the later columns)."""
    out, sat = "", False
    for c in counters:
        out += "|"
        used = 0
        if not c["sum"]:
            out += "-"
            used = 1
        else:
            avg = -(-c["sum"] // n)
            sat |= c["saturated"]
            for j in range(avg):
                if j >= 3:
                    sat = True
                    break
                out += chr(ord("A") + counters.index(c))
                used += 1
            if sat:
                out += "+"
                used += 1
        out += " " * (4 - used)
    return out + "|"


CELL = re.compile(r"(\|(?:[A-Z+\- ]{4}\|)+)")
# perf -v's cell: "A=1 ,B=3+" (a space or "+" after each number)
VCELL = re.compile(r"([A-Z]=(?:[0-9]+|-)[+ ](?:,[A-Z]=(?:[0-9]+|-)[+ ])*)")


def perf_funcs(path):
    """{name: [(ipc text, cycles text, cell)] per instruction line}"""
    funcs, cur, pw = {}, None, 8
    cell_re = VCELL if path.endswith(".v.stdio2") else CELL
    title = re.compile(r"^(\S+)\(\) \S+$")
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("Samples: "):
                cur = None
                # a percent column (8 wide) per event: a group's many
                g = re.search(r"'anon group \{ (.*) \}'", line)
                pw = 8 * (g.group(1).count(",") + 1 if g else 1)
                continue
            m = title.match(line)
            if m:
                cur = funcs.setdefault(m.group(1), [])
                continue
            if cur is None or not line.strip():
                continue
            ipc, cyc = line[pw:pw + 6].strip(), line[pw + 6:pw + 12].strip()
            m = cell_re.search(line)
            # the first line's blank columns carry their titles
            cur.append(("" if ipc == "IPC" else ipc,
                        "" if cyc == "Cycle" else cyc,
                        m.group(1) if m else ""))
    return funcs


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        pd = json.load(f)
    with open(sys.argv[2]) as f:
        truth = json.load(f)
    want = truth_by_from(truth)
    errs, seen, checked, n_cntr = [], set(), 0, 0
    for fn in pd["functions"]:
        for ins in fn.get("instructions", []):
            a = int(ins["addr"], 16)
            b = ins.get("branch")
            if a in want:
                seen.add(a)
            if not b or not b["taken"]:
                if a in want:
                    errs.append("%s %#x: no branch counts, truth %d taken"
                                % (fn["name"], a, want[a][0]))
                continue
            t = want.get(a)
            if not t:
                errs.append("%s %#x: %d taken, none in the truth"
                            % (fn["name"], a, b["taken"]))
                continue
            exp = {"taken": t[0],
                   "with_prediction": t[0] if truth["prediction"] else 0,
                   "mispredicted": t[1] if truth["prediction"] else 0}
            if truth["cycles"]:
                exp["cycles_avg"] = t[2] // t[0]
            for k, v in exp.items():
                if b.get(k) != v:
                    errs.append("%s %#x: %s %s, truth %s"
                                % (fn["name"], a, k, b.get(k), v))
            if t[3]:
                # each event's occurrences per entry, rounded up, and
                # whether one saturated: the truth's
                got = [(-(-c["sum"] // b["timed"]), c["saturated"])
                       for c in b.get("counters", [])]
                want_c = [(-(-s // t[5]), sat)
                          for s, sat in zip(t[3], t[4])]
                if got != want_c:
                    errs.append("%s %#x: counters %s, truth %s"
                                % (fn["name"], a, got, want_c))
                n_cntr += 1
            checked += 1
    for a in sorted(set(want) - seen):
        errs.append("%#x: in the truth, in no annotated function" % a)
    n_perf = n_cells = 0
    if len(sys.argv) == 4:
        perf = perf_funcs(sys.argv[3])
        cell_re = VCELL if sys.argv[3].endswith(".v.stdio2") else CELL
        mine = {fn["name"]: fn for fn in pd["functions"]}
        for name, lines in sorted(perf.items()):
            fn = mine.get(name)
            if not fn:
                errs.append("perf 7 annotates %s, pdtool not" % name)
                continue
            ins = fn.get("instructions", [])
            if len(ins) != len(lines):
                errs.append("%s: %d instructions, perf 7 %d"
                            % (name, len(ins), len(lines)))
                continue
            for i, (ipc, cyc, cell) in zip(ins, lines):
                b = i.get("branch") or {}
                got_ipc = "%.2f" % b["ipc"] if b.get("ipc") else ""
                got_cyc = str(b["cycles_avg"]) if b.get("cycles_avg") else ""
                if not b.get("counters"):
                    got_cell = ""
                elif cell_re is VCELL:
                    # -v: perf's cell by numbers is pdtool's own
                    got_cell = b["counters_cell"]
                else:
                    got_cell = perf_cell(b["counters"], b["timed"])
                if (got_ipc, got_cyc, got_cell) != (ipc, cyc, cell):
                    errs.append("%s %s: IPC %r cycles %r counters %r, "
                                "perf 7 %r %r %r"
                                % (name, i["addr"], got_ipc, got_cyc,
                                   got_cell, ipc, cyc, cell))
                elif ipc or cyc:
                    n_perf += 1
                    n_cells += bool(cell)
    for e in errs[:40]:
        print(e)
    if errs:
        sys.exit(1)
    print("%d branch instructions equal the truth (%d with branch "
          "counters), %d IPC/Cycle cells perf 7's (%d Branch Counter "
          "cells)" % (checked, n_cntr, n_perf, n_cells))


if __name__ == "__main__":
    main()
