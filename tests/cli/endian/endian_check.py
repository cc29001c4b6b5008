#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""endian_check.py - convert captures to big-endian with tests/gen/pd_swap.py
and check that pdtool reads both byte orders the same (issue 2).

    endian_check.py [--perf] LABEL=PATH...

For each capture (a file, a pipe-mode file or a --threads directory):
  * the converted file starts with the big-endian magic "2ELIFREP";
  * `pdtool info --json` says byte_order "little" for the original and
    "big" for the converted file, and is otherwise identical;
  * `pdtool dump --json`, `dump --json --ordered` and `dump` print the same
    records with the same values, with the same warnings and exit status.
A capture with COMPRESSED records is re-encoded by the converter (the
records inside are converted and compressed again), which changes the
compressed sizes: there the COMPRESSED records themselves, the file offsets
and the data and file sizes are left out of the comparison, and nothing
else.

With --perf, and a perf binary (PERF, default perf) that reads the
original, `perf script` and `perf report --stats` must print the same for
both files.  perf 6.1 reads big-endian file-mode captures, so this checks
the converter against perf's own swap code.  It does not for pipe mode:
perf 6.1 leaves evsel->needs_swap unset for events that come from
HEADER_ATTR records and does not swap HEADER_FEATURE's feat_id, so it
misreads any cross-endian pipe capture; those are skipped with that reason.
perf swaps user stack dumps as u64 words where the converter keeps them as
memory, so for captures with PERF_SAMPLE_STACK_USER perf's DWARF unwinding
is turned off (-G) and the callchains it would unwind are not compared.

Prints one line per capture (ok, skip or FAIL, with the reason) and exits
1 if one failed, 77 if every capture was skipped, 0 otherwise.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
SWAP = os.path.join(TOP, "tests", "gen", "pd_swap.py")
MAGIC_BE = b"2ELIFREP"


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def run(argv, cwd=None):
    proc = subprocess.run(argv, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, cwd=cwd, check=False)
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"))


def first_difference(what, left, right):
    a = left.splitlines()
    b = right.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return ("%s differs at line %d:\n  little: %s\n  big:    %s"
                    % (what, i + 1, x[:600], y[:600]))
    return ("%s differs in length: %d lines little, %d big"
            % (what, len(a), len(b)))


def drop_offsets(value):
    """Remove what re-encoded zstd chunks move: offsets and sizes of the
    file and data section, and hex offsets in messages."""
    if isinstance(value, dict):
        return {k: drop_offsets(v) for k, v in value.items()
                if k not in ("offset", "data_size", "file_size")}
    if isinstance(value, list):
        return [drop_offsets(v) for v in value]
    if isinstance(value, str):
        return re.sub(r"0x[0-9a-f]+", "0x?", value)
    return value


def normalize_dump(text, compressed):
    if not compressed:
        return text
    out = []
    for line in text.splitlines():
        rec = json.loads(line)
        if rec.get("type") in ("COMPRESSED", "COMPRESSED2"):
            continue
        out.append(json.dumps(drop_offsets(rec), sort_keys=True))
    return "\n".join(out)


def normalize_err(text, path, compressed):
    text = text.replace(path, "FILE")
    return re.sub(r"0x[0-9a-f]+", "0x?", text) if compressed else text


def pdtool_info(pdtool, path):
    rc, out, err = run([pdtool, "info", "--json", path])
    if rc != 0:
        raise Fail("pdtool info --json %s: exit %d: %s" % (path, rc,
                                                           err.strip()))
    return json.loads(out), err


def check_pdtool(pdtool, le, be):
    info_le, err_le = pdtool_info(pdtool, le)
    info_be, err_be = pdtool_info(pdtool, be)
    if info_le.get("byte_order") != "little":
        raise Fail("pdtool info: byte_order of the original is %r"
                   % info_le.get("byte_order"))
    if info_be.get("byte_order") != "big":
        raise Fail("pdtool info: byte_order of the converted file is %r, "
                   "not \"big\"" % info_be.get("byte_order"))
    counts = info_le.get("record_counts", {})
    compressed = bool(counts.get("COMPRESSED") or counts.get("COMPRESSED2"))
    for info in (info_le, info_be):
        for key in ("file", "byte_order"):
            info.pop(key, None)
    if compressed:
        info_le = drop_offsets(info_le)
        info_be = drop_offsets(info_be)
    if info_le != info_be:
        raise Fail(first_difference(
            "pdtool info --json",
            json.dumps(info_le, indent=1, sort_keys=True),
            json.dumps(info_be, indent=1, sort_keys=True)))
    if normalize_err(err_le, le, compressed) != \
            normalize_err(err_be, be, compressed):
        raise Fail(first_difference("pdtool info's warnings", err_le, err_be))

    nr_records = 0
    modes = [["--json"], ["--json", "--ordered"]]
    if not compressed:
        modes.append([])        # the text dump prints offsets too
    for mode in modes:
        what = "pdtool dump " + " ".join(mode)
        rc_le, out_le, err_le = run([pdtool, "dump"] + mode + [le])
        rc_be, out_be, err_be = run([pdtool, "dump"] + mode + [be])
        if rc_le != rc_be:
            raise Fail("%s: exit %d on the original, %d on the converted "
                       "file: %s" % (what, rc_le, rc_be, err_be.strip()))
        if mode[:1] == ["--json"]:
            out_le = normalize_dump(out_le, compressed)
            out_be = normalize_dump(out_be, compressed)
        if out_le != out_be:
            raise Fail(first_difference(what, out_le, out_be))
        if normalize_err(err_le, le, compressed) != \
                normalize_err(err_be, be, compressed):
            raise Fail(first_difference(what + " warnings", err_le, err_be))
        nr_records = len(out_le.splitlines())
    return info_le, compressed, nr_records


# perf script -F fields that each sample_type bit provides
PERF_FIELDS = [("TID", ["comm", "pid", "tid"]), ("TIME", ["time"]),
               ("CPU", ["cpu"]), ("IP", ["ip"]), ("PERIOD", ["period"]),
               ("ADDR", ["addr"])]


def check_perf(perf, info, le, be):
    if info.get("kind") == "pipe":
        raise Skip("perf 6.1 misreads every cross-endian pipe capture "
                   "(HEADER_ATTR events get no needs_swap, HEADER_FEATURE's "
                   "feat_id is not swapped)")
    types = [set(ev.get("sample_type", [])) for ev in info.get("events", [])]
    common = set.intersection(*types) if types else set()
    fields = ["event"]
    for bit, names in PERF_FIELDS:
        if bit in common:
            fields += names
    script = ["script", "--ns", "-F", ",".join(fields)]
    if any("STACK_USER" in t for t in types):
        script.append("-G")
    results = []
    for args, what in ((script, "perf script -F " + ",".join(fields)),
                       (["report", "--stats"], "perf report --stats")):
        rc_le, out_le, err_le = run([perf] + args + ["-i", le])
        if rc_le != 0 or not out_le.strip():
            raise Skip("perf cannot read the original (%s: exit %d: %s)"
                       % (what, rc_le, err_le.strip().splitlines()[-1:]))
        rc_be, out_be, err_be = run([perf] + args + ["-i", be])
        if args[0] == "report":
            out_le = "\n".join(l for l in out_le.splitlines()
                               if not l.startswith("#"))
            out_be = "\n".join(l for l in out_be.splitlines()
                               if not l.startswith("#"))
        if rc_le != rc_be:
            raise Fail("%s: exit %d on the original, %d on the converted "
                       "file: %s" % (what, rc_le, rc_be, err_be.strip()))
        if out_le != out_be:
            raise Fail(first_difference(what, out_le, out_be))
        results.append("%s same (%d lines)" % (what.split(" -F")[0],
                                              len(out_le.splitlines())))
    return results


def check_one(label, path, tmp, pdtool, perf):
    be = os.path.join(tmp, os.path.basename(path.rstrip("/")) + ".be")
    rc, _, err = run([sys.executable, SWAP, path, be])
    if rc == 3:
        raise Skip("the converter does not model it: " + err.strip())
    if rc != 0:
        raise Fail("pd_swap.py exit %d: %s" % (rc, err.strip()))
    head = os.path.join(be, "data") if os.path.isdir(be) else be
    with open(head, "rb") as f:
        magic = f.read(8)
    if magic != MAGIC_BE:
        raise Fail("converted file starts with %r, not %r" % (magic,
                                                             MAGIC_BE))
    info, compressed, nr = check_pdtool(pdtool, path, be)
    notes = ["byte_order big", "info same", "dump same (%d records%s)"
             % (nr, ", zstd chunks re-encoded" if compressed else "")]
    if perf:
        try:
            notes += check_perf(perf, info, path, be)
        except Skip as why:
            notes.append("perf part skipped: %s" % why)
    return notes


def main(argv):
    args = argv[1:]
    use_perf = "--perf" in args
    args = [a for a in args if a != "--perf"]
    pdtool = os.environ.get("PDTOOL")
    if not pdtool or not args:
        sys.stderr.write("usage: PDTOOL=... endian_check.py [--perf] "
                         "LABEL=PATH...\n")
        return 64
    perf = None
    if use_perf:
        perf = shutil.which(os.environ.get("PERF", "perf"))
        if perf is None:
            print("note: no perf binary; the perf comparisons are skipped")
    def one(arg):
        label, _, path = arg.partition("=")
        sub = tempfile.mkdtemp(dir=tmp)
        try:
            notes = check_one(label, path, sub, pdtool, perf)
            return "ok", "ok %s: %s" % (label, "; ".join(notes))
        except Skip as why:
            return "skip", "skip %s: %s" % (label, why)
        except Fail as why:
            return "fail", "FAIL %s: %s" % (label, why)
        finally:
            shutil.rmtree(sub, ignore_errors=True)

    tmp = tempfile.mkdtemp(prefix="pdtool-endian.")
    try:
        # the captures are independent and the work is in subprocesses
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            results = list(pool.map(one, args))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for _, line in results:
        print(line)
    passed = sum(1 for r in results if r[0] == "ok")
    failed = sum(1 for r in results if r[0] == "fail")
    print("endian: %d ok, %d failed, %d skipped"
          % (passed, failed, len(args) - passed - failed))
    if failed:
        return 1
    return 0 if passed else 77


if __name__ == "__main__":
    sys.exit(main(sys.argv))
