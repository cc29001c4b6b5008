#!/bin/sh
# regen.sh - perf 6.1's view of each testdata capture per event, the
# oracle of tests/unit/check_collect.c (pda_collect: per-event columns,
# per-address locations).
#
#	sh tests/golden/collect/regen.sh [NAME...]
#
# Writes tests/golden/collect/testdata/NAME.tsv, one line per (event,
# leaf DSO, leaf symbol) with its samples and period, as
#	perf report --stdio --no-children -g none -s dso,sym
#	  -F sample,period,dso,sym --kallsyms $(pd_kallsyms NAME)
# prints them (report.py turns the text into the table; a symbol perf
# prints as an address is "[unknown]", as pdtool labels it), and one
# "#ips EVENT N" line per event: the distinct sampled ips of that event,
# from perf script -F event,ip -G, which pda_collect's leaf locations
# must number (one location per address).  testdata's binaries are
# given to perf through a build-id dir made from testdata/bin, as the
# fold goldens are.  Needs perf 6.1 and python3.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh

OUT=tests/golden/collect/testdata
NAMES=${*:-"multi fp demo threads switch pipe zstd"}

pd_regen61_init
for name in $NAMES; do
	in=testdata/$name.perf.data
	[ -e "$in" ] || { echo "regen.sh: no $in" >&2; exit 2; }
	"$PERF" --buildid-dir "$PD_TMP/bid" report -i "$in" --stdio \
		--no-children -g none -s dso,sym -F sample,period,dso,sym \
		--kallsyms "$(pd_kallsyms "$name")" >"$PD_TMP/report" \
		2>/dev/null || { echo "regen.sh: perf report $in failed" >&2; exit 1; }
	"$PERF" --buildid-dir "$PD_TMP/bid" script -i "$in" -F event,ip -G \
		>"$PD_TMP/script" 2>/dev/null ||
		{ echo "regen.sh: perf script $in failed" >&2; exit 1; }
	python3 tests/golden/collect/report.py "$PD_TMP/report" \
		"$PD_TMP/script" >"$OUT/$name.tsv" || exit 1
	echo "$OUT/$name.tsv"
done
