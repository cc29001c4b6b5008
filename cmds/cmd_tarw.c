/*
 * cmd_tarw.c - the tar writer of pdtool archive (cmd_tar.h): ustar
 * headers, pax records for names ustar cannot hold, zstd around it all.
 *
 * Why our own and not libarchive: Debian's libarchive-dev is not in the
 * bootstrap's package set, and pdtool already reads tar itself
 * (cmd_tar.c) with rules of its own; writing the one member kind a
 * bundle holds is a few dozen lines, and the zstd it is wrapped in is
 * the libzstd the reader links anyway.
 */
#include "cmd_tar.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define BLOCK 512u

static PD_PRINTF(2, 3) int fail(struct cmd_tarw *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* len bytes through the compressor (end: finish the frame). */
static int put(struct cmd_tarw *t, const void *p, size_t len, bool end)
{
	ZSTD_inBuffer in = {p, len, 0};

	t->in_bytes += len;
	for (;;) {
		ZSTD_outBuffer out = {t->zbuf, t->zbuf_size, 0};
		const size_t left = ZSTD_compressStream2(
			t->zc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);

		if (ZSTD_isError(left))
			return fail(t, "zstd: %s", ZSTD_getErrorName(left));
		if (out.pos && fwrite(t->zbuf, 1, out.pos, t->out) != out.pos)
			return fail(t, "cannot write: %s", "write error");
		t->written += out.pos;
		if (end ? left == 0 : in.pos == in.size)
			return 0;
	}
}

int cmd_tarw_open(struct cmd_tarw *t, FILE *out, int level)
{
	memset(t, 0, sizeof(*t));
	t->out = out;
	t->zc = ZSTD_createCCtx();
	t->zbuf_size = ZSTD_CStreamOutSize();
	t->zbuf = malloc(t->zbuf_size);
	if (!t->zc || !t->zbuf)
		return fail(t, "out of memory");
	if (ZSTD_isError(ZSTD_CCtx_setParameter(t->zc, ZSTD_c_compressionLevel,
						level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(t->zc, ZSTD_c_checksumFlag,
						1)))
		return fail(t, "zstd: level %d refused", level);
	return 0;
}

static void octal(unsigned char *h, size_t off, size_t len, uint64_t v)
{
	/* len - 1 digits and a NUL */
	h[off + len - 1] = '\0';
	for (size_t i = len - 1; i-- > 0; v >>= 3)
		h[off + i] = (unsigned char)('0' + (v & 7));
}

/* Split name into ustar's prefix and name fields: false when it fits
 * neither way. */
static bool split(const char *name, size_t *cut)
{
	const size_t len = strlen(name);

	if (len <= 100) {
		*cut = 0;
		return true;
	}
	for (size_t i = len > 101 ? len - 101 : 0; i < len && i <= 155; i++)
		if (name[i] == '/' && len - i - 1 <= 100 && i) {
			*cut = i;
			return true;
		}
	return false;
}

static int header(struct cmd_tarw *t, const char *name, char type,
		  uint64_t size, unsigned mode, int64_t mtime)
{
	unsigned char h[BLOCK];
	unsigned sum = 0;
	size_t cut = 0;
	const size_t len = strlen(name);

	memset(h, 0, sizeof(h));
	if (!split(name, &cut)) {
		/* a pax record: "LEN path=NAME\n", LEN counting itself */
		char rec[CMD_TAR_NAME_MAX + 32];
		const size_t n = len + 7; /* "path=", ' ' and '\n' */
		size_t digits = 1;
		int w;

		if (len > CMD_TAR_NAME_MAX)
			return fail(t, "member '%.64s...': name too long", name);
		/* the length counts its own digits */
		while (snprintf(NULL, 0, "%zu", n + digits) != (int)digits)
			digits++;
		w = snprintf(rec, sizeof(rec), "%zu path=%s\n", n + digits,
			     name);
		if (header(t, "././@PaxHeader", 'x', (uint64_t)w, 0644, mtime) <
			    0 ||
		    put(t, rec, (size_t)w, false) < 0)
			return -1;
		memset(h, 0, sizeof(h));
		if (put(t, h, (BLOCK - (size_t)w % BLOCK) % BLOCK, false) < 0)
			return -1;
		/* ustar keeps the last 100 bytes, for readers without pax */
		memcpy(h, name + len - 100, 100);
	} else if (cut) {
		memcpy(h + 345, name, cut);
		memcpy(h, name + cut + 1, len - cut - 1);
	} else {
		memcpy(h, name, len);
	}
	octal(h, 100, 8, mode);
	octal(h, 108, 8, 0);
	octal(h, 116, 8, 0);
	if (size >= (uint64_t)1 << 33) {
		/* GNU's base-256, which pax-aware readers take too */
		h[124] = 0x80;
		for (int i = 11; i > 0; i--, size >>= 8)
			h[124 + i] = (unsigned char)size;
	} else {
		octal(h, 124, 12, size);
	}
	octal(h, 136, 12, mtime > 0 ? (uint64_t)mtime : 0);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (size_t i = 0; i < BLOCK; i++)
		sum += h[i];
	octal(h, 148, 7, sum);
	h[155] = ' ';
	return put(t, h, BLOCK, false);
}

int cmd_tarw_add(struct cmd_tarw *t, const char *name, const void *data,
		 uint64_t size, unsigned mode, int64_t mtime)
{
	static const unsigned char zero[BLOCK];

	if (header(t, name, '0', size, mode, mtime) < 0 ||
	    put(t, data, (size_t)size, false) < 0 ||
	    put(t, zero, (BLOCK - size % BLOCK) % BLOCK, false) < 0)
		return -1;
	return 0;
}

int cmd_tarw_dir(struct cmd_tarw *t, const char *name, int64_t mtime)
{
	char dir[CMD_TAR_NAME_MAX + 2];

	if (snprintf(dir, sizeof(dir), "%s/", name) >= (int)sizeof(dir))
		return fail(t, "member '%.64s...': name too long", name);
	return header(t, dir, '5', 0, 0755, mtime);
}

int cmd_tarw_close(struct cmd_tarw *t)
{
	static const unsigned char zero[2 * BLOCK];

	if (put(t, zero, sizeof(zero), false) < 0 || put(t, NULL, 0, true) < 0)
		return -1;
	return 0;
}

void cmd_tarw_release(struct cmd_tarw *t)
{
	ZSTD_freeCCtx(t->zc);
	free(t->zbuf);
	t->zc = NULL;
	t->zbuf = NULL;
}
