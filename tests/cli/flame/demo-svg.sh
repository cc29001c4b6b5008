# The SVG of perf's folded stacks of testdata/demo (inputs/regen.sh), with the
# default options: byte for byte, so any change to the output shows.
"$PDTOOL" flame tests/cli/flame/inputs/demo.folded
