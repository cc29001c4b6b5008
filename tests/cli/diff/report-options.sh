# the report's options: Markdown, --top, --min-delta, --significant,
# --scale none and SYMBOL, --no-normalize-names, several inputs a side
in=tests/cli/diff/inputs
"$PDTOOL" diff --format markdown --top 3 $in/before.folded $in/after.folded
"$PDTOOL" diff --min-delta 5 --significant --scale none $in/before.folded $in/after.folded
"$PDTOOL" diff --scale parse --no-normalize-names --top 4 $in/before.folded $in/after.folded
"$PDTOOL" diff --top 3 --alpha 0.01 $in/before.folded $in/before2.folded -- $in/after.folded $in/after2.folded
