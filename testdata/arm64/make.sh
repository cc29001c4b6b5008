#!/bin/sh
# make.sh - record the aarch64 captures of testdata/arm64/ with perf 6.1
# inside an emulated arm64 Debian 12, and bring back perf's own outputs
# from the guest as goldens (tests/golden/arm64/).
#
#	sh testdata/arm64/make.sh	(as root, on Debian 12 x86_64;
#					 about an hour; not run by make check)
#
# 1. installs the host tools it needs (qemu-system-arm, qemu-user-static,
#    binfmt-support, debootstrap, e2fsprogs, zstd, python3);
# 2. debootstraps an arm64 bookworm root with the kernel, linux-perf, gcc,
#    g++, binutils and elfutils into $WORK/rootfs (second stage run
#    through qemu-user-static and binfmt_misc);
# 3. copies it into an ext4 image with init.sh as /sbin/pd-init, and boots
#    its linux-image-arm64 kernel and initrd under qemu-system-aarch64
#    (-M virt -cpu max,sve=off: with SVE, perf 6.1 asks for the VG
#    register in --call-graph dwarf samples, which a software event cannot
#    supply, and recording fails), the host's $WORK/share on a 9p mount;
# 4. init.sh runs guest.sh (build, record, perf's readers) and powers off;
# 5. the results are copied into the repository: the captures (zstd -19
#    when over 64 KiB, STYLE T3), sysroot/ (the test binaries and every
#    shared library the recorded processes mapped, at their guest paths:
#    a --symfs root), buildid/ (the [vdso] from perf's build-id cache) and
#    tests/golden/arm64/.
#
# $WORK (default bench/data/arm64, git-ignored) keeps the root file system
# (1.3 GB), the disk image and the console log; a second run reuses the
# debootstrapped root.  MIRROR overrides the Debian mirror, TIMEOUT (s)
# the limit on the emulator's run.  testdata/arm64.md says what came out.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
WORK=${WORK:-$repo/bench/data/arm64}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
TIMEOUT=${TIMEOUT:-7200}
PKGS=linux-image-arm64,linux-perf,gcc,g++,binutils,elfutils,kmod,zstd,python3
TD=$repo/testdata/arm64
GOLD=$repo/tests/golden/arm64
LIMIT=65536	# STYLE T3: captures over this are stored as .zst
BIG=32768	# goldens over this are stored as .zst (as tests/golden/fold)

say() { echo "make.sh: $*" >&2; }
die() { say "$*"; exit 2; }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, binfmt_misc)"
[ "$(uname -m)" = x86_64 ] || say "warning: written for an x86_64 host"

# ---- 1. host tools
missing=
for p in qemu-system-arm qemu-user-static binfmt-support debootstrap \
	 e2fsprogs zstd python3; do
	dpkg-query -W -f '${Status}\n' $p 2>/dev/null |
		grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "installing$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
fi
# binfmt_misc runs the arm64 binaries of debootstrap's second stage
[ -e /proc/sys/fs/binfmt_misc/status ] ||
	mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
	die "binfmt_misc has no qemu-aarch64 entry"

# ---- 2. the arm64 root
mkdir -p "$WORK"
if [ ! -e "$WORK/rootfs.done" ]; then
	rm -rf "$WORK/rootfs"
	say "debootstrap --arch=arm64 bookworm (about 30 min)"
	debootstrap --arch=arm64 --variant=minbase --include=$PKGS \
		bookworm "$WORK/rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
		die "debootstrap failed: see $WORK/debootstrap.log"
	touch "$WORK/rootfs.done"
fi
R=$WORK/rootfs
kernel=$(ls "$R"/boot/vmlinuz-*-arm64 | sort -V | tail -n 1)
initrd=$R/boot/initrd.img-${kernel##*/vmlinuz-}
[ -f "$kernel" ] && [ -f "$initrd" ] || die "no kernel or initrd in $R/boot"

# ---- 3. the disk image and the share
install -m 755 "$here/init.sh" "$R/sbin/pd-init"
echo pdtest-arm64 >"$R/etc/hostname"
rm -rf "$R/root/.debug" "$R/opt/pdtest"
rm -f "$WORK/root.img"
truncate -s 4G "$WORK/root.img"
mkfs.ext4 -q -F -L pdroot -d "$R" "$WORK/root.img"
S=$WORK/share
rm -rf "$S"
mkdir -p "$S/src" "$S/out"
cp "$repo/testdata/src/demo.c" "$repo/testdata/src/deep.cpp" \
	"$here/guest.sh" "$repo/tests/golden/fold/kallsyms_trim.py" "$S/src/"

# ---- 4. the guest's run
say "booting $(basename "$kernel") under qemu-system-aarch64" \
	"(console: $WORK/console.log)"
start=$(date +%s)
timeout "$TIMEOUT" qemu-system-aarch64 -M virt -cpu max,sve=off -smp 2 \
	-m 2048 -display none -monitor none -no-reboot \
	-serial "file:$WORK/console.log" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "root=/dev/vda rw console=ttyAMA0 init=/sbin/pd-init panic=-1" \
	-drive "file=$WORK/root.img,if=virtio,format=raw" \
	-virtfs "local,path=$S,mount_tag=pdshare,security_model=none,id=pdshare" \
	</dev/null || die "qemu failed or timed out (exit $?)"
say "the guest ran $(($(date +%s) - start)) s"
O=$S/out
[ -f "$O/status" ] || die "guest.sh did not finish: see $O/guest.log" \
	"and $WORK/console.log"
[ "$(cat "$O/status")" = 0 ] || say "warning: a step failed in the" \
	"guest: see $O/guest.log"

# ---- 5. into the repository
rm -rf "$TD/sysroot" "$TD/buildid" "$GOLD"
rm -f "$TD"/*.perf.data "$TD"/*.perf.data.zst
mkdir -p "$TD/sysroot" "$GOLD"
for f in "$O"/*.perf.data; do
	b=${f##*/}
	if [ "$(wc -c <"$f")" -gt $LIMIT ]; then
		zstd -q -19 -f "$f" -o "$TD/$b.zst"
	else
		cp "$f" "$TD/$b"
	fi
done
# the sysroot: every ELF file the recorded processes mapped, at its path
while read -r p; do
	case $p in
	/opt/pdtest/bin/*) src=$O/bin/${p##*/} ;;
	*.ko|//*) continue ;;	# modules (kallsyms names them), //anon
	/*) src=$R$p ;;
	*) continue ;;
	esac
	[ -f "$src" ] || { say "not in the guest: $p"; continue; }
	[ "$(head -c 4 "$src" | od -An -c | tr -d ' ')" = 177ELF ] || continue
	mkdir -p "$TD/sysroot$(dirname "$p")"
	cp -L "$src" "$TD/sysroot$p"
done <"$O/dsos"
for v in "$O"/buildid/*/*/vdso; do
	[ -f "$v" ] || continue
	d=$TD/buildid/${v#$O/buildid/}
	mkdir -p "$(dirname "$d")"
	cp "$v" "$d"
done
for f in "$O"/golden/*; do
	b=${f##*/}
	case $b in
	*.err) [ -s "$f" ] || continue ;;
	esac
	if [ "$(wc -c <"$f")" -gt $BIG ]; then
		zstd -q -19 -f "$f" -o "$GOLD/$b.zst"
	else
		cp "$f" "$GOLD/$b"
	fi
done
cp "$O/kallsyms" "$O/versions" "$GOLD/"
cp "$O/guest.log" "$GOLD/guest.log"
say "done: $(du -sh "$TD" | cut -f1) in testdata/arm64," \
	"$(du -sh "$GOLD" | cut -f1) in tests/golden/arm64"
