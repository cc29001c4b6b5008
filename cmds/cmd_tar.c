/*
 * cmd_tar.c - a tar reader over bytes in memory: POSIX ustar, the GNU
 * format GNU tar writes by default (what perf archive's `tar cjf`
 * makes: long names in 'L' and 'K' members, base-256 sizes) and pax
 * extended headers ('x' for the next member, 'g' for all that follow:
 * path, linkpath and size).  It only parses: what a member may create is
 * cmd_archive.c's to decide.
 *
 * Why not libarchive: pdtool reads one kind of archive, perf archive's,
 * and must refuse hostile ones member by member with its own rules
 * (cmd_archive.c); the reader is small enough to check by reading, and
 * libarchive would be one more library, with its own formats and
 * extraction policies, for a few hundred lines.
 */
#include "cmd_tar.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define BLOCK 512u

/* ustar header fields: offset, length */
#define F_NAME 0, 100
#define F_SIZE 124, 12
#define F_CHKSUM 148, 8
#define F_TYPE 156
#define F_LINK 157, 100
#define F_MAGIC 257
#define F_PREFIX 345, 155

static PD_PRINTF(2, 3) int fail(struct cmd_tar *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* A numeric field: octal (spaces and NULs around it), or GNU's base-256
 * (first byte 0x80, big-endian); false when it is neither. */
static bool number(const unsigned char *p, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (p[0] == 0x80) {
		for (i = 1; i < len; i++) {
			if (v >> 56)
				return false;
			v = v << 8 | p[i];
		}
		*out = v;
		return true;
	}
	while (i < len && p[i] == ' ')
		i++;
	if (i == len || p[i] < '0' || p[i] > '7')
		return false;
	for (; i < len && p[i] >= '0' && p[i] <= '7'; i++) {
		if (v >> 61)
			return false;
		v = v << 3 | (uint64_t)(p[i] - '0');
	}
	for (; i < len; i++)
		if (p[i] != ' ' && p[i] != '\0')
			return false;
	*out = v;
	return true;
}

/* The checksum: the header's bytes, its own field counted as spaces;
 * old tars summed signed chars. */
static bool checksum_ok(const unsigned char *h)
{
	uint64_t want, sum = 0;
	int64_t ssum = 0;

	if (!number(h + F_CHKSUM, &want))
		return false;
	for (unsigned i = 0; i < BLOCK; i++) {
		const unsigned char c = i >= 148 && i < 156 ? ' ' : h[i];

		sum += c;
		ssum += (signed char)c;
	}
	return sum == want || (uint64_t)ssum == want;
}

bool cmd_tar_is_tar(const unsigned char *p, size_t n)
{
	return n >= BLOCK && memcmp(p + F_MAGIC, "ustar", 5) == 0 &&
	       checksum_ok(p);
}

void cmd_tar_init(struct cmd_tar *t, const void *buf, uint64_t len)
{
	memset(t, 0, sizeof(*t));
	t->p = buf;
	t->len = len;
}

/* A header field that may fill its length, as a string. */
static void field(char *dst, const unsigned char *p, size_t len)
{
	const unsigned char *nul = memchr(p, '\0', len);
	const size_t n = nul ? (size_t)(nul - p) : len;

	memcpy(dst, p, n);
	dst[n] = '\0';
}

/* The data of the member whose header is at t->pos, len bytes: false
 * when the archive ends first. */
static bool member_data(const struct cmd_tar *t, uint64_t len)
{
	return len <= t->len - t->pos - BLOCK;
}

/* A 'L' or 'K' member's data: the next member's name or link target. */
static int long_name(struct cmd_tar *t, uint64_t size, char *dst,
		     const char *what)
{
	const unsigned char *d = t->p + t->pos + BLOCK;
	size_t n;

	if (size == 0 || size > CMD_TAR_NAME_MAX)
		return fail(t, "a %s of %llu bytes (at most %u)", what,
			    (unsigned long long)size, CMD_TAR_NAME_MAX);
	n = (size_t)size;
	/* GNU tar counts the NUL that ends it */
	if (d[n - 1] == '\0')
		n = strnlen((const char *)d, n);
	if (!n || memchr(d, '\0', n))
		return fail(t, "a %s with a NUL byte in it", what);
	memcpy(dst, d, n);
	dst[n] = '\0';
	return 0;
}

/* One pax record's value into dst (a name) or *size. */
static int pax_value(struct cmd_tar *t, const char *key, size_t key_len,
		     const char *val, size_t val_len, struct cmd_tar_pax *x)
{
	char *dst = NULL;
	uint64_t v = 0;

	if (key_len == 4 && memcmp(key, "path", 4) == 0)
		dst = x->name;
	else if (key_len == 8 && memcmp(key, "linkpath", 8) == 0)
		dst = x->link;
	else if (key_len == 4 && memcmp(key, "size", 4) == 0) {
		if (!val_len || val_len > 20)
			return fail(t, "a pax size of %zu digits", val_len);
		for (size_t i = 0; i < val_len; i++) {
			if (val[i] < '0' || val[i] > '9' ||
			    v > (UINT64_MAX - 9) / 10)
				return fail(t, "a pax size that is not a "
					       "number");
			v = v * 10 + (uint64_t)(val[i] - '0');
		}
		x->size = v;
		x->has_size = true;
		return 0;
	} else {
		/* mtime, uid, SCHILY.* ...: nothing pdtool uses */
		return 0;
	}
	if (val_len > CMD_TAR_NAME_MAX || memchr(val, '\0', val_len))
		return fail(t, "a pax %.*s of %zu bytes, or with a NUL byte",
			    (int)key_len, key, val_len);
	memcpy(dst, val, val_len);
	dst[val_len] = '\0';
	return 0;
}

/* A pax header's records, "LEN key=value\n" each, into x. */
static int pax(struct cmd_tar *t, uint64_t size, struct cmd_tar_pax *x)
{
	const char *p = (const char *)(t->p + t->pos + BLOCK);
	const char *const end = p + size;

	while (p < end) {
		const char *sp, *eq, *rec_end;
		uint64_t rec_len = 0;

		for (sp = p; sp < end && *sp >= '0' && *sp <= '9'; sp++) {
			if (rec_len > CMD_TAR_NAME_MAX * 2)
				break;
			rec_len = rec_len * 10 + (uint64_t)(*sp - '0');
		}
		if (sp == p || sp == end || *sp != ' ' ||
		    rec_len <= (uint64_t)(sp - p) + 1 ||
		    rec_len > (uint64_t)(end - p))
			return fail(t, "a damaged pax header");
		rec_end = p + rec_len;
		if (rec_end[-1] != '\n')
			return fail(t, "a damaged pax header");
		eq = memchr(sp + 1, '=', (size_t)(rec_end - sp - 1));
		if (!eq || eq == sp + 1)
			return fail(t, "a damaged pax header");
		if (pax_value(t, sp + 1, (size_t)(eq - sp - 1), eq + 1,
			      (size_t)(rec_end - 1 - eq - 1), x) < 0)
			return -1;
		p = rec_end;
	}
	return 0;
}

static enum cmd_tar_type type_of(char flag)
{
	switch (flag) {
	case '0':
	case '\0':
	case '7': /* contiguous: a regular file anywhere but on old Unix */
		return CMD_TAR_FILE;
	case '5':
		return CMD_TAR_DIR;
	case '2':
		return CMD_TAR_SYMLINK;
	case '1':
		return CMD_TAR_HARDLINK;
	default:
		return CMD_TAR_OTHER;
	}
}

/* Past the member at t->pos, size bytes of data and their padding. */
static void skip(struct cmd_tar *t, uint64_t size)
{
	t->pos += BLOCK + (size + BLOCK - 1) / BLOCK * BLOCK;
	if (t->pos > t->len)
		t->pos = t->len;
}

int cmd_tar_next(struct cmd_tar *t, struct cmd_tar_entry *e)
{
	/* what 'L', 'K' and 'x' members say of the next one */
	struct cmd_tar_pax next;

	memset(&next, 0, sizeof(next));
	for (;;) {
		const unsigned char *h;
		uint64_t size;
		char flag;

		if (t->ended || t->len - t->pos < BLOCK) {
			/* a tar ends in zero blocks; a file cut at a
			 * member's boundary reads as if it ended there */
			if (next.name[0] || next.link[0] || next.has_size)
				return fail(t, "the archive ends after an "
					       "extended header");
			t->ended = true;
			return 0;
		}
		h = t->p + t->pos;
		if (h[0] == 0 && memcmp(h, h + 1, BLOCK - 1) == 0) {
			t->ended = true;
			continue;
		}
		if (!checksum_ok(h))
			return fail(t, "a damaged header at offset 0x%llx (its "
				       "checksum is wrong)",
				    (unsigned long long)t->pos);
		if (!number(h + F_SIZE, &size))
			return fail(t, "a damaged size at offset 0x%llx",
				    (unsigned long long)t->pos);
		flag = (char)h[F_TYPE];
		if ((flag == 'L' || flag == 'K' || flag == 'x' ||
		     flag == 'g') &&
		    !member_data(t, size))
			return fail(t, "an extended header at offset 0x%llx "
				       "declares %llu bytes, past the end of "
				       "the archive",
				    (unsigned long long)t->pos,
				    (unsigned long long)size);
		switch (flag) {
		case 'L':
			if (long_name(t, size, next.name, "long name") < 0)
				return -1;
			skip(t, size);
			continue;
		case 'K':
			if (long_name(t, size, next.link, "long link target") <
			    0)
				return -1;
			skip(t, size);
			continue;
		case 'x':
			if (pax(t, size, &next) < 0)
				return -1;
			skip(t, size);
			continue;
		case 'g':
			if (pax(t, size, &t->global) < 0)
				return -1;
			skip(t, size);
			continue;
		default:
			break;
		}
		/* a member: names from the extended headers first, then
		 * the global ones, then its own header */
		memset(e, 0, sizeof(*e));
		e->flag = flag;
		e->type = type_of(flag);
		e->offset = t->pos;
		if (next.name[0])
			memcpy(e->name, next.name, sizeof(e->name));
		else if (t->global.name[0])
			memcpy(e->name, t->global.name, sizeof(e->name));
		else if (memcmp(h + F_MAGIC, "ustar\0" "00", 8) == 0 &&
			 h[345]) {
			/* POSIX ustar's prefix; GNU's own format keeps
			 * times there instead */
			char prefix[156], name[101];

			field(prefix, h + F_PREFIX);
			field(name, h + F_NAME);
			snprintf(e->name, sizeof(e->name), "%s/%s", prefix,
				 name);
		} else {
			field(e->name, h + F_NAME);
		}
		if (next.link[0])
			memcpy(e->link, next.link, sizeof(e->link));
		else if (t->global.link[0])
			memcpy(e->link, t->global.link, sizeof(e->link));
		else
			field(e->link, h + F_LINK);
		if (next.has_size)
			size = next.size;
		else if (t->global.has_size)
			size = t->global.size;
		/* links and directories hold no data, whatever they say */
		if (e->type == CMD_TAR_SYMLINK || e->type == CMD_TAR_HARDLINK ||
		    e->type == CMD_TAR_DIR)
			e->size = 0;
		else
			e->size = size;
		if (!member_data(t, e->size))
			return fail(t, "member '%s' declares %llu bytes, but "
				       "the archive ends %llu bytes after its "
				       "header",
				    e->name, (unsigned long long)e->size,
				    (unsigned long long)(t->len - t->pos -
							 BLOCK));
		e->data = t->p + t->pos + BLOCK;
		skip(t, e->type == CMD_TAR_OTHER && flag >= '3' && flag <= '6'
				? 0 /* devices and FIFOs hold no data */
				: size);
		return 1;
	}
}
