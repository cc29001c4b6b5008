# A perf archive tarball read as the build-id cache it holds (issue 13
# item 9): --archive FILE, or --buildid-dir naming the file, resolves as
# the extracted cache does, whether bzip2- (as perf archive writes it),
# xz- or gzip-compressed or a plain tar, from a pipe, and in perf
# archive --all's tar (perf.data beside perf.symbols.tar.bz2); fold,
# flame, diff and annotate alike.  Off-host as in unresolved.sh: an
# empty --symfs root.  The tar is made as perf archive makes it (tar -T with the .build-id
# link and the directory it names); the temporary tree goes with pdtool
# ($d/tmp is left empty).  What is not such a tarball is refused.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
mkdir -p "$d/root" "$d/tmp"
python3 tests/golden/fold/buildid_dir.py --perf-layout "$d/cache" \
	testdata/bin/demo testdata/bin/inline
(
	cd "$d/cache" || exit 2
	for l in .build-id/*/*; do
		echo "$l"
		t=$(readlink "$l")
		echo "${t#../../}"
	done >"$d/manifest"
)
tar cf "$d/a.tar" -C "$d/cache" -T "$d/manifest" || exit 2
python3 - "$d" <<'PY' || exit 2
import bz2, gzip, lzma, sys, tarfile
d = sys.argv[1]
raw = open(d + '/a.tar', 'rb').read()
open(d + '/a.tar.bz2', 'wb').write(bz2.compress(raw))
open(d + '/a.tar.xz', 'wb').write(lzma.compress(raw))
open(d + '/a.tar.gz', 'wb').write(gzip.compress(raw))
# perf archive --all: perf.data and perf.symbols.tar.bz2 in one tar.bz2
with tarfile.open(d + '/all.tar.bz2', 'w:bz2') as t:
    t.add('testdata/demo.perf.data', 'perf.data')
    t.add(d + '/a.tar.bz2', 'perf.symbols.tar.bz2')
# a tar that is not perf archive's, and a zstd frame
with tarfile.open(d + '/other.tar.bz2', 'w:bz2') as t:
    t.add('testdata/demo.md', 'demo.md')
open(d + '/a.tar.zst', 'wb').write(b'\x28\xb5\x2f\xfd' + raw[:64])
PY
export TMPDIR="$d/tmp"
K="--kallsyms tests/golden/fold/kallsyms"
CAP=testdata/demo.perf.data
left() {
	if [ -n "$(ls -A "$d/tmp")" ]; then
		echo "left in TMPDIR:"
		ls -A "$d/tmp"
	fi
}
# the cache's place, either one (annotate names the file it read; an
# archive is extracted into a numbered tree of the run's directory)
cache() { sed -e "s|$d/cache|CACHE|g" \
	-e "s|$d/tmp/pdtool-archive\.[A-Za-z0-9]*/[0-9]*|CACHE|g" "$1"; }
same() { # what, then the command's argv: its output and the reference's
	what=$1
	shift
	"$@" >"$d/out" 2>"$d/err"
	echo "$what: exit $?"
	sed "s|$d|D|g" "$d/err"
	cache "$d/out" >"$d/out.n"
	cache "$d/ref" >"$d/ref.n"
	cmp -s "$d/out.n" "$d/ref.n" && echo "$what: as with the extracted cache"
	left
}
# the reference: the cache as a directory; demo's names resolved
"$PDTOOL" fold --symfs "$d/root" --buildid-dir "$d/cache" $K $CAP \
	>"$d/ref" 2>/dev/null
grep -c 'hash_block' "$d/ref"
for f in a.tar.bz2 a.tar.xz a.tar.gz a.tar all.tar.bz2; do
	same "--archive $f" "$PDTOOL" fold --symfs "$d/root" \
		--archive "$d/$f" $K $CAP
done
same "--buildid-dir a.tar.bz2" "$PDTOOL" fold --symfs "$d/root" \
	--buildid-dir "$d/a.tar.bz2" $K $CAP
# from a pipe, as --archive <(ssh host cat perf.data.tar.bz2) gives it
mkfifo "$d/fifo"
cat "$d/a.tar.xz" >"$d/fifo" &
same "--archive FIFO" "$PDTOOL" fold --symfs "$d/root" --archive "$d/fifo" \
	$K $CAP
wait
# the other commands that resolve symbols
"$PDTOOL" flame --symfs "$d/root" --buildid-dir "$d/cache" $K $CAP \
	-o "$d/ref" 2>/dev/null
same "flame --archive" "$PDTOOL" flame --symfs "$d/root" \
	--archive "$d/a.tar.bz2" $K -o "$d/out" $CAP
"$PDTOOL" diff --symfs "$d/root" --buildid-dir "$d/cache" $K $CAP $CAP \
	>"$d/ref" 2>/dev/null
same "diff --archive" "$PDTOOL" diff --symfs "$d/root" \
	--archive "$d/a.tar.bz2" $K $CAP $CAP
"$PDTOOL" annotate --symfs "$d/root" --buildid-dir "$d/cache" $K $CAP \
	>"$d/ref" 2>/dev/null
same "annotate --archive" "$PDTOOL" annotate --symfs "$d/root" \
	--archive "$d/a.tar.bz2" $K $CAP
# what is not a perf archive tarball
run() {
	"$PDTOOL" fold --symfs "$d/root" "$@" $CAP >/dev/null 2>"$d/err"
	echo "exit $?"
	sed "s|$d|D|g" "$d/err"
	left
}
run --archive "$d/cache"
run --archive "$d/a.tar.bz2" --buildid-dir "$d/cache"
run --archive testdata/demo.md
run --buildid-dir testdata/demo.md
run --archive "$d/a.tar.zst"
run --archive "$d/other.tar.bz2"
run --archive "$d/missing.tar.bz2"
