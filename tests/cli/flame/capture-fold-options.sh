# pdtool fold's options pass through for a capture: one event, one comm,
# "comm-PID" roots, stacks cut to 4 frames from the leaf.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
python3 tests/golden/fold/buildid_dir.py "$d" testdata/bin/* testdata/vdso/*/*
"$PDTOOL" flame --format speedscope --kallsyms tests/golden/fold/kallsyms.6.18.44-fc-v595 \
	--buildid-dir "$d" --event cpu-clock --comm '^demo$' --pid \
	--max-stack 4 testdata/multi.perf.data
