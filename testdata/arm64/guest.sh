#!/bin/sh
# guest.sh - the job testdata/arm64/make.sh runs inside the emulated arm64
# Debian 12 guest (as root, from /sbin/pd-init, with the host's share
# mounted on /mnt): build the test programs, record the captures with the
# guest's perf 6.1, and run perf's own readers on them for the goldens.
#
# Reads /mnt/src/ (demo.c, deep.cpp, kallsyms_trim.py); writes everything
# to /mnt/out/: the captures, bin/ (the test binaries as built), golden/
# (perf's outputs), dsos (the files the recorded processes mapped),
# kallsyms (the guest's, trimmed to the addresses the captures hit),
# buildid/ (perf's build-id cache entries of the [vdso]), versions.
# A failing step is logged and the others still run: one boot of the
# emulator is slow, so it should bring back all it can.
set -u
W=/opt/pdtest		# the paths the captures record for the binaries
OUT=/mnt/out
G=$OUT/golden
export LC_ALL=C TZ=UTC
fail=0

# run CMD...: run, log, and count a failure
run()
{
	echo "+ $*"
	"$@" || { echo "guest.sh: failed ($?): $*"; fail=1; }
}

# the work directory on tmpfs, and the programs' output to /dev/null: no
# ext4, virtio_blk or 9p module frames in the captures
mkdir -p $W $OUT/bin $G
mount -t tmpfs tmpfs $W
mkdir -p $W/bin $W/src
cp /mnt/src/demo.c /mnt/src/deep.cpp $W/src/
cd $W || exit 2

# ---- the programs: C and C++, -O2 -g; deep once without frame pointers
# (for --call-graph dwarf) and once with them (for -g)
run gcc -O2 -g -fno-omit-frame-pointer -pthread -o bin/demo src/demo.c
run g++ -O2 -g -fno-omit-frame-pointer -pthread -o bin/deep-fp src/deep.cpp
run g++ -O2 -g -fomit-frame-pointer -pthread -o bin/deep src/deep.cpp

# ---- the captures (default build-id cache on: it keeps the [vdso]); each
# program runs once before, so the libraries it maps are in the page cache
for b in deep deep-fp demo; do
	bin/$b 50 >/dev/null
done
# (-m: a bigger ring buffer; with the default one, the emulated guest's
# perf loses a chunk of 8 KiB stack samples)
run perf record -e cpu-clock -F 149 --call-graph dwarf -m 4M \
	-o dwarf.perf.data -- bin/deep 600 >/dev/null
run perf record -e cpu-clock -F 499 -g -o fp.perf.data -- bin/deep-fp 600 >/dev/null
run perf record -e cpu-clock -F 499 -g -o cfp.perf.data -- bin/demo 400 >/dev/null
run perf record -e cpu-clock -F 999 -o plain.perf.data -- bin/demo 600 >/dev/null
CAPTURES="dwarf fp cfp plain"

# ---- the guest's kernel symbols, cut to the addresses the captures hit
for c in $CAPTURES; do
	perf script -F ip -i $c.perf.data 2>/dev/null
done | awk '$1 ~ /^ffff/ { print $1 }' | sort -u >/tmp/kips
run python3 /mnt/src/kallsyms_trim.py /proc/kallsyms /tmp/kips $OUT/kallsyms
K="--kallsyms $OUT/kallsyms"

# ---- perf's view of each capture
SC=$(ls /usr/lib/perf-core/scripts/python/stackcollapse.py \
	/usr/libexec/perf-core/scripts/python/stackcollapse.py 2>/dev/null |
	head -n 1)
for c in $CAPTURES; do
	f=$c.perf.data
	perf report --stdio --header-only -i $f >$G/$c.header 2>&1 ||
		fail=1
	perf evlist -v -i $f >$G/$c.evlist 2>&1 || fail=1
	perf report --stats -i $f >$G/$c.stats 2>&1 || fail=1
	perf script $K -F comm,tid,time,ip,sym,dso -i $f \
		>$G/$c.script-F 2>$G/$c.script-F.err || fail=1
	perf script $K -i $f >$G/$c.script 2>$G/$c.script.err || fail=1
	# stackcollapse with the trimmed kallsyms must equal it with the
	# guest's own
	perf script report stackcollapse $K -i $f \
		>$G/$c.folded 2>$G/$c.folded.err || fail=1
	perf script report stackcollapse -i $f >/tmp/host.folded 2>/dev/null
	if ! cmp -s $G/$c.folded /tmp/host.folded; then
		echo "guest.sh: $c: the trimmed kallsyms changes perf's" \
			"folded stacks:"
		diff /tmp/host.folded $G/$c.folded
		fail=1
	fi
	# perf report's own view (folded call graphs where there are any)
	g="-g folded,0,caller,count"
	[ $c = plain ] && g=
	perf report $K --stdio --no-children $g --sort comm,dso,sym -i $f \
		>$G/$c.report 2>$G/$c.report.err || fail=1
done

# ---- perf annotate of the plain capture's two hottest symbols, with the
# guest's objdump (perf annotate has no --kallsyms: both are user symbols)
perf report $K --stdio --no-children --sort sym -q -i plain.perf.data \
	2>/dev/null | sed -n 's/^ *[0-9.]*%  \[[.k]\] \(.*[^ ]\) *$/\1/p' |
	head -n 2 >$G/plain.top2
while read -r sym; do
	perf annotate --stdio -i plain.perf.data "$sym" \
		>"$G/plain.annotate.$sym" 2>"$G/plain.annotate.$sym.err" ||
		fail=1
done <$G/plain.top2

# ---- objdump of the test binaries' functions (the whole program text:
# every hot function is in it)
for b in demo deep deep-fp; do
	objdump -d bin/$b >$G/$b.objdump || fail=1
done

# ---- the files the recorded processes mapped, for the sysroot
for c in $CAPTURES; do
	perf script --show-mmap-events -F comm -i $c.perf.data 2>/dev/null
done | sed -n 's/.*PERF_RECORD_MMAP2* .*: [-rwxps]* \(\/.*\)$/\1/p' |
	sort -u >$OUT/dsos

# ---- the [vdso] from perf's build-id cache (pdtool finds it by build-id)
mkdir -p $OUT/buildid
[ -d /root/.debug/\[vdso\] ] && cp -r /root/.debug/\[vdso\] $OUT/buildid/

# ---- the captures and binaries
for c in $CAPTURES; do
	cp $c.perf.data $OUT/
done
cp bin/demo bin/deep bin/deep-fp $OUT/bin/

# ---- what made them
{
	echo "uname: $(uname -a)"
	echo "perf: $(perf version)"
	perf version --build-options
	echo "gcc: $(gcc --version | head -n 1)"
	echo "g++: $(g++ --version | head -n 1)"
	echo "objdump: $(objdump --version | head -n 1)"
	echo "cpu:"
	grep -m 6 -E '^(processor|BogoMIPS|Features|CPU implementer|CPU part)' \
		/proc/cpuinfo
	echo "packages:"
	dpkg-query -W -f '${Package} ${Version} ${Architecture}\n' \
		linux-perf 'linux-image-*-arm64' libc6 libstdc++6 libgcc-s1 \
		gcc-12 g++-12 binutils elfutils 2>/dev/null
} >$OUT/versions 2>&1
echo "guest.sh: done, fail=$fail"
echo $fail >$OUT/status
