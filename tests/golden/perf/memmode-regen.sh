#!/bin/sh
# memmode-regen.sh - perf 6.1's `perf report --mem-mode --stdio` tables,
# the oracle of tests/cli/report/memmode.test:
#
#	sh tests/golden/perf/memmode-regen.sh
#
# For each memory capture NAME and each line "VARIANT<TAB>OPTIONS" of
# tests/golden/perf/memmode/variants, writes memmode/NAME.VARIANT.txt:
#
#	perf report --stdio [--mem-mode] OPTIONS [--itrace=M] --symfs SYMFS
#
# The captures: testdata/spe's that perf 6.1 synthesizes from (n1,
# v1-noctx, n1-nots; --itrace=M, every load and store once), the
# generated data_src captures testdata/dtypes-mem-aarch64 and
# dtcall-mem-aarch64, the capture tests/gen/pd_dcl_gen.py writes
# (dclgen: data addresses in file, shared, anonymous and no maps of two
# processes), and the corpus's x86 load-latency capture
# (quipper/perf.data.weight_struct) when the corpus is there.  SYMFS
# holds the test binaries at the path they were recorded at
# (/opt/pdtool/...).  perf's closing tip is cut (cuttip.py).  Needs perf
# 6.1 and python3; make check does not.
set -eu
cd "$(dirname "$0")/../../.."
. tests/golden/perf/lib.sh
G=tests/golden/perf/memmode
pd_regen61_start
mkdir -p "$PD_TMP/symfs/opt/pdtool"
for b in loop-aarch64 dtypes-aarch64 dtcall-aarch64; do
	cp "testdata/bin/$b" "$PD_TMP/symfs/opt/pdtool/"
done
# table NAME FILE EXTRA...: every variant of capture FILE
table() {
	name=$1 f=$2
	shift 2
	grep -v '^#' "$G/variants" | while IFS='	' read -r v opts; do
		[ -n "$v" ] || continue
		# shellcheck disable=SC2086 # the options are words
		"$PERF" report -i "$f" --stdio $opts "$@" \
			--symfs "$PD_TMP/symfs" >"$PD_TMP/out" 2>/dev/null ||
			true
		python3 tests/golden/perf/cuttip.py "$PD_TMP/out" \
			"$G/$name.$v.txt"
	done
}
for name in n1 v1-noctx n1-nots; do
	table "$name" "testdata/spe/$name.perf.data" --itrace=M
done
for name in dtypes-mem-aarch64 dtcall-mem-aarch64; do
	table "$name" "testdata/$name.perf.data"
done
python3 tests/gen/pd_dcl_gen.py "$PD_TMP/dclgen.perf.data"
table dclgen "$PD_TMP/dclgen.perf.data"
if pd_have_corpus; then
	table weight_struct "$PD_CORPUS/quipper/perf.data.weight_struct"
fi
"$PERF" version >"$G/PERF_VERSION"
