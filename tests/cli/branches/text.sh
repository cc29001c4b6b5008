# the default table (by symbol, most mispredicted first) of Intel LBR with
# TYPE_SAVE, then by source line sorted by cycles
"$PDTOOL" branches testdata/branches/demo-intel-type.perf.data.zst
"$PDTOOL" branches --by srcline --sort cycles \
	testdata/branches/demo-intel.perf.data.zst
