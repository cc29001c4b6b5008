#!/usr/bin/env python3
"""diffcheck.py - compare pdtool with perf 6.1 and with the corpus.

    diffcheck.py goldens GOLDEN_DIR NAME=CAPTURE...
    diffcheck.py expected CORPUS_DIR TMP_DIR

expected: check every capture MANIFEST.md lists against the corpus's own
expectations (see expected() and tests/cli/diff/expected.test).

goldens:
For each NAME, GOLDEN_DIR/NAME.stats and NAME.samples[.zst] (written by
tests/golden/perf/regen.sh) hold what perf 6.1 reads in CAPTURE; this
checks that

  - `pdtool info --json` record_counts equal perf report --stats' counts
    by type (perf prints its own records by short names: ATTR is
    HEADER_ATTR, FEATURE is HEADER_FEATURE, ...);
  - `pdtool dump --json` has the same samples in the same (file) order,
    each with the same pid, tid, time, cpu, period, ip and callchain length
    ("-" in the golden: the sample's event does not sample that field, so
    pdtool must not print it; "?": perf does not tell, not compared).

Where perf stopped early ("# partial" in the golden), pdtool must count at
least what perf counted and its samples must begin with the ones perf
read.  A
directory capture (perf record --threads) has no one file order: perf
reads its files interleaved, so when the order differs the samples are
compared as multisets and the test says so.

Prints one line per capture and the totals; for each failing capture the
first differences.  Exit status 0 when everything agrees, 1 otherwise.
"""
import gzip
import json
import os
import re
import subprocess
import sys

COLUMNS = ["pid", "tid", "time", "cpu", "period", "ip", "nr"]
# perf_event__name() vs the kernel's PERF_RECORD_* names
PERF_ALIASES = {"ATTR": "HEADER_ATTR", "EVENT_TYPE": "HEADER_EVENT_TYPE",
                "TRACING_DATA": "HEADER_TRACING_DATA",
                "BUILD_ID": "HEADER_BUILD_ID", "FEATURE": "HEADER_FEATURE"}
MAX_SHOWN = 8


def pdtool():
    path = os.environ.get("PDTOOL")
    if not path:
        sys.exit("diffcheck: set PDTOOL to the pdtool binary")
    return path


def run_pdtool(args):
    """(exit status, stdout, stderr) of pdtool ARGS."""
    try:
        p = subprocess.run([pdtool()] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    except OSError as e:
        return 127, "", "cannot run %s: %s" % (pdtool(), e)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def read_text(path):
    """A golden file's text; PATH.zst is read through zstd."""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return f.read()
    if os.path.exists(path + ".zst"):
        p = subprocess.run(["zstd", "-q", "-d", "-c", path + ".zst"],
                           stdout=subprocess.PIPE, check=True)
        return p.stdout.decode("utf-8")
    return None


def perf_stats(text):
    """({type: count}, partial reason or None) from a NAME.stats golden."""
    counts, partial = {}, None
    for line in text.splitlines():
        if line.startswith("# partial:"):
            partial = line[len("# partial:"):].strip()
            continue
        if not line or line.startswith("#"):
            continue
        name, count = line.split()
        counts[PERF_ALIASES.get(name, name)] = int(count)
    return counts, partial


def golden_samples(text):
    """([row], partial reason or None); row: tuple of str|int per column."""
    rows, partial = [], None
    for line in text.splitlines():
        if line.startswith("# partial:"):
            partial = line[len("# partial:"):].strip()
            continue
        if not line or line.startswith("#"):
            continue
        vals = line.split()
        if len(vals) != len(COLUMNS):
            raise ValueError("bad golden line: " + line)
        rows.append(tuple(v if v in ("-", "?") else int(v, 0) for v in vals))
    return rows, partial


def pd_row(rec):
    """The golden columns of one `pdtool dump --json` SAMPLE."""
    row = []
    for col in COLUMNS:
        if col == "nr":
            cc = rec.get("callchain")
            row.append(len(cc) if isinstance(cc, list) else "-")
            continue
        v = rec.get(col)
        if v is None:
            row.append("-")
        elif col in ("pid", "tid", "cpu") and isinstance(v, int):
            row.append(v & 0xffffffff)      # u32 in the file
        else:
            row.append(v)
    return tuple(row)


def pd_samples(path):
    """([row], [offset], error or None) of pdtool dump --json PATH."""
    rc, out, err = run_pdtool(["dump", "--json", path])
    if rc != 0:
        return None, None, "pdtool dump exited %d: %s" % (
            rc, err.strip().splitlines()[-1] if err.strip() else "")
    rows, offsets = [], []
    for n, line in enumerate(out.splitlines(), 1):
        try:
            rec = json.loads(line)
        except ValueError as e:
            return None, None, "pdtool dump line %d is not JSON: %s" % (n, e)
        if rec.get("type") == "SAMPLE":
            rows.append(pd_row(rec))
            offsets.append(rec.get("offset"))
    return rows, offsets, None


def pd_info(path):
    """(info object, error or None) of pdtool info --json PATH."""
    rc, out, err = run_pdtool(["info", "--json", path])
    if rc != 0:
        return None, "pdtool info exited %d: %s" % (
            rc, err.strip().splitlines()[-1] if err.strip() else "")
    try:
        return json.loads(out), None
    except ValueError as e:
        return None, "pdtool info --json is not JSON: %s" % e


def fmt(row):
    return " ".join(("0x%x" % v) if (c == "ip" and isinstance(v, int))
                    else str(v) for c, v in zip(COLUMNS, row))


def row_matches(gold, mine):
    return all(g == "?" or g == m for g, m in zip(gold, mine))


def compare_counts(golden_dir, name, info, problems):
    text = read_text(os.path.join(golden_dir, name + ".stats"))
    if text is None:
        problems.append("no golden %s.stats: run tests/golden/perf/regen.sh"
                        % name)
        return None
    want, partial = perf_stats(text)
    have = {k: v for k, v in (info.get("record_counts") or {}).items() if v}
    if partial:
        # perf counted only what it read before stopping
        for k in sorted(want):
            if have.get(k, 0) < want[k]:
                problems.append("record_counts[%s]: pdtool %d, fewer than "
                                "the %d perf counted before stopping"
                                % (k, have.get(k, 0), want[k]))
        return "counts compared up to where perf stopped (%s)" % partial
    if have != want:
        for k in sorted(set(want) | set(have)):
            if want.get(k, 0) != have.get(k, 0):
                problems.append("record_counts[%s]: perf %d, pdtool %d"
                                % (k, want.get(k, 0), have.get(k, 0)))
    return "%d record types" % len(want)


def compare_samples(golden_dir, name, path, is_dir, problems):
    text = read_text(os.path.join(golden_dir, name + ".samples"))
    if text is None:
        problems.append("no golden %s.samples: run tests/golden/perf/regen.sh"
                        % name)
        return 0, None
    gold, partial = golden_samples(text)
    mine, offsets, err = pd_samples(path)
    if err:
        problems.append(err)
        return 0, None
    note = None
    if partial:
        note = "perf stopped after %d samples (%s); pdtool read %d" % (
            len(gold), partial, len(mine))
        if len(mine) < len(gold):
            problems.append("pdtool has %d samples, perf read %d before "
                            "stopping" % (len(mine), len(gold)))
        mine_cmp = mine[:len(gold)]
    else:
        if len(mine) != len(gold):
            problems.append("samples: perf %d, pdtool %d"
                            % (len(gold), len(mine)))
        mine_cmp = mine
    bad = [i for i, (g, m) in enumerate(zip(gold, mine_cmp))
           if not row_matches(g, m)]
    if bad and is_dir and not partial:
        # perf interleaves a directory's files; compare as multisets
        if sorted(map(str, gold)) == sorted(map(str, mine_cmp)):
            return len(gold), "same samples in another order " \
                "(directory capture: compared as a multiset)"
    for i in bad[:MAX_SHOWN]:
        problems.append("sample #%d (pdtool offset %s):\n"
                        "        perf:   %s\n        pdtool: %s"
                        % (i + 1, offsets[i], fmt(gold[i]), fmt(mine_cmp[i])))
    if len(bad) > MAX_SHOWN:
        problems.append("... %d samples differ in all" % len(bad))
    return min(len(gold), len(mine_cmp)), note


def v1_refused(path, err):
    """Issue 2 asks for a clear error, not a read, on the v1 'PERFFILE'
    magic (perf before 2.6.37), which perf 6.1 still reads."""
    if not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        magic = f.read(8)
    return magic == b"PERFFILE" and "exited 2" in err and "PERFFILE" in err


def goldens(golden_dir, pairs):
    failed = []
    nr_captures = nr_samples = 0
    for pair in pairs:
        name, path = pair.split("=", 1)
        problems, notes = [], []
        info, err = pd_info(path)
        if err and v1_refused(path, err):
            nr_captures += 1
            print("ok %s: refused as issue 2 asks for the v1 'PERFFILE' "
                  "magic, though perf 6.1 reads it: %s" % (name, err))
            continue
        if err:
            problems.append(err)
        else:
            note = compare_counts(golden_dir, name, info, problems)
            if note:
                notes.append(note)
        n, note = compare_samples(golden_dir, name, path,
                                  os.path.isdir(path), problems)
        if note:
            notes.append(note)
        nr_captures += 1
        nr_samples += n
        print("%s %s: %d samples%s" % ("FAIL" if problems else "ok", name, n,
              "".join("; " + x for x in notes)))
        if problems:
            failed.append((name, problems))
    for name, problems in failed:
        print("\n%s (%s):" % (name, dict(p.split("=", 1) for p in pairs)[name]))
        for p in problems[:MAX_SHOWN * 2]:
            print("    " + p)
    print("\ncompared %d captures, %d samples with perf 6.1's goldens: "
          "%d agree, %d differ" % (nr_captures, nr_samples,
                                   nr_captures - len(failed), len(failed)))
    return 1 if failed else 0


# ---- the corpus's own expectations --------------------------------------

# sample_type bits MANIFEST.md's "features" column names; "basic" means
# none of them
NOTABLE_BITS = {"CALLCHAIN", "REGS_USER", "STACK_USER", "DATA_SRC", "ADDR",
                "READ", "RAW", "BRANCH_STACK", "WEIGHT", "WEIGHT_STRUCT",
                "REGS_INTR", "TRANSACTION", "PHYS_ADDR", "AUX", "CGROUP",
                "DATA_PAGE_SIZE", "CODE_PAGE_SIZE"}


def manifest_rows(corpus):
    """{path: {column: text}} of MANIFEST.md's capture tables."""
    rows = {}
    for line in open(os.path.join(corpus, "MANIFEST.md"), encoding="utf-8"):
        if not line.startswith("| `"):
            continue
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cols) < 12:
            continue
        rows[cols[0].strip("`")] = {
            "contents": cols[4], "arch": cols[5], "version": cols[6],
            "endian": cols[7], "mode": cols[8], "events": cols[9],
            "features": cols[10], "verdict": cols[11]}
    return rows


def manifest_facts(row, info, problems):
    """Check pdtool info against one MANIFEST row; returns what it checked."""
    checked = []
    feats = row["features"]
    samples = info.get("samples")
    m = re.search(r"samples: (\d+)", feats)
    if m:
        want = int(m.group(1))
        if "zstd" in row["mode"] and want > samples:
            # MANIFEST counts only the samples outside compressed chunks
            problems.append("MANIFEST: at least %d samples, pdtool %s"
                            % (want, samples))
        elif "zstd" not in row["mode"] and want != samples:
            problems.append("MANIFEST: %d samples, pdtool %s"
                            % (want, samples))
        checked.append("samples")
    counts = info.get("record_counts") or {}
    m = re.search(r"records: ([A-Z0-9_, ]+?)(?:;|$)", feats)
    if m:
        for rec in m.group(1).split(","):
            rec = rec.strip()
            alias = {v: k for k, v in PERF_ALIASES.items()}.get(rec)
            if not counts.get(rec) and not (alias and counts.get(alias)):
                problems.append("MANIFEST lists %s records, pdtool counts "
                                "none" % rec)
        checked.append("record types")
    union = set()
    for ev in info.get("events") or []:
        union |= set(ev.get("sample_type") or [])
    listed = set(re.findall(r"\b([A-Z][A-Z_]+)(?:\(bst=0x[0-9a-f]+\))?",
                            feats.split(";")[0]))
    if feats.startswith("basic"):
        if union & NOTABLE_BITS:
            problems.append("MANIFEST: basic sample types, pdtool has %s"
                            % sorted(union & NOTABLE_BITS))
        checked.append("sample types")
    elif listed:
        if listed - union:
            problems.append("MANIFEST: sample types %s, pdtool lacks %s"
                            % (sorted(listed), sorted(listed - union)))
        checked.append("sample types")
    # MANIFEST names some events, "a, b (+2)" abbreviating the rest
    names = [e.strip() for e in row["events"].split(",") if e.strip()]
    if names:
        mine = [e.get("name") for e in info.get("events") or []]
        m = re.match(r"(.*) \(\+(\d+)\)$", names[-1])
        if m:
            names[-1] = m.group(1)
            if len(mine) != len(names) + int(m.group(2)):
                problems.append("MANIFEST: %d events, pdtool %d" % (
                    len(names) + int(m.group(2)), len(mine)))
        missing = [n for n in names if n not in mine]
        if missing:
            problems.append("MANIFEST: events %s, pdtool %s lacks %s"
                            % (names, mine, missing))
        checked.append("events")
    arch = row["arch"]
    if arch and not re.search(r"inferred|unknown|\?", arch):
        if info.get("arch") != arch:
            problems.append("MANIFEST: arch %s, pdtool %s"
                            % (arch, info.get("arch")))
        checked.append("arch")
    m = re.match(r"([0-9][^ ]*)", row["version"])
    if m:
        if info.get("perf_version") != m.group(1):
            problems.append("MANIFEST: perf %s, pdtool %s"
                            % (m.group(1), info.get("perf_version")))
        checked.append("version")
    m = re.search(r"\(kernel ([^)]+)\)", row["version"])
    if m:
        if info.get("os_release") != m.group(1):
            problems.append("MANIFEST: kernel %s, pdtool %s"
                            % (m.group(1), info.get("os_release")))
        checked.append("kernel")
    if row["endian"] in ("little", "big"):
        if info.get("byte_order") != row["endian"]:
            problems.append("MANIFEST: %s-endian, pdtool %s"
                            % (row["endian"], info.get("byte_order")))
        checked.append("byte order")
    m = re.search(r"cmdline: `([^`]+)`", row["contents"])
    if m:
        want = m.group(1)
        mine = " ".join(info.get("cmdline") or [])
        ok = (mine.startswith(want[:-3]) if want.endswith("...")
              else mine == want)
        if not ok:
            problems.append("MANIFEST: cmdline %r, pdtool %r" % (want, mine))
        checked.append("cmdline")
    return checked


def pd_sample_records(path):
    """[SAMPLE record] of pdtool dump --json PATH, or raise RuntimeError."""
    rc, out, err = run_pdtool(["dump", "--json", path])
    if rc != 0:
        raise RuntimeError("pdtool dump exited %d: %s" % (rc, err.strip()))
    return [r for r in map(json.loads, out.splitlines())
            if r.get("type") == "SAMPLE"]


def perfparser_expected(capture, expected, problems):
    """perfparser's *.expected.txt: one block per sample whose first line
    is "comm<TAB>pid<TAB>tid<TAB>seconds.nanoseconds" and second
    "<TAB>event: period" ("<TAB>event: system name N" for a tracepoint:
    no period).  perfparser sorts by time; compared as a multiset of
    (time, pid, tid, event, period), a sample without PERIOD having its
    event's fixed sample_period, as perfparser shows it."""
    want = []
    lines = open(expected, encoding="utf-8", errors="replace").read()
    lines = lines.splitlines()
    for i, line in enumerate(lines):
        f = line.split("\t")
        if line.startswith("\t") or len(f) != 4:
            continue
        sec, ns = f[3].split(".")
        m = re.match(r"^\t(.+?): (?:(\d+)|.* \d+)$", lines[i + 1])
        if not m:
            problems.append("%s:%d: no event line" % (expected, i + 2))
            return 0
        want.append((int(sec) * 10**9 + int(ns), int(f[1]), int(f[2]),
                     m.group(1), int(m.group(2)) if m.group(2) else None))
    info, err = pd_info(capture)
    if err:
        problems.append(err)
        return 0
    fixed = {e.get("name"): e.get("sample_period")
             for e in info.get("events") or []}
    no_period = {w[3] for w in want if w[4] is None}
    mine = [(r.get("time"), r.get("pid"), r.get("tid"), r.get("event"),
             None if r.get("event") in no_period else
             r.get("period", fixed.get(r.get("event"))))
            for r in pd_sample_records(capture)]
    if sorted(want) != sorted(mine):
        problems.append("%s: %d samples, pdtool %d; first differences:"
                        % (os.path.basename(expected), len(want), len(mine)))
        only_w = sorted(set(want) - set(mine))[:MAX_SHOWN]
        only_m = sorted(set(mine) - set(want))[:MAX_SHOWN]
        problems.extend("    perfparser only: %s" % (x,) for x in only_w)
        problems.extend("    pdtool only:     %s" % (x,) for x in only_m)
    return len(want)


def lpfr_expected(capture, expected, problems):
    """linux-perf-file-reader's dump.stdout: "Sample: ip: HEX pid: P tid: T
    time: N period: Q" per sample in file order, and "Comm:", "Exit:",
    "Mmap:", "Mmap2:" per record."""
    want = []
    kinds = {"Comm": 0, "Exit": 0, "Mmap": 0, "Mmap2": 0}
    for line in open(expected, encoding="utf-8"):
        m = re.match(r"^ Sample: ip: ([0-9a-f]+) pid: (\d+) tid: (\d+) "
                     r"time: (\d+) period: (\d+)$", line)
        if m:
            want.append((int(m.group(1), 16),) +
                        tuple(int(x) for x in m.group(2, 3, 4, 5)))
        m = re.match(r"^ (Comm|Exit|Mmap|Mmap2):", line)
        if m:
            kinds[m.group(1)] += 1
    mine = [(r.get("ip"), r.get("pid"), r.get("tid"), r.get("time"),
             r.get("period")) for r in pd_sample_records(capture)]
    for i, (w, m) in enumerate(zip(want, mine)):
        if w != m:
            problems.append("dump.stdout sample #%d: %s, pdtool %s"
                            % (i + 1, w, m))
            break
    if len(want) != len(mine):
        problems.append("dump.stdout: %d samples, pdtool %d"
                        % (len(want), len(mine)))
    info, err = pd_info(capture)
    if err:
        problems.append(err)
        return len(want)
    counts = info.get("record_counts") or {}
    have = {"Comm": counts.get("COMM", 0), "Exit": counts.get("EXIT", 0),
            "Mmap": counts.get("MMAP", 0), "Mmap2": counts.get("MMAP2", 0)}
    if have != kinds:
        problems.append("dump.stdout records %s, pdtool %s" % (kinds, have))
    return len(want)


def quipper_buildids(capture, expected, problems):
    """quipper's *.buildids: "HEX filename" per DSO with a build id."""
    want = set()
    for line in open(expected, encoding="utf-8", errors="replace"):
        f = line.split(None, 1)
        if len(f) == 2 and re.match(r"^[0-9a-f]+$", f[0]):
            want.add((f[0], f[1].strip()))
    info, err = pd_info(capture)
    if err:
        problems.append(err)
        return 0
    mine = {(b.get("build_id"), b.get("filename"))
            for b in info.get("build_ids") or []}
    for b in sorted(want - mine)[:MAX_SHOWN]:
        problems.append("%s lists %s %s, pdtool does not"
                        % (os.path.basename(expected), b[0], b[1]))
    return len(want)


# mstange/linux-perf-data tests/{compressed,compressed2,uncompressed}.rs
# (commit 3884b637) assert these of its fixtures, which the corpus copies:
# (samples at least, records at least); its record count leaves out the
# COMPRESSED and COMPRESSED2 records it decompresses
UPSTREAM_MINIMA = {
    "linux-perf-data/fibo.compressed2.pipe.data": (501, 1001),
    "linux-perf-data/sleep.compressed2.pipe.data": (1, 100),
    "linux-perf-data/sleep.compressed2.data": (1, 10),
    "linux-perf-data/sleep.compressed.pipe.data": (1, 1),
    "linux-perf-data/sleep.compressed.data": (1, 1),
    "linux-perf-data/sleep.data": (1, 10),
}


def expected(corpus, tmp):
    rows = manifest_rows(corpus)
    failed = []
    nr_files = nr_checks = 0
    for path, row in rows.items():
        full = os.path.join(corpus, path)
        problems, notes = [], []
        readable = row["verdict"].split()[0].rstrip(":") == "yes"
        info, err = pd_info(full)
        with open(full, "rb") as f:
            magic = f.read(8)
        if err and magic[:2] == b"\x1f\x8b":
            # issue 2: a clear error, then the same facts on the content
            if "gzip" not in err:
                problems.append("gzip input: %s" % err)
            notes.append("gzip refused with %r" % err.split(": ")[-1])
            plain = os.path.join(tmp, os.path.basename(path) + ".plain")
            with gzip.open(full) as src, open(plain, "wb") as dst:
                dst.write(src.read())
            full = plain
            info, err = pd_info(full)
        if err and v1_refused(full, err):
            notes.append("refused: v1 'PERFFILE' magic (issue 2)")
            info = None
        elif err:
            problems.append(err)
        if info:
            checked = manifest_facts(row, info, problems)
            nr_checks += len(checked)
            notes.append("MANIFEST " + ", ".join(checked))
            st = info.get("sample_time") or {}
            if not readable and (st.get("first_ns") or st.get("last_ns")):
                # HEADER_SAMPLE_TIME: first and last sample time as the
                # recording perf saw them
                nr_checks += 1
                notes.append("sample_time feature")
                got = (info.get("time_first_ns"), info.get("time_last_ns"))
                if got != (st.get("first_ns"), st.get("last_ns")):
                    problems.append("sample_time feature %s..%s, samples "
                                    "%s..%s" % (st.get("first_ns"),
                                                st.get("last_ns"), *got))
            if path in UPSTREAM_MINIMA:
                nr_checks += 1
                min_samples, min_records = UPSTREAM_MINIMA[path]
                counts = info.get("record_counts") or {}
                records = sum(v for k, v in counts.items()
                              if k not in ("COMPRESSED", "COMPRESSED2"))
                notes.append("linux-perf-data's own test minima")
                if info.get("samples", 0) < min_samples or \
                        records < min_records:
                    problems.append("linux-perf-data's tests expect >= %d "
                                    "samples and >= %d records; pdtool %s "
                                    "and %d" % (min_samples, min_records,
                                                info.get("samples"),
                                                records))
        companions = []
        if os.path.exists(full + ".expected.txt"):
            companions.append(("perfparser expected.txt",
                               perfparser_expected, full + ".expected.txt"))
        lpfr = os.path.join(os.path.dirname(full), "dump.stdout")
        if path.startswith("linux-perf-file-reader/") and \
                os.path.exists(lpfr):
            companions.append(("dump.stdout", lpfr_expected, lpfr))
        if os.path.exists(full + ".buildids"):
            companions.append(("quipper .buildids", quipper_buildids,
                               full + ".buildids"))
        for what, fn, exp in companions:
            try:
                n = fn(full, exp, problems)
            except (RuntimeError, OSError, ValueError) as e:
                problems.append("%s: %s" % (what, e))
                n = 0
            nr_checks += 1
            notes.append("%s (%d entries)" % (what, n))
        nr_files += 1
        print("%s %s [perf 6.1: %s]: %s" % (
            "FAIL" if problems else "ok", path, row["verdict"].split()[0],
            "; ".join(notes)))
        if problems:
            failed.append((path, problems))
    for path, problems in failed:
        print("\n%s:" % path)
        for p in problems[:MAX_SHOWN * 2]:
            print("    " + p)
    print("\nchecked %d corpus captures against their expectations "
          "(%d checks): %d agree, %d differ"
          % (nr_files, nr_checks, nr_files - len(failed), len(failed)))
    return 1 if failed else 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "goldens":
        sys.exit(goldens(sys.argv[2], sys.argv[3:]))
    if len(sys.argv) == 4 and sys.argv[1] == "expected":
        sys.exit(expected(sys.argv[2], sys.argv[3]))
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
