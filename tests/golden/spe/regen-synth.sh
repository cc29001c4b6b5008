#!/bin/sh
# regen-synth.sh - perf 6.1's synthesized samples of the Arm SPE
# captures of testdata/spe/ (written by regen.sh), as goldens for
# pdtool's: per capture and --itrace set,
#   NAME.ITRACE.script  perf script --itrace=ITRACE -F hw:FIELDS
#                       (the synthesized events are PERF_TYPE_HARDWARE
#                       ones, so their fields are given as hw's)
#   NAME.report         perf report --stdio --itrace=bfmtaM --sort sym:
#                       per event, the samples per PC
#   NAME.sym.report     the same by symbol and DSO, with loop-aarch64
#                       under a --symfs (off-host, in its architecture)
# ITRACE "default" is perf's default set (no --itrace).  Left out:
# n1-meta2, whose metadata perf 6.1 misreads (testdata/spe.md), so it
# synthesizes nothing; n2-thread, a --per-thread capture, on which perf
# 6.1 stops at the first FINISHED_ROUND ("failed to process type: 68")
# with nothing synthesized.
#
#   sh tests/golden/spe/regen-synth.sh   (from the repository root;
#                                         needs perf, make check does not)
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top"
command -v perf >/dev/null || { echo "regen-synth.sh: no perf" >&2; exit 1; }
fields=comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,addr,phys_addr,weight,data_src
# the recorded path of loop-aarch64, under a --symfs for the symbols
symfs=$(mktemp -d) && trap 'rm -rf "$symfs"' EXIT
mkdir -p "$symfs/opt/pdtool"
cp testdata/bin/loop-aarch64 "$symfs/opt/pdtool/"
g=tests/golden/spe
# Not n1 as a pipe (perf inject -o -), which would check the data
# sources perf takes from the events where no CPUID says Neoverse: perf
# 6.1 stops part way through it ("unexpected end of event stream", at a
# place that depends on -F), so its output is no oracle.
for name in n1 v1-noctx n1-nots; do
	d=testdata/spe/$name.perf.data
	for it in default bfmtaM f m t b a M i i1i i3i; do
		opt=--itrace=$it
		[ "$it" = default ] && opt=
		# shellcheck disable=SC2086
		perf script -i "$d" $opt -F hw:$fields 2>/dev/null \
			>$g/$name.$it.script
	done
	# the tip perf closes with (a random one) is no part of the report
	perf report -i "$d" --stdio --itrace=bfmtaM --sort sym 2>/dev/null |
		sed -e '/^# (Tip: /,$d' | sed -e '$d' >$g/$name.report
	perf report -i "$d" --stdio --itrace=bfmtaM --sort sym,dso \
		--symfs "$symfs" 2>/dev/null |
		sed -e '/^# (Tip: /,$d' | sed -e '$d' >$g/$name.sym.report
done
perf version >$g/PERF_VERSION
