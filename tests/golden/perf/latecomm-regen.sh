#!/bin/sh
# latecomm-regen.sh - perf 6.1's `perf report --stdio` of the captures
# of tests/gen/pd_comm_gen.py, whose threads sample before their first
# COMM, the oracle of tests/cli/report/latecomm.test:
#
#	sh tests/golden/perf/latecomm-regen.sh
#
# For each case CASE and each line "VARIANT<TAB>OPTIONS" of
# tests/golden/perf/latecomm/variants, writes latecomm/CASE.VARIANT.txt
# from
#
#	perf report --stdio --kallsyms CASE.kallsyms OPTIONS -i CASE.perf.data
#
# and latecomm/CASE.VARIANT.pipe.txt from the same records as a pipe
# stream (CASE.pipe.data on perf's stdin); and latecomm/CASE.script.txt
# from perf script -F comm,tid,sym.  perf's closing tip is cut
# (cuttip.py).  Needs perf 6.1 and python3; make check does not.
set -eu
cd "$(dirname "$0")/../../.."
. tests/golden/perf/lib.sh
G=tests/golden/perf/latecomm
pd_regen61_start
python3 tests/gen/pd_comm_gen.py "$PD_TMP"
pd_report_cases "$G"
for f in "$PD_TMP"/*.perf.data; do
	c=${f##*/}
	c=${c%.perf.data}
	"$PERF" script -i "$f" -F comm,tid,sym --kallsyms "$PD_TMP/$c.kallsyms" \
		>"$G/$c.script.txt" 2>/dev/null
done
"$PERF" version >"$G/PERF_VERSION"
