/*
 * pda_search.c - --search-path (issue 22, hotspot's escape hatch): the
 * binaries a user has, but not in the recorded layout, found anywhere
 * under the directories named, by basename and by build-id.
 *
 * The directories are listed once a session, at the first lookup that
 * needs them (bounded: SEARCH_MAX_FILES files, SEARCH_MAX_DEPTH levels,
 * no symlinked directory entered, so a loop cannot hold it).  A file's
 * build-id is read the first time a lookup by build-id meets it, and
 * kept.  Not thread-safe: lookups happen on the thread that may load
 * DSOs (pda_dso_may_load).
 */
#include "pda_machine_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEARCH_MAX_FILES (1u << 18)
#define SEARCH_MAX_DEPTH 32

struct search_file {
	const char *path; /* interned */
	const char *base; /* in path */
	int id_state;	  /* 0 unread, 1 read, -1 not ELF or unreadable */
	unsigned char id[PDA_BUILD_ID_MAX];
	unsigned id_size;
};

struct pda_search {
	struct search_file *files;
	size_t nr, alloc;
	bool capped; /* SEARCH_MAX_FILES reached: said once */
};

static int add_file(struct pda_session *s, struct pda_search *x,
		    const char *path)
{
	struct search_file *f;
	const char *p;

	if (x->nr == SEARCH_MAX_FILES) {
		if (!x->capped)
			pda_logf(s, PD_LOG_WARN,
				 "--search-path: more than %u files: the "
				 "rest are not looked at",
				 SEARCH_MAX_FILES);
		x->capped = true;
		return 0;
	}
	if (PDA_GROW(s, x->files, x->alloc, x->nr + 1, SEARCH_MAX_FILES) < 0)
		return PD_ERR_NOMEM;
	p = pda_intern(s, path, strlen(path));
	if (!p)
		return PD_ERR_NOMEM;
	f = &x->files[x->nr++];
	memset(f, 0, sizeof(*f));
	f->path = p;
	f->base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
	return 0;
}

static int walk(struct pda_session *s, struct pda_search *x, const char *dir,
		unsigned depth)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (depth > SEARCH_MAX_DEPTH || x->capped)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		char p[PDA_PATH_MAX];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !pda_pathf(p, "%s/%s", dir, de->d_name) ||
		    lstat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			rc = walk(s, x, p, depth + 1);
		else if (S_ISREG(st.st_mode) ||
			 (S_ISLNK(st.st_mode) && stat(p, &st) == 0 &&
			  S_ISREG(st.st_mode)))
			rc = add_file(s, x, p);
	}
	closedir(d);
	return rc;
}

static int list_files(struct pda_session *s, struct pda_search **out)
{
	const struct pda_opts *o = &s->opts;
	struct pda_search *x;
	int rc = 0;

	x = pda_malloc(s, sizeof(*x));
	if (!x)
		return PD_ERR_NOMEM;
	memset(x, 0, sizeof(*x));
	*out = x;
	for (size_t i = 0; i < o->nr_search_paths && rc == 0; i++)
		rc = walk(s, x, o->search_paths[i], 0);
	pda_logf(s, PD_LOG_DEBUG, "--search-path: %zu files listed", x->nr);
	return rc;
}

/* f's build-id, read once: false when f is not ELF or has none. */
static int read_id(struct pda_session *s, struct search_file *f)
{
	const unsigned char *id;
	unsigned char magic[4];
	struct pda_elf *e;
	unsigned size;
	ssize_t n;
	int fd, rc;

	if (f->id_state)
		return 0;
	f->id_state = -1;
	fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n != 4 || memcmp(magic, "\177ELF", 4) != 0)
		return 0;
	rc = pda_elf_open(s, f->path, &e);
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0)
		return 0;
	pda_elf_build_id(e, &id, &size);
	if (size > PDA_BUILD_ID_MAX)
		size = PDA_BUILD_ID_MAX;
	memcpy(f->id, id, size);
	f->id_size = size;
	f->id_state = size ? 1 : -1;
	pda_elf_close(s, e);
	return 0;
}

/* path into the first empty slot of bin, dbg when d takes it. */
static int take(struct pda_session *s, struct pda_dso_ent *d,
		const char *path, struct pda_elf **bin, struct pda_elf **dbg)
{
	struct pda_elf **slot = !*bin ? bin : !*dbg ? dbg : NULL;
	int rc;

	if (!slot)
		return 0;
	rc = pda_dso_try_elf(s, d, path, slot);
	return rc == PD_ERR_NOTFOUND ? 0 : rc;
}

int pda_search_find(struct pda_session *s, struct pda_dso_ent *d,
		    const char *path, struct pda_elf **bin,
		    struct pda_elf **dbg)
{
	struct pda_search *x = s->dsos.search;
	const char *base = strrchr(path, '/');
	int rc;

	if (!s->opts.nr_search_paths || (*bin && *dbg))
		return 0;
	if (!x && (rc = list_files(s, &s->dsos.search)) < 0)
		return rc;
	x = s->dsos.search;
	base = base ? base + 1 : path;
	/* by basename: the binary itself (its build-id checked when the
	 * capture has one) */
	for (size_t i = 0; i < x->nr && !*bin; i++)
		if (!strcmp(x->files[i].base, base) &&
		    (rc = take(s, d, x->files[i].path, bin, dbg)) < 0)
			return rc;
	if (!d->d.build_id_size)
		return 0;
	/* by build-id: the binary, then a second file with its id (the
	 * debug file) */
	for (size_t i = 0; i < x->nr && !(*bin && *dbg); i++) {
		struct search_file *f = &x->files[i];

		if ((rc = read_id(s, f)) < 0)
			return rc;
		if (f->id_state != 1 || f->id_size != d->d.build_id_size ||
		    memcmp(f->id, d->d.build_id, f->id_size) != 0 ||
		    (*bin && !strcmp(pda_elf_path(*bin), f->path)))
			continue;
		if ((rc = take(s, d, f->path, bin, dbg)) < 0)
			return rc;
	}
	return 0;
}

void pda_search_release(struct pda_session *s)
{
	struct pda_search *x = s->dsos.search;

	if (!x)
		return;
	pda_free(s, x->files);
	pda_free(s, x);
	s->dsos.search = NULL;
}
