# diff says why frames are [unknown], for each capture it reads (issue 13
# item 6): a stripped demo found by build-id in an otherwise empty --symfs
# root (shown as ROOT), for A and B alike.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
mkdir -p "$d/root"
objcopy --strip-all testdata/bin/demo "$d/demo"
python3 tests/golden/fold/buildid_dir.py "$d/cache" "$d/demo"
"$PDTOOL" diff --symfs "$d/root" --buildid-dir "$d/cache" \
	--kallsyms tests/golden/fold/kallsyms testdata/demo.perf.data \
	testdata/demo.perf.data >/dev/null 2>"$d/err"
echo "exit $?"
sed "s|$d|ROOT|g" "$d/err"
