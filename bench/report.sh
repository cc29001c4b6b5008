#!/bin/sh
# report.sh - the pdtool report benchmark (issue 15): `pdtool report`
# side by side with `perf report --stdio` and cat on fold.sh's capture,
#
#   PDTOOL=build/default/pdtool sh bench/report.sh
#
# the callchain capture bench/fold.sh records ($data/fold.perf.data:
# `perf record -e cpu-clock -g` of bench/workload.c, over 100 MB; run
# fold.sh first, or name another with BENCH_REPORT_FILE).  From the page
# cache: the median wall time of BENCH_RUNS (default 3) runs, the largest
# peak RSS and the largest peak anonymous memory (bench/memwatch.c) of
#   cat FILE
#   pdtool report FILE              perf report --stdio -g none -i FILE
#                                   perf report --stdio -i FILE (its
#                                     default, call graphs printed)
#   pdtool report --no-children --sort dso,sym
#                                   perf report --stdio --no-children
#                                     --sort dso,sym -i FILE
# (perf with -g none: pdtool prints no call graphs), outputs to files,
# then a Markdown table and the ratio the issue sets (perf's time over
# pdtool's, target >= 10x), and whether the outputs agree
# (tests/golden/report/compare.py).  Written to stdout and to
# $data/report-results.md.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. bench/lib.sh
f=${BENCH_REPORT_FILE:-$data/fold.perf.data}
[ -f "$f" ] || die "no $f: run bench/fold.sh first (or set BENCH_REPORT_FILE)"

: >"$tmp/rows"
cat "$f" >/dev/null
cat "$f" >/dev/null
measure "cat" "$f" /dev/null cat "$f"
measure "pdtool report" "$f" "$tmp/pd1" "$PDTOOL" report "$f"
measure "perf report --stdio -g none" "$f" "$tmp/perf1" \
	perf report --stdio -g none -i "$f"
measure "perf report --stdio" "$f" /dev/null perf report --stdio -i "$f"
measure "pdtool report --no-children --sort dso,sym" "$f" "$tmp/pd2" \
	"$PDTOOL" report --no-children --sort dso,sym "$f"
measure "perf report --stdio -g none --no-children --sort dso,sym" "$f" \
	"$tmp/perf2" perf report --stdio -g none --no-children --sort dso,sym \
	-i "$f"

{
	results_head bench/report.sh "$f"
	echo
	awk -F'\t' '{ w[NR] = $3 }
	END {
		printf "perf report --stdio (its default: call graphs) takes %.1fx pdtool report%cs time (target >= 10x: %s); with -g none, the same tables, %.1fx; with --no-children --sort dso,sym -g none %.1fx.\n",
			w[4] / w[2], 39, (w[4] / w[2] >= 10) ? "met" : "MISSED",
			w[3] / w[2], w[6] / w[5]
	}' "$tmp/rows"
	for i in 1 2; do
		printf 'Output %s against perf'"'"'s: %s\n' "$i" \
			"$(python3 tests/golden/report/compare.py "$tmp/perf$i" \
			   "$tmp/pd$i" | tail -n 1)"
	done
} | tee "$data/report-results.md"
