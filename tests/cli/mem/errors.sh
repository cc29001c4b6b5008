# usage errors exit 64; a capture without memory samples exits 2
"$PDTOOL" mem --view foo testdata/spe/n1.perf.data; echo "exit $?"
"$PDTOOL" mem --type fetch testdata/spe/n1.perf.data; echo "exit $?"
"$PDTOOL" mem --top 0 testdata/spe/n1.perf.data; echo "exit $?"
"$PDTOOL" mem --format xml testdata/spe/n1.perf.data; echo "exit $?"
"$PDTOOL" mem testdata/fp.perf.data; echo "exit $?"
"$PDTOOL" mem --event nosuch testdata/spe/n1.perf.data; echo "exit $?"
# per-CPU SPE metadata with a CPU's magic wrong: the record and its
# offset named, exit 2
top=$PWD
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
python3 - "$top/testdata/spe/n1-meta2.perf.data" "$tmp/badmeta.perf.data" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[d.find(bytes.fromhex("1010101010101010"))] ^= 1
open(sys.argv[2], "wb").write(d)
PY
(cd "$tmp" && "$PDTOOL" mem badmeta.perf.data); echo "exit $?"
# standard input named as the reader names it
"$PDTOOL" mem - <testdata/fp.perf.data; echo "exit $?"
"$PDTOOL" mem --event nosuch - <testdata/spe/n1.perf.data; echo "exit $?"
