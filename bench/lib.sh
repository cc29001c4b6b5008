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
#   tmp     a scratch folder, removed on exit
#
# and defines die, filesize, build_workload, build_tools, record and
# measure (below).
# sh has no locals: each function's variables carry its prefix.

PDTOOL=${PDTOOL:-$(pwd)/build/default/pdtool}
data=${BENCH_DATA:-bench/data}
ncpu=$(nproc 2>/dev/null || echo 2)
threads=${BENCH_THREADS:-$ncpu}
period=${BENCH_PERIOD:-20000}
runs=${BENCH_RUNS:-3}
event=cpu-clock
TIME=/usr/bin/time

die() {
	echo "bench: $*" >&2
	exit 2
}

filesize() {
	wc -c <"$1" | tr -d ' '
}

[ -x "$PDTOOL" ] || die "no pdtool at '$PDTOOL' (run make first)"
[ -x "$TIME" ] || die "$TIME is missing: apt-get install time"
command -v perf >/dev/null 2>&1 || die "perf is needed to record the captures"
mkdir -p "$data" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# build_workload: $data/workload, the program recorded, when missing or
# out of date
build_workload() {
	if [ ! -x "$data/workload" ] || [ bench/workload.c -nt "$data/workload" ]; then
		${CC:-cc} -std=c11 -O1 -g -fno-omit-frame-pointer -pthread \
			-o "$data/workload" bench/workload.c ||
			die "cannot build workload"
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
		${CC:-cc} -std=c11 -O2 -g -Ireader -o "$data/bench_reader" \
			bench/bench_reader.c "$bt_libpd" \
			$(pkg-config --libs libzstd) ||
			die "cannot build bench_reader"
	fi
}

# record NAME SECONDS [perf record options]: $data/NAME.perf.data, SECONDS
# of workload.c on $threads threads, `perf record -e $event -g`
record() {
	rec_name=$1 rec_secs=$2
	shift 2
	echo "bench: recording $rec_name.perf.data: $rec_secs s of $threads threads, $event every $period ns $*" >&2
	timeout $((rec_secs * 4 + 300)) \
		perf record -q -N -e "$event" -c "$period" -g -m 16M "$@" \
		-o "$data/$rec_name.tmp" -- "$data/workload" "$rec_secs" "$threads" \
		>"$tmp/record.log" 2>&1 || {
		cat "$tmp/record.log" >&2
		die "perf record failed"
	}
	mv "$data/$rec_name.tmp" "$data/$rec_name.perf.data"
}

# measure LABEL FILE OUT CMD...: the median wall time and the median CPU
# time (user + system, children included) of $runs runs of CMD, and the
# largest peak RSS (/usr/bin/time), appended to $tmp/rows as
# "label<TAB>file<TAB>wall us<TAB>KB<TAB>CPU us"; the first run's stdout
# goes to OUT, the others' to /dev/null.  A failing run is reported and
# counted.  A machine shared with other jobs makes CPU time the steadier.
measure() {
	m_label=$1 m_file=$2 m_out=$3
	shift 3
	: >"$tmp/times"
	: >"$tmp/cpus"
	m_maxrss=0
	m_i=0
	while [ $m_i -lt "$runs" ]; do
		m_to=/dev/null
		[ $m_i = 0 ] && m_to=$m_out
		m_start=$(date +%s%N)
		"$TIME" -f '%M %U %S' -o "$tmp/rss" "$@" >"$m_to" 2>"$tmp/err"
		m_rc=$?
		m_end=$(date +%s%N)
		if [ $m_rc != 0 ]; then
			echo "bench: '$*' failed (exit $m_rc):" >&2
			head -n 5 "$tmp/err" >&2
		fi
		echo $(( (m_end - m_start) / 1000 )) >>"$tmp/times"
		read -r m_rss m_user m_sys <<EOT
$(tail -n 1 "$tmp/rss")
EOT
		awk -v u="$m_user" -v s="$m_sys" \
			'BEGIN { printf "%d\n", (u + s) * 1e6 }' >>"$tmp/cpus"
		[ "$m_rss" -gt "$m_maxrss" ] && m_maxrss=$m_rss
		m_i=$((m_i + 1))
	done
	m_med=$(sort -n "$tmp/times" | sed -n "$(( (runs + 1) / 2 ))p")
	m_cpu=$(sort -n "$tmp/cpus" | sed -n "$(( (runs + 1) / 2 ))p")
	printf '%s\t%s\t%s\t%s\t%s\n' "$m_label" "$m_file" "$m_med" \
		"$m_maxrss" "$m_cpu" >>"$tmp/rows"
}
