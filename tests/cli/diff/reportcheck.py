#!/usr/bin/env python3
"""reportcheck.py - read `pdtool diff`'s text report and check what
builds.test and noise.test expect of it.

    reportcheck.py top REPORT TABLE NAME VERDICT SIGN
        TABLE's first row (the largest change) is NAME with VERDICT and a
        change of SIGN (+ or -)
    reportcheck.py row REPORT TABLE NAME VERDICT
        TABLE has a row NAME with VERDICT
    reportcheck.py single REPORT
        one capture a side: the report says that run-to-run variation is
        not covered, no row is "significant", and every row whose
        sampling p is below the level is "sampling-only", no other
    reportcheck.py multi REPORT COUNT
        several captures a side: the report names Welch's t-test, and
        COUNT rows of all tables together are "significant"; every
        "significant" row has both p-values below the level, every
        "sampling-only" row a sampling p below it and a runs p not

TABLE is the table's title, e.g. "Self, per symbol".  Prints what it
found; exits 1 when a check fails.
"""
import re
import sys

ROW = re.compile(r"^ *(\S+) +(\S+) +(\S+) +(\S+)(?: +(\S+))?  "
                 r"(significant|sampling-only|-) +(.*)$")


def parse(path):
    text = open(path, encoding="utf-8").read()
    level = float(re.search(r"significance level ([0-9.e-]+)\.",
                            text).group(1))
    tables, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^(Self|Inclusive), per (symbol|DSO): ", line)
        if m:
            cur = tables.setdefault("%s, per %s" % m.groups(), [])
            continue
        r = ROW.match(line) if cur is not None else None
        if r and r.group(1) != "before":
            cur.append({"change": float(r.group(3)),
                        "ps": p_value(r.group(4)),
                        "pr": p_value(r.group(5)),
                        "verdict": r.group(6), "name": r.group(7)})
    return text, level, tables


def p_value(s):
    if s is None or s == "-":
        return None
    if s.startswith("<"):
        return 0.0
    return float(s)


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    text, level, tables = parse(path)
    bad = []
    if cmd == "top":
        table, name, verdict, sign = sys.argv[3:7]
        rows = tables.get(table, [])
        top = rows[0] if rows else None
        print("%s: top row %s" % (table, top))
        if (not top or top["name"] != name or top["verdict"] != verdict or
                (top["change"] > 0) != (sign == "+")):
            bad.append("want %s %s %s" % (name, verdict, sign))
    elif cmd == "row":
        table, name, verdict = sys.argv[3:6]
        rows = [r for r in tables.get(table, []) if r["name"] == name]
        print("%s: %s" % (table, rows))
        if not rows or rows[0]["verdict"] != verdict:
            bad.append("want %s %s" % (name, verdict))
    elif cmd == "single":
        if "Run-to-run variation is NOT covered" not in text:
            bad.append("no word on run-to-run variation")
        nr = 0
        for t, rows in tables.items():
            for r in rows:
                want = "sampling-only" if r["ps"] < level else "-"
                nr += want != "-"
                if r["verdict"] != want:
                    bad.append("%s: %s is %s, want %s" %
                               (t, r["name"], r["verdict"], want))
        print("one capture a side: %d sampling-only rows, labelled so" % nr)
    elif cmd == "multi":
        want = int(sys.argv[3])
        if "Welch's t-test" not in text:
            bad.append("Welch's t-test not named")
        nr = 0
        for t, rows in tables.items():
            for r in rows:
                if r["verdict"] == "significant":
                    nr += 1
                    ok = r["ps"] < level and r["pr"] < level
                elif r["verdict"] == "sampling-only":
                    ok = r["ps"] < level and r["pr"] >= level
                else:
                    ok = r["ps"] >= level and r["pr"] is None
                if not ok:
                    bad.append("%s: %s" % (t, r))
        print("several captures a side: %d significant rows" % nr)
        if nr != want:
            bad.append("%d significant rows, want %d" % (nr, want))
    else:
        sys.exit("reportcheck.py: unknown check " + cmd)
    for b in bad[:20]:
        print("  FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
