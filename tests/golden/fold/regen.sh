#!/bin/sh
# regen.sh - perf 6.1's folded stacks of every capture: the oracle of
# tests/cli/fold/golden.test.
#
#	sh tests/golden/fold/regen.sh [NAME|CORPUS_PATH...]
#
# `perf script report stackcollapse ARGS` is, in perf 6.1, the script
# scripts/python/bin/stackcollapse-report, which runs
# `perf script -s $PERF_EXEC_PATH/scripts/python/stackcollapse.py ARGS`;
# this runs that command line itself so that perf's global --buildid-dir
# can be put in front of it.  Writes:
#
#   testdata/NAME.folded
#	perf script -s stackcollapse.py --kallsyms KALLSYMS -i FILE, with
#	this host's binaries at their recorded paths and a build-id cache
#	of testdata/vdso (PERF_BUILDID_DIR, as tests/cli/run.sh).  KALLSYMS
#	(pd_kallsyms) is tests/golden/fold/kallsyms.KERNEL for a capture
#	recorded on a kernel that has one, else tests/golden/fold/kallsyms:
#	the recording host's /proc/kallsyms cut down to the symbols its
#	captures hit (kallsyms_trim.py), so pdtool can be given the same
#	kernel symbols on any host; regen.sh rewrites the file of the
#	kernel it runs on and checks that perf's output with it equals its
#	output with the host's own kallsyms.
#   testdata/NAME.script[.zst]
#	perf script --kallsyms KALLSYMS -i FILE: the text
#	stackcollapse-perf.pl reads, for `pdtool fold --from-script`.
#   corpus/PATH.folded[.zst]
#	perf --buildid-dir EMPTY script -s stackcollapse.py --kallsyms EMPTY
#	--symfs SYSROOT -i FILE.  SYSROOT holds the capture's companion
#	binaries (the ELF files next to it in the corpus) at the paths the
#	capture recorded for them, and nothing else: no host binary or
#	kallsyms stands in for one of the recording host's.  corpus/PATH.symfs
#	lists them, "recorded-path<TAB>corpus-path" a line, so the test
#	builds the same sysroot.  Captures perf 6.1 refuses only for their
#	attr size or COMPRESSED2 chunks are read through the converted copies
#	of tests/golden/perf (attrshrink.py, comp2to1.py).
#
# A golden's first lines may be "# " notes: "# partial: ..." when perf
# stopped early (its output then covers part of the file), "# dwarf: ..."
# when the capture's user stacks need DWARF unwinding, "# lbr: ..." when
# perf builds its call stacks from an LBR branch stack, "# auxtrace: ..."
# when perf synthesizes samples from a hardware trace, "# perf 6.1 read
# a copy: ...".  A golden over 32 KiB is stored zstd-compressed.  Needs perf
# 6.1, python3 and zstd.
set -u
cd "$(dirname "$0")/../../.." || exit 2
. tests/golden/perf/lib.sh

GOLD=tests/golden/fold
PGOLD=tests/golden/perf
BIG=32768
STOPPED="unexpected end of event stream|failed to process (type|sample)|bad event header size|Couldn't decompress"

pd_regen61_start
script=$("$PERF" script -l >/dev/null 2>&1; \
	 ls /usr/lib/perf-core/scripts/python/stackcollapse.py \
	    /usr/libexec/perf-core/scripts/python/stackcollapse.py 2>/dev/null |
	 head -n 1)
[ -n "$script" ] || { echo "regen.sh: no stackcollapse.py" >&2; exit 2; }
PERF_EXEC_PATH=$(dirname "$(dirname "$(dirname "$script")")")
export PERF_EXEC_PATH
: >"$PD_TMP/empty"
mkdir -p "$PD_TMP/nobuildid"

wanted()
{
	[ $# -eq 0 ] && return 0
	for w; do [ "$w" = "$cur" ] && return 0; done
	return 1
}

# store OUT: OUT (plain) becomes OUT.zst when big
store()
{
	rm -f "$1.zst"
	if [ "$(wc -c <"$1")" -gt $BIG ]; then
		zstd -q -19 --rm -f "$1" -o "$1.zst"
	fi
}

# collapse FILE OUT NOTE PERF-ARGS...: perf's folded stacks of FILE
collapse()
{
	file=$1 out=$2 note=$3
	shift 3
	mkdir -p "$(dirname "$out")"
	rm -f "$out" "$out.zst"
	"$PERF" --buildid-dir "$BUILDID_DIR" script -s "$script" "$@" \
		-i "$file" >"$PD_TMP/folded" 2>"$PD_TMP/err"
	rc=$?
	{
		[ -n "$note" ] && printf '%s\n' "$note"
		if [ $rc != 0 ] || grep -Eq "$STOPPED" "$PD_TMP/err"; then
			why=$(grep -E "$STOPPED" "$PD_TMP/err" | head -n 1)
			[ -n "$why" ] || why=$(grep . "$PD_TMP/err" | tail -n 1)
			echo "# partial: perf script stopped early (exit $rc: $why)"
		fi
		cat "$PD_TMP/folded"
	} >"$out"
	printf '%-66s %6s lines\n' "$out" "$(grep -vc '^#' "$out")"
	store "$out"
}

# kind_notes FILE [STATS]: the notes on how FILE's stacks were taken
kind_notes()
{
	"$PERF" evlist -v -i "$1" 2>/dev/null </dev/null >"$PD_TMP/evlist"
	if grep -q 'STACK_USER' "$PD_TMP/evlist"; then
		echo "# dwarf: user stacks need DWARF unwinding"
	fi
	if grep -q 'branch_sample_type: .*CALL_STACK' "$PD_TMP/evlist"; then
		echo "# lbr: perf stitches call stacks from the branch stack"
	fi
	# perf's record counts (tests/golden/perf) show AUXTRACE data
	if grep -qs "^AUXTRACE " "${2:-/dev/null}"; then
		echo "# auxtrace: perf adds samples it decodes from the trace"
	fi
}

fail=0

# ---- testdata ------------------------------------------------------
# The kallsyms of the kernel this host runs (pd_kallsyms), when testdata
# captures were recorded on it: rewritten from /proc/kallsyms, cut down
# to the symbols those captures hit.  $PD_KALLSYMS also serves the
# captures of kernels that have no kallsyms of their own.
host=$(uname -r)
hk=$PD_KALLSYMS.$host
[ "$host" = "$(pd_capture_kernel demo)" ] && hk=$PD_KALLSYMS
# (with those of testdata's subdirectories: sched/sysw's kernel frames
# are named through the same file)
mine=
for md in testdata/*.md testdata/*/*.md; do
	cur=${md#testdata/}
	cur=${cur%.md}
	[ -e "testdata/$cur.perf.data" ] ||
		[ -e "testdata/$cur.perf.data.zst" ] || continue
	if [ "$(pd_capture_kernel "$cur")" = "$host" ] ||
		[ "$(pd_kallsyms "$cur")" = "$hk" ]; then
		mine="$mine $cur"
	fi
done
host_ok=0
if [ -n "$mine" ] && [ -r /proc/kallsyms ]; then
	for cur in $mine; do
		f=$(pd_capture "$cur") || exit 2
		"$PERF" script -F ip -i "$f" 2>/dev/null
	done | awk '$1 ~ /^ffff/ { print $1 }' | sort -u >"$PD_TMP/kips"
	python3 $GOLD/kallsyms_trim.py /proc/kallsyms "$PD_TMP/kips" \
		"$hk" || exit 2
	echo "$hk: $(wc -l <"$hk") symbols of $host"
	host_ok=1
else
	echo "regen.sh: no capture recorded on $host: kallsyms kept," \
		"host-kallsyms check skipped" >&2
fi
# perf's build-id cache: the vdso images of the recording kernels, as
# tests/cli/run.sh gives pdtool (PERF_BUILDID_DIR), never ~/.debug
python3 $GOLD/buildid_dir.py "$PD_TMP/debug" testdata/vdso/*/* >/dev/null ||
	exit 2
BUILDID_DIR=$PD_TMP/debug
PERF_BUILDID_DIR=$BUILDID_DIR
export PERF_BUILDID_DIR
for cur in $(pd_captures); do
	wanted "$@" || continue
	f=$(pd_capture "$cur") || { fail=1; continue; }
	ks=$(pd_kallsyms "$cur")
	note=$(kind_notes "$f")
	collapse "$f" "$GOLD/testdata/$cur.folded" "$note" \
		--kallsyms "$ks" || fail=1
	rm -f "$GOLD/testdata/$cur.script" "$GOLD/testdata/$cur.script.zst"
	"$PERF" script --kallsyms "$ks" -i "$f" \
		>"$GOLD/testdata/$cur.script" 2>/dev/null || fail=1
	store "$GOLD/testdata/$cur.script"
	if [ $host_ok = 1 ] && [ "$ks" = "$hk" ]; then
		"$PERF" script -s "$script" -i "$f" >"$PD_TMP/host" 2>/dev/null
		if ! grep -v '^#' "$GOLD/testdata/$cur.folded" |
			cmp -s - "$PD_TMP/host"; then
			echo "regen.sh: $cur: the trimmed kallsyms changes" \
				"perf's output" >&2
			fail=1
		fi
	fi
done

# ---- corpus --------------------------------------------------------
if ! pd_have_corpus; then
	echo "regen.sh: no $PD_CORPUS: corpus goldens left as they are" >&2
	exit $fail
fi
BUILDID_DIR=$PD_TMP/nobuildid

# companions DIR: the ELF files in DIR that are not captures
companions()
{
	for b in "$1"/*; do
		[ -f "$b" ] || continue
		case $(head -c 4 "$b" | od -An -c | tr -d ' ') in
		177ELF) echo "$b" ;;
		esac
	done
}

# convert NAME IN OUT (as tests/golden/perf/regen.sh): 0 and OUT, 3 when
# NAME does not apply, else failure
convert()
{
	rm -f "$3"
	python3 "$PGOLD/$1.py" "$2" "$3" >"$PD_TMP/$1.out" 2>"$PD_TMP/conv.err"
}

pd_corpus_captures >"$PD_TMP/corpus.list"
while read -r cur verdict; do
	wanted "$@" || continue
	src=$PD_CORPUS/$cur
	note=
	case $verdict in
	yes|partly) ;;
	*)	convert attrshrink "$src" "$PD_TMP/shrunk" </dev/null
		[ -f "$PD_TMP/shrunk" ] || continue
		src=$PD_TMP/shrunk
		note="attrs cut to 128 bytes by attrshrink.py" ;;
	esac
	convert comp2to1 "$src" "$PD_TMP/comp1" </dev/null
	if [ -f "$PD_TMP/comp1" ]; then
		src=$PD_TMP/comp1
		note="${note:+$note; }COMPRESSED2 rewritten as COMPRESSED by comp2to1.py"
	fi
	[ -n "$note" ] && note="# perf 6.1 read a copy: $note"
	kinds=$(kind_notes "$src" "$PGOLD/corpus/$cur.stats")
	[ -n "$kinds" ] && note="${note:+$note
}$kinds"
	# the sysroot: companions at the paths the capture recorded
	rm -rf "$PD_TMP/sysroot"
	mkdir -p "$PD_TMP/sysroot"
	out=$GOLD/corpus/$cur
	mkdir -p "$(dirname "$out")"
	: >"$out.symfs"
	"$PERF" script -F comm --show-mmap-events -i "$src" </dev/null \
		2>/dev/null | sed -n 's/.*PERF_RECORD_MMAP2* .*: [-rwxps]* \(\/.*\)$/\1/p;s/.*PERF_RECORD_MMAP .*\]: [a-z] \(\/.*\)$/\1/p' |
		sort -u >"$PD_TMP/paths"
	for b in $(companions "$(dirname "$PD_CORPUS/$cur")"); do
		base=${b##*/}
		grep "/$base\$" "$PD_TMP/paths" | while read -r p; do
			mkdir -p "$PD_TMP/sysroot$(dirname "$p")"
			ln -sf "$(cd "$(dirname "$b")" && pwd)/$base" \
				"$PD_TMP/sysroot$p"
			printf '%s\t%s\n' "$p" "${b#$PD_CORPUS/}" >>"$out.symfs"
		done
	done
	[ -s "$out.symfs" ] || rm -f "$out.symfs"
	collapse "$src" "$out.folded" "$note" --kallsyms "$PD_TMP/empty" \
		--symfs "$PD_TMP/sysroot" </dev/null || fail=1
done <"$PD_TMP/corpus.list"
exit $fail
