# The per-CPU SPE metadata of perf 6.13+ (testdata/spe.md), printed as
# perf 6.13+ prints it, and the first packets of the trace.
"$PDTOOL" dump --aux testdata/spe/n1-meta2.perf.data | sed -n '2,20p'
