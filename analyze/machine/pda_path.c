/*
 * pda_path.c - paths built for looking files up: inside a root as a
 * chroot resolves them (--symfs), lexically clean, bounded in length.
 */
#include "pda_machine_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool pda_pathf(char *out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, PDA_PATH_MAX, fmt, ap);
	va_end(ap);
	return n >= 0 && n < PDA_PATH_MAX;
}

#define LINKS_MAX 40 /* symlinks followed in one resolution (as ELOOP) */

/* Append component c (len n) to out[*len], which holds "/..." or "". */
static int push_comp(char *out, size_t size, size_t *len, const char *c,
		     size_t n)
{
	if (*len + 1 + n + 1 > size)
		return -1;
	out[(*len)++] = '/';
	memcpy(out + *len, c, n);
	*len += n;
	out[*len] = '\0';
	return 0;
}

static void pop_comp(char *out, size_t *len)
{
	while (*len && out[*len - 1] != '/')
		(*len)--;
	if (*len)
		(*len)--;
	out[*len] = '\0';
}

/* The next component of the path at *p, slashes skipped: *c and *n.
 * false at the end. */
static bool next_comp(const char **p, const char **c, size_t *n)
{
	while (**p == '/')
		(*p)++;
	if (!**p)
		return false;
	*c = *p;
	while (**p && **p != '/')
		(*p)++;
	*n = (size_t)(*p - *c);
	return true;
}

/*
 * Apply component c (n bytes) to out[*len]: "." is nothing, ".." goes up
 * (never above the root), anything else is appended.  @return 1 when
 * appended, 0 when not, -1 when out is full.
 */
static int apply_comp(char *out, size_t size, size_t *len, const char *c,
		      size_t n)
{
	if (n == 1 && c[0] == '.')
		return 0;
	if (n == 2 && c[0] == '.' && c[1] == '.') {
		pop_comp(out, len);
		return 0;
	}
	return push_comp(out, size, len, c, n) < 0 ? -1 : 1;
}

bool pda_path_is_under(const char *real, const char *rroot)
{
	size_t n = strlen(rroot);

	if (n == 1 && rroot[0] == '/')
		return true;
	return strncmp(real, rroot, n) == 0 &&
	       (real[n] == '/' || real[n] == '\0');
}

/*
 * Resolve path inside root the way a chroot would: components are
 * walked one by one, ".." stops at root, and a symlink is read and
 * followed with an absolute target taken from root (a sysroot copied from
 * the recording host keeps the host's absolute links).  So no capture
 * path and no link can leave root.  As a last check, the realpath() of
 * the result must still lie under root's realpath (a mount point or a
 * change on disk while we walked).
 */
static int walk_under(const char *root, const char *path, char *out,
		      size_t size, bool *escaped)
{
	char rel[PDA_PATH_MAX];	 /* the resolved part, relative to root */
	char todo[PDA_PATH_MAX]; /* what is left to walk */
	char full[PDA_PATH_MAX], real[PDA_PATH_MAX], rroot[PDA_PATH_MAX];
	size_t rel_len = 0, root_len;
	unsigned nr_links = 0;
	const char *p;

	*escaped = false;
	rel[0] = '\0';
	if (snprintf(todo, sizeof(todo), "%s", path) >= (int)sizeof(todo))
		return PD_ERR_NOTFOUND;
	root_len = strlen(root);
	while (root_len > 1 && root[root_len - 1] == '/')
		root_len--;
	p = todo;
	for (;;) {
		const char *c;
		size_t n;
		struct stat st;
		char target[PDA_PATH_MAX];
		ssize_t tlen;
		int pushed;

		if (!next_comp(&p, &c, &n))
			break;
		/* ".." never above root */
		pushed = apply_comp(rel, sizeof(rel), &rel_len, c, n);
		if (pushed < 0)
			return PD_ERR_NOTFOUND;
		if (!pushed)
			continue;
		if (snprintf(full, sizeof(full), "%.*s%s", (int)root_len, root,
			     rel) >= (int)sizeof(full))
			return PD_ERR_NOTFOUND;
		if (lstat(full, &st) < 0)
			return PD_ERR_NOTFOUND;
		if (!S_ISLNK(st.st_mode))
			continue;
		if (++nr_links > LINKS_MAX)
			return PD_ERR_NOTFOUND;
		tlen = readlink(full, target, sizeof(target) - 1);
		if (tlen <= 0)
			return PD_ERR_NOTFOUND;
		target[tlen] = '\0';
		/* the rest of the walk: target, then what followed the link */
		if (snprintf(full, sizeof(full), "%s%s", target, p) >=
		    (int)sizeof(full))
			return PD_ERR_NOTFOUND;
		memcpy(todo, full, strlen(full) + 1);
		p = todo;
		pop_comp(rel, &rel_len);
		if (target[0] == '/') {
			rel_len = 0;
			rel[0] = '\0';
		}
	}
	if (snprintf(full, sizeof(full), "%.*s%s", (int)root_len, root, rel) >=
	    (int)sizeof(full))
		return PD_ERR_NOTFOUND;
	if (!realpath(full, real) || !realpath(root, rroot))
		return PD_ERR_NOTFOUND;
	if (!pda_path_is_under(real, rroot)) {
		*escaped = true;
		return PD_ERR_NOTFOUND;
	}
	if (snprintf(out, size, "%s", real) >= (int)size)
		return PD_ERR_NOTFOUND;
	return 0;
}

int pda_path_under(const char *root, const char *path, char *out, size_t size,
		   bool *escaped)
{
	char full[PDA_PATH_MAX], real[PDA_PATH_MAX], rroot[PDA_PATH_MAX];
	int rc = walk_under(root, path, out, size, escaped);

	if (rc == 0 || *escaped)
		return rc;
	/*
	 * Not there.  Say so more precisely when a symlink would have led
	 * outside root had it been followed as it stands (perf's open of
	 * root + path): such a link is refused, not missed.
	 */
	if (snprintf(full, sizeof(full), "%s/%s", root, path) <
		    (int)sizeof(full) &&
	    realpath(full, real) && realpath(root, rroot) &&
	    !pda_path_is_under(real, rroot))
		*escaped = true;
	return rc;
}

bool pda_path_clean(const char *path, char *out, size_t size)
{
	size_t len = 0, n;
	const char *p = path, *c;

	if (*p != '/' || size < 2)
		return false;
	out[0] = '\0';
	while (next_comp(&p, &c, &n))
		if (apply_comp(out, size, &len, c, n) < 0)
			return false;
	if (!len)
		memcpy(out, "/", 2);
	return true;
}
