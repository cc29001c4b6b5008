# usage errors exit 64; a capture without branch stacks exits 2
"$PDTOOL" branches --by foo testdata/demo.perf.data; echo "exit $?"
"$PDTOOL" branches --sort bar testdata/demo.perf.data; echo "exit $?"
"$PDTOOL" branches --format xml testdata/demo.perf.data; echo "exit $?"
"$PDTOOL" branches testdata/demo.perf.data; echo "exit $?"
"$PDTOOL" branches --event nosuch \
	testdata/branches/demo-intel.perf.data.zst; echo "exit $?"
# standard input named as the reader names it
"$PDTOOL" branches - <testdata/demo.perf.data; echo "exit $?"
