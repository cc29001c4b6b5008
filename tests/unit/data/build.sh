#!/bin/sh
# build.sh OUTDIR - build check_elf.c's test binaries from elfsyms.c:
#
#   elfsyms        PIE, -g, lazy binding (.plt with a header)
#   elfsyms-nopie  ET_EXEC at the usual 0x400000
#   elfsyms-ibt    -fcf-protection and -z ibtplt: .plt.sec entries (x86 only)
#   elfsyms-now    -z now: no lazy binding
#   elfsyms-strip  stripped of .symtab and DWARF (.dynsym only), with a
#                  .gnu_debuglink to elfsyms.debug
#   elfsyms.debug  the separate debug file (objcopy --only-keep-debug)
#   elfsyms-mini   stripped, with MiniDebugInfo made as Fedora's
#                  find-debuginfo makes it (the functions .dynsym lacks, in
#                  an xz-compressed ELF in .gnu_debugdata)
#   elfsyms.o      the relocatable object
#   *.plt          objdump -d's "ADDR <name@plt>" labels of each binary
#
# Uses gcc, objcopy, strip, nm, objdump and xz (or python3's lzma).
set -eu
out=$1
src=$(cd "$(dirname "$0")" && pwd)/elfsyms.c
cc=${CC:-gcc}
mkdir -p "$out"
cd "$out"
flags="-O1 -g -fno-toplevel-reorder -fno-inline"

$cc $flags -fPIE -pie -rdynamic -o elfsyms "$src"
$cc $flags -fno-pie -no-pie -o elfsyms-nopie "$src"
$cc $flags -fPIE -pie -Wl,-z,now -o elfsyms-now "$src"
if $cc $flags -fPIE -pie -fcf-protection=full -Wl,-z,ibtplt \
	-o elfsyms-ibt "$src" 2>/dev/null; then :; else rm -f elfsyms-ibt; fi
$cc $flags -c -o elfsyms.o "$src"

objcopy --only-keep-debug elfsyms elfsyms.debug
strip --strip-all -o elfsyms-strip elfsyms
objcopy --add-gnu-debuglink=elfsyms.debug elfsyms-strip

# MiniDebugInfo, the way Fedora's find-debuginfo.sh adds it
nm -D elfsyms --format=posix --defined-only | awk '{ print $1 }' |
	sort >dynsyms
nm elfsyms.debug --format=sysv --defined-only |
	awk -F '|' '{ if ($4 ~ "FUNC") print $1 }' | sed 's/ *$//' |
	sort >funcsyms
comm -13 dynsyms funcsyms >keep_symbols
objcopy -S --remove-section .gdb_index --remove-section .comment \
	--keep-symbols=keep_symbols elfsyms.debug mini_debuginfo
if command -v xz >/dev/null 2>&1; then
	xz -f mini_debuginfo
else
	python3 -c 'import lzma, sys
data = open(sys.argv[1], "rb").read()
open(sys.argv[1] + ".xz", "wb").write(lzma.compress(data))' mini_debuginfo
fi
strip --strip-all -o elfsyms-mini elfsyms
objcopy --add-section .gnu_debugdata=mini_debuginfo.xz elfsyms-mini
rm -f dynsyms funcsyms keep_symbols mini_debuginfo mini_debuginfo.xz

for b in elfsyms elfsyms-nopie elfsyms-now elfsyms-ibt; do
	[ -f "$b" ] || continue
	objdump -d -j .plt -j .plt.sec -j .plt.got "$b" 2>/dev/null |
		sed -n 's/^0*\([0-9a-f][0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p' \
			>"$b.plt"
done
