# Why frames are [unknown] (issue 13 items 6 and 8): the "unresolved
# frames by binary" block, one line per reason.  Off-host as a user on
# another machine is: an empty --symfs root (nothing of this host read)
# and a build-id cache made here; paths under the temporary directory are
# shown as ROOT.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
mkdir -p "$d/root" "$d/strip" "$d/other"
run() {
	"$PDTOOL" fold --symfs "$d/root" "$@" >/dev/null 2>"$d/err"
	echo "exit $?"
	sed "s|$d|ROOT|g" "$d/err"
}
# stripped, with a .gnu_debuglink whose file is not there; libc and the
# loader not found
objcopy --strip-all --add-gnu-debuglink=testdata/bin/inline \
	testdata/bin/demo "$d/strip/demo"
python3 tests/golden/fold/buildid_dir.py "$d/strip/cache" "$d/strip/demo"
run --buildid-dir "$d/strip/cache" --kallsyms tests/golden/fold/kallsyms \
	testdata/demo.perf.data
# another build at the recorded path; every binary listed with -v
mkdir -p "$d/root/work/main/testdata/bin"
cp testdata/bin/inline "$d/root/work/main/testdata/bin/demo"
run --buildid-dir "$d/other" --kallsyms tests/golden/fold/kallsyms -v \
	testdata/demo.perf.data
# a kallsyms of another kernel (no _text, and text elsewhere), on a
# capture with kernel samples; demo in the root, where it was recorded
cp testdata/bin/demo "$d/root/work/main/testdata/bin/demo"
printf 'ffffffffa0000000 T other_start\nffffffffa0001000 T other_end\n' \
	>"$d/kallsyms"
run --kallsyms "$d/kallsyms" --strict testdata/pipe.perf.data
# a debuginfod server that cannot be reached: its error, not "not found"
# (the query line's timing left out)
rm -rf "$d/root/work"
DEBUGINFOD_URLS=http://127.0.0.1:9 DEBUGINFOD_CACHE_PATH="$d/dcache" \
	run --debuginfod --kallsyms tests/golden/fold/kallsyms \
	testdata/demo.perf.data | grep -v ': debuginfod (http'
