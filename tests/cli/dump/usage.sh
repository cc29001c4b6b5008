# Usage errors exit 64; an input that cannot be read or is not perf.data
# exits 2 with one line naming it.
"$PDTOOL" dump
echo "exit $?"
"$PDTOOL" dump --bogus testdata/fp.perf.data
echo "exit $?"
"$PDTOOL" dump testdata/fp.perf.data testdata/multi.perf.data
echo "exit $?"
"$PDTOOL" dump -i
echo "exit $?"
"$PDTOOL" dump testdata/no-such-file.data
echo "exit $?"
"$PDTOOL" dump testdata/fp.md
echo "exit $?"
