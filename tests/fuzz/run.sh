#!/bin/sh
# run.sh - fuzz one target with libFuzzer (STYLE T7).
#
#   tests/fuzz/run.sh [NAME] [SECONDS]     defaults: reader, 600
#
# Builds build/fuzz/fuzz_NAME with `make fuzz` (clang, ASan + UBSan),
# seeds a scratch corpus from tests/fuzz/corpus/NAME/, the target's seed
# directories in tests/fuzz/seeds and, for the reader, $PD_CORPUS
# (../shared/corpus; when present), and fuzzes for SECONDS in libFuzzer's
# fork mode, which keeps going after a crash.  Every crash, leak, timeout
# or out-of-memory input is copied into tests/fuzz/corpus/NAME/, where
# `make check-fuzz` replays it from then on.  Prints executions, coverage
# and what was found; exits 1 when anything was.  Run one at a time: the
# machine is shared.
#
# Environment: FUZZ_JOBS (parallel fuzzing processes, default half the
# CPUs), FUZZ_MAX_LEN (bytes, default 1 MiB), FUZZ_TIMEOUT (seconds per
# input, default 30), FUZZ_KEEP=1 keeps the scratch directory.
set -u
case ${1:-} in
[a-z]*)
	name=$1
	shift
	;;
*) name=reader ;;
esac
secs=${1:-600}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
. tests/golden/perf/lib.sh

if [ ! -f "tests/fuzz/fuzz_$name.c" ]; then
	echo "run.sh: no target '$name' (tests/fuzz/fuzz_$name.c)" >&2
	exit 64
fi
ncpu=$(nproc 2>/dev/null || echo 2)
jobs=${FUZZ_JOBS:-$((ncpu / 2))}
[ "$jobs" -ge 1 ] || jobs=1
max_len=${FUZZ_MAX_LEN:-1048576}
timeout=${FUZZ_TIMEOUT:-30}

make --no-print-directory "build/fuzz/fuzz_$name" || exit 2

work=$(mktemp -d "${TMPDIR:-/tmp}/pd-fuzz.XXXXXX") || exit 2
if [ "${FUZZ_KEEP:-}" = 1 ]; then
	echo "scratch directory: $work"
else
	trap 'rm -rf "$work"' EXIT INT TERM
fi
mkdir -p "$work/corpus" "$work/artifacts" "tests/fuzz/corpus/$name"

# Seeds: every file, .zst ones decompressed; names made unique by path.
seeds=$(sed -n "s/^$name=//p" tests/fuzz/seeds)
[ "$name" = reader ] && seeds="$seeds $PD_CORPUS"
for dir in $seeds "tests/fuzz/corpus/$name"; do
	if [ ! -e "$dir" ]; then
		echo "seeds '$dir' are absent, skipped"
		continue
	fi
	find "$dir" -type f | sort | while IFS= read -r f; do
		seed=$(printf '%s' "$f" | tr '/. ' '___')
		case "$f" in
		*.zst)
			zstd -q -d -c "$f" >"$work/corpus/$seed" 2>/dev/null ||
				cp "$f" "$work/corpus/$seed"
			;;
		*) cp "$f" "$work/corpus/$seed" ;;
		esac
	done
done
nseeds=$(find "$work/corpus" -type f | wc -l)
echo "fuzzing $name for ${secs}s with $jobs job(s) from $nseeds seed files, max_len $max_len"

# UBSan was compiled recoverable: make every report a crash libFuzzer keeps.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS ASAN_OPTIONS

start=$(date +%s)
"build/fuzz/fuzz_$name" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 \
	-ignore_ooms=1 -max_total_time="$secs" -max_len="$max_len" \
	-timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" \
	>"$work/fuzz.log" 2>&1
rc=$?
end=$(date +%s)

# The fork-mode status lines: "#EXECS: cov: C ft: F corp: N exec/s: E ...".
last=$(grep -E '^#[0-9]+: cov:' "$work/fuzz.log" | tail -n 1)
echo "libFuzzer exit status $rc after $((end - start))s"
echo "last status: ${last:-none}"
grep -E '^(INFO: |==[0-9]+== )?(Done|stat::)' "$work/fuzz.log" | tail -n 8

found=0
for a in "$work"/artifacts/*; do
	[ -f "$a" ] || continue
	base=$(basename "$a")
	cp "$a" "tests/fuzz/corpus/$name/$base"
	echo "kept tests/fuzz/corpus/$name/$base"
	found=$((found + 1))
done
reports=$(grep -c -E 'ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|runtime error:|property violated' "$work/fuzz.log")
echo "artifacts: $found; sanitizer or property reports in the log: $reports"
if [ "$found" -gt 0 ] || [ "$reports" -gt 0 ]; then
	grep -E -A3 'ERROR: |runtime error:|property violated' "$work/fuzz.log" |
		head -n 60
	cp "$work/fuzz.log" "tests/fuzz/last-run-$name.log"
	echo "the full log is in tests/fuzz/last-run-$name.log"
	exit 1
fi
exit 0
