#!/bin/sh
# regen-perf7.sh - perf 7's synthesized samples of the Arm SPE captures
# of testdata/spe/, as goldens for `pdtool ... --spe-events 7`: per
# capture and --itrace set, NAME.ITRACE.perf7, `perf script --itrace=
# ITRACE -F hw:pid,tid,cpu,time,event,ip,addr,data_src,weight,period`
# with the data source's words (|OP ...|BLK ...) cut, its hex kept:
# perf 7 spells the levels otherwise than perf 6.1 ("RAM hit" for
# "Local RAM or RAM hit") and pdtool spells them as 6.1.  ITRACE
# "default" is perf's default set (no --itrace).  Left out: n2-thread,
# on which perf 7.2 stops ("ordered event processing failed" on its
# first AUX record), and zoo, whose buffer of every packet kind perf 7
# decodes into more records than its truth holds (bad bytes taken as
# records).
#
#   PERF7=/path/to/perf-7 sh tests/golden/spe/regen-perf7.sh
#
# perf 7 came from a Debian sid chroot (debootstrap; linux-perf 7.2.13,
# run through the chroot's loader as tests/golden/datatype/regen.sh
# does); make check does not need it.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top"
: "${PERF7:?set PERF7 to a perf 7 binary}"
fields=pid,tid,cpu,time,event,ip,addr,data_src,weight,period
g=tests/golden/spe
for name in n1 v1-noctx n1-nots n1-meta2 v2 ampere1a-meta2 hetero-meta2 \
	hip12-meta2 v2-pbt; do
	d=testdata/spe/$name.perf.data
	for it in default bfmtaM b i1i i3i M; do
		opt=--itrace=$it
		[ "$it" = default ] && opt=
		# shellcheck disable=SC2086
		"$PERF7" script -i "$d" $opt -F hw:$fields 2>/dev/null |
			sed -e 's/ |OP [^|]*|LVL [^|]*|SNP [^|]*|TLB [^|]*|LCK [^|]*|BLK *[^ ]* / /' |
			tr -s ' ' >$g/$name.$it.perf7
	done
done
"$PERF7" version >$g/PERF7_VERSION
