#!/bin/sh
# datatype.sh - the data-type attribution benchmark (issue 19): `pdtool
# report -s type,typeoff` and `pdtool annotate --data-type` beside
# `pdtool report -s sym` and perf 6.1's `perf report -s sym` on fold.sh's
# capture,
#
#   PDTOOL=build/default/pdtool sh bench/datatype.sh
#
# ($data/fold.perf.data: `perf record -e cpu-clock -g` of
# bench/workload.c, built with -g, over 100 MB and 500k samples; run
# fold.sh first, or name another with BENCH_DATATYPE_FILE).  From the
# page cache, the median wall and CPU time of BENCH_RUNS (default 3)
# runs, peak RSS and anonymous memory (bench/memwatch.c), of
#   pdtool report --no-children -g none -s sym
#   pdtool report -g none -s type,typeoff
#   pdtool report -g none -s type,typeoff,typecln
#   pdtool annotate --data-type
#   perf report --stdio --no-children -g none -s sym (perf 6.1 has no
#     data types: its sym table is the reference a user knows)
#   and with BENCH_PERF7 (a perf >= 6.8 command, as
#   tests/golden/datatype/regen.sh runs perf 7.2 from a Debian sid
#   chroot): $BENCH_PERF7 report --stdio --no-children -g none -s
#   type,typeoff --objdump=/usr/bin/objdump
# then a Markdown table and the ratios: the issue's target (attribution
# within 2x of pdtool report's time on the same capture: each distinct
# instruction decoded once) and perf's sym report over pdtool's type
# report.  CPU time is the figure: the machine is shared.  Written to
# stdout and to $data/datatype-results.md.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. bench/lib.sh
f=${BENCH_DATATYPE_FILE:-$data/fold.perf.data}
[ -f "$f" ] || die "no $f: run bench/fold.sh first (or set BENCH_DATATYPE_FILE)"
build_tools

: >"$tmp/rows"
cat "$f" >/dev/null
measure "pdtool report -s sym" "$f" "$tmp/sym" \
	"$PDTOOL" report --no-children -g none -s sym "$f"
measure "pdtool report -s type,typeoff" "$f" "$tmp/type" \
	"$PDTOOL" report -g none -s type,typeoff "$f"
measure "pdtool report -s type,typeoff,typecln" "$f" /dev/null \
	"$PDTOOL" report -g none -s type,typeoff,typecln "$f"
measure "pdtool annotate --data-type" "$f" "$tmp/annot" \
	"$PDTOOL" annotate --stdio --data-type "$f"
measure "perf report -s sym" "$f" /dev/null \
	perf report --stdio --no-children -g none -s sym -i "$f"
if [ -n "${BENCH_PERF7:-}" ]; then
	measure "$("$BENCH_PERF7" version) report -s type,typeoff" "$f" \
		/dev/null "$BENCH_PERF7" report --stdio --no-children -g none \
		-s type,typeoff --objdump=/usr/bin/objdump -i "$f"
fi
"$PDTOOL" report -g none -s type "$f" 2>&1 >/dev/null |
	grep 'data types:' >"$tmp/coverage"

{
	results_head bench/datatype.sh "$f"
	echo
	echo "Coverage: $(sed 's/^pdtool report: //' "$tmp/coverage")."
	echo
	awk -F'\t' '{ c[NR] = $5 }
	END {
		printf "CPU time: report -s type,typeoff %.2fx pdtool report -s sym (target <= 2x: %s); annotate --data-type %.2fx; perf report -s sym takes %.2fx pdtool report -s type,typeoff",
			c[2] / c[1], (c[2] / c[1] <= 2) ? "met" : "MISSED",
			c[4] / c[1], c[5] / c[2]
		if (NR >= 6)
			printf "; the perf >= 6.8 type report %.2fx", c[6] / c[2]
		printf ".\n"
	}' "$tmp/rows"
} | tee "$data/datatype-results.md"
