# pdtool against perf 7.2 on the foreign captures (written by
# pd_arch_synth.py: testdata/dtgot.md, dtypes.md), perf's notes from
# tests/golden/datatype/regen.sh: per sampled instruction, where both
# type it the two agree; where perf 7.2 leaves it (unknown) (every
# access through a GOT slot; aarch64, big-endian ppc64 and s390x, where
# it finds no access at all) pdtool's type is the source marker's
# (crossperf.py).  dtypes-ppc64le is where perf types some.
python3 tests/golden/fold/buildid_dir.py "${TMPDIR:-/tmp}/pdtool-xp-bid.$$" \
	testdata/bin/* testdata/vdso/*/* >/dev/null 2>&1
T=${TMPDIR:-/tmp}/pdtool-xp.$$.json
fail=0
for name in dtgot-aarch64 dtgot-ppc64le dtgot-ppc64 dtgot-s390x \
	dtgot-p10-ppc64le dtgot-i386 dtgot-arm dtypes-aarch64 dtypes-ppc64 \
	dtypes-s390x dtypes-p10-ppc64le dtypes-ppc64le; do
	$PDTOOL annotate --format json --code-with-type \
		--buildid-dir "${TMPDIR:-/tmp}/pdtool-xp-bid.$$" \
		testdata/$name.perf.data >"$T" 2>/dev/null || fail=1
	python3 tests/cli/types/crossperf.py $name "$T" \
		tests/golden/datatype/$name.cwt.txt testdata/src || fail=1
done
rm -rf "${TMPDIR:-/tmp}/pdtool-xp-bid.$$" "$T"
exit $fail
