# The same as one JSON object (the contract's keys), through -i.
"$PDTOOL" info --json -i testdata/demo.perf.data
