#!/usr/bin/env python3
"""crossperf.py NAME PDTOOL.json PERF.cwt SRCDIR - pdtool's and perf
7.2's --code-with-type notes on the sampled instructions of a foreign
capture, held to the source's markers ("/* dt: TYPE +OFF (MEMBER) */").

Each sampled instruction is one of: both (perf and pdtool note it: the
notes must be equal, as cwtnotes.py writes them), pdtool (perf leaves
it (unknown): pdtool's note must be its line's marker), perf (pdtool
leaves what perf types: a failure) or neither.  On i386 and arm, whose
longs and pointers take 4 bytes, the markers' LP64 offsets are not the
binary's: type and member are compared there, as check_datatype.c does.
Prints one line of counts (instructions and samples); exits 1 on a
failure, naming it."""
import json
import os
import re
import sys

NOTE = re.compile(r"^(.*?) \+(0x[0-9a-f]+|\d+)(?: \((.*)\))?$")


def parse(note):
    m = NOTE.match(note)
    if not m:
        return (note, None, None)
    member = m.group(3)
    return (m.group(1), int(m.group(2), 0),
            None if member in (None, "no field") else member)


def markers(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"/\* dt: (.*?) \*/", line)
            if m:
                out[n] = m.group(1)
    return out


def main(argv):
    name, json_path, cwt_path, srcdir = argv[1:5]
    d = json.load(open(json_path, encoding="utf-8"))
    perf = {}
    for line in open(cwt_path, encoding="utf-8"):
        addr, note = line.rstrip("\n").split("\t", 1)
        perf[int(addr, 16)] = note
    cut = re.compile(r"\(([^()]*?)\[\d+\][^()]*\)$")
    src = {}
    counts = {k: [0, 0] for k in ("both", "pdtool", "perf", "neither")}
    fails = []
    for f in d["functions"]:
        lp64 = f.get("arch") not in ("i386", "arm", "thumb")
        for i in f.get("instructions", []):
            n = i["counts"][0]["samples"]
            if not n:
                continue
            a = int(i["addr"], 16)
            ours = i.get("data_type")
            theirs = perf.get(a)
            kind = ("both" if ours and theirs else "pdtool" if ours
                    else "perf" if theirs else "neither")
            counts[kind][0] += 1
            counts[kind][1] += n
            where = "%s+%#x" % (f["name"], a - int(f["start"], 16))
            if kind == "both" and cut.sub(r"(\1)", ours) != theirs:
                fails.append("%s: pdtool '%s', perf '%s'" %
                             (where, ours, theirs))
            elif kind == "perf":
                fails.append("%s: perf types '%s', pdtool none" %
                             (where, theirs))
            elif kind == "pdtool":
                base = os.path.basename(i.get("file", ""))
                if base not in src:
                    p = os.path.join(srcdir, base)
                    src[base] = markers(p) if os.path.exists(p) else {}
                want = src[base].get(i.get("line"))
                got, w = parse(ours), parse(want) if want else None
                if not lp64 and w:
                    got, w = (got[0], got[2]), (w[0], w[2])
                if got != w:
                    fails.append("%s (%s:%s): pdtool '%s', marker '%s'" %
                                 (where, base, i.get("line"), ours, want))
    print("%s: %s" % (name, ", ".join(
        "%s %d (%d samples)" % (k, v[0], v[1]) for k, v in counts.items())))
    for f in fails:
        print("  FAIL " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
