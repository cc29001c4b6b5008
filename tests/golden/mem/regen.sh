#!/bin/sh
# regen.sh - perf 6.1's memory-mode tables, as goldens for `pdtool mem`
# (tests/cli/mem/perf.test): per capture and perf sort key,
#   NAME.KEY.report   perf report --mem-mode --stdio -n --sort KEY
# for the keys perf mem report's default sort order is made of and
# pdtool mem has a view of: mem (level), snoop, tlb, locked, sym,dso
# (functions; loop-aarch64 under a --symfs for the SPE captures) and
# dso_daddr (the data object).  The SPE captures of testdata/spe (those
# perf 6.1 synthesizes from: testdata/spe.md) with --itrace=M, every
# load and store once, which is pdtool mem's default; the corpus's x86
# load-latency capture (quipper/perf.data.weight_struct) when the corpus
# is there.
#
#   sh tests/golden/mem/regen.sh   (from the repository root; needs
#                                   perf, make check does not)
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top"
. tests/golden/perf/lib.sh
command -v perf >/dev/null || { echo "regen.sh: no perf" >&2; exit 1; }
symfs=$(mktemp -d) && trap 'rm -rf "$symfs"' EXIT
mkdir -p "$symfs/opt/pdtool"
cp testdata/bin/loop-aarch64 "$symfs/opt/pdtool/"
g=tests/golden/mem
table() { # capture name extra-options...
	d=$1 name=$2
	shift 2
	for key in mem snoop tlb locked sym,dso dso_daddr; do
		# the tip perf closes with (a random one) is no part of it
		# shellcheck disable=SC2068
		perf report -i "$d" --mem-mode --stdio -n --sort "$key" $@ \
			2>/dev/null | sed -e '/^# (Tip: /,$d' | sed -e '$d' \
			>"$g/$name.$(echo "$key" | tr , -).report"
	done
}
for name in n1 v1-noctx n1-nots; do
	table "testdata/spe/$name.perf.data" "$name" --itrace=M \
		--symfs "$symfs"
done
if pd_have_corpus; then
	table "$PD_CORPUS/quipper/perf.data.weight_struct" weight_struct
fi
perf version >$g/PERF_VERSION
