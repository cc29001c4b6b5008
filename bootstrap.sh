#!/bin/sh
# bootstrap.sh - install what pdtool needs, build it, then run a target.
#
#   ./bootstrap.sh demo     build, then run pdtool on a bundled capture
#   ./bootstrap.sh check    build, then run every test (make check)
#   ./bootstrap.sh TARGET [MAKEVARS...]   any make target, e.g. asan
#
# Packages come from Debian.  As root they are installed with apt-get;
# otherwise the exact apt-get line is printed and nothing else is done.
set -eu
cd "$(dirname "$0")"

# build and test dependencies (README "Dependencies" lists why each)
PKGS="gcc make pkg-config libdw-dev libelf-dev libunwind-dev libzstd-dev
libcapstone-dev liblzma-dev libdebuginfod-dev libiberty-dev zlib1g-dev
libbz2-dev libxxhash-dev check python3 zstd libxml2-utils groff-base
libc6-dbg llvm cmark-gfm"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "bootstrap: installing:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing
	else
		echo "bootstrap: missing packages; run as root:" >&2
		echo "  apt-get install -y$missing" >&2
		exit 1
	fi
fi

target=${1:-demo}

# The tests also drive a real browser (tests/cli/flame/browser.test): on
# the test targets, install Debian's chromium and the npm packages the
# browser tests use.  Without them those tests skip, saying why.
case "$target" in
check | asan)
	if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
		echo "bootstrap: installing chromium for the browser tests"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends chromium ||
			echo "bootstrap: chromium not installed; browser tests will skip"
	fi
	if command -v npm >/dev/null 2>&1 &&
		[ ! -d tests/cli/flame/node_modules ]; then
		(cd tests/cli/flame && npm ci --no-audit --no-fund --loglevel=error) ||
			echo "bootstrap: npm ci failed; browser and schema tests will skip"
	fi
	;;
esac
[ $# -gt 0 ] && shift
jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs" "$@"
exec make --no-print-directory "$target" "$@"
