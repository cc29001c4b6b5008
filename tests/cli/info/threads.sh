# The directory of perf record --threads: DIR_FORMAT and data.N files.
"$PDTOOL" info --json testdata/threads.perf.data
