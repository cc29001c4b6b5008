# A SAMPLE whose callchain count does not fit its record (testdata/fp with
# the nr of the sample at 0x5b8, at offset 1504, set to 2^64-1): it is
# printed with the reason and the dump goes on; --count counts it; exit 0,
# or 1 with --strict.
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cp testdata/fp.perf.data "$tmp/bad.data"
chmod u+w "$tmp/bad.data"
printf '\377\377\377\377\377\377\377\377' |
	dd of="$tmp/bad.data" bs=1 seek=1504 conv=notrunc 2>/dev/null
cd "$tmp" || exit 2
"$PDTOOL" dump bad.data | sed -n '15,17p'
"$PDTOOL" dump --json bad.data | sed -n '16p'
"$PDTOOL" dump --count --strict bad.data
echo "exit $?"
