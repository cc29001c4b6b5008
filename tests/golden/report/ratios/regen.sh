#!/bin/sh
# regen.sh - perf 6.1's view of the captures tests/cli/report/ratios.test
# checks pdtool's counter ratios on:
#
#   NAME.VARIANT.txt   perf --buildid-dir BID report --stdio OPTIONS of
#                      pd_stat_synth.py --sample NAME (the variants
#                      below), its closing tip cut
#   (and --pipe's stream of NAME read as the file, and --stray's
#   capture of a read capture as the file with a warning of 2 samples
#   with unknown ids: checked, not kept)
#   NAME.sums.json     each function's period of each event from perf
#                      script -F comm,period,event,ip,sym (sums.py sym)
#   corpus/PATH.sums.json
#                      each command's, for the corpus captures with
#                      several hardware events (sums.py comm)
#
# Run from the repository root with perf 6.1 (PERF) and the corpus
# (PD_CORPUS); fails when perf says anything on stderr but "unwind:
# target platform=arm64 is not supported" (this host cannot unwind
# aarch64 stacks, which these captures do not have): the captures must
# read without a warning.
set -u
. tests/golden/perf/lib.sh

OUT=tests/golden/report/ratios

pd_regen61_start
python3 tests/golden/fold/buildid_dir.py "$PD_TMP/bid" testdata/bin/demo \
	testdata/bin/loop-aarch64 >/dev/null || exit 2
fail=0

quiet()
{
	if grep -v '^unwind: target platform=arm64 is not supported$' "$1" |
		grep -q .; then
		echo "regen.sh: perf warns on $2:"
		cat "$1"
		fail=1
	fi
}

for name in $(python3 tests/gen/pd_stat_synth.py --list-sample); do
	bin=testdata/bin/demo
	case $name in n1-*) bin=testdata/bin/loop-aarch64 ;; esac
	f=$PD_TMP/$name.data
	python3 tests/gen/pd_stat_synth.py --sample "$name" "$bin" "$f" || exit 2
	grep -v '^#' "$OUT/variants" | while IFS='	' read -r v opts; do
		[ -n "$v" ] || continue
		# shellcheck disable=SC2086 # the options are words
		"$PERF" --buildid-dir "$PD_TMP/bid" report --stdio $opts \
			--kallsyms tests/golden/fold/kallsyms -i "$f" \
			>"$PD_TMP/out" 2>"$PD_TMP/err"
		quiet "$PD_TMP/err" "$name $v"
		python3 - "$PD_TMP/out" "$OUT/$name.$v.txt" <<'PYEOF'
import sys
lines = open(sys.argv[1]).read().split('\n')
if lines and lines[-1] == '':
    lines.pop()
if len(lines) >= 3 and lines[-3] == '#' and lines[-2].startswith('# (') and lines[-1] == '#':
    lines = lines[:-3]
open(sys.argv[2], 'w').write('\n'.join(lines) + '\n')
PYEOF
	done
	# the stream of the same (--pipe) reads as the file
	python3 tests/gen/pd_stat_synth.py --sample --pipe "$name" "$bin" \
		"$PD_TMP/pipe" || exit 2
	"$PERF" --buildid-dir "$PD_TMP/bid" report --stdio --sort sym \
		--kallsyms tests/golden/fold/kallsyms -i - <"$PD_TMP/pipe" \
		>"$PD_TMP/out" 2>"$PD_TMP/err"
	quiet "$PD_TMP/err" "$name pipe"
	if ! grep -v '^# (Tip' "$PD_TMP/out" | head -n -2 |
		cmp -s - "$OUT/$name.sym.txt"; then
		echo "regen.sh: perf reads $name's stream otherwise"
		fail=1
	fi
	# --stray's read values of no event's id: perf 6.1 leaves them
	# out (the same table) and says how many
	if python3 tests/gen/pd_stat_synth.py --sample --stray "$name" "$bin" \
		"$PD_TMP/stray" 2>/dev/null; then
		"$PERF" --buildid-dir "$PD_TMP/bid" report --stdio --sort sym \
			--kallsyms tests/golden/fold/kallsyms \
			-i "$PD_TMP/stray" >"$PD_TMP/out" 2>"$PD_TMP/err"
		if ! grep -v '^# (Tip' "$PD_TMP/out" | head -n -2 |
			cmp -s - "$OUT/$name.sym.txt" ||
			! grep -qx '2 samples with id not present in the header' \
				"$PD_TMP/err"; then
			echo "regen.sh: perf reads $name --stray otherwise"
			fail=1
		fi
	fi
	"$PERF" --buildid-dir "$PD_TMP/bid" script -F comm,period,event,ip,sym \
		--kallsyms tests/golden/fold/kallsyms -i "$f" \
		>"$PD_TMP/script" 2>"$PD_TMP/err"
	quiet "$PD_TMP/err" "$name script"
	python3 "$OUT/sums.py" sym <"$PD_TMP/script" >"$OUT/$name.sums.json" ||
		fail=1
done

pd_need_corpus
while read -r path; do
	mkdir -p "$OUT/corpus/$(dirname "$path")"
	"$PERF" script -F comm,period,event,ip,sym -i "$PD_CORPUS/$path" \
		>"$PD_TMP/script" 2>/dev/null
	python3 "$OUT/sums.py" comm <"$PD_TMP/script" \
		>"$OUT/corpus/$path.sums.json" || fail=1
done <"$OUT/corpus.list"
exit $fail
