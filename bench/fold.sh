#!/bin/sh
# fold.sh - the fold benchmark of `make bench` (STYLE P4, issues 3 and 14), run at
# the end of bench/run.sh or alone:
#
#   PDTOOL=build/default/pdtool sh bench/fold.sh
#
# Captures (bench/data/, git-ignored, recorded once): a callchain capture
# of at least 100 MB and 1M samples of bench/workload.c, `perf record -e
# cpu-clock -g`: run.sh's small.perf.data when it qualifies, else
# fold.perf.data recorded here; and foldz.perf.data, the same recording
# length with -z --buildid-mmap (perf 6.1 writes -z captures' build-id
# table with empty ids; MMAP2 records carry them instead, so that the
# kernel and the binaries are identified in both captures).  Then, from
# the page cache, the median wall time of
# BENCH_RUNS (default 3) runs, the largest peak RSS (as /usr/bin/time -f
# %M) and the largest peak anonymous memory (bench/memwatch.c) of each of
#   pdtool fold FILE
#   perf script report stackcollapse -i FILE
#   perf script -i FILE > /dev/null
#   perf report --stdio -i FILE > /dev/null
#   hotspot-perfparser --input FILE --output /dev/null
#   cat FILE > /dev/null
# on both captures, `pdtool fold -j1` (one thread) on both, `cat` and
# `pdtool fold` on each capture made ten times as large by
# bench/concat.py (memory flat in the capture), and a Markdown report
# (bench/fold_report.py): the
# table, samples per second, the ratios issue 14 sets as targets, and
# whether pdtool fold's lines equal perf's stackcollapse by weight
# (tests/cli/fold/cmpfold.py).  The report is also written to
# bench/data/fold-results.md.
#
# Environment: BENCH_DATA, BENCH_RUNS, BENCH_THREADS, BENCH_PERIOD as
# bench/lib.sh says; BENCH_FOLD_MIN_MB (default 100) and
# BENCH_FOLD_MIN_SAMPLES (default 1000000), the size the fold capture must
# reach; BENCH_SKIP_PERF=1 times pdtool and cat only (no comparison);
# PERFPARSER, the perfparser binary.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. bench/lib.sh
min_mb=${BENCH_FOLD_MIN_MB:-100}
min_samples=${BENCH_FOLD_MIN_SAMPLES:-1000000}
PERFPARSER=${PERFPARSER:-}

if [ -z "$PERFPARSER" ]; then
	for p in /usr/lib/*/libexec/hotspot-perfparser \
		 /usr/libexec/hotspot-perfparser \
		 "$(command -v hotspot-perfparser 2>/dev/null)"; do
		[ -x "$p" ] && PERFPARSER=$p && break
	done
fi
[ -n "$PERFPARSER" ] || [ "${BENCH_SKIP_PERF:-}" = 1 ] ||
	die "no hotspot-perfparser: apt-get install hotspot (or BENCH_SKIP_PERF=1)"

# ---- recording (once) --------------------------------------------------

build_tools

# samples FILE: its SAMPLE records
samples() {
	"$data/bench_reader" frame "$1" | sed -n 's/.*samples=\([0-9]*\).*/\1/p'
}

# qualifies FILE: big enough, and recorded from the current workload
qualifies() {
	[ -f "$1" ] && [ ! "$data/workload" -nt "$1" ] &&
		[ "$(filesize "$1")" -ge $((min_mb * 1000 * 1000)) ] &&
		[ "$(samples "$1")" -ge "$min_samples" ]
}

if qualifies "$data/small.perf.data"; then
	plain=$data/small.perf.data
	secs=$(( ($(cat "$data/big.seconds" 2>/dev/null || echo 60) + 3) / 4 ))
else
	plain=$data/fold.perf.data
	if ! qualifies "$plain"; then
		# enough seconds for both the size and the sample count,
		# from a short probe; once more if that fell short
		record fold 5
		secs=5
		while ! qualifies "$plain"; do
			secs=$(awk -v s="$secs" -v b="$(filesize "$plain")" \
				-v n="$(samples "$plain")" -v mb="$min_mb" \
				-v mn="$min_samples" 'BEGIN {
				f = mb * 1e6 / (b + 1)
				if (mn / (n + 1) > f) f = mn / (n + 1)
				printf "%d", s * f * 1.2 + 1 }')
			[ "$secs" -le 1800 ] || die "$secs s of recording for $min_mb MB is too long"
			record fold "$secs"
		done
		echo "$secs" >"$data/fold.seconds"
		rm -f "$data/foldz.perf.data"
	fi
	secs=$(cat "$data/fold.seconds" 2>/dev/null || echo 20)
fi
zfile=$data/foldz.perf.data
zflags="-z --buildid-mmap"
if [ ! -f "$zfile" ] || [ "$data/workload" -nt "$zfile" ] ||
   [ "$plain" -nt "$zfile" ] ||
   [ "$(cat "$data/foldz.flags" 2>/dev/null)" != "$zflags" ]; then
	record foldz "$secs" $zflags
	echo "$zflags" >"$data/foldz.flags"
fi

# ---- timing (measure: bench/lib.sh) ----------------------------------

: >"$tmp/rows"
: >"$tmp/files"
: >"$tmp/cmp"
: >"$tmp/notes"
for f in "$plain" "$zfile"; do
	name=$(basename "$f" .perf.data)
	echo "bench: timing on $f" >&2
	cat "$f" >/dev/null
	cat "$f" >/dev/null
	measure "cat" "$f" /dev/null cat "$f"
	# the default (every CPU) and -j 1 by turns (lib.sh says why), their
	# lines the same bytes
	fold_by_turns "$f" "$tmp/$name.pd" "$tmp/$name.pdj1" \
		"pdtool fold -j1" -j1
	cmp -s "$tmp/$name.pd" "$tmp/$name.pdj1" ||
		echo "$name.perf.data: pdtool fold -j1 wrote other lines than pdtool fold" >>"$tmp/notes"
	if [ "${BENCH_SKIP_PERF:-}" != 1 ]; then
		measure "perf script report stackcollapse" "$f" "$tmp/$name.perf" \
			perf script report stackcollapse -i "$f"
		measure "perf script" "$f" /dev/null perf script -i "$f"
		measure "perf report --stdio" "$f" /dev/null \
			perf report --stdio -i "$f"
		# Debian's perfparser may be built without zstd: it then
		# skips every COMPRESSED record, reads nothing and exits 0
		if [ "$f" = "$zfile" ] &&
		   "$PERFPARSER" --input "$f" --output /dev/null 2>&1 |
			grep -q 'zstd decompression support not available'; then
			echo "$name.perf.data: hotspot-perfparser not timed: it says \"zstd decompression support not available\" and skips every compressed record" >>"$tmp/notes"
		else
			measure "hotspot-perfparser" "$f" /dev/null \
				"$PERFPARSER" --input "$f" --output /dev/null
		fi
		printf '%s\t%s\n' "$f" "$(python3 tests/cli/fold/cmpfold.py \
			"$tmp/$name.perf" "$tmp/$name.pd" 0 | tr '\n' '\v')" \
			>>"$tmp/cmp"
	fi
	echo "$f $(filesize "$f") $("$data/bench_reader" frame "$f")" >>"$tmp/files"
done

# Memory flat in the capture (issue 14): each capture ten times over
# (bench/concat.py: the same threads, maps and stacks, ten times the
# samples), folded in the same memory; its lines must be the original's
# with ten times the counts.
: >"$tmp/tenx"
for f in "$plain" "$zfile"; do
	name=$(basename "$f" .perf.data)
	big=$data/${name}10.perf.data
	if [ ! -f "$big" ] || [ "$f" -nt "$big" ] ||
	   [ bench/concat.py -nt "$big" ]; then
		echo "bench: writing $big (bench/concat.py 10)" >&2
		python3 bench/concat.py 10 "$f" "$big.tmp" &&
			mv "$big.tmp" "$big" || die "bench/concat.py failed"
	fi
	"$PDTOOL" fold "$f" >"$tmp/$name.pd1" 2>/dev/null
	cat "$big" >/dev/null
	measure "cat" "$big" /dev/null cat "$big"
	measure "pdtool fold" "$big" "$tmp/$name.pd10" "$PDTOOL" fold "$big"
	echo "$big $(filesize "$big") $("$data/bench_reader" frame "$big")" >>"$tmp/files"
	printf '%s\t%s\t%s\n' "$f" "$big" "$(python3 - "$tmp/$name.pd1" \
		"$tmp/$name.pd10" <<'PY'
import sys
def load(path):
    d = {}
    for line in open(path):
        k, _, v = line.rstrip("\n").rpartition(" ")
        d[k] = int(v)
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
same = sum(1 for k, v in a.items() if b.get(k) == 10 * v)
print("%d of %d lines ten times the count, %d lines in all"
      % (same, len(a), len(b)))
PY
)" >>"$tmp/tenx"
done

# ---- report --------------------------------------------------------------

{
	echo "Made by \`make bench\` (bench/fold.sh) on $(date -u +%Y-%m-%d) at" \
		"commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
		"$(perf --version 2>/dev/null)," \
		"$("$PERFPARSER" --version 2>/dev/null | head -n 1)."
	echo "Machine: $(nproc) CPUs," \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
		"$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM," \
		"Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)" \
		"at the end."
	echo "Captures: \`perf record -e cpu-clock -c $period -g\` of" \
		"bench/workload.c with $threads threads for $secs s; the" \
		"zstd one is the same recording length with $zflags.  Times: median" \
		"of $runs runs from the page cache (\`pdtool fold\` and -j1 by" \
		"turns), the first run's output to a file for \`pdtool fold\`" \
		"(-j1 too) and stackcollapse (compared), to /dev/null for the" \
		"rest; RSS: the largest of the runs."
	echo
	python3 bench/fold_report.py "$tmp/files" "$tmp/rows" "$tmp/cmp" \
		"$tmp/tenx"
	if [ -s "$tmp/notes" ]; then
		echo
		sed 's/^/- /' "$tmp/notes"
	fi
} >"$data/fold-results.md"
cat "$data/fold-results.md"
