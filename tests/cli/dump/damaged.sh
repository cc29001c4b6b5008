# A capture cut short, as when perf record is killed: every complete record
# is printed, the loss is a warning on stderr and the exit status is 0;
# with --strict it is 1.
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
head -c 9000 testdata/fp.perf.data > "$tmp/cut.data"
cd "$tmp" || exit 2
"$PDTOOL" dump --count cut.data
echo "exit $?"
"$PDTOOL" dump --strict cut.data > out
echo "exit $?"
tail -n 1 out
