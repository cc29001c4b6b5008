# pdtool's data-type attribution of every sampled instruction of the
# real aarch64 captures (testdata/arm64.md; recorded by perf 6.1 in an
# arm64 guest, whose perf leaves them all (unknown)): report -s
# dso,symoff,typeoff per instruction, and types' tables; held here,
# each row checked against the binaries' DWARF, CFI and source by
# tests/cli/types/arm64.test.
A="--symfs testdata/arm64/sysroot --buildid-dir testdata/arm64/buildid"
for f in testdata/arm64/plain.perf.data testdata/arm64/cfp.perf.data \
	testdata/arm64/fp.perf.data.zst testdata/arm64/dwarf.perf.data.zst; do
	echo "== $f"
	$PDTOOL report $A -g none -n -s dso,symoff,typeoff --format csv "$f" 2>/dev/null |
		grep -v '"(unknown)"$'
	$PDTOOL types $A --format csv "$f" 2>&1 | grep -v "^pdtool types:  "
done
