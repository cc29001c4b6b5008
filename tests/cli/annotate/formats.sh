# pdtool annotate's formats on the C++ capture (its hot loop holds an
# inlined function) and the aarch64 one; the binaries are found by
# build-id in testdata/buildid, the sources under testdata/src through
# --prefix-map (demo and inline were built in /work/main, loop-aarch64 with
# -fdebug-prefix-map to /pdtool/testdata).
f="--buildid-dir testdata/buildid --prefix-map /work/main/testdata=testdata --prefix-map /pdtool/testdata=testdata"
$PDTOOL annotate --stdio $f testdata/fp.perf.data
$PDTOOL annotate --stdio $f --percent-type local-hits --hot-lines 2 -M intel testdata/fp.perf.data
$PDTOOL annotate --format md $f --symbol checksum testdata/loop-aarch64.perf.data
$PDTOOL annotate --format json $f --symbol fill testdata/loop-aarch64.perf.data
# multi.perf.data has a kernel sample: the recording kernel's kallsyms is
# given, so the result does not depend on the host's kernel.
$PDTOOL annotate --stdio $f --kallsyms tests/golden/fold/kallsyms.6.18.44-fc-v595 --no-source --event task-clock --top 1 testdata/multi.perf.data
$PDTOOL annotate --stdio --buildid-dir testdata/buildid --source-dir testdata/src --dso loop-aarch64 --percent-limit 10 testdata/loop-aarch64.perf.data
