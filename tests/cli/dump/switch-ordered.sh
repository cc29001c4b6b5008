# --ordered: records in time order, one FINISHED_ROUND at a time
# (testdata/switch.md: context-switch records).
"$PDTOOL" dump --ordered testdata/switch.perf.data
