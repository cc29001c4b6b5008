# A file-mode capture (testdata/demo.md): header, events, features, counts.
"$PDTOOL" info testdata/demo.perf.data
