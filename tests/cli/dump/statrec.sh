# perf stat record (testdata/statrec.md): THREAD_MAP, CPU_MAP, STAT_CONFIG,
# STAT, STAT_ROUND and EVENT_UPDATE records, as text and JSON.
"$PDTOOL" dump testdata/statrec.perf.data
"$PDTOOL" dump --json testdata/statrec.perf.data
