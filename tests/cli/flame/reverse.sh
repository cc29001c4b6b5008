# --reverse: leaves become roots (speedscope, to see the stacks).
"$PDTOOL" flame --reverse --format speedscope tests/cli/flame/inputs/demo.folded
