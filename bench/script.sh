#!/bin/sh
# script.sh - the `pdtool script` benchmark (issue 15): pdtool script
# side by side with perf script and cat on the fold benchmark's capture,
#
#   PDTOOL=build/default/pdtool sh bench/script.sh
#
# Capture: bench/fold.sh's fold.perf.data (a `perf record -e cpu-clock
# -g` of bench/workload.c, >= 100 MB, recorded by fold.sh: run it first),
# or small.perf.data when that is the one fold.sh uses.  Then, from the
# page cache, the median wall time of BENCH_RUNS (default 3) runs, the
# largest peak RSS and peak anonymous memory (bench/memwatch.c) of
#   cat FILE > /dev/null
#   pdtool script FILE > /dev/null
#   perf script -i FILE > /dev/null
# a Markdown table with the ratios (the issue's target: perf script takes
# at least 5x pdtool's time); with fold.sh's 10x capture (fold10.perf.data:
# the same samples ten times), pdtool script on it too, whose memory is
# to stay flat (within 10% of the original's); and whether pdtool's text
# equals perf's
# (tests/cli/script/cmpscript.py: samples identical or judged).  The
# report is also written to $data/script-results.md.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. bench/lib.sh

f=
for c in "$data/fold.perf.data" "$data/small.perf.data"; do
	[ -f "$c" ] && f=$c && break
done
[ -n "$f" ] || die "no capture in $data: run bench/fold.sh first"
name=$(basename "$f")

: >"$tmp/rows"
echo "bench: timing on $f" >&2
cat "$f" >/dev/null
cat "$f" >/dev/null
measure "cat" "$f" /dev/null cat "$f"
measure "pdtool script" "$f" /dev/null "$PDTOOL" script "$f"
measure "perf script" "$f" /dev/null perf script -i "$f"
f10=
if [ "$name" = fold.perf.data ] && [ -f "$data/fold10.perf.data" ]; then
	f10=$data/fold10.perf.data
	cat "$f10" >/dev/null
	measure "pdtool script (10x)" "$f10" /dev/null "$PDTOOL" script "$f10"
fi
"$PDTOOL" script "$f" >"$tmp/pd" 2>/dev/null
perf script -i "$f" >"$tmp/perf" 2>/dev/null
cmp=$(python3 tests/cli/script/cmpscript.py "$tmp/perf" "$tmp/pd" 0 |
	head -n 1)
samples=$("$data/bench_reader" frame "$f" 2>/dev/null |
	sed -n 's/.*samples=\([0-9]*\).*/\1/p')

{
	echo "Made by bench/script.sh on $(date -u +%Y-%m-%d) at commit" \
		"$(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
		"$(perf --version 2>/dev/null)."
	echo "Machine: $(nproc) CPUs," \
		"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
		"Linux $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)" \
		"at the end."
	echo "Capture: $name, $(awk -v b="$(filesize "$f")" 'BEGIN { printf "%.1f MB", b / 1e6 }')," \
		"${samples:-?} samples.  Times: median of $runs runs from the" \
		"page cache, output to /dev/null; memory: the largest of the runs."
	echo
	echo "| command | median s | CPU s | peak RSS MB | peak anon MB | time / pdtool script | CPU / pdtool script |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	awk -F'\t' '
		{ l[NR] = $1; w[NR] = $3; r[NR] = $4; c[NR] = $5; a[NR] = $6
		  if ($1 == "pdtool script") { base = $3; cbase = $5 } }
		END { for (i = 1; i <= NR; i++)
			printf "| `%s` | %.3f | %.3f | %.1f | %.1f | %.1f | %.1f |\n",
				l[i], w[i] / 1e6, c[i] / 1e6, r[i] / 1024,
				a[i] / 1024, base ? w[i] / base : 0,
				cbase ? c[i] / cbase : 0 }' "$tmp/rows"
	echo
	awk -F'\t' '
		{ w[$1] = $3; c[$1] = $5 }
		END { r = w["perf script"] / w["pdtool script"]
		      printf "CPU time: perf script takes %.1fx pdtool script'"'"'s (the steadier measure on a shared machine).\n", c["perf script"] / c["pdtool script"]
		      printf "Target: perf script takes %.1fx pdtool script'"'"'s time (target >= 5x: %s); pdtool script takes %.1fx cat'"'"'s time.\n", r, (r >= 5 ? "met" : "MISSED"), w["pdtool script"] / w["cat"] }' "$tmp/rows"
	if [ -n "$f10" ]; then
		awk -F'\t' '
			{ r[$1] = $4; a[$1] = $6 }
			END { ra = a["pdtool script (10x)"] / a["pdtool script"]
			      rr = r["pdtool script (10x)"] / r["pdtool script"]
			      printf "Memory on the 10x capture (%s MB): peak anon %.1f MB (%.2fx the original'"'"'s), peak RSS %.1f MB (%.2fx): flat within 10%%: %s.\n", "'"$(($(filesize "$f10") / 1000000))"'", a["pdtool script (10x)"] / 1024, ra, r["pdtool script (10x)"] / 1024, rr, (ra <= 1.1 && rr <= 1.1 ? "met" : "MISSED") }' "$tmp/rows"
	fi
	echo
	echo "pdtool script against perf script (cmpscript.py): $cmp"
} >"$data/script-results.md"
cat "$data/script-results.md"
