# A file-mode capture on standard input (read: spooled to a temporary
# file), a --symfs that does not exist, and a fold option with folded input.
"$PDTOOL" flame - <testdata/demo.perf.data >/dev/null
echo "exit $?"
"$PDTOOL" flame --symfs /nonexistent testdata/demo.perf.data
echo "exit $?"
"$PDTOOL" flame --symfs /nonexistent tests/cli/flame/inputs/demo.folded
