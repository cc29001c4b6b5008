# pdtool report --format md: the profile report of testdata captures, as
# written: frame-pointer stacks with C++ names and source lines (fp), three
# events (multi), an Intel LBR capture's branch hotspots (demo-intel), an
# aarch64 capture with a synthetic Neoverse V1 stat capture (topdown and
# cache sections, Arm validation lines) and a capture with lost samples
# (coverage); then --format json of one, and the usage errors.  doc.test
# holds the numbers to report's, stat's and branches'.  Run in a
# directory of its own, with testdata linked, so the paths are the same
# wherever it runs.
K="--kallsyms $PWD/tests/golden/fold/kallsyms"
# multi was recorded on another kernel: its own kallsyms names its frames
KM="--kallsyms $PWD/tests/golden/fold/kallsyms.6.18.44-fc-v595"
top=$PWD
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cd "$d" || exit 2
ln -s "$top/testdata" testdata
export HOME=/nonexistent
# the captures' vdso (run.sh's cache, but at a path the messages can name)
python3 "$top/tests/golden/fold/buildid_dir.py" debug testdata/vdso/*/* ||
	exit 2
export PERF_BUILDID_DIR=debug
zstd -q -d -o intel.data testdata/branches/demo-intel.perf.data.zst
zstd -q -d -o lost.data testdata/lost.perf.data.zst
python3 "$top/tests/gen/pd_stat_synth.py" v1-cpu v1.data
show()
{
	echo "== $*"
	cat "$1/report.md" 2>/dev/null || cat "$1/report.json"
	test -s "$1/flame.svg" && echo "(flame.svg written)"
}
$PDTOOL report $K --format md -o fp testdata/fp.perf.data
echo "exit $?"
show fp
$PDTOOL report $KM --format md --top 3 -o multi testdata/multi.perf.data
echo "exit $?"
show multi
$PDTOOL report $K --format md --top 5 -o intel intel.data
echo "exit $?"
show intel
$PDTOOL report $K --format md --stat v1.data -o arm testdata/loop-aarch64.perf.data
echo "exit $?"
show arm
$PDTOOL report $K --format md --top 5 -o lost lost.data
echo "exit $?"
show lost
$PDTOOL report $K --format json --top 2 -o json testdata/fp.perf.data
echo "exit $?"
show json
# without -o DIR, md is the tables on standard output; --top asks for
# the profile report, which needs the directory
$PDTOOL report --format md --top 3 testdata/fp.perf.data
echo "exit $?"
$PDTOOL report --format md -s sym -o x testdata/fp.perf.data
echo "exit $?"
$PDTOOL report --stat v1.data testdata/fp.perf.data
echo "exit $?"
$PDTOOL report --format html -o x testdata/fp.perf.data
echo "exit $?"
