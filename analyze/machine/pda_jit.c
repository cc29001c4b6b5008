/*
 * pda_jit.c - symbols of JIT code from /tmp/perf-PID.map.
 *
 * A JIT (V8, the JVM with perf-map-agent, .NET, LuaJIT...) writes one
 * line per function it emits: "START SIZE name", START and SIZE in hex
 * (with 0x or without, as perf's strtoull takes them), the name the rest
 * of the line.  perf reads it for a
 * process's executable anonymous maps (pda_machine.c names them
 * /tmp/perf-PID.map as perf does); memfd code is looked up there too.
 *
 * With --symfs the file is looked for in DIR/tmp, and in this host's
 * /tmp only with --host-files; --jit-dir names the directory itself.
 *
 * /tmp is writable by anyone, so a map file is used only when it is a
 * regular file owned by us or by root (perf refuses others' files too).
 * Lines that do not parse are skipped and counted: bad hex, a START or
 * SIZE over 64 bits, START + SIZE past 2^64, a zero SIZE, no name
 * (../shared/corpus/ddprof/perf-1.map holds each kind).  A JIT that
 * recompiles writes the same START again: the last line wins.
 */
#include "pda_machine_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JITMAP_MAX ((size_t)1 << 30) /* bytes of a map file */
#define JITSYMS_MAX ((size_t)1 << 25)
#define OVERLAP_SCAN 16 /* earlier entries looked at for an overlap */

static int cmp_jitsym(const void *a, const void *b)
{
	const struct pda_jitsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* equal starts keep line order; name pointers grow with it */
	return x->name < y->name ? -1 : x->name > y->name;
}

/* A number of a map line: hex, with or without 0x, as perf's hex2u64
 * (strtoull base 16) reads it; the JVM (-XX:+DumpPerfMapAtExit, jcmd
 * Compiler.perfmap) writes "0x00007f3e2c938080 0x0000000000000040". */
static bool map_hex(const char **p, const char *end, uint64_t *v)
{
	const char *q = *p;

	if (end - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X') &&
	    isxdigit((unsigned char)q[2]))
		*p = q + 2;
	return pda_parse_hex(p, end, v);
}

int pda_jitmap_parse(struct pda_session *s, char *buf, size_t len,
		     struct pda_jitmap **out)
{
	struct pda_jitmap *m;
	char *line = buf, *end = buf + len;

	*out = NULL;
	m = pda_zalloc(s, sizeof(*m));
	if (!m) {
		pda_free(s, buf);
		return PD_ERR_NOMEM;
	}
	m->buf = buf;
	while (line < end) {
		char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *p = line;
		uint64_t start, size;

		if (!eol)
			eol = end;
		*eol = '\0';
		if (eol > line && eol[-1] == '\r')
			eol[-1] = '\0';
		if (eol == line || !*line)
			goto next; /* empty lines are not errors */
		if (!map_hex(&p, eol, &start) || *p != ' ')
			goto bad;
		while (*p == ' ')
			p++;
		if (!map_hex(&p, eol, &size) || *p != ' ')
			goto bad;
		while (*p == ' ')
			p++;
		if (!*p || !size || size > UINT64_MAX - start)
			goto bad;
		if (PDA_GROW(s, m->v, m->alloc, m->nr + 1, JITSYMS_MAX) < 0) {
			pda_jitmap_free(s, m);
			return PD_ERR_NOMEM;
		}
		m->v[m->nr].start = start;
		m->v[m->nr].end = start + size;
		m->v[m->nr].name = p;
		m->nr++;
		goto next;
	bad:
		m->nr_bad++;
	next:
		line = eol + 1;
	}
	pda_jitmap_finish(m);
	*out = m;
	return 0;
}

void pda_jitmap_finish(struct pda_jitmap *m)
{
	size_t nr_out = 0;

	/* an empty map has no array at all: qsort must not see NULL */
	if (m->nr > 1)
		qsort(m->v, m->nr, sizeof(*m->v), cmp_jitsym);
	for (size_t i = 0; i < m->nr; i++) {
		if (i + 1 < m->nr && m->v[i + 1].start == m->v[i].start)
			continue;
		m->v[nr_out++] = m->v[i];
	}
	m->nr = nr_out;
}

const struct pda_jitsym *pda_jitmap_find(const struct pda_jitmap *m,
					 uint64_t addr)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * lo - 1 is the last entry starting at or below addr; an earlier,
	 * longer one may still cover it when code was regenerated.
	 */
	for (size_t i = lo, n = 0; i > 0 && n < OVERLAP_SCAN; i--, n++)
		if (addr < m->v[i - 1].end)
			return &m->v[i - 1];
	return NULL;
}

void pda_jitmap_free(struct pda_session *s, struct pda_jitmap *m)
{
	if (!m)
		return;
	pda_free(s, m->v);
	pda_free(s, m->buf);
	pda_free(s, m);
}

/* Read path if it is safe to trust: a regular file of ours or root's. */
static int read_owned(struct pda_session *s, const char *path, char **buf,
		      size_t *len, const char **why)
{
	struct stat st;
	int fd, rc;

	*why = NULL;
	/* anyone may put a FIFO at /tmp/perf-PID.map for a PID the capture
	 * chose: its open must not block (a regular file reads the same) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
				O_NOCTTY);
	if (fd < 0) {
		if (errno == ELOOP)
			*why = "a symlink";
		return PD_ERR_NOTFOUND;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		*why = "not a regular file";
		return PD_ERR_NOTFOUND;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		close(fd);
		*why = "owned by another user";
		return PD_ERR_NOTFOUND;
	}
	/* read through the descriptor checked above */
	rc = pda_read_fd(s, fd, JITMAP_MAX, buf, len);
	close(fd);
	return rc;
}

/*
 * Read path for d (0, or a negative pd_err with *why set where there is
 * more to say than "not found"), noting a failure in d's tried list.
 */
static int try_map(struct pda_session *s, struct pda_dso_ent *d,
		   const char *path, char **buf, size_t *len, const char **why)
{
	int rc = read_owned(s, path, buf, len, why);

	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc == PD_ERR_UNSUPPORTED)
		*why = "too big";
	if (rc < 0) {
		int err = pda_dso_tried(s, d, path, *why);

		return err < 0 ? err : rc;
	}
	return 0;
}

/*
 * d's jitdump: in --jit-dir by its file name, else at its recorded path
 * inside --symfs, and on this host where its files are read
 * (--host-files with --symfs).  @return 1 read, 0 not found (the tried
 * paths noted), <0 NOMEM.
 */
static int load_dump(struct pda_session *s, struct pda_dso_ent *d)
{
	const char *base = strrchr(d->jitdump, '/');
	char path[PDA_PATH_MAX], real[PDA_PATH_MAX];
	const char *why = NULL, *used = path;
	char *buf = NULL;
	size_t len = 0, image_size;
	void *image;
	bool escaped;
	int rc = PD_ERR_NOTFOUND;

	base = base ? base + 1 : d->jitdump;
	if (s->opts.jit_dir) {
		if (pda_pathf(path, "%s/%s", s->opts.jit_dir, base))
			rc = try_map(s, d, path, &buf, &len, &why);
	} else {
		if (s->dsos.symfs &&
		    pda_path_under(s->dsos.symfs, d->jitdump, real,
				   sizeof(real), &escaped) == 0) {
			used = real;
			rc = try_map(s, d, real, &buf, &len, &why);
		}
		if (rc < 0 && rc != PD_ERR_NOMEM && pda_host_files(s) &&
		    pda_pathf(path, "%s", d->jitdump)) {
			used = path;
			rc = try_map(s, d, path, &buf, &len, &why);
		}
	}
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0)
		return 0;
	rc = pda_jitdump_parse(s, used, buf, len, &d->jit, &image,
			       &image_size);
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0) {
		pda_logf(s, PD_LOG_WARN, "%s", pda_session_errmsg(s));
		return 0;
	}
	if (image) {
		rc = pda_elf_open_image(s, used, image, image_size, &d->d.elf);
		if (rc == PD_ERR_NOMEM) {
			pda_free(s, image);
			return rc;
		}
		if (rc < 0)
			pda_free(s, image);
		else
			d->jit_image = image;
	}
	if (d->jit->nr_bad)
		pda_logf(s, PD_LOG_WARN,
			 "%s: %zu code records skipped (empty, or a move of "
			 "code never loaded)",
			 used, d->jit->nr_bad);
	d->jitdump_from = pda_intern(s, used, strlen(used));
	if (!d->jitdump_from)
		return PD_ERR_NOMEM;
	d->d.state = PDA_DSO_FOUND;
	return 1;
}

/*
 * The map file: in --jit-dir, else /tmp; with --symfs, in its /tmp
 * (resolved inside it) and the host's /tmp only with --host-files.
 * A process that mapped a jitdump reads that instead, when found.
 */
int pda_jit_load(struct pda_session *s, struct pda_dso_ent *d)
{
	const char *dir = s->opts.jit_dir ? s->opts.jit_dir : "/tmp";
	char path[PDA_PATH_MAX], real[PDA_PATH_MAX];
	const char *why = NULL, *used = real;
	char *buf = NULL;
	size_t len = 0;
	bool escaped;
	int rc = PD_ERR_NOTFOUND;

	if (d->jitdump) {
		rc = load_dump(s, d);
		if (rc != 0)
			return rc < 0 ? rc : 0;
		rc = PD_ERR_NOTFOUND;
	}
	if (!pda_pathf(path, "%s/perf-%u.map", dir, (unsigned)d->pid)) {
		d->d.state = PDA_DSO_MISSING;
		d->d.why = "path too long";
		return 0;
	}
	if (!s->opts.jit_dir && s->dsos.symfs) {
		if (pda_path_under(s->dsos.symfs, path, real, sizeof(real),
				   &escaped) == 0)
			rc = try_map(s, d, real, &buf, &len, &why);
		else if (pda_pathf(real, "%s%s", s->dsos.symfs, path) &&
			 (rc = pda_dso_tried(s, d, real,
					     escaped ? "outside --symfs"
						     : NULL)) == 0)
			rc = PD_ERR_NOTFOUND;
	}
	if (rc < 0 && rc != PD_ERR_NOMEM &&
	    (s->opts.jit_dir || pda_host_files(s))) {
		used = path;
		rc = try_map(s, d, path, &buf, &len, &why);
	}
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0) {
		d->d.state = PDA_DSO_MISSING;
		d->d.why = why ? why : "not found";
		return 0;
	}
	rc = pda_jitmap_parse(s, buf, len, &d->jit);
	if (rc < 0)
		return rc;
	if (d->jit->nr_bad)
		pda_logf(s, PD_LOG_WARN,
			 "%s: %zu lines skipped (not START SIZE name)", used,
			 d->jit->nr_bad);
	d->d.state = PDA_DSO_FOUND;
	return 0;
}
