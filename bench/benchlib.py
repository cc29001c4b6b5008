"""benchlib.py - what bench/report.py and bench/fold_report.py share: the
two inputs bench/run.sh and bench/fold.sh hand them.

FILES: one line per capture, "path size key=value..." (bench_reader's
counts).  ROWS: tab-separated "command, path, median wall microseconds,
peak RSS KB, median CPU microseconds, peak anonymous KB" (bench/lib.sh's
measure; rows written before memwatch have no anonymous column).
"""


def short(path):
    """A capture's file name, for tables."""
    return path.rsplit("/", 1)[-1]


def read_files(name):
    """FILES as ({path: {size, records, samples, decomp}}, [paths])."""
    files = {}
    order = []
    for line in open(name):
        parts = line.split()
        info = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
        files[parts[0]] = {"size": int(parts[1]),
                           "records": int(info.get("records", 0)),
                           "samples": int(info.get("samples", 0)),
                           "decomp": int(info.get("decompressed_bytes", 0))}
        order.append(parts[0])
    return files, order


def read_rows(name):
    """ROWS as [(command, path, seconds, KB)], and the seconds and the KB
    by (command, path)."""
    rows = []
    for line in open(name):
        cmd, path, us, kb = line.rstrip("\n").split("\t")[:4]
        rows.append((cmd, path, int(us) / 1e6, int(kb)))
    t = {(c, p): s for c, p, s, _ in rows}
    rss = {(c, p): k for c, p, _, k in rows}
    return rows, t, rss


def read_anon(name):
    """ROWS' peak anonymous KB by (command, path); None where not
    measured."""
    anon = {}
    for line in open(name):
        f = line.rstrip("\n").split("\t")
        anon[(f[0], f[1])] = int(f[5]) if len(f) > 5 else None
    return anon


def mb(kb):
    """KB as MB for a table, "-" when not measured."""
    return "-" if kb is None else "%.1f" % (kb / 1024)
