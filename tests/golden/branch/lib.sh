# lib.sh - what the regen scripts of the generated branch-stack captures
# share (sourced after tests/golden/perf/lib.sh and pd_tmp_init).

# br_sysroot: $PD_TMP/sysroot, a --symfs tree with the captures' binaries
# at their recorded paths, so that perf names their symbols.
br_sysroot() {
	mkdir -p "$PD_TMP/sysroot/opt/pdtool" \
		"$PD_TMP/sysroot/work/main/testdata/bin" || return 1
	cp testdata/bin/loop-aarch64 "$PD_TMP/sysroot/opt/pdtool/" &&
		cp testdata/bin/demo "$PD_TMP/sysroot/work/main/testdata/bin/"
}
