/*
 * pda_annotate_src.c - the source files an annotation shows: found
 * where the user allowed, read once, split into lines.
 *
 * The file names come from the binary's DWARF, and the binary may be
 * someone else's (issue 11): a line table can name "/etc/shadow",
 * "/proc/self/environ", "~/.ssh/id_rsa" or a FIFO.  So a name is looked
 * up only in these places, in this order, and the first regular file
 * found is read:
 *
 *   1. with the first --prefix-map OLD=NEW whose OLD begins the path
 *      (OLD matches whole path components): NEW + the rest, resolved
 *      inside NEW (an empty NEW: the rest as a path of this host);
 *   2. otherwise the path as written: inside --symfs (the session's
 *      symfs), then on this host itself when pda_annot_host_sources()
 *      (--host-sources; by default only for a capture that names this
 *      host, without --symfs); when that is refused the file counts as
 *      withheld unless a later step finds it;
 *   3. under each --source-dir DIR: DIR/path, then DIR/basename, each
 *      resolved inside DIR.
 *
 * "Resolved inside" is pda_path_under(): a chroot's resolution, where
 * ".." stops at the root and a symlink's absolute target is taken inside
 * it, so no name and no link leads out; it only stats and reads links.
 * A file is opened only once stat() says it is a regular file of at most
 * SRC_MAX_BYTES, with O_NONBLOCK and O_NOCTTY, and the opened file must
 * be that one (fstat): a FIFO, a device or a terminal is never opened,
 * so none can hang the run.  A file that is not found is remembered as
 * such.
 */
#include "pda_annotate_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SRC_MAX_BYTES ((size_t)64 << 20) /* a bigger "source" is not */
#define SRC_MAX_LINES ((size_t)1 << 24)

struct annot_srcfile {
	const char *dwarf_path; /* interned; the key in pda_annot.srcfiles */
	const char *path;	/* where it was read (interned), or NULL */
	char *buf;
	size_t len;
	size_t *starts; /* offset of each line */
	size_t nr_lines, starts_alloc;
	bool refused; /* a candidate was there but not a regular file of
		       * at most SRC_MAX_BYTES */
	struct annot_srcfile *next_all;
};

void pda_annot_src_init(struct pda_annot *a)
{
	switch (a->opts.host_sources) {
	case PDA_HOST_SRC_ALWAYS:
		a->host_src = true;
		break;
	case PDA_HOST_SRC_NEVER:
		a->host_src = false;
		break;
	case PDA_HOST_SRC_AUTO:
	default:
		a->host_src =
			!pda_session_opts(a->s)->symfs && pda_same_host(a->s);
		break;
	}
}

bool pda_annot_host_sources(const struct pda_annot *a)
{
	return a->host_src;
}

size_t pda_annot_nr_withheld(const struct pda_annot *a)
{
	return a->nr_withheld;
}

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

/*
 * Read path whole, when it is a regular file of at most SRC_MAX_BYTES;
 * with nofollow, its last component must not be a symlink (a path that
 * pda_path_under() resolved has none).  0, PD_ERR_NOTFOUND (absent or
 * refused) or PD_ERR_NOMEM.
 */
static int slurp(struct pda_annot *a, const char *path, bool nofollow,
		 struct annot_srcfile *sf)
{
	struct stat st, fst;
	size_t size, len = 0;
	char *buf;
	int fd;

	/* stat first: a FIFO or a device is refused before any open */
	if (stat(path, &st) < 0)
		return PD_ERR_NOTFOUND;
	if (!S_ISREG(st.st_mode)) {
		sf->refused = true;
		pda_logf(a->s, PD_LOG_WARN,
			 "source file '%s': not a regular file, not read",
			 path);
		return PD_ERR_NOTFOUND;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
				(nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return errno == ENOMEM ? PD_ERR_NOMEM : PD_ERR_NOTFOUND;
	/* what was opened is what was looked at, not a swapped-in FIFO */
	if (fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode) ||
	    fst.st_dev != st.st_dev || fst.st_ino != st.st_ino ||
	    fst.st_size < 0) {
		close(fd);
		return PD_ERR_NOTFOUND;
	}
	if ((uint64_t)fst.st_size > SRC_MAX_BYTES) {
		sf->refused = true;
		pda_logf(a->s, PD_LOG_WARN,
			 "source file '%s': %llu bytes, more than %zu: not "
			 "read",
			 path, (unsigned long long)fst.st_size, SRC_MAX_BYTES);
		close(fd);
		return PD_ERR_NOTFOUND;
	}
	/* what fstat says, no more: a file that grows is not followed, and
	 * /proc files (size 0) read as empty */
	size = (size_t)fst.st_size;
	buf = pda_malloc(a->s, size + 1);
	if (!buf) {
		close(fd);
		return PD_ERR_NOMEM;
	}
	while (len < size) {
		const ssize_t n = read(fd, buf + len, size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			pda_free(a->s, buf);
			close(fd);
			return PD_ERR_NOTFOUND;
		}
		if (n == 0)
			break; /* it shrank */
		len += (size_t)n;
	}
	close(fd);
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

/*
 * Read path, shown as shown (NULL: path).  1 read, 0 not there, or
 * NOMEM.
 */
static int try_path(struct pda_annot *a, struct annot_srcfile *sf,
		    const char *path, bool nofollow, const char *shown)
{
	int rc = slurp(a, path, nofollow, sf);

	if (rc == PD_ERR_NOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	shown = shown ? shown : path;
	sf->path = pda_intern(a->s, shown, strlen(shown));
	if (!sf->path)
		return PD_ERR_NOMEM;
	rc = index_lines(a, sf);
	return rc < 0 ? rc : 1;
}

/* Read path resolved inside root, shown as root/path.  As try_path(). */
static int try_under(struct pda_annot *a, struct annot_srcfile *sf,
		     const char *root, const char *path)
{
	char real[PDA_PATH_MAX], shown[PDA_PATH_MAX];
	bool escaped;
	size_t n = strlen(root);

	if (pda_path_under(root, path, real, sizeof(real), &escaped) < 0) {
		if (escaped)
			pda_logf(a->s, PD_LOG_DEBUG,
				 "source file '%s': leads outside '%s', not "
				 "read",
				 path, root);
		return 0;
	}
	while (*path == '/')
		path++;
	/* the root as given, so a relative DIR shows as relative */
	if (!pda_pathf(shown, "%s%s%s", root,
		       n && root[n - 1] == '/' ? "" : "/", path))
		return 0;
	return try_path(a, sf, real, true, shown);
}

/*
 * The first --prefix-map whose OLD begins file: its NEW in root and the
 * rest of file in *rest (NULL: no map applies).
 */
static void prefix_map(const struct pda_annot *a, const char *file,
		       char root[PDA_PATH_MAX], const char **rest)
{
	root[0] = '\0';
	*rest = NULL;
	for (size_t i = 0; i < a->opts.nr_prefix_maps; i++) {
		const char *m = a->opts.prefix_maps[i], *eq = strchr(m, '=');
		size_t olen;

		if (!eq)
			continue;
		olen = (size_t)(eq - m);
		if (!olen || strncmp(file, m, olen) != 0)
			continue;
		/* whole components: /src does not map /srcfoo */
		if (m[olen - 1] != '/' && file[olen] != '/' &&
		    file[olen] != '\0')
			continue;
		if (!pda_pathf(root, "%s", eq + 1))
			continue;
		*rest = file + olen;
		return;
	}
}

static int find(struct pda_annot *a, struct annot_srcfile *sf)
{
	const char *const symfs = pda_session_opts(a->s)->symfs;
	const char *path = sf->dwarf_path, *rest, *base;
	char root[PDA_PATH_MAX];
	bool withheld = false;
	int rc;

	if (a->opts.no_source)
		return 0;
	prefix_map(a, path, root, &rest);
	if (rest && root[0]) {
		/* 1. NEW + the rest, inside NEW */
		rc = try_under(a, sf, root, rest);
		if (rc != 0)
			return rc;
		if (!pda_pathf(a->path, "%s%s", root, rest))
			return 0;
		path = a->path;
	} else if (rest) {
		/* an empty NEW: the rest, a path of this host by choice */
		if ((rc = try_path(a, sf, rest, false, NULL)) != 0)
			return rc;
		path = rest;
	} else {
		/* 2. as written: inside --symfs, on this host if allowed */
		if (symfs && (rc = try_under(a, sf, symfs, path)) != 0)
			return rc;
		if (a->host_src && (rc = try_path(a, sf, path, false, NULL)))
			return rc;
		withheld = !a->host_src;
	}
	/* 3. under each --source-dir */
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < a->opts.nr_source_dirs; i++) {
		const char *dir = a->opts.source_dirs[i];

		if ((rc = try_under(a, sf, dir, path)) != 0 ||
		    (*base && (rc = try_under(a, sf, dir, base)) != 0))
			return rc;
	}
	/* a file found but refused was not withheld by the policy */
	if (withheld && !sf->refused)
		a->nr_withheld++;
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
