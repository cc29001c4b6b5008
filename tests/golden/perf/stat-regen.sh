#!/bin/sh
# stat-regen.sh - rewrite perf 6.1's `perf stat report` output for every
# perf stat record capture pdtool stat is checked against.
#
#	sh tests/golden/perf/stat-regen.sh
#
# The captures: testdata's (recorded here with software events by
# testdata/record.sh) and those tests/gen/pd_stat_synth.py writes with
# hardware events (Arm Neoverse N1/V1, Intel, AMD; multiplexed, per CPU,
# per socket, intervals).  For each capture and aggregation option,
# tests/golden/perf/stat/NAME[.OPT].txt is what `perf stat report [OPT]
# -i FILE` prints (on stderr: perf stat writes there), and LIST names
# them: "GOLDEN CAPTURE [OPTION]", CAPTURE a testdata path or
# synth:NAME.  Any warning or error perf prints stops the run: every
# capture must be one perf 6.1 reads as it is.  tests/cli/stat/perf.test
# compares pdtool stat with these files, without perf; SAMPLED (below)
# does the same for sampling captures.  Needs perf 6.1
# and python3; run from anywhere.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh

OUT=tests/golden/perf/stat
pd_regen61_start
mkdir -p "$OUT"
rm -f "$OUT"/*.txt "$OUT/LIST"

# golden NAME CAPTURE FILE [OPTION]
golden()
{
	name=$1 cap=$2 file=$3 opt=${4:-}
	gold=$OUT/$name${opt:+.${opt#--}}.txt
	# shellcheck disable=SC2086
	"$PERF" stat report $opt -i "$file" >"$PD_TMP/out" 2>"$gold"
	rc=$?
	if [ $rc != 0 ] || grep -Eiq 'warning|error|fail|invalid' "$gold" ||
		[ -s "$PD_TMP/out" ]; then
		echo "stat-regen.sh: perf stat report $opt -i $cap: exit $rc:" >&2
		grep -Ei 'warning|error|fail|invalid' "$gold" >&2
		exit 1
	fi
	echo "$(basename "$gold") $cap${opt:+ $opt}" >>"$OUT/LIST"
}

for f in testdata/statrec.perf.data testdata/stat-*.perf.data; do
	name=$(basename "$f" .perf.data)
	golden "$name" "$f" "$f"
done
for opt in --per-socket --per-die --per-core --per-node; do
	golden stat-cpu testdata/stat-cpu.perf.data \
		testdata/stat-cpu.perf.data "$opt"
	golden stat-cpu-interval testdata/stat-cpu-interval.perf.data \
		testdata/stat-cpu-interval.perf.data "$opt"
done

for name in $(python3 tests/gen/pd_stat_synth.py --list); do
	python3 tests/gen/pd_stat_synth.py "$name" "$PD_TMP/$name.data" ||
		exit 1
	golden "synth-$name" "synth:$name" "$PD_TMP/$name.data"
done
# other aggregations of captures of more CPUs than this host has (-A
# would print per CPU: perf 6.1 then omits the CPU numbers this host
# lacks, pdtool-stat(1) DIFFERENCES FROM PERF)
for opt in --per-socket --per-core --per-node; do
	golden synth-n1-global synth:n1-global "$PD_TMP/n1-global.data" "$opt"
	golden synth-intel-socket synth:intel-socket \
		"$PD_TMP/intel-socket.data" "$opt"
done
golden synth-v1-cpu synth:v1-cpu "$PD_TMP/v1-cpu.data" --per-core

# sampling captures: each event's samples and period total as perf
# report's header says them ("# Samples: N  of event 'E'", "# Event
# count (approx.): C"), for pdtool stat's estimates from samples;
# tests/cli/stat/sampled.test compares them.  SAMPLED lists them as LIST.
rm -f "$OUT"/sampled-*.txt "$OUT/SAMPLED"
# report CAPTURE FILE [OPTION...]: perf report --stdio's output of FILE
# into $PD_TMP/out; any warning or error stops the run
report()
{
	cap=$1 file=$2
	shift 2
	"$PERF" report --stdio "$@" -i "$file" >"$PD_TMP/out" 2>"$PD_TMP/err"
	rc=$?
	if [ $rc != 0 ] || grep -Eiq 'warning|error|fail|invalid' \
		"$PD_TMP/err"; then
		echo "stat-regen.sh: perf report $* -i $cap: exit $rc:" >&2
		cat "$PD_TMP/err" >&2
		exit 1
	fi
}
# sampled NAME CAPTURE FILE
sampled()
{
	gold=$OUT/sampled-$1.txt
	report "$2" "$3" --sort dso
	grep -E "^# (Samples|Event count)" "$PD_TMP/out" >"$gold"
	echo "$(basename "$gold") $2" >>"$OUT/SAMPLED"
}
for f in testdata/multi.perf.data testdata/fp.perf.data \
	testdata/threads.perf.data; do
	sampled "$(basename "$f" .perf.data)" "$f" "$f"
done
for name in $(python3 tests/gen/pd_stat_synth.py --list-sampled); do
	python3 tests/gen/pd_stat_synth.py "$name" "$PD_TMP/$name.data" ||
		exit 1
	sampled "synth-$name" "synth:$name" "$PD_TMP/$name.data"
done

# sampling captures per CPU and per thread: each event's samples and
# period sum per CPU (perf report --sort cpu, where the samples carry
# their CPU) and per thread (--sort pid: "tid:comm"), as
# "cpu|pid EVENT KEY SAMPLES PERIOD" lines in aggr-NAME.txt, for pdtool
# stat -A and --per-thread (tests/cli/stat/sampledaggr.test); AGGR lists
# them as SAMPLED does, the corpus's as corpus:PATH (under
# /work/shared/corpus or $PD_CORPUS).
rm -f "$OUT"/aggr-*.txt "$OUT/AGGR"
CORPUS=${PD_CORPUS:-/work/shared/corpus}
# aggr NAME CAPTURE FILE
aggr()
{
	gold=$OUT/aggr-$1.txt
	: >"$gold"
	keys=pid
	"$PERF" evlist -v -i "$3" 2>/dev/null | grep -q 'sample_type:.*|CPU' &&
		keys="cpu pid"
	for key in $keys; do
		report "$2" "$3" --no-group --sort "$key" \
			-F "$key,sample,period" -g none
		python3 - "$key" "$PD_TMP/out" >>"$gold" <<'PY' || exit 1
import re, sys
key, ev = sys.argv[1], None
row = re.compile(r"\s*(\d+)" + (":.*?" if key == "pid" else "") +
                 r"\s+(\d+)\s+(\d+)\s*$")
for line in open(sys.argv[2]):
    m = re.match(r"# Samples: \S+\s+of events? '(.*)'$", line)
    if m:
        ev = m.group(1)
        continue
    # "  000   39   78156312" or "  10892:demo   39   78156312"
    m = None if line.startswith("#") else row.match(line)
    if m and ev is not None:
        print(key, ev.replace(" ", "_"), int(m.group(1)), m.group(2),
              m.group(3))
PY
	done
	echo "$(basename "$gold") $2" >>"$OUT/AGGR"
}
for f in testdata/multi.perf.data testdata/fp.perf.data \
	testdata/group.perf.data; do
	aggr "$(basename "$f" .perf.data)" "$f" "$f"
done
for name in v1-group intel-sampled x86-default; do
	python3 tests/gen/pd_stat_synth.py "$name" "$PD_TMP/$name.data" ||
		exit 1
	aggr "synth-$name" "synth:$name" "$PD_TMP/$name.data"
done
for f in quipper/perf.data.systemwide.1-3.4 quipper/perf.data.busy.1-3.8 \
	quipper/perf.data.forkexit-3.4 quipper/perf.data.singleprocess-3.4 \
	quipper/perf.data.lost_samples-4.4; do
	[ -f "$CORPUS/$f" ] || continue
	aggr "$(basename "$f")" "corpus:$f" "$CORPUS/$f"
done
echo "stat-regen.sh: $(wc -l <"$OUT/LIST") goldens in $OUT" >&2
