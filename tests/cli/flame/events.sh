# flame draws one event unless told (issue 13, item 12): the first one
# sampled, named in the summary; --all-events draws all; --event one.
# A sample without a callchain has its ip as its frame (item 1): switch
# was recorded without -g, and its graph has hash_block and sum_squares.
m=testdata/multi.perf.data
o="--buildid-dir testdata/buildid"
# each capture with the kallsyms of the kernel it was recorded on
k="--kallsyms tests/golden/fold/kallsyms.6.18.44-fc-v595"
"$PDTOOL" flame $o $k $m | grep -c '<g'
"$PDTOOL" flame $o $k --all-events $m | grep -c '<g'
"$PDTOOL" flame $o $k --event task-clock $m | grep -c '<g'
"$PDTOOL" flame $o $k --event cycles --all-events $m; echo "exit $?"
"$PDTOOL" flame $o --kallsyms tests/golden/fold/kallsyms testdata/switch.perf.data | grep -o '<title>[a-z_]* (' | sort
