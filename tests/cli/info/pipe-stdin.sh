# A pipe-mode stream on standard input: attrs and features arrive as
# records; ATTR and FEATURE records count, as in perf report --stats.
"$PDTOOL" info --json - < testdata/pipe.perf.data
