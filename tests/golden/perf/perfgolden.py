#!/usr/bin/env python3
"""perfgolden.py - turn perf 6.1's output into the golden files.

    perfgolden.py stats REPORT_OUT > NAME.stats
    perfgolden.py samples EVLIST_OUT DUMP_OUT [STATUS] > NAME.samples
    perfgolden.py recount NAME.stats NR_COMPRESSED2 NR_COMPRESSED

stats: REPORT_OUT is `perf report --stats` output.  Its "Aggregated stats"
block becomes one "TYPE count" line per record type, as perf names it
(ATTR, FEATURE, ... for perf's own HEADER_* records); TOTAL is left out.

samples: EVLIST_OUT is `perf evlist -v` (each event's sample_type) and
DUMP_OUT is `perf script --dump-unsorted-raw-trace -F event`: perf's raw
dump of every record in file order (decompressed records included) with,
after each sample, the script line naming its event.  Each SAMPLE becomes

    pid tid time cpu period ip nr

(decimal, ip in hex, nr = the raw callchain length, PERF_CONTEXT_* markers
included), "-" where the sample's event does not sample that field: perf
prints a default for those (period = attr.sample_period, pid = -1...),
which is not in the file.  A sample perf dumps without decoding it (no
event for its id) is "? ? ? ? ? ? ?".  For a directory capture the lines
are in the order of its files (data, data.0, data.1, ...), each in file
order.  Comment lines first: the fields, and "# partial: ..." when perf
stopped before the end (STATUS = perf's exit status and last error).
"""
import re
import sys

# The sample_type bit behind each column.
COLUMNS = [("pid", "TID"), ("tid", "TID"), ("time", "TIME"), ("cpu", "CPU"),
           ("period", "PERIOD"), ("ip", "IP"), ("nr", "CALLCHAIN")]

STATS_RE = re.compile(r"^\s*(\S+) events:\s+(\d+)")
# perf evlist -v leaves out "type: 0" and a zero sample_type
EVLIST_RE = re.compile(
    r"^(.+?): (?:type|size): (?:.*?sample_type: ([A-Z0-9_|]+))?")
EVENT_LINE_RE = re.compile(r"^(0x[0-9a-f]+|0)@(.*) \[0x[0-9a-f]+\]: event: (\d+)$")
SAMPLE_RE = re.compile(
    r"^((?:-?\d+ )*)(0x[0-9a-f]+|0) \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE"
    r"(?:\(IP, 0x[0-9a-f]+\): (-?\d+)/(-?\d+): (0x[0-9a-f]+|0) "
    r"period: (\d+) addr: )?")
CHAIN_RE = re.compile(r"^\.\.\. FP chain: nr:(\d+)")


def stats(path):
    out = []
    in_block = False
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("Aggregated stats"):
            in_block = True
            continue
        if not in_block:
            continue
        m = STATS_RE.match(line)
        if not m:
            if line.strip():
                break
            continue
        if m.group(1) != "TOTAL":
            out.append("%s %s" % (m.group(1), m.group(2)))
    if not in_block:
        sys.exit("perfgolden: no 'Aggregated stats' in " + path)
    return out


def evsel_types(path):
    types = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        m = EVLIST_RE.match(line.rstrip("\n"))
        if not m:
            continue
        bits = set(m.group(2).split("|")) if m.group(2) else set()
        name = m.group(1)
        if name in types and types[name] != bits:
            types[name] = None      # same name, different sample types
        else:
            types[name] = bits
    return types


def pipe_attr_types(dump_path):
    """sample_type of each HEADER_ATTR record, from perf's hex dump of it.

    perf evlist prints nothing for some pipe-mode files; the attrs are
    then only in the stream.  In the record, sample_type is the u64 at byte
    32 (header 8, type 4, size 4, config 8, sample_period 8); the captures
    are little-endian (MANIFEST.md).
    """
    names = ["IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU",
             "PERIOD", "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER",
             "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER",
             "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP",
             "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT"]
    found = []
    data = None
    for line in open(dump_path, encoding="utf-8", errors="replace"):
        m = EVENT_LINE_RE.match(line.rstrip("\n"))
        if m:
            data = bytearray() if m.group(3) == "64" else None
            continue
        if data is None:
            continue
        m = re.match(r"^\.  [0-9a-f]{4}:  ((?:[0-9a-f]{2} )+)", line)
        if m:
            data += bytes.fromhex(m.group(1).replace(" ", ""))
        elif "PERF_RECORD_ATTR" in line:
            st = int.from_bytes(data[32:40], "little")
            found.append({n for i, n in enumerate(names) if st >> i & 1})
            data = None
    return found


def file_rank(path):
    """data -> 0, data.N -> N + 1; any other (a single file) -> 0."""
    m = re.search(r"/data(?:\.(\d+))?$", path)
    if not m or m.group(1) is None:
        return 0
    return int(m.group(1)) + 1


def parse_dump(dump_path, combined):
    """[rank, seq, values or None, event name] of each SAMPLE."""
    rows = []
    cur = None
    rank = 0
    for raw in open(dump_path, encoding="utf-8", errors="replace"):
        line = raw.rstrip("\n")
        m = EVENT_LINE_RE.match(line)
        if m:
            rank = file_rank(m.group(2))
            cur = None
            continue
        m = SAMPLE_RE.match(line)
        if m:
            prefix = m.group(1).split()
            if m.group(3) is None:      # perf could not decode it
                rows.append([rank, len(rows), None, None])
                cur = None
                continue
            # evlist__print_tstamp: cpu, then time, as the union of the
            # sample types has them
            cpu = time = None
            if "CPU" in combined and prefix:
                cpu = prefix.pop(0)
            if "TIME" in combined and prefix:
                time = prefix.pop(0)
            vals = {"pid": int(m.group(3)) & 0xffffffff,
                    "tid": int(m.group(4)) & 0xffffffff,
                    "time": time, "cpu": cpu, "period": m.group(6),
                    "ip": "0x%x" % int(m.group(5), 16), "nr": None}
            cur = [rank, len(rows), vals, None]
            rows.append(cur)
            continue
        if cur is None:
            continue
        m = CHAIN_RE.match(line)
        if m and cur[2]["nr"] is None:
            cur[2]["nr"] = m.group(1)
            continue
        # the script line that follows the dump: "<event>: "
        if (cur[3] is None and line.endswith(": ") and
                not line.startswith(".") and not line.startswith(" ...")):
            cur[3] = line.strip()[:-1]
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows


def header(status):
    out = ["# perf 6.1: " + " ".join(c for c, _ in COLUMNS) +
           " (- = not sampled, ? = perf does not tell)"]
    if status:
        out.append("# partial: " + status)
    return out


def samples(evlist_path, dump_path, status):
    types = evsel_types(evlist_path)
    if not types:
        attrs = pipe_attr_types(dump_path)
        if not attrs:
            sys.exit("perfgolden: no events in " + evlist_path)
        if any(a != attrs[0] for a in attrs):
            return guessed_samples(attrs, dump_path, status)
        types = {None: attrs[0]}
    known = [t for t in types.values() if t is not None]
    uniform = all(t == known[0] for t in types.values())
    out = header(status)
    matched = {}
    for _, _, vals, name in parse_dump(dump_path, set().union(*known)):
        if vals is None:
            out.append(" ".join("?" for _ in COLUMNS))
            continue
        bits = known[0] if uniform else types.get(name)
        if bits is None and not uniform and name is not None:
            # in pipe mode perf evlist names events from their attrs
            # ("cycles:ppp"), perf script from EVENT_UPDATE ("cycles:P"):
            # match on the name without modifiers when that is unique
            base = [n for n in types if n and
                    n.split(":")[0] == name.split(":")[0]]
            if len(base) == 1:
                bits = types[base[0]]
                matched[name] = base[0]
        if bits is None:
            sys.exit("perfgolden: cannot tell the sample type of event "
                     "'%s' in %s" % (name, dump_path))
        cols = []
        for col, bit in COLUMNS:
            v = vals[col]
            if bit not in bits:
                v = "-"
            elif v is None:
                sys.exit("perfgolden: perf printed no %s for a sample "
                         "of '%s' in %s" % (col, name, dump_path))
            cols.append(str(v))
        out.append(" ".join(cols))
    if matched:
        out.insert(1, "# event names matched without modifiers: " +
                   ", ".join("%s = %s" % kv for kv in sorted(matched.items())))
    return out


def guessed_samples(attrs, dump_path, status):
    """Pipe mode, attrs with different sample types and no perf evlist.

    Which attr a sample belongs to is not in perf's dump, so: a field
    every attr samples is given, one none samples is "-", and otherwise
    pid/tid/time/cpu are "-" where perf printed its "not sampled" value
    (-1) and period/ip/nr are "?".
    """
    every = set.intersection(*attrs)
    some = set.union(*attrs)
    unset = {"pid": 0xffffffff, "tid": 0xffffffff, "cpu": "4294967295",
             "time": "18446744073709551615"}
    out = header(status)
    out.append("# guessed: attrs differ in sample_type and perf evlist "
               "prints none; fields some attrs lack are inferred")
    for _, _, vals, _ in parse_dump(dump_path, some):
        if vals is None:
            out.append(" ".join("?" for _ in COLUMNS))
            continue
        cols = []
        for col, bit in COLUMNS:
            v = vals[col]
            if bit not in some:
                v = "-"
            elif bit in every:
                pass
            elif col in unset:
                v = "-" if v == unset[col] else v
            elif col == "nr":
                v = "?" if v is None else v
            else:
                v = "?"
            cols.append(str(v))
        out.append(" ".join(cols))
    return out


def recount(path, nr_comp2, nr_comp1):
    """Turn the counts perf made of a comp2to1.py copy back into the
    original's: NR_COMP2 of its COMPRESSED records were COMPRESSED2 there,
    and NR_COMP1 were COMPRESSED.  When perf stopped early it may have
    counted only some of them: then only an original without COMPRESSED
    tells which they were."""
    lines = open(path, encoding="utf-8").read().splitlines()
    partial = any(l.startswith("# partial:") for l in lines)
    out = []
    for line in lines:
        if line.startswith("#") or not line:
            out.append(line)
            continue
        name, count = line.split()
        if name != "COMPRESSED":
            out.append(line)
            continue
        count = int(count)
        if nr_comp1 == 0:
            out.append("COMPRESSED2 %d" % count)
        elif not partial and count == nr_comp1 + nr_comp2:
            out.append("COMPRESSED %d" % nr_comp1)
            out.append("COMPRESSED2 %d" % nr_comp2)
        elif not partial:
            sys.exit("perfgolden: perf counted %d COMPRESSED in %s, the "
                     "copy has %d" % (count, path, nr_comp1 + nr_comp2))
    return out


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "recount":
        lines = recount(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        with open(sys.argv[2], "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        return
    if len(sys.argv) == 3 and sys.argv[1] == "stats":
        lines = stats(sys.argv[2])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "samples":
        lines = samples(sys.argv[2], sys.argv[3],
                        sys.argv[4] if len(sys.argv) == 5 else "")
    else:
        sys.exit(__doc__)
    sys.stdout.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()
