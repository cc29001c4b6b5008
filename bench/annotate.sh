#!/bin/sh
# annotate.sh - the annotate benchmark (issue 6): pdtool annotate against
# perf annotate --stdio on a capture of at least 300 MB.
#
#   PDTOOL=build/default/pdtool sh bench/annotate.sh
#
# The capture (bench/data/annotate.perf.data, git-ignored, recorded once
# and again when bench/workload.c changes) is bench/workload.c under
# `perf record -e cpu-clock:u -c PERIOD -g`: user space only, so that
# every function with samples has code both tools can read (neither
# disassembles kernel functions from kallsyms), and it is recorded long
# enough to reach BENCH_ANNOTATE_MIN_MB (default 300) MB.
#
# Timed, from the page cache, the median of BENCH_RUNS (default 3) runs
# of wall time and of CPU time (user + system, children included: perf
# runs objdump), and the largest peak RSS, of
#   pdtool annotate --stdio --top 20 FILE
#   perf annotate --stdio -d DSO -i FILE SYMBOL, once for each of those
#                                          20 functions (perf annotates
#                                          one symbol or all of them)
#   perf annotate --stdio -i FILE          every function with samples in
#                                          one pass, more than 20
# and it checks that pdtool's top 20 are functions perf annotated, with
# each instruction's percentage within 0.1 point of perf's
# (tests/cli/annotate/cmpannot.py perf-subset).  The machine may be shared:
# CPU time is the steadier measure then.  Prints a Markdown report, also
# written to bench/data/annotate-results.md.
#
# Environment: BENCH_DATA, BENCH_RUNS, BENCH_THREADS, BENCH_PERIOD as
# bench/lib.sh says; BENCH_ANNOTATE_MIN_MB.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. bench/lib.sh
min_mb=${BENCH_ANNOTATE_MIN_MB:-300}
event=cpu-clock:u
file=$data/annotate.perf.data

build_workload
if [ ! -f "$file" ] || [ "$data/workload" -nt "$file" ] ||
   [ "$(filesize "$file")" -lt $((min_mb * 1000 * 1000)) ]; then
	secs=5
	record annotate $secs
	while [ "$(filesize "$file")" -lt $((min_mb * 1000 * 1000)) ]; do
		secs=$(awk -v s="$secs" -v b="$(filesize "$file")" -v mb="$min_mb" \
			'BEGIN { printf "%d", s * mb * 1e6 / (b + 1) * 1.1 + 1 }')
		[ "$secs" -le 1800 ] || die "$secs s of recording is too long"
		record annotate "$secs"
	done
fi

# measure (bench/lib.sh): its rows are "label file wall_us KB cpu_us"
: >"$tmp/rows"
cat "$file" >/dev/null
"$PDTOOL" annotate --top 20 --format json "$file" >"$tmp/top.json" \
	2>/dev/null || die "pdtool annotate failed"
# the 20 functions, one perf command line each
python3 - "$tmp/top.json" "$file" >"$tmp/perf20.sh" <<'PYEOF'
import json, shlex, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    print("perf annotate --stdio --stdio-color never -d %s -i %s %s" %
          (shlex.quote(f["dso"].rsplit("/", 1)[-1]), shlex.quote(sys.argv[2]),
           shlex.quote(f["name"])))
PYEOF
nr_top=$(grep -c . "$tmp/perf20.sh")
measure "pdtool annotate --stdio --top 20" "$file" "$tmp/pd.txt" \
	"$PDTOOL" annotate --stdio --top 20 "$file"
measure "perf annotate --stdio -d DSO SYMBOL, $nr_top runs" "$file" \
	"$tmp/perf20.txt" \
	sh "$tmp/perf20.sh"
measure "perf annotate --stdio (every function, one run)" "$file" \
	"$tmp/perf.txt" \
	perf annotate --stdio --stdio-color never -i "$file"
nr_perf=$(grep -c '^ Percent |' "$tmp/perf.txt")
python3 tests/cli/annotate/cmpannot.py perf-subset "$tmp/perf20.txt" \
	"$tmp/top.json" >"$tmp/cmp" 2>&1
cmp_rc=$?

{
	echo "### pdtool annotate against perf annotate"
	echo
	echo "$(basename "$file"): $(( $(filesize "$file") / 1000000 )) MB," \
		"cpu-clock:u with callchains of bench/workload.c;" \
		"$nr_top functions in pdtool's top 20; perf's one run" \
		"annotates $nr_perf." \
		"Median of $runs runs, page cache warm."
	echo
	echo "| command | wall ms | CPU ms | peak RSS MB | peak anon MB |"
	echo "|---|---:|---:|---:|---:|"
	awk -F '\t' '{ printf "| `%s` | %d | %d | %d | %d |\n", $1, $3 / 1000, $5 / 1000, $4 / 1024, $6 / 1024 }' "$tmp/rows"
	echo
	awk -F '\t' 'NR == 1 { pw = $3; pc = $5 }
		NR == 2 { printf "perf annotate for the same %s functions / pdtool: %.1fx wall, %.1fx CPU (target: 10x)\n\n", n, $3 / pw, $5 / pc }
		NR == 3 { printf "perf annotate of all %s functions in one run / pdtool: %.1fx wall, %.1fx CPU\n\n", all, $3 / pw, $5 / pc }' \
		n="$nr_top" all="$nr_perf" "$tmp/rows"
	echo "Percentages against perf's ($( [ $cmp_rc = 0 ] && echo agree || echo DIFFER )):"
	echo
	sed 's/^/    /' "$tmp/cmp"
} | tee "$data/annotate-results.md"
