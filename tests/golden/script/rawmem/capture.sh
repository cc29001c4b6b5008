#!/bin/sh
# capture.sh OUT - the raw memory event's capture regen.sh and
# tests/cli/script/rawmem.test read: pd_arch_synth.py --mem --raw with
# testdata/dtcall-mem-aarch64.samples (the samples of
# testdata/dtcall-mem-aarch64.perf.data, as testdata/dtypes.md makes
# it), run from the repository's top.
set -eu
cd testdata
# shellcheck disable=SC2046 # the sample specs are words
python3 ../tests/gen/pd_arch_synth.py --mem --raw bin/dtcall-aarch64 \
	/opt/pdtool/dtcall-aarch64 aarch64 "$1" \
	$(cat dtcall-mem-aarch64.samples)
