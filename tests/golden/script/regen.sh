#!/bin/sh
# regen.sh - perf 6.1's `perf script` text of every capture: the oracle
# of tests/cli/script/golden.test.
#
#	sh tests/golden/script/regen.sh [NAME|CORPUS_PATH...]
#
# Writes:
#
#   testdata/NAME.default.script[.zst]
#	perf --buildid-dir BID script --kallsyms $(pd_kallsyms NAME)
#	-i FILE, BID a build-id cache of testdata/bin alone
#	(tests/golden/fold/buildid_dir.py): the testdata binaries are found
#	by build-id wherever they were recorded, this host's other binaries
#	at their recorded paths, and no vdso (none is in BID), so that the
#	output depends on nothing of this host that pdtool cannot be given
#	elsewhere (tests/golden/perf/lib.sh pd_recorded_opts).
#   testdata/NAME.CASE.script[.zst]
#	the same with the options of each line of ./cases for NAME, NAME
#	also a capture of a subdirectory of testdata (branches/demo-intel:
#	the generated branch stacks of testdata/branches/), which gets no
#	default golden.
#   corpus/PATH.script.zst
#	perf --buildid-dir EMPTY script --kallsyms EMPTY --symfs SYSROOT
#	-i FILE, SYSROOT holding the capture's companion binaries at their
#	recorded paths as tests/golden/fold/corpus/PATH.symfs lists them,
#	for the corpus captures perf 6.1 reads as they are (MANIFEST.md's
#	"yes" and "partly").
#   corpus/PATH.CASE.script.zst
#	the same with the options of each line of ./cases for
#	"corpus:PATH".
#
# A golden's first lines may be "# " notes: "# dwarf: ..." when the
# capture's user stacks need DWARF unwinding (perf 6.1's unwinder stops
# where pdtool's goes on: the test judges that), "# lbr: ..." when perf
# stitches call stacks from an LBR, "# auxtrace: ..." when perf decodes
# samples from a hardware trace, "# trace: ..." for tracepoint samples
# (a note: pdtool script prints their fields as perf does), "# partial:
# ..." when perf stopped early, "# exit N: ..." when perf failed.  A golden over
# 32 KiB is stored zstd-compressed.  Needs perf 6.1, python3 and zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh

GOLD=tests/golden/script
BIG=32768
STOPPED="unexpected end of event stream|failed to process (type|sample)|bad event header size|Couldn't decompress"

pd_regen61_start
# the tod cases print local time: the same zone for perf and pdtool
TZ=UTC
export TZ
: >"$PD_TMP/empty"
mkdir -p "$PD_TMP/nobid"
python3 tests/golden/fold/buildid_dir.py "$PD_TMP/bid" testdata/bin/* \
	testdata/vdso/*/* ||
	exit 2

wanted()
{
	[ $# -eq 0 ] && return 0
	for w; do [ "$w" = "$cur" ] && return 0; done
	return 1
}

# run FILE OUT BUILDID-DIR PERF-SCRIPT-ARGS...: perf's text into OUT
run()
{
	file=$1 out=$2 bid=$3
	shift 3
	mkdir -p "$(dirname "$out")"
	rm -f "$out" "$out.zst"
	"$PERF" --buildid-dir "$bid" script "$@" -i "$file" \
		>"$PD_TMP/out" 2>"$PD_TMP/err" </dev/null
	rc=$?
	{
		"$PERF" evlist -v -i "$file" 2>/dev/null </dev/null \
			>"$PD_TMP/evlist"
		if grep -q STACK_USER "$PD_TMP/evlist"; then
			echo "# dwarf: user stacks need DWARF unwinding"
		fi
		if grep -q 'branch_sample_type: .*CALL_STACK' "$PD_TMP/evlist"
		then
			echo "# lbr: perf stitches call stacks from the branch stack"
		fi
		if grep -q 'type: 2,' "$PD_TMP/evlist"; then
			echo "# trace: tracepoint samples, whose fields perf prints"
		fi
		if grep -qs "^AUXTRACE " "tests/golden/perf/corpus/$cur.stats"
		then
			echo "# auxtrace: perf adds samples it decodes from the trace"
		fi
		if [ $rc != 0 ]; then
			echo "# exit $rc: $(grep . "$PD_TMP/err" | tail -n 1)"
		elif grep -Eq "$STOPPED" "$PD_TMP/err"; then
			echo "# partial: $(grep -E "$STOPPED" "$PD_TMP/err" | head -n 1)"
		fi
		cat "$PD_TMP/out"
	} >"$out"
	printf '%-60s %8s lines\n' "$out" "$(grep -vc '^#' "$out")"
	if [ "$(wc -c <"$out")" -gt $BIG ]; then
		zstd -q -19 --rm -f "$out" -o "$out.zst"
	fi
}

# cases FILE: the goldens of ./cases's lines for capture $cur (FILE)
cases()
{
	capf=$1
	grep -v '^#' $GOLD/cases | while read -r case name args; do
		[ "$name" = "$cur" ] || continue
		# the options are shell words: a quoted --time list keeps its
		# blanks
		eval "set -- $args"
		run "$capf" "$GOLD/testdata/$cur.$case.script" "$PD_TMP/bid" \
			--kallsyms "$(pd_kallsyms "$cur")" "$@" || exit 1
	done
}

fail=0
for cur in $(pd_captures); do
	wanted "$@" || continue
	f=$(pd_capture "$cur") || { fail=1; continue; }
	run "$f" "$GOLD/testdata/$cur.default.script" "$PD_TMP/bid" \
		--kallsyms "$(pd_kallsyms "$cur")" || fail=1
	cases "$f" || fail=1
done
# the captures of testdata's subdirectories (branches/NAME): their cases
# alone, no default golden
for cur in $(grep -v '^#' $GOLD/cases |
	awk '$2 ~ /\// && $2 !~ /^corpus:/ { print $2 }' | sort -u); do
	wanted "$@" || continue
	f=$(pd_capture "$cur") || { fail=1; continue; }
	cases "$f" || fail=1
done

if ! pd_have_corpus; then
	echo "regen.sh: no $PD_CORPUS: corpus goldens left as they are" >&2
	exit $fail
fi
pd_corpus_captures >"$PD_TMP/corpus.list"
while read -r cur verdict; do
	wanted "$@" || continue
	case $verdict in yes|partly) ;; *) continue ;; esac
	pd_sysroot "$cur"
	run "$PD_CORPUS/$cur" "$GOLD/corpus/$cur.script" "$PD_TMP/nobid" \
		--kallsyms "$PD_TMP/empty" --symfs "$PD_TMP/sysroot" || fail=1
	# always compressed: the corpus's texts are many
	out=$GOLD/corpus/$cur.script
	[ -f "$out" ] && zstd -q -19 --rm -f "$out" -o "$out.zst"
	grep -v '^#' $GOLD/cases | while read -r case name args; do
		[ "$name" = "corpus:$cur" ] || continue
		out=$GOLD/corpus/$cur.$case.script
		# shellcheck disable=SC2086 # the options are words
		run "$PD_CORPUS/$cur" "$out" "$PD_TMP/nobid" \
			--kallsyms "$PD_TMP/empty" --symfs "$PD_TMP/sysroot" \
			$args || exit 1
		[ -f "$out" ] && zstd -q -19 --rm -f "$out" -o "$out.zst"
	done || fail=1
done <"$PD_TMP/corpus.list"
exit $fail
