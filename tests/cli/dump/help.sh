# dump --help is help dump: the usage, summary and options.
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$PDTOOL" dump --help | tee "$tmp/a"
"$PDTOOL" help dump > "$tmp/b"
cmp "$tmp/a" "$tmp/b" && echo "help dump: the same"
