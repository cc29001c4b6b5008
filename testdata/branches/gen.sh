#!/bin/sh
# gen.sh - write the branch-stack captures of testdata/branches/ (see
# testdata/branches.md): demo.perf.data and loop-aarch64.perf.data with the
# branch stacks tests/gen/pd_branch_gen.py draws from their binaries, one
# capture per hardware layout, each with its ground truth (NAME.truth.json).
#
#	sh testdata/branches/gen.sh
#
# Needs python3, llvm-objdump (x86-64 and AArch64 targets) and zstd.  The
# output is a function of the inputs and the seed alone: running it again
# writes the same bytes.  Afterwards: sh tests/golden/branch/regen_gen.sh.
set -eu
cd "$(dirname "$0")"
GEN=../../tests/gen/pd_branch_gen.py
SEED=17

# gen NAME CAPTURE BINARY RECORDED LAYOUT [OPTION...]
gen()
{
	name=$1 cap=$2 bin=$3 rec=$4 layout=$5
	shift 5
	python3 $GEN "$cap" "$name.perf.data" "$bin" "$rec" "$layout" \
		--seed $SEED --truth "$name.truth.json" "$@"
	set -- "$name"
	# STYLE T3: over 64 KiB, stored compressed
	if [ "$(wc -c <"$1.perf.data")" -gt 65536 ]; then
		zstd -q -19 --rm -f "$1.perf.data" -o "$1.perf.data.zst"
	else
		rm -f "$1.perf.data.zst"
	fi
}

for layout in intel intel-type intel-hwidx intel-nocyc zen4 brs; do
	gen "demo-$layout" ../demo.perf.data ../bin/demo \
		/work/main/testdata/bin/demo "$layout"
done
# Intel BTS: one branch a sample, no branch stack (branches:u -c 1)
gen demo-bts ../demo.perf.data ../bin/demo /work/main/testdata/bin/demo bts
# branch counters: the {cpu-clock,task-clock} group of testdata/group
# (recorded in another worktree) counts, page-faults does not
gen group-intel-cntr ../group.perf.data ../bin/demo \
	/work/wt-rec3/testdata/bin/demo intel-cntr --counters 2
# BRBE half records: a fifth of the entries source-only or target-only;
# 16 entries deep (under 64 KiB, stored as it is)
gen loop-brbe-half ../loop-aarch64.perf.data ../bin/loop-aarch64 \
	/opt/pdtool/loop-aarch64 brbe --half 0.2 --depth 16
for layout in brbe brbe-notype; do
	gen "loop-$layout" ../loop-aarch64.perf.data ../bin/loop-aarch64 \
		/opt/pdtool/loop-aarch64 "$layout"
done
