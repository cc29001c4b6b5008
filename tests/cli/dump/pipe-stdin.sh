# A pipe-mode stream read from standard input (testdata/pipe.md): events
# and features arrive as HEADER_ATTR and HEADER_FEATURE records.
"$PDTOOL" dump --json - < testdata/pipe.perf.data | sed -n '1,40p'
"$PDTOOL" dump --count -i - < testdata/pipe.perf.data
