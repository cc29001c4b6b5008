# fatal errors exit 2 and name the input
in=tests/cli/diff/inputs
"$PDTOOL" diff $in/before.folded $in/missing.folded; echo "exit $?"
"$PDTOOL" diff --scale nosuch $in/before.folded $in/after.folded; echo "exit $?"
"$PDTOOL" diff $in/before.folded $in/not-folded.txt; echo "exit $?"
"$PDTOOL" diff $in/before.folded testdata/corrupt/truncated_header.perf.data; echo "exit $?"
"$PDTOOL" diff --buildid-dir testdata/buildid --event task-clock testdata/diff/a1.perf.data.zst testdata/diff/b1.perf.data.zst; echo "exit $?"
