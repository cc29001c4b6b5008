# usage errors exit 64; a capture without memory samples exits 2
"$PDTOOL" mem --view foo testdata/spe/n1.perf.data; echo "exit $?"
"$PDTOOL" mem --type fetch testdata/spe/n1.perf.data; echo "exit $?"
"$PDTOOL" mem --top 0 testdata/spe/n1.perf.data; echo "exit $?"
"$PDTOOL" mem --format xml testdata/spe/n1.perf.data; echo "exit $?"
"$PDTOOL" mem testdata/fp.perf.data; echo "exit $?"
"$PDTOOL" mem --event nosuch testdata/spe/n1.perf.data; echo "exit $?"
