#!/bin/sh
# emptycc-regen.sh - perf 6.1's `perf report --stdio` of the capture of
# tests/gen/pd_emptycc_gen.py, whose samples' callchains give no frame
# (perf makes their entries from the sampled address), the oracle of
# tests/cli/report/emptycc.test:
#
#	sh tests/golden/perf/emptycc-regen.sh
#
# The capture maps testdata/bin/demo at /opt/pdtool/demo, which SYMFS
# holds.  For each line "VARIANT<TAB>OPTIONS" of
# tests/golden/perf/emptycc/variants, writes emptycc/demo.VARIANT.txt from
#
#	perf report --stdio --symfs SYMFS OPTIONS -i demo.perf.data
#
# perf's closing tip is cut (cuttip.py).  Needs perf 6.1 and python3;
# make check does not.
set -eu
cd "$(dirname "$0")/../../.."
. tests/golden/perf/lib.sh
G=tests/golden/perf/emptycc
pd_regen61_start
mkdir -p "$PD_TMP/symfs/opt/pdtool"
cp testdata/bin/demo "$PD_TMP/symfs/opt/pdtool/"
python3 tests/gen/pd_emptycc_gen.py testdata/bin/demo /opt/pdtool/demo \
	"$PD_TMP/demo.perf.data"
grep -v '^#' "$G/variants" | while IFS='	' read -r v opts; do
	[ -n "$v" ] || continue
	# shellcheck disable=SC2086 # the options are words
	"$PERF" report -i "$PD_TMP/demo.perf.data" --stdio \
		--symfs "$PD_TMP/symfs" $opts >"$PD_TMP/out" 2>/dev/null || true
	python3 tests/golden/perf/cuttip.py "$PD_TMP/out" "$G/demo.$v.txt"
done
"$PERF" version >"$G/PERF_VERSION"
