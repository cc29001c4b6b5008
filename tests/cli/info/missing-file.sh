# A file that does not exist: exit 2.
"$PDTOOL" info testdata/no-such.perf.data
