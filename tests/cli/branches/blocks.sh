# the basic blocks between entries with their IPC: by block (ARM BRBE,
# decoded as aarch64), by source line and by function, in each format;
# a capture without cycles (AMD Zen 4) has executions but no IPC, one
# whose binary is absent no instruction counts
"$PDTOOL" branches --blocks --buildid-dir testdata/buildid \
	testdata/branches/loop-brbe.perf.data.zst
"$PDTOOL" branches --blocks --by srcline --format md \
	--buildid-dir testdata/buildid testdata/branches/demo-intel.perf.data.zst
"$PDTOOL" branches --blocks --by sym --sort count --format csv \
	--buildid-dir testdata/buildid testdata/branches/demo-intel.perf.data.zst
"$PDTOOL" branches --blocks --format json --buildid-dir testdata/buildid \
	testdata/branches/demo-zen4.perf.data.zst | sed -n 1,40p
"$PDTOOL" branches --blocks testdata/branches/loop-brbe.perf.data.zst |
	sed -n 1,4p
"$PDTOOL" branches --blocks --sort mispredicts \
	testdata/branches/demo-zen4.perf.data.zst
