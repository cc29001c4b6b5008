# Captures pdtool reads no samples from (issue 13 #10): an Intel PT trace
# with no samples (tests/gen/pd_aux_synth.py) and a `perf stat record`
# capture.  fold, flame, diff and annotate say what the capture holds and
# what reads it, and exit 2 instead of folding "0 samples" with exit 0;
# diff of a profile and a stat capture is a usage error (64) saying so.
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
python3 tests/gen/pd_aux_synth.py "$d/pt.data" || exit 2
cp testdata/statrec.perf.data "$d/stat.data"
cp testdata/demo.perf.data "$d/demo.data"
cd "$d" || exit 2
for f in pt.data stat.data; do
	"$PDTOOL" fold "$f"; echo "fold: exit $?"
	"$PDTOOL" flame -o out.svg "$f"; echo "flame: exit $?"
	"$PDTOOL" diff demo.data "$f" >/dev/null 2>err; echo "diff: exit $?"
	grep -v '^usage:' err | tail -n 1 >&2
	"$PDTOOL" annotate "$f"; echo "annotate: exit $?"
done
