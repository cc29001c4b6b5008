#!/bin/sh
# regen_brcntr.sh - perf 7.2's `perf script -F ...,brcntr` on the
# generated captures with Intel branch counters (testdata/branches/
# group-intel-cntr*, testdata/branches.md), the oracle of
# tests/cli/script/brcntr.test.
#
#	PERF7=/path/perf7 sh tests/golden/branch/regen_brcntr.sh
#
# perf 6.1 has no brcntr field (perf >= 6.8); regen_report.sh says how
# perf 7.2.13 was run.  For each capture NAME, writes under
# tests/golden/branch/brcntr/:
#
#   NAME.event.perf7   perf 7's -F event,brcntr: the counters' legend
#                      before every sample
#   NAME.insn.perf7    perf 7's -F brstackinsn,brcntr: each branch's
#                      counters ("# br_cntr: AAB ") before its flags,
#                      zstd-compressed (.zst) over 64 KiB (STYLE T3)
#   NAME.insn.perf61   perf 6.1's -F brstackinsn, the same lines without
#                      the counters: perf 7 also changed how the last
#                      block is walked (it prints the block up to the
#                      sample's ip where perf 6.1 says "... not reaching
#                      sample ..."), pdtool's walk is perf 6.1's
#
# and perf 7's -v forms of the counters (the oracle of brcntr.test's,
# total-cycles.test's and annotate/branch.test's -v cases):
#
#   NAME.event.v.perf7   -v -F event,brcntr: no legend
#   NAME.insn.v.perf7    -v -F brstackinsn,brcntr: each branch's counts
#                        by event name ("# br_cntr: cpu-clock 3+
#                        task-clock 0  "), no legend
#   NAME.blocks.v.perf7.txt  -v report --total-cycles --stdio, its tip
#                        cut: the Branch Counter cell as "A=1 ,B=3+"
#   NAME.annotate.v.stdio2   -v annotate --stdio2: the same cells (and
#                        "(null)" printed where an instruction has none)
#
# perf's -v messages (stderr) are dropped.
# The binaries are given at their recorded paths under --symfs.  Needs
# perf 6.1, perf 7 and zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
. tests/golden/branch/lib.sh
br_need_perf7
br_regen_init brcntr
rm -f $GOLD/*.perf7 $GOLD/*.perf7.zst $GOLD/*.perf61 $GOLD/*.perf61.zst \
	$GOLD/*.perf7.txt $GOLD/*.stdio2
fail=0
# put OUT: stdin to OUT, zstd-compressed as OUT.zst over 64 KiB
put() {
	cat >"$1" || return 1
	[ "$(wc -c <"$1")" -le 65536 ] || zstd -q -19 --rm -f "$1" -o "$1.zst"
}
for z in testdata/branches/group-intel-cntr*.perf.data; do
	name=${z##*/}
	name=${name%.perf.data}
	set -- --symfs "$PD_TMP/sysroot" -i "$z"
	"$PERF7" script -F event,brcntr "$@" </dev/null 2>/dev/null |
		put "$GOLD/$name.event.perf7" || fail=1
	"$PERF7" script -F brstackinsn,brcntr "$@" </dev/null 2>/dev/null |
		put "$GOLD/$name.insn.perf7" || fail=1
	"$PERF" script -F brstackinsn "$@" </dev/null 2>/dev/null |
		put "$GOLD/$name.insn.perf61" || fail=1
	"$PERF7" script -v -F event,brcntr "$@" </dev/null 2>/dev/null |
		put "$GOLD/$name.event.v.perf7" || fail=1
	"$PERF7" script -v -F brstackinsn,brcntr "$@" </dev/null \
		2>/dev/null | put "$GOLD/$name.insn.v.perf7" || fail=1
	set -- "$@" --objdump="$(command -v objdump)" \
		--addr2line="$(command -v addr2line)"
	"$PERF7" report -v --total-cycles --stdio "$@" </dev/null \
		2>/dev/null | br_cut_tip >"$GOLD/$name.blocks.v.perf7.txt" ||
		fail=1
	"$PERF7" annotate -v --stdio2 "$@" </dev/null 2>/dev/null \
		>"$GOLD/$name.annotate.v.stdio2" || fail=1
done
ls -l $GOLD
exit $fail
