#!/bin/sh
# show-regen.sh - perf 6.1's `perf script --show-*-events` text: the
# oracle of tests/cli/script/show.test.
#
#	sh tests/golden/script/show-regen.sh [CASE...]
#
# Writes show/CAPTURE.CASE.script[.zst] for each line of ./show-cases:
# perf --buildid-dir BID script --kallsyms $(pd_kallsyms NAME)
# OPTIONS -i CAPTURE, BID the build-id cache of testdata/bin, as regen.sh
# runs perf for the sample goldens.  A golden over 32 KiB is stored
# zstd-compressed.  Needs perf 6.1, python3 and zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
pd_regen61_init
TZ=UTC
export TZ
G=tests/golden/script

fail=0
grep -v '^#' $G/show-cases >"$PD_TMP/cases"
while read -r case name args; do
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$case"; then
		continue
	fi
	f=$(pd_capture "$name") || { fail=1; continue; }
	out=$G/show/$name.$case.script
	rm -f "$out" "$out.zst"
	# shellcheck disable=SC2086 # the options are words
	"$PERF" --buildid-dir "$PD_TMP/bid" script \
		--kallsyms "$(pd_kallsyms "$name")" $args -i "$f" \
		>"$out" 2>"$PD_TMP/err" </dev/null || {
		echo "show-regen.sh: perf failed on $name.$case:" >&2
		cat "$PD_TMP/err" >&2
		fail=1
		continue
	}
	printf '%-50s %8s lines\n' "$out" "$(wc -l <"$out")"
	if [ "$(wc -c <"$out")" -gt 32768 ]; then
		zstd -q -19 --rm -f "$out" -o "$out.zst"
	fi
done <"$PD_TMP/cases"
exit $fail
