# Counts with decimals (flamegraph.pl's "a;b 1.5", which pdtool flame
# draws) are refused by name: diff's tests take whole sample counts.
f="${TMPDIR:-/tmp}/pdtool-diff-frac.$$"
printf 'a;b 1.5\na;c 1\n' >"$f"
{ $PDTOOL diff "$f" tests/cli/diff/inputs/after.folded 2>&1; echo "exit $?"; } |
	sed "s|$f|FRAC|"
rm -f "$f"
