# a capture of three events: by default its first sampled event only,
# named in the summary (issue 13, item 12); every event with
# --all-events (and a warning); one of them with --event; two inputs
# whose first events differ get a warning
m=testdata/multi.perf.data
o="--folded --scale none --buildid-dir testdata/buildid --kallsyms tests/golden/fold/kallsyms.6.18.44-fc-v595"
"$PDTOOL" diff $o $m $m | tail -n 3
"$PDTOOL" diff $o --all-events $m $m | tail -n 3
"$PDTOOL" diff $o --event page-faults $m $m | tail -n 3
"$PDTOOL" diff $o $m testdata/demo.perf.data | tail -n 3
"$PDTOOL" diff $o --event cycles --all-events $m $m; echo "exit $?"
