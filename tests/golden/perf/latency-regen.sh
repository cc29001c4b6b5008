#!/bin/sh
# latency-regen.sh - the parallelism goldens of the captures with switch
# records, from perf 6.1's own records (latency.py --by parallelism):
# NAME.parallelism, perf >= 6.15's report -s parallelism rows.  (The
# NAME.latency goldens come from latency.py too, but name symbols: they
# need the testdata binaries at the paths the captures were recorded
# at.)  And phasescg.children: latency.py --children on the capture with
# callchains, perf >= 6.15's report --latency --children -s sym columns.
# Run from the top of the tree; needs perf (make check does not).
set -eu
for name in phases switch; do
	python3 tests/golden/perf/latency.py --by parallelism \
		"testdata/$name.perf.data" \
		>"tests/golden/perf/testdata/$name.parallelism"
done
python3 tests/golden/perf/latency.py --children testdata/phasescg.perf.data \
	>tests/golden/perf/testdata/phasescg.children
