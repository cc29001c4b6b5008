#!/bin/sh
# record.sh - the recorder's overhead (issue 20): how much longer a fixed
# amount of work (bench/recwork.c, BENCH_THREADS threads) takes under
#
#   (nothing)                      the workload alone
#   perf record -F 999 -g          perf 6.1
#   pdtool record -F 999 -g        pdtool
#
# each run BENCH_RUNS times (default 3), the three interleaved so that a
# busy spell on a shared machine falls on all of them; the median wall
# time and CPU time (the recorder's included) of each, the slowdown
# against the workload alone, and the samples and lost samples of each
# recorder's last capture.  A Markdown table on stdout, also written to
# bench/data/record-results.md.
#
#   PDTOOL=build/default/pdtool sh bench/record.sh
#
# Environment: BENCH_DATA, BENCH_RUNS, BENCH_THREADS as bench/lib.sh says;
# BENCH_RECWORK_ROUNDS (default 1500000: about 3 s on 2 threads of a
# 2026 server CPU), the calls each thread makes.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. bench/lib.sh
rounds=${BENCH_RECWORK_ROUNDS:-1500000}
work=$data/recwork

if [ ! -x "$work" ] || [ bench/recwork.c -nt "$work" ]; then
	${CC:-cc} -std=c11 -O1 -g -fno-omit-frame-pointer -pthread \
		-o "$work" bench/recwork.c || die "cannot build $work"
fi
"$PDTOOL" record -q -e cpu-clock -o "$tmp/probe.data" -- true \
	>"$tmp/probe.err" 2>&1 ||
	die "pdtool record cannot record here: $(head -n 1 "$tmp/probe.err")"

# stats TOOL FILE: "samples<TAB>lost" of a capture, as perf counts them
stats() {
	perf report --stats -i "$2" 2>/dev/null | awk '
		/ SAMPLE events:/ { s = $3 }
		/ LOST_SAMPLES events:/ { l = $3 }
		/ LOST events:/ { l += $3 }
		END { printf "%d\t%d\n", s, l }'
}

: >"$tmp/runs"
i=0
while [ $i -lt "$runs" ]; do
	echo "bench: round $((i + 1)) of $runs" >&2
	run_once "$tmp/runs" "workload alone" "-" /dev/null \
		"$work" "$rounds" "$threads"
	run_once "$tmp/runs" "perf record -F 999 -g" "-" /dev/null \
		perf record -q -F 999 -g -o "$tmp/perf.data" -- \
		"$work" "$rounds" "$threads"
	run_once "$tmp/runs" "pdtool record -F 999 -g" "-" /dev/null \
		"$PDTOOL" record -q -F 999 -g -o "$tmp/pdtool.data" -- \
		"$work" "$rounds" "$threads"
	i=$((i + 1))
done
: >"$tmp/rows"
medians "$tmp/runs"
perf_st=$(stats perf "$tmp/perf.data")
pd_st=$(stats pdtool "$tmp/pdtool.data")

{
	echo "recwork $rounds rounds on $threads threads, median of $runs" \
		"(interleaved), $(date -u +%Y-%m-%d), $(uname -r)," \
		"$(nproc) CPUs:"
	echo
	echo "| run | wall s | slowdown | CPU s | samples | lost |"
	echo "|---|---:|---:|---:|---:|---:|"
	awk -F'\t' -v ps="$perf_st" -v ds="$pd_st" '
		NR == 1 { base = $3; cbase = $5 }
		{
			split("", st)
			if ($1 ~ /^perf/) split(ps, st, "\t")
			if ($1 ~ /^pdtool/) split(ds, st, "\t")
			printf "| %s | %.3f | %+.1f%% | %.3f | %s | %s |\n",
				$1, $3 / 1e6, 100 * ($3 - base) / base, $5 / 1e6,
				(1 in st) ? st[1] : "-", (2 in st) ? st[2] : "-"
		}' "$tmp/rows"
} | tee "$data/record-results.md"
