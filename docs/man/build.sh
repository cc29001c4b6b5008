#!/bin/sh
# build.sh - regenerate the committed roff man pages from their Markdown
# sources (STYLE D1).  Needs go-md2man (Debian package go-md2man).
set -eu
cd "$(dirname "$0")"
command -v go-md2man >/dev/null || {
	echo "build.sh: go-md2man not found: apt-get install go-md2man" >&2
	exit 1
}
for md in *.1.md; do
	go-md2man -in "$md" -out "${md%.md}"
done
