# A perf record --threads directory (testdata/threads.md), counted.
"$PDTOOL" dump --count --json testdata/threads.perf.data
