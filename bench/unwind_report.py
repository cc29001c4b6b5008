#!/usr/bin/env python3
"""unwind_report.py FILES ROWS CMP STATS PERF PDTOOL NCPU: the Markdown
report of bench/unwind.sh.

FILES and ROWS as bench/benchlib.py reads them (ROWS with its fifth
column, the median CPU microseconds); CMP, tests/cli/fold/cmpfold.py's
output on perf's stackcollapse lines and pdtool fold's (empty when perf
was not run); STATS, pdtool fold --stats' lines; PERF and PDTOOL, the two
folded files (PERF may be absent); NCPU, the CPUs pdtool fold used by
default.
"""
import collections
import os
import sys

from benchlib import read_files, short

FOLD = "pdtool fold"
ONE = "pdtool fold -j 1"


def folded(path):
    """A folded file as {stack: weight}."""
    out = collections.Counter()
    for line in open(path):
        if line.startswith("#") or " " not in line:
            continue
        stack, weight = line.rstrip("\n").rsplit(" ", 1)
        out[stack] += int(weight)
    return out


def share(a, b, key=lambda s: s):
    """The share of a's weight that b has for the same stack (after key)."""
    ka, kb = collections.Counter(), collections.Counter()
    for s, w in a.items():
        ka[key(s)] += w
    for s, w in b.items():
        kb[key(s)] += w
    total = sum(ka.values())
    return sum(min(w, kb.get(s, 0)) for s, w in ka.items()) / total


def no_root_unknown(stack):
    """stack without the [unknown] frames next to its root (the comm)."""
    frames = stack.split(";")
    i = 1
    while i < len(frames) and frames[i] == "[unknown]":
        i += 1
    return ";".join(frames[:1] + frames[i:])


def leaf_end(a, b, key=lambda s: s):
    """The share of a's weight whose stack (after key) is the leaf end of
    one of b's with the same root frame (the comm): where a's unwinder
    stopped earlier than b's.  Longer stacks of a take b's weight first."""
    ends = collections.defaultdict(list)
    left = collections.Counter()
    for s, w in b.items():
        frames = key(s).split(";")
        left[s] += w
        for i in range(1, len(frames)):
            ends[(frames[0], tuple(frames[i:]))].append(s)
    total = got = 0
    for s, w in sorted(a.items(), key=lambda x: -x[0].count(";")):
        frames = key(s).split(";")
        total += w
        need = w
        for t in ends.get((frames[0], tuple(frames[1:])), ()):
            take = min(need, left[t])
            left[t] -= take
            need -= take
            if not need:
                break
        got += w - need
    return got / total


def main():
    files_f, rows_f, cmp_f, stats_f, perf_f, pd_f, ncpu = sys.argv[1:8]
    files, order = read_files(files_f)
    path = order[0]
    samples = files[path]["samples"]
    rows = []
    for line in open(rows_f):
        cmd, _, us, kb, cpu = line.rstrip("\n").split("\t")[:5]
        rows.append((cmd, int(us) / 1e6, int(kb) / 1024, int(cpu) / 1e6))
    wall = {c: w for c, w, _, _ in rows}
    cpu = {c: u for c, _, _, u in rows}
    rss = {c: k for c, _, k, _ in rows}

    print(f"Capture: {short(path)}, {files[path]['size'] / 1e6:.1f} MB, "
          f"{samples} samples (each with an 8 KB stack dump).")
    print()
    print("| command | median wall s | CPU s | samples/s | peak RSS MB "
          "| wall / pdtool fold |")
    print("|---|---:|---:|---:|---:|---:|")
    for c, w, k, u in rows:
        sps = "" if c == "cat" else f"{samples / w:.0f}"
        print(f"| `{c}` | {w:.3f} | {u:.3f} | {sps} | {k:.1f} "
              f"| {w / wall[FOLD]:.1f} |")
    print()
    print("Targets (issue 4):")
    print()
    for c, want in (("perf script report stackcollapse", 10),
                    ("hotspot-perfparser", 3)):
        if c not in wall:
            continue
        r = wall[c] / wall[FOLD]
        print(f"- `{c}` takes {r:.1f}x pdtool fold's wall time (target "
              f">= {want}x: {'met' if r >= want else 'NOT met'}) and "
              f"{cpu[c] / cpu[FOLD]:.1f}x its CPU time.")
    others = [c for c in ("perf script report stackcollapse",
                          "hotspot-perfparser") if c in rss]
    if others:
        low = min(rss[c] for c in others)
        print(f"- Peak RSS: pdtool fold {rss[FOLD]:.1f} MB, the lowest of "
              f"the others {low:.1f} MB (target: below both: "
              f"{'met' if rss[FOLD] < low else 'NOT met'}).")
    if ONE in wall:
        print(f"- The other CPUs ({ncpu} in all): -j 1's wall time over "
              f"the default's: {wall[ONE] / wall[FOLD]:.2f} "
              f"({wall[ONE]:.3f} s against {wall[FOLD]:.3f} s), for "
              f"{cpu[FOLD] / cpu[ONE]:.2f}x the CPU time.")
    if os.path.exists(perf_f) and os.path.getsize(perf_f):
        perf, pd = folded(perf_f), folded(pd_f)
        print()
        print("Agreement with `perf script report stackcollapse` by weight "
              "(the share of perf's samples pdtool folds into the same "
              "stack):")
        print()
        first = open(cmp_f).readline().strip() if cmp_f else ""
        print(f"- identical: {100 * share(perf, pd):.2f}% ({first})")
        print(f"- identical once the [unknown] frames at the root end are "
              f"set aside: {100 * share(perf, pd, no_root_unknown):.2f}%")
        print(f"- perf's stack is the leaf end of pdtool's (perf's unwinding "
              f"stopped earlier, or equal): "
              f"{100 * leaf_end(perf, pd):.2f}%; with the [unknown] frames "
              f"at perf's root end set aside: "
              f"{100 * leaf_end(perf, pd, no_root_unknown):.2f}%")
    print()
    print("pdtool fold --stats:")
    print()
    print("```")
    sys.stdout.write(open(stats_f).read())
    print("```")


if __name__ == "__main__":
    main()
