# A capture cut short (perf record killed): exit 0, the damage on stderr
# and in the output; the feature sections past the cut are missing.
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
head -c 20000 testdata/demo.perf.data > "$d/cut.perf.data"
cd "$d" && "$PDTOOL" info cut.perf.data
