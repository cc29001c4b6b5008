# An -o that cannot be written fails before the work, not after it: before
# the input is read (flame: no "no stacks" warning for /dev/null; annotate:
# no warning about the damaged record; diff: no "no samples" for B).
$PDTOOL flame -o /nonexistent/dir/out.svg /dev/null
echo "exit $?"
$PDTOOL annotate -o /nonexistent/dir/out.txt testdata/corrupt/record_past_end.perf.data
echo "exit $?"
$PDTOOL diff -o /nonexistent/dir/out.svg testdata/demo.perf.data /dev/null
echo "exit $?"
