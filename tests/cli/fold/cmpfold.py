#!/usr/bin/env python3
"""cmpfold.py PERF PDTOOL [MIN%] [--names] [--aliases BINARY]...
[--all]: compare two folded-stack files.

Lines starting with '#' in PERF are notes.  Prints the share of perf's
sample weight whose folded stack pdtool has with the same weight (for each
stack, min(perf, pdtool) counts as identical), and the stacks that differ,
heaviest first (all of them with --all, else 8).  Exits 0 when the share
is >= MIN% (default 100: the files are equal after sorting, judged
disagreements aside), else 1.

--suffix: a perf stack agrees where it is the leaf end of one of
pdtool's, for captures perf could unwind no further than the leaf.

--judged FILE names disagreements that were looked at: "SIDE<TAB>REGEX
<TAB>WHY" lines, SIDE "oracle" (the first file has weight the second lacks)
or "pdtool"; a differing stack REGEX matches (after --names and --no-comm)
is printed with WHY, and the oracle's weight it explains counts as agreed.

For another tool's stacks (perfparser's), whose names differ from perf's
in form only: --names compares each frame by its function's bare name (no
return type, scope, template arguments or parameters: "double
std::accumulate<...>(...)" and "std::accumulate<...>" are "accumulate"),
and --aliases BINARY also takes the names of functions at one address in
BINARY's .symtab as one ("hypot" and "__hypot").  --no-comm leaves the
root frame (the comm) out: perfparser names a sample by its process's
comm, perf by its thread's at the time.

A judgment of SIDE "oracle-end" is checked, not taken on trust: the
weight the oracle has beyond pdtool's on stacks REGEX matches counts as
agreed only as far as each such stack is the leaf end of a stack that
pdtool has beyond the oracle (the oracle stopped unwinding early, and
pdtool's frames past that point are the only difference).

--simpleperf: the first file is simpleperf's stackcollapse.py output,
whose names differ from perf's (which pdtool follows) in form only:
simpleperf demangles C++ with parameter lists ("__pthread_start(void*)"),
perf without ("__pthread_start"); it names a frame without a symbol
"unknown" ("unknown_[k]" in the kernel), perf "[unknown]"; with
--addrs, simpleperf writes "dso[+hex]", pdtool "dso+0xhex"; its --jit puts "_[j]" after JIT frames,
which pdtool marks for --from-script input only.  Each of its frames is
taken in perf's form (no trailing parameter list, no "_[j]", perf's
unknown and address forms) before comparing.

--subseq: an oracle stack agrees with a pdtool stack of the same root
that holds all its frames in order, others between them allowed: for a
tool whose report hides frames pdtool shows (simpleperf's hides the ART
interpreter's frames next to Java ones and folds a JIT frame into the
interpreted one of the same method).  Each pdtool stack's weight is
taken once.
"""
import re
import subprocess
import sys

_OPEN = {"(": ")", "<": ">", "{": "}", "[": "]"}
_OPERATORS = sorted(
    "() [] <=> <<= >>= ->* -> << >> <= >= == != && || ++ -- += -= *= /= "
    "%= &= |= ^= < > = ! ~ + - * / % & | ^ ,".split(), key=len, reverse=True)


def bare(name):
    """A demangled function name without its decorations."""
    if name.startswith("[") and name.endswith("]"):
        return name
    out, depth, stack = [], 0, []
    i = 0
    while i < len(name):
        c = name[i]
        # "operator<" and friends: the bracket is the name
        if name.startswith("operator", i):
            j = i + len("operator")
            for op in _OPERATORS:
                if name.startswith(op, j):
                    j += len(op)
                    break
            if depth == 0:
                out.append(name[i:j])
            i = j
            continue
        if c in _OPEN:
            stack.append(_OPEN[c])
            depth += 1
        elif stack and c == stack[-1]:
            stack.pop()
            depth -= 1
        elif depth == 0:
            out.append(c)
        i += 1
    text = "".join(out).strip()
    while text.endswith((" const", " volatile", "&")):
        text = text.rstrip("&").rsplit(" ", 1)[0] if not text.endswith(
            "&") else text.rstrip("&").rstrip()
    text = text.split(" ")[-1] if " " in text else text
    parts = [p for p in text.split("::") if p]
    return parts[-1] if parts else text


def simpleperf_frame(f):
    """A simpleperf frame in perf's form (see --simpleperf)."""
    if f.endswith("_[j]"):
        f = f[:-4]
    if f in ("unknown", "unknown_[k]"):
        return "[unknown]" + f[7:]
    m = re.fullmatch(r"(.+)\[\+([0-9a-f]+)\]", f)
    if m:
        return "%s+0x%s" % (m.group(1), m.group(2))
    if f.endswith(")") and not f.startswith("["):
        depth = 0
        for i in range(len(f) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(f[i], 0)
            if depth == 0:
                # "operator()(int)": the last group is the parameters
                return f[:i] if i else f
    return f


def simpleperf_form(stacks):
    out = {}
    for stack, w in stacks.items():
        frames = stack.split(";")
        key = ";".join(frames[:1] + [simpleperf_frame(f) for f in frames[1:]])
        out[key] = out.get(key, 0) + w
    return out


def alias_map(binaries):
    """name -> one name for every function at its address."""
    groups = {}
    for path in binaries:
        out = subprocess.run(["readelf", "-sW", path], capture_output=True,
                             text=True, errors="replace").stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) < 8 or f[3] != "FUNC" or f[6] == "UND":
                continue
            groups.setdefault((path, f[1]), set()).add(
                f[7].split("@")[0])
    canon = {}
    for names in groups.values():
        first = min(names)
        for n in names:
            canon.setdefault(n, first)
    return canon


def normalize(stacks, aliases, comm=True):
    out = {}
    for stack, w in stacks.items():
        frames = stack.split(";")
        names = [frames[0] if comm else ""]
        for f in frames[1:]:
            b = bare(f) if aliases is not None else f
            names.append(aliases.get(b, b) if aliases else b)
        key = ";".join(names)
        out[key] = out.get(key, 0) + w
    return out


def load(path):
    stacks = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            stack, _, count = line.rpartition(" ")
            stacks[stack] = stacks.get(stack, 0) + int(count)
    return stacks


def load_judged(path):
    """side<TAB>regex<TAB>why lines: differing stacks judged."""
    judged = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            side, regex, why = line.split("\t", 2)
            judged.append((side, re.compile(regex), why))
    return judged


def suffix_share(perf, pd):
    """The weight of perf's stacks that end pdtool's: a perf that kept only
    the leaf end of a stack agrees with a pdtool that unwound more."""
    left = dict(perf)
    agreed = 0
    by_len = sorted(perf, key=lambda s: -s.count(";"))
    for stack, w in sorted(pd.items()):
        frames = stack.split(";")
        for p in by_len:
            pf = p.split(";")
            if not left[p] or pf[0] != frames[0] or len(pf) > len(frames):
                continue
            if frames[len(frames) - len(pf) + 1:] == pf[1:] or len(pf) == 1:
                take = min(w, left[p])
                left[p] -= take
                agreed += take
                w -= take
                if not w:
                    break
    return agreed, left


def is_subseq(short, long):
    it = iter(long)
    return all(f in it for f in short)


def subseq_share(perf, pd):
    """The weight of perf's stacks found in order within pdtool's."""
    left, pd = dict(perf), dict(pd)
    agreed = 0

    def holds(p, stack):
        pf, frames = p.split(";"), stack.split(";")
        return pf[0] == frames[0] and is_subseq(pf[1:], frames[1:])

    # a stack of the same weight first: weights pair samples best
    for stack, w in sorted(pd.items()):
        for p in sorted(perf):
            if left[p] == w and holds(p, stack):
                left[p] = pd[stack] = 0
                agreed += w
                break
    for stack, w in sorted(pd.items(), key=lambda x: (-x[1], x[0])):
        for p in sorted(perf, key=lambda s: (-s.count(";"), s)):
            if not w:
                break
            if left[p] and holds(p, stack):
                take = min(w, left[p])
                left[p] -= take
                agreed += take
                w -= take
                if not w:
                    break
    return agreed, left


def ends_explained(perf, pd, judged):
    """For the "oracle-end" judgments: {stack: (weight, why)} of the
    oracle's excess weight that is the leaf end of pdtool's excess weight,
    and of the pdtool excess weight it was matched with."""
    rules = [(r, t) for side, r, t in judged if side == "oracle-end"]
    if not rules:
        return {}
    over_o = {s: w - pd.get(s, 0) for s, w in perf.items()
              if w > pd.get(s, 0)}
    over_p = {s: w - perf.get(s, 0) for s, w in pd.items()
              if w > perf.get(s, 0)}
    # pdtool's stacks by comm and by (comm, leaf): the candidates of a
    # leaf end, so each oracle stack is not checked against all of them
    by_comm, by_leaf = {}, {}
    for p in over_p:
        pf = p.split(";")
        by_comm.setdefault(pf[0], []).append(p)
        by_leaf.setdefault((pf[0], pf[-1]), []).append(p)
    out = {}
    for s in sorted(over_o, key=lambda x: (-x.count(";"), x)):
        text = next((t for r, t in rules if r.search(s)), None)
        if text is None:
            continue
        sf = s.split(";")
        cands = by_comm.get(sf[0], []) if len(sf) == 1 else \
            by_leaf.get((sf[0], sf[-1]), [])
        for p in sorted(cands, key=lambda x: (-over_p[x], x)):
            if not over_o[s]:
                break
            pf = p.split(";")
            if not over_p[p] or len(pf) <= len(sf) or \
                    pf[len(pf) - len(sf) + 1:] != sf[1:]:
                continue
            take = min(over_o[s], over_p[p])
            over_o[s] -= take
            over_p[p] -= take
            for k in (s, p):
                w, _ = out.get(k, (0, text))
                out[k] = (w + take, text)
    return out


def main():
    args, aliases, names, show, comm = [], [], False, 8, True
    suffix = simpleperf = subseq = False
    judged = []
    argv = sys.argv[1:]
    while argv:
        a = argv.pop(0)
        if a == "--names":
            names = True
        elif a == "--aliases":
            aliases.append(argv.pop(0))
            names = True
        elif a == "--all":
            show = None
        elif a == "--no-comm":
            comm = False
        elif a == "--judged":
            judged = load_judged(argv.pop(0))
        elif a == "--suffix":
            suffix = True
        elif a == "--subseq":
            subseq = True
        elif a == "--simpleperf":
            simpleperf = True
        else:
            args.append(a)
    perf, pd = load(args[0]), load(args[1])
    if simpleperf:
        perf = simpleperf_form(perf)
    need = float(args[2]) if len(args) > 2 else 100.0
    if names or not comm:
        canon = alias_map(aliases) if names else None
        perf = normalize(perf, canon, comm)
        pd = normalize(pd, canon, comm)
    total = sum(perf.values())
    if suffix or subseq:
        same, left = (suffix_share if suffix else subseq_share)(perf, pd)
        share = 100.0 * same / total if total else 100.0
        print("%.2f%% of %d %s pdtool's stacks (%d stacks do not)" % (
            share, total, "end" if suffix else "are in order in",
            sum(1 for w in left.values() if w)))
        for s, w in sorted(left.items(), key=lambda x: (-x[1], x[0])):
            if w:
                print("    perf %d: %s" % (w, s[:160]))
        sys.exit(0 if share >= need else 1)
    same = sum(min(w, pd.get(s, 0)) for s, w in perf.items())
    ends = ends_explained(perf, pd, judged)
    diffs = []
    for s in set(perf) | set(pd):
        a, b = perf.get(s, 0), pd.get(s, 0)
        if a != b:
            why = None
            side = "oracle" if a > b else "pdtool"
            for jside, regex, text in judged:
                if jside == side and regex.search(s):
                    why = text
                    break
            d = max(a, b) - min(a, b)
            if why is None and s in ends:
                # verified: only the weight matched as a leaf end
                w, text = ends[s]
                if side == "pdtool":
                    text = "(extends the oracle's stack) " + text
                diffs.append((w, s, a, b, text))
                d -= w
                if not d:
                    continue
            diffs.append((d, s, a, b, why))
    diffs.sort(key=lambda d: (-d[0], d[1]))
    explained = sum(d[0] for d in diffs if d[4] and d[2] > d[3])
    share = 100.0 * same / total if total else (100.0 if not pd else 0.0)
    line = "%.2f%% of %d identical (%d stacks differ)" % (share, total,
                                                         len(diffs))
    if judged:
        share = 100.0 * (same + explained) / total if total else share
        line += "; %.2f%% with the judged ones" % share
    print(line)
    unjudged = [d for d in diffs if not d[4]]
    for _, s, a, b, why in diffs[:show]:
        print("    %s %d pdtool %d: %s" % (
            "oracle" if judged else "perf", a, b,
            s if show is None else s[:160]))
        if why:
            print("        judged: " + why)
    ok = share >= need if need < 100.0 else not unjudged
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
