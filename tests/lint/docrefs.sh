#!/bin/sh
# docrefs.sh - every section reference in the docs resolves (STYLE D3):
#
#  - a "§N" or "§N.M" anywhere in the tree (docs, code comments citing
#    "format.md §4.2") names a heading "## §N ..." or "### §N.M ..." of
#    docs/format.md; in a docs/*.md file with "§" headings of its own,
#    one of those;
#  - in a man page source (docs/man/*.1.md), "see OUTPUT FORMAT" names a
#    "# OUTPUT FORMAT" section of the same page, and "see Values above"
#    (or below) a heading or a bold "**Values.**" paragraph title there.
#
# Prints each reference that does not resolve as FILE:LINE: and exits 1.
set -u
cd "$(dirname "$0")/../.."
fmt=docs/format.md
bad=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# sections FILE: the section numbers FILE's headings define, one per line
sections()
{
	sed -n 's/^#\{2,\} §\([0-9][0-9.]*\) .*/\1/p' "$1" | sed 's/\.$//'
}

files=$(sh tests/lint/sources.sh)
for f in $files; do
	[ -f "$f" ] || continue
	grep -HnoIE '§[0-9]+(\.[0-9]+)*' "$f" 2>/dev/null
done | while IFS=: read -r f line ref; do
	doc=$fmt
	case $f in
	docs/*.md) sections "$f" | grep -q . && doc=$f ;;
	esac
	sections "$doc" >"$tmp"
	grep -qxF "${ref#§}" "$tmp" ||
		echo "$f:$line: $ref: no such section in $doc"
done >"$tmp.out"
if [ -s "$tmp.out" ]; then
	cat "$tmp.out"
	bad=1
fi
rm -f "$tmp.out"

# man pages: references to a section or a titled paragraph of the page
for f in docs/man/*.1.md; do
	[ -f "$f" ] || continue
	# join lines so that "(see OUTPUT\n    FORMAT)" reads as one phrase
	tr '\n' ' ' <"$f" | tr -s ' ' |
		grep -oE 'see [A-Z]{2,}( [A-Z]{2,})*|see [A-Z][a-z]+ (above|below)' |
		sort -u | while read -r _ what where; do
		case "$where" in
		above | below)
			grep -qE "^#+ $what\$|\*\*$what\.\*\*" "$f" ||
				echo "$f: 'see $what $where': no heading or **$what.** paragraph"
			;;
		*)
			what=$(echo "$what $where" | sed 's/ *$//')
			grep -qx "# $what" "$f" ||
				echo "$f: 'see $what': no '# $what' section"
			;;
		esac
	done
done >"$tmp.man"
if [ -s "$tmp.man" ]; then
	cat "$tmp.man"
	bad=1
fi
rm -f "$tmp.man"
[ $bad = 0 ] && echo "docrefs: ok"
exit $bad
