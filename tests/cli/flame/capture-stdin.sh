# A pipe-mode stream on standard input: recognised by its first bytes,
# which are then handed to fold with the rest.  The stream has no
# build-ids: demo is read inside a --symfs root, so that no file of this
# host has a say (a copy at the recorded path, whose inode pdtool would
# compare with the capture's, or this host's libc: not found here).
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
mkdir -p "$d/work/main/testdata/bin"
cp testdata/bin/demo "$d/work/main/testdata/bin/demo"
"$PDTOOL" flame --format speedscope --kallsyms tests/golden/fold/kallsyms \
	--symfs "$d" - <testdata/pipe.perf.data 2>"$d/err"
rc=$?
sed "s|$d|ROOT|g" "$d/err" >&2
exit $rc
