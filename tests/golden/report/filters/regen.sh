#!/bin/sh
# regen.sh - perf 6.1's `perf report --stdio` with the sample filters of
# ./cases (--pid, --tid, --time) on their testdata captures, the oracle
# of tests/cli/report/filters.test.
#
#	sh tests/golden/report/filters/regen.sh
#
# Each line "NAME<TAB>CAPTURE<TAB>OPTIONS" of ./cases gives NAME.txt:
#
#	perf --buildid-dir BID report --stdio [-g none] OPTIONS
#	  --kallsyms $(pd_kallsyms NAME) -i CAPTURE
#
# as tests/golden/report/regen.sh runs it (-g none when OPTIONS have no
# -g; perf's closing tip cut).  Needs perf 6.1 and python3.
set -u
cd "$(dirname "$0")/../../../.." || exit 2
. tests/golden/perf/lib.sh
pd_regen61_init
OUT=tests/golden/report/filters
fail=0
while IFS='	' read -r name capture opts; do
	case $name in '#'*|'') continue ;; esac
	f=$(pd_capture "$capture") || { fail=1; continue; }
	nog=-g
	case " $opts " in *" -g "*) nog= ;; esac
	# the options are shell words: a quoted --time list keeps its blanks
	eval "set -- $opts"
	# shellcheck disable=SC2086 # -g none: two words
	"$PERF" --buildid-dir "$PD_TMP/bid" report --stdio $nog ${nog:+none} \
		"$@" --kallsyms "$(pd_kallsyms "$capture")" -i "$f" \
		>"$PD_TMP/out" 2>"$PD_TMP/err" || {
		echo "$name: perf report failed: $(tail -n 1 "$PD_TMP/err")"
		fail=1
		continue
	}
	python3 tests/golden/perf/cuttip.py "$PD_TMP/out" "$OUT/$name.txt"
	echo "$OUT/$name.txt"
done <$OUT/cases
exit $fail
