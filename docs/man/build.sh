#!/bin/sh
# build.sh - regenerate the committed roff man pages from their Markdown
# sources (STYLE D1).  Needs go-md2man (Debian package go-md2man).
#
# go-md2man copies a text line that starts with '.' or "'" as it is, and
# troff then takes it for a request ("'.gnu_debuglink' not defined") and
# drops it: every such line that is not one of the requests go-md2man
# writes gets the zero-width "\&" in front.  tests/cli/docs/roff.test
# renders every page with groff -ww and fails on any warning.
set -eu
cd "$(dirname "$0")"
command -v go-md2man >/dev/null || {
	echo "build.sh: go-md2man not found: apt-get install go-md2man" >&2
	exit 1
}
for md in *.1.md; do
	go-md2man -in "$md" -out "${md%.md}.tmp"
	awk '
	/^[.'\'']/ {
		req = substr($1, 2)
		if (req !~ /^(TH|SH|SS|PP|LP|TP|IP|RS|RE|nf|fi|nh|ad|na|br|sp|in|ti|EX|EE|B|I|BI|BR|IB|IR|RB|RI|UR|UE|ME|MT|\\")$/)
			$0 = "\\&" $0
	}
	{ print }' "${md%.md}.tmp" >"${md%.md}"
	rm -f "${md%.md}.tmp"
done
