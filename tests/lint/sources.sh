#!/bin/sh
# sources.sh - the files lint.sh and docrefs.sh read for rule IDs and
# section references: the tracked files (every file outside build/ and
# node_modules/ when this is not a git checkout), less the test inputs
# and outputs (testdata/, goldens, the fuzz corpus), which cite nothing.
set -u
cd "$(dirname "$0")/../.."
{
	git ls-files 2>/dev/null ||
		find . -type f ! -path './.git/*' ! -path './build/*' \
			! -path '*/node_modules/*' | sed 's|^\./||'
} | grep -vE '^(testdata/|tests/golden/|tests/fuzz/corpus/)|\.(stdout|stderr|exit)$'
