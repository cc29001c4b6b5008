#!/usr/bin/env python3
"""buildid_dir.py [--perf-layout] DIR ELF...: a perf build-id cache in DIR
holding each ELF file, DIR/.build-id/xx/rest/elf -> the file, so pdtool (or
perf) finds a binary by its build-id wherever it now lives.  Files without
a GNU build-id note are left out (and named on stderr).

--perf-layout: the layout perf buildid-cache makes and perf archive packs,
a copy of the file in DIR/PATH/BUILDID/elf (PATH: its absolute path) and
DIR/.build-id/xx/rest -> ../../PATH/BUILDID, for tarballs made as perf
archive makes them.

A kernel's vdso image (testdata/vdso/ARCH/BUILDID, told by its soname
linux-vdso*.so.1 or linux-gate.so.1) is kept as perf keeps one:
DIR/.build-id/xx/rest/vdso, or DIR/[vdso]/BUILDID/vdso with
--perf-layout, since pdtool and perf look for a [vdso] under that name
only."""
import os
import shutil
import struct
import sys


def build_id(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        return None
    is64, le = data[4] == 2, data[5] == 1
    e = "<" if le else ">"
    if is64:
        shoff, = struct.unpack_from(e + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(e + "HH", data, 0x3A)
    else:
        shoff, = struct.unpack_from(e + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(e + "HH", data, 0x2E)
    for i in range(shnum):
        sh = shoff + i * shentsize
        if is64:
            typ, = struct.unpack_from(e + "I", data, sh + 4)
            off, size = struct.unpack_from(e + "QQ", data, sh + 0x18)
        else:
            typ, = struct.unpack_from(e + "I", data, sh + 4)
            off, size = struct.unpack_from(e + "II", data, sh + 0x10)
        if typ != 7:  # SHT_NOTE
            continue
        p, end = off, off + size
        while p + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from(e + "III", data, p)
            name = data[p + 12:p + 12 + namesz]
            desc_at = p + 12 + ((namesz + 3) & ~3)
            if ntype == 3 and name[:3] == b"GNU":
                return data[desc_at:desc_at + descsz].hex()
            p = desc_at + ((descsz + 3) & ~3)
    return None


def is_vdso(path):
    """Whether path is a vdso image: its soname says so."""
    with open(path, "rb") as f:
        data = f.read()
    return b"linux-vdso" in data or b"linux-gate.so" in data


def perf_layout(top, path, bid, vdso):
    rel = "[vdso]" if vdso else os.path.abspath(path).lstrip("/")
    d = os.path.join(top, rel, bid)
    os.makedirs(d, exist_ok=True)
    shutil.copyfile(path, os.path.join(d, "vdso" if vdso else "elf"))
    links = os.path.join(top, ".build-id", bid[:2])
    os.makedirs(links, exist_ok=True)
    link = os.path.join(links, bid[2:])
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(os.path.join("..", "..", rel, bid), link)


def main():
    args = sys.argv[1:]
    layout = args[:1] == ["--perf-layout"]
    if layout:
        args = args[1:]
    top = args[0]
    for path in args[1:]:
        bid = build_id(path)
        if not bid:
            print("buildid_dir.py: no build-id in " + path, file=sys.stderr)
            continue
        vdso = is_vdso(path)
        if layout:
            perf_layout(top, path, bid, vdso)
            continue
        d = os.path.join(top, ".build-id", bid[:2], bid[2:])
        os.makedirs(d, exist_ok=True)
        link = os.path.join(d, "vdso" if vdso else "elf")
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(os.path.abspath(path), link)


if __name__ == "__main__":
    main()
