# lib.sh - what bench/run.sh and bench/fold.sh share, sourced by both
# from the top of the tree: settings, recording captures of workload.c,
# and timing commands.  Sets:
#
#   PDTOOL  the pdtool binary (default build/default/pdtool)
#   data    where captures and tools go: BENCH_DATA, default bench/data
#           (git-ignored); another folder keeps a trial run's small
#           captures apart from the real ones
#   threads, period, runs   BENCH_THREADS (default: the CPUs),
#           BENCH_PERIOD (cpu-clock period in ns, default 20000),
#           BENCH_RUNS (default 3)
#   event   the event record() samples: cpu-clock (a script may change it)
#   workload  the program record() runs: $data/workload (likewise)
#   tmp     a scratch folder, removed on exit
#   MEMWATCH  bench/memwatch.c built into $tmp: times a command as
#           /usr/bin/time does and adds its peak anonymous memory
#
# and defines die, filesize, build_workload, build_tools, record,
# run_once, medians, measure and rows_table (below).
# sh has no locals: each function's variables carry its prefix.

PDTOOL=${PDTOOL:-$(pwd)/build/default/pdtool}
data=${BENCH_DATA:-bench/data}
ncpu=$(nproc 2>/dev/null || echo 2)
threads=${BENCH_THREADS:-$ncpu}
period=${BENCH_PERIOD:-20000}
runs=${BENCH_RUNS:-3}
event=cpu-clock
workload=$data/workload
MEMWATCH=''

die() {
	echo "bench: $*" >&2
	exit 2
}

filesize() {
	wc -c <"$1" | tr -d ' '
}

[ -x "$PDTOOL" ] || die "no pdtool at '$PDTOOL' (run make first)"
command -v perf >/dev/null 2>&1 || die "perf is needed to record the captures"
mkdir -p "$data" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
MEMWATCH=$tmp/memwatch
${CC:-cc} -std=c11 -O2 -o "$MEMWATCH" bench/memwatch.c ||
	die "cannot build bench/memwatch.c"

# build_workload [OUT [OPTIMIZATION]]: bench/workload.c, the program
# recorded, built into OUT (default $data/workload) with OPTIMIZATION
# (default -O1) when missing or out of date
build_workload() {
	bw_out=${1:-$data/workload}
	bw_opt=${2:--O1}
	if [ ! -x "$bw_out" ] || [ bench/workload.c -nt "$bw_out" ]; then
		${CC:-cc} -std=c11 "$bw_opt" -g -fno-omit-frame-pointer -pthread \
			-o "$bw_out" bench/workload.c ||
			die "cannot build $bw_out"
	fi
}

# build_tools: build_workload, and $data/bench_reader (libpd timed alone)
# when missing or out of date
build_tools() {
	build_workload
	bt_libpd=$(dirname "$PDTOOL")/libpd.a
	[ -f "$bt_libpd" ] || die "no libpd.a next to '$PDTOOL'"
	if [ ! -x "$data/bench_reader" ] ||
	   [ bench/bench_reader.c -nt "$data/bench_reader" ] ||
	   [ "$bt_libpd" -nt "$data/bench_reader" ]; then
		${CC:-cc} -std=c11 -O2 -g -Icommon -Ireader -o "$data/bench_reader" \
			bench/bench_reader.c "$bt_libpd" \
			$(pkg-config --libs libzstd) ||
			die "cannot build bench_reader"
	fi
}

# record NAME SECONDS [perf record options]: $data/NAME.perf.data, SECONDS
# of $workload on $threads threads, `perf record -e $event -g`
record() {
	rec_name=$1 rec_secs=$2
	shift 2
	echo "bench: recording $rec_name.perf.data: $rec_secs s of $threads threads, $event every $period ns $*" >&2
	timeout $((rec_secs * 4 + 300)) \
		perf record -q -N -e "$event" -c "$period" -g -m 16M "$@" \
		-o "$data/$rec_name.tmp" -- "$workload" "$rec_secs" "$threads" \
		>"$tmp/record.log" 2>&1 || {
		cat "$tmp/record.log" >&2
		die "perf record failed"
	}
	mv "$data/$rec_name.tmp" "$data/$rec_name.perf.data"
}

# run_once RUNS LABEL FILE OUT CMD...: one run of CMD, its stdout to OUT;
# appends "label<TAB>file<TAB>wall us<TAB>peak RSS KB<TAB>CPU us<TAB>peak
# anonymous KB" to the file RUNS (CPU: user + system, children included;
# anonymous memory: RssAnon summed over CMD's process tree, polled by
# memwatch).  A failing run is reported and counted.
run_once() {
	r_runs=$1 r_label=$2 r_file=$3 r_out=$4
	shift 4
	r_start=$(date +%s%N)
	"$MEMWATCH" "$tmp/time" "$@" >"$r_out" 2>"$tmp/err"
	r_rc=$?
	r_end=$(date +%s%N)
	if [ $r_rc != 0 ]; then
		echo "bench: '$*' failed (exit $r_rc):" >&2
		head -n 5 "$tmp/err" >&2
	fi
	tail -n 1 "$tmp/time" | awk -F' ' -v l="$r_label" -v f="$r_file" \
		-v w=$(( (r_end - r_start) / 1000 )) \
		'{ printf "%s\t%s\t%d\t%d\t%d\t%d\n", l, f, w, $1,
		   ($2 + $3) * 1e6, $4 }' \
		>>"$r_runs"
}

# medians RUNS: run_once's rows in RUNS, one row per label and file in the
# order they first ran, appended to $tmp/rows: the median wall time, the
# largest peak RSS, the median CPU time and the largest peak anonymous
# memory, in run_once's columns
medians() {
	awk -F'\t' '
	function median(a, k, m,   i, j, t, v) {
		for (i = 1; i <= m; i++)
			v[i] = a[k, i]
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return v[int((m + 1) / 2)]
	}
	{
		k = $1 SUBSEP $2
		if (!(k in n)) { order[++nr] = k; label[k] = $1; file[k] = $2 }
		n[k]++; w[k, n[k]] = $3; c[k, n[k]] = $5
		if ($4 > rss[k]) rss[k] = $4
		if ($6 > anon[k]) anon[k] = $6
	}
	END {
		for (i = 1; i <= nr; i++) {
			k = order[i]
			printf "%s\t%s\t%d\t%d\t%d\t%d\n", label[k], file[k],
				median(w, k, n[k]), rss[k], median(c, k, n[k]),
				anon[k]
		}
	}' "$1" >>"$tmp/rows"
}

# measure LABEL FILE OUT CMD...: $runs runs of CMD in a row, the first
# one's stdout to OUT, the others' to /dev/null, reduced by medians into
# $tmp/rows ("label<TAB>file<TAB>wall us<TAB>KB<TAB>CPU us<TAB>anon KB").  A machine
# shared with other jobs makes CPU time the steadier measure.
measure() {
	m_label=$1 m_file=$2 m_out=$3
	shift 3
	: >"$tmp/measure.runs"
	m_i=0
	while [ $m_i -lt "$runs" ]; do
		m_to=/dev/null
		[ $m_i = 0 ] && m_to=$m_out
		run_once "$tmp/measure.runs" "$m_label" "$m_file" "$m_to" "$@"
		m_i=$((m_i + 1))
	done
	medians "$tmp/measure.runs"
}

# fold_by_turns FILE OUT OUT1 LABEL1 ARGS1...: `pdtool fold FILE` and
# `pdtool fold ARGS1... FILE` (LABEL1, -j 1 say), $runs runs each by
# turns, so that both meet the same moments of a shared host (run apart,
# minutes between them, fold.sh read their ratio as 1.15x and as 1.88x
# on two days, by hand by turns 1.41-1.45x both days); each one's first
# run's stdout to OUT and OUT1 (files: writing 30 MB of folded lines to a
# file costs 10-17 ms more than to /dev/null here), the others' to
# /dev/null; reduced by medians as measure's rows
fold_by_turns() {
	ft_file=$1 ft_out=$2 ft_out1=$3 ft_label1=$4
	shift 4
	: >"$tmp/pair.runs"
	ft_i=0
	while [ $ft_i -lt "$runs" ]; do
		ft_o=/dev/null ft_o1=/dev/null
		[ $ft_i = 0 ] && ft_o=$ft_out ft_o1=$ft_out1
		run_once "$tmp/pair.runs" "pdtool fold" "$ft_file" "$ft_o" \
			"$PDTOOL" fold "$ft_file"
		run_once "$tmp/pair.runs" "$ft_label1" "$ft_file" "$ft_o1" \
			"$PDTOOL" fold "$@" "$ft_file"
		ft_i=$((ft_i + 1))
	done
	medians "$tmp/pair.runs"
}

# results_head SCRIPT FILE: the results' opening lines, what made them
# (SCRIPT at this commit, perf's version), the machine and the capture
# FILE, then measure's rows ($tmp/rows) as a Markdown table
results_head() {
	echo "Made by $1 on $(date -u +%Y-%m-%d) at commit" \
		"$(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(perf version)."
	echo "Machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
	echo "Capture: $2, $(($(filesize "$2") / 1000000)) MB.  Times: median of $runs runs from the page cache, output to a file; RSS and anonymous memory: the largest of the runs."
	echo
	rows_table
}

# rows_table: $tmp/rows (measure's) as a Markdown table: a command a
# row, its median wall and CPU seconds, peak RSS and anonymous MB
rows_table() {
	echo "| command | median s | CPU s | peak RSS MB | peak anon MB |"
	echo "|---|---:|---:|---:|---:|"
	awk -F'\t' '{ printf "| `%s` | %.3f | %.3f | %.1f | %.1f |\n",
		$1, $3 / 1e6, $5 / 1e6, $4 / 1024, $6 / 1024 }' "$tmp/rows"
}
