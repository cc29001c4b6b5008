#!/usr/bin/env python3
"""memcheck.py - pdtool mem's views against perf 6.1's memory-mode tables.

    memcheck.py PERF_REPORT KEY PDTOOL_JSON

PERF_REPORT is `perf report --mem-mode --stdio -n --sort KEY`
(tests/golden/mem/regen.sh); PDTOOL_JSON is `pdtool mem --format json`
of the same capture.  perf 6.1 keys its rows by one field of the
data_src (sort.c: sort__lvl_cmp compares mem_lvl alone, sort__snoop_cmp
mem_snoop, sort__tlb_cmp mem_dtlb, sort__locked_cmp mem_lock) and labels
a row by its first sample; pdtool keys by every bit of the level (lvl,
lvl_num, remote, hops) and of the snoop (snoop, snoopx).  So pdtool's
rows are merged by perf's field here, and perf's label must be one of
the merged rows' labels.  Functions (sym,dso) are one to one; data
objects (dso_daddr) merge pdtool's data-symbol rows by object.

Checked per perf row: its sample count and its share of the weight
(perf's Overhead, to its two decimals) equal the merged rows'; and
perf's total samples and weight equal pdtool's.  Prints one line per
difference ("KEY: ...") and exits 1 if there is any.
"""
import json
import os
import re
import sys


def perf_rows(path):
    """(samples, total weight, [(overhead, samples, [cells])])."""
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    total = weight = None
    spans = None
    rows = []
    for ln in lines:
        m = re.match(r"# Samples: (\d+)", ln)
        if m:
            total = int(m.group(1))
        m = re.match(r"# Total weight : (\d+)", ln)
        if m:
            weight = int(m.group(1))
        if ln.startswith("# ...."):
            spans = [(mm.start(), mm.end()) for mm in re.finditer(r"\.+", ln)]
            continue
        if ln.startswith("#") or not ln.strip() or spans is None:
            continue
        cells = []
        for i, (a, _) in enumerate(spans):
            end = spans[i + 1][0] if i + 1 < len(spans) else len(ln)
            cells.append(ln[a:end].strip())
        rows.append((cells[0].rstrip("%"), int(cells[1]), cells[2:]))
    return total, weight, rows


SHIFT = {"mem": (5, 0x3FFF), "snoop": (19, 0x1F), "tlb": (26, 0x7F),
         "locked": (24, 3)}
VIEW = {"mem": ("level", "level"), "snoop": ("snoop", "snoop"),
        "tlb": ("tlb", "tlb"), "locked": ("lock", "locked")}


def short(dso):
    """perf's short name of an object."""
    if dso is None:
        return "[unknown]"
    if dso.startswith("["):
        return dso
    return os.path.basename(dso)


def groups(doc, key):
    """{group key: [labels, samples, weight]} of pdtool's rows."""
    out = {}

    def add(g, label, r):
        e = out.setdefault(g, [set(), 0, 0])
        e[0].add(label)
        e[1] += r["samples"]
        e[2] += r["weight"]

    if key in SHIFT:
        view, col = VIEW[key]
        sh, mask = SHIFT[key]
        for r in doc[view]:
            add((int(r["data_src_bits"], 16) >> sh) & mask, r[col], r)
    elif key == "sym-dso":
        for r in doc["sym"]:
            label = (r["symbol"], short(r["object"]))
            add(label, label, r)
    elif key == "dso_daddr":
        for r in doc["dsym"]:
            label = short(r["data_object"]) if r["data_object"] != "[unknown]" \
                else "[unknown]"
            add(label, label, r)
    return out


def main():
    report, key, js = sys.argv[1:4]
    doc = json.load(open(js, encoding="utf-8"))
    total, weight, rows = perf_rows(report)
    bad = []
    if total != doc["samples"]:
        bad.append(f"samples: perf {total}, pdtool {doc['samples']}")
    if weight != doc["weight"]:
        bad.append(f"weight: perf {weight}, pdtool {doc['weight']}")
    g = groups(doc, key)
    used = set()
    for ovh, n, cells in rows:
        if key == "sym-dso":
            label = (re.sub(r"^\[.\] ", "", cells[0]), cells[1])
        else:
            label = cells[0]
        hit = [k for k, e in g.items() if label in e[0] and k not in used]
        if not hit:
            bad.append(f"perf row {label!r} ({n} samples, {ovh}%): "
                       "no pdtool row")
            continue
        e = g[hit[0]]
        used.add(hit[0])
        share = "%.2f" % (100.0 * e[2] / doc["weight"]) if doc["weight"] \
            else "0.00"
        if e[1] != n or share != ovh:
            bad.append(f"row {label!r}: perf {n} samples {ovh}%, pdtool "
                       f"{e[1]} samples {share}%")
    for k, e in g.items():
        if k not in used:
            bad.append(f"pdtool row {sorted(e[0])!r} ({e[1]} samples): "
                       "not in perf's table")
    for b in bad:
        print(f"{key}: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
