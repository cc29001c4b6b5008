#!/bin/sh
# perf7-latency-regen.sh - perf 7.2's own latency reports of the testdata
# captures with context-switch records, the oracle for pdtool report
# --latency, -s parallelism and --parallelism (perf >= 6.15's; Debian's
# perf 6.1 has none of them):
#
#	PERF7=/path/to/perf-7.x sh tests/golden/perf/perf7-latency-regen.sh
#
# writes tests/golden/perf/perf7/NAME.VIEW, perf report --stdio's text
# without its closing tip (cuttip.py), for each capture testdata/[DIR/]NAME
# of CAPTURES and each VIEW of the list below (its perf options after the
# name).  sched/phases7 is perf 7.2's own --latency recording.
# The captures' binaries are found by build-id in a cache made here
# (buildid_dir.py over testdata/bin, and this host's vdso, which the
# captures' [vdso] build-id names when they were recorded on this
# kernel: the vdso goldens need it), the kernel's symbols from the
# capture's kallsyms (pd_kallsyms); -g none --no-inline on the
# captures with callchains (perf 7.2 here dies of SIGPIPE running
# addr2line for their inlined frames, and the call graphs are not what
# is compared).  Compared by
# tests/cli/report/perf7-latency.test.  Run from anywhere; needs perf >=
# 6.15 (PERF7, default /tmp/dt3/perf7), python3 and objdump; make check
# does not.
set -eu
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
PERF7=${PERF7:-/tmp/dt3/perf7}
OUT=tests/golden/perf/perf7
CAPTURES="phases switch phasescg offcpu sched/phases7"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perf7-lat.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

"$PERF7" version | grep -q '^perf version' || {
	echo "perf7-latency-regen.sh: no perf at $PERF7" >&2
	exit 2
}
python3 tests/golden/fold/buildid_dir.py "$tmp/bid" testdata/bin/* \
	testdata/vdso/*/* \
	>/dev/null
# this host's vdso, into the cache as perf keeps one
python3 tests/golden/perf/hostvdso.py "$tmp/bid"

mkdir -p "$OUT"
for name in $CAPTURES; do
	g=
	case $name in phasescg | offcpu) g="-g none --no-inline" ;; esac
	while read -r view opts; do
		[ -n "$view" ] || continue
		# the parallelism key with children: perf 7.2's Children
		# and children Latency columns pass 100% (715.79% on
		# offcpu: a sample counted once per frame of its
		# callchain, not once per entry); compared without them
		nc=
		case $g.$view in -g*.latency-par) nc=--no-children ;; esac
		# shellcheck disable=SC2086 # opts, g and nc are word lists
		"$PERF7" --buildid-dir "$tmp/bid" report --stdio \
			--objdump=/usr/bin/objdump $g $nc $opts \
			--kallsyms "$(pd_kallsyms "$name")" \
			-i "testdata/$name.perf.data" >"$tmp/out" 2>"$tmp/err" || {
			echo "perf7-latency-regen.sh: $name $view:" >&2
			cat "$tmp/err" >&2
			exit 1
		}
		python3 tests/golden/perf/cuttip.py "$tmp/out" \
			"$OUT/${name##*/}.$view"
	done <<'EOF'
latency-sym --latency -s sym
latency-comm-dso --latency -s comm,dso
latency-par --latency -s parallelism
latency-sym-par1 --latency --parallelism 1 -s sym
EOF
done
"$PERF7" version >"$OUT/VERSION"
