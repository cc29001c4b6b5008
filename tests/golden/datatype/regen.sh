#!/bin/sh
# regen.sh - perf 7.2's data-type views of testdata captures, the oracle
# of tests/cli/annotate/datatype.test:
#
#	PERF=/path/to/perf-7 sh tests/golden/datatype/regen.sh [NAME...]
#
# For each capture NAME of tests/golden/datatype/captures (or given),
# writes tests/golden/datatype/NAME.annotate.txt:
#
#	perf --buildid-dir BID annotate --objdump=OBJDUMP --stdio
#	  --data-type -i FILE
#
# NAME.report.txt, the same with `report --stdio -g none -s
# type,typeoff,typecln` (the tip perf closes with cut), and NAME.cwt.txt,
# the "# data-type:" notes of `annotate --stdio --code-with-type` as
# "ADDR<TAB>NOTE" lines (tests/golden/datatype/cwtnotes.py; the whole
# listing is 0.8 MB on multi).  For pdtool types
# (tests/cli/types/perf.test): NAME.types.txt, `report --stdio -g none
# -n -s type` (each type's share of the event's period and its samples;
# the tip cut), and for each line "NAME<TAB>TYPE" of
# tests/golden/datatype/types-named NAME.type-N.txt (N counting NAME's
# lines from 1), `annotate --stdio --data-type=TYPE`.  BID is a build-id
# cache in perf buildid-cache's layout made from testdata/bin, so perf
# finds the test programs (and their DWARF) wherever the repository is;
# host libraries at their recorded paths.
#
# The foreign captures' goldens, held by tests/cli/types/crossperf.sh
# (not in captures: perf 7.2 types none of their samples):
#
#	PERF=... sh tests/golden/datatype/regen.sh dtgot-aarch64 \
#	  dtgot-ppc64le dtgot-ppc64 dtgot-s390x dtgot-p10-ppc64le \
#	  dtgot-i386 dtgot-arm dtypes-p10-ppc64le dtypes-aarch64 \
#	  dtypes-ppc64 dtypes-s390x
#
# Debian 12 has perf 6.1, without data types.  A perf 7.x runs from a
# Debian sid chroot (debootstrap --variant=minbase sid DIR, then in it
# apt-get install linux-perf binutils; an expired Release needs
# -o Acquire::Check-Valid-Until=false) on the host through the chroot's
# loader, so that it reads the host's paths:
#
#	exec DIR/lib64/ld-linux-x86-64.so.2 --library-path \
#	    DIR/usr/lib/x86_64-linux-gnu:DIR/lib/x86_64-linux-gnu \
#	    DIR/usr/bin/perf "$@"
#
# --objdump names the host's: perf runs the objdump beside its own binary
# first, which the host's loader cannot start; for a foreign capture
# its architecture's (binutils-ARCH-linux-gnu: the host's objdump
# disassembles x86 only), for ppc64 and ppc64le
# powerpc64le-linux-gnu-objdump, whose raw bytes perf decodes
# (perf on this x86_64 host takes them in its own byte order, so it
# finds no access in a big-endian ppc64 capture; it has no s390x data
# types).  Needs python3.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh

PERF=${PERF:-perf}
OUT=tests/golden/datatype

v=$("$PERF" version 2>/dev/null) || { echo "regen.sh: no perf" >&2; exit 2; }
case $v in
"perf version 7.2."*) ;;
*) echo "regen.sh: $v is not perf 7.2, the oracle the goldens name" >&2
   exit 2 ;;
esac
pd_tmp_init
python3 tests/golden/fold/buildid_dir.py --perf-layout "$PD_TMP/bid" \
	testdata/bin/* testdata/vdso/*/* >/dev/null 2>&1 || exit 2
fail=0
for name in ${*:-$(grep -v "^#" "$OUT/captures" | cut -f1)}; do
	f=$(pd_capture "$name") || { fail=1; continue; }
	# perf reads the raw bytes objdump prints: the capture's
	# architecture's objdump (binutils-powerpc64le-linux-gnu)
	od=/usr/bin/objdump
	case $name in
	*-ppc64le|*-ppc64) od=/usr/bin/powerpc64le-linux-gnu-objdump ;;
	*-aarch64) od=/usr/bin/aarch64-linux-gnu-objdump ;;
	*-s390x) od=/usr/bin/s390x-linux-gnu-objdump ;;
	*-arm) od=/usr/bin/arm-linux-gnueabihf-objdump ;;
	esac
	"$PERF" --buildid-dir "$PD_TMP/bid" annotate \
		--objdump="$od" --stdio --data-type -i "$f" \
		>"$OUT/$name.annotate.txt" 2>/dev/null || fail=1
	"$PERF" --buildid-dir "$PD_TMP/bid" report \
		--objdump="$od" --stdio -g none -s type,typeoff,typecln \
		--kallsyms "$(pd_kallsyms "$name")" \
		-i "$f" >"$PD_TMP/out" 2>/dev/null || fail=1
	# the tip: "#", "# (Tip: ...)", "#" at the end
	python3 tests/golden/perf/cuttip.py "$PD_TMP/out" "$OUT/$name.report.txt"
	"$PERF" --buildid-dir "$PD_TMP/bid" annotate \
		--objdump="$od" --stdio --code-with-type -i "$f" \
		2>/dev/null | python3 "$OUT/cwtnotes.py" >"$OUT/$name.cwt.txt" ||
		fail=1
	"$PERF" --buildid-dir "$PD_TMP/bid" report \
		--objdump="$od" --stdio -g none -n -s type \
		--kallsyms "$(pd_kallsyms "$name")" \
		-i "$f" >"$PD_TMP/out" 2>/dev/null || fail=1
	python3 tests/golden/perf/cuttip.py "$PD_TMP/out" "$OUT/$name.types.txt"
	n=0
	grep -v "^#" "$OUT/types-named" | while IFS="	" read -r cap type; do
		[ "$cap" = "$name" ] || continue
		n=$((n + 1))
		"$PERF" --buildid-dir "$PD_TMP/bid" annotate \
			--objdump="$od" --stdio \
			--data-type="$type" -i "$f" \
			>"$OUT/$name.type-$n.txt" 2>/dev/null || exit 1
	done || fail=1
	echo "$OUT/$name.*.txt"
done
exit $fail
