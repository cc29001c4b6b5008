#!/bin/sh
# regen_blocks.sh - perf's block view (`perf report --total-cycles
# --stdio`) of the generated branch-stack captures of testdata/branches/
# (testdata/branches.md), the oracle of tests/cli/report/total-cycles.test.
#
#	PERF7=/path/perf7 sh tests/golden/branch/regen_blocks.sh
#
# For each capture NAME, blocks/NAME.txt: perf 6.1's output, its closing
# tip cut.  perf 6.1 crashes (SIGSEGV) on every capture whose entries
# carry cycles (the list goes to blocks/CRASHED); where it does not, its
# table is empty (no cycles, no blocks) or, for a capture without branch
# stacks (BTS), the samples' own report.  With PERF7 set to a perf >= 7
# (regen_report.sh says how perf 7.2.13 was run), that perf's output is
# the golden of a capture perf 6.1 crashes on, blocks/NAME.perf7.txt: it
# also has the Branch Counter column of Intel's branch counters
# (perf >= 6.8).  perf 7 is given the objdump of the capture's
# architecture and addr2line (the ranges are source lines); the binaries
# are put at their recorded paths under a --symfs tree, as regen_gen.sh
# does.  Needs perf 6.1 and zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
. tests/golden/branch/lib.sh
br_regen_init blocks
PERF7=${PERF7:-}
G=$GOLD
rm -f $G/*.txt $G/CRASHED
fail=0
for z in testdata/branches/*.perf.data.zst testdata/branches/*.perf.data; do
	br_plain "$z"
	set -- report --total-cycles --stdio --symfs "$PD_TMP/sysroot" \
		-i "$cap"
	"$PERF" "$@" </dev/null >"$PD_TMP/out" 2>/dev/null
	rc=$?
	out=$G/$name.txt
	if [ $rc -ge 128 ]; then
		echo "$name: perf 6.1 exited with signal $((rc - 128))" \
			>>$G/CRASHED
		[ -n "$PERF7" ] || continue
		case $name in
		loop-*) od=aarch64-linux-gnu-objdump ;;
		*) od=objdump ;;
		esac
		"$PERF7" "$@" --objdump="$(command -v $od)" \
			--addr2line="$(command -v addr2line)" </dev/null \
			>"$PD_TMP/out" 2>/dev/null || { fail=1; continue; }
		out=$G/$name.perf7.txt
	elif [ $rc -ne 0 ]; then
		fail=1
		continue
	fi
	br_cut_tip <"$PD_TMP/out" >"$out"
done
ls $G
exit $fail
