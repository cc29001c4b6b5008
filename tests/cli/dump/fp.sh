# Every record of a file-mode capture with callchains (testdata/fp.md), as text.
"$PDTOOL" dump testdata/fp.perf.data
