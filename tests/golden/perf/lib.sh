# lib.sh - shell helpers shared by the perf golden files and the
# differential tests; source it from the repository root:
#
#	. tests/golden/perf/lib.sh
#	pd_tmp_init			# a private temp dir, removed on exit
#	for name in $(pd_captures); do
#		file=$(pd_capture "$name")	# a plain path perf can read
#	done
#
# STYLE T3 keeps a testdata capture over 64 KiB zstd-compressed, as
# testdata/NAME.perf.data.zst; a directory capture (perf record --threads)
# is testdata/NAME.perf.data/ whose big data files are stored as *.zst.
# pd_capture turns either into a plain file or directory under $PD_TMP, so
# perf and pdtool both read exactly what record.sh wrote.

PD_TESTDATA=${PD_TESTDATA:-testdata}
# The shared corpus of real captures (read-only, never copied into the
# tree): $PD_CORPUS, relative to the repository root unless absolute.
# The unit tests read the same variable (tests/unit/testcorpus.c).
PD_CORPUS=${PD_CORPUS:-../shared/corpus}

# Whether the corpus is there (its MANIFEST.md is).
pd_have_corpus()
{
	[ -f "$PD_CORPUS/MANIFEST.md" ]
}

# Exit 77 (skipped), saying why, when the corpus is absent: for a test
# that checks nothing else.
pd_need_corpus()
{
	pd_have_corpus && return 0
	echo "skipped: corpus not found at $PD_CORPUS (set PD_CORPUS)"
	exit 77
}

# Say that part of a test was skipped, and why, for a test that passes
# on what it could check: tests/cli/run.sh shows the reason beside PASS
# and counts the test as partly skipped.
pd_partly_skipped()
{
	echo "partly skipped: $*"
}

# Fail (return 1, saying so) when a case-list test compared nothing: an
# empty or misread list must not pass as agreement.  pd_compared N WHAT.
pd_compared()
{
	[ "$1" -gt 0 ] && return 0
	echo "FAIL: no $2 compared (is the case list empty?)"
	return 1
}

# Create $PD_TMP and remove it when the calling shell exits.
pd_tmp_init()
{
	PD_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pdtool-test.XXXXXX") || exit 2
	export PD_TMP
	trap 'rm -rf "$PD_TMP"' EXIT
	trap 'exit 130' INT TERM
}

# Where testdata's captures were recorded: the repository's top then.
# A capture without build-ids (pipe mode; demo's and zstd's libc) names
# its binaries by the paths they had, and perf's goldens were made with
# them there.
PD_RECORDED_TOP=/work/main
# Host binaries the testdata captures name by path and sample in
# (record.sh's programs and their libraries, exec's shell wrapper, the
# commands sysw caught, this machine's python among them).
PD_RECORDED_HOST="/usr/lib/x86_64-linux-gnu/libc.so.6
/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30
/usr/lib/x86_64-linux-gnu/libm.so.6
/usr/lib/x86_64-linux-gnu/libgcc_s.so.1
/usr/lib/x86_64-linux-gnu/libtinfo.so.6.4
/usr/bin/bash /usr/bin/dash /usr/bin/env /usr/bin/readlink /usr/bin/grep
/usr/bin/head /usr/bin/tail /usr/bin/sleep /usr/bin/basename
/usr/bin/setarch
/root/.pyenv/versions/3.11.7/bin/python3.11
/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0"

# The pdtool options that find testdata's binaries at their recorded
# paths: none in a checkout at $PD_RECORDED_TOP (or with one there);
# else --symfs of a tree under $PD_TMP holding, at those paths, copies of
# this checkout's testdata/bin and of the host binaries the captures
# name, with their debug files (copies: --symfs follows no link out of
# its tree).  So the tests
# read a clone anywhere as they read the checkout the captures were
# recorded in.
pd_recorded_opts()
{
	[ -e "$PD_RECORDED_TOP/testdata/bin/demo" ] && return 0
	_root=${PD_TMP:?call pd_tmp_init first}/recorded-root
	if [ ! -d "$_root" ]; then
		mkdir -p "$_root$PD_RECORDED_TOP/testdata/bin" || return 1
		cp testdata/bin/* "$_root$PD_RECORDED_TOP/testdata/bin/" ||
			return 1
		for _f in $PD_RECORDED_HOST; do
			[ -f "$_f" ] || continue
			mkdir -p "$_root${_f%/*}" || return 1
			# a hard link where it can (not a symlink: --symfs
			# follows none out of its tree)
			ln "$_f" "$_root$_f" 2>/dev/null ||
				cp "$_f" "$_root$_f" || return 1
			# and its debug file (libc6-dbg's), which the root's
			# /usr/lib/debug stands for
			_id=$(readelf -n "$_f" 2>/dev/null |
				sed -n 's/.*Build ID: *//p')
			_d=/usr/lib/debug/.build-id/$(echo "$_id" | cut -c1-2)
			_d=$_d/$(echo "$_id" | cut -c3-).debug
			[ -n "$_id" ] && [ -f "$_d" ] || continue
			mkdir -p "$_root${_d%/*}" || return 1
			ln "$_d" "$_root$_d" 2>/dev/null ||
				cp "$_d" "$_root$_d" || return 1
		done
	fi
	echo "--symfs $_root"
}

# The kernel symbols the goldens name testdata's kernel frames by: the
# recording host's /proc/kallsyms cut down to the symbols the captures
# hit (tests/golden/fold/regen.sh writes them).  $PD_KALLSYMS is the
# kernel most captures were recorded on (demo's); a capture recorded on
# another kernel K is named through $PD_KALLSYMS.K when there is one.
PD_KALLSYMS=tests/golden/fold/kallsyms

# The kernel testdata capture NAME (demo, sched/sysw) was recorded on,
# as its NAME.md says; nothing when it does not say.
pd_capture_kernel()
{
	sed -n 's/^- Recorded with: .*kernel \([^,]*\),.*/\1/p' \
		"$PD_TESTDATA/$1.md" 2>/dev/null | head -n 1
}

# The kallsyms file for testdata capture NAME (or its path), relative to
# the repository's top: its own kernel's, else $PD_KALLSYMS.
pd_kallsyms()
{
	_n=${1#"$PD_TESTDATA"/}
	_n=${_n#"${PD_TMP:-/nonexistent}"/}
	_n=${_n%%.perf.data*}
	_k=$(pd_capture_kernel "$_n")
	if [ -n "$_k" ] && [ -f "$PD_KALLSYMS.$_k" ]; then
		echo "$PD_KALLSYMS.$_k"
	else
		echo "$PD_KALLSYMS"
	fi
}

# The names of the testdata captures (demo, fp, ...), one per line, sorted.
pd_captures()
{
	for f in "$PD_TESTDATA"/*.perf.data "$PD_TESTDATA"/*.perf.data.zst; do
		[ -e "$f" ] || continue
		f=${f##*/}
		echo "${f%%.perf.data*}"
	done | sort -u
}

# Print a plain path for capture NAME, decompressing into $PD_TMP where the
# stored form is compressed.  Fails (status 1, message on stderr) when the
# capture does not exist or does not decompress.
pd_capture()
{
	_src=$PD_TESTDATA/$1.perf.data
	_dst=${PD_TMP:?call pd_tmp_init first}/$1.perf.data
	if [ -e "$_dst" ]; then
		echo "$_dst"
	elif [ -f "$_src" ]; then
		echo "$_src"
	elif [ -f "$_src.zst" ]; then
		# a capture of a subdirectory (branches/demo-intel)
		mkdir -p "${_dst%/*}" || return 1
		zstd -q -d -o "$_dst" "$_src.zst" || {
			echo "pd_capture: cannot decompress '$_src.zst'" >&2
			return 1
		}
		echo "$_dst"
	elif [ -d "$_src" ]; then
		if ! ls "$_src" | grep -q '\.zst$'; then
			echo "$_src"
			return 0
		fi
		mkdir -p "$_dst" || return 1
		for _f in "$_src"/*; do
			case "$_f" in
			*.zst)	_b=${_f##*/}
				zstd -q -d -o "$_dst/${_b%.zst}" "$_f" || {
					echo "pd_capture: cannot decompress '$_f'" >&2
					return 1
				} ;;
			*)	cp "$_f" "$_dst/" || return 1 ;;
			esac
		done
		echo "$_dst"
	else
		echo "pd_capture: no capture '$1' in $PD_TESTDATA" >&2
		return 1
	fi
}

# The corpus captures perf 6.1 was run on, one "PATH VERDICT" line each
# (PATH relative to $PD_CORPUS, VERDICT the first word of MANIFEST.md's last
# column: yes, partly, NO, only).  Companion files have no verdict column
# and are not listed.
pd_corpus_captures()
{
	python3 - "$PD_CORPUS/MANIFEST.md" <<'PYEOF'
import sys
for line in open(sys.argv[1], encoding="utf-8"):
    if not line.startswith("| `"):
        continue
    cols = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cols) < 12:
        continue
    verdict = cols[-1].split()[0].rstrip(":").strip("*")
    print(cols[0].strip("`"), verdict)
PYEOF
}

# Put the companion binaries of corpus capture PATH (relative to
# $PD_CORPUS) at their recorded paths under $PD_TMP/sysroot, as
# tests/golden/fold/corpus/PATH.symfs lists them ("recorded<TAB>file"),
# for --symfs.  Hard links or copies, not symlinks: --symfs resolves an
# absolute symlink inside the sysroot, as a chroot would.
pd_sysroot()
{
	rm -rf "$PD_TMP/sysroot"
	mkdir -p "$PD_TMP/sysroot"
	[ -f "tests/golden/fold/corpus/$1.symfs" ] || return 0
	while IFS='	' read -r _rec _file; do
		mkdir -p "$PD_TMP/sysroot$(dirname "$_rec")"
		ln "$PD_CORPUS/$_file" "$PD_TMP/sysroot$_rec" 2>/dev/null ||
			cp "$PD_CORPUS/$_file" "$PD_TMP/sysroot$_rec"
	done <"tests/golden/fold/corpus/$1.symfs"
}

# Exit 2, saying why, unless $PERF (default perf) is perf 6.1: the oracle
# every golden file names.
# perf's report of a generated capture for each line "VARIANT<TAB>OPTIONS"
# of G/variants: perf report --stdio --kallsyms KALLSYMS OPTIONS of
# INPUT (a *.pipe.data stream on perf's stdin), its closing tip cut, in
# G/CASE.VARIANT[SUFFIX].txt.  Usage: pd_report_variants G CASE INPUT
# KALLSYMS [SUFFIX]; needs $PD_TMP.
pd_report_variants()
{
	grep -v '^#' "$1/variants" | while IFS='	' read -r pd_v pd_opts; do
		[ -n "$pd_v" ] || continue
		# shellcheck disable=SC2086 # the options are words
		case $3 in
		*.pipe.data)
			"${PERF:-perf}" report -i - --stdio --kallsyms "$4" \
				$pd_opts <"$3" ;;
		*)
			"${PERF:-perf}" report -i "$3" --stdio --kallsyms "$4" \
				$pd_opts ;;
		esac >"$PD_TMP/out" 2>/dev/null || true
		python3 tests/golden/perf/cuttip.py "$PD_TMP/out" \
			"$1/$2.$pd_v${5:-}.txt"
	done
}

# pd_report_variants of every capture a generator wrote in $PD_TMP
# (CASE.perf.data, the same records as CASE.pipe.data, CASE.kallsyms):
# G/CASE.VARIANT.txt and G/CASE.VARIANT.pipe.txt.  Usage:
# pd_report_cases G
pd_report_cases()
{
	for pd_f in "$PD_TMP"/*.perf.data; do
		pd_c=${pd_f##*/}
		pd_c=${pd_c%.perf.data}
		pd_report_variants "$1" "$pd_c" "$pd_f" "$PD_TMP/$pd_c.kallsyms"
		pd_report_variants "$1" "$pd_c" "$PD_TMP/$pd_c.pipe.data" \
			"$PD_TMP/$pd_c.kallsyms" .pipe
	done
}

pd_need_perf61()
{
	pd_v=$("${PERF:-perf}" version 2>/dev/null) ||
		{ echo "regen.sh: no perf" >&2; exit 2; }
	case $pd_v in
	"perf version 6.1."*) ;;
	*) echo "regen.sh: $pd_v is not perf 6.1, the oracle the goldens name" >&2
	   exit 2 ;;
	esac
}

# Start a regen script of perf 6.1 goldens from the repository's top
# (the prologue each shares after its cd and sourcing this file): PERF
# set (default perf) and perf 6.1, $PD_TMP made.
pd_regen61_start()
{
	PERF=${PERF:-perf}
	pd_need_perf61
	pd_tmp_init
}

# pd_regen61_start, and a build-id cache of testdata/bin in
# $PD_TMP/bid, as the tests give pdtool (--buildid-dir).
pd_regen61_init()
{
	pd_regen61_start
	python3 tests/golden/fold/buildid_dir.py "$PD_TMP/bid" testdata/bin/* \
		testdata/vdso/*/* \
		>/dev/null || exit 2
}

# The same for perf >= 6.10 at PERF7 (default /tmp/dt3/perf7): it must
# run; the cache also holds this host's vdso (hostvdso.py), as perf
# keeps one.
pd_regen7_init()
{
	PERF7=${PERF7:-/tmp/dt3/perf7}
	"$PERF7" version 2>/dev/null | grep -q '^perf version' ||
		{ echo "regen.sh: no perf at $PERF7" >&2; exit 2; }
	pd_tmp_init
	python3 tests/golden/fold/buildid_dir.py "$PD_TMP/bid" testdata/bin/* \
		testdata/vdso/*/* \
		>/dev/null || exit 2
	python3 tests/golden/perf/hostvdso.py "$PD_TMP/bid" || exit 2
}
