# speedscope's JSON of the mixed stacks, read from standard input.
"$PDTOOL" flame --format speedscope - <tests/cli/flame/inputs/mixed.folded
