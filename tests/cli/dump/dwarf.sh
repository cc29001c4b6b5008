# --call-graph dwarf (testdata/dwarf.md, stored zstd-compressed): user
# registers and stacks.
"$PDTOOL" dump --count testdata/dwarf.perf.data.zst
"$PDTOOL" dump testdata/dwarf.perf.data.zst | sed -n '1,20p'
