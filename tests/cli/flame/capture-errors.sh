# A file-mode capture on standard input, a --symfs that does not exist, and
# a fold option with folded input.
"$PDTOOL" flame - <testdata/demo.perf.data
echo "exit $?"
"$PDTOOL" flame --symfs /nonexistent testdata/demo.perf.data
echo "exit $?"
"$PDTOOL" flame --symfs /nonexistent tests/cli/flame/inputs/demo.folded
