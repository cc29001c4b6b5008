# Bad options are usage errors (exit 64, message and usage line); a
# capture without samples is refused (exit 2), saying what it holds, and
# leaves nothing at -o; a damaged capture is an error naming it.
t=$(mktemp -d)
$PDTOOL export testdata/demo.perf.data
echo "exit $?"
$PDTOOL export --format svg -o "$t/x" testdata/demo.perf.data
echo "exit $?"
$PDTOOL export --max-stack 0 -o "$t/x" testdata/demo.perf.data
echo "exit $?"
$PDTOOL export --gzip -o "$t/x" testdata/demo.perf.data
echo "exit $?"
$PDTOOL export -o "$t/x" testdata/statrec.perf.data
echo "exit $?"
$PDTOOL export --format firefox -o "$t/x" testdata/statrec.perf.data
echo "exit $?"
ls "$t"
head -c 300 testdata/demo.perf.data >"$t/cut.data"
$PDTOOL export -o "$t/y" "$t/cut.data" 2>&1 | sed "s|$t|TMP|g"
echo "exit $?"
rm -rf "$t"
