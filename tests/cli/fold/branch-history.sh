# pdtool fold --branch-history's options and messages: the path under a
# small --max-stack, --mispredicted-only and its count, flame through
# fold's options, the warnings (no branch stack; hardware that reports no
# prediction) and the usage errors.  branch-history.test checks the paths
# against perf.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
mkdir -p "$d/root/opt/pdtool" "$d/root/work/main/testdata/bin"
cp testdata/bin/loop-aarch64 "$d/root/opt/pdtool/"
cp testdata/bin/* "$d/root/work/main/testdata/bin/"
for n in loop-brbe demo-brs demo-intel; do
	zstd -q -d -o "$d/$n.data" testdata/branches/$n.perf.data.zst
done
# run CMD...: CMD with the temporary directory's name out of its messages
run()
{
	"$@" 2>"$d/err"
	rc=$?
	sed "s|$d|TMP|g" "$d/err" >&2
	return $rc
}
f="--symfs $d/root"
run $PDTOOL fold $f --branch-history --max-stack 2 "$d/demo-intel.data" | head -4
run $PDTOOL fold $f --branch-history --mispredicted-only --max-stack 3 "$d/loop-brbe.data" | head -4
run $PDTOOL flame $f --branch-history --mispredicted-only "$d/loop-brbe.data" -o "$d/f.svg"
echo "exit $?"; grep -q 'loop.c:' "$d/f.svg" && echo "the svg names source lines"
run $PDTOOL fold $f --branch-history --mispredicted-only "$d/demo-brs.data"; echo "exit $?"
run $PDTOOL fold $f --branch-history testdata/fp.perf.data >/dev/null; echo "exit $?"
$PDTOOL fold --mispredicted-only testdata/fp.perf.data; echo "exit $?"
$PDTOOL fold --from-script --branch-history testdata/fp.perf.data; echo "exit $?"
