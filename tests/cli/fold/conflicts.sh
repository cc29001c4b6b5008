# Options that contradict each other, values out of range and an input of
# the wrong kind are usage errors (exit 64, message and usage line), in
# every command, never a silent choice.
$PDTOOL fold --inline --no-inline testdata/demo.perf.data
echo "exit $?"
$PDTOOL fold --no-inline --inline testdata/demo.perf.data
echo "exit $?"
$PDTOOL flame --inline --no-inline -o /dev/null testdata/demo.perf.data
echo "exit $?"
$PDTOOL diff --debuginfod --no-debuginfod testdata/demo.perf.data testdata/fp.perf.data
echo "exit $?"
$PDTOOL annotate --host-sources --no-host-sources testdata/demo.perf.data
echo "exit $?"
$PDTOOL fold --from-script --event cpu-clock --all-events -
echo "exit $?"
# a capture or a --threads directory given as perf script text
$PDTOOL fold --from-script testdata/demo.perf.data
echo "exit $?"
$PDTOOL fold --from-script - <testdata/zstd.perf.data
echo "exit $?"
$PDTOOL fold --from-script testdata
echo "exit $?"
$PDTOOL flame --minwidth 200% -o /dev/null testdata/demo.perf.data
echo "exit $?"
$PDTOOL flame --minwidth 100% --format speedscope testdata/demo.perf.data >/dev/null 2>&1
echo "exit $?"
$PDTOOL flame --width 200 --minwidth 190 -o /dev/null testdata/demo.perf.data
echo "exit $?"
# diff's flame graph options without the flame graph
$PDTOOL diff --negate testdata/demo.perf.data testdata/fp.perf.data
echo "exit $?"
# "--" ends diff's options: one after it is no input
$PDTOOL diff testdata/demo.perf.data -- testdata/fp.perf.data --folded
echo "exit $?"
# options of one output given with another
$PDTOOL flame --format speedscope --title T testdata/demo.perf.data
echo "exit $?"
$PDTOOL diff --folded --top 3 testdata/demo.perf.data testdata/fp.perf.data
echo "exit $?"
# --comm RE (a filter) is no opposite of --no-comm (no root frame)
$PDTOOL fold --comm demo --no-comm testdata/demo.perf.data 2>/dev/null | head -n 1
echo "exit $?"
