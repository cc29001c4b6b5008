#!/usr/bin/env python3
"""diffcheck.py - compare pdtool with perf 6.1's golden view of a capture.

    diffcheck.py goldens GOLDEN_DIR NAME=CAPTURE...

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

Where perf stopped early ("# partial" in the golden), the counts are not
compared and pdtool's samples must begin with the ones perf read.  A
directory capture (perf record --threads) has no one file order: perf
reads its files interleaved, so when the order differs the samples are
compared as multisets and the test says so.

Prints one line per capture and the totals; for each failing capture the
first differences.  Exit status 0 when everything agrees, 1 otherwise.
"""
import json
import os
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
    p = subprocess.run([pdtool()] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
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


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "goldens":
        sys.exit(goldens(sys.argv[2], sys.argv[3:]))
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
