#!/bin/sh
# regen-flags.sh - the flags and branch stacks perf sets on the branch
# and instructions samples it synthesizes from the Arm SPE captures of
# testdata/spe/, as goldens for `pdtool script -F flags,brstack`
# (tests/cli/script/spe-flags.test):
#   NAME.perf7-flags   perf 7's `perf script --itrace=bi1il -F event,ip,
#                      addr,flags,brstack`: the branch's kind (jmp, jcc,
#                      call, return: an indirect branch without a link
#                      counts as one) and its events (/miss,not_taken/),
#                      from the record's operation type and events; with
#                      l, a branch stack of the branch (M or P, N when
#                      not taken, its latency as cycles, its type)
#                      then its previous branch target (PBT) when the
#                      record has one (v2-pbt); v2-pbt.l1.perf7-brstack
#                      the same with l1 (one entry)
#   NAME.perf61-flags  perf 6.1's, which sets neither (a blank column;
#                      it takes l and makes no stack)
# perf 7's captures are regen-perf7.sh's (n2-thread and zoo left out,
# for the reasons it gives); perf 6.1's, regen-synth.sh's.
#
#   PERF7=/path/to/perf-7 sh tests/golden/spe/regen-flags.sh
#
# PERF7 as regen-perf7.sh says; make check needs neither perf.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top"
: "${PERF7:?set PERF7 to a perf 7 binary}"
command -v perf >/dev/null || { echo "regen-flags.sh: no perf" >&2; exit 1; }
g=tests/golden/spe
fields=event,ip,addr,flags,brstack
for name in n1 v1-noctx n1-nots n1-meta2 v2 ampere1a-meta2 hetero-meta2 \
	hip12-meta2 v2-pbt; do
	"$PERF7" script -i testdata/spe/$name.perf.data --itrace=bi1il \
		-F hw:$fields 2>/dev/null >$g/$name.perf7-flags
done
# with a previous branch target (PBT) in the records, a stack of one
# entry: a branch sample's branch, an instructions sample's PBT
"$PERF7" script -i testdata/spe/v2-pbt.perf.data --itrace=bi1il1 \
	-F hw:$fields 2>/dev/null >$g/v2-pbt.l1.perf7-brstack
for name in n1 v1-noctx n1-nots; do
	perf script -i testdata/spe/$name.perf.data --itrace=bi1il \
		-F hw:$fields 2>/dev/null >$g/$name.perf61-flags
done
