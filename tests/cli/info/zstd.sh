# perf record -z: COMPRESSED chunks count, and so do the records in them.
"$PDTOOL" info testdata/zstd.perf.data
