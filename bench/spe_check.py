#!/usr/bin/env python3
"""spe_check.py - hold bench/spe_gen.c's captures against perf 6.1's
decoding, before bench/spe.sh times anything on a large one:

    spe_check.py GEN ELF

GEN: a built bench/spe_gen; ELF: testdata/bin/loop-aarch64.  A capture of
3000 records per CPU in small AUXTRACE buffers (4 KiB, so that it takes
many rounds) with its truth, then:
  1. `perf report -D`'s packets, put back together into records (a record
     ends at its TIMESTAMP, PADs skipped), equal the truth line for line:
     CPU, offset, PC with its EL and NS, target, data virtual and physical
     addresses, timestamp, context, operation class and subclass, events,
     data source and the three latencies;
  2. `perf mem report`'s sample count per synthesized event equals the
     truth's records with that event's bit, and its memory event's rows
     by level equal the truth's data sources as perf 6.1 names the N1's
     (L1D; L2 and peer core; the clusters and system cache; DRAM; remote
     accesses and stores have no level: N/A).
Exits 0 when both hold, 1 with the differences otherwise.
"""

import collections
import os
import re
import subprocess
import sys
import tempfile

EV_NAMES = ["EXCEPTION-GEN", "RETIRED", "L1D-ACCESS", "L1D-REFILL",
            "TLB-ACCESS", "TLB-REFILL", "NOT-TAKEN", "MISPRED",
            "LLC-ACCESS", "LLC-REFILL", "REMOTE-ACCESS"]
# perf 6.1's synthesized events and the EVENTS bit each needs
EVENT_BIT = {"l1d-miss": 3, "l1d-access": 2, "llc-miss": 9,
             "llc-access": 8, "tlb-miss": 5, "tlb-access": 4,
             "branch-miss": 7, "remote-access": 10}
LEVEL = {"0": "L1 or L1 hit", "8": "L2 or L2 hit", "9": "L2 or L2 hit",
         "a": "L3 or L3 hit", "b": "L3 or L3 hit", "c": "L3 or L3 hit",
         "e": "Local RAM or RAM hit"}
PKT = re.compile(r"^\.  ([0-9a-f]{8}):  (?:[0-9a-f]{2} )+\s*(.*)$")


def perf(*args):
    return subprocess.run(["perf"] + list(args), check=True,
                          stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout.decode()


def records_of_dump(text):
    """perf report -D's SPE packets as truth lines."""
    out = []
    cpu = None
    rec = None

    def fresh():
        return dict(start=None, pc="-", el="-", ns="-", tgt="-", va="-",
                    pa="-", ts="-", ctx="-", cls="-", raw="-", ev="-",
                    src="-", tot="-", iss="-", xl="-")
    for line in text.splitlines():
        if "PERF_RECORD_AUXTRACE " in line:
            cpu = line.split()[-1]
            rec = fresh()
            continue
        m = PKT.match(line)
        if not m or rec is None:
            continue
        off, w = int(m.group(1), 16), m.group(2).split()
        if w[0] == "PAD":
            continue
        if rec["start"] is None:
            rec["start"] = off
        k = w[0]
        if k == "CONTEXT":
            rec["ctx"] = "%x" % int(w[1], 16)
        elif k == "PC":
            rec["pc"] = "%x" % int(w[1], 16)
            rec["el"], rec["ns"] = w[2][2:], w[3][3:]
        elif k in ("TGT", "VA", "PA"):
            rec[k.lower()] = "%x" % int(w[1], 16)
        elif k == "LAT":
            rec[{"TOT": "tot", "ISSUE": "iss", "XLAT": "xl"}[w[2]]] = \
                "%x" % int(w[1])
        elif k == "EV":
            rec["ev"] = "%x" % sum(1 << EV_NAMES.index(n) for n in w[1:])
        elif k == "DATA-SOURCE":
            rec["src"] = "%x" % int(w[1])
        elif k in ("LD", "ST"):
            rec["cls"], rec["raw"] = "1", "1" if k == "ST" else "0"
        elif k == "B":
            rec["cls"] = "2"
            rec["raw"] = "%x" % (("COND" in w) + 2 * ("IND" in w))
        elif k == "OTHER":
            rec["cls"], rec["raw"] = "0", "0"
        elif k == "TS":
            rec["ts"] = "%x" % int(w[1])
            out.append(" ".join([cpu, "%x" % rec["start"]] + [rec[f] for f in (
                "pc", "el", "ns", "tgt", "va", "pa", "ts", "ctx", "cls",
                "raw", "ev", "src", "tot", "iss", "xl")] + ["TS"]))
            rec = fresh()
    return out


def mem_report(text):
    """perf mem report -F sample,mem: samples per event, and the memory
    event's rows (level, samples)."""
    events = collections.Counter()
    levels = collections.Counter()
    ev = None
    for line in text.splitlines():
        m = re.match(r"^# Samples: .* of event '(.*)'", line)
        if m:
            ev = m.group(1)
            continue
        if line.startswith("#") or not line.strip():
            continue
        n, level = line.split(None, 1)
        events[ev] += int(n)
        if ev == "memory":
            levels[level.strip()] += int(n)
    return events, levels


def truth_counts(lines):
    events = collections.Counter()
    levels = collections.Counter()
    for line in lines:
        f = line.split()
        ev = int(f[12], 16)
        for name, bit in EVENT_BIT.items():
            if ev >> bit & 1:
                events[name] += 1
        if f[10] == "1":
            events["memory"] += 1
            levels[LEVEL.get(f[13], "N/A or N/A")] += 1
    return events, levels


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 64
    gen, elf = argv[1:]
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        f, truth = os.path.join(tmp, "c.perf.data"), os.path.join(tmp, "t")
        subprocess.run([gen, "--records", "3000", "--buffer", "4096",
                        "--seed", "5", "--truth", truth, elf,
                        "/opt/pdtool/loop-aarch64", f], check=True)
        want = [ln for ln in open(truth).read().splitlines()
                if not ln.startswith("#")]
        got = records_of_dump(perf("report", "-D", "-i", f))
        if got == want:
            print("spe_check: perf report -D: %d records equal the truth"
                  % len(want))
        else:
            status = 1
            bad = [i for i in range(max(len(got), len(want)))
                   if i >= len(got) or i >= len(want) or got[i] != want[i]]
            print("spe_check: perf report -D: %d of %d records differ; "
                  "the first:\n  truth %s\n  perf  %s" % (
                      len(bad), len(want),
                      want[bad[0]] if bad[0] < len(want) else "-",
                      got[bad[0]] if bad[0] < len(got) else "-"))
        got_ev, got_lv = mem_report(perf("mem", "report", "--stdio", "-F",
                                         "sample,mem", "-i", f))
        want_ev, want_lv = truth_counts(want)
        if (got_ev, got_lv) == (want_ev, want_lv) and want_ev:
            print("spe_check: perf mem report: %d events' sample counts "
                  "and %d levels equal the truth's" % (len(want_ev),
                                                       len(want_lv)))
        else:
            status = 1
            print("spe_check: perf mem report differs from the truth:\n"
                  "  truth %s %s\n  perf  %s %s" % (
                      sorted(want_ev.items()), sorted(want_lv.items()),
                      sorted(got_ev.items()), sorted(got_lv.items())))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
