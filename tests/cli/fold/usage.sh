# pdtool fold's usage errors exit 64 with a message and the usage line.
$PDTOOL fold
echo "exit $?"
$PDTOOL fold --weight bytes testdata/demo.perf.data
echo "exit $?"
$PDTOOL fold --time 5 testdata/demo.perf.data
echo "exit $?"
$PDTOOL fold --time 2.0,1.0 testdata/demo.perf.data
echo "exit $?"
$PDTOOL fold --symbol '(' testdata/demo.perf.data
echo "exit $?"
$PDTOOL fold --no-comm --pid testdata/demo.perf.data
echo "exit $?"
$PDTOOL fold --jit testdata/demo.perf.data
echo "exit $?"
$PDTOOL fold --from-script --symfs / -
echo "exit $?"
$PDTOOL fold testdata/nonexistent.perf.data
echo "exit $?"
# long options match exactly: no getopt_long abbreviations
$PDTOOL fold --kern testdata/demo.perf.data
echo "exit $?"
$PDTOOL fold --ev
echo "exit $?"
$PDTOOL fold -i testdata/demo.perf.data testdata/demo.perf.data
echo "exit $?"
