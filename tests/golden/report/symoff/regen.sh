#!/bin/sh
# regen.sh - perf 7.2's `perf report --stdio --sort ...symoff...` on
# testdata captures, the oracle of tests/cli/report/symoff.test (perf
# 6.1 has no symoff key: perf >= 6.10 does):
#
#	PERF7=/path/to/perf-7.x sh tests/golden/report/symoff/regen.sh
#
# writes NAME.VARIANT.txt for each capture NAME of CAPTURES and each
# VARIANT of ./variants ("VARIANT<TAB>OPTIONS"):
#
#	perf7 --buildid-dir BID report --stdio -g none --no-inline OPTIONS
#	  --kallsyms $(pd_kallsyms NAME) -i CAPTURE
#
# BID a build-id cache of testdata/bin and this host's vdso (as
# tests/golden/perf/perf7-latency-regen.sh; --no-inline: perf 7.2 here
# dies of SIGPIPE running addr2line for inlined frames); perf's closing
# tip cut.  Needs perf >= 6.10 (PERF7, default /tmp/dt3/perf7), python3
# and objdump; make check does not.
set -eu
cd "$(dirname "$0")/../../../.." || exit 2
. tests/golden/perf/lib.sh
OUT=tests/golden/report/symoff
CAPTURES="demo multi threads group sysw loop-aarch64"
pd_regen7_init
for name in $CAPTURES; do
	f=$(pd_capture "$name")
	grep -v '^#' $OUT/variants | while IFS='	' read -r v opts; do
		[ -n "$v" ] || continue
		# shellcheck disable=SC2086 # the options are words
		"$PERF7" --buildid-dir "$PD_TMP/bid" report --stdio \
			--objdump=/usr/bin/objdump -g none --no-inline $opts \
			--kallsyms "$(pd_kallsyms "$name")" -i "$f" \
			>"$PD_TMP/out" 2>"$PD_TMP/err" || {
			echo "regen.sh: $name $v:" >&2
			cat "$PD_TMP/err" >&2
			exit 1
		}
		python3 tests/golden/perf/cuttip.py "$PD_TMP/out" \
			"$OUT/$name.$v.txt"
	done
	echo "$OUT/$name.*.txt"
done
