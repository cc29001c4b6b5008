#!/bin/sh
# regen_annotate.sh - perf annotate's branch columns (IPC and Cycle) on
# the generated branch-stack captures of testdata/branches/ whose entries
# carry cycles, the oracle of tests/cli/annotate/branch.test.
#
#	PERF7=/path/perf7 sh tests/golden/branch/regen_annotate.sh
#
# perf 6.1's `perf annotate --stdio` prints no branch columns (its stdio
# printer has none), and its --stdio2, which has them, crashes (SIGSEGV)
# on every such capture: the list goes to annotate/CRASHED.  perf >= 7
# (regen_report.sh says how perf 7.2.13 was run) is the oracle: for each
# capture NAME, annotate/NAME.stdio2 is its `perf annotate --stdio2`,
# given the objdump of the capture's architecture and addr2line, the
# binaries at their recorded paths under --symfs.  Needs perf 6.1, perf 7
# and zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
. tests/golden/branch/lib.sh
br_need_perf7
br_regen_init annotate
rm -f $GOLD/*.stdio2 $GOLD/CRASHED
fail=0
for z in testdata/branches/*.perf.data.zst testdata/branches/*.perf.data; do
	br_plain "$z"
	grep -q '"cycles": true' "testdata/branches/$name.truth.json" ||
		continue
	"$PERF" annotate --stdio2 --symfs "$PD_TMP/sysroot" -i "$cap" \
		</dev/null >/dev/null 2>&1
	rc=$?
	[ $rc -ge 128 ] && echo "$name: perf 6.1 --stdio2 exited with signal" \
		"$((rc - 128))" >>$GOLD/CRASHED
	case $name in
	loop-*) od=aarch64-linux-gnu-objdump ;;
	*) od=objdump ;;
	esac
	"$PERF7" annotate --stdio2 --symfs "$PD_TMP/sysroot" \
		--objdump="$(command -v $od)" \
		--addr2line="$(command -v addr2line)" -i "$cap" \
		</dev/null >"$GOLD/$name.stdio2" 2>/dev/null || fail=1
done
ls $GOLD
exit $fail
