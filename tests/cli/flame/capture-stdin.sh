# A pipe-mode stream on standard input: recognised by its first bytes,
# which are then handed to fold with the rest.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
python3 tests/golden/fold/buildid_dir.py "$d" testdata/bin/*
"$PDTOOL" flame --format speedscope --kallsyms tests/golden/fold/kallsyms \
	--buildid-dir "$d" - <testdata/pipe.perf.data
