#!/bin/sh
# unwind.sh - the DWARF unwinding benchmark of `make bench` (issue 4), run
# at the end of bench/run.sh or alone:
#
#   PDTOOL=build/default/pdtool sh bench/unwind.sh
#
# Capture (bench/data/unwind.perf.data, git-ignored, recorded once): g++
# -O2 compiling a C++ file that includes every standard header and
# instantiates many templates (bench/unwind_gen.py), under `perf record -e
# cpu-clock --call-graph dwarf` (8 KB stacks): deep stacks in cc1plus,
# libstdc++ and libc, at least BENCH_UNWIND_MIN_MB (default 300) MB; the
# file grows by BENCH_UNWIND_FUNCS (default 2) functions a try until the
# capture is that large (the headers alone take g++ most of its time).  Then, from the page cache, side by side:
#   cat FILE > /dev/null
#   pdtool fold -j 1 FILE          (one thread)
#   pdtool fold FILE               (-j: the online CPUs)
#   pdtool fold --unwinder libunwind FILE
#   perf script report stackcollapse -i FILE
#   hotspot-perfparser --input FILE --output /dev/null
#   perf report --stdio -i FILE > /dev/null
# each BENCH_RUNS (default 3) times, median wall and CPU (user + system)
# time, the largest peak RSS; perf's two take tens of minutes on this
# capture (perf 6.1 runs addr2line on cc1plus for every address), so they
# run BENCH_SLOW_RUNS (default 1) times.  The report (bench/unwind_report.py,
# also written to bench/data/unwind-results.md): the table, samples per
# second, the ratios the issue sets as targets, the speed-up the other
# CPUs give, and how pdtool fold's lines agree with perf's stackcollapse
# by weight (tests/cli/fold/cmpfold.py's measure).  The machine's load
# average is printed at the start and at the end: other jobs on it
# stretch wall times, the CPU times less.
#
# Environment: BENCH_DATA, BENCH_RUNS as bench/lib.sh says;
# BENCH_SLOW_RUNS; BENCH_UNWIND_MIN_MB; BENCH_UNWIND_FUNCS; PERFPARSER, the
# perfparser binary; BENCH_SKIP_PERF=1 times pdtool and cat only.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. bench/lib.sh
min_mb=${BENCH_UNWIND_MIN_MB:-300}
funcs=${BENCH_UNWIND_FUNCS:-2}
slow_runs=${BENCH_SLOW_RUNS:-1}
PERFPARSER=${PERFPARSER:-}
f=$data/unwind.perf.data

if [ -z "$PERFPARSER" ]; then
	for p in /usr/lib/*/libexec/hotspot-perfparser \
		 /usr/libexec/hotspot-perfparser \
		 "$(command -v hotspot-perfparser 2>/dev/null)"; do
		[ -x "$p" ] && PERFPARSER=$p && break
	done
fi
[ -n "$PERFPARSER" ] || [ "${BENCH_SKIP_PERF:-}" = 1 ] ||
	die "no hotspot-perfparser: apt-get install hotspot (or BENCH_SKIP_PERF=1)"
command -v g++ >/dev/null 2>&1 || die "g++ is needed for the capture"
echo "bench: load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# ---- recording (once) --------------------------------------------------

build_tools
abs_data=$(cd "$data" && pwd)
n=$funcs
while [ ! -f "$f" ] ||
      [ "$(filesize "$f")" -lt $((min_mb * 1000 * 1000)) ]; do
	[ "$n" -le $((funcs * 8)) ] || die "$n functions compile into less than $min_mb MB"
	python3 bench/unwind_gen.py "$n" "$tmp/big.cpp" || die "unwind_gen.py failed"
	echo "bench: recording unwind.perf.data: g++ -O2 of $n functions, --call-graph dwarf" >&2
	( cd "$tmp" && perf record -q -e cpu-clock --call-graph dwarf \
		-o "$abs_data/unwind.tmp" -- g++ -std=c++17 -O2 -c big.cpp \
		-o big.o ) >"$tmp/record.log" 2>&1 || {
		cat "$tmp/record.log" >&2
		die "perf record failed"
	}
	mv "$data/unwind.tmp" "$f"
	echo "$n" >"$data/unwind.funcs"
	n=$((n + funcs))
done

# ---- timing (measure: bench/lib.sh) ----------------------------------

: >"$tmp/rows"
echo "bench: timing on $f" >&2
cat "$f" >/dev/null
cat "$f" >/dev/null
measure "cat" "$f" /dev/null cat "$f"
# the default and -j 1 by turns (bench/lib.sh says why)
fold_by_turns "$f" "$tmp/pd" "$tmp/pd1" "pdtool fold -j 1" -j 1
measure "pdtool fold --unwinder libunwind" "$f" "$tmp/pdlu" \
	"$PDTOOL" fold --unwinder libunwind "$f"
: >"$tmp/cmp"
if [ "${BENCH_SKIP_PERF:-}" != 1 ]; then
	measure "hotspot-perfparser" "$f" /dev/null \
		"$PERFPARSER" --input "$f" --output /dev/null
	all_runs=$runs
	runs=$slow_runs
	measure "perf script report stackcollapse" "$f" "$tmp/perf" \
		perf script report stackcollapse -i "$f"
	measure "perf report --stdio" "$f" /dev/null perf report --stdio -i "$f"
	runs=$all_runs
	python3 tests/cli/fold/cmpfold.py "$tmp/perf" "$tmp/pd" 0 >"$tmp/cmp"
	cp "$tmp/perf" "$data/unwind.perf.folded"
fi
cmp -s "$tmp/pd1" "$tmp/pd" || echo "bench: pdtool fold -j 1 and -j $ncpu differ" >&2
cp "$tmp/pd" "$data/unwind.pdtool.folded"
"$PDTOOL" fold --stats "$f" 2>&1 >/dev/null | sed -n 's/^pdtool fold: //p' \
	>"$tmp/stats"
echo "$f $(filesize "$f") $("$data/bench_reader" frame "$f")" >"$tmp/files"

# ---- report --------------------------------------------------------------

{
	echo "Made by \`make bench\` (bench/unwind.sh) on $(date -u +%Y-%m-%d) at" \
		"commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
		"$(perf --version 2>/dev/null), $(g++ --version | head -n 1)," \
		"$("$PERFPARSER" --version 2>/dev/null | head -n 1)."
	echo "Machine: $ncpu CPUs," \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
		"$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM," \
		"Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)" \
		"at the end."
	echo "Capture: \`perf record -e cpu-clock --call-graph dwarf\` of g++" \
		"-O2 compiling $(cat "$data/unwind.funcs" 2>/dev/null || echo '?')" \
		"functions of bench/unwind_gen.py.  Times: median of $runs runs" \
		"($slow_runs for perf's) from the page cache (pdtool's -j 1 and" \
		"default by turns), the first run's output to a file for" \
		"pdtool and stackcollapse, to /dev/null for the rest; RSS: the" \
		"largest of the runs."
	echo
	python3 bench/unwind_report.py "$tmp/files" "$tmp/rows" "$tmp/cmp" \
		"$tmp/stats" "$data/unwind.perf.folded" \
		"$data/unwind.pdtool.folded" "$ncpu"
} >"$data/unwind-results.md"
cat "$data/unwind-results.md"
echo "bench: load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
