# Bad options are usage errors (exit 64, message and usage line); a
# capture without samples is refused (exit 2), saying what it holds.
$PDTOOL report --sort comm,bogus testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --sort comm,comm testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --children --no-children testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --percent-limit 101 testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --cpu 3-1 testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --max-stack 0 testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --sort parent --parent '(' testdata/demo.perf.data
echo "exit $?"
$PDTOOL report testdata/statrec.perf.data
echo "exit $?"
