#!/usr/bin/env python3
"""cmplr.py PERF PDTOOL [MIN%]: compare the folded stacks of an arm64 -g capture,
allowing for perf's link-register leaf caller.

perf 6.1 on arm64 inserts the sampled LR as the caller of a leaf that has
not pushed a frame record; a frame-pointer walk alone misses that frame.
Each perf stack may therefore match the same pdtool stack or one with
exactly one frame fewer.  Frames are often alike ([unknown] several times
in a row), so the weights are matched as a bipartite flow (augmenting
paths), not greedily.  Prints the identical share (as cmpfold.py), the
share matched only one frame short, and the stacks that match neither
way; exits 0 when at least MIN% (default 100) of perf's weight matches one
way or the other.
"""
import sys
from collections import Counter


def load(path):
    c = Counter()
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                stack, _, n = line.rpartition(" ")
                c[tuple(stack.split(";"))] += int(n)
    return c


def match(perf, pd):
    """the flow: {(perf stack index, pdtool stack index): weight}, and the
    weight left unmatched on each side"""
    P, Q = list(perf), list(pd)
    qi = {s: i for i, s in enumerate(Q)}
    adj = []
    for s in P:
        cand = {s} | {s[:i] + s[i + 1:] for i in range(1, len(s))}
        adj.append(sorted(qi[t] for t in cand if t in qi))
    left_p = [perf[s] for s in P]
    left_q = [pd[s] for s in Q]
    into = [dict() for _ in Q]  # into[j][i]: flow from perf i to pdtool j
    while True:
        # breadth-first: perf i -> pdtool j (any edge), pdtool j -> perf i
        # back along a used edge, until a pdtool stack with room
        prev_i = {i: None for i in range(len(P)) if left_p[i]}
        prev_j = {}
        frontier, end = list(prev_i), None
        while frontier and end is None:
            nxt = []
            for i in frontier:
                for j in adj[i]:
                    if j in prev_j:
                        continue
                    prev_j[j] = i
                    if left_q[j]:
                        end = j
                        break
                    for i2, f in into[j].items():
                        if f and i2 not in prev_i:
                            prev_i[i2] = j
                            nxt.append(i2)
                if end is not None:
                    break
            frontier = nxt
        if end is None:
            break
        # the path, pdtool end back to a perf start, and its bottleneck
        path, j = [], end
        while True:
            i = prev_j[j]
            path.append((i, j))
            if prev_i[i] is None:
                break
            j = prev_i[i]
        w = min(left_q[end], left_p[path[-1][0]])
        for i, _ in path[:-1]:
            w = min(w, into[prev_i[i]][i])
        for i, j in path:
            into[j][i] = into[j].get(i, 0) + w
            if prev_i[i] is not None:
                into[prev_i[i]][i] -= w
        left_q[end] -= w
        left_p[path[-1][0]] -= w
    return (Counter({P[i]: w for i, w in enumerate(left_p) if w}),
            Counter({Q[j]: w for j, w in enumerate(left_q) if w}))


def main():
    perf, pd = load(sys.argv[1]), load(sys.argv[2])
    need = float(sys.argv[3]) if len(sys.argv) > 3 else 100.0
    total = sum(perf.values())
    same = sum(min(w, pd[s]) for s, w in perf.items())
    only_perf, only_pd = match(perf, pd)
    other = sum(only_perf.values())
    short = total - same - other
    pct = (lambda n: 100.0 * n / total) if total else (lambda n: 0.0)
    print("%.2f%% of %d identical, %.2f%% one frame short (perf's arm64 "
          "link-register leaf caller, missing in pdtool), %.2f%% neither" %
          (pct(same), total, pct(short), pct(other)))
    for s, w in only_perf.most_common(5):
        print("    perf only %d: %s" % (w, ";".join(s)))
    for s, w in only_pd.most_common(5):
        print("    pdtool only %d: %s" % (w, ";".join(s)))
    return 0 if 100.0 - pct(other) >= need else 1


if __name__ == "__main__":
    sys.exit(main())
