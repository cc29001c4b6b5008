#!/bin/sh
# regen.sh - perf 6.1's branch stacks of the corpus captures that sample
# them: the oracle of tests/cli/diff/branch.test.
#
#	sh tests/golden/branch/regen.sh
#
# For each capture MANIFEST.md says perf 6.1 reads and whose row names
# BRANCH_STACK, writes corpus/PATH.brstack: brnorm.py's digest ("NR
# SHA256") of `perf script -F brstack`, every sample's branches with their
# prediction, transaction and cycle fields.  The branch stacks themselves
# are too big to commit (autofdo/test.lbr alone has 9,232 samples of 16);
# to see a difference, run perf script -F brstack and pdtool dump on the
# capture and compare brnorm.py's lines.  Needs perf 6.1 and python3.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
PERF=${PERF:-perf}
GOLD=tests/golden/branch
pd_need_perf61
pd_have_corpus || { echo "regen.sh: no corpus" >&2; exit 2; }
pd_tmp_init
fail=0
pd_corpus_captures >"$PD_TMP/list"
while read -r cur verdict; do
	case $verdict in yes|partly) ;; *) continue ;; esac
	grep -F "| \`$cur\` |" "$PD_CORPUS/MANIFEST.md" | grep -q BRANCH_STACK ||
		continue
	mkdir -p "$GOLD/corpus/$(dirname "$cur")"
	"$PERF" script -F brstack -i "$PD_CORPUS/$cur" </dev/null \
		2>/dev/null >"$PD_TMP/br" || fail=1
	python3 $GOLD/brnorm.py perf "$PD_TMP/br" >"$GOLD/corpus/$cur.brstack" ||
		fail=1
	printf '%-55s %s\n' "$cur" "$(cat "$GOLD/corpus/$cur.brstack")"
done <"$PD_TMP/list"
exit $fail
