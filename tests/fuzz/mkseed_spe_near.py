#!/usr/bin/env python3
"""mkseed_spe_near.py - a seed for the spe fuzz target
(tests/fuzz/fuzz_spe.c) of records in pd_spe_next_record_lean()'s fixed
layouts (reader/pd_spe.c, fixed_record) and of records one header byte,
size or PAD run away from them, so that the check of the lean decoder
against the general one covers each layout taken and each way out of
them: the CONTEXT indexes, a kernel PC, a one-byte EVENTS, a two-byte
DATA_SOURCE, the reserved operation class, END for TIMESTAMP, PAD runs
of 3, 16 and 17 bytes before a record, a PAD inside one, a record cut
short.  The input's metadata byte and two version-1 words come from
the spe_gen seed (mkseed_spe.py).

    python3 tests/fuzz/mkseed_spe_near.py tests/fuzz/corpus/spe
"""
import os
import struct
import sys


def ctx(i=1):
    return bytes([0x64 | i]) + struct.pack('<I', 0x10f7)


def addr(i, v):
    return bytes([0xb0 | i]) + struct.pack('<Q', v)


def cnt(i, v):
    return bytes([0x98 | i]) + struct.pack('<H', v)


SIZE_BITS = {1: 0, 2: 0x10, 4: 0x20, 8: 0x30}


def sized(hdr, v, sz):
    return bytes([hdr | SIZE_BITS[sz]]) + v.to_bytes(sz, 'little')


def ts(v):
    return bytes([0x71]) + struct.pack('<Q', v)


PC = 0x8000aaaa00000960
VA = 0xffffc0001000
PA = 0x8000000080001000


def ldst(ci=1, pc=PC, evsz=2, cls=1, opv=0, src=True, srcsz=1,
         end=ts(0x735a00)):
    r = (ctx(ci) + addr(0, pc) + cnt(1, 3) + cnt(0, 9) +
         sized(0x42, 0x1e, evsz) + bytes([0x48 | cls, opv]))
    r += addr(2, VA) + cnt(2, 1) + addr(3, PA)
    if src:
        r += sized(0x43, 0xa, srcsz)
    return r + end


def main():
    out = sys.argv[1]
    with open(os.path.join(out, 'seed-lean-spe_gen'), 'rb') as f:
        head = f.read()[:17]
    br = (ctx() + addr(0, PC) + cnt(1, 1) + cnt(0, 2) + sized(0x42, 0x82, 2) +
          bytes([0x4a, 1]) + addr(1, 0x8000aaaa000008f4) + ts(0x735b00))
    oth = (ctx() + addr(0, PC) + cnt(1, 1) + cnt(0, 2) +
           sized(0x42, 0x2, 2) + bytes([0x48, 0]) + ts(0x735c00))
    recs = [ldst(), br, oth, ldst(src=False), ldst(ci=0), ldst(ci=3),
            ldst(pc=0xe000ffff80001000), ldst(evsz=1), ldst(srcsz=2),
            ldst(cls=3), ldst(end=b'\x01'), ldst(opv=0x25),
            b'\x00' * 3 + ldst(), b'\x00' * 16 + ldst(), b'\x00' * 17 + br,
            br[:-9] + b'\x01', oth[:25] + b'\x00\x00' + oth[25:],
            ldst()[:46] + b'\x43', ldst(), br, oth]
    trace = b''.join(recs * 3) + ldst() + br
    with open(os.path.join(out, 'seed-lean-fixed-near'), 'wb') as f:
        f.write(head + trace)


if __name__ == '__main__':
    main()
