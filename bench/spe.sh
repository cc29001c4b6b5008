#!/bin/sh
# spe.sh - Arm SPE decoding and pdtool mem (issue 18), side by side with
# perf 6.1, on a capture of about 1 GB and one ten times smaller (memory
# must stay flat between them):
#
#   PDTOOL=build/default/pdtool sh bench/spe.sh
#
# bench/spe_gen.c (built into $data) writes the captures as perf 6.1
# writes an arm_spe_0 capture on a Neoverse N1 (no SPE hardware here):
# BENCH_SPE_RECORDS SPE records per CPU on two CPUs (default 10500000,
# 1.06 GB; the small capture a tenth of them), kept as
# $data/spe-big.perf.data and $data/spe-small.perf.data.  Before any
# timing, bench/spe_check.py holds a small capture of the same generator
# against perf 6.1's `perf report -D` and `perf mem report`.
#
# Then, from the page cache, the median wall time of BENCH_RUNS (default
# 3) runs, the median CPU time, the largest peak RSS and peak anonymous
# memory (bench/memwatch.c) on each capture of
#   pdtool mem                          perf mem report --stdio
#   pdtool report --itrace=M            perf report --itrace=M --stdio
#                                       perf report --mem-mode --itrace=M
#   pdtool script --itrace=bfmtaM       perf script --itrace=bfmtaM
#   pdtool fold --itrace=M              (perf has no such command)
# with loop-aarch64 under a --symfs for both tools.  perf mem report
# tables every event perf synthesizes, with a hist entry per distinct
# data address: about 32 MB of anonymous memory per MB of trace, so on
# the large capture it would need ~32 GB.  It runs on the small capture
# only unless BENCH_SPE_PERF_MEM_BIG=1.  perf's runs are held under a
# virtual memory limit of BENCH_SPE_PERF_VMEM_KB (default 12 GB: the VM
# is shared) and reported failed past it; BENCH_SPE_PERF=0 leaves perf
# out (its rows take half an hour here), timing pdtool alone.  The
# tables go to stdout and to $data/spe-results.md.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. bench/lib.sh

records=${BENCH_SPE_RECORDS:-10500000}
vmem=${BENCH_SPE_PERF_VMEM_KB:-12000000}
gen=$data/spe_gen
elf=testdata/bin/loop-aarch64
if [ ! -x "$gen" ] || [ bench/spe_gen.c -nt "$gen" ]; then
	${CC:-cc} -std=c11 -O2 -o "$gen" bench/spe_gen.c ||
		die "cannot build bench/spe_gen.c"
fi
python3 bench/spe_check.py "$gen" "$elf" ||
	die "bench/spe_gen.c's capture disagrees with perf 6.1's decoding"

# capture NAME RECORDS: $data/NAME.perf.data of RECORDS records per CPU
capture() {
	c_f=$data/$1.perf.data
	if [ ! -f "$c_f" ] || [ "$(cat "$c_f.records" 2>/dev/null)" != "$2" ] ||
	   [ "$gen" -nt "$c_f" ]; then
		echo "bench: writing $c_f ($2 records per CPU)" >&2
		"$gen" --records "$2" --seed 11 "$elf" /opt/pdtool/loop-aarch64 \
			"$c_f" || die "spe_gen failed"
		echo "$2" >"$c_f.records"
	fi
}
capture spe-small $((records / 10))
capture spe-big "$records"
symfs=$tmp/symfs
mkdir -p "$symfs/opt/pdtool" && cp "$elf" "$symfs/opt/pdtool/" || exit 2

# perf_measure LABEL FILE OUT CMD...: measure under the memory limit; a
# row with a failed run says so
perf_measure() {
	[ "${BENCH_SPE_PERF:-1}" = 0 ] && return 0
	(ulimit -v "$vmem" && measure "$@") 2>"$tmp/perf.err"
	cat "$tmp/perf.err" >&2
	if grep -q "failed (exit" "$tmp/perf.err"; then
		awk -F'\t' -v OFS='\t' 'NR == n { $1 = $1 " (failed)" } 1' \
			n="$(wc -l <"$tmp/rows")" "$tmp/rows" >"$tmp/rows.new" &&
			mv "$tmp/rows.new" "$tmp/rows"
	fi
}

: >"$tmp/all"
for name in spe-small spe-big; do
	f=$data/$name.perf.data
	: >"$tmp/rows"
	cat "$f" >/dev/null
	measure "pdtool mem" "$f" /dev/null \
		"$PDTOOL" mem --symfs "$symfs" "$f"
	if [ "$name" = spe-small ] || [ "${BENCH_SPE_PERF_MEM_BIG:-}" = 1 ]; then
		perf_measure "perf mem report" "$f" /dev/null \
			perf mem report --stdio --symfs "$symfs" -i "$f"
	fi
	measure "pdtool report --itrace=M" "$f" /dev/null \
		"$PDTOOL" report --itrace=M --symfs "$symfs" "$f"
	perf_measure "perf report --itrace=M" "$f" /dev/null \
		perf report --stdio --itrace=M --symfs "$symfs" -i "$f"
	perf_measure "perf report --mem-mode --itrace=M" "$f" /dev/null \
		perf report --mem-mode --stdio --itrace=M --symfs "$symfs" -i "$f"
	# a two-pass run (the events placed by their first samples)
	measure "pdtool fold --itrace=M" "$f" /dev/null \
		"$PDTOOL" fold --itrace=M --symfs "$symfs" "$f"
	measure "pdtool script --itrace=bfmtaM" "$f" /dev/null \
		"$PDTOOL" script --itrace=bfmtaM --symfs "$symfs" "$f"
	perf_measure "perf script --itrace=bfmtaM" "$f" /dev/null \
		perf script --itrace=bfmtaM --symfs "$symfs" -i "$f"
	{
		echo "### $name.perf.data: $(awk -v b="$(filesize "$f")" \
			'BEGIN { printf "%.1f MB", b / 1e6 }'), $(cat "$f.records") SPE records per CPU on 2 CPUs"
		echo
		rows_table
		echo
	} >>"$tmp/all"
done
{
	echo "Made by bench/spe.sh on $(date -u +%Y-%m-%d) at commit" \
		"$(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
		"$(perf --version 2>/dev/null)."
	echo "Machine: $(nproc) CPUs, Linux $(uname -r), load average" \
		"$(cut -d' ' -f1-3 /proc/loadavg) at the end.  Times: median of" \
		"$runs runs from the page cache, output to /dev/null; memory: the" \
		"largest of the runs."
	echo
	cat "$tmp/all"
} >"$data/spe-results.md"
cat "$data/spe-results.md"
