# Markdown, CSV and JSON: AMD Zen 4 (no cycles, speculation outcome), AMD
# BRS (no prediction: "-", never "predicted"), ARM BRBE decoded from the
# aarch64 code (no TYPE_SAVE) with its recorded privilege
"$PDTOOL" branches --format md testdata/branches/demo-zen4.perf.data.zst
"$PDTOOL" branches --format csv --sort count \
	testdata/branches/demo-brs.perf.data.zst
"$PDTOOL" branches --format json --by addr --buildid-dir testdata/buildid \
	testdata/branches/loop-brbe-notype.perf.data.zst | sed -n 1,60p
