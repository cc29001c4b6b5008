#!/bin/sh
# spe.sh - Arm SPE decoding and pdtool mem (issue 18), side by side with
# perf 6.1, on a capture of BENCH_SPE_RECORDS SPE records per CPU (two
# CPUs; default 200000, ~20 MB) written by tests/gen/pd_spe_synth.py
# (no SPE hardware here) and kept as $data/spe.perf.data:
#
#   PDTOOL=build/default/pdtool sh bench/spe.sh
#
# Then, from the page cache, the median wall time of BENCH_RUNS (default
# 3) runs, the largest peak RSS and peak anonymous memory
# (bench/memwatch.c) of
#   pdtool script --itrace=bfmtaM      perf script --itrace=bfmtaM
#   pdtool fold --itrace=M             (the decoding alone, nearly)
#   pdtool mem                         perf mem report --stdio
#                                      perf report --mem-mode --itrace=M
# (perf mem report reads every event perf synthesizes; pdtool mem and
# the --itrace=M report the memory event alone), as a Markdown table,
# also written to $data/spe-results.md.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. bench/lib.sh

records=${BENCH_SPE_RECORDS:-200000}
f=$data/spe.perf.data
mkdir -p "$data"
if [ ! -f "$f" ] || [ "$(cat "$f.records" 2>/dev/null)" != "$records" ]; then
	echo "bench: writing $f ($records records per CPU)" >&2
	python3 tests/gen/pd_spe_synth.py --host n1 --records "$records" \
		--seed 11 testdata/bin/loop-aarch64 /opt/pdtool/loop-aarch64 \
		"$f" "$tmp/truth" || die "the generator failed"
	echo "$records" >"$f.records"
fi
: >"$tmp/rows"
cat "$f" >/dev/null
measure "pdtool script --itrace=bfmtaM" "$f" /dev/null \
	"$PDTOOL" script --itrace=bfmtaM "$f"
measure "perf script --itrace=bfmtaM" "$f" /dev/null \
	perf script --itrace=bfmtaM -i "$f"
measure "pdtool fold --itrace=M" "$f" /dev/null "$PDTOOL" fold --itrace=M "$f"
measure "pdtool mem" "$f" /dev/null "$PDTOOL" mem "$f"
measure "perf mem report" "$f" /dev/null perf mem report --stdio -i "$f"
measure "perf report --mem-mode --itrace=M" "$f" /dev/null \
	perf report --mem-mode --stdio --itrace=M -i "$f"
{
	echo "Made by bench/spe.sh on $(date -u +%Y-%m-%d) at commit" \
		"$(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
		"$(perf --version 2>/dev/null)."
	echo "Machine: $(nproc) CPUs, Linux $(uname -r), load average" \
		"$(cut -d' ' -f1-3 /proc/loadavg) at the end."
	echo "Capture: spe.perf.data, $(awk -v b="$(filesize "$f")" \
		'BEGIN { printf "%.1f MB", b / 1e6 }'), $records SPE records" \
		"per CPU on 2 CPUs.  Times: median of $runs runs from the page" \
		"cache, output to /dev/null; memory: the largest of the runs."
	echo
	echo "| command | median s | CPU s | peak RSS MB | peak anon MB |"
	echo "|---|---:|---:|---:|---:|"
	awk -F'\t' '{ printf "| `%s` | %.3f | %.3f | %.1f | %.1f |\n",
		$1, $3 / 1e6, $5 / 1e6, $4 / 1024, $6 / 1024 }' "$tmp/rows"
} >"$data/spe-results.md"
cat "$data/spe-results.md"
