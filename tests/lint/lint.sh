#!/bin/sh
# lint.sh - STYLE B6: banned functions, reserved __ names, rule IDs cited
# in comments that docs/contributing.md does not define, and section
# references in the docs that do not resolve (docrefs.sh).
set -u
cd "$(dirname "$0")/../.."
bad=0
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find reader analyze emit cmds tests -name '*.[ch]')
for f in $files; do
	if grep -nE '\b(gets|sprintf|strcpy|strcat|atoi|strtok|alloca)\s*\(' "$f"; then
		echo "$f: banned function (use snprintf, memcpy with a length, strtol)"
		bad=1
	fi
	# __ is reserved; compiler builtins and predefined macros are not ours
	if grep -nE '\b[A-Za-z0-9_]*__[A-Za-z0-9_]*' "$f" |
		grep -vE '^[0-9]+:[[:space:]]*(/\*|\*)' | grep -vE '/\*[^*]*__' |
		grep -vE '"[^"]*__[A-Za-z0-9_]*[^"]*"' |
		grep -vE '__builtin_|__attribute__|__GNUC__|__GLIBC__|__BYTE_ORDER__|__ORDER_(BIG|LITTLE)_ENDIAN__|__cplusplus|__FILE__|__LINE__|__func__|__VA_ARGS__|__has_include|__clang__|__SANITIZE_ADDRESS__|LLVMFuzzer' ; then
		echo "$f: names with __ are reserved (N4)"
		bad=1
	fi
done

# Rule IDs (L1, O5, R2...) cited as docs/contributing.md's "Citing a
# rule" says: after STYLE ("STYLE B3, B4", "STYLE B1..B6"), in
# parentheses ("(O5)", "(O4, O5)", "(E3..E6)", "(exit 64, E9)", "(C3's
# rule)"), or opening a comment ("/* R2: ...", "# L1: ...").  Register
# names (R8), -O2 and the like match none of these forms.
ID='[LNEORCTBDP][0-9]{1,2}'
CITE="STYLE[[:space:]]+$ID((,[[:space:]]*|\.\.|[[:space:]]+and[[:space:]]+)$ID)*"
CITE="$CITE|\($ID((,[[:space:]]*|\.\.)$ID)*\)|\($ID('s|,)|,[[:space:]]*$ID\)"
CITE="$CITE|^[[:space:]]*(/\*|\*|#|//)[[:space:]]*$ID(\.\.$ID)?([:,]|[[:space:]])"
rules=docs/contributing.md
defined=$(sed -n 's/^### \([A-Z][0-9]*\)\. .*/\1/p' "$rules" 2>/dev/null)
[ -n "$defined" ] || { echo "$rules: no '### ID. title' rule headings"; bad=1; }
all=$(sh tests/lint/sources.sh)
for f in $all; do
	[ -f "$f" ] || continue
	grep -HnoIE "$CITE" "$f" 2>/dev/null
done | while IFS=: read -r f line cite; do
	for id in $(echo "$cite" | grep -oE "$ID(\.\.$ID)?"); do
		case $id in
		*..*)	# a range: X3..X6 is X3 X4 X5 X6
			from=${id%%..*} to=${id##*..}
			ids=$(seq "${from#?}" "${to#?}" | sed "s/^/${from%"${from#?}"}/") ;;
		*)	ids=$id ;;
		esac
		for one in $ids; do
			echo "$defined" | grep -qx "$one" ||
				echo "$f:$line: rule $one is cited but not defined in $rules"
		done
	done
done >"${TMPDIR:-/tmp}/lint-ids.$$"
if [ -s "${TMPDIR:-/tmp}/lint-ids.$$" ]; then
	cat "${TMPDIR:-/tmp}/lint-ids.$$"
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/lint-ids.$$"

sh tests/lint/docrefs.sh >/dev/null || { sh tests/lint/docrefs.sh; bad=1; }

[ $bad = 0 ] && echo "lint: ok"
exit $bad
