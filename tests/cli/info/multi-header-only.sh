# Three events with different sample types; --header-only reads no records.
"$PDTOOL" info --header-only testdata/multi.perf.data
