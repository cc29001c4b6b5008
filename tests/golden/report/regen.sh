#!/bin/sh
# regen.sh - perf 6.1's `perf report --stdio` tables of every testdata
# capture, the oracle of tests/cli/report/golden.test.
#
#	sh tests/golden/report/regen.sh [NAME...]
#	PD_VARIANTS="time addr" sh tests/golden/report/regen.sh
#
# (PD_VARIANTS: only those variants' goldens, the others left as they
# are.)
# For each capture NAME and each line "VARIANT<TAB>OPTIONS" of
# tests/golden/report/variants, writes testdata/NAME.VARIANT.txt:
#
#	perf --buildid-dir BID report --stdio [-g none] OPTIONS
#	  --kallsyms $(pd_kallsyms NAME) -i FILE
#
# (-g none when OPTIONS have no -g of their own: the tables alone).
# BID is a build-id cache made from testdata/bin (as the fold goldens'),
# so perf finds the test programs wherever the repository is; the host's
# libraries are read at their recorded paths (pd_recorded_opts gives
# pdtool the same).  perf's closing tip ("# (Tip: ...)", chosen at
# random) is cut; what perf prints on stderr is not kept.  A capture perf
# finds no samples in gets no golden.  Needs perf 6.1 and python3.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh

OUT=tests/golden/report/testdata

pd_regen61_init
mkdir -p "$OUT"
fail=0
for name in ${*:-$(pd_captures)}; do
	f=$(pd_capture "$name") || { fail=1; continue; }
	grep -v '^#' tests/golden/report/variants | while IFS='	' read -r v opts; do
		[ -n "$v" ] || continue
		case " ${PD_VARIANTS:-$v} " in *" $v "*) ;; *) continue ;; esac
		g=$OUT/$name.$v.txt
		nog=-g
		case " $opts " in *" -g "*) nog= ;; esac
		# shellcheck disable=SC2086 # the options are words
		"$PERF" --buildid-dir "$PD_TMP/bid" report --stdio $nog ${nog:+none} \
			$opts --kallsyms "$(pd_kallsyms "$name")" -i "$f" \
			>"$PD_TMP/out" 2>"$PD_TMP/err"
		if ! grep -q '^# Samples' "$PD_TMP/out"; then
			rm -f "$g"
			continue
		fi
		# the tip: "#", "# (Tip: ...)", "#" at the end
		python3 tests/golden/perf/cuttip.py "$PD_TMP/out" "$g"
	done
	echo "$OUT/$name.*.txt"
done
exit $fail
