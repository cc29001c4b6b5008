#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_names.py - write a capture whose names hold any bytes: a comm, a
mapped file's path, a kernel symbol, for the tests that check no name
can forge output or reach a terminal raw.

    pd_names.py OUT [--comm S] [--dso S] [--ksym S] [--jit S] [--samples N]

Each S is the name's bytes, with Python's backslash escapes ('\\n',
'\\x1b', '\\x07', ...) decoded.  Other names in a capture are read from
ELF files (symbols, DWARF file names) or text files (kallsyms,
perf-PID.map), which a test writes itself; these are the ones only a
capture holds.  The capture, laid out as perf 6.1 writes a file-mode
capture of a cpu-clock event with IP, TID, TIME, PERIOD and CALLCHAIN:

  - one process, PID 4545, whose COMM record names it --comm
    (default "names");
  - an MMAP2 of --dso (default "/opt/names/libnames.so") at 0x400000,
    a file no test provides, so its frames stay unresolved ("[unknown]",
    or "libnames.so+0x100" with pdtool fold --addrs);
  - a KSYMBOL (a BPF program's symbol, as the kernel reports one) named
    --ksym (default "bpf_prog_names") at 0xffffffffc0000000;
  - an MMAP2 of an anonymous JIT region at 0x7f0000000000 ("//anon"),
    whose perf-PID.map a test writes next to the capture (pdtool's
    --jit-dir) to name its code, with --jit naming 0x7f0000000000 in
    OUT's directory when given;
  - --samples N (default 3) samples, each with the callchain
    [kernel: the KSYMBOL + 0x10] [user: 0x7f0000000010, 0x400100,
    0x400200]: a folded stack comm;libnames.so frames;jit;bpf.

The sample count is the ground truth: however the names are written, the
folded lines' counts must add up to N and no line may be added.
"""

import codecs
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pd_synth  # noqa: E402

PID = 4545
PERIOD = 1000000
TIME0 = 7000000000
DSO_START = 0x400000
JIT_START = 0x7f0000000000
KSYM_START = 0xffffffffc0000000
CONTEXT_KERNEL = 0xffffffffffffff80
CONTEXT_USER = 0xfffffffffffffe00
# IP TID TIME CALLCHAIN PERIOD
SAMPLE_TYPE = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 5) | (1 << 8)
FLAGS = ["disabled", "inherit", "mmap", "comm", "freq", "sample_id_all",
         "mmap2", "comm_exec", "enable_on_exec", "ksymbol"]
MISC_KERNEL = 1
MISC_USER = 2
REC_MMAP2, REC_COMM, REC_SAMPLE, REC_KSYMBOL = 10, 3, 9, 17
REC_FINISHED_ROUND = 68
PROT_EXEC = 4
KSYMBOL_TYPE_BPF = 1


def attr():
    return pd_synth.cpu_clock_attr(FLAGS, SAMPLE_TYPE)


def sample_id(time):
    return struct.pack("<IIQ", PID, PID, time)


def mmap2(start, length, name, time):
    body = struct.pack("<IIQQQIIQQII", PID, PID, start, length, 0, 8, 1,
                       1234, 0, PROT_EXEC | 1, 2)
    return pd_synth.record(REC_MMAP2, MISC_USER, body + pd_synth.pad8(
        name + b"\0") + sample_id(time))


def data(comm, dso, ksym, nr_samples):
    recs = [
        pd_synth.record(REC_COMM, 0, struct.pack("<II", PID, PID) +
                        pd_synth.pad8(comm + b"\0") + sample_id(TIME0)),
        mmap2(DSO_START, 0x1000, dso, TIME0 + 1),
        mmap2(JIT_START, 0x1000, b"//anon", TIME0 + 2),
        pd_synth.record(REC_KSYMBOL, 0, struct.pack(
            "<QIHH", KSYM_START, 0x100, KSYMBOL_TYPE_BPF, 0) +
            pd_synth.pad8(ksym + b"\0") + sample_id(TIME0 + 3)),
    ]
    chain = [CONTEXT_KERNEL, KSYM_START + 0x10, CONTEXT_USER,
             JIT_START + 0x10, DSO_START + 0x100, DSO_START + 0x200]
    for n in range(nr_samples):
        body = struct.pack("<QIIQQQ", KSYM_START + 0x10, PID, PID,
                           TIME0 + 1000 * (n + 1), PERIOD, len(chain))
        body += struct.pack("<%dQ" % len(chain), *chain)
        recs.append(pd_synth.record(REC_SAMPLE, MISC_KERNEL, body))
    recs.append(pd_synth.record(REC_FINISHED_ROUND, 0, b""))
    return b"".join(recs)


def capture(comm, dso, ksym, nr_samples):
    records = data(comm, dso, ksym, nr_samples)
    feats = pd_synth.one_event_features(
        "synth-names", "x86_64", ["perf", "record", "-g", "--", "names"],
        attr())
    attrs = attr() + struct.pack("<QQ", 0, 0)
    return pd_synth.file_layout(b"", attrs, records, feats)


def unescape(text):
    return codecs.escape_decode(text.encode("utf-8", "surrogateescape"))[0]


def main(argv):
    args = argv[1:]
    names = {"--comm": b"names", "--dso": b"/opt/names/libnames.so",
             "--ksym": b"bpf_prog_names", "--jit": None}
    nr_samples = 3
    out = None
    while args:
        arg = args.pop(0)
        if arg in names and args:
            names[arg] = unescape(args.pop(0))
        elif arg == "--samples" and args:
            nr_samples = int(args.pop(0))
        elif out is None and not arg.startswith("--"):
            out = arg
        else:
            sys.stderr.write(__doc__)
            return 64
    if out is None:
        sys.stderr.write(__doc__)
        return 64
    with open(out, "wb") as f:
        f.write(capture(names["--comm"], names["--dso"], names["--ksym"],
                        nr_samples))
    if names["--jit"] is not None:
        path = os.path.join(os.path.dirname(os.path.abspath(out)),
                            "perf-%d.map" % PID)
        with open(path, "wb") as f:
            f.write(b"%x 100 " % JIT_START + names["--jit"] + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
