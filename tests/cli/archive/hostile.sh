# Hostile and damaged bundles (issue 22): a bundle holds files and
# directories only, so every link, device and FIFO is refused, as are
# names with '..' and absolute names; a zstd stream cut short or
# corrupt, a tar cut inside a member, a MANIFEST of another kind and a
# bundle without its capture are refused with one line naming the file.
# Nothing appears outside the private directory in TMPDIR ($d/outside
# stays empty) and that directory is gone afterwards ($d/tmp is empty).
command -v zstd >/dev/null || { echo "skipped: no zstd"; exit 0; }
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
mkdir -p "$d/tmp" "$d/outside" "$d/evil"
python3 - "$d" <<'PY' || exit 2
import io, sys, tarfile
d = sys.argv[1]
cap = open('testdata/demo.perf.data', 'rb').read()
MAN = b'pdtool-bundle: 1\n'

def member(name, kind='file', target='', data=b'pwned\n'):
    i = tarfile.TarInfo(name)
    if kind == 'file':
        i.size = len(data)
        return i, io.BytesIO(data)
    i.type = {'symlink': tarfile.SYMTYPE, 'hardlink': tarfile.LNKTYPE,
              'chr': tarfile.CHRTYPE, 'fifo': tarfile.FIFOTYPE,
              'dir': tarfile.DIRTYPE}[kind]
    i.linkname = target
    return i, None

def tar(members, man=MAN, with_cap=True):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.GNU_FORMAT) as t:
        for i, f in [member('MANIFEST', data=man)] + \
                ([member('perf.data', data=cap)] if with_cap else []) + \
                members:
            t.addfile(i, f)
    return buf.getvalue()

cases = {
    'dotdot': tar([member('../outside/dotdot')]),
    'dotdot-inside': tar([member('root/../../outside/inside')]),
    'absolute': tar([member(d + '/outside/absolute')]),
    'symlink': tar([member('root', 'symlink', '../outside'),
                    member('root/pwned')]),
    'symlink-inside': tar([member('jit', 'symlink', 'root')]),
    'hardlink': tar([member('hl', 'hardlink', 'perf.data')]),
    'device': tar([member('dev', 'chr')]),
    'fifo': tar([member('fifo', 'fifo')]),
    'manifest-v2': tar([], man=b'pdtool-bundle: 2\n'),
    'no-capture': tar([], with_cap=False),
}
good = tar([member('kallsyms', data=b'ffffffff81000000 T _stext\n')])
# a tar cut in the capture, then compressed whole (a valid zstd stream)
cases['tar-cut'] = good[:len(good) // 2]
for name, raw in cases.items():
    open('%s/evil/%s.tar' % (d, name), 'wb').write(raw)
open(d + '/evil/good.tar', 'wb').write(good)
PY
for f in "$d"/evil/*.tar; do
	zstd -q -19 "$f" -o "${f%.tar}.pdz" || exit 2
done
# the zstd stream itself cut short, and corrupted in its middle
python3 - "$d" <<'PY' || exit 2
import sys
d = sys.argv[1]
z = open(d + '/evil/good.pdz', 'rb').read()
open(d + '/evil/zstd-cut.pdz', 'wb').write(z[:len(z) * 2 // 3])
bad = bytearray(z)
for k in range(len(bad) // 2, len(bad) // 2 + 16):
    bad[k] ^= 0x5a
open(d + '/evil/zstd-corrupt.pdz', 'wb').write(bytes(bad))
PY
export TMPDIR="$d/tmp"
for f in dotdot dotdot-inside absolute symlink symlink-inside hardlink \
	device fifo manifest-v2 no-capture tar-cut zstd-cut zstd-corrupt \
	good; do
	"$PDTOOL" fold "$d/evil/$f.pdz" >"$d/out" 2>"$d/err"
	echo "$f: exit $?"
	sed -e "s|$d|D|g" -e 's|pdtool-archive\.[A-Za-z0-9]*|pdtool-archive.X|g' \
		"$d/err" | grep -v 'unresolved\|libc.so.6'
	[ -s "$d/out" ] && echo "stacks in hash_block: $(grep -c hash_block "$d/out")"
	find "$d/outside" "$d/tmp" -mindepth 1 | sed "s|$d|D|;s/^/written: /"
done
