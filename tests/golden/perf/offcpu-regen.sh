#!/bin/sh
# offcpu-regen.sh - the off-CPU goldens of testdata/offcpu.perf.data, from
# perf 6.1's own records (offcpu.py): offcpu.offcpu (fold --off-cpu's
# lines) and offcpu.wall (fold --wall-clock's).  perf names the symbols
# from the binary at the path the capture was recorded at
# (testdata/bin/offcpu of the checkout it was recorded in).  Run from the
# top of the tree; needs perf (make check does not).
set -eu
python3 tests/golden/perf/offcpu.py testdata/offcpu.perf.data \
	>tests/golden/perf/testdata/offcpu.offcpu
python3 tests/golden/perf/offcpu.py --wall-clock testdata/offcpu.perf.data \
	>tests/golden/perf/testdata/offcpu.wall
