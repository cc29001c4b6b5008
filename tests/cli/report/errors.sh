# Bad options are usage errors (exit 64, message and usage line); a
# capture without samples is refused (exit 2), saying what it holds.
$PDTOOL report --sort comm,bogus testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --sort comm,comm testdata/demo.perf.data
echo "exit $?"
# perf 6.1's keys pdtool report has not: refused with the reason
for k in overhead dso_from ipc_null; do
	$PDTOOL report --sort sym,$k testdata/demo.perf.data
	echo "exit $?"
done
# a memory key without --mem-mode
$PDTOOL report --sort dcacheline testdata/demo.perf.data
echo "exit $?"
# perf's parse_time_quantum(): a number and a unit, not 0
for q in 0 10x ms -5ms; do
	$PDTOOL report --sort time --time-quantum "$q" testdata/demo.perf.data
	echo "exit $?"
done
$PDTOOL report --children --no-children testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --percent-limit 101 testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --cpu 3-1 testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --max-stack 0 testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --sort parent --parent '(' testdata/demo.perf.data
echo "exit $?"
$PDTOOL report testdata/statrec.perf.data
echo "exit $?"
# -g: a word that is neither a mode, an order nor a number; a key and a
# value kind pdtool does not have; call graphs of a capture without
# callchains (exit 2, as perf refuses them)
$PDTOOL report -g graph,bogus testdata/demo.perf.data
echo "exit $?"
$PDTOOL report -g graph,0.5,address testdata/demo.perf.data
echo "exit $?"
$PDTOOL report -g graph,150 testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --kallsyms tests/golden/fold/kallsyms -g graph testdata/switch.perf.data
echo "exit $?"
# --callers and --callees: one of them, with children and a graph, in
# their own order
$PDTOOL report --callers a --callees b testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --no-children --callers walk testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --callers walk -g caller testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --callees walk -g none testdata/demo.perf.data
echo "exit $?"
# --time's percent ranges: a list of one form, within 0-100%, and a
# capture that says when its first and last samples were
$PDTOOL report --time 10%/2,10% testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --time 0%/2 testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --time 20%-110% testdata/demo.perf.data
echo "exit $?"
$PDTOOL report --time 10%/2 testdata/pipe.perf.data
echo "exit $?"
