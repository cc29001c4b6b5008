#!/bin/sh
# regen-switch.sh - perf's threads of the Arm SPE captures whose pids
# come from a task's own context switches (PERF_RECORD_SWITCH, no
# CONTEXT packets: testdata/spe/v1-taskswitch*, testdata/spe.md), as
# goldens of what perf gets wrong there: NAME.M.switch61 (perf 6.1) and
# NAME.M.switch72 (perf 7.2), `perf script --itrace=M -F pid,tid,cpu,
# time,ip --ns` (no cpu per thread: its samples have none) with the blanks
# squeezed.  tests/cli/script/spe-switch.test holds them and pdtool to
# the truth (NAME.threads).
#
#   PERF7=/path/to/perf-7 sh tests/golden/spe/regen-switch.sh
#
# Needs perf 6.1 as perf and a perf 7 (tests/golden/spe/regen-perf7.sh);
# make check does not.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top"
: "${PERF7:?set PERF7 to a perf 7 binary}"
g=tests/golden/spe
for name in v1-taskswitch v1-taskswitch-thread; do
	fields=pid,tid,cpu,time,ip
	[ "$name" = v1-taskswitch-thread ] && fields=pid,tid,time,ip
	d=testdata/spe/$name.perf.data
	perf script -i "$d" --ns --itrace=M -F $fields 2>/dev/null |
		tr -s ' ' >$g/$name.M.switch61
	"$PERF7" script -i "$d" --ns --itrace=M -F $fields 2>/dev/null |
		tr -s ' ' >$g/$name.M.switch72
done
