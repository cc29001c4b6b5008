#!/bin/sh
# gen.sh - write the generated captures of testdata/script/: raw data
# perf script decodes itself, which this VM cannot record (no Intel PT,
# no BPF program writing perf events): ptsynth (Intel PT's synthesized
# PERF_TYPE_SYNTH events, the synth field) and bpfout (BPF output, the
# bpf-output field), by tests/gen/pd_rawout_gen.py (see ptsynth.md,
# bpfout.md).  The same bytes every time.  Afterwards:
# sh tests/golden/script/regen.sh script/ptsynth script/bpfout.
set -eu
cd "$(dirname "$0")"
GEN=../../tests/gen/pd_rawout_gen.py
python3 $GEN synth ptsynth.perf.data --seed 11
python3 $GEN bpf bpfout.perf.data --seed 11
