# --count on a capture of several events (testdata/multi.md), text then JSON.
"$PDTOOL" dump --count testdata/multi.perf.data
"$PDTOOL" dump --count --json testdata/multi.perf.data
