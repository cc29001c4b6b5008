# JSON and Markdown of a per-CPU capture (testdata/stat-cpu.md), of an
# interval capture (testdata/stat-interval.md), cumulative too, and of a
# per-thread one (testdata/stat-thread.md); -o writes a file.
"$PDTOOL" stat --format json testdata/stat-cpu.perf.data
"$PDTOOL" stat --format md testdata/stat-cpu.perf.data
"$PDTOOL" stat --format md testdata/stat-thread.perf.data
"$PDTOOL" stat --format json testdata/stat-interval.perf.data
"$PDTOOL" stat --cumulative testdata/stat-interval.perf.data
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
"$PDTOOL" stat -o "$d/out.txt" testdata/statrec.perf.data && cat "$d/out.txt"
