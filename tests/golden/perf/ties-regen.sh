#!/bin/sh
# ties-regen.sh - perf 6.1's `perf report --stdio` of the captures of
# tests/gen/pd_ties_gen.py, whose rows tie across threads (or, case
# wrap, compare by addresses more than 2^63 apart), the oracle of
# tests/cli/report/ties.test:
#
#	sh tests/golden/perf/ties-regen.sh
#
# For each case CASE and each line "VARIANT<TAB>OPTIONS" of
# tests/golden/perf/ties/variants, writes ties/CASE.VARIANT.txt from
#
#	perf report --stdio --kallsyms CASE.kallsyms OPTIONS -i CASE.perf.data
#
# perf's closing tip is cut (cuttip.py).  Needs perf 6.1 and python3;
# make check does not.
set -eu
cd "$(dirname "$0")/../../.."
. tests/golden/perf/lib.sh
G=tests/golden/perf/ties
pd_regen61_start
python3 tests/gen/pd_ties_gen.py "$PD_TMP"
for f in "$PD_TMP"/*.perf.data; do
	c=${f##*/}
	c=${c%.perf.data}
	pd_report_variants "$G" "$c" "$f" "$PD_TMP/$c.kallsyms"
done
"$PERF" version >"$G/PERF_VERSION"
