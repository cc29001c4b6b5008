#!/bin/sh
# regen.sh - write the Arm SPE captures of testdata/spe/ (tests/gen/
# pd_spe_synth.py; testdata/spe.md says what each holds) and perf's
# readings of them: NAME.aux, the SPE lines of `perf report -D` (the
# metadata and every packet; tests/golden/spe/auxlines.sh picks them).
#
#   sh tests/golden/spe/regen.sh        (from the repository root; needs
#                                        perf, which make check does not)
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top"
bin=testdata/bin/loop-aarch64
rec=/opt/pdtool/loop-aarch64
gen() {
	name=$1
	shift
	python3 tests/gen/pd_spe_synth.py "$@" $bin $rec \
		testdata/spe/$name.perf.data testdata/spe/$name.truth
}
gen n1 --host n1
gen v1-noctx --host v1 --no-context --seed 2
gen n2-thread --host n2 --per-thread --seed 3
gen n1-nots --host n1 --no-ts --seed 6 --records 8
gen n1-meta2 --host n1 --meta 2 --seed 4
gen zoo --host n1 --zoo --records 4 --seed 5
gen v2 --host v2 --seed 7
gen ampere1a-meta2 --host ampere1a --meta 2 --seed 8
gen hetero-meta2 --host n1 --meta 2 --cpu-hosts n1,ampere1a --seed 9
gen hip12-meta2 --host hip12 --meta 2 --seed 11
gen v2-pbt --host v2 --meta 2 --pbt --seed 14
gen v1-taskswitch --host v1 --no-context --task-switch --seed 12
gen v1-taskswitch-thread --host v1 --no-context --task-switch --per-thread \
	--seed 13
command -v perf >/dev/null || { echo "regen.sh: no perf: goldens kept" >&2; exit 0; }
for d in testdata/spe/*.perf.data; do
	name=${d##*/}
	name=${name%.perf.data}
	perf report -D -i "$d" 2>/dev/null | sh tests/golden/spe/auxlines.sh \
		>tests/golden/spe/$name.aux
done
perf version >tests/golden/spe/PERF_VERSION
