# Hostile perf archive tarballs (issue 13 item 9): --archive extracts
# into a private directory of $TMPDIR, and no member may write outside
# it.  Each tarball below holds a good .build-id tree and one bad member
# (made with python's tarfile, which writes what it is told): names with
# '..' (plain, in a GNU long name, in a pax path), absolute names, a
# symlink out of the tree and a file written through it, a symlink
# inside the tree and a file written through it, a '..' after a name in
# a symlink's target, hard links out of the tree and to a symlink, a
# member declaring far more bytes than the archive has, a cut archive.
# Each is refused with one line naming the archive and the member, and
# nothing appears outside ($d/outside stays empty, $d/tmp is left
# empty).  A device member is skipped with a warning.
d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT
mkdir -p "$d/root" "$d/tmp" "$d/outside" "$d/evil"
python3 - "$d" <<'PY' || exit 2
import io, sys, tarfile
d = sys.argv[1]
elf = open('testdata/bin/demo', 'rb').read()
bid = '74677f1599bb0dfaf1524a98f696791f29bc8525'

def good(t):
    i = tarfile.TarInfo('.build-id/74/' + bid[2:])
    i.type, i.linkname = tarfile.SYMTYPE, '../../bin/demo/' + bid
    t.addfile(i)
    f = tarfile.TarInfo('bin/demo/%s/elf' % bid)
    f.size = len(elf)
    t.addfile(f, io.BytesIO(elf))

def member(name, kind='file', target='', data=b'pwned\n', pax=None):
    i = tarfile.TarInfo(name)
    if pax:
        i.pax_headers = pax
    if kind == 'file':
        i.size = len(data)
        return i, io.BytesIO(data)
    i.type = {'symlink': tarfile.SYMTYPE, 'hardlink': tarfile.LNKTYPE,
              'chr': tarfile.CHRTYPE, 'dir': tarfile.DIRTYPE}[kind]
    i.linkname = target
    return i, None

cases = {
    'dotdot': [member('../../outside/dotdot')],
    'dotdot-inside': [member('bin/../../../outside/inside')],
    'absolute': [member(d + '/outside/absolute')],
    'long-name': [member('x' * 120 + '/../../../outside/long')],
    'pax-path': [member('harmless', pax={'path': '../../outside/pax'})],
    'symlink-out': [member('esc', 'symlink', '../../outside'),
                    member('esc/pwned')],
    'symlink-abs': [member('esc', 'symlink', d + '/outside'),
                    member('esc/pwned')],
    'symlink-then-file': [member('in', 'symlink', '.build-id'),
                          member('in/pwned')],
    'symlink-dot': [member('s', 'symlink', '.'),
                    member('l', 'symlink', 's/../outside')],
    'hardlink-out': [member('hl', 'hardlink', '../../outside/x')],
    'hardlink-symlink': [member('sl', 'symlink', 'bin'),
                         member('hl', 'hardlink', 'sl')],
    'device': [member('dev/null', 'chr')],
}
for name, members in cases.items():
    fmt = tarfile.PAX_FORMAT if name == 'pax-path' else tarfile.GNU_FORMAT
    with tarfile.open('%s/evil/%s.tar.bz2' % (d, name), 'w:bz2',
                      format=fmt) as t:
        good(t)
        for i, f in members:
            t.addfile(i, f)

# a member that declares a terabyte, then the end of the archive
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode='w', format=tarfile.GNU_FORMAT) as t:
    good(t)
huge = tarfile.TarInfo('bin/huge')
huge.size = 1 << 40
raw = buf.getvalue().rstrip(b'\0')
raw += b'\0' * (-len(raw) % 512)
raw += huge.tobuf(tarfile.GNU_FORMAT) + b'\0' * 1024
import bz2
open(d + '/evil/huge.tar.bz2', 'wb').write(bz2.compress(raw))
# cut in the middle of the elf
open(d + '/evil/cut.tar.bz2', 'wb').write(bz2.compress(raw[:8192]))
PY
export TMPDIR="$d/tmp"
for f in dotdot dotdot-inside absolute long-name pax-path symlink-out \
	symlink-abs symlink-then-file symlink-dot hardlink-out \
	hardlink-symlink huge cut device; do
	"$PDTOOL" fold --symfs "$d/root" --archive "$d/evil/$f.tar.bz2" \
		testdata/demo.perf.data >"$d/out" 2>"$d/err"
	echo "$f: exit $?"
	sed -e "s|$d|D|g" -e "s|x\{120\}|X120|g" "$d/err" |
		grep -v 'samples folded\|unresolved frames\|libc.so.6'
	[ -s "$d/out" ] && echo "stacks in hash_block: $(grep -c hash_block "$d/out")"
	find "$d/outside" "$d/tmp" -mindepth 1 | sed "s|$d|D|;s/^/written: /"
done
