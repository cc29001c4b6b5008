#!/bin/sh
# diff.sh - the diff benchmark of `make bench` (issue 5), run at the end of
# bench/run.sh or alone:
#
#   PDTOOL=build/default/pdtool sh bench/diff.sh
#
# Target: diffing two 100 MB captures takes less than 1.5 times the time
# of folding both.
#
# Captures (bench/data/, git-ignored, recorded once): two builds of
# bench/workload.c, the -O1 build of run.sh and fold.sh (workload) and an
# -O2 one (workload_o2: other inlining, other code, the same functions
# mostly), each run as bench/data/diff{a,b}/workload so that comm and
# binary name match, `perf record -e cpu-clock -c $BENCH_PERIOD -g` until
# each capture has at least BENCH_DIFF_MIN_MB (default 100) MB.  Then,
# from the page cache, in BENCH_RUNS (default 3) rounds that run each
# command in turn, the median wall time, the median CPU time (user +
# system, which other jobs on the machine disturb less) and the largest
# peak RSS (/usr/bin/time) of
#   pdtool fold A, pdtool fold B          (their sum: "folding both")
#   pdtool diff A B                       (the report)
#   pdtool diff --folded A B
#   pdtool diff -o diff.svg A B           (report and flame graph)
#   cat A B
# and a Markdown report: the table and the ratio to folding both.  It is
# also written to bench/data/diff-results.md.
#
# Environment: BENCH_DATA, BENCH_RUNS, BENCH_THREADS, BENCH_PERIOD as
# bench/lib.sh says; BENCH_DIFF_MIN_MB.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. bench/lib.sh
min_mb=${BENCH_DIFF_MIN_MB:-100}
mkdir -p "$data/diffa" "$data/diffb" || exit 2

# ---- recording (once) --------------------------------------------------

build_workload "$data/diffa/workload" -O1
build_workload "$data/diffb/workload" -O2

min_bytes=$((min_mb * 1000 * 1000))
for side in a b; do
	f=$data/diff$side.perf.data
	if [ -f "$f" ] && [ ! "$data/diff$side/workload" -nt "$f" ] &&
	   [ "$(filesize "$f")" -ge "$min_bytes" ]; then
		continue
	fi
	# a probe for the rate, then enough seconds; longer if that fell
	# short (the machine may be busy: cpu-clock counts CPU time)
	workload=$data/diff$side/workload
	record "diff$side" 3
	secs=3
	while [ "$(filesize "$f")" -lt "$min_bytes" ]; do
		secs=$(( secs * min_bytes * 12 / 10 / ($(filesize "$f") + 1) + 1 ))
		[ "$secs" -le 1800 ] || die "$secs s for $min_mb MB is too long"
		record "diff$side" "$secs"
	done
	echo "$secs" >"$data/diff$side.seconds"
done
A=$data/diffa.perf.data
B=$data/diffb.perf.data

# ---- timing (run_once, medians: bench/lib.sh) -------------------------

cat "$A" "$B" >/dev/null
cat "$A" "$B" >/dev/null
: >"$tmp/runs"
: >"$tmp/rows"
# rounds of every command in turn, so that a change in the machine's
# load falls on all of them alike
i=0
while [ $i -lt "$runs" ]; do
	echo "bench: round $((i + 1)) of $runs" >&2
	run_once "$tmp/runs" "cat A B" "A B" /dev/null cat "$A" "$B"
	run_once "$tmp/runs" "pdtool fold A" A /dev/null "$PDTOOL" fold "$A"
	run_once "$tmp/runs" "pdtool fold B" B /dev/null "$PDTOOL" fold "$B"
	run_once "$tmp/runs" "pdtool diff A B" "A B" /dev/null \
		"$PDTOOL" diff "$A" "$B"
	run_once "$tmp/runs" "pdtool diff --folded A B" "A B" /dev/null \
		"$PDTOOL" diff --folded "$A" "$B"
	run_once "$tmp/runs" "pdtool diff -o diff.svg A B" "A B" /dev/null \
		"$PDTOOL" diff -o "$tmp/diff.svg" "$A" "$B"
	i=$((i + 1))
done
# the medians, per command in the order run
medians "$tmp/runs"
"$PDTOOL" diff --top 5 "$A" "$B" >"$tmp/report" 2>"$tmp/summary"

# ---- report --------------------------------------------------------------

{
	echo "Made by \`make bench\` (bench/diff.sh) on $(date -u +%Y-%m-%d) at" \
		"commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
		"$(perf --version 2>/dev/null)."
	echo "Machine: $(nproc) CPUs," \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
		"$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM," \
		"Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)" \
		"at the end."
	echo "Captures: \`perf record -e cpu-clock -c $period -g\` of" \
		"bench/workload.c with $threads threads: A the -O1 build for" \
		"$(cat "$data/diffa.seconds" 2>/dev/null || echo '?') s, B the -O2" \
		"build for $(cat "$data/diffb.seconds" 2>/dev/null || echo '?') s." \
		"Times: medians of $runs rounds of every command in turn, from" \
		"the page cache, output to /dev/null; RSS and anonymous memory (bench/memwatch.c): the largest of the runs."
	echo
	echo "- A: diffa.perf.data, $(awk -v b="$(filesize "$A")" 'BEGIN { printf "%.1f", b / 1e6 }') MB"
	echo "- B: diffb.perf.data, $(awk -v b="$(filesize "$B")" 'BEGIN { printf "%.1f", b / 1e6 }') MB"
	echo
	echo "| command | median wall s | median CPU s | peak RSS MB | peak anon MB |"
	echo "|---|---:|---:|---:|---:|"
	awk -F'\t' '{ printf "| `%s` | %.3f | %.3f | %.1f | %.1f |\n", $1, $3 / 1e6, $5 / 1e6, $4 / 1024, $6 / 1024 }' "$tmp/rows"
	echo
	awk -F'\t' '
		$1 == "pdtool fold A" { fa = $3; ca = $5 }
		$1 == "pdtool fold B" { fb = $3; cb = $5 }
		$1 ~ /^pdtool diff/ { d[++n] = $1; w[n] = $3; c[n] = $5 }
		END {
			printf "Folding both: %.3f s wall, %.3f s CPU.  Target: diffing takes less than 1.5x that.\n\n", (fa + fb) / 1e6, (ca + cb) / 1e6
			for (i = 1; i <= n; i++)
				printf "- `%s`: %.2fx folding both in wall time, %.2fx in CPU time (%s)\n", d[i], w[i] / (fa + fb), c[i] / (ca + cb), w[i] / (fa + fb) < 1.5 && c[i] / (ca + cb) < 1.5 ? "met" : "NOT met"
		}' "$tmp/rows"
	echo
	echo "The summary line of \`pdtool diff\` on them:"
	echo
	sed 's/^/    /' "$tmp/summary"
} >"$data/diff-results.md"
cat "$data/diff-results.md"
