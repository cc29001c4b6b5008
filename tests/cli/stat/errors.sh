# What pdtool stat refuses, with one line naming the file and why: a
# capture of samples among runs, a capture cut short inside its STAT records, a STAT
# of a CPU the CPU map does not hold, runs of different commands, a
# per-thread capture as a run, two aggregations, an unknown format,
# --per-thread of a capture not recorded so, -A of samples without
# their CPU, --cumulative of samples.  Captures of samples are runs of
# each other only (sampled.test).
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
cp testdata/stat-cpu.perf.data testdata/statrec.perf.data \
	testdata/stat-run1.perf.data testdata/stat-thread.perf.data \
	testdata/demo.perf.data "$d"
cd "$d" || exit 2
"$PDTOOL" stat demo.perf.data statrec.perf.data; echo "samples first: exit $?"
"$PDTOOL" stat statrec.perf.data demo.perf.data; echo "samples as a run: exit $?"
head -c 1000 stat-cpu.perf.data >cut.data
"$PDTOOL" stat cut.data; echo "cut: exit $?"
# the first STAT record (at 0x3c0, testdata/stat-cpu.md) said for CPU 7
python3 -c '
import sys
b = bytearray(open("stat-cpu.perf.data", "rb").read())
b[0x3c0 + 16] = 7
open("cpu7.data", "wb").write(b)'
"$PDTOOL" stat cpu7.data; echo "cpu 7: exit $?"
"$PDTOOL" stat statrec.perf.data stat-run1.perf.data; echo "other command: exit $?"
"$PDTOOL" stat stat-thread.perf.data stat-thread.perf.data
echo "per-thread runs: exit $?"
"$PDTOOL" stat -A --per-core stat-cpu.perf.data; echo "two: exit $?"
"$PDTOOL" stat --per-socket statrec.perf.data >/dev/null
echo "task capture per socket: exit $?"
"$PDTOOL" stat --strict --per-socket statrec.perf.data >/dev/null
echo "the same, --strict: exit $?"
"$PDTOOL" stat --strict --per-thread stat-cpu.perf.data >/dev/null
echo "per-thread of a per-CPU capture, --strict: exit $?"
"$PDTOOL" stat -A demo.perf.data; echo "samples without CPU, -A: exit $?"
"$PDTOOL" stat --cumulative demo.perf.data; echo "samples, --cumulative: exit $?"
"$PDTOOL" stat --format csv statrec.perf.data; echo "csv: exit $?"
