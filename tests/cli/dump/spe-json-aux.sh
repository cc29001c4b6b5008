# --aux prints perf's text, so it is refused with --json.
"$PDTOOL" dump --aux --json testdata/spe/n1.perf.data
