# pdtool types's usage errors (exit 64, one line each) and --help.
$PDTOOL types --format html testdata/dtypes.perf.data; echo "exit $?"
$PDTOOL types --stdio --format csv testdata/dtypes.perf.data; echo "exit $?"
$PDTOOL types --cpu x testdata/dtypes.perf.data; echo "exit $?"
$PDTOOL types --time 5,1 testdata/dtypes.perf.data; echo "exit $?"
$PDTOOL types testdata/dtypes.perf.data node extra; echo "exit $?"
$PDTOOL types --search-path testdata/bin --strict testdata/dtypes.perf.data nosuch; echo "exit $?"
$PDTOOL types --help
