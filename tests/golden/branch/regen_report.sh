#!/bin/sh
# regen_report.sh - perf 6.1's `perf report --branch-stack --stdio` of the
# generated branch-stack captures of testdata/branches/ (testdata/
# branches.md), the oracle of tests/cli/report/branch-stack.test.
#
#	sh tests/golden/branch/regen_report.sh
#
# For each capture NAME and each line "VARIANT<TAB>SORT" of
# tests/golden/branch/report-variants, writes report/NAME.VARIANT.txt:
# perf's output with its closing tip cut.  perf 6.1 crashes (SIGSEGV)
# where its ipc_lbr column (a "symbol" key adds it) meets entries with
# cycles: the list goes to report/CRASHED, and with PERF7 set to a perf
# >= 7 (the issue's oracle there), that perf's output is the golden
# instead, report/NAME.VARIANT.perf7.txt.  perf 7.2.13 was Debian sid's
# linux-perf package unpacked into a directory and run through its own
# loader:
#
#	PERF7=/path/perf7 sh tests/golden/branch/regen_report.sh
#	(perf7: exec ROOT/lib64/ld-linux-x86-64.so.2 --library-path
#	 ROOT/usr/lib/x86_64-linux-gnu:ROOT/lib/x86_64-linux-gnu
#	 ROOT/usr/bin/perf "$@")
#
# perf 7 is given the objdump of the capture's architecture (its IPC
# comes from objdump's disassembly; binutils-aarch64-linux-gnu for the
# arm64 captures) and addr2line.  The binaries are put at their recorded
# paths under a --symfs tree, as regen_gen.sh does.  Needs perf 6.1 and
# zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh
. tests/golden/branch/lib.sh
br_regen_init
mkdir -p $GOLD/report
rm -f $GOLD/report/*.txt $GOLD/report/CRASHED
PERF7=${PERF7:-}
fail=0
for z in testdata/branches/*.perf.data.zst; do
	name=${z##*/}
	name=${name%.perf.data.zst}
	cap=$PD_TMP/$name.perf.data
	zstd -q -d -f -o "$cap" "$z" || exit 2
	grep -v '^#' $GOLD/report-variants | while IFS='	' read -r v sort; do
		[ -n "$v" ] || continue
		set -- --branch-stack --stdio --symfs "$PD_TMP/sysroot"
		[ "$sort" = - ] || set -- "$@" --sort "$sort"
		"$PERF" report "$@" -i "$cap" </dev/null >"$PD_TMP/out" \
			2>/dev/null
		rc=$?
		out=$GOLD/report/$name.$v.txt
		if [ $rc -ge 128 ]; then
			echo "$name.$v: perf 6.1 exited with signal" \
				"$((rc - 128))" >>$GOLD/report/CRASHED
			[ -n "$PERF7" ] || continue
			case $name in
			loop-*) od=aarch64-linux-gnu-objdump ;;
			*) od=objdump ;;
			esac
			"$PERF7" report "$@" --objdump="$(command -v $od)" \
				--addr2line="$(command -v addr2line)" \
				-i "$cap" </dev/null >"$PD_TMP/out" 2>/dev/null ||
				{ fail=1; continue; }
			out=$GOLD/report/$name.$v.perf7.txt
		fi
		br_cut_tip <"$PD_TMP/out" >"$out" || fail=1
	done
done
ls $GOLD/report
exit $fail
