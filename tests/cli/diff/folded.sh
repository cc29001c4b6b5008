# difffolded.pl's format, scaled (default) and raw
in=tests/cli/diff/inputs
"$PDTOOL" diff --folded $in/before.folded $in/after.folded
"$PDTOOL" diff --folded --scale none --no-comm $in/before.folded $in/after.folded
