#!/bin/sh
# regen.sh - the oracles of tests/cli/annotate/golden.test: what perf 6.1,
# objdump and eu-addr2line say about the testdata captures' functions.
#
#	sh tests/golden/annotate/regen.sh [NAME...]
#
# Writes under tests/golden/annotate/testdata/:
#
#   NAME.annotate
#	perf --buildid-dir BID annotate --stdio --stdio-color never
#	--percent-type local-period --dsos demo,inline -i CAPTURE: each
#	function of the testdata programs with samples, per event, with the
#	share of the function's period on each instruction.  BID is a
#	build-id cache of testdata/bin (tests/golden/fold/buildid_dir.py), so
#	perf reads these binaries whatever path the capture recorded.
#	loop-aarch64, an aarch64 capture, is annotated the same way with
#	--objdump aarch64-linux-gnu-objdump and --symfs SYSROOT holding the
#	binary at the path the capture recorded.
#   BIN.objdump, BIN.objdump-intel
#	objdump -d --no-show-raw-insn [-M intel] testdata/bin/BIN: every
#	instruction's address and mnemonic (aarch64-linux-gnu-objdump for
#	an aarch64 BIN (its name ends in -aarch64, a library's in
#	-aarch64.so; the same for the others), arm-linux-gnueabihf-objdump for an arm one,
#	powerpc64le-linux-gnu-objdump for a ppc64 or ppc64le one,
#	s390x-linux-gnu-objdump for an s390x one, without the Intel form).
#   BIN.addr2line
#	eu-addr2line -e testdata/bin/BIN for every instruction address of
#	BIN.objdump, "0xADDR FILE:LINE" a line (the column dropped).
#
# Needs perf 6.1, objdump (binutils), aarch64-linux-gnu-objdump
# (binutils-aarch64-linux-gnu), arm-linux-gnueabihf-objdump
# (binutils-arm-linux-gnueabihf), powerpc64le-linux-gnu-objdump
# (binutils-powerpc64le-linux-gnu), s390x-linux-gnu-objdump
# (binutils-s390x-linux-gnu), eu-addr2line (elfutils), python3 and zstd;
# run from anywhere.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh

G=tests/golden/annotate/testdata
CAPTURES="demo fp multi dwarf pipe loop-aarch64"

pd_regen61_start
for t in objdump aarch64-linux-gnu-objdump eu-addr2line; do
	command -v $t >/dev/null || { echo "regen.sh: no $t" >&2; exit 2; }
done
mkdir -p "$G" "$PD_TMP/home"
python3 tests/golden/fold/buildid_dir.py "$PD_TMP/bid" testdata/bin/* \
	testdata/vdso/*/* || exit 2
mkdir -p "$PD_TMP/sysroot/opt/pdtool"
cp testdata/bin/loop-aarch64 "$PD_TMP/sysroot/opt/pdtool/"

[ $# -gt 0 ] && CAPTURES="$*"
for name in $CAPTURES; do
	f=$(pd_capture "$name") || exit 2
	echo "== $name" >&2
	case $name in
	*-aarch64) extra="--objdump aarch64-linux-gnu-objdump --symfs $PD_TMP/sysroot"
		   dsos=${name} ;;
	*) extra= dsos=demo,inline ;;
	esac
	{
		echo "# perf annotate --stdio --percent-type local-period" \
			"--dsos $dsos -i testdata/$name ($pd_v)"
		# shellcheck disable=SC2086
		HOME=$PD_TMP/home "$PERF" --buildid-dir "$PD_TMP/bid" annotate \
			--stdio --stdio-color never $extra \
			--percent-type local-period --dsos $dsos \
			-i "$f" 2>/dev/null
	} >"$G/$name.annotate"
done

for bin in testdata/bin/*; do
	b=${bin##*/}
	case $b in
	*-aarch64|*-aarch64.so)
		aarch64-linux-gnu-objdump -d --no-show-raw-insn "$bin" |
			sed 1,2d >"$G/$b.objdump" ;;
	*-arm|*-arm.so)
		arm-linux-gnueabihf-objdump -d --no-show-raw-insn "$bin" |
			sed 1,2d >"$G/$b.objdump" ;;
	*-ppc64le|*-ppc64|*-ppc64le.so|*-ppc64.so)
		powerpc64le-linux-gnu-objdump -d --no-show-raw-insn "$bin" |
			sed 1,2d >"$G/$b.objdump" ;;
	*-s390x|*-s390x.so)
		s390x-linux-gnu-objdump -d --no-show-raw-insn "$bin" |
			sed 1,2d >"$G/$b.objdump" ;;
	*)
		objdump -d --no-show-raw-insn "$bin" | sed 1,2d >"$G/$b.objdump"
		objdump -d --no-show-raw-insn -M intel "$bin" | sed 1,2d \
			>"$G/$b.objdump-intel" ;;
	esac
	addrs=$(sed -n 's/^ *\([0-9a-f][0-9a-f]*\):.*/0x\1/p' "$G/$b.objdump")
	echo "$addrs" >"$PD_TMP/addrs"
	# shellcheck disable=SC2086
	eu-addr2line -e "$bin" $addrs | sed 's/\(:[0-9][0-9]*\):[0-9]*$/\1/' >"$PD_TMP/lines"
	paste -d ' ' "$PD_TMP/addrs" "$PD_TMP/lines" >"$G/$b.addr2line"
done
echo "regen.sh: done" >&2
