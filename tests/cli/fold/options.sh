# pdtool fold's root and frame options on the demo capture (recorded here,
# binaries in testdata/bin found by build-id); the stacks are perf's.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
python3 tests/golden/fold/buildid_dir.py "$d" testdata/bin/* testdata/vdso/*/*
f="--kallsyms tests/golden/fold/kallsyms --buildid-dir $d"
$PDTOOL fold $f --pid --tid testdata/demo.perf.data
$PDTOOL fold $f --tid --symbol '^sum_squares$' testdata/demo.perf.data
$PDTOOL fold $f --no-comm --weight period --max-stack 2 testdata/demo.perf.data
# multi with the kallsyms of the kernel it was recorded on
$PDTOOL fold --kallsyms tests/golden/fold/kallsyms.6.18.44-fc-v595 --buildid-dir $d --kernel --event cpu-clock --comm '^demo$' --time 3606.3,3606.4 testdata/multi.perf.data
$PDTOOL fold $f --kernel --dso 'libc' testdata/threads.perf.data
$PDTOOL fold $f --inline --srcline --max-stack 2 testdata/fp.perf.data
