#!/bin/sh
# keys-regen.sh - perf 6.1's `perf report --stdio` tables of the sort
# keys of PERF_SAMPLE_TRANSACTION, CODE_PAGE_SIZE and DATA_PAGE_SIZE
# (transaction, code_page_size, data_page_size), with time, socket,
# addr, dcacheline and symbol_iaddr beside them, of the cgroup key
# (PERF_SAMPLE_CGROUP and PERF_RECORD_CGROUP), of the cgroup_id key
# (PERF_RECORD_NAMESPACES: pd_cgid_gen.py's capture and testdata/cgns)
# and of the trace key (testdata/sched/tpmix and tpkmem), the oracle of
# tests/cli/report/genkeys.test:
#
#	sh tests/golden/perf/keys-regen.sh
#
# The captures are the ones tests/gen/pd_keys_gen.py, pd_cgroup_gen.py
# and pd_cgid_gen.py write (no testdata capture samples these fields;
# the test writes them again); for each line "VARIANT<TAB>OPTIONS" of
# tests/golden/perf/keys/variants (cgroup.variants, cgid.variants,
# cgns.variants for testdata/cgns; trace.variants for each tracepoint
# capture), writes keys/keysgen.VARIANT.txt (cgroupgen.VARIANT.txt,
# cgidgen.VARIANT.txt, cgns.VARIANT.txt; tpmix.VARIANT.txt,
# tpkmem.VARIANT.txt) from
#
#	perf report --stdio [-g none] OPTIONS -i keysgen.perf.data
#
# perf's closing tip is cut (cuttip.py).  Needs perf 6.1 and python3;
# make check does not.
set -eu
cd "$(dirname "$0")/../../.."
. tests/golden/perf/lib.sh
G=tests/golden/perf/keys
pd_regen61_start
# NAME CAPTURE VARIANTS: perf's tables of CAPTURE, NAME.VARIANT.txt
# for each line of VARIANTS
regen() {
	grep -v '^#' "$3" | while IFS='	' read -r v opts; do
		[ -n "$v" ] || continue
		nog=-g
		case " $opts " in *" -g "*) nog= ;; esac
		# shellcheck disable=SC2086 # the options are words
		"$PERF" report -i "$2" --stdio $nog ${nog:+none} $opts \
			>"$PD_TMP/out" 2>/dev/null || true
		python3 tests/golden/perf/cuttip.py "$PD_TMP/out" "$G/$1.$v.txt"
	done
}
python3 tests/gen/pd_keys_gen.py "$PD_TMP/keysgen.perf.data"
python3 tests/gen/pd_cgroup_gen.py "$PD_TMP/cgroupgen.perf.data"
python3 tests/gen/pd_cgid_gen.py "$PD_TMP/cgidgen.perf.data"
regen keysgen "$PD_TMP/keysgen.perf.data" "$G/variants"
regen cgroupgen "$PD_TMP/cgroupgen.perf.data" "$G/cgroup.variants"
regen cgidgen "$PD_TMP/cgidgen.perf.data" "$G/cgid.variants"
regen cgns "$(pd_capture cgns)" "$G/cgns.variants"
for c in tpmix tpkmem; do
	regen $c "$(pd_capture sched/$c)" "$G/trace.variants"
done
"$PERF" version >"$G/PERF_VERSION"
