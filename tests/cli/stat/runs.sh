# Three captures of one command (testdata/stat-run1..3.md) as the runs
# of perf stat -r: means and the spread of the mean, in text and JSON.
"$PDTOOL" stat testdata/stat-run1.perf.data testdata/stat-run2.perf.data \
	testdata/stat-run3.perf.data
"$PDTOOL" stat --format json testdata/stat-run1.perf.data \
	testdata/stat-run2.perf.data testdata/stat-run3.perf.data
