# the report of two hand-made folded profiles: clones and a Rust hash
# matched, a new function, a parent whose callee grew
in=tests/cli/diff/inputs
"$PDTOOL" diff $in/before.folded $in/after.folded
