# A capture is folded as `pdtool fold --kernel` folds it (its coverage
# line on stderr), then drawn: speedscope, to read the stacks.  Symbols
# from testdata/bin by build-id and a kallsyms file, as tests/cli/fold
# does, so the output does not depend on this host.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
python3 tests/golden/fold/buildid_dir.py "$d" testdata/bin/* testdata/vdso/*/*
"$PDTOOL" flame --format speedscope --kallsyms tests/golden/fold/kallsyms \
	--buildid-dir "$d" testdata/demo.perf.data
