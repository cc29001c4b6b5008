# A capture cut at 48% of its data section (issue 13 #11): info, fold's
# summary and the reader's warning say how much of the data the header
# declares is missing, not only the bytes of the one record cut short.
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
python3 - testdata/demo.perf.data "$d/cut.perf.data" <<'PY' || exit 2
import struct, sys
buf = open(sys.argv[1], 'rb').read()
off, size = struct.unpack_from('<QQ', buf, 40)
open(sys.argv[2], 'wb').write(buf[:off + size * 48 // 100])
PY
cd "$d" || exit 2
"$PDTOOL" info cut.perf.data | grep -E '^(damaged|cut short):'
"$PDTOOL" info --json cut.perf.data | python3 -c '
import json, sys
d = json.load(sys.stdin)["damage"]
print(d["bytes_missing"], d["data_declared"])'
"$PDTOOL" fold cut.perf.data > /dev/null
