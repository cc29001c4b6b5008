#!/bin/sh
# regen_gen.sh - perf 6.1's view of the generated branch-stack captures of
# testdata/branches/ (testdata/branches.md): the oracle of
# tests/cli/branches/.
#
#	sh tests/golden/branch/regen_gen.sh
#
# For each capture NAME, writes under tests/golden/branch/gen/:
#
#   NAME.brstack   brnorm.py's digest ("NR SHA256") of perf script -F
#                  brstack: every sample's branches as perf decodes them
#   NAME.report    perf report --branch-stack --sort
#                  symbol_from,symbol_to,mispredict --stdio, its table
#                  lines (perf 6.1 crashes with SIGSEGV on a capture
#                  whose entries carry cycles: then the file says so, and
#                  the generator's truth, NAME.truth.json, is the oracle)
#
# and under tests/golden/branch/hist/, the oracle of
# tests/cli/fold/branch-history.test:
#
#   NAME.folded    perf report --branch-history --no-children --stdio
#                  -g folded,0,callee,function,count: its folded lines
#                  ("COUNT frame;frame;...", leaf first; perf 6.1's
#                  branch-history mode reads entries with cycles),
#                  zstd-compressed as NAME.folded.zst over 64 KiB (STYLE
#                  T3); libc is not in the --symfs tree, so that perf and
#                  the test resolve the same frames (libc's as addresses)
#   NAME.mispred   how many samples perf script -F brstack shows with a
#                  mispredicted (/M/) entry
#
# and checks perf script -F brstacksym against the truth (brtruth.py): the
# generator's branches are the ones perf reads.  Needs perf 6.1, python3
# and zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
. tests/golden/branch/lib.sh
br_regen_init
SYMFS="--symfs $PD_TMP/sysroot"
mkdir -p $GOLD/gen $GOLD/hist
rm -f $GOLD/hist/*.folded $GOLD/hist/*.folded.zst $GOLD/hist/*.mispred
fail=0
for z in testdata/branches/*.perf.data.zst; do
	name=${z##*/}
	name=${name%.perf.data.zst}
	cap=$PD_TMP/$name.perf.data
	zstd -q -d -f -o "$cap" "$z" || exit 2
	"$PERF" script -F brstack -i "$cap" </dev/null 2>/dev/null \
		>"$PD_TMP/br" || fail=1
	python3 $GOLD/brnorm.py perf "$PD_TMP/br" >"$GOLD/gen/$name.brstack" ||
		fail=1
	"$PERF" script -F brstacksym $SYMFS -i "$cap" </dev/null \
		2>/dev/null >"$PD_TMP/brsym" || fail=1
	printf '%-20s %s\n' "$name" \
		"$(python3 $GOLD/brtruth.py "testdata/branches/$name.truth.json" \
			"$PD_TMP/brsym")" || fail=1
	"$PERF" report --branch-stack --sort symbol_from,symbol_to,mispredict \
		--stdio $SYMFS -i "$cap" </dev/null >"$PD_TMP/rep" \
		2>"$PD_TMP/rerr"
	rc=$?
	if [ $rc -ge 128 ]; then
		echo "# perf 6.1 exited with status $rc (signal $((rc - 128))):" \
			"the truth is the oracle" >"$GOLD/gen/$name.report"
	else
		grep -v '^#' "$PD_TMP/rep" | grep . >"$GOLD/gen/$name.report"
	fi
	h=$GOLD/hist/$name
	"$PERF" report --branch-history --no-children --stdio \
		-g folded,0,callee,function,count $SYMFS -i "$cap" </dev/null \
		2>/dev/null >"$PD_TMP/hist" || fail=1
	grep -E '^[0-9]+ ' "$PD_TMP/hist" >"$h.folded"
	if [ "$(wc -c <"$h.folded")" -gt 65536 ]; then
		zstd -q -19 --rm -f "$h.folded" -o "$h.folded.zst" || fail=1
	fi
	grep -c '/M/' "$PD_TMP/br" >"$h.mispred"
done
exit $fail
