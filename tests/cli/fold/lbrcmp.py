#!/usr/bin/env python3
"""lbrcmp.py: compare pdtool's folded stacks of an LBR call-stack capture
(perf record --call-graph lbr) with perf 6.1's and with perfparser's.

  lbrcmp.py perf PERF PD PD_ADDRS EMPTY MIN ELF...
  lbrcmp.py perfparser EXPECTED PD_ADDRS DUMP MIN ELF...

perf: PERF is perf's stackcollapse output, PD pdtool fold's and PD_ADDRS
pdtool fold --addrs's, same options otherwise; EMPTY is the number of the
capture's samples whose branch stack is empty.  Prints the share of perf's
weight pdtool has identically, then every stack that differs, paired where
the difference has one of the two known causes:

  plt    the frame is at an address in a .plt section of ELF that has no
         PLT entry of its own (a static executable's IFUNC .plt whose
         relocations name no symbol table): perf 6.1 names it after the
         symbol that precedes .plt, perf >= 6.3 and pdtool leave it
         unnamed ("[unknown]");
  empty  the sample's LBR call stack is empty: perf 6.1 still reads its
         entry 0, from past the end of the record, and names whatever
         address it finds there; pdtool puts the user-mode ip there.  It
         is the outermost frame, and at most EMPTY samples are so paired.

Exits 0 when what differs for no known cause is below 100 - MIN % of the
weight.

perfparser: EXPECTED is perfparser's *.expected.txt for the capture (the
text dump of its test client: per sample a "comm pid tid time" line, the
event's cost, then its frames, each a location line and a function line,
and for an inlined call one more such pair per inlining level), PD_ADDRS
is pdtool fold --no-comm --no-demangle --addrs and DUMP is pdtool dump.
Both are reduced to stacks of function start addresses: perfparser's
names are DWARF's and its choice among aliases is its own, so a frame is
keyed by the start of its outermost (not inlined) function as perfparser
gives it, and pdtool's by the address ELF's symbol table gives its name;
an address in a .plt section is keyed "plt" (see above: perfparser names
it as perf 6.1 does), an unnamed frame "?".  perfparser puts the sample's
own ip after the kernel frames, in front of the LBR entries (perf does
not): that frame is dropped where DUMP says the sample's ip is there.
Exits 0 when the share of identical stacks is >= MIN %.
"""
import re
import struct
import sys

PERF_CONTEXT_USER = 2**64 - 512
PERF_CONTEXT_MAX = 2**64 - 4095


def elf_info(path):
    """(.plt* ranges as [(lo, hi)], {symbol name: {start addresses}})"""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        sys.exit("lbrcmp.py: %s: not ELF" % path)
    is64, e = data[4] == 2, "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(e + "Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", data, 0x3A)
    else:
        shoff, = struct.unpack_from(e + "I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", data, 0x2E)
    shdrs = []
    for i in range(shnum):
        at = shoff + i * shentsize
        if is64:
            name, typ, _, addr, off, size, link, _, _, entsize = \
                struct.unpack_from(e + "IIQQQQIIQQ", data, at)
        else:
            name, typ, _, addr, off, size, link, _, _, entsize = \
                struct.unpack_from(e + "IIIIIIIIII", data, at)
        shdrs.append((name, typ, addr, off, size, link, entsize))

    def cstr(off):
        return data[off:data.index(b"\0", off)].decode("utf-8", "replace")

    strtab_off = shdrs[shstrndx][3]
    plts, syms = [], {}
    for name, typ, addr, off, size, link, entsize in shdrs:
        if cstr(strtab_off + name) in (".plt", ".plt.sec", ".plt.got"):
            plts.append((addr, addr + size))
        if typ != 2 or not entsize:  # SHT_SYMTAB
            continue
        names = shdrs[link][3]
        for at in range(off, off + size, entsize):
            if is64:
                nm, info, _, _, value, _ = struct.unpack_from(e + "IBBHQQ", data, at)
            else:
                nm, value, _, info, _, _ = struct.unpack_from(e + "IIIBBH", data, at)
            if nm and value and (info & 0xF) in (0, 2, 10):  # NOTYPE FUNC IFUNC
                syms.setdefault(cstr(names + nm), set()).add(value)
    return plts, syms


def load_folded(path):
    stacks = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            stack, _, count = line.rpartition(" ")
            stacks[stack] = stacks.get(stack, 0) + int(count)
    return stacks


def addr_frame(frame):
    """The address of an unnamed frame as --addrs writes it, or None."""
    dso, plus, off = frame.rpartition("+0x")
    if plus and dso:
        try:
            return int(off, 16)
        except ValueError:
            return None
    return None


def in_plt(addr, plts):
    return addr is not None and any(lo <= addr < hi for lo, hi in plts)


# ---- perf -------------------------------------------------------------


def cmp_perf(args):
    perf, pd, addrs = (load_folded(p) for p in args[:3])
    empty, need = int(args[3]), float(args[4])
    plts = []
    for path in args[5:]:
        plts += elf_info(path)[0]
    # the positions of .plt frames in each of pdtool's stacks
    pltpos = {}
    for stack in addrs:
        frames = stack.split(";")
        plain = []
        for fr in frames:
            is_addr = addr_frame(fr) is not None or fr.startswith("0x")
            plain.append("[unknown]" if is_addr else fr)
        pos = {i for i, fr in enumerate(frames) if in_plt(addr_frame(fr), plts)}
        key = ";".join(plain)
        pltpos[key] = pltpos.get(key, set()) | pos
    total = sum(perf.values())
    same = sum(min(w, pd.get(s, 0)) for s, w in perf.items())
    surplus_perf = {s: w - pd.get(s, 0) for s, w in perf.items() if w > pd.get(s, 0)}
    surplus_pd = {s: w - perf.get(s, 0) for s, w in pd.items() if w > perf.get(s, 0)}
    paired = []
    explained = {"plt": 0, "empty": 0}
    for cause in ("plt", "empty"):
        for p in sorted(surplus_perf):
            for q in sorted(surplus_pd):
                if not surplus_perf.get(p) or not surplus_pd.get(q):
                    continue
                pf, qf = p.split(";"), q.split(";")
                if len(pf) != len(qf):
                    continue
                diff = {i for i in range(len(pf)) if pf[i] != qf[i]}
                if cause == "plt":
                    ok = diff <= pltpos.get(q, set())
                    n = min(surplus_perf[p], surplus_pd[q])
                else:
                    ok = diff == {1}
                    n = min(surplus_perf[p], surplus_pd[q],
                            empty - explained["empty"])
                if not ok or n <= 0:
                    continue
                surplus_perf[p] -= n
                surplus_pd[q] -= n
                explained[cause] += n
                paired.append((cause, n, p, q))
    known = explained["plt"] + explained["empty"]
    unexplained = total - same - known
    pct = lambda n: 100.0 * n / total if total else 0.0
    print("%.2f%% of %d identical; %.2f%% differ for a known cause (plt %d, "
          "empty %d); %.2f%% for none" % (pct(same), total, pct(known),
                                          explained["plt"], explained["empty"],
                                          pct(unexplained)))
    for cause, n, p, q in paired:
        print("    %s %d:\n      perf   %s\n      pdtool %s" % (cause, n, p[:200], q[:200]))
    for s, w in sorted(surplus_perf.items()):
        if w:
            print("    none: perf %d more: %s" % (w, s[:200]))
    for s, w in sorted(surplus_pd.items()):
        if w:
            print("    none: pdtool %d more: %s" % (w, s[:200]))
    return pct(unexplained) <= 100.0 - need


# ---- perfparser -------------------------------------------------------


def parse_expected(path):
    """Each sample as ((pid, tid, time in ns), frames), frames leaf first,
    each (ip, outermost function start or None)."""
    samples, frames, lines, head = [], None, [], None

    def flush():
        if frames is None:
            return
        # lines come in pairs: (location, function); a location line with
        # a source file and a zero second address continues the inline
        # chain of the frame before it
        for i in range(0, len(lines) - 1, 2):
            loc, fn = lines[i], lines[i + 1]
            f = loc.split("\t")
            a, b = f[0].split(" ")[:2]
            cont = len(f) > 2 and b == "0" and ":" in f[1]
            g = fn.split("\t")
            start = None
            if len(g) >= 3 and g[-1].strip():
                start = int(g[-2].split(" ")[0], 16)
            if cont and frames:
                frames[-1] = (frames[-1][0], start)
            else:
                frames.append((int(a, 16), start))
        samples.append((head, frames))

    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        for raw in fh:
            line = raw.rstrip("\n")
            if line and not line.startswith("\t"):
                flush()
                frames, lines = [], []
                f = line.split("\t")
                sec, _, ns = f[3].partition(".")
                head = (int(f[1]), int(f[2]), int(sec) * 10**9 + int(ns))
            elif line.startswith("\t") and frames is not None:
                body = line[1:]
                if body.split(" ")[0].endswith(":"):
                    continue  # "cycles: N"
                lines.append(body)
    flush()
    return samples


def parse_dump(path):
    """{(pid, tid, time): (ip, kernel frames, branch stack entries)} of
    pdtool dump's SAMPLE lines."""
    out = {}
    with open(path) as fh:
        for line in fh:
            if " SAMPLE " not in line:
                continue
            fields = dict(re.findall(r"(\w+)=(\[[^]]*\]|\S+)", line))
            chain = [int(x, 16) for x in fields.get("callchain", "[]")[1:-1].split(",") if x]
            kernel = 0
            for v in chain:
                if v == PERF_CONTEXT_USER:
                    break
                kernel += v < PERF_CONTEXT_MAX
            m = re.search(r"branch_stack=\{nr=(\d+)", line)
            key = (int(fields["pid"]), int(fields["tid"]), int(fields["time"]))
            out[key] = (int(fields["ip"], 16), kernel, int(m.group(1)) if m else 0)
    return out


def cmp_perfparser(args):
    want_path, pd_path, dump_path, need = args[0], args[1], args[2], float(args[3])
    plts, syms = [], {}
    for path in args[4:]:
        p, s = elf_info(path)
        plts += p
        for k, v in s.items():
            syms.setdefault(k, set()).update(v)
    dump = parse_dump(dump_path)
    want, unmatched = {}, 0
    for head, frames in parse_expected(want_path):
        if head not in dump:
            unmatched += 1
        else:
            ip, kernel, _ = dump[head]
            if len(frames) > kernel and frames[kernel][0] == ip:
                del frames[kernel]
        keys = []
        for ip, start in frames:
            if in_plt(ip, plts):
                keys.append("plt")
            else:
                keys.append("%#x" % start if start is not None else "?")
        stack = ";".join(reversed(keys))
        want[stack] = want.get(stack, 0) + 1
    got = {}
    for stack, w in load_folded(pd_path).items():
        keys = []
        for fr in stack.split(";"):
            addr = addr_frame(fr)
            if in_plt(addr, plts):
                keys.append("plt")
            elif addr is not None or fr.startswith("0x") or fr == "[unknown]":
                keys.append("?")
            elif len(syms.get(fr, ())) == 1:
                keys.append("%#x" % next(iter(syms[fr])))
            else:
                keys.append(fr)  # not in the symbol table, or ambiguous
        key = ";".join(keys)
        got[key] = got.get(key, 0) + w
    total = sum(want.values())
    same = sum(min(w, got.get(s, 0)) for s, w in want.items())
    share = 100.0 * same / total if total else 0.0
    diffs = sorted((s, want.get(s, 0), got.get(s, 0))
                   for s in set(want) | set(got) if want.get(s, 0) != got.get(s, 0))
    print("%.2f%% of %d samples identical (%d stacks differ)" % (share, total, len(diffs)))
    if unmatched:
        print("    %d of perfparser's samples are not in the capture's dump" % unmatched)
    for s, a, b in diffs:
        print("    perfparser %d pdtool %d: %s" % (a, b, s[:200]))
    return share >= need and not unmatched


def main():
    if len(sys.argv) > 7 and sys.argv[1] == "perf":
        ok = cmp_perf(sys.argv[2:])
    elif len(sys.argv) > 6 and sys.argv[1] == "perfparser":
        ok = cmp_perfparser(sys.argv[2:])
    else:
        sys.exit(__doc__)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
