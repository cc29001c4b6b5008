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
# with the peak RSS of each (/usr/bin/time -f %M), and prints a Markdown
# report: the table, GB/s, and the ratios the issue sets as targets
# (pdtool at most 1/20 of perf script's time, at least 1 GB/s).  The
# report is also written to bench/data/results.md.
#
# Environment: BENCH_MIN_MB (size of big.perf.data, default 300),
# BENCH_THREADS (workload threads, default the number of CPUs),
# BENCH_PERIOD (cpu-clock period in ns, default 20000), BENCH_RUNS
# (default 3), BENCH_SKIP_PERF=1 times pdtool and cat only, BENCH_ONLY
# (reader, fold, annotate or diff) runs one of the benchmarks.
#
# The fold benchmark, bench/fold.sh, the annotate benchmark,
# bench/annotate.sh, and the diff benchmark, bench/diff.sh, run after this
# one (see there); BENCH_ONLY=fold, annotate or diff runs one of them
# alone.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
PDTOOL=${PDTOOL:-$top/build/default/pdtool}
data=bench/data
min_mb=${BENCH_MIN_MB:-300}
ncpu=$(nproc 2>/dev/null || echo 2)
threads=${BENCH_THREADS:-$ncpu}
period=${BENCH_PERIOD:-20000}
runs=${BENCH_RUNS:-3}
TIME=/usr/bin/time

die() {
	echo "bench: $*" >&2
	exit 2
}

[ -x "$PDTOOL" ] || die "no pdtool at '$PDTOOL' (run make first)"
if [ "${BENCH_ONLY:-}" = fold ]; then
	PDTOOL=$PDTOOL exec sh bench/fold.sh
fi
if [ "${BENCH_ONLY:-}" = annotate ]; then
	PDTOOL=$PDTOOL exec sh bench/annotate.sh
fi
if [ "${BENCH_ONLY:-}" = diff ]; then
	PDTOOL=$PDTOOL exec sh bench/diff.sh
fi
[ -x "$TIME" ] || die "$TIME is missing: apt-get install time"
command -v perf >/dev/null 2>&1 || die "perf is needed to record the captures"
mkdir -p "$data" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

filesize() {
	wc -c <"$1" | tr -d ' '
}

# ---- recording (once) --------------------------------------------------

if [ ! -x "$data/workload" ] || [ bench/workload.c -nt "$data/workload" ]; then
	${CC:-cc} -std=c11 -O1 -g -fno-omit-frame-pointer -pthread \
		-o "$data/workload" bench/workload.c || die "cannot build workload"
fi

libpd=$(dirname "$PDTOOL")/libpd.a
[ -f "$libpd" ] || die "no libpd.a next to '$PDTOOL'"
${CC:-cc} -std=c11 -O2 -g -Ireader -o "$data/bench_reader" bench/bench_reader.c \
	"$libpd" $(pkg-config --libs libzstd) || die "cannot build bench_reader"

# record NAME SECONDS [perf record options]
# (sh has no locals: rec_* are this function's own)
record() {
	rec_name=$1 rec_secs=$2
	shift 2
	echo "bench: recording $rec_name.perf.data: $rec_secs s of $threads threads, cpu-clock every $period ns $*" >&2
	timeout $((rec_secs * 4 + 300)) \
		perf record -q -N -e cpu-clock -c "$period" -g -m 16M "$@" \
		-o "$data/$rec_name.tmp" -- "$data/workload" "$rec_secs" "$threads" \
		>"$tmp/record.log" 2>&1 || {
		cat "$tmp/record.log" >&2
		die "perf record failed"
	}
	mv "$data/$rec_name.tmp" "$data/$rec_name.perf.data"
}

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

# ---- timing --------------------------------------------------------------

# measure LABEL FILE CMD...: median wall time of $runs runs (seconds) and
# the largest peak RSS (KB), appended to $tmp/rows as "label file us kb"
# (tab-separated)
measure() {
	label=$1 file=$2
	shift 2
	: >"$tmp/times"
	maxrss=0
	i=0
	while [ $i -lt "$runs" ]; do
		start=$(date +%s%N)
		"$TIME" -f %M -o "$tmp/rss" "$@" >/dev/null 2>"$tmp/err"
		rc=$?
		end=$(date +%s%N)
		if [ $rc != 0 ]; then
			echo "bench: '$*' failed (exit $rc):" >&2
			head -n 5 "$tmp/err" >&2
		fi
		echo $(( (end - start) / 1000 )) >>"$tmp/times"
		rss=$(tail -n 1 "$tmp/rss")
		[ "$rss" -gt "$maxrss" ] && maxrss=$rss
		i=$((i + 1))
	done
	med=$(sort -n "$tmp/times" | sed -n "$(( (runs + 1) / 2 ))p")
	printf '%s\t%s\t%s\t%s\n' "$label" "$file" "$med" "$maxrss" >>"$tmp/rows"
}

: >"$tmp/rows"
for name in small big bigz; do
	f=$data/$name.perf.data
	cat "$f" >/dev/null
	cat "$f" >/dev/null
	measure "cat" "$f" cat "$f"
	measure "pdtool dump --count" "$f" "$PDTOOL" dump --count "$f"
	measure "pdtool dump --count --ordered" "$f" "$PDTOOL" dump --count --ordered "$f"
	measure "libpd: records only" "$f" "$data/bench_reader" frame "$f"
	measure "libpd: records + decode" "$f" "$data/bench_reader" decode "$f"
	if [ "${BENCH_SKIP_PERF:-}" != 1 ]; then
		measure "perf script -F ip,tid,time" "$f" perf script -F ip,tid,time -i "$f"
		measure "perf report --stats" "$f" perf report --stats -i "$f"
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
PDTOOL=$PDTOOL sh bench/fold.sh
PDTOOL=$PDTOOL sh bench/annotate.sh
PDTOOL=$PDTOOL sh bench/diff.sh
