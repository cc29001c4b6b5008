# A record type this version does not know (the FINISHED_ROUND at 0x6a8 of
# testdata/fp turned into type 99): printed with its type number, offset
# and size, skipped by its size, not an error.
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cp testdata/fp.perf.data "$tmp/unknown.data"
chmod u+w "$tmp/unknown.data"
printf 'c' | dd of="$tmp/unknown.data" bs=1 seek=1704 conv=notrunc 2>/dev/null
cd "$tmp" || exit 2
"$PDTOOL" dump unknown.data | sed -n '18,20p'
"$PDTOOL" dump --json unknown.data | sed -n '19p'
"$PDTOOL" dump --count --strict unknown.data | grep UNKNOWN
echo "exit $?"
