# lines that are not "stack count" are ignored with a warning; --strict
# makes that exit 1
in=tests/cli/diff/inputs
"$PDTOOL" diff --folded $in/ignored.folded $in/after.folded; echo "exit $?"
"$PDTOOL" diff --folded --strict $in/ignored.folded $in/after.folded >/dev/null; echo "exit $?"
