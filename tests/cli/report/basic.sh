# perf report --stdio's table of a capture with callchains (Children and
# Self), the same without, and the sort keys that need no binary; the
# coverage line on stderr.  golden.test holds them to perf 6.1.
K="--kallsyms tests/golden/fold/kallsyms"
# multi was recorded on another kernel: its own kallsyms names its frames
KM="--kallsyms tests/golden/fold/kallsyms.6.18.44-fc-v595"
$PDTOOL report $K testdata/threads.perf.data
echo "exit $?"
$PDTOOL report $KM --no-children -n --show-total-period --sort pid,cpu testdata/multi.perf.data
echo "exit $?"
$PDTOOL report $KM --group --no-children --percent-limit 10 -o - testdata/multi.perf.data
echo "exit $?"
$PDTOOL report $K --no-children --comms nosuch --sort comm testdata/demo.perf.data
echo "exit $?"
# call graphs (perf's default with callchains): fractal shares of the
# caller's, a threshold and a print limit; folded lines
$PDTOOL report $K --no-children -g fractal,5,2,caller testdata/demo.perf.data
echo "exit $?"
$PDTOOL report $K -g folded,0,callee --percent-limit 20 testdata/threads.perf.data
echo "exit $?"
# --callers and --callees: a function's rows with the chains from it to
# the root (who calls it) or to the sampled functions (what it calls)
$PDTOOL report $K --callers hash_block testdata/threads.perf.data
echo "exit $?"
$PDTOOL report $K --callees worker -g graph,1 testdata/demo.perf.data
echo "exit $?"
$PDTOOL report $K --callees nosuch testdata/demo.perf.data
echo "exit $?"
# --format: Markdown, JSON (every key and value of a row), CSV
$PDTOOL report $K --format md -n --sort dso,sym testdata/threads.perf.data
echo "exit $?"
$PDTOOL report $K --format json --no-children --sort pid,cpu,sym --percent-limit 2 testdata/threads.perf.data
echo "exit $?"
$PDTOOL report $KM --format csv --group --no-children -n --show-total-period testdata/multi.perf.data
echo "exit $?"
