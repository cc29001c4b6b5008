/*
 * pda_fold.c - stacks into folded lines ("comm;outer;...;leaf count"), the
 * aggregation behind `pdtool fold` and `pdtool flame`.
 *
 * Every name the output can hold (a symbol as perf's stackcollapse.py
 * writes it, "[unknown]", "dso+0x1f", a comm root) is an atom: a string
 * interned by content in this aggregator's own table, so equal names are
 * the same atom and a stack is a sequence of atom ids.  The per-sample
 * path turns each pda_frame into an atom through a cache keyed by the
 * frame's interned pointers (the session interns sym, dso and srcfile,
 * so a pointer stands for its string), then walks the atoms root first
 * down the prefix tree of stacks (pda_stacktree_int.h), where the stack
 * is a node and its counts its end's.  Nothing is allocated unless a
 * stack, name or comm is new (or a table grows); lines are never spelled
 * out for the outputs, which take the profile (pda_fold_profile()).
 *
 * The sort orders stacks as their rendered lines compare bytewise without
 * rendering them: each atom gets two ranks, of its name followed by ';'
 * and by the end of the line, among all such tokens.  As no name holds
 * ';' or NUL, the tokens are prefix-free, so comparing two stacks' token
 * ranks root first compares their lines (except that no frames and one
 * empty name both render as ""), and a walk of the tree that visits each
 * node's children in token order meets the stacks sorted.  A name
 * holding ';' (a comm can) breaks this: then the lines are rendered and
 * sorted as strings.
 */
#include "pda_base_int.h"
#include "pda_fold.h"
#include "pda_profile.h"
#include "pda_stacktree_int.h"
#include "pdc_arena.h"
#include "pdc_text.h"

#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES (1u << 20) /* cap on one stack's frames (O5) */
/* share_lock()'s tries before it sleeps: a shard adding a new stack
 * holds the lock for a few microseconds (a lookup, ~4.6 nodes added),
 * which 64 tries did not outlast: fold.perf.data -j2 slept ~1,000 times
 * on it (~30 ms of the second shard's wall); 256 ~90 times
 * (bench/RESULTS.md, "Session 19: fold -j2's serial phases") */
#define SHARE_SPINS 256

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

/* pub comes first: a line holds &atom->pub, and atom_of() goes back;
 * an atom is the header of its entry in fd->atoms, str the string */
struct atom {
	struct pda_fold_frame pub;   /* pub.name points at str */
	uint32_t id;		     /* its id in fd->atoms: a tree frame */
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

#define FRONT_SIZE 4096 /* direct-mapped cache in front of dkeys */

/*
 * A frame named by its symbol alone (D_SYM: no source lines) by the
 * symbol's interned pointer and its kernel bit: the id lookup() gave.
 * A stack's frames look here first (direct-mapped), without a key
 * built or compared: the naming loop's cost per frame was about 75
 * instructions through lookup()'s front, 20 here.
 */
struct symfront {
	const char *sym; /* NULL: empty */
	uint32_t kernel;
	uint32_t id;
};

#define SYMFRONT_SIZE 4096
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

/*
 * ---- the tree on a thread of its own (pda_fold_opts.threaded) ----
 *
 * Walking a new stack down the tree is a third of fold's time on a
 * capture of deep, varied stacks (a hash probe per frame, most of them
 * cache misses), and it needs nothing of the session: the caller's thread
 * names the frames (atoms) and hands their ids over; the adder walks them
 * into the tree and counts them.  Records go over in blocks, in the order
 * they were added, so the tree, its end ids and its counts are the ones
 * the caller's thread alone would have made.  A stack handed over is
 * known at once by its serial, 1 for the first stack handed over, 2 for
 * the next... (its cookie for pda_fold_add_again()); the adder maps
 * serials to ends.
 *
 * A record is 32-bit words: Q_ADD, nr, hint, weight (2), period (2), then
 * nr atom ids root first; Q_AGAIN, serial, weight (2), period (2).
 */
enum { Q_ADD = 1, Q_AGAIN = 2, Q_ADD_WORDS = 7, Q_AGAIN_WORDS = 6 };

#define QBLOCK_WORDS (16u << 10) /* a block's words (64 KB) */
/*
 * Blocks of that size at most, made only when none is free: new stacks
 * come in bursts (most of a capture's first samples are new, a stack
 * the adder walks down the tree and the caller resolves from its
 * memo's miss), and while the adder is behind the caller waits for
 * room.  With 8 blocks (512 KB, ~4k stacks of the -g bench capture)
 * the caller of fold -j2 waited 27-40 ms of a 0.32 s run; with 32 (2
 * MB), about 2 ms.
 */
#define QBLOCKS 32

struct qblock {
	struct qblock *next;
	size_t nr, alloc; /* words used, words */
	uint32_t w[];
};

struct adder {
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t more, room;
	/* under mu: blocks handed over (in order), blocks to fill, how many
	 * of QBLOCK_WORDS exist, the end of input, the adder's error */
	struct qblock *full, **full_tail, *free;
	unsigned nr_blocks;
	bool stop;
	int err;
	atomic_bool failed;  /* err is set: the caller stops adding */
	struct qblock *cur;  /* the caller's, being filled */
	uint32_t nr_serials; /* the caller's: stacks handed over */
	/* the adder's: each serial's end */
	uint32_t *end_of;
	size_t nr_end_of, alloc_end_of;
};

/*
 * The sorted walk of a threaded fold, on a thread of its own: it fills
 * the order while pda_fold_profile() makes the profile's rows from what
 * is there (the two take about the same time, after the last sample,
 * when nothing else runs).
 */
struct sorter {
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* under mu: order[0 .. ready) is final; done (rc: how) */
	size_t ready;
	bool done;
	int rc;
	uint32_t *ranks; /* the sorter's, freed by it */
	struct pda_fold *fd;
};

struct pda_fold {
	struct pd_alloc mem;
	bool threaded;
	/* threaded asked: the sort on a thread too (a merged table's
	 * adder stopped early) */
	bool sort_thread;
	struct adder ad;
	struct sorter so;
	struct dkey front[FRONT_SIZE];
	struct symfront symfront[SYMFRONT_SIZE];
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
	struct pda_stacktree tree;	   /* the distinct stacks */
	struct atom *unknown[2];	   /* "[unknown]", "[unknown]_[k]" */
	bool has_semi;			   /* an atom's name holds ';' */
	uint32_t *buf;			   /* the stack being added, root
					    * first: atom ids */
	size_t buf_alloc;
	/* pda_fold_finish(): the ends' nodes in the lines' order, a node
	 * with ORDER_MERGED counted into the line before it */
	uint32_t *order;
	size_t nr_order;
	size_t nr_lines;
	struct pda_fold_line *lines; /* made on the first pda_fold_line() */
	struct pda_fold_totals totals;
	/*
	 * pda_fold_share(): owner is the table whose tree (and atoms, by
	 * name) this one's stacks go into, under owner->share_mu; gid[id]
	 * is this table's atom id + 1 there (0: not there yet), and cnt
	 * the counts by the owner's end ids, this table's own.  NULL: the
	 * table's own tree.
	 */
	struct pda_fold *owner;
	struct pda_stacktree_reader *reader; /* fd's, in owner's tree */
	uint32_t *gid;
	size_t alloc_gid;
	struct pda_stacktree_count *cnt;
	size_t alloc_cnt;
	pthread_mutex_t share_mu; /* an owner's, once share_init */
	bool share_init;
};

static int sorter_join(struct pda_fold *fd);

/* An order entry's mark: its stack renders as the one before it does. */
#define ORDER_MERGED (1u << 31)
_Static_assert(PDA_STACKTREE_MAX <= ORDER_MERGED,
	       "a node id leaves ORDER_MERGED free");

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
		a->id = (uint32_t)pdc_intern_id(e);
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

/* A detail with its strings interned in fd's details table (the rest
 * zero), or NULL when out of memory. */
static struct detail *detail_new(struct pda_fold *fd, const char *func,
				 const char *dso, const char *file)
{
	struct detail *d = pdc_arena_alloc(&fd->arena, &fd->mem, sizeof(*d));
	bool oom = false;

	if (!d)
		return NULL;
	memset(d, 0, sizeof(*d));
	d->func = detail_str(fd, func, &oom);
	d->dso = detail_str(fd, dso, &oom);
	d->file = detail_str(fd, file, &oom);
	return oom ? NULL : d;
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

	if (a->detail)
		return 0;
	d = detail_new(fd, fr->sym, fr->dso, fr->srcfile);
	if (!d)
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
		pdc_strbuf_add(&b, fd->flags & PDA_FOLD_SRCLINE_CG ? " " : ":",
			       1);
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

/* lookup() past its front entry front. */
static struct atom *lookup_slow(struct pda_fold *fd, const struct dkey *k,
				const struct pda_frame *fr, struct dkey *front)
{
	const uint64_t h = dkey_hash(k);
	struct pdc_hash_slot *slot;
	struct dkey *e;
	struct atom *a;


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

/* Inline: the front entry's hit is the path of nearly every frame. */
static inline struct atom *lookup(struct pda_fold *fd, const struct dkey *k,
				  const struct pda_frame *fr)
{
	/* most frames repeat the previous samples': a direct-mapped entry
	 * answers them without hashing the key fully */
	struct dkey *front = &fd->front[((uintptr_t)k->p1 >> 3 ^ k->n ^
					 (uintptr_t)k->p2 >> 3 ^ k->kind) &
					(FRONT_SIZE - 1)];

	if (front->atom && dkey_eq(front, k))
		return front->atom;
	return lookup_slow(fd, k, fr, front);
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

static void put64(uint32_t *w, uint64_t v)
{
	w[0] = (uint32_t)v;
	w[1] = (uint32_t)(v >> 32);
}

static uint64_t get64(const uint32_t *w)
{
	return (uint64_t)w[1] << 32 | w[0];
}

/* The counts of end: the tree's, or a sharing table's own. */
static inline struct pda_stacktree_count *end_count(struct pda_fold *fd,
						    uint32_t end)
{
	return fd->owner ? &fd->cnt[end] : pda_stacktree_count(&fd->tree, end);
}

static void count_at(struct pda_fold *fd, uint32_t end, const uint32_t *wp)
{
	struct pda_stacktree_count *c = pda_stacktree_count(&fd->tree, end);

	c->weight += get64(wp);
	c->samples++;
	c->period += get64(wp + 2);
}

/* The adder's work on one block.  @return 0 or PD_ERR_NOMEM. */
static int add_block(struct pda_fold *fd, const struct qblock *b)
{
	struct adder *ad = &fd->ad;

	for (size_t i = 0; i < b->nr;) {
		const uint32_t *w = b->w + i;
		uint32_t end;

		if (w[0] == Q_AGAIN) {
			count_at(fd, ad->end_of[w[1] - 1], w + 2);
			i += Q_AGAIN_WORDS;
			continue;
		}
		if (pda_stacktree_add(&fd->tree, &fd->mem, w + Q_ADD_WORDS,
				      w[1], w[2], &end) < 0 ||
		    PDC_GROW(&fd->mem, ad->end_of, ad->alloc_end_of,
			     ad->nr_end_of + 1, PDA_STACKTREE_MAX) < 0)
			return PD_ERR_NOMEM;
		ad->end_of[ad->nr_end_of++] = end;
		count_at(fd, end, w + 3);
		i += Q_ADD_WORDS + w[1];
	}
	return 0;
}

/* The adder thread: the blocks as they come, until the end of input;
 * after an error, it only hands them back, so the caller never waits on
 * it for room. */
static void *adder_main(void *arg)
{
	struct pda_fold *fd = arg;
	struct adder *ad = &fd->ad;
	int err = 0;

	pthread_mutex_lock(&ad->mu);
	for (;;) {
		struct qblock *b;

		while (!ad->full && !ad->stop)
			pthread_cond_wait(&ad->more, &ad->mu);
		b = ad->full;
		if (!b)
			break;
		ad->full = b->next;
		if (!ad->full)
			ad->full_tail = &ad->full;
		pthread_mutex_unlock(&ad->mu);
		if (!err && add_block(fd, b) < 0) {
			err = PD_ERR_NOMEM;
			atomic_store(&ad->failed, true);
		}
		pthread_mutex_lock(&ad->mu);
		ad->err = err;
		if (b->alloc > QBLOCK_WORDS) {
			pdc_free(&fd->mem, b); /* a deep stack's own */
		} else {
			b->nr = 0;
			b->next = ad->free;
			ad->free = b;
		}
		pthread_cond_signal(&ad->room);
	}
	pthread_mutex_unlock(&ad->mu);
	return NULL;
}

/* Hand the caller's block over (none: nothing). */
static void submit(struct adder *ad)
{
	struct qblock *b = ad->cur;

	if (!b)
		return;
	ad->cur = NULL;
	b->next = NULL;
	pthread_mutex_lock(&ad->mu);
	*ad->full_tail = b;
	ad->full_tail = &b->next;
	pthread_cond_signal(&ad->more);
	pthread_mutex_unlock(&ad->mu);
}

/* Room for n more words in the caller's block, the block handed over and
 * a free one taken (or made) when full.  NULL when out of memory or the
 * adder failed. */
static uint32_t *reserve_words(struct pda_fold *fd, size_t n)
{
	struct adder *ad = &fd->ad;
	struct qblock *b = ad->cur;
	size_t words = n > QBLOCK_WORDS ? n : QBLOCK_WORDS;

	if (atomic_load_explicit(&ad->failed, memory_order_relaxed))
		return NULL;
	if (b && b->alloc - b->nr >= n)
		return b->w + b->nr;
	submit(ad);
	b = NULL;
	pthread_mutex_lock(&ad->mu);
	if (words == QBLOCK_WORDS) {
		while (!ad->free && ad->nr_blocks >= QBLOCKS)
			pthread_cond_wait(&ad->room, &ad->mu);
		b = ad->free;
		if (b)
			ad->free = b->next;
		else
			ad->nr_blocks++;
	}
	pthread_mutex_unlock(&ad->mu);
	if (!b) {
		b = pdc_malloc(&fd->mem, sizeof(*b) + words * sizeof(b->w[0]));
		if (!b) {
			if (words == QBLOCK_WORDS) {
				pthread_mutex_lock(&ad->mu);
				ad->nr_blocks--;
				pthread_mutex_unlock(&ad->mu);
			}
			return NULL;
		}
		b->alloc = words;
	}
	b->nr = 0;
	ad->cur = b;
	return b->w;
}

/* Start the adder.  @return 0 or PD_ERR_NOMEM. */
static int adder_start(struct pda_fold *fd)
{
	struct adder *ad = &fd->ad;

	if (pthread_mutex_init(&ad->mu, NULL) != 0)
		return PD_ERR_NOMEM;
	if (pthread_cond_init(&ad->more, NULL) != 0) {
		pthread_mutex_destroy(&ad->mu);
		return PD_ERR_NOMEM;
	}
	if (pthread_cond_init(&ad->room, NULL) != 0) {
		pthread_cond_destroy(&ad->more);
		pthread_mutex_destroy(&ad->mu);
		return PD_ERR_NOMEM;
	}
	ad->full_tail = &ad->full;
	atomic_init(&ad->failed, false);
	if (pthread_create(&ad->thread, NULL, adder_main, fd) != 0) {
		pthread_cond_destroy(&ad->room);
		pthread_cond_destroy(&ad->more);
		pthread_mutex_destroy(&ad->mu);
		return PD_ERR_NOMEM;
	}
	ad->started = true;
	return 0;
}

/* Adding is over: the adder finishes what it was handed and stops; its
 * blocks go.  @return 0, or the adder's error. */
static int adder_stop(struct pda_fold *fd)
{
	struct adder *ad = &fd->ad;
	int err;

	if (!ad->started)
		return 0;
	submit(ad);
	pthread_mutex_lock(&ad->mu);
	ad->stop = true;
	pthread_cond_signal(&ad->more);
	pthread_mutex_unlock(&ad->mu);
	pthread_join(ad->thread, NULL);
	ad->started = false;
	err = ad->err;
	while (ad->free) {
		struct qblock *b = ad->free;

		ad->free = b->next;
		pdc_free(&fd->mem, b);
	}
	pthread_cond_destroy(&ad->room);
	pthread_cond_destroy(&ad->more);
	pthread_mutex_destroy(&ad->mu);
	pdc_free(&fd->mem, ad->end_of);
	ad->end_of = NULL;
	fd->threaded = false;
	return err;
}

/* Hand the stack fd->buf[0..nr) to the adder; *serial: its serial.
 * @return 0 or PD_ERR_NOMEM. */
static int hand_over(struct pda_fold *fd, size_t nr, unsigned hint,
		     uint64_t weight, uint64_t period, uint32_t *serial)
{
	struct adder *ad = &fd->ad;
	uint32_t *w;

	if (ad->nr_serials >= PDA_STACKTREE_MAX)
		return PD_ERR_NOMEM;
	w = reserve_words(fd, Q_ADD_WORDS + nr);
	if (!w)
		return PD_ERR_NOMEM;
	w[0] = Q_ADD;
	w[1] = (uint32_t)nr;
	w[2] = hint;
	put64(w + 3, weight);
	put64(w + 5, period);
	memcpy(w + Q_ADD_WORDS, fd->buf, nr * sizeof(*w));
	ad->cur->nr += Q_ADD_WORDS + nr;
	/* from 1: a cookie is never 0 */
	*serial = ++ad->nr_serials;
	return 0;
}

/* Count a sample again on the stack handed over as serial. */
static int hand_again(struct pda_fold *fd, uint32_t serial, uint64_t weight,
		      uint64_t period)
{
	uint32_t *w = reserve_words(fd, Q_AGAIN_WORDS);

	if (!w)
		return PD_ERR_NOMEM;
	w[0] = Q_AGAIN;
	w[1] = serial;
	put64(w + 2, weight);
	put64(w + 4, period);
	fd->ad.cur->nr += Q_AGAIN_WORDS;
	return 0;
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
	/* by id too: the tree's frames are atom ids */
	pdc_intern_init(&fd->atoms, offsetof(struct atom, str), 0,
			PDC_INTERN_IDS);
	pdc_intern_init(&fd->details, 0, 0, 0);
	fd->flags = o.flags;
	if (o.threaded) {
		if (adder_start(fd) < 0) {
			pda_fold_free(fd);
			return PD_ERR_NOMEM;
		}
		fd->threaded = true;
		fd->sort_thread = true;
	}
	if (o.sort_thread)
		fd->sort_thread = true;
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
	adder_stop(fd);
	sorter_join(fd);
	pdc_free(&m, fd->ad.cur);
	for (int i = 0; i < NR_MATCH; i++)
		if (fd->has_re[i])
			regfree(&fd->re[i]);
	pdc_intern_release(&fd->atoms, &m);
	pdc_intern_release(&fd->details, &m);
	pdc_hash_release(&m, &fd->dkeys);
	pda_stacktree_release(&fd->tree, &m);
	pdc_arena_release(&fd->arena, &m);
	pdc_free(&m, fd->buf);
	pdc_free(&m, fd->order);
	pdc_free(&m, fd->lines);
	pdc_free(&m, fd->gid);
	pdc_free(&m, fd->cnt);
	if (fd->share_init)
		pthread_mutex_destroy(&fd->share_mu);
	pdc_free(&m, fd);
}

int pda_fold_share(struct pda_fold *fd, struct pda_fold *owner)
{
	int rc;

	if (fd == owner || fd->owner || owner->owner || fd->threaded ||
	    owner->threaded || fd->finished || owner->finished ||
	    fd->totals.nr_samples || fd->totals.nr_filtered ||
	    fd->flags != owner->flags)
		return PD_ERR_API;
	if (!owner->share_init) {
		/* the lock first: a tree shared without it could not be
		 * shared again (share_init false, the tree's sh set) */
		if (pthread_mutex_init(&owner->share_mu, NULL) != 0)
			return PD_ERR_NOMEM;
		rc = pda_stacktree_share(&owner->tree, &owner->mem);
		if (rc < 0) {
			pthread_mutex_destroy(&owner->share_mu);
			return rc;
		}
		owner->share_init = true;
	}
	pthread_mutex_lock(&owner->share_mu);
	rc = pda_stacktree_reader_new(&owner->tree, &owner->mem, &fd->reader);
	pthread_mutex_unlock(&owner->share_mu);
	if (rc < 0)
		return rc;
	fd->owner = owner;
	return 0;
}

/*
 * A sharing table's stack fd->buf[0..nr): its atoms named in the
 * owner's table (by name: each table keeps its own first frames, merged
 * in the file's order), its end found or made in the owner's tree.  The
 * owner's lock is taken only for what is new there: a name this table
 * has not mapped, and the nodes and end of a stack no thread added
 * (pda_stacktree_find_shared() looks without it: held for every new
 * stack of a shard, across the tree's lookups, the lock had -j2's two
 * shards wait on each other, 10k context switches a run).  The end's
 * counts are fd's own (the owner's tree grows under other threads).
 * @return as pda_stacktree_add().
 */
/*
 * The owner's lock, held for a few nodes' adding at most: a thread
 * that finds it taken tries again for about as long before it sleeps
 * (sleeping and waking cost more than the wait).
 */
static void share_lock(struct pda_fold *o)
{
	for (int i = 0; i < SHARE_SPINS; i++) {
		if (pthread_mutex_trylock(&o->share_mu) == 0)
			return;
		for (volatile int j = 0; j < 16; j++)
			;
	}
	pthread_mutex_lock(&o->share_mu);
}

static int shared_add(struct pda_fold *fd, size_t nr, unsigned hint,
		      uint32_t *end)
{
	struct pda_fold *o = fd->owner;
	const size_t nr_atoms = pdc_intern_nr(&fd->atoms);
	const size_t had = fd->alloc_gid;
	bool locked = false;
	int rc = 0;

	if (PDC_GROW(&fd->mem, fd->gid, fd->alloc_gid, nr_atoms,
		     PDA_STACKTREE_MAX) < 0)
		return PD_ERR_NOMEM;
	memset(fd->gid + had, 0, (fd->alloc_gid - had) * sizeof(*fd->gid));
	for (size_t i = 0; i < nr; i++) {
		const uint32_t id = fd->buf[i];

		if (!fd->gid[id]) {
			const struct atom *a = pdc_intern_at(&fd->atoms, id);
			const struct atom *b;

			if (!locked) {
				share_lock(o);
				locked = true;
			}
			b = intern_raw(o, a->str, a->pub.len, a->pub.flags);
			if (!b) {
				rc = PD_ERR_NOMEM;
				break;
			}
			fd->gid[id] = b->id + 1;
		}
		fd->buf[i] = fd->gid[id] - 1;
	}
	if (locked)
		pthread_mutex_unlock(&o->share_mu);
	if (rc == 0)
		rc = pda_stacktree_find_shared(&o->tree, fd->reader, &o->mem,
					       fd->buf, nr, hint, end);
	if (rc == 1) {
		share_lock(o);
		rc = pda_stacktree_add_rest(&o->tree, &o->mem, fd->reader, end);
		pthread_mutex_unlock(&o->share_mu);
	}
	if (rc >= 0 && *end >= fd->alloc_cnt) {
		const size_t was = fd->alloc_cnt;

		if (PDC_GROW(&fd->mem, fd->cnt, fd->alloc_cnt, (size_t)*end + 1,
			     PDA_STACKTREE_MAX) < 0)
			return PD_ERR_NOMEM;
		memset(fd->cnt + was, 0,
		       (fd->alloc_cnt - was) * sizeof(*fd->cnt));
	}
	return rc;
}

static int grow_buf(struct pda_fold *fd, size_t want)
{
	return PDC_GROW(&fd->mem, fd->buf, fd->buf_alloc, want,
			    MAX_FRAMES);
}

/*
 * Count weight for the stack fd->buf[0..nr), root first, hint its
 * thread (pda_stacktree_add()).  A root is the first frame like any
 * other: "a" at the root of "b" and "a;b" without a root render alike,
 * and are one stack.  *end: the stack's end in the tree.
 */
static int count_stack(struct pda_fold *fd, size_t nr, unsigned hint,
		       uint64_t weight, uint64_t period, bool unresolved,
		       uint32_t *end)
{
	struct pda_stacktree_count *c;
	int rc;

	if (fd->threaded) {
		rc = hand_over(fd, nr, hint, weight, period, end);
		if (rc < 0)
			return rc;
	} else {
		rc = fd->owner ? shared_add(fd, nr, hint, end)
			       : pda_stacktree_add(&fd->tree, &fd->mem, fd->buf,
						   nr, hint, end);
		if (rc < 0)
			return rc;
		/* totals.nr_stacks: the lines, counted when sorted
		 * (count_lines); a sharer's own tree is empty */
		c = end_count(fd, *end);
		c->weight += weight;
		c->samples++;
		c->period += period;
	}
	fd->totals.nr_samples++;
	fd->totals.weight += weight;
	if (unresolved)
		fd->totals.weight_unresolved += weight;
	return 1;
}

/*
 * A cookie of pda_fold_add_keyed(): a stack's end in the tree, shifted
 * past COOKIE_SHIFT bits of what else the sample counted (its flags), or
 * none.
 */
enum {
	COOKIE_FILTERED = 1,	/* left out by a filter: no stack */
	COOKIE_UNRESOLVED = 2,
	COOKIE_TRUNCATED = 4,	/* cut at max_stack */
	COOKIE_FLAGS = 7,
	COOKIE_SHIFT = 3,
};

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

/* fr's atom; flags: fd->flags, read once a stack (the stores into
 * fd->buf could otherwise change them for the compiler). */
static inline struct atom *frame_atom(struct pda_fold *fd, unsigned flags,
				      const struct pda_frame *fr)
{
	const bool kernel =
		(flags & PDA_FOLD_KERNEL) && (fr->flags & PDA_FRAME_KERNEL);
	struct dkey k = {0};

	if (fr->sym) {
		if ((flags & (PDA_FOLD_SRCLINE | PDA_FOLD_SRCLINE_CG)) &&
		    fr->srcfile) {
			k.kind = D_SRCLINE;
			k.p2 = fr->srcfile;
			k.n = (uint64_t)fr->line << 1 | kernel;
		} else {
			k.kind = D_SYM;
			k.n = kernel;
		}
		k.p1 = fr->sym;
	} else if (flags & PDA_FOLD_ADDRS) {
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
	const uint64_t weight =
		fd->flags & PDA_FOLD_PERIOD ? sample->period : 1;
	struct pda_stacktree_count *st;

	if (fd->finished)
		return PD_ERR_API;
	if (cookie & COOKIE_TRUNCATED)
		fd->totals.nr_truncated++;
	if (cookie & COOKIE_FILTERED) {
		fd->totals.nr_filtered++;
		return 0;
	}
	/* as count_stack() counts a stack it found */
	if (fd->threaded) {
		const int rc = hand_again(fd, (uint32_t)(cookie >> COOKIE_SHIFT),
					  weight, sample->period);

		if (rc < 0)
			return rc;
	} else {
		st = end_count(fd, (uint32_t)(cookie >> COOKIE_SHIFT));
		st->weight += weight;
		st->samples++;
		st->period += sample->period;
	}
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
	uint32_t end;
	uint64_t flags = 0;
	int rc;
	struct atom *root;
	size_t cut = 0, off;
	bool keep = true, unresolved = false;
	bool dso_hit = !fd->has_re[MATCH_DSO];
	bool sym_hit = !fd->has_re[MATCH_SYM];
	const unsigned fold_flags = fd->flags;
	/* frames named by their symbol alone, no filter to try */
	const bool plain =
		!(fold_flags & (PDA_FOLD_SRCLINE | PDA_FOLD_SRCLINE_CG)) &&
		dso_hit && sym_hit;
	const unsigned kmask =
		fold_flags & PDA_FOLD_KERNEL ? PDA_FRAME_KERNEL : 0;

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
		cut = pda_stack_kept(st, fd->max_stack);
		if (cut < st->nr) {
			fd->totals.nr_truncated++;
			flags |= COOKIE_TRUNCATED;
		}
	}
	off = root != NULL;
	if (grow_buf(fd, cut + off) < 0)
		return PD_ERR_NOMEM;
	if (root)
		fd->buf[0] = root->id;
	for (size_t i = 0; i < cut; i++) {
		const struct pda_frame *fr = &st->frames[i];
		struct atom *a;

		if (plain && fr->sym) {
			const uint32_t kernel = (fr->flags & kmask) != 0;
			struct symfront *e =
				&fd->symfront[((uintptr_t)fr->sym >> 3 ^
					       (uintptr_t)fr->sym >> 15 ^ kernel) &
					      (SYMFRONT_SIZE - 1)];

			if (e->sym != fr->sym || e->kernel != kernel) {
				a = frame_atom(fd, fold_flags, fr);
				if (!a)
					return PD_ERR_NOMEM;
				*e = (struct symfront){fr->sym, kernel, a->id};
			}
			fd->buf[off + cut - 1 - i] = e->id;
			if (fr->flags & (PDA_FRAME_NO_SYMBOL | PDA_FRAME_NO_MAP))
				unresolved = true;
			continue;
		}
		a = frame_atom(fd, fold_flags, fr);
		if (!a)
			return PD_ERR_NOMEM;
		/* leaf first in, root first in the stack */
		fd->buf[off + cut - 1 - i] = a->id;
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
	rc = count_stack(fd, off + cut, sample->tid,
			 fd->flags & PDA_FOLD_PERIOD ? sample->period : 1,
			 sample->period, unresolved, &end);
	if (rc > 0 && cookie)
		*cookie = (uint64_t)end << COOKIE_SHIFT | flags |
			  (unresolved ? COOKIE_UNRESOLVED : 0);
	return rc;
}

int pda_fold_add_names(struct pda_fold *fd, const struct pda_fold_names *n)
{
	struct atom *root = NULL, *comm;
	size_t off;
	uint32_t end;
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
		fd->buf[0] = root->id;
	for (size_t i = 0; i < n->nr; i++) {
		struct atom *a = intern(fd, n->names[i], strlen(n->names[i]),
					n->flags ? n->flags[i] : 0);

		if (!a)
			return PD_ERR_NOMEM;
		fd->buf[off + n->nr - 1 - i] = a->id;
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
	return count_stack(fd, off + n->nr, 0, n->weight,
			   fd->flags & PDA_FOLD_PERIOD ? n->weight : 0,
			   n->unresolved, &end);
}

/* ---- merging ---------------------------------------------------------- */

/* from's atom a in fd: interned there, with a's details unless it had
 * some (fd's first frame came first).  NULL when out of memory. */
static struct atom *merge_atom(struct pda_fold *fd, const struct atom *a)
{
	struct atom *b = intern_raw(fd, a->str, a->pub.len, a->pub.flags);
	const struct detail *f = a->detail;
	struct detail *d;

	if (!b || b->detail || !f)
		return b;
	/* its strings interned anew: from's go with it */
	d = detail_new(fd, f->func, f->dso, f->file);
	if (!d)
		return NULL;
	d->addr = f->addr;
	d->line = f->line;
	d->flags = f->flags;
	b->detail = d;
	return b;
}

/* The totals of from added to fd's. */
static void merge_totals(struct pda_fold *fd, const struct pda_fold *from)
{
	fd->totals.nr_samples += from->totals.nr_samples;
	fd->totals.nr_filtered += from->totals.nr_filtered;
	fd->totals.weight += from->totals.weight;
	fd->totals.weight_unresolved += from->totals.weight_unresolved;
	fd->totals.nr_truncated += from->totals.nr_truncated;
}

/* pda_fold_merge() of a table sharing fd's tree: its atoms' first frames
 * and its counts, by fd's end ids.  @return 0 or PD_ERR_NOMEM. */
static int merge_shared(struct pda_fold *fd, struct pda_fold *from)
{
	const size_t nr_atoms = pdc_intern_nr(&from->atoms);
	const size_t nr_ends = pda_stacktree_nr_ends(&fd->tree);

	/* in from's order of first use, as merging a tree of its own */
	for (size_t id = 0; id < nr_atoms; id++)
		if (!merge_atom(fd, pdc_intern_at(&from->atoms, id)))
			return PD_ERR_NOMEM;
	for (size_t e = 1; e < from->alloc_cnt && e <= nr_ends; e++) {
		const struct pda_stacktree_count *c = &from->cnt[e];
		struct pda_stacktree_count *d =
			pda_stacktree_count(&fd->tree, (uint32_t)e);

		d->weight += c->weight;
		d->samples += c->samples;
		d->period += c->period;
	}
	merge_totals(fd, from);
	return 0;
}

int pda_fold_merge(struct pda_fold *fd, struct pda_fold *from)
{
	const size_t nr_atoms = pdc_intern_nr(&from->atoms);
	const struct pda_stacktree *t = &from->tree;
	uint32_t *to, *node_of, *end_of;
	int rc;

	if (fd->finished || from->finished || fd->owner ||
	    (from->owner && from->owner != fd))
		return PD_ERR_API;
	if (from->owner)
		return merge_shared(fd, from);
	rc = adder_stop(fd);
	if (rc == 0)
		rc = adder_stop(from);
	if (rc < 0)
		return rc;
	to = pdc_malloc(&fd->mem, (nr_atoms + 1) * sizeof(*to));
	node_of = pdc_zalloc(&fd->mem, (t->nr_nodes + 1) * sizeof(*node_of));
	end_of = pdc_zalloc(&fd->mem, (t->nr_ends + 1) * sizeof(*end_of));
	if (!to || !node_of || !end_of)
		rc = PD_ERR_NOMEM;
	/* in from's order of first use: where both lack a detail, the
	 * first frame of from is the file's first after fd's */
	for (size_t id = 0; rc == 0 && id < nr_atoms; id++) {
		struct atom *b = merge_atom(fd, pdc_intern_at(&from->atoms, id));

		if (!b)
			rc = PD_ERR_NOMEM;
		else
			to[id] = b->id;
	}
	/* from's nodes in fd, each a lookup (a parent comes before its
	 * children), then its stacks' ends in the order from made them */
	for (size_t n = 1; rc == 0 && n < t->nr_nodes; n++)
		rc = pda_stacktree_child(&fd->tree, &fd->mem,
					 node_of[t->nodes[n].parent],
					 to[t->nodes[n].frame], &node_of[n]);
	for (size_t n = 0; rc == 0 && n < t->nr_nodes; n++)
		if (t->nodes[n].end)
			end_of[t->nodes[n].end] = (uint32_t)n;
	for (size_t e = 1; rc >= 0 && e <= t->nr_ends; e++) {
		const struct pda_stacktree_count *c =
			pda_stacktree_count(t, (uint32_t)e);
		struct pda_stacktree_count *d;
		uint32_t end;

		rc = pda_stacktree_end(&fd->tree, &fd->mem,
				       node_of[end_of[e]], &end);
		if (rc < 0)
			break;
		d = pda_stacktree_count(&fd->tree, end);
		d->weight += c->weight;
		d->samples += c->samples;
		d->period += c->period;
	}
	pdc_free(&fd->mem, to);
	pdc_free(&fd->mem, node_of);
	pdc_free(&fd->mem, end_of);
	if (rc < 0)
		return rc;
	merge_totals(fd, from);
	return 0;
}

/* ---- sorting ---------------------------------------------------------- */

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

/*
 * Every atom's two ranks, from 1, by atom id: (*out)[2 * id] of its name
 * followed by ';', (*out)[2 * id + 1] of its name at the line's end
 * (pda_stacktree_sort()'s ranks; freed by the caller).
 * @return 0 or PD_ERR_NOMEM.
 */
static int rank_atoms(struct pda_fold *fd, uint32_t **out)
{
	const size_t nr = pdc_intern_nr(&fd->atoms) * 2;
	const struct atom *atom;
	struct token *t;
	uint32_t *ranks;
	size_t k = 0, pos = 0;

	*out = NULL;
	if (nr > UINT32_MAX - 1 || nr > SIZE_MAX / sizeof(*t))
		return PD_ERR_NOMEM;
	t = pdc_malloc(&fd->mem, nr * sizeof(*t));
	ranks = pdc_malloc(&fd->mem, nr * sizeof(*ranks));
	if (!t || !ranks) {
		pdc_free(&fd->mem, t);
		pdc_free(&fd->mem, ranks);
		return PD_ERR_NOMEM;
	}
	while ((atom = pdc_intern_next(&fd->atoms, &pos))) {
		t[k++] = (struct token){atom, 0};
		t[k++] = (struct token){atom, 1};
	}
	qsort(t, k, sizeof(*t), token_cmp);
	for (size_t i = 0; i < k; i++)
		ranks[2 * (size_t)t[i].atom->id + t[i].end] = (uint32_t)(i + 1);
	pdc_free(&fd->mem, t);
	*out = ranks;
	return 0;
}

/* The atom of a tree frame (the table's, const only to its callers). */
static struct atom *atom_at(const struct pda_fold *fd, uint32_t id)
{
	return pdc_intern_at(&fd->atoms, id);
}

/* The length of the line of node's stack. */
static size_t line_len(const struct pda_fold *fd, uint32_t node)
{
	const struct pda_stacktree_node *nodes = fd->tree.nodes;
	size_t len = 0;

	for (uint32_t n = node; n; n = nodes[n].parent)
		len += atom_at(fd, nodes[n].frame)->pub.len + 1;
	return len ? len - 1 : 0;
}

/* A line as text, for the sort by text. */
struct text_line {
	const char *s;
	size_t len;
	uint32_t node;
};

/* By bytes, then by node: equal lines keep the tree's order. */
static int text_line_cmp(const void *a, const void *b)
{
	const struct text_line *x = a, *y = b;
	const size_t n = x->len < y->len ? x->len : y->len;
	const int c = memcmp(x->s, y->s, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* The text of node's line, len bytes, into ar.  NULL: out of memory. */
static const char *node_text(const struct pda_fold *fd, struct pdc_arena *ar,
			     uint32_t node, size_t len)
{
	const struct pda_stacktree_node *nodes = fd->tree.nodes;
	char *s = pdc_arena_alloc(ar, &fd->mem, len + 1), *p;

	if (!s)
		return NULL;
	p = s + len;
	*p = '\0';
	for (uint32_t n = node; n; n = nodes[n].parent) {
		const struct atom *a = atom_at(fd, nodes[n].frame);

		p -= a->pub.len;
		memcpy(p, a->str, a->pub.len);
		if (nodes[n].parent)
			*--p = ';';
	}
	return s;
}

/*
 * The ends in the order of their lines' text, a line that renders as the
 * one before it marked ORDER_MERGED (distinct stacks render alike when a
 * name holds ';'): the sort for when the token ranks cannot order them.
 * @return 0 or PD_ERR_NOMEM.
 */
static int sort_by_text(struct pda_fold *fd, uint32_t **out)
{
	const size_t nr = pda_stacktree_nr_ends(&fd->tree);
	struct pdc_arena ar = PDC_ARENA_INIT;
	struct text_line *v = pdc_malloc(&fd->mem, (nr + 1) * sizeof(*v));
	uint32_t *order = pdc_malloc(&fd->mem, (nr + 1) * sizeof(*order));
	size_t k = 0;
	int rc = PD_ERR_NOMEM;

	if (!v || !order)
		goto out;
	for (uint32_t n = 0; n < fd->tree.nr_nodes; n++) {
		if (!fd->tree.nodes[n].end)
			continue;
		v[k].len = line_len(fd, n);
		v[k].node = n;
		v[k].s = node_text(fd, &ar, n, v[k].len);
		if (!v[k++].s)
			goto out;
	}
	qsort(v, k, sizeof(*v), text_line_cmp);
	for (size_t i = 0; i < k; i++) {
		const bool alike = i > 0 && v[i].len == v[i - 1].len &&
				   !memcmp(v[i].s, v[i - 1].s, v[i].len);

		order[i] = v[i].node | (alike ? ORDER_MERGED : 0);
	}
	rc = 0;
out:
	pdc_arena_release(&ar, &fd->mem);
	pdc_free(&fd->mem, v);
	if (rc < 0)
		pdc_free(&fd->mem, order);
	else
		*out = order;
	return rc;
}

/* The one pair that renders alike: no frames and one frame of an empty
 * name; both sort first. */
static void mark_merged(struct pda_fold *fd, size_t nr)
{
	if (nr >= 2 && line_len(fd, fd->order[0]) == 0 &&
	    line_len(fd, fd->order[1]) == 0)
		fd->order[1] |= ORDER_MERGED;
}

static void count_lines(struct pda_fold *fd)
{
	size_t nr_lines = 0;

	for (size_t i = 0; i < fd->nr_order; i++)
		nr_lines += !(fd->order[i] & ORDER_MERGED);
	fd->nr_lines = nr_lines;
	fd->totals.nr_stacks = nr_lines;
}

/* The sorter's step: order[0 .. n) is final (the merged mark of its
 * second entry set before the first two are published). */
static void sorter_progress(void *arg, size_t n)
{
	struct sorter *so = arg;

	if (so->ready < 2 && n >= 2)
		mark_merged(so->fd, n);
	pthread_mutex_lock(&so->mu);
	so->ready = n;
	pthread_cond_broadcast(&so->cv);
	pthread_mutex_unlock(&so->mu);
}

static void *sorter_main(void *arg)
{
	struct sorter *so = arg;
	struct pda_fold *fd = so->fd;
	int rc = pda_stacktree_sort_into(&fd->tree, &fd->mem, so->ranks,
					 fd->order, sorter_progress, so);

	pdc_free(&fd->mem, so->ranks);
	so->ranks = NULL;
	if (rc == 0 && so->ready < 2)
		mark_merged(fd, fd->nr_order);
	pthread_mutex_lock(&so->mu);
	if (rc == 0)
		so->ready = fd->nr_order;
	so->rc = rc;
	so->done = true;
	pthread_cond_broadcast(&so->cv);
	pthread_mutex_unlock(&so->mu);
	return NULL;
}

/* Start the sorted walk on its own thread.  @return 0, or < 0 when no
 * thread could be had (ranks then still the caller's). */
static int sorter_start(struct pda_fold *fd, uint32_t *ranks)
{
	struct sorter *so = &fd->so;

	so->fd = fd;
	so->ranks = ranks;
	so->ready = 0;
	so->done = false;
	so->rc = 0;
	if (pthread_mutex_init(&so->mu, NULL) != 0)
		return PD_ERR_NOMEM;
	if (pthread_cond_init(&so->cv, NULL) != 0) {
		pthread_mutex_destroy(&so->mu);
		return PD_ERR_NOMEM;
	}
	if (pthread_create(&so->thread, NULL, sorter_main, so) != 0) {
		pthread_cond_destroy(&so->cv);
		pthread_mutex_destroy(&so->mu);
		return PD_ERR_NOMEM;
	}
	so->started = true;
	return 0;
}

/* Wait until order[0 .. need) is final; *ready: how much is.  @return 0
 * or the sorter's error. */
static int sorter_wait(struct pda_fold *fd, size_t need, size_t *ready)
{
	struct sorter *so = &fd->so;
	int rc;

	if (!so->started) {
		*ready = fd->nr_order;
		return 0;
	}
	pthread_mutex_lock(&so->mu);
	while (so->ready < need && !so->done)
		pthread_cond_wait(&so->cv, &so->mu);
	*ready = so->ready;
	rc = so->rc;
	pthread_mutex_unlock(&so->mu);
	return rc;
}

/* The sorter done and gone, the lines counted.  @return 0 or its
 * error. */
static int sorter_join(struct pda_fold *fd)
{
	struct sorter *so = &fd->so;

	if (!so->started)
		return so->rc;
	pthread_join(so->thread, NULL);
	pthread_cond_destroy(&so->cv);
	pthread_mutex_destroy(&so->mu);
	so->started = false;
	if (so->rc == 0)
		count_lines(fd);
	return so->rc;
}

int pda_fold_finish(struct pda_fold *fd)
{
	uint32_t *ranks, *order = NULL;
	const bool threaded = fd->sort_thread;
	size_t nr;
	int rc;

	if (fd->finished)
		return 0;
	if (fd->owner) /* its stacks are the owner's */
		return PD_ERR_API;
	rc = adder_stop(fd);
	if (rc < 0)
		return rc;
	nr = pda_stacktree_nr_ends(&fd->tree);
	/* the lookup table goes before the walk needs its memory */
	rc = pda_stacktree_seal(&fd->tree, &fd->mem);
	if (rc < 0)
		return rc;
	if (fd->has_semi) {
		rc = sort_by_text(fd, &order);
	} else {
		rc = rank_atoms(fd, &ranks);
		if (rc == 0 && threaded && nr >= 2) {
			fd->order = pdc_malloc(&fd->mem,
					       (nr + 1) * sizeof(*fd->order));
			if (!fd->order)
				rc = PD_ERR_NOMEM;
			fd->nr_order = nr;
			if (rc == 0 && sorter_start(fd, ranks) == 0) {
				fd->finished = true;
				return 0;
			}
			pdc_free(&fd->mem, fd->order);
			fd->order = NULL;
			fd->nr_order = 0;
		}
		if (rc == 0)
			rc = pda_stacktree_sort(&fd->tree, &fd->mem, ranks,
						&order);
		pdc_free(&fd->mem, ranks);
		if (rc == 0) {
			fd->order = order;
			mark_merged(fd, nr);
		}
	}
	if (rc < 0)
		return rc;
	fd->order = order;
	fd->nr_order = nr;
	count_lines(fd);
	fd->finished = true;
	return 0;
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

/* Add end's counts to line. */
static void count_line(const struct pda_fold *fd, struct pda_fold_line *line,
		       uint32_t node)
{
	const struct pda_stacktree_count *c =
		pda_stacktree_count(&fd->tree, fd->tree.nodes[node].end);

	line->weight += c->weight;
	line->samples += c->samples;
	line->period += c->period;
}

/*
 * Every line, spelled out of the tree for pda_fold_line() (the outputs
 * take the profile, which needs none of this: only the API's callers pay
 * for the lines).  @return 0 or PD_ERR_NOMEM.
 */
static int make_lines(struct pda_fold *fd)
{
	struct pda_fold_line *lines =
		pdc_zalloc(&fd->mem, (fd->nr_lines + 1) * sizeof(*lines));
	struct pda_fold_line *l = NULL;

	if (!lines)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < fd->nr_order; i++) {
		const uint32_t node = fd->order[i] & ~ORDER_MERGED;
		const struct pda_fold_frame **frames;
		size_t depth;

		if (!(fd->order[i] & ORDER_MERGED)) {
			l = l ? l + 1 : lines;
			depth = pda_stacktree_path(&fd->tree, node, NULL);
			frames = pdc_arena_alloc(&fd->arena, &fd->mem,
						 (depth + 1) * sizeof(*frames));
			if (!frames || grow_buf(fd, depth + 1) < 0) {
				pdc_free(&fd->mem, lines);
				return PD_ERR_NOMEM;
			}
			pda_stacktree_path(&fd->tree, node, fd->buf);
			for (size_t j = 0; j < depth; j++) {
				frames[j] = &atom_at(fd, fd->buf[j])->pub;
				l->len += frames[j]->len + (j > 0);
			}
			l->nr_frames = depth;
			l->frames = frames;
		}
		count_line(fd, l, node);
	}
	fd->lines = lines;
	return 0;
}

/* A threaded fold's sorter joined, for the callers that need every
 * line (fd is const to them, not to itself).  @return 0 or its error. */
static int all_sorted(const struct pda_fold *fd)
{
	return sorter_join((struct pda_fold *)(uintptr_t)fd);
}

size_t pda_fold_nr_lines(const struct pda_fold *fd)
{
	return all_sorted(fd) < 0 ? 0 : fd->nr_lines;
}

const struct pda_fold_line *pda_fold_line(const struct pda_fold *fd, size_t i)
{
	/* the lines and their text are a cache of the tree: made now, in
	 * the fold's own memory (fd is const to the caller, not to itself) */
	struct pda_fold *self = (struct pda_fold *)(uintptr_t)fd;
	struct pda_fold_line *l;

	if (all_sorted(fd) < 0 || i >= fd->nr_lines ||
	    (!fd->lines && make_lines(self) < 0))
		return NULL;
	l = &fd->lines[i];
	if (!l->stack && render_text(self, l) < 0)
		return NULL;
	return l;
}

const struct pda_fold_totals *pda_fold_totals(const struct pda_fold *fd)
{
	/* a failed sort was reported where the lines were asked for */
	(void)all_sorted(fd);
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
	uint32_t *stack_of; /* by node: its stack in p, 0 not made yet */
	uint32_t *path;	    /* nodes whose stacks are being made */
	size_t alloc_path;
	bool rooted;	    /* a frame at the root is a root */
};

/*
 * Node's stack in the profile, made with its callers' where they are
 * new.  The lines come in order and each makes the stacks it is the
 * first to pass through, so the profile's stacks come in the order the
 * lines meet them; each is appended without a lookup, as no two nodes
 * are one (prefix, location): a location is an atom's, as a root or
 * not.  @return 0 or a negative pd_err.
 */
static int node_stack(const struct pda_fold *fd, struct to_profile *tp,
		      uint32_t node, uint32_t *id)
{
	const struct pda_stacktree_node *nodes = fd->tree.nodes;
	uint32_t n = node, stack;
	size_t nr = 0;

	for (; n && !tp->stack_of[n]; n = nodes[n].parent) {
		if (PDC_GROW(&fd->mem, tp->path, tp->alloc_path, nr + 1,
			     MAX_FRAMES + 1) < 0)
			return PD_ERR_NOMEM;
		tp->path[nr++] = n;
	}
	stack = n ? tp->stack_of[n] : 0;
	while (nr > 0) {
		uint32_t loc;
		int rc;

		n = tp->path[--nr];
		rc = atom_loc(tp->p, atom_at(fd, nodes[n].frame),
			      tp->rooted && nodes[n].parent == 0, &loc);
		if (rc == 0)
			rc = pda_profile_append_stack(tp->p, stack, loc, &stack);
		if (rc < 0)
			return rc;
		tp->stack_of[n] = stack;
	}
	*id = stack;
	return 0;
}

/* Add the line that starts at order[*i] (its merged ones with it), and
 * step *i past it.  @return 0 or a negative pd_err. */
static int profile_line(const struct pda_fold *fd, struct to_profile *tp,
			size_t *i)
{
	const uint32_t node = fd->order[*i];
	struct pda_fold_line l = {0};
	uint64_t values[PDA_FOLD_NR_COLUMNS];
	uint32_t stack;
	int rc;

	count_line(fd, &l, node);
	for (++*i; *i < fd->nr_order && (fd->order[*i] & ORDER_MERGED); ++*i)
		count_line(fd, &l, fd->order[*i] & ~ORDER_MERGED);
	rc = node_stack(fd, tp, node, &stack);
	if (rc < 0)
		return rc;
	values[PDA_FOLD_COL_WEIGHT] = l.weight;
	values[PDA_FOLD_COL_SAMPLES] = l.samples;
	values[PDA_FOLD_COL_PERIOD] = l.period;
	return pda_profile_add_sample(tp->p, stack, values);
}

/*
 * Lines fetched ahead (pda_fold_profile): a line's node is anywhere in
 * the tree (nodes are numbered as stacks came, lines come sorted), so
 * its node and its count are cache misses, most of this walk's time.
 * First the node and its stack PROFILE_AHEAD lines ahead, then, half
 * that ahead, its count and its parent.  Only lines the sorter finished
 * are read.  (In the loop itself: gcc drops a helper doing only
 * prefetches as a call without effect.)
 */
#define PROFILE_AHEAD 16

int pda_fold_profile(struct pda_fold *fd, struct pda_profile **out)
{
	PDA_PROFILE_OPTS(po, .nr_columns = PDA_FOLD_NR_COLUMNS,
			 .alloc = &fd->mem);
	struct to_profile tp = {.rooted = !(fd->flags & PDA_FOLD_NO_COMM)};
	const struct pda_stacktree_node *nodes = fd->tree.nodes;
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
	/* a stack per node at most, a row per line */
	if (rc == 0)
		rc = pda_profile_reserve(p, fd->tree.nr_nodes, fd->nr_order);
	tp.p = p;
	tp.stack_of = pdc_zalloc(&fd->mem, (fd->tree.nr_nodes + 1) *
						   sizeof(*tp.stack_of));
	if (rc == 0 && !tp.stack_of)
		rc = PD_ERR_NOMEM;
	/* a threaded fold's order comes as the sorter makes it: a line is
	 * made once the entry after it (its merged one) is final too */
	for (size_t i = 0, ready = 0; rc == 0 && i < fd->nr_order;) {
		const size_t need = i + 2 < fd->nr_order ? i + 2 : fd->nr_order;
		const size_t ahead = i + PROFILE_AHEAD + 1 < fd->nr_order
					     ? i + PROFILE_AHEAD + 1
					     : fd->nr_order;

		/* asked again while the lines to fetch are not known final,
		 * waiting only for the ones needed now */
		if (ready < ahead)
			rc = sorter_wait(fd, need, &ready);
		if (rc == 0 && i + PROFILE_AHEAD < ready) {
			const uint32_t n = fd->order[i + PROFILE_AHEAD] &
					   ~ORDER_MERGED;

			__builtin_prefetch(&nodes[n]);
			__builtin_prefetch(&tp.stack_of[n]);
		}
		if (rc == 0 && i + PROFILE_AHEAD / 2 < ready) {
			const uint32_t n = fd->order[i + PROFILE_AHEAD / 2] &
					   ~ORDER_MERGED;

			__builtin_prefetch(
				pda_stacktree_count(&fd->tree, nodes[n].end));
			__builtin_prefetch(&nodes[nodes[n].parent]);
			__builtin_prefetch(&tp.stack_of[nodes[n].parent]);
		}
		if (rc == 0)
			rc = profile_line(fd, &tp, &i);
	}
	if (rc == 0)
		rc = sorter_join(fd);
	pdc_free(&fd->mem, tp.stack_of);
	pdc_free(&fd->mem, tp.path);
	if (rc < 0) {
		pda_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}
