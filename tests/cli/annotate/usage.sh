# pdtool annotate's usage errors exit 64 with a message and the usage
# line; a missing function is said on stderr (exit 1 with --strict).
$PDTOOL annotate
echo "exit $?"
$PDTOOL annotate --format svg testdata/fp.perf.data
echo "exit $?"
$PDTOOL annotate --stdio --format json testdata/fp.perf.data
echo "exit $?"
$PDTOOL annotate --percent-type cycles testdata/fp.perf.data
echo "exit $?"
$PDTOOL annotate --percent-limit 101 testdata/fp.perf.data
echo "exit $?"
$PDTOOL annotate --prefix-map nothing testdata/fp.perf.data
echo "exit $?"
$PDTOOL annotate -M arm testdata/fp.perf.data
echo "exit $?"
$PDTOOL annotate --top 0 testdata/fp.perf.data
echo "exit $?"
$PDTOOL annotate testdata/nonexistent.perf.data
echo "exit $?"
$PDTOOL annotate --buildid-dir testdata/buildid --strict --symbol nosuch testdata/fp.perf.data
echo "exit $?"
# an unknown short option is named, even inside its word ("-j" of
# "-j2", not the word before)
$PDTOOL annotate --stdio -j2 testdata/fp.perf.data
echo "exit $?"
$PDTOOL annotate -j 2 testdata/fp.perf.data
echo "exit $?"
