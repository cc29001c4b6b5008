# Usage errors exit 64: no input, an unknown option, two inputs.
"$PDTOOL" info; echo "exit $?"
"$PDTOOL" info --bogus testdata/demo.perf.data; echo "exit $?"
"$PDTOOL" info -i testdata/demo.perf.data testdata/fp.perf.data; echo "exit $?"
"$PDTOOL" info -i; echo "exit $?"
