#!/bin/sh
# regen.sh - perf 6.1's branch stacks of the corpus captures that sample
# them: the oracle of tests/cli/diff/branch.test and, their branch-mode
# reports, of tests/cli/branches/corpus.test.
#
#	sh tests/golden/branch/regen.sh
#
# For each capture MANIFEST.md says perf 6.1 reads and whose row names
# BRANCH_STACK, writes corpus/PATH.brstack: brnorm.py's digest ("NR
# SHA256") of `perf script -F brstack`, every sample's branches with their
# prediction, transaction and cycle fields.  The branch stacks themselves
# are too big to commit (autofdo/test.lbr alone has 9,232 samples of 16);
# to see a difference, run perf script -F brstack and pdtool dump on the
# capture and compare brnorm.py's lines.
#
# And corpus/PATH.report: perf report --branch-stack --sort
# symbol_from,symbol_to,mispredict --stdio --kallsyms EMPTY --symfs
# SYSROOT (the capture's companion binaries at their recorded paths, as
# the script goldens' regen.sh gives them) --buildid-dir EMPTY, its tip
# cut, zstd-compressed (.report.zst) over 64 KiB.  Where perf 6.1
# crashes (its IPC column on entries with cycles) the file says so, and
# with PERF7 set to a perf >= 7 (regen_report.sh says how one was run)
# that perf's report is written as corpus/PATH.report.perf7.  Needs perf
# 6.1, python3 and zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
. tests/golden/branch/lib.sh
PERF7=${PERF7:-}
GOLD=tests/golden/branch
pd_regen61_start
pd_have_corpus || { echo "regen.sh: no corpus" >&2; exit 2; }
fail=0
: >"$PD_TMP/empty"
mkdir -p "$PD_TMP/nobid"
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
	pd_sysroot "$cur"
	set -- --buildid-dir "$PD_TMP/nobid" report --branch-stack \
		--sort symbol_from,symbol_to,mispredict --stdio \
		--kallsyms "$PD_TMP/empty" --symfs "$PD_TMP/sysroot" \
		-i "$PD_CORPUS/$cur"
	out=$GOLD/corpus/$cur.report
	rm -f "$out" "$out.zst" "$out.perf7" "$out.perf7.zst"
	"$PERF" "$@" </dev/null >"$PD_TMP/rep" 2>/dev/null
	rc=$?
	if [ $rc -ge 128 ]; then
		echo "# perf 6.1 exited with signal $((rc - 128))" >"$out"
		[ -n "$PERF7" ] || continue
		"$PERF7" "$@" --objdump="$(command -v objdump)" \
			--addr2line="$(command -v addr2line)" </dev/null \
			>"$PD_TMP/rep" 2>/dev/null || { fail=1; continue; }
		out=$out.perf7
	fi
	[ -s "$PD_TMP/rep" ] && br_cut_tip <"$PD_TMP/rep" >"$out"
	if [ "$(wc -c <"$out")" -gt 65536 ]; then
		zstd -q -19 --rm -f "$out" -o "$out.zst" || fail=1
	fi
done <"$PD_TMP/list"
exit $fail
