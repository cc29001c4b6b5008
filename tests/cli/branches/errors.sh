# usage errors exit 64; a capture without branch stacks exits 2
"$PDTOOL" branches --by foo testdata/demo.perf.data; echo "exit $?"
"$PDTOOL" branches --sort bar testdata/demo.perf.data; echo "exit $?"
"$PDTOOL" branches --format xml testdata/demo.perf.data; echo "exit $?"
"$PDTOOL" branches testdata/demo.perf.data; echo "exit $?"
"$PDTOOL" branches --event nosuch \
	testdata/branches/demo-intel.perf.data.zst; echo "exit $?"
