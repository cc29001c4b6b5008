#!/bin/sh
# check-deps.sh - the dependency rules of docs/architecture.md: the layers
# run common <- reader <- analyze <- emit <- cmds, where common/ (the
# shared plumbing) includes nothing of ours and every layer may include
# its headers; inside analyze/, each module may
# include the headers of the modules listed for it and no others; the
# external libraries stay in the modules that own them; the library
# layers never print or exit.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
fail() {
	echo "$1"
	echo x >>"$tmp"
}

# The headers a module offers: its own files.  Public headers (pda_*.h
# without _int) are what emit/ and cmds/ may use; internal ones
# (pda_*_int.h) only the modules that list the module.
headers_of() { # dir...
	for d in "$@"; do
		for h in "$d"/*.h; do
			[ -f "$h" ] && basename "$h"
		done
	done
}
public_of() {
	headers_of "$@" | grep -v '_int\.h$'
}

MODULES="base symbols machine unwind session profile annotate counters branch record datatype mem"
# module: the modules it may use (their internal headers included); every
# module also sees the public headers of session (the frame and stack
# types) and reader/pd.h
deps() {
	case $1 in
	base) echo "" ;;
	symbols) echo "base" ;;
	machine) echo "base symbols" ;;
	unwind) echo "base symbols machine" ;;
	session) echo "base symbols machine unwind" ;;
	profile) echo "base" ;;
	counters) echo "base" ;;
	annotate) echo "base symbols machine session" ;;
	branch) echo "base symbols machine session annotate" ;;
	record) echo "" ;;
	datatype) echo "base symbols machine session annotate" ;;
	mem) echo "base symbols machine session" ;;
	*) echo "?" ;;
	esac
}
# module: the external libraries it may include
libs() {
	case $1 in
	symbols) echo "elfutils/libdw.h elfutils/libdwelf.h gelf.h libelf.h dwarf.h lzma.h libiberty/demangle.h" ;;
	machine) echo "elfutils/debuginfod.h gelf.h" ;;
	unwind) echo "elfutils/libdwfl.h gelf.h dwarf.h libunwind.h" ;;
	annotate) echo "capstone/capstone.h" ;;
	branch) echo "capstone/capstone.h" ;;
	datatype) echo "capstone/capstone.h" ;;
	session) echo "xxhash.h" ;;
	*) echo "" ;;
	esac
}
EXTERNAL='elfutils/|gelf\.h|libelf\.h|dwarf\.h|libdw|capstone|libunwind|lzma\.h|libiberty|zstd|zlib\.h|bzlib\.h|xxhash'

check_file() { # file allowed-headers allowed-libs
	f=$1 allowed=$2 libs_ok=$3
	grep -n '^#include "' "$f" | sed 's/.*#include "\([^"]*\)".*/\1/' |
		while IFS= read -r inc; do
			[ -f "$(dirname "$f")/$inc" ] && continue
			case " $allowed " in
			*" $inc "*) ;;
			*) fail "$f: includes \"$inc\", which $(dirname "$f") may not use" ;;
			esac
		done
	grep -n '^#include <' "$f" | sed 's/.*#include <\([^>]*\)>.*/\1/' |
		grep -E "^($EXTERNAL)" | while IFS= read -r inc; do
			case " $libs_ok " in
			*" $inc "*) ;;
			*) fail "$f: includes <$inc>, a library $(dirname "$f") may not use" ;;
			esac
		done
}

# every analyze/ folder is a known module, and every file is in a module
for d in analyze/*/; do
	m=$(basename "$d")
	[ "$(deps "$m")" = "?" ] &&
		fail "analyze/$m: a module docs/architecture.md and check-deps.sh do not know"
done
for f in analyze/*.[ch]; do
	[ -f "$f" ] && fail "$f: analyze/ files belong in a module folder"
done

COMMON_PUB=$(headers_of common | tr '\n' ' ')
READER_PUB="pd.h pd_write.h pd_config.h $COMMON_PUB"
SESSION_PUB=$(public_of analyze/session | grep -x 'pda_session.h')
ANALYZE_PUB=$(for m in $MODULES; do public_of "analyze/$m"; done | tr '\n' ' ')
EMIT_PUB=pde.h

for f in common/*.[ch]; do
	check_file "$f" "" ""
done
for f in reader/*.[ch]; do
	check_file "$f" "$COMMON_PUB" "zstd.h zstd_errors.h"
done
for m in $MODULES; do
	allowed="$READER_PUB $SESSION_PUB"
	for d in $(deps "$m"); do
		allowed="$allowed $(headers_of "analyze/$d" | tr '\n' ' ')"
	done
	for f in analyze/"$m"/*.[ch]; do
		[ -f "$f" ] && check_file "$f" "$allowed" "$(libs "$m")"
	done
done
for f in emit/*.[ch]; do
	check_file "$f" "$READER_PUB $ANALYZE_PUB" ""
done
# cmds/ inflates whole-file gzip, xz and bzip2 inputs (cmd_input.c) and
# writes and reads zstd-compressed bundles (cmd_tarw.c, cmd_bundle.c)
for f in cmds/*.[ch]; do
	check_file "$f" "$READER_PUB $ANALYZE_PUB $EMIT_PUB" "zlib.h lzma.h bzlib.h zstd.h"
done

# library layers never print or exit (L1, E6)
for f in common/*.c reader/*.c analyze/*/*.c; do
	[ -f "$f" ] || continue
	if grep -nE '\b(printf|puts|exit|perror)\s*\(|\b(stdout|stderr)\b' "$f" |
		grep -v '^\s*[0-9]*:\s*/\?\*'; then
		fail "$f: the library must not print or exit"
	fi
done
# emit's writers get their data, source lines included, from the layers
# below (pde.h): they open and read no file themselves
for f in emit/*.c; do
	if grep -nE '\b(fopen|freopen|fdopen|open|openat|opendir|fread|read|pread|mmap|stat)\s*\(' "$f" |
		grep -v '^\s*[0-9]*:\s*/\?\*'; then
		fail "$f: emit/ must not read files; get the data from libpda"
	fi
done
if [ -s "$tmp" ]; then
	echo "check-deps: FAILED"
	exit 1
fi
echo "check-deps: ok"
