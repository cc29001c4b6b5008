# A function whose binary is not found (issue 13 item 6): annotate says
# why its samples have no symbol and, asked for the function, that it may
# be among them, exit 1 under --strict (perf 6.1's annotate prints "has no
# samples!" and exits 0).  An empty --symfs root is shown as ROOT.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
mkdir -p "$d/root" "$d/cache"
for strict in "" --strict; do
	"$PDTOOL" annotate $strict --symfs "$d/root" --buildid-dir "$d/cache" \
		--symbol hash_block testdata/demo.perf.data \
		>/dev/null 2>"$d/err"
	echo "exit $?"
	sed "s|$d|ROOT|g" "$d/err"
done
