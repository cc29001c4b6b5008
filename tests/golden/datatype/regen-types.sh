#!/bin/sh
# regen-types.sh - perf 7.2's per-type shares and one-type views of the
# testdata captures, the oracle of tests/cli/types/perf.test (`pdtool
# types`, beside regen.sh's NAME.annotate.txt, whose member tables it
# also compares):
#
#	PERF=/path/to/perf-7 sh tests/golden/datatype/regen-types.sh [NAME...]
#
# For each capture NAME of tests/golden/datatype/captures (or given),
# writes tests/golden/datatype/NAME.types.txt:
#
#	perf --buildid-dir BID report --stdio -g none -n -s type -i FILE
#
# (each type's share of the event's period and its samples; the tip perf
# closes with cut) and, for each line "NAME<TAB>TYPE" of
# tests/golden/datatype/types-named, NAME.type-N.txt (N counting NAME's
# lines from 1):
#
#	perf --buildid-dir BID annotate --stdio --data-type=TYPE -i FILE
#
# BID and the perf 7.2 to run are as regen.sh says.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh

PERF=${PERF:-perf}
OUT=tests/golden/datatype

v=$("$PERF" version 2>/dev/null) || { echo "regen-types.sh: no perf" >&2; exit 2; }
case $v in
"perf version 7.2."*) ;;
*) echo "regen-types.sh: $v is not perf 7.2, the oracle the goldens name" >&2
   exit 2 ;;
esac
pd_tmp_init
python3 tests/golden/fold/buildid_dir.py --perf-layout "$PD_TMP/bid" \
	testdata/bin/* >/dev/null 2>&1 || exit 2
fail=0
for name in ${*:-$(grep -v "^#" "$OUT/captures" | cut -f1)}; do
	f=$(pd_capture "$name") || { fail=1; continue; }
	"$PERF" --buildid-dir "$PD_TMP/bid" report \
		--objdump=/usr/bin/objdump --stdio -g none -n -s type \
		--kallsyms tests/golden/fold/kallsyms \
		-i "$f" >"$PD_TMP/out" 2>/dev/null || fail=1
	python3 tests/golden/perf/cuttip.py "$PD_TMP/out" "$OUT/$name.types.txt"
	echo "$OUT/$name.types.txt"
	n=0
	grep -v "^#" "$OUT/types-named" | while IFS="	" read -r cap type; do
		[ "$cap" = "$name" ] || continue
		n=$((n + 1))
		"$PERF" --buildid-dir "$PD_TMP/bid" annotate \
			--objdump=/usr/bin/objdump --stdio \
			--data-type="$type" -i "$f" \
			>"$OUT/$name.type-$n.txt" 2>/dev/null || exit 1
		echo "$OUT/$name.type-$n.txt"
	done || fail=1
done
exit $fail
