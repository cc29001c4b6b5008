#!/bin/sh
# regen_hist.sh - perf 6.1's branch history (perf report --branch-history)
# of the generated branch-stack captures of testdata/branches/
# (testdata/branches.md): the oracle of tests/cli/fold/branch-history.test.
#
#	sh tests/golden/branch/regen_hist.sh
#
# For each capture NAME, writes under tests/golden/branch/hist/:
#
#   NAME.folded    perf report --branch-history --no-children --stdio
#                  -g folded,0,callee,function,count: its folded lines
#                  ("COUNT frame;frame;...", leaf first), zstd-compressed
#                  as NAME.folded.zst over 64 KiB (STYLE T3)
#   NAME.mispred   how many samples perf script -F brstack shows with a
#                  mispredicted (/M/) entry
#
# perf 6.1's branch-history mode reads the captures whose entries carry
# cycles (its branch-stack mode crashes on them).  The binaries are put at
# their recorded paths in a private --symfs tree, libc left out, so that
# perf and the test resolve the same frames (libc's as an address).
# Needs perf 6.1 and zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
PERF=${PERF:-perf}
GOLD=tests/golden/branch/hist
pd_need_perf61
pd_tmp_init
mkdir -p "$PD_TMP/sysroot/opt/pdtool" "$PD_TMP/sysroot/work/main/testdata/bin"
cp testdata/bin/loop-aarch64 "$PD_TMP/sysroot/opt/pdtool/"
cp testdata/bin/demo "$PD_TMP/sysroot/work/main/testdata/bin/"
mkdir -p $GOLD
rm -f $GOLD/*.folded $GOLD/*.folded.zst $GOLD/*.mispred
fail=0
for z in testdata/branches/*.perf.data.zst; do
	name=${z##*/}
	name=${name%.perf.data.zst}
	cap=$PD_TMP/$name.perf.data
	zstd -q -d -f -o "$cap" "$z" || exit 2
	"$PERF" report --branch-history --no-children --stdio \
		-g folded,0,callee,function,count --symfs "$PD_TMP/sysroot" \
		-i "$cap" </dev/null 2>/dev/null >"$PD_TMP/rep" || fail=1
	grep -E '^[0-9]+ ' "$PD_TMP/rep" >"$GOLD/$name.folded"
	if [ "$(wc -c <"$GOLD/$name.folded")" -gt 65536 ]; then
		zstd -q -19 --rm -f "$GOLD/$name.folded" \
			-o "$GOLD/$name.folded.zst" || fail=1
	fi
	"$PERF" script -F brstack -i "$cap" </dev/null 2>/dev/null |
		grep -c '/M/' >"$GOLD/$name.mispred"
	echo "$name: $(grep -cE '^[0-9]+ ' "$PD_TMP/rep") paths," \
		"$(cat "$GOLD/$name.mispred") samples with a mispredicted entry"
done
exit $fail
