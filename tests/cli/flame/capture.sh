# A perf.data capture (plain, then zstd-compressed) is recognised by its
# magic and refused with a hint.
"$PDTOOL" flame testdata/demo.perf.data
echo "exit $?"
"$PDTOOL" flame - <testdata/dwarf.perf.data.zst
