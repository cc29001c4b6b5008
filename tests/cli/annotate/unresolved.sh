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
# --format json holds the same as data
"$PDTOOL" annotate --format json --symfs "$d/root" --buildid-dir "$d/cache" \
	testdata/demo.perf.data 2>/dev/null |
	python3 -c 'import json, sys
u = json.load(sys.stdin)["unresolved"]
print(json.dumps(u, indent=1).replace(sys.argv[1], "ROOT"))' "$d"
