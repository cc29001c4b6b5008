# Several events: each sample names its event, found by its id.
"$PDTOOL" dump --json testdata/multi.perf.data | sed -n '1,40p'
