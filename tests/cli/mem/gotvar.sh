# pdtool mem's data object columns ("in var", "elsewhere": the data
# address in the variable DWARF's answer names, or not) for globals
# typed by name: testdata/dtgot-mem (dtgot.md) holds memory samples at
# bin/dtgot's accesses to the library's glimits, whose copy in the
# program's .bss its DWARF places nowhere (an extern declaration: typed
# through the program's symbol), and to its own mlimits (by address).
# Each is a global: 3 of 4 glimits.lo samples are in the variable (the
# fourth's address the spec put in mlimits), all of glimits.flags and
# .step, all of mlimits.hi.
python3 tests/golden/fold/buildid_dir.py "${TMPDIR:-/tmp}/pdtool-gv-bid.$$" \
	testdata/bin/dtgot >/dev/null 2>&1
"$PDTOOL" mem --buildid-dir "${TMPDIR:-/tmp}/pdtool-gv-bid.$$" --view type \
	--format csv testdata/dtgot-mem.perf.data
echo "exit $?"
rm -rf "${TMPDIR:-/tmp}/pdtool-gv-bid.$$"
