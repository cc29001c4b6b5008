#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_aux_synth.py - write a capture holding an Intel PT trace and no
samples, as `perf record -e intel_pt//u` writes one: an intel_pt// event
(PMU type 8 here; its name from HEADER_EVENT_DESC), an AUXTRACE_INFO
record and an AUXTRACE record with its payload.

    pd_aux_synth.py OUT

This VM has no PT-capable CPU, so perf cannot record one here; the
trace's bytes are zeros: what is tested is that pdtool says what the
capture holds, not that it decodes it.
"""

import struct
import sys

import pd_synth

PT_TYPE = 8


def capture():
    attr = bytearray(pd_synth.cpu_clock_attr(
        ["disabled", "exclude_kernel", "exclude_hv", "mmap", "comm",
         "sample_id_all", "mmap2", "comm_exec"], 0x107))
    struct.pack_into("<I", attr, 0, PT_TYPE)
    attr = bytes(attr)
    payload = bytes(64)
    data = pd_synth.record(70, 0, struct.pack("<II", 1, 0) + bytes(8 * 4))
    data += pd_synth.record(71, 0, struct.pack(
        "<QQQIIII", len(payload), 0, 0x1234, 0, pd_synth.PID, 0, 0))
    data += payload
    data += pd_synth.record(68, 0, b"")
    feats = [f for f in pd_synth.one_event_features(
        "synth-host", "x86_64",
        ["/usr/bin/perf", "record", "-e", "intel_pt//u"], attr)
        if f[0] != 12]
    desc = struct.pack("<II", 1, len(attr)) + attr + \
        struct.pack("<I", 0) + pd_synth.string_feature("intel_pt//u")
    feats.append((12, desc))
    feats.sort()
    return pd_synth.file_bytes([(attr, [])], data, feats)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: pd_aux_synth.py OUT\n")
        return 64
    with open(argv[1], "wb") as f:
        f.write(capture())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
