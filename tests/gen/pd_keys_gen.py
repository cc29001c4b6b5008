#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pd_keys_gen.py - write a capture whose samples carry the fields of
perf's transaction, code_page_size and data_page_size sort keys:

    pd_keys_gen.py OUT

One event (cycles, sample_type IP, TID, TIME, ADDR, CPU, PERIOD,
CALLCHAIN, DATA_SRC, TRANSACTION, DATA_PAGE_SIZE, CODE_PAGE_SIZE: a
user callchain of two or three frames), one process
(100, comm "keys") with a code map (/opt/pd-keys/bin r-xp) and a data
map, and 30 samples cycling through TSX transaction flag sets (none,
elision, transaction with sync or async aborts, retry, conflict,
capacity, abort codes in the top 32 bits) and page sizes (none, 4K,
2M, 1G, 1024 bytes, 2K, 64K).  No binary exists.  The bytes depend on
nothing but this script.
"""

import struct
import sys

from pd_synth import one_event_main, pad8, record

# IP, TID, TIME, ADDR, CPU, PERIOD, CALLCHAIN, DATA_SRC, TRANSACTION,
# DATA_PAGE_SIZE, CODE_PAGE_SIZE
SAMPLE_TYPE = (1 | 2 | 4 | 8 | (1 << 5) | (1 << 7) | (1 << 8) | (1 << 15) |
               (1 << 17) | (1 << 22) | (1 << 23))
CONTEXT_USER = (1 << 64) - 512
MISC_USER = 2
PID = 100
# a load that hit L1
DATA_SRC = 0x2 | (0xa << 5)

# PERF_TXN_*: ELISION 1, TRANSACTION 2, SYNC 4, ASYNC 8, RETRY 0x10,
# CONFLICT 0x20, CAPACITY_WRITE 0x40, CAPACITY_READ 0x80; the abort
# code in the top 32 bits
TXNS = [0, 0x1, 0x2 | 0x4, 0x2 | 0x8, 0x2 | 0x10 | 0x4, 0x2 | 0x20 | 0x8,
        0x2 | 0x40 | 0x4, 0x1 | 0x80 | 0x8, 0x2 | (0x5 << 32), 0x2,
        0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | (0xff << 32)]
PAGES = [0, 4096, 2 << 20, 1 << 30, 1024, 2048, 65536]


def attr_bytes():
    return struct.pack("<IIQQQQQIIQQQQIiQIHHIIQQ", 0, 128, 0, 4000,
                       SAMPLE_TYPE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0)[:128]


def data_records():
    recs = [record(3, 0, struct.pack("<II", PID, PID) + pad8(b"keys\0"))]
    for start, length, pgoff, prot, name in (
            (0x400000, 0x4000, 0, 5, b"/opt/pd-keys/bin"),
            (0x7f0000000000, 0x100000, 0, 3, b"//anon")):
        body = struct.pack("<IIQQQIIQQII", PID, PID, start, length, pgoff,
                           8 if prot == 5 else 0, 1 if prot == 5 else 0,
                           77 if prot == 5 else 0, 0, prot, 2)
        recs.append(record(10, MISC_USER, body + pad8(name + b"\0")))
    for n in range(30):
        ip = 0x401000 + 0x40 * (n % 5)
        addr = 0x7f0000000000 + 0x1000 * (n % 7)
        txn = TXNS[n % len(TXNS)]
        code_page = PAGES[n % len(PAGES)]
        data_page = PAGES[(n * 3) % len(PAGES)]
        period = 1000 + 7 * n
        # called from 0x402000, from 0x403000 (every third sample
        # directly)
        chain = [CONTEXT_USER, ip, 0x402000] + ([] if n % 3 else [0x403000])
        body = struct.pack("<QIIQQIIQQ%dQQQQQ" % len(chain), ip, PID, PID,
                           2000000000 + 1000 * n, addr, n % 2, 0, period,
                           len(chain), *chain, DATA_SRC, txn, data_page,
                           code_page)
        recs.append(record(9, MISC_USER, body))
    recs.append(record(68, 0, b""))
    return b"".join(recs)


def main(argv):
    return one_event_main(argv, "pd_keys_gen.py", "pd-keys-host",
                          ["perf", "record", "-d", "--transaction",
                           "--code-page-size", "--data-page-size"],
                          attr_bytes(), "cycles", data_records())


if __name__ == "__main__":
    sys.exit(main(sys.argv))
