# -v: each derived metric's formula and the counts it was computed from,
# under its line, for the synthetic Neoverse N1 (cycle-based), N2 (slot-
# based TopdownL1, the slots from the capture's PMU_CAPS), Intel topdown
# and AMD PipelineL1 captures (tests/gen/pd_stat_synth.py; metrics.test
# holds their values to an independent computation).  Only pdtool's
# section: perf's part is perf.test's.
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
for name in n1-global n2-topdown intel-topdown amd-pipeline; do
	python3 tests/gen/pd_stat_synth.py "$name" "$d/$name.data" || exit 2
	echo "== $name"
	"$PDTOOL" stat -v "$d/$name.data" | sed -n '/^ pdtool metrics/,$p'
done
