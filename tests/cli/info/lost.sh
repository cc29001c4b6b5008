# Lost samples counted as perf 6.1 counts them: testdata/lost's LOST
# records and its end-of-run LOST_SAMPLES record count the same 839
# samples (perf report: "Total Lost Samples: 839"), not 1678.
"$PDTOOL" info testdata/lost.perf.data.zst | grep '^lost'
"$PDTOOL" info --json testdata/lost.perf.data.zst | tr ',' '\n' | grep '^"lost_\|filtered'
"$PDTOOL" fold testdata/lost.perf.data.zst 2>&1 >/dev/null | grep -o '[0-9]* lost'
