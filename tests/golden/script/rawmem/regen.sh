#!/bin/sh
# regen.sh - perf 6.1's `perf script` of a raw memory event's capture,
# the oracle of tests/cli/script/rawmem.test:
#
#	sh tests/golden/script/rawmem/regen.sh
#
# The capture is tests/gen/pd_arch_synth.py --mem --raw's (a raw event,
# cpu/mem-loads,ldlat=30/P, as perf mem record's on an Intel host: ip,
# addr, weight, data_src) from testdata/dtcall-mem-aarch64.samples, made
# again by the test; this writes NAME.script for each "NAME<TAB>OPTIONS"
# of ./cases:
#
#	"$PERF" --buildid-dir BID script OPTIONS -i CAPTURE
#
# BID a build-id cache of testdata/bin.  Needs perf 6.1 and python3.
set -eu
cd "$(dirname "$0")/../../../.." || exit 2
. tests/golden/perf/lib.sh
OUT=tests/golden/script/rawmem
pd_regen61_init
sh $OUT/capture.sh "$PD_TMP/raw.data"
grep -v '^#' $OUT/cases | while IFS='	' read -r name opts; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086 # the options are words
	perf --buildid-dir "$PD_TMP/bid" script $opts -i "$PD_TMP/raw.data" \
		>"$OUT/$name.script" </dev/null
	echo "$OUT/$name.script"
done
