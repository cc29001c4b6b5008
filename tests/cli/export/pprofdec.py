#!/usr/bin/env python3
"""pprofdec.py - a decoder of pprof's profile.proto of our own, for the
export tests: it reads a (gzipped) profile, walks every message and every
field, checks what profile.proto requires (string_table[0] is "", ids are
non-zero and unique, every reference names an entry that exists, every
sample has one value per sample type, a known wire type for each field),
and prints what the tests compare:

  pprofdec.py check FILE         the counts, or the first violation (exit 1)
  pprofdec.py flat FILE [TYPE]   "share<TAB>function" per leaf function of
                                 the sample type (default: the profile's
                                 default_sample_type), share in percent
  pprofdec.py stacks FILE TYPE   "count<TAB>root;...;leaf" per distinct
                                 stack of function names, inlined frames
                                 expanded as pprof expands them
"""
import gzip
import sys
from collections import defaultdict


class Bad(Exception):
    pass


def varint(b, i):
    v = shift = 0
    while True:
        if i >= len(b):
            raise Bad("varint past the end at %d" % i)
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        if not c & 0x80:
            return v, i
        shift += 7
        if shift > 63:
            raise Bad("varint longer than 10 bytes at %d" % i)


def fields(b):
    """(field, wire, value) of a message; value an int or bytes."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if f == 0:
            raise Bad("field number 0")
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise Bad("field %d: %d bytes past the end" % (f, n))
            v, i = b[i:i + n], i + n
        elif w == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif w == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            raise Bad("field %d: wire type %d" % (f, w))
        if i > len(b):
            raise Bad("field %d past the end" % f)
        yield f, w, v


def packed(w, v):
    """A repeated varint field, packed (bytes) or not (one int)."""
    if w == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def msg(v, w, what):
    if w != 2:
        raise Bad("%s: not a message (wire type %d)" % (what, w))
    return list(fields(v))


def by_id(table, v, w, what):
    """A message of scalars (Mapping, Function) into table by its id,
    field 1, which must be non-zero and new."""
    m = defaultdict(int)
    for g, _, x in msg(v, w, what):
        m[g] = x
    if not m[1] or m[1] in table:
        raise Bad("%s id %d: zero or twice" % (what, m[1]))
    table[m[1]] = m


def decode(data):
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    p = {"sample_type": [], "sample": [], "mapping": {}, "location": {},
         "function": {}, "strings": [], "comment": [], "default": 0,
         "period_type": None}
    for f, w, v in fields(data):
        if f in (1, 11):
            vt = {1: 0, 2: 0}
            for g, _, x in msg(v, w, "ValueType"):
                vt[g] = x
            if f == 1:
                p["sample_type"].append((vt[1], vt[2]))
            else:
                p["period_type"] = (vt[1], vt[2])
        elif f == 2:
            s = {"loc": [], "val": []}
            for g, gw, x in msg(v, w, "Sample"):
                if g == 1:
                    s["loc"] += packed(gw, x)
                elif g == 2:
                    s["val"] += [signed(y) for y in packed(gw, x)]
            p["sample"].append(s)
        elif f == 3:
            by_id(p["mapping"], v, w, "Mapping")
        elif f == 4:
            loc = {"id": 0, "mapping": 0, "address": 0, "lines": []}
            for g, gw, x in msg(v, w, "Location"):
                if g == 1:
                    loc["id"] = x
                elif g == 2:
                    loc["mapping"] = x
                elif g == 3:
                    loc["address"] = x
                elif g == 4:
                    ln = defaultdict(int)
                    for h, _, y in msg(x, gw, "Line"):
                        ln[h] = y
                    loc["lines"].append((ln[1], signed(ln[2])))
            if not loc["id"] or loc["id"] in p["location"]:
                raise Bad("location id %d: zero or twice" % loc["id"])
            p["location"][loc["id"]] = loc
        elif f == 5:
            by_id(p["function"], v, w, "Function")
        elif f == 6:
            if w != 2:
                raise Bad("string_table: wire type %d" % w)
            p["strings"].append(v.decode("utf-8"))
        elif f == 13:
            p["comment"] += packed(w, v)
        elif f == 14:
            p["default"] = v
    check(p)
    return p


def check(p):
    st = p["strings"]
    if not st or st[0] != "":
        raise Bad("string_table[0] is not \"\"")

    def s(i, what):
        if i >= len(st):
            raise Bad("%s: string %d of %d" % (what, i, len(st)))
        return st[i]

    for t, u in p["sample_type"] + ([p["period_type"]] if p["period_type"] else []):
        s(t, "ValueType.type")
        s(u, "ValueType.unit")
    for c in p["comment"]:
        s(c, "comment")
    if p["default"]:
        names = [st[t] for t, _ in p["sample_type"]]
        if s(p["default"], "default_sample_type") not in names:
            raise Bad("default_sample_type names no sample type")
    for m in p["mapping"].values():
        s(m[5], "Mapping.filename")
        s(m[6], "Mapping.build_id")
        if m[3] and m[3] < m[2]:
            raise Bad("mapping %d: limit below start" % m[1])
    for fn in p["function"].values():
        for k in (2, 3, 4):
            s(fn[k], "Function field %d" % k)
    for loc in p["location"].values():
        if loc["mapping"] and loc["mapping"] not in p["mapping"]:
            raise Bad("location %d: mapping %d unknown" % (loc["id"], loc["mapping"]))
        for fid, _ in loc["lines"]:
            if fid not in p["function"]:
                raise Bad("location %d: function %d unknown" % (loc["id"], fid))
    for i, smp in enumerate(p["sample"]):
        if len(smp["val"]) != len(p["sample_type"]):
            raise Bad("sample %d: %d values for %d types"
                      % (i, len(smp["val"]), len(p["sample_type"])))
        for lid in smp["loc"]:
            if lid not in p["location"]:
                raise Bad("sample %d: location %d unknown" % (i, lid))


def type_index(p, name):
    names = [p["strings"][t] for t, _ in p["sample_type"]]
    if name is None:
        name = p["strings"][p["default"]] if p["default"] else names[-1]
    return names.index(name)


def frames(p, smp):
    """Function names leaf first, inlined frames expanded."""
    out = []
    for lid in smp["loc"]:
        loc = p["location"][lid]
        if not loc["lines"]:
            out.append("0x%x" % loc["address"])
        for fid, _ in loc["lines"]:
            out.append(p["strings"][p["function"][fid][2]])
    return out


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    try:
        p = decode(open(path, "rb").read())
    except (Bad, ValueError, OSError, EOFError) as e:
        print("%s: %s" % (path, e))
        return 1
    if cmd == "check":
        print("%d sample types, %d samples, %d locations, %d functions, "
              "%d mappings (%d with a build-id), %d strings"
              % (len(p["sample_type"]), len(p["sample"]), len(p["location"]),
                 len(p["function"]), len(p["mapping"]),
                 sum(1 for m in p["mapping"].values() if m[6]),
                 len(p["strings"])))
        return 0
    ti = type_index(p, sys.argv[3] if len(sys.argv) > 3 else None)
    acc = defaultdict(int)
    for smp in p["sample"]:
        fr = frames(p, smp)
        if cmd == "flat":
            acc[fr[0] if fr else ""] += smp["val"][ti]
        else:
            acc[";".join(reversed(fr))] += smp["val"][ti]
    total = sum(acc.values())
    for k, v in sorted(acc.items(), key=lambda kv: (-kv[1], kv[0])):
        if not v:
            continue
        if cmd == "flat":
            print("%.2f\t%s" % (100.0 * v / total, k))
        else:
            print("%d\t%s" % (v, k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
