#!/bin/sh
# run.sh - the CLI tests.
#
# Golden tests (STYLE T5): tests/cli/<cmd>/<case>.sh runs with PDTOOL set
# and the repository root as its working directory; its stdout, stderr and
# exit status are compared byte for byte with <case>.stdout, <case>.stderr
# and <case>.exit under LC_ALL=C TZ=UTC.  BLESS=1 rewrites them; a missing
# golden is written and the test fails.
#
# Scripted tests: tests/cli/<cmd>/<case>.test exits 0 (pass), 77 (skipped:
# it prints why) or anything else (fail).  A test that passes on part of
# what it checks prints "partly skipped: why" (pd_partly_skipped), shown
# beside its PASS and counted.
#
# Prints one line per test and closes with "N passed, N failed, N skipped"
# (and ", N partly skipped" when any was).  A failing scripted test shows
# its lines that say FAIL and its last 30; CLI_LOGS=DIR keeps its whole log
# there.
set -u
LC_ALL=C
TZ=UTC
export LC_ALL TZ
# T1: nothing leaves this host.  A developer's DEBUGINFOD_URLS would send
# the testdata's build-ids to those servers (and add debuginfod's line to
# the goldens); the tests that want a server start their own.
unset DEBUGINFOD_URLS
: "${PDTOOL:?set PDTOOL to the pdtool binary}"
export PDTOOL
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# The build-id cache instead of ~/.debug (pdtool reads PERF_BUILDID_DIR
# as perf does): the vdso images of the kernels the captures were
# recorded on (testdata/vdso/ARCH/BUILDID), not this host's, so a [vdso]
# frame resolves on any kernel and a missing image fails its tests here
# too.  The tests that pass --buildid-dir add testdata/vdso to theirs.
python3 tests/golden/fold/buildid_dir.py "$tmp/debug" testdata/vdso/*/* ||
	exit 2
PERF_BUILDID_DIR=$tmp/debug
export PERF_BUILDID_DIR
pass=0 fail=0 skip=0 partly=0
only=${CLI_ONLY:-}

for t in tests/cli/*/*.sh tests/cli/*/*.test; do
	[ -f "$t" ] || continue
	case "$t" in *"$only"*) ;; *) continue ;; esac
	case "$t" in
	*.sh)
		base=${t%.sh}
		sh "$t" >"$tmp/out" 2>"$tmp/err"
		echo $? >"$tmp/exit"
		ok=1
		for k in stdout stderr exit; do
			src=$tmp/out
			[ $k = stderr ] && src=$tmp/err
			[ $k = exit ] && src=$tmp/exit
			if [ "${BLESS:-}" = 1 ] || [ ! -f "$base.$k" ]; then
				[ -f "$base.$k" ] || { echo "  missing golden $base.$k (written)"; ok=0; }
				cp "$src" "$base.$k"
			elif ! cmp -s "$src" "$base.$k"; then
				echo "  $base.$k differs:"
				diff "$base.$k" "$src" | head -20 | sed 's/^/    /'
				ok=0
			fi
		done
		if [ $ok = 1 ]; then
			pass=$((pass + 1)); echo "PASS $t"
		else
			fail=$((fail + 1)); echo "FAIL $t"
		fi
		;;
	*.test)
		sh "$t" >"$tmp/log" 2>&1
		rc=$?
		if [ $rc = 0 ]; then
			pass=$((pass + 1))
			why=$(sed -n 's/^partly skipped: //p' "$tmp/log" | head -n 1)
			if [ -n "$why" ]; then
				partly=$((partly + 1)); echo "PASS $t (partly skipped: $why)"
			else
				echo "PASS $t"
			fi
		elif [ $rc = 77 ]; then
			skip=$((skip + 1)); echo "SKIP $t: $(tail -n 1 "$tmp/log")"
		else
			fail=$((fail + 1)); echo "FAIL $t (exit $rc)"
			# a long log's failing lines can lie before its tail
			grep -n 'FAIL' "$tmp/log" | head -n 10 |
				sed 's/^/    failing line /'
			tail -n 30 "$tmp/log" | sed 's/^/    /'
			if [ -n "${CLI_LOGS:-}" ]; then
				mkdir -p "$CLI_LOGS" &&
					cp "$tmp/log" "$CLI_LOGS/$(echo "$t" |
						tr / _).log"
			fi
		fi
		;;
	esac
done
if [ $partly -gt 0 ]; then
	echo "cli: $pass passed, $fail failed, $skip skipped, $partly partly skipped"
else
	echo "cli: $pass passed, $fail failed, $skip skipped"
fi
[ $fail = 0 ]
