#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""synth_check.py - the big-endian round trip of attr flags and branch
entry flags, on the synthetic capture of tests/gen/pd_synth.py.

    PDTOOL=... synth_check.py

Writes the capture in file and pipe mode, converts both with pd_swap.py,
then checks, against pd_synth's EVENTS and SAMPLES (the specification):
  1. the converted file lays the bit-fields out as a big-endian compiler
     does: a field at little-endian bit o, w bits wide, at bit 64 - o - w
     of the big-endian word (precise_ip = 2 sets bit 48, exclude_kernel
     bit 58, sample_id_all bit 45; a branch entry's cycles sit in bits
     44..59);
  2. pdtool info says byte_order big, and pdtool dump --json prints the
     same records for both byte orders, in file and pipe mode;
  3. the values pdtool decodes are the specified ones: every attr flag,
     precise_ip, clockid, sig_data, aux_action and config3 (pipe mode
     prints whole attrs), and every branch entry's mispred, predicted,
     in_tx, abort, cycles, type, spec, new_type and priv;
  4. with perf installed, perf 6.1 prints the specified M/P, X, A and
     cycles columns of each branch entry for both files, and the same type
     name, except for EXTEND_ABI entries: perf 6.1 names those by new_type,
     and its evsel__bitfield_swap_branch_flags() moves new_type and priv as
     part of one 38-bit block, so it misreads them in any big-endian file.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(TOP, "tests", "gen"))
import pd_synth as spec  # noqa: E402

SWAP = os.path.join(TOP, "tests", "gen", "pd_swap.py")
SYNTH = os.path.join(TOP, "tests", "gen", "pd_synth.py")
BR_EXTEND_ABI = 15

# pdtool decoding bugs already reported to the reader's owner, as
# (mode, event, field) -> the wrong value pdtool prints for the big-endian
# file.  A listed bug still fails the check if pdtool prints anything else,
# and once fixed the entry must go (the check says so).
KNOWN_BUGS = {
    # (mode, event, attr field): the wrong value pdtool is known to read on
    # the big-endian copy; empty while none is known
}

failures = []
notes = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


def run(argv):
    proc = subprocess.run(argv, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=False)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def be_word(fields):
    """fields: (value, little-endian bit offset, width) -> big-endian word"""
    word = 0
    for value, off, width in fields:
        word |= value << (64 - off - width)
    return word


def attr_fields(event):
    fields = [(1, spec.FLAG_BITS[name], 1) for name in event["flags"]]
    return fields + [(event["precise_ip"], 15, 2)]


def branch_fields(entry):
    return [(entry.get(name, 0), off, width)
            for name, (off, width) in spec.BRANCH_FIELDS.items()]


def check_layout(be_path):
    """1: the bit-fields in the converted file's bytes."""
    with open(be_path, "rb") as f:
        data = f.read()
    check(data[:8] == b"2ELIFREP", "converted file magic %r" % data[:8])
    attr_size, attrs_off, _, data_off, data_size = \
        struct.unpack_from(">QQQQQ", data, 16)
    for i, event in enumerate(spec.EVENTS):
        flags = struct.unpack_from(">Q", data, attrs_off + i * attr_size +
                                   40)[0]
        want = be_word(attr_fields(event))
        check(flags == want, "%s: big-endian attr flags %#018x, want "
              "%#018x" % (event["name"], flags, want))
    pos = data_off
    samples = iter(spec.SAMPLES)
    while pos < data_off + data_size:
        rtype, _, size = struct.unpack_from(">IHH", data, pos)
        if rtype == 9:
            ev, _, _, _, entries = next(samples)
            event = spec.EVENTS[ev]
            p = pos + 8 + 6 * 8 + 8        # fixed fields, then nr
            if event["branch_sample_type"] & spec.BRANCH_HW_INDEX:
                p += 8
            for n, entry in enumerate(entries):
                got = struct.unpack_from(">Q", data, p + 24 * n + 16)[0]
                want = be_word(branch_fields(entry))
                check(got == want, "sample at %#x entry %d: big-endian "
                      "flags %#018x, want %#018x" % (pos, n, got, want))
        pos += size
    notes.append("bit-field layout in the converted file as specified")


def pdtool_json(pdtool, args, path):
    rc, out, err = run([pdtool] + args + [path])
    check(rc == 0, "pdtool %s %s: exit %d: %s" % (" ".join(args), path, rc,
                                                  err.strip()))
    return out


def attr_expect(event, mode):
    want = {"flags": sum(1 << spec.FLAG_BITS[n] for n in event["flags"]) |
            event["precise_ip"] << 15,
            "clockid": event["clockid"], "sig_data": event["sig_data"],
            "branch_sample_type": event["branch_sample_type"]}
    extra = spec.PIPE_EXTRA if mode == "pipe" else {}
    want["aux_action"] = extra.get("aux_action", 0)
    want["config3"] = extra.get("config3", 0)
    return want


def check_records(mode, order, records):
    """3: decoded values against the specification."""
    attrs = [r for r in records if r["type"] == "HEADER_ATTR"]
    if mode == "pipe":
        check(len(attrs) == len(spec.EVENTS), "%s: %d HEADER_ATTR records"
              % (mode, len(attrs)))
        for event, rec in zip(spec.EVENTS, attrs):
            for key, want in attr_expect(event, mode).items():
                got = rec["attr"].get(key)
                bug = KNOWN_BUGS.get((mode, event["name"], key))
                if order == "big" and bug is not None and got == bug:
                    notes.append("known pdtool bug, reported: %s %s: %s "
                                 "reads %#x, not %#x" % (mode, event["name"],
                                                         key, got, want))
                    continue
                if order == "big" and bug is not None and got == want:
                    failures.append("%s %s %s: fixed; remove it from "
                                    "KNOWN_BUGS" % (mode, event["name"],
                                                    key))
                    continue
                check(got == want, "%s %s (%s-endian): attr %s = %r, want "
                      "%r" % (mode, event["name"], order, key, got, want))
    samples = [r for r in records if r["type"] == "SAMPLE"]
    check(len(samples) == len(spec.SAMPLES), "%s: %d samples, want %d"
          % (mode, len(samples), len(spec.SAMPLES)))
    for rec, (ev, ip, cpu, hw_idx, entries) in zip(samples, spec.SAMPLES):
        event = spec.EVENTS[ev]
        what = "%s %s-endian sample at %d" % (mode, order, rec["offset"])
        check(rec["event"] == event["name"], "%s: event %r" % (what,
                                                            rec["event"]))
        check(rec["ip"] == ip and rec["cpu"] == cpu and
              rec["pid"] == spec.PID and rec["tid"] == spec.PID and
              rec["period"] == event["period"],
              "%s: ip/cpu/pid/tid/period %r" % (what, rec))
        stack = rec.get("branch_stack", {})
        check(stack.get("nr") == len(entries), "%s: nr %r" % (what, stack))
        if event["branch_sample_type"] & spec.BRANCH_HW_INDEX:
            check(stack.get("hw_idx") == hw_idx, "%s: hw_idx %r"
                  % (what, stack.get("hw_idx")))
        else:
            check("hw_idx" not in stack, "%s: hw_idx without HW_INDEX"
                  % what)
        for n, (got, entry) in enumerate(zip(stack.get("entries", []),
                                             entries)):
            want = {"from": entry["from"], "to": entry["to"]}
            for name in spec.BRANCH_FIELDS:
                want[name] = entry.get(name, 0)
            check(got == want, "%s entry %d: %r, want %r" % (what, n, got,
                                                            want))


def check_pdtool(pdtool, mode, le, be):
    """2 and 3"""
    for path, order in ((le, "little"), (be, "big")):
        info = json.loads(pdtool_json(pdtool, ["info", "--json"], path))
        check(info.get("byte_order") == order, "%s: byte_order %r, want %r"
              % (path, info.get("byte_order"), order))
    dumps = {}
    for path, order in ((le, "little"), (be, "big")):
        out = pdtool_json(pdtool, ["dump", "--json"], path)
        dumps[order] = out
        check_records(mode, order, [json.loads(l) for l in out.splitlines()])
    if dumps["little"] != dumps["big"]:
        diff = [(a, b) for a, b in zip(dumps["little"].splitlines(),
                                       dumps["big"].splitlines()) if a != b]
        bugs = {k[2] for k in KNOWN_BUGS if k[0] == mode}
        for a, b in diff:
            ja, jb = json.loads(a), json.loads(b)
            for key in bugs:
                ja.get("attr", {}).pop(key, None)
                jb.get("attr", {}).pop(key, None)
            check(ja == jb, "%s: pdtool dump --json differs:\n  little: "
                  "%s\n  big:    %s" % (mode, a, b))
    notes.append("%s mode: pdtool dump --json as specified in both byte "
                 "orders" % mode)


def perf_entries(perf, path):
    rc, out, err = run([perf, "script", "-F", "event,ip,brstack", "-i",
                        path])
    check(rc == 0, "perf script %s: exit %d: %s" % (path, rc, err.strip()))
    rows = []
    for line in out.splitlines():
        rows.append([e.split("/") for e in line.split()[2:]])
    return rows


def check_perf(le, be):
    """4"""
    perf = shutil.which(os.environ.get("PERF", "perf"))
    if perf is None:
        notes.append("no perf binary: perf's view not checked")
        return
    rows = {order: perf_entries(perf, path)
            for path, order in ((le, "little"), (be, "big"))}
    check(len(rows["little"]) == len(spec.SAMPLES), "perf script: %d "
          "samples" % len(rows["little"]))
    for n, (_, _, _, _, entries) in enumerate(spec.SAMPLES):
        for order in ("little", "big"):
            got = rows[order][n] if n < len(rows[order]) else []
            check(len(got) == len(entries), "perf %s sample %d: %d entries"
                  % (order, n, len(got)))
            for k, (cols, entry) in enumerate(zip(got, entries)):
                pred = "M" if entry.get("mispred") else \
                    "P" if entry.get("predicted") else "-"
                want = ["%#x" % entry["from"], "%#x" % entry["to"], pred,
                        "X" if entry.get("in_tx") else "-",
                        "A" if entry.get("abort") else "-",
                        str(entry.get("cycles", 0))]
                check(cols[:6] == want, "perf %s sample %d entry %d: %r, "
                      "want %r" % (order, n, k, cols[:6], want))
                if entry.get("type") != BR_EXTEND_ABI and order == "big":
                    check(cols[6:] == rows["little"][n][k][6:],
                          "perf sample %d entry %d: type %r little, %r big"
                          % (n, k, rows["little"][n][k][6:], cols[6:]))
    notes.append("perf script's brstack agrees for both byte orders")


def main():
    pdtool = os.environ.get("PDTOOL")
    if not pdtool:
        sys.stderr.write("PDTOOL is not set\n")
        return 64
    tmp = tempfile.mkdtemp(prefix="pdtool-synth.")
    try:
        for mode in ("file", "pipe"):
            le = os.path.join(tmp, "synth.%s" % mode)
            be = le + ".be"
            rc, _, err = run([sys.executable, SYNTH] +
                             (["--pipe"] if mode == "pipe" else []) + [le])
            check(rc == 0, "pd_synth.py: exit %d: %s" % (rc, err))
            rc, _, err = run([sys.executable, SWAP, le, be])
            check(rc == 0, "pd_swap.py: exit %d: %s" % (rc, err))
            if failures:
                break
            if mode == "file":
                check_layout(be)
                check_perf(le, be)
            check_pdtool(pdtool, mode, le, be)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for note in notes:
        print("ok: " + note)
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
