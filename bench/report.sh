#!/bin/sh
# report.sh - the pdtool report benchmark (issue 15): `pdtool report`
# side by side with `perf report --stdio` and cat on fold.sh's capture,
#
#   PDTOOL=build/default/pdtool sh bench/report.sh
#
# the callchain capture bench/fold.sh records ($data/fold.perf.data:
# `perf record -e cpu-clock -g` of bench/workload.c, over 100 MB; run
# fold.sh first, or name another with BENCH_REPORT_FILE).  From the page
# cache: the median wall and CPU (user+sys) time of BENCH_RUNS (default
# 3) runs, the largest peak RSS and the largest peak anonymous memory
# (bench/memwatch.c) of
#   cat FILE
#   pdtool report -g none FILE      perf report --stdio -g none -i FILE
#   pdtool report FILE              perf report --stdio -i FILE
#     (the default view: Children, and the call graphs under each row)
#   pdtool report --no-children --sort dso,sym -g none
#                                   perf report --stdio --no-children
#                                     --sort dso,sym -g none -i FILE
# outputs to files, then a Markdown table, the ratios the issue sets
# (perf's CPU time over pdtool's, target >= 10x), and whether the
# outputs agree (tests/golden/report/compare.py, call graphs included).
# Written to stdout and to $data/report-results.md.
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
measure "pdtool report -g none" "$f" "$tmp/pd1" "$PDTOOL" report -g none "$f"
measure "perf report --stdio -g none" "$f" "$tmp/perf1" \
	perf report --stdio -g none -i "$f"
measure "pdtool report" "$f" "$tmp/pd2" "$PDTOOL" report "$f"
measure "perf report --stdio" "$f" "$tmp/perf2" perf report --stdio -i "$f"
measure "pdtool report --no-children --sort dso,sym -g none" "$f" \
	"$tmp/pd3" "$PDTOOL" report --no-children --sort dso,sym -g none "$f"
measure "perf report --stdio -g none --no-children --sort dso,sym" "$f" \
	"$tmp/perf3" perf report --stdio -g none --no-children --sort dso,sym \
	-i "$f"

{
	results_head bench/report.sh "$f"
	echo
	awk -F'\t' '{ c[NR] = $5 }
	END {
		printf "CPU time, perf over pdtool (target >= 10x): the default view (call graphs) %.1fx (%s); -g none %.1fx (%s); --no-children --sort dso,sym -g none %.1fx (%s).\n",
			c[5] / c[4], (c[5] / c[4] >= 10) ? "met" : "MISSED",
			c[3] / c[2], (c[3] / c[2] >= 10) ? "met" : "MISSED",
			c[7] / c[6], (c[7] / c[6] >= 10) ? "met" : "MISSED"
	}' "$tmp/rows"
	for i in 1 2 3; do
		printf 'Output %s against perf'"'"'s: %s\n' "$i" \
			"$(python3 tests/golden/report/compare.py "$tmp/perf$i" \
			   "$tmp/pd$i" | tail -n 1)"
	done
} | tee "$data/report-results.md"
