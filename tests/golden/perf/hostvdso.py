#!/usr/bin/env python3
"""hostvdso.py - this host's vdso, as the kernel maps it into every
process (read from this process's own mapping):

    hostvdso.py --build-id     its GNU build-id, in hex
    hostvdso.py DIR            it, into the build-id cache DIR as perf
                               keeps a vdso: DIR/.build-id/xx/rest/vdso
    hostvdso.py --image DIR    it, as DIR/ARCH/BUILDID (testdata/vdso,
                               which the tests read on any kernel)

A capture recorded on this kernel names the same build-id for [vdso]:
perf then finds its symbols in the cache (perf7-latency-regen.sh), and a
test can tell whether this host is such a one (perf7-latency.test)."""
import os
import re
import sys


def image():
    maps = open('/proc/self/maps').read()
    m = re.search(r'^([0-9a-f]+)-([0-9a-f]+) .*\[vdso\]$', maps, re.M)
    if not m:
        sys.exit('hostvdso.py: no [vdso] mapping')
    lo, hi = int(m.group(1), 16), int(m.group(2), 16)
    with open('/proc/self/mem', 'rb') as f:
        f.seek(lo)
        return f.read(hi - lo)


def build_id(data):
    """The payload of the first GNU build-id note (type 3, 20 bytes)."""
    i = data.find(b'GNU\0')
    while i >= 12:
        namesz = int.from_bytes(data[i - 12:i - 8], 'little')
        descsz = int.from_bytes(data[i - 8:i - 4], 'little')
        ntype = int.from_bytes(data[i - 4:i], 'little')
        if namesz == 4 and ntype == 3:
            return data[i + 4:i + 4 + descsz].hex()
        i = data.find(b'GNU\0', i + 1)
    sys.exit('hostvdso.py: the vdso has no build-id note')


def main():
    data = image()
    bid = build_id(data)
    if sys.argv[1:] == ['--build-id']:
        print(bid)
        return
    if sys.argv[1:2] == ['--image'] and len(sys.argv) == 3:
        d = os.path.join(sys.argv[2], os.uname().machine)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, bid), 'wb') as f:
            f.write(data)
        return
    d = os.path.join(sys.argv[1], '.build-id', bid[:2], bid[2:])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'vdso'), 'wb') as f:
        f.write(data)


if __name__ == '__main__':
    main()
