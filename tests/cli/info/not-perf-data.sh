# Not a perf.data file: exit 2, one line naming it.
"$PDTOOL" info testdata/demo.md
