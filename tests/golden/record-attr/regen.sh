#!/bin/sh
# regen.sh - perf 6.1's perf_event_attr for each mode of `modes`, as
# `perf record -vv` prints them (every attr it tried, the kernel's
# refusals included, before the ring buffers are mapped: the side-band
# events perf opens after are not in the capture), into NAME.attr.
# tests/cli/record/attr.test compares pdtool record -vv with them.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' modes | while IFS='|' read -r name opts _; do
	# shellcheck disable=SC2086
	perf record -vv $opts -o "$tmp/x.data" -- true 2>&1 >/dev/null |
		sh ./attrs.sh >"$name.attr"
done
# -j's no_flags, no_cycles and hw_index are perf 6.3's (perf 6.1 refuses
# them): their branch_sample_type from a newer perf, when PERF63 names
# one (tests/golden/datatype/regen.sh makes a perf 7.2).
if [ -n "${PERF63:-}" ]; then
	"$PERF63" record -vv -e cpu-clock -j any,no_flags,no_cycles,hw_index \
		-o "$tmp/x.data" -- true 2>&1 >/dev/null |
		grep -m1 branch_sample_type >branch-newer.line
fi
