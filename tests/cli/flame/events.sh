# flame draws one event unless told (issue 13, item 12): the first one
# sampled, named in the summary; --all-events draws all; --event one.
# A sample without a callchain has its ip as its frame (item 1): switch
# was recorded without -g, and its graph has hash_block and sum_squares.
m=testdata/multi.perf.data
o="--buildid-dir testdata/buildid --kallsyms tests/golden/fold/kallsyms"
"$PDTOOL" flame $o $m | grep -c '<g'
"$PDTOOL" flame $o --all-events $m | grep -c '<g'
"$PDTOOL" flame $o --event task-clock $m | grep -c '<g'
"$PDTOOL" flame $o --event cycles --all-events $m; echo "exit $?"
"$PDTOOL" flame $o testdata/switch.perf.data | grep -o '<title>[a-z_]* (' | sort
