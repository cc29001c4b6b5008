# One damaged feature section (hostname's length made larger than the
# section): reported once, the others decode, exit 0.
d=$(mktemp -d) || exit 2
trap 'rm -rf "$d"' EXIT
python3 - testdata/demo.perf.data "$d/bad.perf.data" <<'PY' || exit 2
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
data_off, data_size = struct.unpack_from("<QQ", b, 40)
feats = struct.unpack_from("<4Q", b, 72)
table = data_off + data_size
n = 0
for bit in range(1, 256):
    if feats[bit // 64] >> (bit % 64) & 1:
        if bit == 3:  # HOSTNAME
            off, size = struct.unpack_from("<QQ", b, table + 16 * n)
            struct.pack_into("<I", b, off, size + 1)
        n += 1
open(sys.argv[2], "wb").write(b)
PY
cd "$d" && "$PDTOOL" info --header-only bad.perf.data
