# flame says why frames are [unknown] as fold does (issue 13 item 6): the
# same block after the coverage line, here for a stripped demo found by
# build-id and a libc not found in an empty --symfs root (shown as ROOT).
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
mkdir -p "$d/root"
objcopy --strip-all testdata/bin/demo "$d/demo"
python3 tests/golden/fold/buildid_dir.py "$d/cache" "$d/demo"
"$PDTOOL" flame --format speedscope --symfs "$d/root" --buildid-dir \
	"$d/cache" --kallsyms tests/golden/fold/kallsyms \
	testdata/demo.perf.data >/dev/null 2>"$d/err"
echo "exit $?"
sed "s|$d|ROOT|g" "$d/err"
