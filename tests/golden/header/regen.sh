#!/bin/sh
# regen.sh - rewrite perf 6.1's header view of every capture, the golden
# that tests/cli/info/header-vs-perf.test compares `pdtool info --json`
# with.
#
#	sh tests/golden/header/regen.sh
#
# For each testdata capture (testdata/NAME.perf.data, .zst or a
# --threads directory) and each capture in the corpus ($PD_CORPUS) that
# MANIFEST.md says perf 6.1 reads ("yes" or "partly" in its last column),
# writes `perf report --header-only -i FILE` to
# tests/golden/header/testdata/NAME.header or corpus/PATH.header, less
# the "captured on" line (the file's mtime, not a fact of the capture).
# A capture perf prints no header for is left out.  Needs perf 6.1 and
# zstd; run from anywhere.
set -u
cd "$(dirname "$0")/../../.." || exit 2
PERF=${PERF:-perf}
GOLD=tests/golden/header
. tests/golden/perf/lib.sh
CORPUS=$PD_CORPUS

pd_need_perf61
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# golden FILE OUT: perf's header of FILE into OUT, if it prints one
golden()
{
	mkdir -p "$(dirname "$2")"
	if "$PERF" report --header-only -i "$1" >"$tmp/out" 2>"$tmp/err" &&
	    grep -q '^# ========' "$tmp/out"; then
		grep -v '^# captured on' "$tmp/out" >"$2"
		echo "wrote $2"
	else
		rm -f "$2"
		echo "skipped $1: $(tail -n 1 "$tmp/err")"
	fi
}

rm -rf "$GOLD/testdata" "$GOLD/corpus"
for f in testdata/*.perf.data testdata/*.perf.data.zst; do
	[ -e "$f" ] || continue
	name=$(basename "$f")
	name=${name%.zst}
	name=${name%.perf.data}
	case $f in
	*.zst) zstd -q -d -c "$f" >"$tmp/cap" || exit 2; in=$tmp/cap ;;
	*) in=$f ;;
	esac
	golden "$in" "$GOLD/testdata/$name.header"
done
if pd_have_corpus; then
	# rows: | `path` | ... | perf 6.1 reads it? |
	sed -n 's/^| `\([^`]*\)` |.*| \(yes\|partly\)[^|]* |$/\1/p' \
		"$CORPUS/MANIFEST.md" | while read -r p; do
		golden "$CORPUS/$p" "$GOLD/corpus/$p.header"
	done
else
	echo "regen.sh: $CORPUS is absent: corpus goldens left out" >&2
fi
