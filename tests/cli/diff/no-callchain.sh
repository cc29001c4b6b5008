# samples without a callchain have their ip as their one frame (issue 13,
# item 1; diff used to see one frame per comm and "no change"): switch
# was recorded without -g.  perf 6.1's `perf diff switch multi` on the
# same captures: hash_block 86.02% -6.51, sum_squares 13.98% +5.69,
# [kernel.kallsyms] 0xffffffff813a4413 +0.82
o="--buildid-dir testdata/buildid --kallsyms tests/golden/fold/kallsyms.6.18.44-fc-v595"
"$PDTOOL" diff $o --strict --top 3 --event cpu-clock testdata/switch.perf.data testdata/multi.perf.data; echo "exit $?"
