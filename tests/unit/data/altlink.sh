#!/bin/sh
# altlink.sh OUTDIR NAME [ID] - build the .gnu_debugaltlink test files:
#
#   OUTDIR/libalt.so  a shared object (altlink.S) whose DWARF takes the
#                     name of the function inlined at alt_fn from its alt
#                     file (DW_FORM_GNU_strp_alt), and whose
#                     .gnu_debugaltlink names NAME and build-id ID (hex;
#                     default altfile.S's, a17f11e5000102...0e0f)
#   OUTDIR/alt.debug  the alt file (altfile.S): that build-id, and
#                     "alt_named_fn" at .debug_str offset 0
#
# The objects are built once per OUTDIR (libalt.nolink is libalt.so
# without the link); each call writes libalt.so's link again.
#
# Uses gcc and objcopy, as build.sh does.
set -eu
out=$1
name=$2
id=${3:-a17f11e5000102030405060708090a0b0c0d0e0f}
src=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-gcc}
mkdir -p "$out"
# built once per OUTDIR: the link is all that changes between calls
[ -f "$out/libalt.nolink" ] ||
	$cc -shared -nostdlib -Wl,--build-id -o "$out/libalt.nolink" \
		"$src/altlink.S"
[ -f "$out/alt.debug" ] || $cc -c -o "$out/alt.debug" "$src/altfile.S"
# the section: NAME, a NUL, the build-id's bytes
{
	printf '%s\000' "$name"
	hex=$id
	while [ -n "$hex" ]; do
		printf "\\$(printf %o "0x${hex%"${hex#??}"}")"
		hex=${hex#??}
	done
} >"$out/altlink.sec"
objcopy --add-section .gnu_debugaltlink="$out/altlink.sec" \
	"$out/libalt.nolink" "$out/libalt.so"
rm -f "$out/altlink.sec"
