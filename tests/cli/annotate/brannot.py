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
  instructions here).

Prints a summary line; exit 1 with the differences.
"""
import json
import re
import sys


def truth_by_from(truth):
    """{from addr: [taken, mispred, cycles_sum]}"""
    out = {}
    for p in truth["pairs"]:
        a = int(p["from"], 16)
        e = out.setdefault(a, [0, 0, 0])
        e[0] += p["count"]
        e[1] += p.get("mispred") or 0
        e[2] += p.get("cycles_sum") or 0
    return out


def perf_funcs(path):
    """{name: [(ipc text, cycles text)] per instruction line}"""
    funcs, cur = {}, None
    title = re.compile(r"^(\S+)\(\) \S+$")
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("Samples: "):
                cur = None
                continue
            m = title.match(line)
            if m:
                cur = funcs.setdefault(m.group(1), [])
                continue
            if cur is None or not line.strip():
                continue
            ipc, cyc = line[8:14].strip(), line[14:20].strip()
            # the first line's blank columns carry their titles
            cur.append(("" if ipc == "IPC" else ipc,
                        "" if cyc == "Cycle" else cyc))
    return funcs


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        pd = json.load(f)
    with open(sys.argv[2]) as f:
        truth = json.load(f)
    want = truth_by_from(truth)
    errs, seen, checked = [], set(), 0
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
            checked += 1
    for a in sorted(set(want) - seen):
        errs.append("%#x: in the truth, in no annotated function" % a)
    n_perf = 0
    if len(sys.argv) == 4:
        perf = perf_funcs(sys.argv[3])
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
            for i, (ipc, cyc) in zip(ins, lines):
                b = i.get("branch") or {}
                got_ipc = "%.2f" % b["ipc"] if b.get("ipc") else ""
                got_cyc = str(b["cycles_avg"]) if b.get("cycles_avg") else ""
                if (got_ipc, got_cyc) != (ipc, cyc):
                    errs.append("%s %s: IPC %r cycles %r, perf 7 %r %r"
                                % (name, i["addr"], got_ipc, got_cyc, ipc,
                                   cyc))
                elif ipc or cyc:
                    n_perf += 1
    for e in errs[:40]:
        print(e)
    if errs:
        sys.exit(1)
    print("%d branch instructions equal the truth, %d IPC/Cycle cells "
          "perf 7's" % (checked, n_perf))


if __name__ == "__main__":
    main()
