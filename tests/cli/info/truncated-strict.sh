# --strict turns that damage into exit 1; the output is the same JSON.
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
head -c 20000 testdata/demo.perf.data > "$d/cut.perf.data"
cd "$d" && "$PDTOOL" info --strict --json cut.perf.data
