# perf record -z (testdata/zstd.md): the records inside COMPRESSED chunks,
# each marked decompressed, with the offset of its chunk.
"$PDTOOL" dump testdata/zstd.perf.data
