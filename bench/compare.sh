#!/bin/sh
# compare.sh - the same pdtool commands timed at two commits, side by side
# in one run, so that a change that should not touch speed (a reshaping)
# is shown not to:
#
#   BASE=<commit> PDTOOL=build/default/pdtool sh bench/compare.sh
#
# Builds pdtool at BASE (default: HEAD~1) in a scratch worktree, then runs
# BENCH_RUNS rounds (default 5) of every command below with both binaries
# in turn, so that a change in the machine's load falls on both alike:
#
#   fold FILE, fold -j 1 FILE, flame FILE -o x.svg   (fold.perf.data)
#   fold FILE                                        (the DWARF capture)
#   diff A B, diff --folded A B                      (diffa, diffb)
#   annotate --stdio --top 20 FILE                   (annotate.perf.data)
#
# on the captures the other benchmarks record into bench/data (fold.sh,
# diff.sh, annotate.sh, unwind.sh; recorded here when missing, in the
# sizes BENCH_*_MIN_MB say, as those scripts do).  A command missing at
# BASE is left out.  Prints a Markdown table: each command's median wall
# and CPU time and peak RSS at both commits, and the ratio HEAD / BASE;
# also written to bench/data/compare-results.md.
#
# BENCH_CALLGRIND=1 counts instructions instead (valgrind's callgrind,
# one run of each command at each commit): a VM shared with other work
# varies its timings by 20-30% from run to run, instruction counts by
# well under 0.1%.  Callgrind runs about 50 times slower: point
# BENCH_DATA at smaller captures (the trial sizes of bench/run.sh).
# Written to bench/data/compare-callgrind.md.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. bench/lib.sh
runs=${BENCH_RUNS:-5}
base=${BASE:-HEAD~1}
base_rev=$(git rev-parse --short "$base") || die "no commit '$base'"
head_rev=$(git rev-parse --short HEAD)

# ---- the captures (the other benchmarks' own recordings) ---------------

fold_file=$data/fold.perf.data
[ -f "$fold_file" ] || [ -f "$data/small.perf.data" ] ||
	PDTOOL=$PDTOOL BENCH_DATA=$data BENCH_SKIP_PERF=1 BENCH_RUNS=1 \
		sh bench/fold.sh >/dev/null || die "bench/fold.sh failed"
[ -f "$fold_file" ] || fold_file=$data/small.perf.data
[ -f "$data/diffa.perf.data" ] && [ -f "$data/diffb.perf.data" ] ||
	PDTOOL=$PDTOOL BENCH_DATA=$data BENCH_RUNS=1 \
		sh bench/diff.sh >/dev/null || die "bench/diff.sh failed"
[ -f "$data/annotate.perf.data" ] ||
	PDTOOL=$PDTOOL BENCH_DATA=$data BENCH_SKIP_PERF=1 BENCH_RUNS=1 \
		sh bench/annotate.sh >/dev/null || die "bench/annotate.sh failed"
dwarf_file=$(ls "$data"/unwind*.perf.data 2>/dev/null | head -n 1)

# ---- pdtool at BASE ------------------------------------------------------

wt=$tmp/base
git worktree add -q --detach "$wt" "$base" || die "cannot check out $base"
trap 'git worktree remove --force "$wt" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
echo "bench: building pdtool at $base_rev" >&2
make -C "$wt" -j"$ncpu" >"$tmp/build.log" 2>&1 || {
	tail -n 20 "$tmp/build.log" >&2
	die "cannot build pdtool at $base_rev"
}
OLD=$wt/build/default/pdtool

# ---- timing (run_once, medians: bench/lib.sh) ------------------------

# callgrind_once LABEL WHICH CMD...: CMD's instructions under callgrind,
# appended to $tmp/ir as "label<TAB>which<TAB>instructions"
callgrind_once() {
	c_label=$1 c_which=$2
	shift 2
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
		>/dev/null 2>"$tmp/cg.err" ||
		echo "bench: '$*' failed under callgrind" >&2
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.err" |
		awk -v l="$c_label" -v w="$c_which" '{ printf "%s\t%s\t%s\n", l, w, $1 }' \
		>>"$tmp/ir"
}

# both LABEL CMD...: CMD with pdtool at BASE and at HEAD, one run each;
# PD in CMD stands for the binary
both() {
	b_label=$1
	shift
	for b_which in base head; do
		b_bin=$PDTOOL
		[ $b_which = base ] && b_bin=$OLD
		b_args=
		for b_a in "$@"; do
			[ "$b_a" = PD ] && b_a=$b_bin
			b_args="$b_args '$b_a'"
		done
		if [ "${BENCH_CALLGRIND:-}" = 1 ]; then
			eval "callgrind_once \"\$b_label\" $b_which $b_args"
		else
			eval "run_once \"\$tmp/runs\" \"\$b_label\" $b_which /dev/null $b_args"
		fi
	done
}

mb() {
	awk -v b="$(filesize "$1")" 'BEGIN { printf "%.1f", b / 1e6 }'
}
captures() {
	echo "Captures: fold $(basename "$fold_file") $(mb "$fold_file") MB;" \
		"diff diffa $(mb "$data/diffa.perf.data") MB and diffb" \
		"$(mb "$data/diffb.perf.data") MB; annotate" \
		"$(mb "$data/annotate.perf.data") MB${dwarf_file:+; DWARF $(basename "$dwarf_file") $(mb "$dwarf_file") MB}."
}

# every_command: each command, with both binaries
every_command() {
	both "fold" PD fold "$fold_file"
	both "fold -j 1" PD fold -j 1 "$fold_file"
	both "flame -o x.svg" PD flame "$fold_file" -o "$tmp/x.svg"
	[ -n "$dwarf_file" ] && both "fold (DWARF)" PD fold "$dwarf_file"
	both "diff A B" PD diff "$data/diffa.perf.data" "$data/diffb.perf.data"
	both "diff --folded A B" PD diff --folded "$data/diffa.perf.data" \
		"$data/diffb.perf.data"
	both "annotate --stdio --top 20" PD annotate --stdio --top 20 \
		"$data/annotate.perf.data"
}

if [ "${BENCH_CALLGRIND:-}" = 1 ]; then
	command -v valgrind >/dev/null || die "BENCH_CALLGRIND=1 needs valgrind"
	: >"$tmp/ir"
	every_command
	{
		echo "Made by BENCH_CALLGRIND=1 bench/compare.sh on" \
			"$(date -u +%Y-%m-%d): pdtool at $base_rev (base) and" \
			"$head_rev (head), built alike; instructions counted by" \
			"$(valgrind --version), one run each."
		echo
		captures
		echo
		echo "| command | base instructions | head instructions | head/base |"
		echo "|---|---:|---:|---:|"
		awk -F'\t' '
			{ k = $1; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
			  ir[k, $2] = $3 }
			END {
				for (i = 1; i <= n; i++) {
					k = order[i]
					printf "| `%s` | %.1fM | %.1fM | %.3f |\n", k,
						ir[k, "base"] / 1e6, ir[k, "head"] / 1e6,
						ir[k, "base"] ? ir[k, "head"] / ir[k, "base"] : 0
				}
			}' "$tmp/ir"
	} >"$data/compare-callgrind.md"
	cat "$data/compare-callgrind.md"
	exit 0
fi

cat "$fold_file" "$data"/diff[ab].perf.data "$data/annotate.perf.data" \
	${dwarf_file:+"$dwarf_file"} >/dev/null
: >"$tmp/runs"
: >"$tmp/rows"
i=0
while [ $i -lt "$runs" ]; do
	echo "bench: round $((i + 1)) of $runs" >&2
	every_command
	i=$((i + 1))
done
medians "$tmp/runs"

# ---- report --------------------------------------------------------------

{
	echo "Made by bench/compare.sh on $(date -u +%Y-%m-%d): pdtool at" \
		"$base_rev (base) and $head_rev (head), built alike."
	echo "Machine: $(nproc) CPUs," \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
		"Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)" \
		"at the end.  Medians of $runs rounds, both binaries in turn in" \
		"each round, from the page cache, output to /dev/null; RSS and" \
		"anonymous memory (RssAnon, bench/memwatch.c): the largest of" \
		"the runs."
	echo
	captures
	echo
	echo "| command | base wall s | head wall s | head/base wall | base CPU s | head CPU s | head/base CPU | base RSS MB | head RSS MB | base anon MB | head anon MB |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	awk -F'\t' '
		{ k = $1; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		  w[k, $2] = $3; r[k, $2] = $4; c[k, $2] = $5; a[k, $2] = $6 }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]
				printf "| `%s` | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | %.1f | %.1f | %.1f |\n", k,
					w[k, "base"] / 1e6, w[k, "head"] / 1e6,
					w[k, "base"] ? w[k, "head"] / w[k, "base"] : 0,
					c[k, "base"] / 1e6, c[k, "head"] / 1e6,
					c[k, "base"] ? c[k, "head"] / c[k, "base"] : 0,
					r[k, "base"] / 1024, r[k, "head"] / 1024,
					a[k, "base"] / 1024, a[k, "head"] / 1024
			}
		}' "$tmp/rows"
} >"$data/compare-results.md"
cat "$data/compare-results.md"
