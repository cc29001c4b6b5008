#!/bin/sh
# regen.sh - regenerate the folded stacks the flame tests read, with perf
# 6.1 (the oracle) from testdata captures.  Run from anywhere:
#
#	sh tests/cli/flame/inputs/regen.sh
#
# demo.folded   perf script report stackcollapse -i testdata/demo.perf.data
# mixed.folded  the same for sysw (with --kernel: "_[k]" kernel frames, a
#               deep all-[unknown] python3 stack), dwarf (DWARF unwinding),
#               fp (C++ names with <>) and multi (--kernel), concatenated
#
# Symbols come from this host's binaries (testdata/bin), as recorded.
set -eu
cd "$(dirname "$0")/../../../.."
. tests/golden/perf/lib.sh
pd_tmp_init
collapse() { # capture [script args]
	f=$(pd_capture "$1")
	shift
	perf script report stackcollapse -i "$f" -- "$@" 2>/dev/null
}
collapse demo >tests/cli/flame/inputs/demo.folded
{
	collapse sysw --kernel
	collapse dwarf
	collapse fp
	collapse multi --kernel
} >tests/cli/flame/inputs/mixed.folded
wc -l tests/cli/flame/inputs/demo.folded tests/cli/flame/inputs/mixed.folded
