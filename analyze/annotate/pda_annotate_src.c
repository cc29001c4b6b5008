/*
 * pda_annotate_src.c - the source files an annotation shows: found
 * through --prefix-map and --source-dir, read once, split into lines.
 *
 * A path from DWARF is tried as the build wrote it after the first
 * --prefix-map OLD=NEW whose OLD begins it (OLD matches whole path
 * components) is applied; then, under each --source-dir DIR, DIR/path
 * and DIR/basename.  A file that is not found is remembered as such.
 */
#include "pda_annotate_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SRC_MAX_BYTES ((size_t)64 << 20) /* a bigger "source" is not */
#define SRC_MAX_LINES ((size_t)1 << 24)

struct annot_srcfile {
	const char *dwarf_path; /* interned; the key in pda_annot.srcfiles */
	const char *path;	/* where it was read (interned), or NULL */
	char *buf;
	size_t len;
	size_t *starts; /* offset of each line */
	size_t nr_lines, starts_alloc;
	struct annot_srcfile *next_all;
};

void pda_annot_src_release(struct pda_annot *a)
{
	while (a->all_srcfiles) {
		struct annot_srcfile *next = a->all_srcfiles->next_all;

		pda_free(a->s, a->all_srcfiles->buf);
		pda_free(a->s, a->all_srcfiles->starts);
		pda_free(a->s, a->all_srcfiles);
		a->all_srcfiles = next;
	}
	pdc_hash_release(pda_session_alloc(a->s), &a->srcfiles);
}

/* Read path whole.  0, PD_ERR_NOTFOUND or PD_ERR_NOMEM. */
static int slurp(struct pda_annot *a, const char *path,
		 struct annot_srcfile *sf)
{
	FILE *fp = fopen(path, "rb");
	size_t cap = 0, len = 0;
	char *buf = NULL;

	if (!fp)
		return PD_ERR_NOTFOUND;
	for (;;) {
		size_t n;

		if (len + 65536 + 1 > cap) {
			size_t ncap = cap ? cap * 2 : 65536 + 1;
			char *nb;

			if (ncap > SRC_MAX_BYTES + 65536 + 1)
				break; /* too big: what was read is kept */
			nb = pda_realloc(a->s, buf, ncap);
			if (!nb) {
				pda_free(a->s, buf);
				fclose(fp);
				return PD_ERR_NOMEM;
			}
			buf = nb;
			cap = ncap;
		}
		n = fread(buf + len, 1, cap - len - 1, fp);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp) || !buf) {
		pda_free(a->s, buf);
		fclose(fp);
		return PD_ERR_NOTFOUND;
	}
	fclose(fp);
	buf[len] = '\0';
	sf->buf = buf;
	sf->len = len;
	return 0;
}

static int index_lines(struct pda_annot *a, struct annot_srcfile *sf)
{
	size_t off = 0;

	while (off < sf->len) {
		const char *nl;

		if (PDA_GROW(a->s, sf->starts, sf->starts_alloc,
			     sf->nr_lines + 1, SRC_MAX_LINES) < 0)
			return PD_ERR_NOMEM;
		sf->starts[sf->nr_lines++] = off;
		nl = memchr(sf->buf + off, '\n', sf->len - off);
		off = nl ? (size_t)(nl - sf->buf) + 1 : sf->len;
	}
	return 0;
}

/* Try one candidate path.  1 read, 0 not there, or NOMEM. */
static int try_path(struct pda_annot *a, struct annot_srcfile *sf,
		    const char *path)
{
	int rc = slurp(a, path, sf);

	if (rc == PD_ERR_NOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	sf->path = pda_intern(a->s, path, strlen(path));
	if (!sf->path)
		return PD_ERR_NOMEM;
	rc = index_lines(a, sf);
	return rc < 0 ? rc : 1;
}

/* The DWARF path after the first --prefix-map that applies, in a->path. */
static const char *mapped(struct pda_annot *a, const char *file)
{
	for (size_t i = 0; i < a->opts.nr_prefix_maps; i++) {
		const char *m = a->opts.prefix_maps[i], *eq = strchr(m, '=');
		size_t olen;
		int n;

		if (!eq)
			continue;
		olen = (size_t)(eq - m);
		if (!olen || strncmp(file, m, olen) != 0)
			continue;
		/* whole components: /src does not map /srcfoo */
		if (m[olen - 1] != '/' && file[olen] != '/' && file[olen] != '\0')
			continue;
		n = snprintf(a->path, sizeof(a->path), "%s%s", eq + 1,
			     file + olen);
		if (n > 0 && (size_t)n < sizeof(a->path))
			return a->path;
	}
	return file;
}

static int find(struct pda_annot *a, struct annot_srcfile *sf)
{
	char cand[sizeof(a->path)];
	const char *path = mapped(a, sf->dwarf_path), *base;
	int rc;

	if (a->opts.no_source)
		return 0;
	if (snprintf(cand, sizeof(cand), "%s", path) >= (int)sizeof(cand))
		return 0;
	rc = try_path(a, sf, cand);
	if (rc != 0)
		return rc;
	base = strrchr(cand, '/');
	base = base ? base + 1 : cand;
	for (size_t i = 0; i < a->opts.nr_source_dirs; i++) {
		const char *dir = a->opts.source_dirs[i];
		const char *rel = cand;
		char p[sizeof(a->path)];
		int n;

		while (*rel == '/')
			rel++;
		n = snprintf(p, sizeof(p), "%s/%s", dir, rel);
		if (n > 0 && (size_t)n < sizeof(p) &&
		    (rc = try_path(a, sf, p)) != 0)
			return rc;
		n = snprintf(p, sizeof(p), "%s/%s", dir, base);
		if (n > 0 && (size_t)n < sizeof(p) &&
		    (rc = try_path(a, sf, p)) != 0)
			return rc;
	}
	return 0;
}

static bool src_eq(const void *item, const void *key)
{
	return ((const struct annot_srcfile *)item)->dwarf_path == key;
}

/* The file's entry, read on first use; NULL on NOMEM. */
static struct annot_srcfile *get(struct pda_annot *a, const char *file)
{
	uint64_t h = pdc_hash_u64((uintptr_t)file);
	struct annot_srcfile *sf = pdc_hash_find(&a->srcfiles, h, src_eq, file);

	if (sf)
		return sf;
	sf = pda_zalloc(a->s, sizeof(*sf));
	if (!sf)
		return NULL;
	sf->dwarf_path = file;
	if (find(a, sf) < 0 ||
	    pdc_hash_add(pda_session_alloc(a->s), &a->srcfiles, h, sf) < 0) {
		pda_free(a->s, sf->buf);
		pda_free(a->s, sf->starts);
		pda_free(a->s, sf);
		return NULL;
	}
	sf->next_all = a->all_srcfiles;
	a->all_srcfiles = sf;
	return sf;
}

const char *pda_annot_source(struct pda_annot *a, const char *file,
			     unsigned line, size_t *len)
{
	struct annot_srcfile *sf;
	size_t start, end;

	*len = 0;
	if (!file || !line)
		return NULL;
	/* interned paths only: the table is keyed by pointer */
	file = pda_intern(a->s, file, strlen(file));
	sf = file ? get(a, file) : NULL;
	if (!sf || !sf->path || line > sf->nr_lines)
		return NULL;
	start = sf->starts[line - 1];
	end = line < sf->nr_lines ? sf->starts[line] : sf->len;
	while (end > start &&
	       (sf->buf[end - 1] == '\n' || sf->buf[end - 1] == '\r'))
		end--;
	*len = end - start;
	return sf->buf + start;
}

const char *pda_annot_source_path(struct pda_annot *a, const char *file)
{
	struct annot_srcfile *sf;

	if (!file)
		return NULL;
	file = pda_intern(a->s, file, strlen(file));
	sf = file ? get(a, file) : NULL;
	return sf ? sf->path : NULL;
}
