# pdtool's data-type attribution of the dtgot captures (testdata/dtgot.md):
# globals of a shared library reached through its GOT slots, recorded on
# x86_64 and written by pd_arch_synth.py for aarch64, ppc64le, ppc64,
# s390x, ppc64le at -mcpu=power10 (prefixed pld of the slots), i386
# (foo@GOT(%reg) from a PC thunk's GOT base) and arm (ldr from the GOT's
# base plus a literal pool's foo(GOT)).  perf
# 7.2 leaves them all (unknown) (tests/golden/datatype/dtgot.*): held
# here; each sampled instruction's type and member is its source line's
# marker, as tests/unit/check_datatype.c checks for every access of the
# binaries.  Then the types' tables of one.
python3 tests/golden/fold/buildid_dir.py "${TMPDIR:-/tmp}/pdtool-got-bid.$$" \
	testdata/bin/libdtgot*.so >/dev/null 2>&1
B="--buildid-dir ${TMPDIR:-/tmp}/pdtool-got-bid.$$"
for a in "" -aarch64 -ppc64le -ppc64 -s390x -p10-ppc64le -i386 -arm; do
	echo "== dtgot$a"
	$PDTOOL report $B -g none -n -s dso,symoff,typeoff --format csv \
		testdata/dtgot$a.perf.data 2>&1
done
echo "== types dtgot-s390x"
$PDTOOL types $B testdata/dtgot-s390x.perf.data 2>&1
rm -rf "${TMPDIR:-/tmp}/pdtool-got-bid.$$"
