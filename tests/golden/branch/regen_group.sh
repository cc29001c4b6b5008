#!/bin/sh
# regen_group.sh - perf's group view of branch mode on the generated
# capture of an event group, testdata/branches/group-intel-cntr.perf.data
# (its events {cpu-clock,task-clock}:S recorded as one group): the oracle
# of tests/cli/report/branch-group.test.
#
#	PERF7=/path/perf7 sh tests/golden/branch/regen_group.sh
#
# Writes group/VARIANT.GROUP.txt for the --sort variants of
# report-variants that perf 6.1 reads here (its ipc_lbr column, which a
# "symbol" key adds, crashes on entries with cycles; perf 7.2 runs
# minutes on those with a group and is not asked) and GROUP each of
# "default" (no option: perf shows a recorded group side by side),
# "group" (--group) and "nogroup" (--no-group): `perf report
# --branch-stack --stdio`, its closing tip cut.  And, with PERF7 (a perf
# >= 7, as regen_report.sh runs it; perf 6.1 crashes on cycles there),
# group/total-cycles.GROUP.perf7.txt: `perf report --total-cycles
# --stdio` for default and nogroup, given objdump and addr2line.  The
# binary is put at its recorded path under a --symfs tree.  Needs perf
# 6.1.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
. tests/golden/branch/lib.sh
br_regen_init group
PERF7=${PERF7:-}
G=$GOLD
rm -f $G/*.txt
br_plain testdata/branches/group-intel-cntr.perf.data
fail=0
for grp in default group nogroup; do
	case $grp in
	default) gopt= ;;
	group) gopt=--group ;;
	nogroup) gopt=--no-group ;;
	esac
	for v in default flags src; do
		sort=$(grep "^$v	" $GOLD/../report-variants | cut -f2)
		set -- report --branch-stack --stdio --symfs "$PD_TMP/sysroot"
		[ "$sort" = - ] || set -- "$@" --sort "$sort"
		# shellcheck disable=SC2086 # gopt: one option or none
		"$PERF" "$@" $gopt -i "$cap" </dev/null >"$PD_TMP/out" \
			2>/dev/null || { fail=1; continue; }
		br_cut_tip <"$PD_TMP/out" >"$G/$v.$grp.txt"
	done
	[ -n "$PERF7" ] && [ $grp != group ] || continue
	# shellcheck disable=SC2086
	"$PERF7" report --total-cycles --stdio --symfs "$PD_TMP/sysroot" \
		$gopt --objdump="$(command -v objdump)" \
		--addr2line="$(command -v addr2line)" -i "$cap" </dev/null \
		>"$PD_TMP/out" 2>/dev/null || { fail=1; continue; }
	br_cut_tip <"$PD_TMP/out" >"$G/total-cycles.$grp.perf7.txt"
done
ls $G
exit $fail
