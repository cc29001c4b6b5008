# a capture of three events: diffed together with a warning, or one of
# them with --event
m=testdata/multi.perf.data
"$PDTOOL" diff --folded --scale none --buildid-dir testdata/buildid --kallsyms tests/golden/fold/kallsyms $m $m | tail -n 3
"$PDTOOL" diff --folded --scale none --buildid-dir testdata/buildid --kallsyms tests/golden/fold/kallsyms --event page-faults $m $m | tail -n 3
