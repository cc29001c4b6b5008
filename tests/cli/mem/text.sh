# pdtool mem's formats on an SPE capture: every view as text, loads and
# stores apart, md, csv with --top
B="--buildid-dir testdata/buildid"
"$PDTOOL" mem $B testdata/spe/n1.perf.data; echo "exit $?"
"$PDTOOL" mem $B -t store --view level,sym testdata/spe/v1-noctx.perf.data
echo "exit $?"
"$PDTOOL" mem $B --format md --top 3 testdata/spe/n1-nots.perf.data
echo "exit $?"
"$PDTOOL" mem $B --format csv --top 2 --view level,line,hist \
	testdata/spe/n1.perf.data; echo "exit $?"
# --event without --itrace: perf's set, so l1d-miss is there (perf mem
# report's l1d-miss table: 10 samples, Local RAM 43.52%)
"$PDTOOL" mem $B --event l1d-miss --view level testdata/spe/n1.perf.data
echo "exit $?"
