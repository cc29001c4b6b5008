/*
 * pda_dso.c - the binaries a capture's maps name, and where their files
 * are.
 *
 * A DSO is made once per build-id (from the MMAP2 build-id form or the
 * HEADER_BUILD_ID table), else once per recorded path, and its files are
 * looked up once, on first use, whatever the number of processes that
 * map it.  A DSO has up to two files: the binary (its program headers
 * place a map's file offsets) and separate debug info (.symtab, DWARF);
 * a debug file alone serves for both, since it keeps the program
 * headers.  Each role takes the first usable file in this order (issue
 * 3):
 *
 *   1. --symfs DIR: DIR + the recorded path, resolved as a chroot
 *      would (pda_path_under): ".." stops at DIR, an absolute symlink
 *      is taken inside DIR, and nothing leads outside it;
 *   2. the perf build-id cache (--buildid-dir, else $PERF_BUILDID_DIR as
 *      perf reads it, else $HOME/.debug):
 *      .build-id/xx/rest, a directory holding elf and debug (perf >= 4.x)
 *      or the file itself, and the PATH/BUILDID/elf layout;
 *   3. /usr/lib/debug/.build-id/xx/rest.debug (inside DIR, with
 *      --symfs);
 *   4. the binary's .gnu_debuglink: next to it, in .debug/ beside it, and
 *      under /usr/lib/debug (inside DIR, with --symfs);
 *   5. debuginfod (pda_debuginfod.c: when DEBUGINFOD_URLS is set, not
 *      with --no-debuginfod, with --symfs only given --debuginfod, and
 *      within its limits): the debug file when the binary has a
 *      debuglink (its debug info was split out) or was not found, the
 *      binary only when the recorded path does not hold it (both are the
 *      same bytes, the build-id says so);
 *   6. the recorded path itself.
 *
 * With --symfs, nothing of this host is read that no option names
 * (issue 11): not $PERF_BUILDID_DIR or $HOME/.debug (an explicit
 * --buildid-dir is read), not /usr/lib/debug, not the recorded path;
 * --host-files (opts.host_files)
 * adds them after DIR's, the recorded path only when a build-id can tell
 * a wrong file (pda_host_files()).
 *
 * Whenever the capture gives a build-id, a file with another one (or
 * none) is not used: it is logged once and kept in the DSO's tried list
 * with the reason.  Without one, the binary's own build-id is adopted to
 * find its debug file.
 */
#include "pda_machine_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define TRIED_MAX 64 /* paths kept per DSO */

/* ---- the DSO table ------------------------------------------------- */

struct dso_key {
	enum pda_dso_kind kind;
	const char *name; /* interned; used when there is no build-id */
	const unsigned char *build_id;
	unsigned build_id_size;
};

static uint64_t key_hash(const struct dso_key *k)
{
	if (k->build_id_size)
		return pdc_hash_bytes(k->build_id, k->build_id_size) ^ k->kind;
	return pdc_hash_u64((uint64_t)(uintptr_t)k->name) ^ k->kind;
}

static bool dso_eq(const void *item, const void *key)
{
	const struct pda_dso_ent *d = item;
	const struct dso_key *k = key;

	if (d->kind != k->kind || d->d.build_id_size != k->build_id_size)
		return false;
	if (k->build_id_size)
		return memcmp(d->d.build_id, k->build_id, k->build_id_size) ==
		       0;
	return d->d.name == k->name;
}

struct bid_ent {
	const char *name; /* interned */
	bool kernel;
	unsigned size;
	unsigned char id[PDA_BUILD_ID_MAX];
};

struct bid_key {
	const char *name;
	bool kernel;
};

static bool bid_eq(const void *item, const void *key)
{
	const struct bid_ent *e = item;
	const struct bid_key *k = key;

	return e->name == k->name && e->kernel == k->kernel;
}

static uint64_t bid_hash(const char *name, bool kernel)
{
	return pdc_hash_u64((uint64_t)(uintptr_t)name) ^ kernel;
}

static const struct bid_ent *find_bid(struct pda_session *s, const char *name,
				      bool kernel)
{
	struct bid_key k = {name, kernel};

	return pdc_hash_find(&s->dsos.bid_by_name, bid_hash(name, kernel),
			     bid_eq, &k);
}

int pda_dso_note_build_id(struct pda_session *s, const char *name, size_t len,
			  bool kernel, const unsigned char *id, unsigned size)
{
	struct bid_ent *e;
	const char *iname;

	if (!size)
		return 0;
	if (size > PDA_BUILD_ID_MAX)
		size = PDA_BUILD_ID_MAX;
	/* perf's table names the kernel by its map's name */
	if (kernel && len >= 17 && memcmp(name, "[kernel.kallsyms]", 17) == 0)
		len = 17;
	iname = pda_intern(s, name, len);
	if (!iname)
		return PD_ERR_NOMEM;
	if (find_bid(s, iname, kernel))
		return 0; /* the first entry for a name wins */
	e = pda_arena_alloc(s, sizeof(*e));
	if (!e)
		return PD_ERR_NOMEM;
	memset(e, 0, sizeof(*e));
	e->name = iname;
	e->kernel = kernel;
	e->size = size;
	memcpy(e->id, id, size);
	return pdc_hash_add(&s->alloc, &s->dsos.bid_by_name,
			    bid_hash(iname, kernel), e);
}

unsigned pda_dso_noted_build_id(struct pda_session *s, const char *name,
				size_t len, bool kernel, unsigned char *id)
{
	const char *iname = pda_intern(s, name, len);
	const struct bid_ent *b = iname ? find_bid(s, iname, kernel) : NULL;

	if (!b)
		return 0;
	memcpy(id, b->id, b->size);
	return b->size;
}

struct pda_dso_ent *pda_dso_get(struct pda_session *s, enum pda_dso_kind kind,
				const char *name, size_t len,
				const unsigned char *build_id,
				unsigned build_id_size, uint32_t pid)
{
	struct dso_key k = {kind, NULL, build_id, build_id_size};
	struct pda_dso_ent *d;
	uint64_t hash;

	k.name = pda_intern(s, name, len);
	if (!k.name)
		return NULL;
	if (build_id_size > PDA_BUILD_ID_MAX)
		k.build_id_size = PDA_BUILD_ID_MAX;
	if (!k.build_id_size && kind != PDA_DSO_JIT) {
		const struct bid_ent *b =
			find_bid(s, k.name, kind == PDA_DSO_KERNEL);

		if (b) {
			k.build_id = b->id;
			k.build_id_size = b->size;
		}
	}
	hash = key_hash(&k);
	d = pdc_hash_find(&s->dsos.by_key, hash, dso_eq, &k);
	if (d)
		return d;
	d = pda_arena_alloc(s, sizeof(*d));
	if (!d)
		return NULL;
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->pid = pid;
	d->d.name = k.name;
	d->d.kernel = kind == PDA_DSO_KERNEL;
	d->d.build_id_size = k.build_id_size;
	if (k.build_id_size)
		memcpy(d->d.build_id, k.build_id, k.build_id_size);
	d->sample_seq = d->unres_seq = UINT64_MAX;
	d->idx = (uint32_t)s->dsos.nr_all;
	if (pdc_hash_add(&s->alloc, &s->dsos.by_key, hash, d) < 0)
		return NULL;
	d->next_all = s->dsos.all;
	s->dsos.all = d;
	s->dsos.nr_all++;
	return d;
}

/* ---- tried paths --------------------------------------------------- */

int pda_dso_tried(struct pda_session *s, struct pda_dso_ent *d,
		  const char *path, const char *why)
{
	char buf[PDA_PATH_MAX + 64];
	const char *str;
	int n;

	if (d->nr_tried >= TRIED_MAX)
		return 0;
	n = why ? snprintf(buf, sizeof(buf), "%s (%s)", path, why)
		: snprintf(buf, sizeof(buf), "%s", path);
	if (n < 0)
		return 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	str = pda_intern(s, buf, (size_t)n);
	if (!str)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < d->nr_tried; i++)
		if (d->d.tried[i] == str)
			return 0;
	/* d.tried stays NULL-terminated */
	if (PDA_GROW(s, d->d.tried, d->tried_alloc, d->nr_tried + 2,
		     TRIED_MAX + 1) < 0)
		return PD_ERR_NOMEM;
	d->d.tried[d->nr_tried++] = str;
	d->d.tried[d->nr_tried] = NULL;
	return 0;
}

void pda_hex(char *out, const unsigned char *id, unsigned size)
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned i = 0; i < size; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * size] = '\0';
}

static bool warned_eq(const void *item, const void *key)
{
	return ((const struct bid_ent *)item)->name == key;
}

/* Log a rejected file once per path for the whole session. */
static int warn_once(struct pda_session *s, struct pda_dso_ent *d,
		     const char *path, const char *why, const unsigned char *id,
		     unsigned size)
{
	char want[2 * PDA_BUILD_ID_MAX + 1], got[2 * PDA_BUILD_ID_MAX + 1];
	const char *ipath = pda_intern(s, path, strlen(path));
	uint64_t hash;
	struct bid_ent *e;

	if (!ipath)
		return PD_ERR_NOMEM;
	hash = pdc_hash_u64((uint64_t)(uintptr_t)ipath);
	if (pdc_hash_find(&s->dsos.warned, hash, warned_eq, ipath))
		return 0;
	e = pda_arena_alloc(s, sizeof(*e));
	if (!e)
		return PD_ERR_NOMEM;
	memset(e, 0, sizeof(*e));
	e->name = ipath;
	if (pdc_hash_add(&s->alloc, &s->dsos.warned, hash, e) < 0)
		return PD_ERR_NOMEM;
	pda_hex(want, d->d.build_id, d->d.build_id_size);
	pda_hex(got, id, size);
	/* the recorded path itself, or a copy found for it elsewhere */
	if (strcmp(path, d->d.name) == 0)
		pda_logf(s, PD_LOG_WARN,
			 "'%s' not used: %s (build-id in the capture %s, "
			 "in the file %s)",
			 path, why, want, size ? got : "none");
	else
		pda_logf(s, PD_LOG_WARN,
			 "'%s' not used for '%s': %s (build-id in the capture "
			 "%s, in the file %s)",
			 path, d->d.name, why, want, size ? got : "none");
	return 0;
}

int pda_dso_try_elf(struct pda_session *s, struct pda_dso_ent *d,
		    const char *path, struct pda_elf **out)
{
	unsigned char got[PDA_BUILD_ID_MAX];
	const unsigned char *id;
	unsigned size;
	struct stat st;
	struct pda_elf *e;
	int rc;

	*out = NULL;
	if (stat(path, &st) < 0) {
		rc = pda_dso_tried(s, d, path, NULL);
		return rc < 0 ? rc : PD_ERR_NOTFOUND;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = pda_dso_tried(s, d, path, "not a regular file");
		return rc < 0 ? rc : PD_ERR_NOTFOUND;
	}
	rc = pda_elf_open(s, path, &e);
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0) {
		rc = pda_dso_tried(s, d, path,
				   rc == PD_ERR_FORMAT ? "not ELF" : NULL);
		return rc < 0 ? rc : PD_ERR_NOTFOUND;
	}
	if (!d->d.build_id_size) {
		*out = e;
		return 0;
	}
	pda_elf_build_id(e, &id, &size);
	if (size == d->d.build_id_size &&
	    memcmp(id, d->d.build_id, size) == 0) {
		*out = e;
		return 0;
	}
	/* the file's id outlives its handle for the message */
	if (size > PDA_BUILD_ID_MAX)
		size = PDA_BUILD_ID_MAX;
	memcpy(got, id, size);
	pda_elf_close(s, e);
	d->mismatch = true;
	rc = warn_once(s, d, path, "build-id mismatch", got, size);
	if (rc == 0)
		rc = pda_dso_tried(s, d, path, "build-id mismatch");
	return rc < 0 ? rc : PD_ERR_NOTFOUND;
}

/* ---- lookup -------------------------------------------------------- */

struct found {
	struct pda_elf *bin, *dbg;
};

/* Try path for a role whose slot is still empty.  0 or NOMEM. */
static int try_role(struct pda_session *s, struct pda_dso_ent *d,
		    const char *path, struct pda_elf **slot)
{
	int rc;

	if (*slot)
		return 0;
	rc = pda_dso_try_elf(s, d, path, slot);
	return rc == PD_ERR_NOTFOUND ? 0 : rc;
}

/* A path under --symfs for role slot; 0 or NOMEM. */
static int try_symfs(struct pda_session *s, struct pda_dso_ent *d,
		     const char *path, struct pda_elf **slot)
{
	char out[PDA_PATH_MAX], shown[PDA_PATH_MAX];
	bool escaped;

	if (*slot)
		return 0;
	if (pda_path_under(s->dsos.symfs, path, out, sizeof(out), &escaped) <
	    0) {
		if (!pda_pathf(shown, "%s%s%s", s->dsos.symfs,
			       path[0] == '/' ? "" : "/", path))
			return 0;
		if (escaped)
			d->escaped = true;
		return pda_dso_tried(s, d, shown,
				     escaped ? "outside --symfs" : NULL);
	}
	return try_role(s, d, out, slot);
}

/* The recorded path without the " (deleted)" the kernel appends. */
static size_t lookup_len(const char *name)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(name), n = sizeof(deleted) - 1;

	if (len > n && memcmp(name + len - n, deleted, n) == 0)
		return len - n;
	return len;
}

static int try_cache(struct pda_session *s, struct pda_dso_ent *d,
		     const char *path, struct found *f, bool want_bin)
{
	const char *dir = s->dsos.buildid_dir;
	const char *base = d->kind == PDA_DSO_VDSO ? "vdso" : "elf";
	char id[2 * PDA_BUILD_ID_MAX + 1], link[PDA_PATH_MAX], p[PDA_PATH_MAX],
		q[PDA_PATH_MAX];
	int plen = (int)lookup_len(path);
	struct stat st;
	bool escaped;
	int rc;

	if (!dir || !d->d.build_id_size)
		return 0;
	pda_hex(id, d->d.build_id, d->d.build_id_size);
	if (!pda_pathf(link, "%s/.build-id/%.2s/%s", dir, id, id + 2))
		return 0;
	if (stat(link, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (want_bin && pda_pathf(p, "%s/%s", link, base) &&
		    (rc = try_role(s, d, p, &f->bin)) < 0)
			return rc;
		if (pda_pathf(p, "%s/debug", link) && stat(p, &st) == 0 &&
		    (rc = try_role(s, d, p, &f->dbg)) < 0)
			return rc;
	} else if (want_bin) {
		/* older perf: the link names the file itself */
		if ((rc = try_role(s, d, link, &f->bin)) < 0)
			return rc;
	}
	/* the PATH/BUILDID/{elf,debug} layout the link points into */
	if (want_bin && !f->bin &&
	    pda_pathf(p, "%.*s/%s/%s", plen, path, id, base) &&
	    pda_path_under(dir, p, q, sizeof(q), &escaped) == 0 &&
	    (rc = try_role(s, d, q, &f->bin)) < 0)
		return rc;
	if (!f->dbg && pda_pathf(p, "%.*s/%s/debug", plen, path, id) &&
	    pda_path_under(dir, p, q, sizeof(q), &escaped) == 0 &&
	    (rc = try_role(s, d, q, &f->dbg)) < 0)
		return rc;
	return 0;
}

static int try_debug_dirs(struct pda_session *s, struct pda_dso_ent *d,
			  struct found *f)
{
	char id[2 * PDA_BUILD_ID_MAX + 1], p[PDA_PATH_MAX];
	int rc;

	if (!d->d.build_id_size || f->dbg)
		return 0;
	pda_hex(id, d->d.build_id, d->d.build_id_size);
	if (!pda_pathf(p, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2))
		return 0;
	if (s->dsos.symfs && (rc = try_symfs(s, d, p, &f->dbg)) < 0)
		return rc;
	return pda_host_files(s) ? try_role(s, d, p, &f->dbg) : 0;
}

static int try_debuglink(struct pda_session *s, struct pda_dso_ent *d,
			 const char *path, struct found *f)
{
	char dir[PDA_PATH_MAX], p[PDA_PATH_MAX];
	const char *link, *slash;
	uint32_t crc;
	int rc;

	if (!f->bin || f->dbg)
		return 0;
	link = pda_elf_debuglink(f->bin, &crc);
	/* a file name, never a path: the binary's bytes choose it */
	if (!link || !*link || strchr(link, '/') || !strcmp(link, "..") ||
	    !strcmp(link, "."))
		return 0;
	slash = strrchr(path, '/');
	if (!slash)
		return 0;
	if (!pda_pathf(dir, "%.*s", (int)(slash - path), path))
		return 0;
	for (int i = 0; i < 3; i++) {
		bool ok = i == 0   ? pda_pathf(p, "%s/%s", dir, link)
			  : i == 1 ? pda_pathf(p, "%s/.debug/%s", dir, link)
				   : pda_pathf(p, "/usr/lib/debug%s/%s", dir,
					       link);

		if (!ok)
			continue;
		rc = s->dsos.symfs ? try_symfs(s, d, p, &f->dbg)
				   : try_role(s, d, p, &f->dbg);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int try_debuginfod(struct pda_session *s, struct pda_dso_ent *d,
			  struct pda_elf **slot, bool exec)
{
	char *path;
	int rc;

	if (*slot)
		return 0;
	rc = pda_debuginfod_fetch(s, d, d->d.build_id, d->d.build_id_size,
				  exec ? PDA_FETCH_EXECUTABLE
				       : PDA_FETCH_DEBUGINFO,
				  &path);
	if (rc == 0 && path)
		rc = try_role(s, d, path, slot);
	free(path); /* libdebuginfod's malloc */
	return rc;
}

/*
 * Without a build-id, whether the file at the recorded path is the one
 * the capture mapped (issue 13 item 7): a rebuilt binary gives wrong
 * names, not missing ones.  Only what is sure is said: the MMAP2's device
 * and inode are this host's only when the capture is, and a file
 * modified after the capture was written is not the file it recorded
 * (a copy of it at best).  Sets d->changed; 0 or NOMEM.
 */
static int check_same_file(struct pda_session *s, struct pda_dso_ent *d,
			   const char *path)
{
	char why[160];
	struct stat st, cap;
	const char *name = pd_file_name(s->f);

	if (stat(path, &st) < 0)
		return 0;
	why[0] = '\0';
	if (d->has_ino && pda_same_host(s) &&
	    major(st.st_dev) == d->maj && minor(st.st_dev) == d->min &&
	    (uint64_t)st.st_ino != d->ino)
		snprintf(why, sizeof(why),
			 "inode %" PRIu64 ", the capture mapped inode %" PRIu64
			 " of the same device",
			 (uint64_t)st.st_ino, d->ino);
	else if (name && stat(name, &cap) == 0 && S_ISREG(cap.st_mode) &&
		 st.st_mtime > cap.st_mtime)
		snprintf(why, sizeof(why),
			 "modified after the capture was written");
	if (!why[0])
		return 0;
	d->changed = pda_intern(s, why, strlen(why));
	if (!d->changed)
		return PD_ERR_NOMEM;
	pda_logf(s, PD_LOG_WARN,
		 "'%s' is not the file the capture mapped (%s, and the "
		 "capture has no build-id to tell): its names may be wrong",
		 path, why);
	return 0;
}

static int adopt_build_id(struct pda_dso_ent *d, struct pda_elf *e)
{
	const unsigned char *id;
	unsigned size;

	pda_elf_build_id(e, &id, &size);
	if (!size || d->d.build_id_size)
		return 0;
	if (size > PDA_BUILD_ID_MAX)
		size = PDA_BUILD_ID_MAX;
	memcpy(d->d.build_id, id, size);
	d->d.build_id_size = size;
	return 1;
}

static int find_files(struct pda_session *s, struct pda_dso_ent *d,
		      struct found *f)
{
	char path[PDA_PATH_MAX];
	bool known = d->d.build_id_size != 0;
	bool is_file = d->kind == PDA_DSO_FILE;
	bool adopted;
	uint32_t crc;
	int rc;

	if (!pda_pathf(path, "%.*s", (int)lookup_len(d->d.name), d->d.name)) {
		d->d.why = "path too long";
		return 0;
	}
	if (s->dsos.symfs && is_file && (rc = try_symfs(s, d, path, &f->bin)))
		return rc;
	if ((rc = try_cache(s, d, path, f, true)) < 0)
		return rc;
	if ((rc = try_debug_dirs(s, d, f)) < 0)
		return rc;
	/*
	 * debuginfod before the recorded path, except that a binary the
	 * recorded path holds (same build-id, same bytes) needs no
	 * download: so the recorded path is looked at first.
	 */
	if (is_file && path[0] == '/' &&
	    (!s->dsos.symfs || (s->opts.host_files && known))) {
		bool had = f->bin != NULL;

		if ((rc = try_role(s, d, path, &f->bin)) < 0)
			return rc;
		if (!had && f->bin && !known &&
		    (rc = check_same_file(s, d, path)) < 0)
			return rc;
	}
	/* what the file-reading rule of --symfs left out, said where the
	 * user looks for why a binary was not found */
	if (is_file && path[0] == '/' && s->dsos.symfs && known && !f->bin &&
	    !s->opts.host_files &&
	    (rc = pda_dso_tried(s, d, path, "on this host: --host-files")) < 0)
		return rc;
	if (is_file && (rc = pda_search_find(s, d, path, &f->bin, &f->dbg)) < 0)
		return rc;
	if (known && (rc = try_debuginfod(s, d, &f->bin, true)) < 0)
		return rc;
	/* without a build-id from the capture, the binary's finds its
	 * debug file */
	adopted = f->bin && !known && adopt_build_id(d, f->bin);
	if (adopted) {
		if ((rc = try_cache(s, d, path, f, false)) < 0 ||
		    (rc = try_debug_dirs(s, d, f)) < 0)
			return rc;
	}
	if ((rc = try_debuglink(s, d, path, f)) < 0)
		return rc;
	if (!f->dbg && (!f->bin || pda_elf_debuglink(f->bin, &crc)))
		rc = try_debuginfod(s, d, &f->dbg, false);
	if (adopted)
		d->d.build_id_size = 0; /* it was not the capture's */
	return rc;
}

/* Set a file DSO's files and state: under the session's lock while
 * other threads unwind, as pda_unwind_dso_elf reads them there. */
static void publish(struct pda_session *s, struct pda_dso_ent *d,
		    struct pda_elf *elf, struct pda_elf *debug,
		    enum pda_dso_state state)
{
	if (s->mt.on)
		pthread_mutex_lock(&s->mt.lock);
	d->d.elf = elf;
	d->d.debug = debug;
	d->d.state = state;
	if (s->mt.on)
		pthread_mutex_unlock(&s->mt.lock);
}

bool pda_dso_may_load(const struct pda_session *s)
{
	/* shards on threads load under s->shard_lock, in their turn */
	return !s->mt.on || s->shards_on ||
	       (pthread_equal(pthread_self(), s->mt.owner) && s->mt.may_load);
}

void pda_dso_published(struct pda_session *s, const struct pda_dso_ent *d,
		       enum pda_dso_state *state, struct pda_elf **elf)
{
	if (s->mt.on)
		pthread_mutex_lock(&s->mt.lock);
	*state = d->d.state;
	*elf = d->d.elf;
	if (s->mt.on)
		pthread_mutex_unlock(&s->mt.lock);
}

/*
 * This process's own vdso, as perf takes its own (util/vdso.c): when its
 * build-id is the capture's, or the capture has none (pipe mode) and was
 * recorded on this host's running kernel; and only as far as this host's
 * kernel may stand for the capture's (pda_host_kernel_allowed: its
 * host).  0 (*out NULL when not) or NOMEM.
 */
static int host_vdso(struct pda_session *s, struct pda_dso_ent *d,
		     struct pda_elf **out)
{
	static const char name[] = "[vdso] of this process";
	const uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	unsigned long lo, hi;
	const unsigned char *id;
	const char *why;
	unsigned size;
	char line[512];
	bool found = false;
	FILE *maps;
	int rc;

	*out = NULL;
	if (!base || !pda_host_kernel_allowed(s, &why) ||
	    (!d->d.build_id_size && !pda_same_host_kernel(s)))
		return 0;
	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return 0;
	while (!found && fgets(line, sizeof(line), maps))
		found = strstr(line, "[vdso]") &&
			sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base &&
			hi > lo;
	fclose(maps);
	if (!found)
		return 0;
	rc = pda_elf_open_image(s, name, (const void *)base, hi - lo, out);
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0)
		return pda_dso_tried(s, d, name, "not ELF");
	pda_elf_build_id(*out, &id, &size);
	if (d->d.build_id_size &&
	    (size != d->d.build_id_size ||
	     memcmp(id, d->d.build_id, size) != 0)) {
		pda_elf_close(s, *out);
		*out = NULL;
		return pda_dso_tried(s, d, name, "another build-id");
	}
	return 0;
}

int pda_dso_load(struct pda_session *s, struct pda_dso_ent *d)
{
	struct found f = {NULL, NULL};
	int rc;

	if (d->d.state != PDA_DSO_UNTRIED)
		return 0;
	switch (d->kind) {
	case PDA_DSO_KERNEL:
		return pda_kernel_load(s, d);
	case PDA_DSO_JIT:
		return pda_jit_load(s, d);
	case PDA_DSO_VDSO:
	case PDA_DSO_FILE:
		break;
	}
	/* a vdso is looked up by build-id only, then this process's */
	rc = d->kind != PDA_DSO_VDSO || d->d.build_id_size
		     ? find_files(s, d, &f)
		     : 0;
	if (rc == 0 && d->kind == PDA_DSO_VDSO && !f.bin && !f.dbg)
		rc = host_vdso(s, d, &f.bin);
	if (rc == 0 && f.bin)
		rc = pda_dso_find_alt(s, d, f.bin, &d->alts[0]);
	if (rc == 0 && f.dbg)
		rc = pda_dso_find_alt(s, d, f.dbg, &d->alts[1]);
	if (rc < 0) {
		pda_elf_close(s, f.bin);
		pda_elf_close(s, f.dbg);
		for (int i = 0; i < 2; i++) {
			pda_elf_close(s, d->alts[i]);
			d->alts[i] = NULL;
		}
		return rc;
	}
	if (f.bin)
		pda_elf_set_alt(f.bin, d->alts[0]);
	if (f.dbg)
		pda_elf_set_alt(f.dbg, d->alts[1]);
	/* lookups go through the binary, which defers to its debug file */
	if (f.bin && f.dbg)
		pda_elf_set_debug(f.bin, f.dbg);
	if (f.bin || f.dbg) {
		publish(s, d, f.bin ? f.bin : f.dbg, f.bin ? f.dbg : NULL,
			PDA_DSO_FOUND);
		pda_logf(s, PD_LOG_DEBUG, "'%s': %s%s%s", d->d.name,
			 f.bin ? "binary found" : "debug file found",
			 f.bin && f.dbg ? ", with a debug file" : "",
			 d->d.build_id_size ? "" : " (no build-id to check)");
		return 0;
	}
	d->d.why = d->mismatch	? "build-id mismatch"
		   : d->escaped ? "outside --symfs"
		   : d->kind == PDA_DSO_VDSO && !d->d.build_id_size
			? "no build-id for the vdso in the capture, and its "
			  "host or kernel release is not this one"
			: "not found";
	publish(s, d, NULL, NULL, PDA_DSO_MISSING);
	pda_logf(s, PD_LOG_DEBUG, "'%s': %s", d->d.name, d->d.why);
	return 0;
}

void pda_dsos_release(struct pda_session *s)
{
	struct pda_dso_ent *d;

	for (d = s->dsos.all; d; d = d->next_all) {
		if (d->d.elf)
			pda_elf_close(s, d->d.elf);
		if (d->d.debug)
			pda_elf_close(s, d->d.debug);
		for (int i = 0; i < 2; i++)
			pda_elf_close(s, d->alts[i]);
		if (d->ksyms)
			pda_ksyms_free(s, d->ksyms);
		if (d->jit)
			pda_jitmap_free(s, d->jit);
		/* after d.elf, which reads it */
		pda_free(s, d->jit_image);
		pda_free(s, d->d.tried);
	}
	s->dsos.all = NULL;
	s->dsos.nr_all = 0;
	pdc_hash_release(&s->alloc, &s->dsos.by_key);
	pdc_hash_release(&s->alloc, &s->dsos.bid_by_name);
	pdc_hash_release(&s->alloc, &s->dsos.warned);
	pda_debuginfod_release(s);
	pda_search_release(s);
}
