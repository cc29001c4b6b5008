# No stacks: a warning and an empty profile (exit 0).
"$PDTOOL" flame --format speedscope - </dev/null
