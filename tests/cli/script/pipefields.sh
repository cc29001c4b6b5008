# pipefields.sh - -F asking for a field the event does not sample fails
# on a pipe-mode capture as on a file (perf 6.1: "Samples for
# 'cpu-clock' event do not have CPU attribute set. Cannot print 'cpu'
# field."): a pipe's events, known only once its attrs are read, are
# recorded events, not synthesized ones whose fields perf drops quietly.
# (An empty --symfs: no binary of this host is looked at.)
d=$(mktemp -d) && trap 'rmdir "$d"' EXIT
"$PDTOOL" script --symfs "$d" -F comm,cpu testdata/pipe.perf.data
