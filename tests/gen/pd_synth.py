#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_synth.py - write a small little-endian perf.data whose attr flags and
branch entries use every multi-bit field, for the big-endian round trip.

    pd_synth.py [--pipe] OUT

This VM has no PMU, so perf cannot record precise events or branch stacks
here; this writes such a capture by hand, laid out as perf 6.1 lays out a
file (or a pipe with --pipe).  Two events with different flags and
branch_sample_type (one with PERF_SAMPLE_BRANCH_HW_INDEX, one without, so a
reader must pick each sample's layout by its IDENTIFIER), a COMM, an MMAP2
and samples whose branch entries set mispred, predicted, in_tx, abort,
cycles, type, spec, new_type and priv to values that fill their widths.

EVENTS and SAMPLES below are the specification; tests import this module
and check what pdtool decodes against them.
"""

import struct
import sys

# perf_event_attr flag bits by name (include/uapi/linux/perf_event.h);
# precise_ip is the two bits at 15.
FLAG_BITS = {
    "disabled": 0, "inherit": 1, "pinned": 2, "exclusive": 3,
    "exclude_user": 4, "exclude_kernel": 5, "exclude_hv": 6,
    "exclude_idle": 7, "mmap": 8, "comm": 9, "freq": 10,
    "inherit_stat": 11, "enable_on_exec": 12, "task": 13, "watermark": 14,
    "mmap_data": 17, "sample_id_all": 18, "exclude_host": 19,
    "exclude_guest": 20, "exclude_callchain_kernel": 21,
    "exclude_callchain_user": 22, "mmap2": 23, "comm_exec": 24,
    "use_clockid": 25, "context_switch": 26, "write_backward": 27,
    "namespaces": 28, "ksymbol": 29, "bpf_event": 30, "aux_output": 31,
    "cgroup": 32, "text_poke": 33, "build_id": 34, "inherit_thread": 35,
    "remove_on_exec": 36, "sigtrap": 37,
}

# perf_branch_entry flag fields: (little-endian bit offset, width)
BRANCH_FIELDS = {
    "mispred": (0, 1), "predicted": (1, 1), "in_tx": (2, 1),
    "abort": (3, 1), "cycles": (4, 16), "type": (20, 4), "spec": (24, 2),
    "new_type": (26, 4), "priv": (30, 3),
}

SAMPLE_TYPE = (1 << 16) | (1 << 0) | (1 << 1) | (1 << 2) | (1 << 7) | \
    (1 << 8) | (1 << 11)        # IDENTIFIER IP TID TIME CPU PERIOD BRANCH
BRANCH_USER = 1 << 0
BRANCH_ANY = 1 << 3
BRANCH_ANY_CALL = 1 << 4
BRANCH_HW_INDEX = 1 << 17

EVENTS = [
    {
        "name": "cycles:pp", "type": 0, "config": 0, "period": 100003,
        "flags": ["inherit", "exclude_kernel", "exclude_hv", "mmap",
                  "comm", "sample_id_all", "exclude_guest", "mmap2",
                  "comm_exec"],
        "precise_ip": 2,
        "branch_sample_type": BRANCH_USER | BRANCH_ANY | BRANCH_HW_INDEX,
        "clockid": 0, "sig_data": 0, "ids": [101, 102],
    },
    {
        "name": "instructions:p", "type": 0, "config": 1, "period": 200003,
        "flags": ["pinned", "exclude_kernel", "sample_id_all",
                  "use_clockid", "remove_on_exec", "sigtrap"],
        "precise_ip": 1,
        "branch_sample_type": BRANCH_USER | BRANCH_ANY_CALL,
        "clockid": 1, "sig_data": 0x1122334455667788, "ids": [201],
    },
]
# pipe mode only: perf 6.1 refuses a file whose attr has bits in what it
# calls __reserved_3, so aux_action and config3 are set in the pipe form
PIPE_EXTRA = {"aux_action": 0b101, "config3": 0x0badc0de0badc0de}

PID = 4242
CPU_COUNT = 2
SAMPLES = [
    # (event index, ip, cpu, hw_idx, branch entries)
    (0, 0x401010, 0, 7, [
        {"from": 0x401000, "to": 0x401100, "mispred": 1, "cycles": 0x1234,
         "type": 5, "spec": 2, "priv": 1},
        {"from": 0x401104, "to": 0x401200, "predicted": 1, "in_tx": 1,
         "abort": 1, "cycles": 0xffff, "type": 15, "spec": 3,
         "new_type": 15, "priv": 7},
        {"from": 0x401204, "to": 0x401010, "cycles": 1, "type": 1},
    ]),
    (1, 0x401020, 1, None, [
        {"from": 0x401300, "to": 0x401400, "predicted": 1, "cycles": 300,
         "type": 4, "new_type": 3},
    ]),
    (0, 0x401030, 1, 0, []),
]
TIME0 = 1000000000


def attr_flags(event):
    value = event["precise_ip"] << 15
    for name in event["flags"]:
        value |= 1 << FLAG_BITS[name]
    return value


def branch_flags(entry):
    value = 0
    for name, (off, width) in BRANCH_FIELDS.items():
        field = entry.get(name, 0)
        assert field < 1 << width
        value |= field << off
    return value


def pad8(data):
    return data + bytes(-len(data) % 8)


def string_feature(text):
    """perf's do_write_string: u32 length padded to 64, then the bytes"""
    raw = text.encode() + b"\0"
    raw += bytes(-len(raw) % 64)
    return struct.pack("<I", len(raw)) + raw


def attr_bytes(event, pipe):
    size = 136 if pipe else 128
    extra = PIPE_EXTRA if pipe else {}
    return struct.pack(
        "<IIQQQQQIIQQQQIiQIHHIIQQ",
        event["type"], size, event["config"], event["period"], SAMPLE_TYPE,
        0, attr_flags(event), 0, 0, 0, 0, event["branch_sample_type"],
        0, 0, event["clockid"], 0, 0, 0, 0, 0, extra.get("aux_action", 0),
        event["sig_data"], extra.get("config3", 0))[:size]


def cpu_clock_attr(flags, sample_type):
    """A 128-byte cpu-clock attr sampling at 4000 Hz, with the flags
    named (FLAG_BITS) and sample_type."""
    value = 0
    for name in flags:
        value |= 1 << FLAG_BITS[name]
    return struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", 1, 128, 0, 4000,
                       sample_type, 0, value, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0, 0, 0, 0)[:128]


def record(rtype, misc, body):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def sample_id(time, cpu, ident):
    return struct.pack("<IIQIIQ", PID, PID, time, cpu, 0, ident)


def data_records():
    recs = [
        record(3, 0, struct.pack("<II", PID, PID) + pad8(b"synth\0") +
               sample_id(TIME0, 0, EVENTS[0]["ids"][0])),
        record(10, 2, struct.pack("<IIQQQIIQQII", PID, PID, 0x400000,
                                  0x2000, 0, 8, 1, 1234, 0, 5, 2) +
               pad8(b"/usr/bin/synth\0") +
               sample_id(TIME0 + 1, 0, EVENTS[0]["ids"][0])),
    ]
    for n, (ev, ip, cpu, hw_idx, entries) in enumerate(SAMPLES):
        event = EVENTS[ev]
        body = struct.pack("<QQIIQIIQ", event["ids"][cpu % len(event["ids"])],
                           ip, PID, PID, TIME0 + 1000 * (n + 1), cpu, 0,
                           event["period"])
        body += struct.pack("<Q", len(entries))
        if event["branch_sample_type"] & BRANCH_HW_INDEX:
            body += struct.pack("<Q", hw_idx)
        for entry in entries:
            body += struct.pack("<QQQ", entry["from"], entry["to"],
                                branch_flags(entry))
        recs.append(record(9, 2, body))
    recs.append(record(68, 0, b""))
    return b"".join(recs)


def features():
    """(feature id, section bytes) as perf writes them, in bit order."""
    desc = struct.pack("<II", len(EVENTS), 128)
    for event in EVENTS:
        desc += attr_bytes(event, False)
        desc += struct.pack("<I", len(event["ids"]))
        desc += string_feature(event["name"])
        desc += struct.pack("<%dQ" % len(event["ids"]), *event["ids"])
    cmdline = [b"/usr/bin/perf", b"record", b"-j", b"any,u"]
    cmd = struct.pack("<I", len(cmdline))
    for arg in cmdline:
        cmd += string_feature(arg.decode())
    return [
        (3, string_feature("synth-host")),
        (4, string_feature("6.1.0-synth")),
        (5, string_feature("6.1.187")),
        (6, string_feature("x86_64")),
        (7, struct.pack("<II", CPU_COUNT, CPU_COUNT)),
        (8, string_feature("Synthetic CPU")),
        (10, struct.pack("<Q", 1 << 20)),
        (11, cmd),
        (12, desc),
        (15, b""),
        (21, struct.pack("<QQ", TIME0 + 1000, TIME0 + 1000 * len(SAMPLES))),
    ]


def one_event_features(hostname, arch, cmdline, attr, name="cpu-clock"):
    """The features of a capture of one event (attr, without ids; its
    name cpu-clock unless given) on one CPU: host name, release
    6.1.0-synth, perf 6.1.187, arch, CPUs, command line and event
    description."""
    cmd = struct.pack("<I", len(cmdline))
    for arg in cmdline:
        cmd += string_feature(arg)
    desc = struct.pack("<II", 1, len(attr)) + attr + struct.pack("<I", 0) + \
        string_feature(name)
    return [
        (3, string_feature(hostname)),
        (4, string_feature("6.1.0-synth")),
        (5, string_feature("6.1.187")),
        (6, string_feature(arch)),
        (7, struct.pack("<II", 1, 1)),
        (11, cmd),
        (12, desc),
    ]


def one_event_main(argv, prog, hostname, cmdline, attr, name, data):
    """A generator's main: one event (attr, id 1, named name) on one
    x86_64 CPU, with data's records, written to argv[1]."""
    if len(argv) != 2:
        sys.exit("usage: %s OUT" % prog)
    feats = one_event_features(hostname, "x86_64", cmdline, attr, name)
    with open(argv[1], "wb") as f:
        f.write(file_bytes([(attr, [1])], data, feats))
    return 0


def file_layout(ids, attrs, data, feats):
    """A file-mode capture as perf lays it out: the 104-byte header, the
    ids (which attrs points into, from offset 104), the attrs section,
    the data section, then the feature table and sections, in bit
    order."""
    attrs_off = 104 + len(ids)
    data_off = attrs_off + len(attrs)
    table_off = data_off + len(data)
    table = b""
    body = b""
    pos = table_off + 16 * len(feats)
    bits = [0, 0, 0, 0]
    for feat, section in feats:
        table += struct.pack("<QQ", pos + len(body), len(section))
        body += section
        bits[feat // 64] |= 1 << (feat % 64)
    header = b"PERFILE2" + struct.pack(
        "<QQQQQQQQ4Q", 104, 144, attrs_off, len(attrs), data_off, len(data),
        0, 0, *bits)
    return header + ids + attrs + data + table + body


def file_bytes(events, data, feats):
    """file_layout() of events, (attr bytes, [ids]) pairs: the ids laid
    out from offset 104 and each attr followed by where its ids are."""
    ids = b"".join(struct.pack("<%dQ" % len(i), *i) for _, i in events)
    attrs = b""
    id_off = 104
    for attr, event_ids in events:
        attrs += attr
        attrs += struct.pack("<QQ", id_off if event_ids else 0,
                             8 * len(event_ids))
        id_off += 8 * len(event_ids)
    return file_layout(ids, attrs, data, feats)


def file_mode():
    return file_bytes([(attr_bytes(e, False), e["ids"]) for e in EVENTS],
                      data_records(), features())


def pipe_bytes(events, data, feats):
    """A pipe-mode capture as perf 6.1 streams it: the 16-byte header, a
    HEADER_ATTR per (attr bytes, [ids]) of events, a HEADER_FEATURE per
    (feature id, section bytes) of feats and the end mark, then data."""
    out = b"PERFILE2" + struct.pack("<Q", 16)
    for attr, ids in events:
        out += record(64, 0, attr + struct.pack("<%dQ" % len(ids), *ids))
    for feat, section in feats:
        out += record(80, 0, struct.pack("<Q", feat) + pad8(section))
    out += record(80, 0, struct.pack("<Q", 32))    # perf 6.1's end mark
    return out + data


def pipe_mode():
    return pipe_bytes([(attr_bytes(e, True), e["ids"]) for e in EVENTS],
                      data_records(), features())


def main(argv):
    args = argv[1:]
    pipe = "--pipe" in args
    args = [a for a in args if a != "--pipe"]
    if len(args) != 1:
        sys.stderr.write("usage: pd_synth.py [--pipe] OUT\n")
        return 64
    with open(args[0], "wb") as f:
        f.write(pipe_mode() if pipe else file_mode())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
