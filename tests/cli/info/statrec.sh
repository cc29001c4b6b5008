# perf stat record: no samples, the STAT feature and STAT records.
"$PDTOOL" info testdata/statrec.perf.data
