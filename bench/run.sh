#!/bin/sh
# run.sh - the reader benchmark behind `make bench` (STYLE P4).
#
#   PDTOOL=build/default/pdtool sh bench/run.sh
#
# Records, once, captures of a busy multi-threaded program (workload.c)
# with `perf record -e cpu-clock -g` into bench/data/ (git-ignored):
# big.perf.data of at least 300 MB, small.perf.data of about a quarter of
# that, and bigz.perf.data, the big recording again with -z.  Delete
# bench/data/ to record them anew.
#
# Then times, side by side, from the page cache, the median of 3 runs of
#   pdtool dump --count FILE          (and with --ordered)
#   perf script -F ip,tid,time -i FILE > /dev/null
#   perf report --stats -i FILE > /dev/null
#   cat FILE > /dev/null
# with the peak RSS and anonymous memory of each (bench/memwatch.c), and
# prints a Markdown
# report: the table, GB/s, and the ratios the issue sets as targets
# (pdtool at most 1/20 of perf script's time, at least 1 GB/s).  The
# report is also written to bench/data/results.md.
#
# Environment: BENCH_MIN_MB (size of big.perf.data, default 300),
# BENCH_ONLY (reader, fold, annotate, diff or unwind) runs one benchmark;
# BENCH_DATA, BENCH_THREADS, BENCH_PERIOD and BENCH_RUNS as bench/lib.sh
# says; BENCH_SKIP_PERF=1 times pdtool and cat only.  A trial run on small
# captures, kept apart from the real ones:
#
#   BENCH_DATA=/tmp/bench BENCH_MIN_MB=3 BENCH_FOLD_MIN_MB=2 \
#   BENCH_FOLD_MIN_SAMPLES=1000 BENCH_ANNOTATE_MIN_MB=2 \
#   BENCH_DIFF_MIN_MB=2 BENCH_UNWIND_MIN_MB=2 BENCH_UNWIND_FUNCS=1 \
#   BENCH_RUNS=1 make bench
#
# The fold benchmark, bench/fold.sh, the annotate benchmark,
# bench/annotate.sh, the diff benchmark, bench/diff.sh, and the DWARF
# unwinding benchmark, bench/unwind.sh (the longest: perf takes half an
# hour on its capture), run after this one (see there); BENCH_ONLY=fold,
# annotate, diff or unwind runs one of them alone.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
if [ "${BENCH_ONLY:-}" = fold ]; then
	exec sh bench/fold.sh
fi
if [ "${BENCH_ONLY:-}" = annotate ]; then
	exec sh bench/annotate.sh
fi
if [ "${BENCH_ONLY:-}" = diff ]; then
	exec sh bench/diff.sh
fi
if [ "${BENCH_ONLY:-}" = unwind ]; then
	exec sh bench/unwind.sh
fi
. bench/lib.sh
min_mb=${BENCH_MIN_MB:-300}

# ---- recording (once) --------------------------------------------------

build_tools
min_bytes=$((min_mb * 1000 * 1000))
if [ ! -f "$data/big.perf.data" ] ||
   [ "$(filesize "$data/big.perf.data")" -lt "$min_bytes" ]; then
	# how many bytes a second this machine writes, then enough seconds
	record probe 5
	rate=$(( $(filesize "$data/probe.perf.data") / 5 ))
	rm -f "$data/probe.perf.data"
	[ "$rate" -gt 0 ] || die "the probe recording is empty"
	secs=$(( min_bytes * 12 / 10 / rate + 1 ))
	[ "$secs" -le 1800 ] || die "this machine records $rate bytes/s: $secs s for $min_mb MB is too long"
	record big "$secs"
	got=$(filesize "$data/big.perf.data")
	if [ "$got" -lt "$min_bytes" ]; then
		secs=$(( secs * min_bytes * 12 / 10 / got + 1 ))
		record big "$secs"
	fi
	echo "$secs" >"$data/big.seconds"
	rm -f "$data/small.perf.data" "$data/bigz.perf.data"
fi
secs=$(cat "$data/big.seconds" 2>/dev/null || echo 60)
if [ ! -f "$data/small.perf.data" ]; then
	record small $(( (secs + 3) / 4 ))
fi
if [ ! -f "$data/bigz.perf.data" ]; then
	record bigz "$secs" -z
fi

# ---- timing (measure: bench/lib.sh) ----------------------------------

: >"$tmp/rows"
for name in small big bigz; do
	f=$data/$name.perf.data
	cat "$f" >/dev/null
	cat "$f" >/dev/null
	measure "cat" "$f" /dev/null cat "$f"
	measure "pdtool dump --count" "$f" /dev/null "$PDTOOL" dump --count "$f"
	measure "pdtool dump --count --ordered" "$f" /dev/null \
		"$PDTOOL" dump --count --ordered "$f"
	measure "libpd: records only" "$f" /dev/null "$data/bench_reader" frame "$f"
	measure "libpd: records + decode" "$f" /dev/null \
		"$data/bench_reader" decode "$f"
	if [ "${BENCH_SKIP_PERF:-}" != 1 ]; then
		measure "perf script -F ip,tid,time" "$f" /dev/null \
			perf script -F ip,tid,time -i "$f"
		measure "perf report --stats" "$f" /dev/null \
			perf report --stats -i "$f"
	fi
done

# ---- report --------------------------------------------------------------

for name in small big bigz; do
	f=$data/$name.perf.data
	echo "$f $(filesize "$f") $("$data/bench_reader" frame "$f")" >>"$tmp/files"
done
{
	echo "Made by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d) at" \
		"commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
		"$(perf --version 2>/dev/null)."
	echo "Machine: $(nproc) CPUs," \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
		"$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM," \
		"Linux $(uname -r)."
	echo "Captures: \`perf record -e cpu-clock -c $period -g\` of" \
		"bench/workload.c with $threads threads; bigz is the same" \
		"recording length with -z.  Times: median of $runs runs from" \
		"the page cache; RSS: the largest of the runs."
	echo
	python3 bench/report.py "$tmp/files" "$tmp/rows"
} >"$data/results.md"
cat "$data/results.md"

[ "${BENCH_ONLY:-}" = reader ] && exit 0
PDTOOL=$PDTOOL BENCH_DATA=$data sh bench/fold.sh
PDTOOL=$PDTOOL BENCH_DATA=$data sh bench/annotate.sh
PDTOOL=$PDTOOL BENCH_DATA=$data sh bench/diff.sh
PDTOOL=$PDTOOL BENCH_DATA=$data sh bench/unwind.sh
