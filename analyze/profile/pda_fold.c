/*
 * pda_fold.c - stacks into folded lines ("comm;outer;...;leaf count"), the
 * aggregation behind `pdtool fold` and `pdtool flame`.
 *
 * Every name the output can hold (a symbol as perf's stackcollapse.py
 * writes it, "[unknown]", "dso+0x1f", a comm root) is an atom: a string
 * interned by content in this aggregator's own table, so equal names are
 * the same pointer and a stack is just an array of atom pointers.  The
 * per-sample path turns each pda_frame into an atom through a cache keyed
 * by the frame's interned pointers (the session interns sym, dso and
 * srcfile, so a pointer stands for its string), hashes the atom array and
 * finds or inserts it in the stack table.  Nothing is allocated unless a
 * stack, name or comm is new (or a table grows); rendering the lines and
 * sorting them happen once, in pda_fold_finish().
 *
 * The sort orders stacks as their rendered lines compare bytewise without
 * rendering them: each atom gets two ranks, of its name followed by ';'
 * and by the end of the line, among all such tokens.  As no name holds
 * ';' or NUL, the tokens are prefix-free, so comparing two stacks' token
 * ranks root first compares their lines (except that no frames and one
 * empty name both render as ""); a multikey quicksort then looks at each
 * stack's frames about once.  A name holding ';' (a comm can)
 * breaks this: then the lines are rendered and sorted as strings.
 */
#include "pda_base_int.h"
#include "pda_fold.h"
#include "pda_profile.h"
#include "pdc_arena.h"
#include "pdc_text.h"

#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES (1u << 20) /* cap on one stack's frames (O5) */

/*
 * ---- memory: common/'s allocation and arena (pdc_arena.c) on the
 * caller's hooks
 */

/* ---- the aggregator ------------------------------------------------ */

enum { MATCH_SYM, MATCH_DSO, MATCH_COMM, NR_MATCH };

/*
 * What pda_fold_profile() makes a location of: the first frame that got
 * an atom, its strings interned in the details table (they must outlive
 * the session).
 */
struct detail {
	const char *func, *dso, *file; /* fd->details' entries; NULL: unknown */
	uint64_t addr;
	unsigned line;
	unsigned flags; /* pda_loc_flags */
};

/* pub comes first: a stack holds &atom->pub, and atom_of() goes back;
 * an atom is the header of its entry in fd->atoms, str the string */
struct atom {
	struct pda_fold_frame pub;   /* pub.name points at str */
	uint32_t rank[2];	     /* pda_fold_finish(): of name ';' [0] and
				      * of name at the line's end [1], from 1 */
	signed char match[NR_MATCH]; /* -1 not tried, 0 no, 1 yes */
	uint32_t loc[2];	     /* pda_fold_profile()'s location as a
				      * frame [0] and as a root [1]; 0 none */
	struct detail *detail;	     /* NULL: none */
	char str[];
};

static inline const struct atom *atom_of(const struct pda_fold_frame *f)
{
	return (const struct atom *)f;
}

enum dkind {
	D_SYM = 1, /* p1 sym; n bit 0: kernel suffix */
	D_SRCLINE, /* p1 sym, p2 srcfile; n line << 1 | kernel */
	D_ADDR,	   /* p1 dso; n dso_addr; p2 (void *)1: kernel */
	D_IP,	   /* n ip; p2 (void *)1: kernel */
	D_ROOT,	   /* p1 comm atom; n pid << 32 | tid */
	D_DSO,	   /* p1 dso: the dso as an atom, for dso_re */
};

/* A cache entry: a frame's (or comm's) identity to its atom. */
struct dkey {
	uint32_t kind;
	const void *p1, *p2;
	uint64_t n;
	struct atom *atom;
};

/* A distinct stack: its frames root first, the root frame (comm) too. */
struct stack {
	uint64_t weight;
	uint64_t samples, period;
	uint32_t nr;
	const struct pda_fold_frame *frames[]; /* of atoms: &atom->pub */
};

#define FRONT_SIZE 4096 /* direct-mapped cache in front of dkeys */
#define COMMS_SIZE 64	/* direct-mapped cache of comm atoms, by tid */
#define COMM_CACHED 32	/* comms shorter than this are cached */

/* A thread's comm as given and the atom it became, for root_atom(): a
 * sample's comm is named once per run of samples, not once each. */
struct comm_ent {
	uint32_t tid;
	bool set, keep;
	char raw[COMM_CACHED];
	struct atom *atom;
};

struct pda_fold {
	struct pd_alloc mem;
	struct dkey front[FRONT_SIZE];
	struct comm_ent comms[COMMS_SIZE];
	unsigned flags;
	unsigned max_stack;
	bool finished;
	bool has_re[NR_MATCH];
	regex_t re[NR_MATCH];
	struct pdc_arena arena;
	struct pdc_intern atoms;	   /* struct atom, by content */
	struct pdc_intern details;	   /* detail strings, no header */
	struct pdc_hash dkeys;		   /* struct dkey */
	struct pdc_hash stacks;		   /* struct stack */
	struct atom *unknown[2];	   /* "[unknown]", "[unknown]_[k]" */
	bool has_semi;			   /* an atom's name holds ';' */
	const struct pda_fold_frame **buf; /* the stack being added,
					    * root first */
	size_t buf_alloc;
	struct pda_fold_line *lines;
	size_t nr_lines;
	struct pda_fold_totals totals;
};

/* The atom for len bytes of s (which need not be NUL-terminated). */
static struct atom *intern_raw(struct pda_fold *fd, const char *s, size_t len,
			       unsigned flags)
{
	struct atom *a;
	void *e;
	const int rc = pdc_intern_add(&fd->atoms, &fd->mem, s, len, &e);

	if (rc < 0)
		return NULL;
	a = e;
	if (rc > 0) {
		/* new: the rest of the header is zero */
		a->pub.name = a->str;
		a->pub.len = len;
		a->pub.flags = flags;
		memset(a->match, -1, sizeof(a->match));
		if (memchr(s, ';', len))
			fd->has_semi = true;
	}
	return a;
}

/*
 * The atom of a name of the output.  A name shows no byte that is not
 * printable text (common/pdc_text.h): a newline in a symbol or a comm
 * would start a folded line of its own, with a count of its choosing, and
 * ESC or BEL would reach the terminal fold writes to.  Such bytes become
 * \xNN here, once per new name (derive() and comm_atom() run on cache
 * misses only), so every output made from the atoms (folded text, the
 * profile, the flame graph) sees the same names, sorted and merged as
 * they are written.
 */
static struct atom *intern(struct pda_fold *fd, const char *s, size_t len,
			   unsigned flags)
{
	char small[256];
	struct pdc_strbuf b;
	struct atom *a = NULL;

	if (pdc_text_plain(s, len) == len)
		return intern_raw(fd, s, len, flags);
	pdc_strbuf_init(&b, &fd->mem, small, sizeof(small));
	pdc_strbuf_add_text(&b, s, len);
	if (!b.oom)
		a = intern_raw(fd, pdc_strbuf_str(&b), b.len, flags);
	pdc_strbuf_release(&b);
	return a;
}

static const char *detail_str(struct pda_fold *fd, const char *s, bool *oom)
{
	void *e;

	if (!s)
		return NULL;
	if (pdc_intern_add(&fd->details, &fd->mem, s, strlen(s), &e) < 0)
		*oom = true;
	return e;
}

/*
 * Keep what a location needs of fr, the first frame named a (atoms are
 * by name: frames that fold alike share the first one's details).
 * @return 0 or PD_ERR_NOMEM.
 */
static int add_detail(struct pda_fold *fd, struct atom *a,
		      const struct pda_frame *fr)
{
	struct detail *d;
	bool oom = false;

	if (a->detail)
		return 0;
	d = pdc_arena_alloc(&fd->arena, &fd->mem, sizeof(*d));
	if (!d)
		return PD_ERR_NOMEM;
	d->func = detail_str(fd, fr->sym, &oom);
	d->dso = detail_str(fd, fr->dso, &oom);
	d->file = detail_str(fd, fr->srcfile, &oom);
	if (oom)
		return PD_ERR_NOMEM;
	d->line = fr->line;
	d->addr = fr->dso ? fr->dso_addr : fr->ip;
	d->flags = (fr->dso ? PDA_LOC_DSO_OFFSET : 0) |
		   (fr->flags & PDA_FRAME_KERNEL ? PDA_LOC_KERNEL
						 : PDA_LOC_USER) |
		   (fr->flags & PDA_FRAME_JIT ? PDA_LOC_JIT : 0) |
		   (fr->flags & PDA_FRAME_INLINED ? PDA_LOC_INLINED : 0) |
		   (!fr->sym || (fr->flags & (PDA_FRAME_NO_SYMBOL |
					      PDA_FRAME_NO_MAP))
			    ? PDA_LOC_UNKNOWN
			    : 0);
	a->detail = d;
	return 0;
}

/* s with each of from replaced by to, as perf's script replaces ';' in
 * symbols and ' ' in comms. */
static void sbuf_add_replaced(struct pdc_strbuf *b, const char *s, char from,
			      char to)
{
	size_t start = b->len;

	pdc_strbuf_add(b, s, strlen(s));
	if (b->oom)
		return;
	for (size_t i = start; i < b->len; i++)
		if (b->p[i] == from)
			b->p[i] = to;
}

static struct atom *sbuf_intern(struct pda_fold *fd, struct pdc_strbuf *b,
				unsigned flags)
{
	struct atom *a = NULL;

	if (!b->oom)
		a = intern(fd, pdc_strbuf_str(b), b->len, flags);
	pdc_strbuf_release(b);
	return a;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static bool dkey_eq(const void *item, const void *key)
{
	const struct dkey *a = item, *b = key;

	return a->kind == b->kind && a->p1 == b->p1 && a->p2 == b->p2 &&
	       a->n == b->n;
}

static uint64_t dkey_hash(const struct dkey *k)
{
	return pdc_hash_u64(k->kind * 0x9e3779b97f4a7c15ull ^ (uintptr_t)k->p1) ^
	       pdc_hash_u64((uintptr_t)k->p2 + k->n * 0xc2b2ae3d27d4eb4full);
}

/* Render the name of a cache miss. */
static struct atom *derive(struct pda_fold *fd, const struct dkey *k,
			   const struct pda_frame *fr)
{
	char small[256];
	struct atom *a;
	struct pdc_strbuf b;
	bool kernel = false;

	pdc_strbuf_init(&b, &fd->mem, small, sizeof(small));
	switch ((enum dkind)k->kind) {
	case D_SYM:
		sbuf_add_replaced(&b, k->p1, ';', ':');
		kernel = k->n & 1;
		break;
	case D_SRCLINE:
		sbuf_add_replaced(&b, k->p1, ';', ':');
		pdc_strbuf_add(&b, ":", 1);
		sbuf_add_replaced(&b, base_name(k->p2), ';', ':');
		pdc_strbuf_addf(&b, ":%u", (unsigned)(k->n >> 1));
		kernel = k->n & 1;
		break;
	case D_ADDR:
		sbuf_add_replaced(&b, base_name(k->p1), ';', ':');
		pdc_strbuf_addf(&b, "+0x%llx", (unsigned long long)k->n);
		kernel = k->p2 != NULL;
		break;
	case D_IP:
		pdc_strbuf_addf(&b, "0x%llx", (unsigned long long)k->n);
		kernel = k->p2 != NULL;
		break;
	case D_ROOT: {
		const struct atom *comm = k->p1;
		const uint32_t pid = (uint32_t)(k->n >> 32);
		const uint32_t tid = (uint32_t)k->n;
		const char *sep = "-";

		pdc_strbuf_add(&b, comm->str, comm->pub.len);
		if (fd->flags & PDA_FOLD_PID) {
			pdc_strbuf_addf(&b, "-%u", pid);
			sep = "/";
		}
		if (fd->flags & PDA_FOLD_TID)
			pdc_strbuf_addf(&b, "%s%u", sep, tid);
		return sbuf_intern(fd, &b, 0);
	}
	case D_DSO:
		pdc_strbuf_add(&b, k->p1, strlen(k->p1));
		return sbuf_intern(fd, &b, 0);
	}
	if (kernel)
		pdc_strbuf_add(&b, "_[k]", 4);
	a = sbuf_intern(fd, &b, fr ? fr->flags : 0);
	if (a && fr && add_detail(fd, a, fr) < 0)
		return NULL;
	return a;
}

static struct atom *lookup(struct pda_fold *fd, const struct dkey *k,
			   const struct pda_frame *fr)
{
	/* most frames repeat the previous samples': a direct-mapped entry
	 * answers them without hashing the key fully */
	struct dkey *front = &fd->front[((uintptr_t)k->p1 >> 3 ^ k->n ^
					 (uintptr_t)k->p2 >> 3 ^ k->kind) &
					(FRONT_SIZE - 1)];
	uint64_t h;
	struct pdc_hash_slot *slot;
	struct dkey *e;
	struct atom *a;

	if (front->atom && dkey_eq(front, k))
		return front->atom;
	h = dkey_hash(k);

	if (pdc_hash_reserve(&fd->mem, &fd->dkeys) < 0)
		return NULL;
	slot = pdc_hash_probe(&fd->dkeys, h, dkey_eq, k);
	if (slot->item) {
		*front = *(struct dkey *)slot->item;
		return front->atom;
	}
	a = derive(fd, k, fr);
	if (!a)
		return NULL;
	e = pdc_arena_alloc(&fd->arena, &fd->mem, sizeof(*e));
	if (!e)
		return NULL;
	*e = *k;
	e->atom = a;
	/* derive() did not touch dkeys, so slot is still where k goes */
	pdc_hash_fill(&fd->dkeys, slot, h, e);
	*front = *e;
	return a;
}

static bool re_match(struct pda_fold *fd, int which, struct atom *a)
{
	if (!fd->has_re[which])
		return true;
	if (a->match[which] < 0)
		a->match[which] =
			regexec(&fd->re[which], a->str, 0, NULL, 0) == 0;
	return a->match[which];
}

int pda_fold_new(const struct pda_fold_opts *opts, struct pda_fold **out)
{
	struct pda_fold *fd;
	const char *res[NR_MATCH];
	struct pd_alloc m = {NULL, NULL, NULL, NULL};
	struct pda_fold_opts o;

	*out = NULL;
	if (!opts || pdc_opts_copy(&o, sizeof(o), opts) < 0)
		return PD_ERR_API;
	if (o.alloc)
		m = *o.alloc;
	fd = pdc_zalloc(&m, sizeof(*fd));
	if (!fd)
		return PD_ERR_NOMEM;
	fd->mem = m;
	pdc_intern_init(&fd->atoms, offsetof(struct atom, str), 0, 0);
	pdc_intern_init(&fd->details, 0, 0, 0);
	fd->flags = o.flags;
	fd->max_stack = o.max_stack ? o.max_stack : PDA_FOLD_MAX_STACK;
	res[MATCH_SYM] = o.sym_re;
	res[MATCH_DSO] = o.dso_re;
	res[MATCH_COMM] = o.comm_re;
	for (int i = 0; i < NR_MATCH; i++) {
		int rc;

		if (!res[i])
			continue;
		rc = regcomp(&fd->re[i], res[i], REG_EXTENDED | REG_NOSUB);
		if (rc != 0) {
			if (o.errbuf && o.errbuf_size) {
				char why[128];

				regerror(rc, &fd->re[i], why, sizeof(why));
				snprintf(o.errbuf, o.errbuf_size,
					 "bad regular expression '%s': %s",
					 res[i], why);
			}
			pda_fold_free(fd);
			return PD_ERR_API;
		}
		fd->has_re[i] = true;
	}
	fd->unknown[0] = intern(fd, "[unknown]", 9, PDA_FRAME_NO_SYMBOL);
	fd->unknown[1] = intern(fd, "[unknown]_[k]", 13,
				PDA_FRAME_NO_SYMBOL | PDA_FRAME_KERNEL);
	if (!fd->unknown[0] || !fd->unknown[1]) {
		pda_fold_free(fd);
		return PD_ERR_NOMEM;
	}
	*out = fd;
	return 0;
}

void pda_fold_free(struct pda_fold *fd)
{
	struct pd_alloc m;

	if (!fd)
		return;
	m = fd->mem;
	for (int i = 0; i < NR_MATCH; i++)
		if (fd->has_re[i])
			regfree(&fd->re[i]);
	pdc_intern_release(&fd->atoms, &m);
	pdc_intern_release(&fd->details, &m);
	pdc_hash_release(&m, &fd->dkeys);
	pdc_hash_release(&m, &fd->stacks);
	pdc_arena_release(&fd->arena, &m);
	pdc_free(&m, fd->buf);
	pdc_free(&m, fd->lines);
	pdc_free(&m, fd);
}

static int grow_buf(struct pda_fold *fd, size_t want)
{
	return PDC_GROW(&fd->mem, fd->buf, fd->buf_alloc, want,
			    MAX_FRAMES);
}

struct stack_key {
	const struct pda_fold_frame *const *frames;
	size_t nr;
};

static bool stack_eq(const void *item, const void *key)
{
	const struct stack *s = item;
	const struct stack_key *k = key;

	/* a stack of no frames (--no-comm, no callchain) has no array */
	return s->nr == k->nr &&
	       (k->nr == 0 ||
		memcmp(s->frames, k->frames, k->nr * sizeof(k->frames[0])) == 0);
}

/*
 * Count weight for the stack fd->buf[0..nr), root first.  A root is the
 * first frame like any other: "a" at the root of "b" and "a;b" without a
 * root render alike, and are one stack.
 */
static int count_stack(struct pda_fold *fd, size_t nr, uint64_t weight,
		       uint64_t period, bool unresolved, struct stack **out)
{
	const struct stack_key key = {fd->buf, nr};
	uint64_t h = pdc_hash_u64(nr);
	struct pdc_hash_slot *slot;
	struct stack *st;

	/* one multiply per frame, one mix at the end: atoms are arena
	 * pointers, distinct in their low bits */
	for (size_t i = 0; i < nr; i++)
		h = (h ^ (uintptr_t)fd->buf[i]) * 0x100000001b3ull;
	h = pdc_hash_u64(h);
	if (pdc_hash_reserve(&fd->mem, &fd->stacks) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&fd->stacks, h, stack_eq, &key);
	st = slot->item;
	if (!st) {
		st = pdc_arena_alloc(&fd->arena, &fd->mem,
				     sizeof(*st) + nr * sizeof(st->frames[0]));
		if (!st)
			return PD_ERR_NOMEM;
		st->weight = st->samples = st->period = 0;
		st->nr = (uint32_t)nr;
		if (nr)
			memcpy(st->frames, fd->buf, nr * sizeof(st->frames[0]));
		pdc_hash_fill(&fd->stacks, slot, h, st);
		fd->totals.nr_stacks = fd->stacks.nr;
	}
	st->weight += weight;
	st->samples++;
	st->period += period;
	fd->totals.nr_samples++;
	fd->totals.weight += weight;
	if (unresolved)
		fd->totals.weight_unresolved += weight;
	if (out)
		*out = st;
	return 1;
}

/*
 * A cookie of pda_fold_add_keyed(): a stack's address (arena entries
 * are PDC_ARENA_ALIGN-aligned, so its low bits are free) or none, and
 * what else the sample counted.
 */
enum {
	COOKIE_FILTERED = 1,	/* left out by a filter: no stack */
	COOKIE_UNRESOLVED = 2,
	COOKIE_TRUNCATED = 4,	/* cut at max_stack */
	COOKIE_FLAGS = 7,
};
_Static_assert(PDC_ARENA_ALIGN > COOKIE_FLAGS,
	       "a stack's address leaves the cookie's flags free");

/* The root atom for a comm and a sample's pid and tid. */
/* comm's atom, the thread named ":TID" when its comm is unknown, as perf
 * names a thread it saw no COMM for; *keep: whether --comm keeps it. */
static struct atom *comm_atom(struct pda_fold *fd, const char *comm,
			      uint32_t tid, bool *keep)
{
	struct comm_ent *e = &fd->comms[tid & (COMMS_SIZE - 1)];
	const size_t len = comm ? strlen(comm) : 0;
	char small[256];
	struct pdc_strbuf b;
	struct atom *c;

	if (e->set && e->tid == tid && len < COMM_CACHED &&
	    memcmp(e->raw, comm ? comm : "", len + 1) == 0) {
		*keep = e->keep;
		return e->atom;
	}
	pdc_strbuf_init(&b, &fd->mem, small, sizeof(small));
	if (len)
		sbuf_add_replaced(&b, comm, ' ', '_');
	else
		pdc_strbuf_addf(&b, ":%d", (int32_t)tid);
	c = sbuf_intern(fd, &b, 0);
	if (!c)
		return NULL;
	*keep = re_match(fd, MATCH_COMM, c);
	if (len < COMM_CACHED) {
		e->set = true;
		e->tid = tid;
		memcpy(e->raw, comm ? comm : "", len + 1);
		e->atom = c;
		e->keep = *keep;
	}
	return c;
}

static struct atom *root_atom(struct pda_fold *fd, const char *comm,
			      uint32_t pid, uint32_t tid, bool *keep)
{
	struct atom *c = comm_atom(fd, comm, tid, keep);
	struct dkey k;

	if (!c)
		return NULL;
	if (fd->flags & PDA_FOLD_NO_COMM)
		return c; /* unused but non-NULL */
	if (!(fd->flags & (PDA_FOLD_PID | PDA_FOLD_TID)))
		return c;
	k = (struct dkey){.kind = D_ROOT, .p1 = c};
	k.n = (uint64_t)(fd->flags & PDA_FOLD_PID ? pid : 0) << 32 |
	      (fd->flags & PDA_FOLD_TID ? tid : 0);
	return lookup(fd, &k, NULL);
}

static struct atom *frame_atom(struct pda_fold *fd, const struct pda_frame *fr)
{
	const bool kernel =
		(fd->flags & PDA_FOLD_KERNEL) && (fr->flags & PDA_FRAME_KERNEL);
	struct dkey k = {0};

	if (fr->sym) {
		if ((fd->flags & PDA_FOLD_SRCLINE) && fr->srcfile) {
			k.kind = D_SRCLINE;
			k.p2 = fr->srcfile;
			k.n = (uint64_t)fr->line << 1 | kernel;
		} else {
			k.kind = D_SYM;
			k.n = kernel;
		}
		k.p1 = fr->sym;
	} else if (fd->flags & PDA_FOLD_ADDRS) {
		if (fr->dso) {
			k.kind = D_ADDR;
			k.p1 = fr->dso;
			k.n = fr->dso_addr;
		} else {
			k.kind = D_IP;
			k.n = fr->ip;
		}
		k.p2 = kernel ? (const void *)1 : NULL;
	} else {
		return fd->unknown[kernel];
	}
	return lookup(fd, &k, fr);
}

static bool dso_matches(struct pda_fold *fd, const char *dso)
{
	struct dkey k = {.kind = D_DSO, .p1 = dso};
	struct atom *a;

	if (!dso)
		return false;
	a = lookup(fd, &k, NULL);
	return a && re_match(fd, MATCH_DSO, a);
}

int pda_fold_add(struct pda_fold *fd, const struct pd_sample *sample,
		 const struct pda_stack *st, const char *comm)
{
	return pda_fold_add_keyed(fd, sample, st, comm, NULL);
}

int pda_fold_add_again(struct pda_fold *fd, const struct pd_sample *sample,
		       uint64_t cookie)
{
	struct stack *st =
		(struct stack *)(uintptr_t)(cookie & ~(uint64_t)COOKIE_FLAGS);
	const uint64_t weight =
		fd->flags & PDA_FOLD_PERIOD ? sample->period : 1;

	if (fd->finished)
		return PD_ERR_API;
	if (cookie & COOKIE_TRUNCATED)
		fd->totals.nr_truncated++;
	if (cookie & COOKIE_FILTERED) {
		fd->totals.nr_filtered++;
		return 0;
	}
	/* as count_stack() counts a stack it found */
	st->weight += weight;
	st->samples++;
	st->period += sample->period;
	fd->totals.nr_samples++;
	fd->totals.weight += weight;
	if (cookie & COOKIE_UNRESOLVED)
		fd->totals.weight_unresolved += weight;
	return 1;
}

int pda_fold_add_keyed(struct pda_fold *fd, const struct pd_sample *sample,
		       const struct pda_stack *st, const char *comm,
		       uint64_t *cookie)
{
	struct stack *line;
	uint64_t flags = 0;
	int rc;
	struct atom *root;
	size_t cut = 0, counted = 0, off;
	bool keep = true, unresolved = false;
	bool dso_hit = !fd->has_re[MATCH_DSO];
	bool sym_hit = !fd->has_re[MATCH_SYM];

	if (fd->finished)
		return PD_ERR_API;
	root = root_atom(fd, comm, sample->pid, sample->tid, &keep);
	if (!root)
		return PD_ERR_NOMEM;
	if (!keep) {
		fd->totals.nr_filtered++;
		if (cookie)
			*cookie = COOKIE_FILTERED;
		return 0;
	}
	if (fd->flags & PDA_FOLD_NO_COMM)
		root = NULL;
	if (st) {
		/* perf keeps max_stack callchain entries from the leaf; the
		 * inlined frames an entry expands to come with it */
		for (cut = 0; cut < st->nr; cut++) {
			if (st->frames[cut].flags & PDA_FRAME_INLINED)
				continue;
			if (counted == fd->max_stack)
				break;
			counted++;
		}
		while (cut > 0 && cut < st->nr &&
		       (st->frames[cut - 1].flags & PDA_FRAME_INLINED))
			cut--;
		if (cut < st->nr) {
			fd->totals.nr_truncated++;
			flags |= COOKIE_TRUNCATED;
		}
	}
	off = root != NULL;
	if (grow_buf(fd, cut + off) < 0)
		return PD_ERR_NOMEM;
	if (root)
		fd->buf[0] = &root->pub;
	for (size_t i = 0; i < cut; i++) {
		const struct pda_frame *fr = &st->frames[i];
		struct atom *a = frame_atom(fd, fr);

		if (!a)
			return PD_ERR_NOMEM;
		/* leaf first in, root first in the stack */
		fd->buf[off + cut - 1 - i] = &a->pub;
		if (!fr->sym ||
		    (fr->flags & (PDA_FRAME_NO_SYMBOL | PDA_FRAME_NO_MAP)))
			unresolved = true;
		if (!dso_hit && dso_matches(fd, fr->dso))
			dso_hit = true;
		if (!sym_hit && re_match(fd, MATCH_SYM, a))
			sym_hit = true;
	}
	if (!dso_hit || !sym_hit) {
		fd->totals.nr_filtered++;
		if (cookie)
			*cookie = flags | COOKIE_FILTERED;
		return 0;
	}
	rc = count_stack(fd, off + cut,
			 fd->flags & PDA_FOLD_PERIOD ? sample->period : 1,
			 sample->period, unresolved, &line);
	if (rc > 0 && cookie)
		*cookie = (uintptr_t)line | flags |
			  (unresolved ? COOKIE_UNRESOLVED : 0);
	return rc;
}

int pda_fold_add_names(struct pda_fold *fd, const struct pda_fold_names *n)
{
	struct atom *root = NULL, *comm;
	size_t off;
	bool dso_hit = !fd->has_re[MATCH_DSO];
	bool sym_hit = !fd->has_re[MATCH_SYM];

	if (fd->finished)
		return PD_ERR_API;
	if (n->root) {
		root = intern(fd, n->root, strlen(n->root), 0);
		if (!root)
			return PD_ERR_NOMEM;
	}
	if (fd->has_re[MATCH_COMM]) {
		const char *c = n->comm ? n->comm : n->root ? n->root : "";

		comm = intern(fd, c, strlen(c), 0);
		if (!comm)
			return PD_ERR_NOMEM;
		if (!re_match(fd, MATCH_COMM, comm)) {
			fd->totals.nr_filtered++;
			return 0;
		}
	}
	off = root != NULL;
	if (n->nr > MAX_FRAMES || grow_buf(fd, n->nr + off) < 0)
		return PD_ERR_NOMEM;
	if (root)
		fd->buf[0] = &root->pub;
	for (size_t i = 0; i < n->nr; i++) {
		struct atom *a = intern(fd, n->names[i], strlen(n->names[i]),
					n->flags ? n->flags[i] : 0);

		if (!a)
			return PD_ERR_NOMEM;
		fd->buf[off + n->nr - 1 - i] = &a->pub;
		if (!sym_hit && re_match(fd, MATCH_SYM, a))
			sym_hit = true;
		if (!dso_hit && n->dsos && n->dsos[i]) {
			struct atom *d =
				intern(fd, n->dsos[i], strlen(n->dsos[i]), 0);

			if (!d)
				return PD_ERR_NOMEM;
			dso_hit = re_match(fd, MATCH_DSO, d);
		}
	}
	if (!dso_hit || !sym_hit) {
		fd->totals.nr_filtered++;
		return 0;
	}
	return count_stack(fd, off + n->nr, n->weight,
			   fd->flags & PDA_FOLD_PERIOD ? n->weight : 0,
			   n->unresolved, NULL);
}

static int line_cmp(const void *a, const void *b)
{
	const struct pda_fold_line *x = a, *y = b;
	const size_t n = x->len < y->len ? x->len : y->len;
	const int c = memcmp(x->stack, y->stack, n);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* ---- sorting by token ranks ---------------------------------------- */

struct token {
	const struct atom *atom;
	unsigned end; /* 0: name ';', 1: name at the line's end */
};

/* Bytewise, as the tokens' bytes compare (';' is 0x3b, the end 0). */
static int token_cmp(const void *a, const void *b)
{
	const struct token *x = a, *y = b;
	const size_t lx = x->atom->pub.len, ly = y->atom->pub.len;
	const int c = memcmp(x->atom->str, y->atom->str, lx < ly ? lx : ly);
	unsigned char cx, cy;

	if (c)
		return c;
	cx = lx > ly ? (unsigned char)x->atom->str[ly] : x->end ? 0 : ';';
	cy = ly > lx ? (unsigned char)y->atom->str[lx] : y->end ? 0 : ';';
	if (cx != cy)
		return cx < cy ? -1 : 1;
	return lx == ly ? (int)x->end - (int)y->end : 0;
}

/* Give every atom its two ranks.  @return 0 or PD_ERR_NOMEM. */
static int rank_atoms(struct pda_fold *fd)
{
	const size_t nr = pdc_intern_nr(&fd->atoms) * 2;
	const struct atom *atom;
	struct token *t;
	size_t k = 0, pos = 0;

	if (nr > UINT32_MAX - 1 || nr > SIZE_MAX / sizeof(*t))
		return PD_ERR_NOMEM;
	t = pdc_malloc(&fd->mem, nr * sizeof(*t));
	if (!t)
		return PD_ERR_NOMEM;
	while ((atom = pdc_intern_next(&fd->atoms, &pos))) {
		t[k++] = (struct token){atom, 0};
		t[k++] = (struct token){atom, 1};
	}
	qsort(t, k, sizeof(*t), token_cmp);
	for (size_t i = 0; i < k; i++) {
		/* the table's atoms, const only in the token */
		struct atom *a = (struct atom *)(uintptr_t)t[i].atom;

		a->rank[t[i].end] = (uint32_t)(i + 1);
	}
	pdc_free(&fd->mem, t);
	return 0;
}

/* Frame d's token rank; 0 past the end (lower than any rank). */
static inline uint32_t skey(const struct stack *st, size_t d)
{
	if (d >= st->nr)
		return 0;
	return atom_of(st->frames[d])->rank[d + 1 == st->nr];
}

static int stack_cmp_from(const struct stack *a, const struct stack *b,
			  size_t d)
{
	for (;; d++) {
		const uint32_t x = skey(a, d), y = skey(b, d);

		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			return 0;
	}
}

static int stack_qcmp(const void *a, const void *b)
{
	return stack_cmp_from(*(const struct stack *const *)a,
			      *(const struct stack *const *)b, 0);
}

#define MKQS_SMALL 12 /* insertion sort below this */
#define MKQS_DEPTH 48 /* nested partitions before falling back to qsort */

/*
 * Sort v[0..n), stacks whose first d tokens are equal, by the tokens from
 * d on: Bentley and Sedgewick's multikey quicksort, partitioning on one
 * token at a time so that common prefixes are not compared again.  Bad
 * pivots cannot nest more than MKQS_DEPTH deep: qsort takes over there.
 */
static void mkqs(const struct stack **v, size_t n, size_t d, unsigned depth)
{
	while (n > MKQS_SMALL) {
		uint32_t a, b, c, pivot;
		size_t lt = 0, i = 0, gt = n;

		if (depth == 0) {
			qsort(v, n, sizeof(*v), stack_qcmp);
			return;
		}
		a = skey(v[0], d);
		b = skey(v[n / 2], d);
		c = skey(v[n - 1], d);
		pivot = a < b ? (b < c ? b : a < c ? c : a)
			      : (a < c ? a : b < c ? c : b);
		while (i < gt) {
			const uint32_t k = skey(v[i], d);
			const struct stack *t = v[i];

			if (k < pivot) {
				v[i++] = v[lt];
				v[lt++] = t;
			} else if (k > pivot) {
				v[i] = v[--gt];
				v[gt] = t;
			} else {
				i++;
			}
		}
		mkqs(v, lt, d, depth - 1);
		mkqs(v + gt, n - gt, d, depth - 1);
		if (!pivot)
			return; /* ended at d: equal, so one at most */
		v += lt;
		n = gt - lt;
		d++;
	}
	for (size_t i = 1; i < n; i++) {
		const struct stack *t = v[i];
		size_t j = i;

		for (; j > 0 && stack_cmp_from(v[j - 1], t, d) > 0; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

/* The text of line, rendered into the arena.  @return 0 or
 * PD_ERR_NOMEM. */
static int render_text(struct pda_fold *fd, struct pda_fold_line *line)
{
	char *s = pdc_arena_alloc(&fd->arena, &fd->mem, line->len + 1), *p = s;

	if (!s)
		return PD_ERR_NOMEM;
	for (size_t j = 0; j < line->nr_frames; j++) {
		if (j > 0)
			*p++ = ';';
		memcpy(p, line->frames[j]->name, line->frames[j]->len);
		p += line->frames[j]->len;
	}
	*p = '\0';
	line->stack = s;
	return 0;
}

/*
 * Make st's line; its text too when text (the string sort needs it),
 * else on the first pda_fold_line() (the outputs write the profile, so
 * a capture's lines are seldom rendered).  @return 0 or PD_ERR_NOMEM.
 */
static int render(struct pda_fold *fd, const struct stack *st,
		  struct pda_fold_line *line, bool text)
{
	size_t len = 0;

	for (size_t j = 0; j < st->nr; j++)
		len += st->frames[j]->len + (j > 0);
	line->stack = NULL;
	line->len = len;
	line->weight = st->weight;
	line->samples = st->samples;
	line->period = st->period;
	line->nr_frames = st->nr;
	line->frames = st->frames;
	return text ? render_text(fd, line) : 0;
}

static void merge_line(struct pda_fold_line *into,
		       const struct pda_fold_line *from)
{
	into->weight += from->weight;
	into->samples += from->samples;
	into->period += from->period;
}

int pda_fold_finish(struct pda_fold *fd)
{
	struct pda_fold_line *lines;
	const struct stack **v;
	const struct stack *st;
	size_t nr = 0, out = 0, pos = 0;

	if (fd->finished)
		return 0;
	if (fd->stacks.nr > SIZE_MAX / sizeof(*lines))
		return PD_ERR_NOMEM;
	lines = pdc_malloc(&fd->mem, fd->stacks.nr * sizeof(*lines));
	v = pdc_malloc(&fd->mem, fd->stacks.nr * sizeof(*v));
	if (!lines || !v)
		goto nomem;
	while ((st = pdc_hash_next(&fd->stacks, &pos)))
		v[nr++] = st;
	if (!fd->has_semi) {
		if (rank_atoms(fd) < 0)
			goto nomem;
		mkqs(v, nr, 0, MKQS_DEPTH);
		for (size_t i = 0; i < nr; i++) {
			if (render(fd, v[i], &lines[out], false) < 0)
				goto nomem;
			/* the one pair that renders alike: no frames and one
			 * frame of an empty name; both sort first */
			if (out == 1 && lines[0].len == 0 && lines[1].len == 0)
				merge_line(&lines[0], &lines[1]);
			else
				out++;
		}
	} else {
		for (size_t i = 0; i < nr; i++)
			if (render(fd, v[i], &lines[i], true) < 0)
				goto nomem;
		qsort(lines, nr, sizeof(*lines), line_cmp);
		/* distinct stacks can render alike (a comm holding ';') */
		for (size_t i = 0; i < nr; i++) {
			if (out > 0 &&
			    line_cmp(&lines[out - 1], &lines[i]) == 0) {
				merge_line(&lines[out - 1], &lines[i]);
				continue;
			}
			lines[out++] = lines[i];
		}
	}
	pdc_free(&fd->mem, v);
	fd->lines = lines;
	fd->nr_lines = out;
	fd->totals.nr_stacks = out;
	fd->finished = true;
	return 0;
nomem:
	pdc_free(&fd->mem, v);
	pdc_free(&fd->mem, lines);
	return PD_ERR_NOMEM;
}

size_t pda_fold_nr_lines(const struct pda_fold *fd)
{
	return fd->nr_lines;
}

const struct pda_fold_line *pda_fold_line(const struct pda_fold *fd, size_t i)
{
	struct pda_fold_line *l;

	if (i >= fd->nr_lines)
		return NULL;
	l = &fd->lines[i];
	/* the text is a cache of the frames: render it now, in the fold's
	 * own arena (fd is const to the caller, not to itself) */
	if (!l->stack &&
	    render_text((struct pda_fold *)(uintptr_t)fd, l) < 0)
		return NULL;
	return l;
}

const struct pda_fold_totals *pda_fold_totals(const struct pda_fold *fd)
{
	return &fd->totals;
}

/* ---- the lines as a profile ------------------------------------------- */

static int profile_str(struct pda_profile *p, const char *detail, uint32_t *id)
{
	*id = 0;
	if (!detail)
		return 0;
	return pda_profile_intern(p, detail, pdc_intern_len(detail), id);
}

/* Atom a's location in p, made on first use. */
static int atom_loc(struct pda_profile *p, struct atom *a, bool root,
		    uint32_t *id)
{
	const struct detail *d = a->detail;
	struct pda_profile_loc l = {0};
	struct pda_profile_func f = {0};
	struct pda_profile_mapping m = {0};
	int rc;

	if (a->loc[root]) {
		*id = a->loc[root];
		return 0;
	}
	rc = pda_profile_intern(p, a->str, a->pub.len, &l.label);
	if (rc == 0 && d) {
		rc = profile_str(p, d->func, &f.name);
		if (rc == 0)
			rc = profile_str(p, d->file, &f.file);
		if (rc == 0)
			rc = profile_str(p, d->dso, &m.name);
		if (rc == 0 && m.name)
			rc = pda_profile_add_mapping(p, &m, &l.mapping);
		l.address = d->addr;
		l.line = d->line;
		l.flags = d->flags;
	} else {
		/* a root, "[unknown]" or a name given by the caller */
		f.name = l.label;
		l.flags = (a->pub.flags & PDA_FRAME_KERNEL ? PDA_LOC_KERNEL : 0) |
			  (a->pub.flags & PDA_FRAME_JIT ? PDA_LOC_JIT : 0) |
			  (a->pub.flags & PDA_FRAME_INLINED ? PDA_LOC_INLINED
							    : 0) |
			  (a->pub.flags &
					   (PDA_FRAME_NO_SYMBOL | PDA_FRAME_NO_MAP)
				   ? PDA_LOC_UNKNOWN
				   : 0);
	}
	if (root)
		l.flags = PDA_LOC_ROOT;
	if (rc == 0 && f.name)
		rc = pda_profile_add_func(p, &f, &l.func);
	if (rc == 0)
		rc = pda_profile_add_loc(p, &l, &a->loc[root]);
	*id = a->loc[root];
	return rc;
}

/* pda_fold_profile()'s state. */
struct to_profile {
	struct pda_profile *p;
	struct pdc_hash leaves; /* of the lines' last stacks, id + 1 */
	uint32_t *ids;		/* the previous line's stacks */
	size_t alloc_ids;
	bool rooted;		/* frame 0 is a root */
	bool sorted;		/* the lines are in byte order (!has_semi) */
};

struct leaf_key {
	const struct pda_profile *p;
	uint32_t prefix, loc;
};

static bool leaf_eq(const void *item, const void *key)
{
	const struct leaf_key *k = key;
	const struct pda_profile_stack *st =
		pda_profile_stack(k->p, (uint32_t)((uintptr_t)item - 1));

	return st->prefix == k->prefix && st->loc == k->loc;
}

static uint64_t leaf_hash(uint32_t prefix, uint32_t loc)
{
	return pdc_hash_u64((uint64_t)loc << 32 | prefix);
}

/*
 * The stack of loc under prefix at position i of line l, whose first
 * same frames are the previous line's.  In byte order (no name holds
 * ';'), a line that shares frames 0..i with an earlier line and goes on
 * past i shares them with every line in between, so past `same` the
 * stacks are new, and at `same` the stack can only be an earlier line's
 * last one: only those are looked up.
 */
static int line_stack(const struct pda_fold *fd, struct to_profile *tp,
		      const struct pda_fold_line *l, size_t i, size_t same,
		      uint32_t prefix, uint32_t loc, uint32_t *id)
{
	const struct leaf_key key = {tp->p, prefix, loc};
	void *found;

	if (!tp->sorted)
		return pda_profile_add_stack(tp->p, prefix, loc, id);
	if (i == same && i + 1 < l->nr_frames) {
		found = pdc_hash_find(&tp->leaves, leaf_hash(prefix, loc),
				      leaf_eq, &key);
		if (found) {
			*id = (uint32_t)((uintptr_t)found - 1);
			return 0;
		}
	}
	if (i + 1 == l->nr_frames &&
	    pdc_hash_reserve(&fd->mem, &tp->leaves) < 0)
		return PD_ERR_NOMEM;
	if (pda_profile_append_stack(tp->p, prefix, loc, id) < 0)
		return PD_ERR_NOMEM;
	if (i + 1 == l->nr_frames)
		pdc_hash_fill(&tp->leaves,
			      pdc_hash_probe(&tp->leaves, leaf_hash(prefix, loc),
					     leaf_eq, &key),
			      leaf_hash(prefix, loc),
			      (void *)((uintptr_t)*id + 1));
	return 0;
}

/* Add line l to the profile; the previous line's stack ids are reused
 * for the frames the two lines share (sorted lines share long
 * prefixes). */
static int profile_line(const struct pda_fold *fd, struct to_profile *tp,
			const struct pda_fold_line *l,
			const struct pda_fold_line *prev)
{
	struct pda_profile *p = tp->p;
	uint32_t *ids = tp->ids;
	const bool rooted = tp->rooted;
	uint64_t values[PDA_FOLD_NR_COLUMNS];
	uint32_t stack = 0;
	size_t same = 0;
	int rc;

	while (prev && same < l->nr_frames && same < prev->nr_frames &&
	       l->frames[same] == prev->frames[same])
		same++;
	if (same)
		stack = ids[same - 1];
	for (size_t i = same; i < l->nr_frames; i++) {
		/* the table's atoms, const only in the line */
		struct atom *a = (struct atom *)(uintptr_t)atom_of(l->frames[i]);
		uint32_t loc;

		rc = atom_loc(p, a, rooted && i == 0, &loc);
		if (rc == 0)
			rc = line_stack(fd, tp, l, i, same, stack, loc, &stack);
		if (rc < 0)
			return rc;
		ids[i] = stack;
	}
	values[PDA_FOLD_COL_WEIGHT] = l->weight;
	values[PDA_FOLD_COL_SAMPLES] = l->samples;
	values[PDA_FOLD_COL_PERIOD] = l->period;
	return pda_profile_add_sample(p, stack, values);
}

int pda_fold_profile(struct pda_fold *fd, struct pda_profile **out)
{
	PDA_PROFILE_OPTS(po, .nr_columns = PDA_FOLD_NR_COLUMNS,
			 .alloc = &fd->mem);
	struct to_profile tp = {.rooted = !(fd->flags & PDA_FOLD_NO_COMM),
				.sorted = !fd->has_semi};
	struct pda_profile *p;
	int rc;

	*out = NULL;
	if (!fd->finished)
		return PD_ERR_API;
	rc = pda_profile_new(&po, &p);
	if (rc < 0)
		return rc;
	rc = pda_profile_set_column(p, PDA_FOLD_COL_WEIGHT, NULL,
				    fd->flags & PDA_FOLD_PERIOD ? "period"
								: "samples");
	if (rc == 0)
		rc = pda_profile_set_column(p, PDA_FOLD_COL_SAMPLES, NULL,
					    "samples");
	if (rc == 0)
		rc = pda_profile_set_column(p, PDA_FOLD_COL_PERIOD, NULL,
					    "period");
	tp.p = p;
	for (size_t i = 0; rc == 0 && i < fd->nr_lines; i++) {
		const struct pda_fold_line *l = &fd->lines[i];

		rc = PDC_GROW(&fd->mem, tp.ids, tp.alloc_ids,
				  l->nr_frames + 1, MAX_FRAMES + 1);
		if (rc == 0)
			rc = profile_line(fd, &tp, l,
					  i ? &fd->lines[i - 1] : NULL);
	}
	pdc_free(&fd->mem, tp.ids);
	pdc_hash_release(&fd->mem, &tp.leaves);
	if (rc < 0) {
		pda_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}
