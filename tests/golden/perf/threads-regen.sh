#!/bin/sh
# threads-regen.sh - perf 6.1's `perf report --stdio -T` of the captures
# of tests/gen/pd_threads_gen.py, whose READ records (perf record -s)
# make the per-thread table, the oracle of tests/cli/report/threads.test:
#
#	sh tests/golden/perf/threads-regen.sh
#
# For each case CASE and each line "VARIANT<TAB>OPTIONS" of
# tests/golden/perf/threads/variants, writes threads/CASE.VARIANT.txt
# from
#
#	perf report --stdio --kallsyms CASE.kallsyms OPTIONS -i CASE.perf.data
#
# and threads/CASE.VARIANT.pipe.txt from the same records as a pipe
# stream (CASE.pipe.data on perf's stdin).  perf's tip, before the
# table, is cut (cuttip.py).  Needs perf 6.1 and python3; make check
# does not.
set -eu
cd "$(dirname "$0")/../../.."
. tests/golden/perf/lib.sh
G=tests/golden/perf/threads
pd_regen61_start
python3 tests/gen/pd_threads_gen.py "$PD_TMP"
pd_report_cases "$G"
"$PERF" version >"$G/PERF_VERSION"
