#!/usr/bin/env python3
"""cmpannot.py - check pdtool annotate's JSON against the oracles of
tests/golden/annotate/ (regen.sh).

    cmpannot.py perf   PERF.annotate PDTOOL.json
    cmpannot.py perf-subset PERF.annotate PDTOOL.json
    cmpannot.py objdump OBJDUMP BIN PDTOOL.json
    cmpannot.py addr2line ADDR2LINE BIN PDTOOL.json
    cmpannot.py prefixed OBJDUMP BIN PDTOOL.json

perf: every function perf annotated (a section "Source code & Disassembly
of DSO for EVENT (N samples, ...)") is in pdtool's output with the same
start address, DSO and N samples of EVENT, and each of its instructions'
percentages is pdtool's to within 0.1 percentage point; pdtool has no
function of those DSOs with samples that perf left out.

perf-subset: the same for the functions pdtool printed (--top N), perf's
other sections left aside.

objdump: for pdtool's functions of binary BIN, the instructions are
objdump's, address for address, with the same mnemonic.  Where the two
spell one instruction apart, the difference must be one of the known
spellings listed in SAME (capstone 4's AT&T syntax writes the operand
size suffix that objdump leaves out when a register implies it, and a
few aliases); anything else fails.

prefixed: each Power10 prefixed instruction (8 bytes, capstone 4 knows
none) of objdump's that pdtool decodes (PREFIXED) is one of pdtool's
with objdump's text: mnemonic, operands
(pdtool writes ", " between them as capstone does, objdump ","), the
"# ADDR" of a PC-relative one and the name objdump gives that address
("[foo@got]", "<foo>"; pdtool's target name).

addr2line: each of those instructions' file:line is eu-addr2line's
("??:0" for none).

Prints a summary line; exits 0 when everything agrees, 1 otherwise.
"""
import json
import re
import sys

TOLERANCE = 0.1

HEAD = re.compile(r"^ Percent \|\s+Source code & Disassembly of (\S+) for "
                  r"(\S+) \((\d+) samples, percent: ([a-z ]+)\)")
INSN = re.compile(r"^\s+(\d+\.\d+) :\s+([0-9a-f]+):\s+(\S+)")


def perf_sections(path):
    """[(dso, event, nr, [(addr, pct, mnemonic)])] in file order."""
    out = []
    for line in open(path, encoding="utf-8", errors="replace"):
        m = HEAD.match(line)
        if m:
            out.append((m.group(1), m.group(2), int(m.group(3)), []))
            continue
        m = INSN.match(line)
        if m and out:
            out[-1][3].append((int(m.group(2), 16), float(m.group(1)),
                               m.group(3)))
    return out


def base(path):
    return path.rsplit("/", 1)[-1] if path else ""


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def cmp_perf(perf_path, json_path, subset=False):
    d = load(json_path)
    events = [e["name"] for e in d["events"]]
    fails = []
    nr_insns = 0
    worst = 0.0
    seen = set()
    for dso, event, nr, insns in perf_sections(perf_path):
        if event not in events:
            fails.append("event %s: not in pdtool's events %s" %
                         (event, events))
            continue
        ev = events.index(event)
        start = insns[0][0] if insns else None
        fn = [f for f in d["functions"]
              if base(f.get("dso")) == dso and int(f["start"], 16) == start]
        if subset and not fn:
            continue
        if len(fn) != 1:
            fails.append("%s %#x (%s): %d pdtool functions" %
                         (dso, start or 0, event, len(fn)))
            continue
        fn = fn[0]
        seen.add((fn["name"], fn.get("dso"), ev))
        if fn["counts"][ev]["samples"] != nr:
            fails.append("%s (%s): perf %d samples, pdtool %d" %
                         (fn["name"], event, nr,
                          fn["counts"][ev]["samples"]))
        ours = {int(i["addr"], 16): i for i in fn["instructions"]}
        for addr, pct, _ in insns:
            nr_insns += 1
            i = ours.get(addr)
            if i is None:
                fails.append("%s %#x: no such pdtool instruction" %
                             (fn["name"], addr))
                continue
            diff = abs(i["percent"][ev] - pct)
            worst = max(worst, diff)
            if diff > TOLERANCE:
                fails.append("%s %#x (%s): perf %.2f%%, pdtool %.2f%%" %
                             (fn["name"], addr, event, pct,
                              i["percent"][ev]))
    for f in d["functions"]:
        for ev, c in enumerate(f["counts"]):
            if c["samples"] and (f["name"], f.get("dso"), ev) not in seen:
                fails.append("%s (%s): pdtool only" % (f["name"],
                                                        events[ev]))
    print("perf: %d functions, %d instructions, largest difference "
          "%.3f points" % (len(seen), nr_insns, worst))
    return fails


OBJ = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)")

# (capstone, objdump) spellings of one instruction
SAME = {
    ("ret", "retq"), ("retq", "ret"), ("callq", "call"), ("jmpq", "jmp"),
    ("nop", "xchg"), ("movabsq", "movabs"),
    ("rep stosq", "rep"), ("rep stosb", "rep"), ("repz ret", "repz"),
    ("notrack jmpq", "notrack"), ("bnd jmp", "bnd"), ("lock cmpxchgl", "lock"),
    # aarch64: objdump prints the preferred alias "mov" for a wide
    # immediate move, capstone 4 the instruction
    ("movz", "mov"), ("movn", "mov"),
}
SUFFIX = re.compile(r"^(.*)[bwlq]$")


def same_mnemonic(ours, theirs):
    if ours == theirs or (ours, theirs) in SAME:
        return True
    m = SUFFIX.match(ours)
    if m and m.group(1) == theirs:
        return True          # AT&T size suffix objdump leaves out
    # prefixes: capstone joins them to the mnemonic ("rep stosq"),
    # objdump prints them as the mnemonic field's first word
    if " " in ours and ours.split()[0] == theirs:
        return True
    return False


def objdump_insns(path):
    out = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        m = OBJ.match(line)
        if m:
            out[int(m.group(1), 16)] = m.group(2)
    return out


def our_funcs(d, binary):
    return [f for f in d["functions"]
            if base(f.get("dso")) == binary and not f.get("error")]


def cmp_objdump(obj_path, binary, json_path):
    d = load(json_path)
    theirs = objdump_insns(obj_path)
    fails = []
    n = 0
    spelled = 0
    for f in our_funcs(d, binary):
        start, size = int(f["start"], 16), f["size"]
        want = sorted(a for a in theirs if start <= a < start + size)
        got = [int(i["addr"], 16) for i in f["instructions"]]
        if want != got:
            fails.append("%s: addresses differ: objdump %s, pdtool %s" %
                         (f["name"], [hex(a) for a in want],
                          [hex(a) for a in got]))
        for i in f["instructions"]:
            a = int(i["addr"], 16)
            if a not in theirs:
                continue
            n += 1
            if i["mnemonic"] != theirs[a]:
                spelled += 1
            if not same_mnemonic(i["mnemonic"], theirs[a]):
                fails.append("%s %#x: objdump '%s', pdtool '%s'" %
                             (f["name"], a, theirs[a], i["mnemonic"]))
    print("objdump %s: %d instructions, %d spelled otherwise by capstone"
          % (obj_path.rsplit("/", 1)[-1], n, spelled))
    return fails


OBJ_TEXT = re.compile(r"^\s+([0-9a-f]+):\t(\S+)\s*([^\t#]*?)\s*"
                      r"(?:#\s*([0-9a-f]+)(?:\s+[<\[](\S+)[>\]])?)?$")
OUR_PCREL = re.compile(r"^(.*?)\t# ([0-9a-f]+)$")


# objdump's mnemonics of the prefixed instructions pdtool decodes
PREFIXED = re.compile(r"^(p(l|st|addi|la$|li$|nop$)\w*|xxsplti(dp|w|32dx))$")


def cmp_prefixed(obj_path, binary, json_path):
    fails = []
    theirs = {}
    for line in open(obj_path, encoding="utf-8", errors="replace"):
        m = OBJ_TEXT.match(line.rstrip("\n"))
        if m:
            theirs[int(m.group(1), 16)] = m.groups()[1:]
    n = 0
    for f in our_funcs(load(json_path), binary):
        ours = {int(i["addr"], 16): i for i in f["instructions"]}
        start, size = int(f["start"], 16), f["size"]
        for a, t in theirs.items():
            if not start <= a < start + size or not PREFIXED.match(t[0]):
                continue
            if a not in ours or ours[a]["size"] != 8 or a + 4 in ours:
                fails.append("%s %#x: objdump's %s is no 8-byte instruction"
                             " of pdtool's" % (f["name"], a, t[0]))
        for i in f["instructions"]:
            a = int(i["addr"], 16)
            if i["size"] != 8:
                continue
            if a not in theirs:
                fails.append("%s %#x: no instruction of objdump's" %
                             (f["name"], a))
                continue
            n += 1
            mn, ops, addr, name = theirs[a]
            m = OUR_PCREL.match(i["operands"])
            ours = (i["mnemonic"],
                    (m.group(1) if m else i["operands"]).replace(", ", ","),
                    m.group(2) if m else None, i.get("target_name"))
            if ours != (mn, ops, addr, name):
                fails.append("%s %#x: objdump %s, pdtool %s" %
                             (f["name"], a, (mn, ops, addr, name), ours))
    print("prefixed %s: %d instructions" % (binary, n))
    if not n:
        fails.append("%s: no prefixed instruction" % binary)
    return fails


def cmp_addr2line(a2l_path, binary, json_path):
    d = load(json_path)
    lines = {}
    for line in open(a2l_path, encoding="utf-8", errors="replace"):
        addr, loc = line.rstrip("\n").split(" ", 1)
        lines[int(addr, 16)] = loc
    fails = []
    n = 0
    for f in our_funcs(d, binary):
        for i in f["instructions"]:
            a = int(i["addr"], 16)
            ours = "%s:%d" % (i["file"], i["line"]) if "file" in i \
                else "??:0"
            n += 1
            if lines.get(a) != ours:
                fails.append("%s %#x: eu-addr2line %s, pdtool %s" %
                             (f["name"], a, lines.get(a), ours))
    print("addr2line %s: %d instructions" % (binary, n))
    return fails


def main(argv):
    if len(argv) >= 4 and argv[1] in ("perf", "perf-subset"):
        fails = cmp_perf(argv[2], argv[3], argv[1] == "perf-subset")
    elif len(argv) >= 5 and argv[1] == "objdump":
        fails = cmp_objdump(argv[2], argv[3], argv[4])
    elif len(argv) >= 5 and argv[1] == "prefixed":
        fails = cmp_prefixed(argv[2], argv[3], argv[4])
    elif len(argv) >= 5 and argv[1] == "addr2line":
        fails = cmp_addr2line(argv[2], argv[3], argv[4])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for f in fails[:20]:
        print("  FAIL " + f)
    if len(fails) > 20:
        print("  ... %d more" % (len(fails) - 20))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
