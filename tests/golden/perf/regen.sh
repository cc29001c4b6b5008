#!/bin/sh
# regen.sh - rewrite perf 6.1's golden view of every capture.
#
#	sh tests/golden/perf/regen.sh [NAME|CORPUS_PATH...]
#
# For each testdata capture (testdata/NAME.perf.data[.zst], or the
# directory of perf record --threads) and each capture in ../shared/corpus
# that MANIFEST.md says perf 6.1 reads ("yes" or "partly" in its last
# column) or only refuses for its attr size, writes under
# tests/golden/perf/:
#
#   testdata/NAME.stats, corpus/PATH.stats
#	perf report --stats, "TYPE count" per record type (perf's names)
#   testdata/NAME.samples, corpus/PATH.samples
#	one line per sample, in file order: pid tid time cpu period ip nr
#	(nr = raw callchain length), from perf's raw dump
#
# Where perf 6.1 cannot read a capture as it is, it reads a converted copy
# and the goldens say so in their first line: attrshrink.py cuts attrs
# written by perf >= 6.3 (136 bytes) to the 128 bytes perf 6.1 knows when
# the extra bytes are zero, comp2to1.py rewrites COMPRESSED2 chunks (perf
# 6.16) as COMPRESSED ones; neither touches another record.
#
# A golden over 32 KiB is stored zstd-compressed (NAME.samples.zst).  A
# "# partial: ..." line says perf stopped early and why; the differential
# tests (tests/cli/diff/) then compare what perf did read.  Arguments
# restrict the run to those captures.  Needs perf 6.1 (the oracle), python3
# and zstd; run from anywhere.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh

GOLD=tests/golden/perf
BIG=32768
# no symbol loading: the goldens must not depend on this host's binaries
# or kallsyms, and perf is much faster without
NOSYM="--symfs /nonexistent"
STOPPED="unexpected end of event stream|failed to process (type|sample)|bad event header size|Couldn't decompress"

pd_regen61_start

wanted()
{
	[ $# -eq 0 ] && return 0
	for w; do [ "$w" = "$cur" ] && return 0; done
	return 1
}

# golden FILE OUT: write OUT.stats and OUT.samples[.zst] for capture FILE.
golden()
{
	file=$1 out=$2 t=$PD_TMP/run
	mkdir -p "$(dirname "$out")"
	rm -f "$out.stats" "$out.samples" "$out.samples.zst"

	"$PERF" report -f --stats $NOSYM -i "$file" >"$t.report" 2>"$t.rerr"
	rc=$?
	# perf report exits 0 even where it stopped reading; these messages
	# say it did, and its counts then cover only part of the file
	if grep -Eq "$STOPPED" "$t.rerr"; then
		why=$(grep -E "$STOPPED" "$t.rerr" | head -n 1)
		echo "# partial: perf report --stats stopped early" \
			"(exit $rc: $why)" >"$out.stats"
		if grep -q '^Aggregated stats' "$t.report"; then
			python3 $GOLD/perfgolden.py stats "$t.report" \
				>>"$out.stats" || return 1
		fi
	elif grep -q '^Aggregated stats' "$t.report"; then
		python3 $GOLD/perfgolden.py stats "$t.report" >"$out.stats" ||
			return 1
	else
		why=$(grep -v '^Error:$' "$t.rerr" | grep . | tail -n 1)
		echo "# partial: perf report --stats printed no stats" \
			"(exit $rc: $why)" >"$out.stats"
	fi

	"$PERF" evlist -v -f -i "$file" >"$t.evlist" 2>"$t.eerr"
	"$PERF" script -f $NOSYM --dump-unsorted-raw-trace -F event \
		-i "$file" >"$t.dump" 2>"$t.serr"
	rc=$?
	status=
	if [ $rc != 0 ]; then
		why=$(grep . "$t.serr" | tail -n 1)
		status="perf script --dump-unsorted-raw-trace exited $rc: $why"
	fi
	python3 $GOLD/perfgolden.py samples "$t.evlist" "$t.dump" \
		"$status" >"$out.samples" || return 1
	if [ "$(wc -c <"$out.samples")" -gt $BIG ]; then
		zstd -q -19 --rm -f "$out.samples" -o "$out.samples.zst"
	fi
	printf '%-60s %6s samples%s\n' "$out" \
		"$( { cat "$out.samples" 2>/dev/null ||
		   zstd -q -d -c "$out.samples.zst"; } | grep -c '^[^#]')" \
		"${status:+ (partial)}"
}

# convert NAME IN OUT: run NAME.py to make OUT, a copy of IN perf 6.1
# reads; no OUT when NAME does not apply to IN (exit 3, said here);
# fails on an error.
convert()
{
	rm -f "$3"
	python3 "$GOLD/$1.py" "$2" "$3" >"$PD_TMP/$1.out" 2>"$PD_TMP/convert.err"
	case $? in
	0) ;;
	3) [ "$1" = comp2to1 ] || echo "${2#$PD_CORPUS/}: no golden:" \
		"$(cat "$PD_TMP/convert.err")"
	   rm -f "$3" ;;
	*) cat "$PD_TMP/convert.err" >&2; fail=1; return 1 ;;
	esac
}

# add_note OUT LINE: put LINE first in OUT's goldens.
add_note()
{
	for g in "$1.stats" "$1.samples"; do
		[ -f "$g" ] || continue
		{ echo "$2"; cat "$g"; } >"$PD_TMP/g" && cp "$PD_TMP/g" "$g"
	done
	if [ -f "$1.samples.zst" ]; then
		zstd -q -d -c "$1.samples.zst" | { echo "$2"; cat; } |
			zstd -q -19 -f -o "$PD_TMP/g.zst" &&
			cp "$PD_TMP/g.zst" "$1.samples.zst"
	fi
}

fail=0
for cur in $(pd_captures); do
	wanted "$@" || continue
	f=$(pd_capture "$cur") || { fail=1; continue; }
	golden "$f" "$GOLD/testdata/$cur" || fail=1
done

if pd_have_corpus; then
	pd_corpus_captures >"$PD_TMP/corpus.list"
	while read -r cur verdict; do
		wanted "$@" || continue
		src=$PD_CORPUS/$cur
		note=
		case $verdict in
		yes|partly) ;;
		*)	# perf 6.1 refuses it; if only for its attr size, it
			# reads a copy with the attrs cut to 128 bytes
			convert attrshrink "$src" "$PD_TMP/shrunk" || continue
			if [ -f "$PD_TMP/shrunk" ]; then
				src=$PD_TMP/shrunk
				note="attrs cut to 128 bytes by attrshrink.py"
			else
				continue
			fi ;;
		esac
		convert comp2to1 "$src" "$PD_TMP/comp1" || continue
		if [ -f "$PD_TMP/comp1" ]; then
			src=$PD_TMP/comp1
			note="${note:+$note; }COMPRESSED2 rewritten as COMPRESSED by comp2to1.py"
		fi
		golden "$src" "$GOLD/corpus/$cur" </dev/null || fail=1
		if [ -f "$PD_TMP/comp1" ]; then
			# count the chunks as the file has them
			python3 $GOLD/perfgolden.py recount \
				"$GOLD/corpus/$cur.stats" $(cat "$PD_TMP/comp2to1.out") ||
				fail=1
		fi
		[ -n "$note" ] && add_note "$GOLD/corpus/$cur" \
			"# perf 6.1 read a copy: $note (records otherwise untouched)"
	done <"$PD_TMP/corpus.list"
else
	echo "regen.sh: no $PD_CORPUS: corpus goldens left as they are" >&2
fi
exit $fail
