# lib.sh - what the regen scripts of the generated branch-stack captures
# share (sourced after tests/golden/perf/lib.sh).

# br_regen_init [DIR]: PERF (default perf, which must be 6.1), GOLD (the
# goldens' folder, or its subfolder DIR, made), a $PD_TMP and
# br_sysroot's tree in it; exits 2 when one is missing.
br_regen_init() {
	GOLD=tests/golden/branch${1:+/$1}
	mkdir -p "$GOLD" || exit 2
	pd_regen61_start
	br_sysroot || exit 2
}

# br_sysroot: $PD_TMP/sysroot, a --symfs tree with the captures' binaries
# at their recorded paths, so that perf names their symbols.
br_sysroot() {
	mkdir -p "$PD_TMP/sysroot/opt/pdtool" \
		"$PD_TMP/sysroot/work/main/testdata/bin" \
		"$PD_TMP/sysroot/work/wt-rec3/testdata/bin" || return 1
	# group-intel-cntr's capture was recorded in another worktree
	cp testdata/bin/loop-aarch64 "$PD_TMP/sysroot/opt/pdtool/" &&
		cp testdata/bin/demo "$PD_TMP/sysroot/work/main/testdata/bin/" &&
		cp testdata/bin/demo "$PD_TMP/sysroot/work/wt-rec3/testdata/bin/"
}

# br_cut_tip: stdin to stdout without perf report's closing tip ("#",
# "# (Tip: ...)", "#", chosen at random), at the end or before the Branch
# Statistics of captures with recorded types.
br_cut_tip() {
	awk '{ l[NR] = $0 } END {
		for (i = 1; i <= NR; i++) {
			if (l[i] == "#" && l[i+1] ~ /^# \(/ && l[i+2] == "#") {
				i += 2
				continue
			}
			print l[i]
		}
	}'
}

# br_need_perf7: PERF7, the perf >= 7 of regen_report.sh, or exit.
br_need_perf7() {
	PERF7=${PERF7:?"PERF7: a perf >= 7 (see regen_report.sh)"}
}

# br_plain Z: name, the capture Z's (testdata/branches/NAME.perf.data
# or .perf.data.zst), and cap, a plain copy of it in $PD_TMP; exits 2
# when it cannot be written.
br_plain() {
	name=${1##*/}
	name=${name%.zst}
	name=${name%.perf.data}
	cap=$PD_TMP/$name.perf.data
	case $1 in
	*.zst) zstd -q -d -f -o "$cap" "$1" || exit 2 ;;
	*) cp "$1" "$cap" || exit 2 ;;
	esac
}
