# The same records as JSON, one object per line (the shared output contract).
"$PDTOOL" dump --json testdata/fp.perf.data
