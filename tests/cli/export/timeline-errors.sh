# pdtool timeline: bad options are usage errors (exit 64, message and
# usage line); a capture without samples is refused (exit 2) as export
# refuses it; the format follows -o's suffix unless --format says.
t=$(mktemp -d)
$PDTOOL timeline testdata/demo.perf.data
echo "exit $?"
$PDTOOL timeline --format png -o "$t/x" testdata/demo.perf.data
echo "exit $?"
$PDTOOL timeline --color dso -o "$t/x" testdata/demo.perf.data
echo "exit $?"
$PDTOOL timeline -o "$t/x" testdata/statrec.perf.data
echo "exit $?"
$PDTOOL timeline -o "$t/a.html" testdata/demo.perf.data 2>/dev/null
echo "exit $?"
head -c 15 "$t/a.html"; echo
$PDTOOL timeline --format svg -o "$t/b.html" testdata/demo.perf.data 2>/dev/null
echo "exit $?"
head -c 5 "$t/b.html"; echo
rm -rf "$t"
