#!/bin/sh
# regen-scripts.sh - `perf script` text of testdata captures in the field
# layouts users feed stackcollapse-perf.pl, for tests/cli/fold/
# stackcollapse.test, which folds each with that script and with `pdtool
# fold --from-script` and compares (the default layout is regen.sh's
# testdata/NAME.script).
#
#	sh tests/golden/fold/regen-scripts.sh
#
# Writes scripts/NAME.LAYOUT.script (zstd-compressed past 32 KiB), LAYOUT
# one of:
#   pidtid	-F comm,pid,tid,time,event,ip,sym,dso: the layout
#		the pl's usage text asks for with --pid and --tid (less cpu
#		and trace, which these captures lack); no period
#   period	-F comm,tid,time,period,event,ip,sym,symoff,dso: a period but
#		no cpu
#   notime	-F comm,pid,tid,period,event,ip,sym,dso: no time, so no ':'
#		before the period and the pl sees no event and no period
#   flat	-G (no callchain): one line a sample, no blank line after it
#   inline	--inline: inlined frames of DWARF stacks
#   srcline	-F+srcline: a source line after each frame, for the pl's
#		--srcline (not of dwarfcpp, whose binary perf 6.1 then
#		reads no further; stackcollapse.test's own lines hold
#		inlined names)
# Needs perf 6.1 and zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh

OUT=tests/golden/fold/scripts

BIG=32768

pd_regen61_start
fail=0

# one NAME LAYOUT PERF-SCRIPT-ARGS...
one()
{
	name=$1 layout=$2
	shift 2
	f=$(pd_capture "$name") || { fail=1; return; }
	out=$OUT/$name.$layout.script
	rm -f "$out" "$out.zst"
	"$PERF" script --kallsyms "$(pd_kallsyms "$name")" -i "$f" "$@" >"$out" \
		2>/dev/null </dev/null || fail=1
	if [ "$(wc -c <"$out")" -gt $BIG ]; then
		zstd -q -19 --rm -f "$out" -o "$out.zst"
	fi
}

for name in demo multi sysw; do
	one $name pidtid -F comm,pid,tid,time,event,ip,sym,dso
	one $name period -F comm,tid,time,period,event,ip,sym,symoff,dso
	one $name notime -F comm,pid,tid,period,event,ip,sym,dso
done
one fp flat -G
one switch pidtid -F comm,pid,tid,time,event,ip,sym,dso
one dwarfcpp inline --inline
for name in demo multi sysw; do
	one $name srcline -F+srcline
done
exit $fail
