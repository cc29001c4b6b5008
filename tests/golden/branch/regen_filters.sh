#!/bin/sh
# regen_filters.sh - perf 6.1's `perf report --branch-stack --stdio` with
# its sample filters (--comms, --dsos, --symbols, --pid, --tid, --time)
# on the generated captures without cycles (perf 6.1 reads them whole),
# the oracle of tests/cli/report/branch-stack.test's filter part.
#
#	sh tests/golden/branch/regen_filters.sh
#
# For each capture NAME of demo-intel-nocyc, demo-zen4 and demo-brs and
# each line "VARIANT<TAB>OPTIONS" of tests/golden/branch/report-filters,
# writes filters/NAME.VARIANT.txt: perf's output with its closing tip
# cut.  The binaries are put at their recorded paths under a --symfs
# tree, as regen_report.sh does.  Needs perf 6.1 and zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
. tests/golden/branch/lib.sh
br_regen_init
mkdir -p $GOLD/filters
rm -f $GOLD/filters/*.txt
fail=0
for name in demo-intel-nocyc demo-zen4 demo-brs; do
	cap=$PD_TMP/$name.perf.data
	zstd -q -d -f -o "$cap" "testdata/branches/$name.perf.data.zst" ||
		exit 2
	grep -v '^#' $GOLD/report-filters | while IFS='	' read -r v opts; do
		[ -n "$v" ] || continue
		# shellcheck disable=SC2086 # the options are words
		"$PERF" report --branch-stack --stdio --symfs "$PD_TMP/sysroot" \
			$opts -i "$cap" </dev/null >"$PD_TMP/out" 2>/dev/null ||
			{ echo "$name.$v: perf failed" >&2; exit 1; }
		br_cut_tip <"$PD_TMP/out" >"$GOLD/filters/$name.$v.txt"
	done || fail=1
done
ls $GOLD/filters | wc -l
exit $fail
