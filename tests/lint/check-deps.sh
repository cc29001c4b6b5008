#!/bin/sh
# check-deps.sh - STYLE L1/L2: dependencies run reader <- analyze <- emit <-
# cmds, each layer exposes one public header, and private *_int.h headers
# stay inside their layer.
set -u
cd "$(dirname "$0")/../.."
bad=0
check() { # layer allowed-include-regex
	layer=$1 allowed=$2
	for f in "$layer"/*.[ch]; do
		[ -f "$f" ] || continue
		grep -n '^#include "' "$f" | while IFS= read -r line; do
			inc=$(printf '%s\n' "$line" | sed 's/.*#include "\([^"]*\)".*/\1/')
			[ -f "$layer/$inc" ] && continue
			if ! printf '%s\n' "$inc" | grep -Eq "^($allowed)$"; then
				echo "$f: includes \"$inc\", which layer $layer may not use"
				echo x >>"$tmp"
			fi
		done
	done
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
check reader ''
check analyze 'pd\.h|pd_config\.h'
check emit 'pd\.h|pd_config\.h|pda\.h'
check cmds 'pd\.h|pd_config\.h|pda\.h|pde\.h'
# library layers never print or exit (L1, E6)
for f in reader/*.c analyze/*.c; do
	[ -f "$f" ] || continue
	if grep -nE '\b(printf|puts|exit|perror)\s*\(|\b(stdout|stderr)\b' "$f" |
		grep -v '^\s*[0-9]*:\s*/\?\*'; then
		echo "$f: the library must not print or exit"
		echo x >>"$tmp"
	fi
done
if [ -s "$tmp" ]; then
	echo "check-deps: FAILED"
	exit 1
fi
echo "check-deps: ok"
