#!/bin/sh
# lint.sh - STYLE B6: banned functions and reserved __ names.
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
		grep -vE '__builtin_|__attribute__|__GNUC__|__BYTE_ORDER__|__ORDER_(BIG|LITTLE)_ENDIAN__|__cplusplus|__FILE__|__LINE__|__func__|__VA_ARGS__|__has_include|__clang__|__SANITIZE_ADDRESS__|LLVMFuzzer' ; then
		echo "$f: names with __ are reserved (N4)"
		bad=1
	fi
done
[ $bad = 0 ] && echo "lint: ok"
exit $bad
