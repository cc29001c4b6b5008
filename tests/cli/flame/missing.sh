# An input that cannot be opened, an output that cannot be written.
"$PDTOOL" flame tests/cli/flame/no-such.folded
echo "exit $?"
"$PDTOOL" flame -o /nonexistent/dir/out.svg tests/cli/flame/inputs/demo.folded
