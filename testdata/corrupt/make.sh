#!/bin/sh
# make.sh - (re)build the broken captures of testdata/corrupt/ and their
# NAME.expect files from base.perf.data (STYLE T4).
#
#   testdata/corrupt/make.sh            rebuild from the committed base
#   testdata/corrupt/make.sh --record   record a new base with perf first
#                                       (see base.md), then rebuild
#
# The cases and what pdtool must print for each are in make_corrupt.py;
# tests/cli/corrupt/corrupt.test checks them.  Commit what this writes.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --record ]; then
	command -v perf >/dev/null 2>&1 || {
		echo "make.sh: --record needs perf" >&2
		exit 2
	}
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT INT TERM
	# base.md: one user-space cpu-clock event with call graphs, a shell
	# loop as the workload, no build-id cache: about 10 KB
	perf record -N -e cpu-clock:u -c 500000 -g -o "$tmp/base.perf.data" \
		-- sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done'
	cp "$tmp/base.perf.data" "$here/base.perf.data"
fi
exec python3 "$here/make_corrupt.py" "$here/base.perf.data" "$here"
