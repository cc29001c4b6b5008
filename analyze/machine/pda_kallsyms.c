/*
 * pda_kallsyms.c - kernel symbols: a /proc/kallsyms copy, a vmlinux, or
 * this host's /proc/kallsyms when the capture was recorded on this very
 * kernel.
 *
 * The kernel DSO's symbols come from the first of:
 *   1. --kallsyms FILE (the user vouches for it: kallsyms has no
 *      build-id);
 *   2. --vmlinux FILE, its build-id checked against the capture's;
 *   3. the perf build-id cache: .build-id/xx/rest/kallsyms and
 *      [kernel.kallsyms]/BUILDID/kallsyms, which perf record keeps;
 *   4. /proc/kallsyms, only with opts.use_host_kernel, only when the
 *      capture's hostname is this host's (unless opts.host_kernel_any_host:
 *      a capture claiming this kernel's build-id must not make a run as
 *      root an oracle of where its symbols are), and only when the
 *      capture's kernel build-id equals this host's (/sys/kernel/notes),
 *      or, for a capture without one (pipe mode), when its kernel
 *      release is this host's too.
 * Otherwise kernel frames stay unresolved, as perf shows them for a
 * capture from another host, never under a wrong name.  Module symbols
 * come from kallsyms' "[module]" tags.
 *
 * Symbol extents follow perf (symbols__fixup_end and _duplicate): a
 * symbol ends where the next one starts, except at a boundary between
 * the kernel and a module, where it ends at the next page; the last one
 * ends a page after its start's page; of symbols at one address the last
 * listed is used.  When the capture says where its reloc symbol ("_text",
 * from the "[kernel.kallsyms]_text" map) was, kernel (not module)
 * addresses are shifted by the difference to the file's, so a kallsyms of
 * another boot (KASLR) still fits.
 */
#include "pda_machine_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define KALLSYMS_MAX ((size_t)512 << 20) /* bytes of a kallsyms file */
#define KSYMS_MAX ((size_t)1 << 24)	 /* symbols */
#define PAGE 4096u

int pda_read_fd(struct pda_session *s, int fd, size_t max, char **buf,
		size_t *len)
{
	size_t alloc = 0, used = 0;
	char *p = NULL;
	int rc = 0;

	*buf = NULL;
	*len = 0;
	for (;;) {
		ssize_t n;

		/* one byte kept for the NUL */
		if (used + 1 >= alloc &&
		    (rc = PDA_GROW(s, p, alloc, used + 65536, max + 65536)) < 0)
			break;
		n = read(fd, p + used, alloc - used - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = PD_ERR_IO;
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used >= max) {
			rc = PD_ERR_UNSUPPORTED; /* over the cap */
			break;
		}
	}
	if (rc < 0) {
		pda_free(s, p);
		return rc;
	}
	if (!p && (p = pda_malloc(s, 1)) == NULL)
		return PD_ERR_NOMEM;
	p[used] = '\0';
	*buf = p;
	*len = used;
	return 0;
}

int pda_read_file(struct pda_session *s, const char *path, size_t max,
		  char **buf, size_t *len)
{
	int fd, rc;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOMEM ? PD_ERR_NOMEM : PD_ERR_NOTFOUND;
	rc = pda_read_fd(s, fd, max, buf, len);
	close(fd);
	return rc;
}

/* perf's symbol_type__filter: text, weak, data and bss symbols. */
static bool keep_type(char type)
{
	type = (char)toupper((unsigned char)type);
	return type == 'T' || type == 'W' || type == 'D' || type == 'B';
}

/* A hex digit's value plus 1, 0 for any other byte: a table, as this
 * parses every address of a host's /proc/kallsyms (over 100k lines). */
#define HEX_DIGITS(X)                                                       \
	X('0', 0) X('1', 1) X('2', 2) X('3', 3) X('4', 4) X('5', 5)         \
	X('6', 6) X('7', 7) X('8', 8) X('9', 9) X('a', 10) X('b', 11)       \
	X('c', 12) X('d', 13) X('e', 14) X('f', 15) X('A', 10) X('B', 11)   \
	X('C', 12) X('D', 13) X('E', 14) X('F', 15)
#define HEX_ENTRY(c, v) [(unsigned char)(c)] = (v) + 1,
static const unsigned char hex_value[256] = {HEX_DIGITS(HEX_ENTRY)};

#define BYTES(b) ((uint64_t)(b) * 0x0101010101010101ull)

/*
 * Eight lower-case hex digits at q (q[0] the most significant) into *v,
 * a word at a time; false when any byte is not one.  Every byte below
 * 0x80 adds its bound without carrying into the next one.
 */
static inline bool hex8(const char *q, uint32_t *v)
{
	const uint64_t hi = BYTES(0x80);
	uint64_t c, digit, letter, nib;

	memcpy(&c, q, sizeof(c));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	c = __builtin_bswap64(c);
#endif
	if (c & hi)
		return false;
	/* '0'-'9': >= 0x30 and <= 0x39; 'a'-'f': >= 0x61 and <= 0x66 */
	digit = (c + BYTES(0x50)) & ~(c + BYTES(0x46)) & hi;
	letter = (c + BYTES(0x1f)) & ~(c + BYTES(0x19)) & hi;
	if ((digit | letter) != hi)
		return false;
	nib = (c & BYTES(0x0f)) + (letter >> 7) * 9;
	/* byte pairs, then pairs of those: the lower address the higher */
	nib = (nib & 0x000f000f000f000full) << 4 |
	      (nib >> 8 & 0x000f000f000f000full);
	nib = (nib & 0x000000ff000000ffull) << 8 |
	      (nib >> 16 & 0x000000ff000000ffull);
	*v = (uint32_t)((nib & 0xffff) << 16 | (nib >> 32 & 0xffff));
	return true;
}

bool pda_parse_hex(const char **p, const char *end, uint64_t *v)
{
	const char *q = *p;
	uint64_t x = 0;
	uint32_t a, b;
	unsigned d;

	/* a 64-bit kernel's address: 16 digits and what ends them */
	if (end - q > 16 && !hex_value[(unsigned char)q[16]] && hex8(q, &a) &&
	    hex8(q + 8, &b)) {
		*p = q + 16;
		*v = (uint64_t)a << 32 | b;
		return true;
	}
	if (q == end || !hex_value[(unsigned char)*q])
		return false;
	for (; q < end && (d = hex_value[(unsigned char)*q]) != 0; q++) {
		if (x >> 60)
			return false;
		x = x << 4 | (d - 1);
	}
	*p = q;
	*v = x;
	return true;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct pda_ksym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* equal starts keep file order (end holds the line index) */
	return x->end < y->end ? -1 : x->end > y->end;
}

static uint64_t page_up(uint64_t v)
{
	return v > UINT64_MAX - (PAGE - 1)
		       ? UINT64_MAX
		       : (v + PAGE - 1) & ~(uint64_t)(PAGE - 1);
}

static void fixup_ends(struct pda_ksyms *k)
{
	size_t out = 0;

	if (!k->nr)
		return;
	for (size_t i = 0; i + 1 < k->nr; i++) {
		struct pda_ksym *prev = &k->v[i];
		const struct pda_ksym *cur = &k->v[i + 1];

		/* perf: no symbol spans the kernel/module gap */
		if (!prev->module != !cur->module)
			prev->end = prev->start > UINT64_MAX - 2 * PAGE
					    ? UINT64_MAX
					    : page_up(prev->start + PAGE);
		else
			prev->end = cur->start;
	}
	{
		struct pda_ksym *last = &k->v[k->nr - 1];

		last->end = page_up(last->start) > UINT64_MAX - PAGE
				    ? UINT64_MAX
				    : page_up(last->start) + PAGE;
	}
	/* of several at one address, the last listed (the one with size) */
	for (size_t i = 0; i < k->nr; i++) {
		if (i + 1 < k->nr && k->v[i + 1].start == k->v[i].start)
			continue;
		k->v[out++] = k->v[i];
		if (!k->v[i].module && k->v[i].end > k->kernel_end)
			k->kernel_end = k->v[i].end;
	}
	k->nr = out;
}

/*
 * The names kept, and each module's name once, copied into a buffer of
 * their own in place of the file's (whose addresses, types and symbols
 * not kept are most of it: 8 MB for 3 MB of names on a distribution
 * kernel).  A module's symbols come together in the file: one copy a
 * run.  0 or NOMEM (k unchanged).
 */
static int compact(struct pda_session *s, struct pda_ksyms *k)
{
	size_t size = 0, at = 0;
	const char *mod = NULL, *mod_copy = NULL;
	char *nb;

	for (size_t i = 0; i < k->nr; i++) {
		size += strlen(k->v[i].name) + 1;
		if (k->v[i].module &&
		    (!mod || strcmp(mod, k->v[i].module) != 0)) {
			mod = k->v[i].module;
			size += strlen(mod) + 1;
		}
	}
	nb = pda_malloc(s, size ? size : 1);
	if (!nb)
		return PD_ERR_NOMEM;
	mod = NULL;
	for (size_t i = 0; i < k->nr; i++) {
		const size_t n = strlen(k->v[i].name) + 1;

		memcpy(nb + at, k->v[i].name, n);
		k->v[i].name = nb + at;
		at += n;
		if (!k->v[i].module)
			continue;
		if (!mod || strcmp(mod, k->v[i].module) != 0) {
			const size_t m = strlen(k->v[i].module) + 1;

			mod = k->v[i].module;
			memcpy(nb + at, mod, m);
			mod_copy = nb + at;
			at += m;
		}
		k->v[i].module = mod_copy;
	}
	pda_free(s, k->buf);
	k->buf = nb;
	k->buf_size = size;
	return 0;
}

int pda_ksyms_parse(struct pda_session *s, char *buf, size_t len,
		    struct pda_ksyms **out, const char **why)
{
	struct pda_ksyms *k;
	char *line = buf, *end = buf + len;
	size_t nr_lines = 0, nr_nonzero = 0;

	*out = NULL;
	*why = NULL;
	k = pda_zalloc(s, sizeof(*k));
	if (!k) {
		pda_free(s, buf);
		return PD_ERR_NOMEM;
	}
	k->buf = buf;
	k->buf_size = len;
	while (line < end) {
		char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *p = line;
		char *name, *tab;
		uint64_t addr;
		char type;

		if (!eol)
			eol = end;
		*eol = '\0';
		if (eol > line && eol[-1] == '\r')
			eol[-1] = '\0';
		/* "ADDR TYPE NAME[\t[MODULE]]" */
		if (!pda_parse_hex(&p, eol, &addr) || *p != ' ' || !p[1] ||
		    p[2] != ' ' || !p[3])
			goto next;
		nr_lines++;
		type = p[1];
		if (!keep_type(type))
			goto next;
		name = (char *)line + (p + 3 - line);
		tab = strchr(name, '\t');
		if (PDA_GROW(s, k->v, k->alloc, k->nr + 1, KSYMS_MAX) < 0) {
			pda_ksyms_free(s, k);
			return PD_ERR_NOMEM;
		}
		k->v[k->nr].start = addr;
		k->v[k->nr].end = k->nr; /* file order, for the sort */
		k->v[k->nr].name = name;
		k->v[k->nr].module = NULL;
		if (tab) {
			char *mod = tab + 1;
			size_t n;

			*tab = '\0';
			n = strlen(mod);
			if (n >= 2 && mod[0] == '[' && mod[n - 1] == ']') {
				mod[n - 1] = '\0';
				k->v[k->nr].module = mod + 1;
			}
		}
		if (addr)
			nr_nonzero++;
		k->nr++;
	next:
		line = eol + 1;
	}
	if (!nr_lines) {
		*why = "no kallsyms lines";
		pda_ksyms_free(s, k);
		return PD_ERR_FORMAT;
	}
	if (!nr_nonzero) {
		*why = "every address is 0 (kptr_restrict)";
		pda_ksyms_free(s, k);
		return PD_ERR_FORMAT;
	}
	if (compact(s, k) < 0) {
		pda_ksyms_free(s, k);
		return PD_ERR_NOMEM;
	}
	/* kept for the run: what doubling left unused goes back */
	if (PDC_RESIZE(&s->alloc, k->v, k->alloc, k->nr, KSYMS_MAX) < 0) {
		pda_ksyms_free(s, k);
		return PD_ERR_NOMEM;
	}
	/* /proc/kallsyms comes sorted, bar modules: sort only when not */
	for (size_t i = 1; i < k->nr; i++) {
		if (cmp_ksym(&k->v[i - 1], &k->v[i]) > 0) {
			qsort(k->v, k->nr, sizeof(*k->v), cmp_ksym);
			break;
		}
	}
	fixup_ends(k);
	*out = k;
	return 0;
}

const struct pda_ksym *pda_ksyms_find(const struct pda_ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nr;

	/* the last symbol starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= k->v[lo - 1].end)
		return NULL;
	return &k->v[lo - 1];
}

uint64_t pda_ksyms_addr(const struct pda_ksyms *k, const char *name)
{
	for (size_t i = 0; i < k->nr; i++)
		if (!k->v[i].module && strcmp(k->v[i].name, name) == 0)
			return k->v[i].start;
	return 0;
}

void pda_ksyms_free(struct pda_session *s, struct pda_ksyms *k)
{
	if (!k)
		return;
	pda_free(s, k->v);
	pda_free(s, k->buf);
	pda_free(s, k);
}

/* ---- the host's kernel --------------------------------------------- */

/* Whether the capture names this host (and, with release, the kernel
 * release it runs). */
static bool same_host(struct pda_session *s, bool release)
{
	const struct pd_env *env;
	struct utsname u;

	if (pd_file_env(s->f, &env) < 0 || !env->hostname || uname(&u) < 0)
		return false;
	return strcmp(env->hostname, u.nodename) == 0 &&
	       (!release ||
		(env->os_release && strcmp(env->os_release, u.release) == 0));
}

bool pda_same_host(struct pda_session *s)
{
	return same_host(s, false);
}

bool pda_same_host_kernel(struct pda_session *s)
{
	return same_host(s, true);
}

bool pda_host_kernel_allowed(struct pda_session *s, const char **why)
{
	*why = NULL;
	if (!s->opts.use_host_kernel) {
		*why = "no kallsyms for the recording kernel";
		return false;
	}
	if (!s->opts.host_kernel_any_host && !same_host(s, false)) {
		*why = "recorded on another host: this host's kernel symbols "
		       "are not used for it";
		return false;
	}
	return true;
}

int pda_host_kernel_build_id(struct pda_session *s, const char *notes_path,
			     unsigned char *id, unsigned *size)
{
	char *buf;
	size_t len, off = 0;
	int rc;

	*size = 0;
	rc = pda_read_file(s, notes_path, 1 << 20, &buf, &len);
	if (rc < 0)
		return rc;
	rc = PD_ERR_NOTFOUND;
	/* ELF notes: namesz, descsz, type, then name and desc 4-aligned */
	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off, next;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		desc_off = name_off + (((size_t)namesz + 3) & ~(size_t)3);
		next = desc_off + (((size_t)descsz + 3) & ~(size_t)3);
		if (namesz > len || descsz > len || next > len)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 &&
		    memcmp(buf + name_off, "GNU", 4) == 0) {
			*size = descsz > PDA_BUILD_ID_MAX ? PDA_BUILD_ID_MAX
							  : descsz;
			memcpy(id, buf + desc_off, *size);
			rc = 0;
			break;
		}
		off = next;
	}
	pda_free(s, buf);
	return rc;
}

/* ---- loading ------------------------------------------------------- */

static int64_t ref_delta(struct pda_session *s, uint64_t file_addr)
{
	const struct pda_machine *m = &s->machine;

	if (!m->ref_addr || !file_addr)
		return 0;
	return (int64_t)(file_addr - m->ref_addr);
}

/*
 * Whether kallsyms k, moved by d->kdelta, holds the capture's kernel
 * (issue 13 item 8): the kernel map the capture recorded must start
 * inside its kernel text, else every kernel frame would be [unknown] and
 * nothing would say why.  Sets d->kcheck; 0 or NOMEM.
 */
static int check_kallsyms(struct pda_session *s, struct pda_dso_ent *d,
			  const struct pda_ksyms *k, const char *path)
{
	const struct pda_machine *m = &s->machine;
	uint64_t lo = 0, start = m->kimage.start + (uint64_t)d->kdelta;
	char why[200];
	size_t i;

	if (m->kimage.kind != PDA_MAP_KERNEL || !m->kimage.start)
		return 0;
	for (i = 0; i < k->nr && k->v[i].module; i++)
		;
	if (i < k->nr)
		lo = k->v[i].start;
	if (i < k->nr && start >= lo && start < k->kernel_end)
		return 0;
	if (m->ref_name && m->ref_addr && !pda_ksyms_addr(k, m->ref_name))
		snprintf(why, sizeof(why),
			 "it has no %s, and its kernel text [%#" PRIx64
			 ", %#" PRIx64 ") misses the capture's kernel map at "
			 "%#" PRIx64,
			 m->ref_name, lo, k->kernel_end, m->kimage.start);
	else
		snprintf(why, sizeof(why),
			 "its kernel text [%#" PRIx64 ", %#" PRIx64
			 ") misses the capture's kernel map at %#" PRIx64,
			 lo, k->kernel_end, start);
	d->kcheck = pda_intern(s, why, strlen(why));
	if (!d->kcheck)
		return PD_ERR_NOMEM;
	pda_logf(s, PD_LOG_WARN, "'%s' is not the capture's kernel's: %s",
		 path, why);
	return 0;
}

/* ---- parsed ahead (pda_machine_int.h) ------------------------------- */

/*
 * A kallsyms file read and parsed: what pda_kernel_load() spent most of
 * its time on (a host's /proc/kallsyms is 100k+ lines), on the thread
 * that replays and resolves, at its first kernel frame.
 *
 * Threads: queued and taken on the session's thread; one worker at a
 * time loads (BUSY), outside mu; what it made (rc, parsed, k, why) is the
 * session thread's once it saw DONE under mu.
 */
enum kahead_state { KA_QUEUED, KA_BUSY, KA_DONE, KA_TAKEN };

/* A kallsyms file read and parsed. */
struct ksyms_got {
	int rc;	     /* pda_read_file's, or pda_ksyms_parse's when parsed */
	bool parsed; /* read: rc is the parse's */
	struct pda_ksyms *k;
	const char *why; /* the parse's, when it failed */
};

struct pda_kahead {
	pthread_mutex_t mu;
	pthread_cond_t done;
	enum kahead_state state;
	char path[PDA_PATH_MAX];
	struct ksyms_got got; /* DONE */
	pthread_t thread;     /* pda_kernel_early_start()'s, when started */
	bool started;
};

static void kallsyms_load(struct pda_session *s, const char *path,
			  struct ksyms_got *g)
{
	char *buf;
	size_t len;

	g->k = NULL;
	g->why = NULL;
	g->parsed = false;
	g->rc = pda_read_file(s, path, KALLSYMS_MAX, &buf, &len);
	if (g->rc < 0)
		return;
	g->parsed = true;
	g->rc = pda_ksyms_parse(s, buf, len, &g->k, &g->why);
}

/* The kallsyms file pda_kernel_load() parses first, when it is one
 * (false: a vmlinux, or none); its checks, without their notes. */
static bool kallsyms_first(struct pda_session *s, const struct pda_dso_ent *d,
			   char *p)
{
	const struct pda_opts *o = &s->opts;
	char id[2 * PDA_BUILD_ID_MAX + 1];
	unsigned char host[PDA_BUILD_ID_MAX];
	unsigned host_size;
	const char *why;

	if (o->kallsyms)
		return pda_pathf(p, "%s", o->kallsyms);
	if (o->vmlinux)
		return false;
	if (d->d.build_id_size && s->dsos.buildid_dir) {
		pda_hex(id, d->d.build_id, d->d.build_id_size);
		if ((pda_pathf(p, "%s/.build-id/%.2s/%s/kallsyms",
			       s->dsos.buildid_dir, id, id + 2) &&
		     access(p, R_OK) == 0) ||
		    (pda_pathf(p, "%s/[kernel.kallsyms]/%s/kallsyms",
			       s->dsos.buildid_dir, id) &&
		     access(p, R_OK) == 0))
			return true;
	}
	if (!o->use_host_kernel || !pda_host_kernel_allowed(s, &why))
		return false;
	if (!d->d.build_id_size) {
		if (!pda_same_host_kernel(s))
			return false;
	} else if (pda_host_kernel_build_id(s, "/sys/kernel/notes", host,
					    &host_size) < 0 ||
		   host_size != d->d.build_id_size ||
		   memcmp(host, d->d.build_id, host_size) != 0) {
		return false;
	}
	return pda_pathf(p, "%s", "/proc/kallsyms");
}

/* d's kallsyms queued as s->machine.kahead, when d would parse one
 * first.  @return it, or NULL (none queued). */
static struct pda_kahead *kahead_queue(struct pda_session *s,
				       const struct pda_dso_ent *d)
{
	struct pda_kahead *a;

	if (!d || d->d.state != PDA_DSO_UNTRIED || s->machine.kahead)
		return NULL;
	/* only for speed: out of memory, pda_kernel_load() does it */
	a = pda_zalloc(s, sizeof(*a));
	if (!a)
		return NULL;
	if (!kallsyms_first(s, d, a->path) ||
	    pthread_mutex_init(&a->mu, NULL) != 0) {
		pda_free(s, a);
		return NULL;
	}
	if (pthread_cond_init(&a->done, NULL) != 0) {
		pthread_mutex_destroy(&a->mu);
		pda_free(s, a);
		return NULL;
	}
	a->state = KA_QUEUED;
	s->machine.kahead = a;
	return a;
}

void pda_kernel_ahead_open(struct pda_session *s)
{
	kahead_queue(s, s->machine.kernel);
}

static void *early_main(void *arg)
{
	pda_kernel_ahead_run(arg);
	return NULL;
}

void pda_kernel_early_start(struct pda_session *s)
{
	struct pda_dso_ent *d;
	struct pda_kahead *a;

	if (s->machine.kernel || s->machine.kahead || pda_session_hooked(s))
		return;
	/* the kernel's DSO as kernel_dso() will make it from the header's
	 * build-id.  Without one, none is guessed: the kernel's map may
	 * bring its own (perf record --buildid-mmap), which a guess
	 * without would miss (its path /proc/kallsyms, the DSO's the
	 * build-id cache's), parsing for nothing; a map's own that
	 * differs from the header's gives another path too, and the parse
	 * is dropped */
	d = pda_zalloc(s, sizeof(*d));
	if (!d)
		return;
	d->kind = PDA_DSO_KERNEL;
	d->d.kernel = true;
	d->d.build_id_size = pda_dso_noted_build_id(
		s, "[kernel.kallsyms]", sizeof("[kernel.kallsyms]") - 1, true,
		d->d.build_id);
	a = d->d.build_id_size ? kahead_queue(s, d) : NULL;
	pda_free(s, d);
	if (!a)
		return;
	/* no thread: pda_kernel_load() parses it in its turn */
	a->started = pthread_create(&a->thread, NULL, early_main, s) == 0;
}

bool pda_kernel_ahead_run(struct pda_session *s)
{
	struct pda_kahead *a = s->machine.kahead;
	bool mine;

	if (!a)
		return false;
	pthread_mutex_lock(&a->mu);
	mine = a->state == KA_QUEUED;
	if (mine)
		a->state = KA_BUSY;
	pthread_mutex_unlock(&a->mu);
	if (!mine)
		return false;
	kallsyms_load(s, a->path, &a->got);
	pthread_mutex_lock(&a->mu);
	a->state = KA_DONE;
	pthread_cond_broadcast(&a->done);
	pthread_mutex_unlock(&a->mu);
	return true;
}

/* path read and parsed into *out: by a worker ahead when it was its
 * path, else here. */
static void kallsyms_take(struct pda_session *s, const char *path,
			  struct ksyms_got *out)
{
	struct pda_kahead *a = s->machine.kahead;
	bool ahead = false;

	if (a && strcmp(a->path, path) == 0) {
		pthread_mutex_lock(&a->mu);
		while (a->state == KA_BUSY)
			pthread_cond_wait(&a->done, &a->mu);
		ahead = a->state == KA_DONE;
		/* queued still: no worker came to it, nor will */
		a->state = KA_TAKEN;
		pthread_mutex_unlock(&a->mu);
	}
	if (!ahead) {
		kallsyms_load(s, path, out);
		return;
	}
	*out = a->got;
	a->got.k = NULL;
}

void pda_kernel_ahead_free(struct pda_session *s)
{
	struct pda_kahead *a = s->machine.kahead;

	if (!a)
		return;
	if (a->started)
		pthread_join(a->thread, NULL);
	if (a->got.k)
		pda_ksyms_free(s, a->got.k);
	pthread_cond_destroy(&a->done);
	pthread_mutex_destroy(&a->mu);
	pda_free(s, a);
	s->machine.kahead = NULL;
}

/* Parse a kallsyms file for d; 0 (found or not, tried noted) or NOMEM. */
static int try_kallsyms(struct pda_session *s, struct pda_dso_ent *d,
			const char *path)
{
	struct ksyms_got got;
	struct pda_ksyms *k;
	int rc;

	kallsyms_take(s, path, &got);
	rc = got.rc;
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (!got.parsed && rc == PD_ERR_UNSUPPORTED)
		return pda_dso_tried(s, d, path, "too big");
	if (!got.parsed && rc < 0)
		return pda_dso_tried(s, d, path, NULL);
	if (rc < 0)
		return pda_dso_tried(s, d, path, got.why);
	k = got.k;
	d->ksyms = k;
	if (s->machine.ref_name)
		d->kdelta =
			ref_delta(s, pda_ksyms_addr(k, s->machine.ref_name));
	d->d.state = PDA_DSO_FOUND;
	return check_kallsyms(s, d, k, path);
}

/* The address of symbol name in an ELF file's .symtab, or 0. */
static uint64_t elf_symbol_addr(const char *path, const char *name)
{
	Elf_Scn *scn = NULL;
	uint64_t addr = 0;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && !addr && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize;
		     i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && strcmp(n, name) == 0) {
				addr = sym.st_value;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return addr;
}

static int try_vmlinux(struct pda_session *s, struct pda_dso_ent *d,
		       const char *path)
{
	struct pda_elf *e;
	int rc = pda_dso_try_elf(s, d, path, &e);

	if (rc == PD_ERR_NOTFOUND)
		return 0;
	if (rc == 0 && (rc = pda_dso_find_alt(s, d, e, &d->alts[0])) < 0)
		pda_elf_close(s, e);
	if (rc < 0)
		return rc;
	pda_elf_set_alt(e, d->alts[0]);
	d->d.elf = e;
	if (s->machine.ref_name)
		d->kdelta = ref_delta(
			s, elf_symbol_addr(path, s->machine.ref_name));
	d->d.state = PDA_DSO_FOUND;
	return 0;
}

int pda_kernel_load(struct pda_session *s, struct pda_dso_ent *d)
{
	const struct pda_opts *o = &s->opts;
	char id[2 * PDA_BUILD_ID_MAX + 1], p[PDA_PATH_MAX];
	unsigned char host[PDA_BUILD_ID_MAX];
	unsigned host_size;
	int rc;

	if (o->kallsyms && (rc = try_kallsyms(s, d, o->kallsyms)) < 0)
		return rc;
	if (d->d.state == PDA_DSO_UNTRIED && o->vmlinux &&
	    (rc = try_vmlinux(s, d, o->vmlinux)) < 0)
		return rc;
	if (d->d.state == PDA_DSO_UNTRIED && d->d.build_id_size &&
	    s->dsos.buildid_dir) {
		pda_hex(id, d->d.build_id, d->d.build_id_size);
		if (pda_pathf(p, "%s/.build-id/%.2s/%s/kallsyms",
			      s->dsos.buildid_dir, id, id + 2) &&
		    (rc = try_kallsyms(s, d, p)) < 0)
			return rc;
		if (d->d.state == PDA_DSO_UNTRIED &&
		    pda_pathf(p, "%s/[kernel.kallsyms]/%s/kallsyms",
			      s->dsos.buildid_dir, id) &&
		    (rc = try_kallsyms(s, d, p)) < 0)
			return rc;
	}
	if (d->d.state != PDA_DSO_UNTRIED)
		return 0;
	d->d.state = PDA_DSO_MISSING;
	if (!o->use_host_kernel) {
		d->d.why = "no kallsyms for the recording kernel";
		return 0;
	}
	if (!d->d.build_id_size) {
		/*
		 * pipe mode records no build-ids; perf then reads
		 * /proc/kallsyms whatever kernel runs.  Only when the capture
		 * names this host and its running kernel release here.
		 */
		if (!pda_same_host_kernel(s)) {
			d->d.why = "the capture has no kernel build-id, and "
				   "its host or kernel release is not this one";
			return 0;
		}
	} else {
		rc = pda_host_kernel_build_id(s, "/sys/kernel/notes", host,
					      &host_size);
		if (rc == PD_ERR_NOMEM)
			return rc;
		if (rc < 0 || host_size != d->d.build_id_size ||
		    memcmp(host, d->d.build_id, host_size) != 0) {
			d->d.why = "recorded on another kernel than this host's";
			return pda_dso_tried(s, d, "/proc/kallsyms",
					     "another kernel's build-id");
		}
	}
	/* said where the user looks: the paths tried */
	if (!pda_host_kernel_allowed(s, &d->d.why))
		return pda_dso_tried(s, d, "/proc/kallsyms",
				     "another host: --host-kernel");
	d->d.state = PDA_DSO_UNTRIED;
	if ((rc = try_kallsyms(s, d, "/proc/kallsyms")) < 0)
		return rc;
	if (d->d.state == PDA_DSO_UNTRIED) {
		d->d.state = PDA_DSO_MISSING;
		d->d.why = "/proc/kallsyms unreadable or its addresses hidden";
	}
	return 0;
}
