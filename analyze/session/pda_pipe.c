/*
 * pda_pipe.c - the sample pipeline (pda_pipe.h): the record loop of the
 * commands, which unwinds DWARF stacks on several threads and hands the
 * samples back in order.
 *
 * With one job, a record is applied (pda_session_feed) and a wanted
 * sample resolved and handed back at once.  With more, a wanted sample
 * whose user stack needs unwinding (pda_sample_unwinds), and every sample
 * after it while any is under way, goes into a batch: as it is when the
 * record stays in the file's mapping (PD_RECF_STABLE), else copied (the
 * reader delivers such records in place, only until the next one) and
 * decoded again from the copy; its unwind is prepped there
 * (pda_unwind_prep: the arch, the process's state).  A full batch is
 * submitted: the worker threads (slots 1..jobs-1) and, when it has
 * nothing else to do, this thread (slot 0) take its samples a few at a
 * time and run their unwinds (pda_unwind_run); a worker with nothing to
 * unwind maps the capture's next pages for the reader.  Up to NR_BATCHES
 * batches are under way; when the ring is full this thread helps with
 * the oldest, waits for it, and delivers it: each sample's stack resolved
 * (pda_sample_stack_job, which finishes the unwind: what could not run on
 * a worker, for a binary not loaded yet, runs again here, and the
 * statistics are counted in order) and handed back.  A record that
 * changes threads or comms first drains the pipeline (every batch
 * delivered), so that each sample sees the comm of its own time; maps are
 * frozen instead (below).
 *
 * Frozen maps: a process's MMAP (perf writes one for every data mapping
 * of a `--call-graph dwarf` capture) does not drain the pipeline.  Each
 * queued sample keeps its process's maps frozen as they were
 * (pda_maps_freeze: the live maps copy their array before they next
 * change); its unwind runs in them, each thread's backend state learning
 * of changed maps on its own thread (pda_unwind_run), and its stack is
 * resolved in them when they changed since, else in the live ones.  The
 * other records that change the machine (COMM, FORK, EXIT, kernel MMAPs,
 * KSYMBOL) still drain: they are rare.
 *
 * Two passes (pda_capture.c): the sideband was applied before the first
 * sample, with history; pda_pipe_feed_sample() gives each sample its
 * state (pda_machine_at: its maps, the kernel's and its comm at its
 * epoch), which an item holds until it is delivered.  The live state
 * no longer changes: nothing drains, nothing is frozen.
 *
 * Lock order: pipe->mu is never held while the session's lock is taken
 * by this thread, and workers take the session's lock only inside the
 * services the backends use (pda_unwind_int.h, Threads).
 */
#include "pda_unwind_int.h"
#include "pda_pipe.h"
#include "pda_readgroup.h"
#include "pda_stack_int.h"
#include "pdc_hash.h"
#include "pdc_arena.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
/* XXH3 inlined: the memo key's head is hashed at a length known here,
 * and both hashes run on every memoizable sample (libxxhash's calls
 * went through its dispatch for each) */
#define XXH_INLINE_ALL
#define XXH_STATIC_LINKING_ONLY /* XXH3_128bits_withSecretandSeed */
#include <xxhash.h>

#define NR_BATCHES 4		      /* batches under way at most */
#define BATCH_BYTES ((size_t)4 << 20) /* record copies and ips of one */
/*
 * Stable records a batch refers to, at most: the reader hands the
 * mapping's pages back 4 MB behind the record it reads (release_behind in
 * reader/pd_reader.c), and a page handed back that is touched again is
 * read from the file again (and stays: resident memory grows); the
 * NR_BATCHES of these (2 MB) and the ordering queue's rounds stay inside
 * those 4 MB on the captures measured (bench/unwind.sh: page faults with
 * -j 2 within 5% of -j 1's).
 */
#define BATCH_HELD ((size_t)512 << 10)

/*
 * The memo (pda_pipe_opts.memo): a sample whose stack follows from its
 * callchain (or its ip) and its process's maps alone is keyed by two
 * 128-bit XXH3 hashes XORed, seeded at random for each pipeline (two
 * seeds, so that neither part can stand for the other), one of its pid,
 * comm, tid (memo_tid, or the thread has no comm), cpumode, the generations of its process's maps
 * and of the kernel's (unique in the session: pda_maps_bump) and its ip,
 * one of its callchain, read where the record holds it (copying both
 * into one buffer cost more than the second hash).  A key names its
 * stack: two different ones meet with a chance of about n^2 / 2^129 for
 * n keys, below 10^-25 for the capture of ten million distinct stacks
 * no machine holds, and the seed keeps a capture from being made to
 * collide.  The first sample of a key is
 * resolved, recording what it counted (pda_sample_stack_rec); the entry
 * keeps that and the callback's cookie, and the samples after it cost a
 * hash and a probe.
 *
 * The memo is a cache of at most memo_max entries (pda_pipe_opts), not a
 * table of every key, so that its memory does not grow with the capture
 * (issue 14): a shard of a longer capture meets more of its keys (each
 * of fold -j2's two on the bench's fold10 capture met all 137,702 keys,
 * on fold, ten times smaller, 76,277 and 78,609).  A key replaced is
 * resolved again when it comes back, as the first sample of a key is
 * (about 4,000 instructions), and the callback finds what it made of the
 * stack then (fold: its shared tree, looked up without a lock).
 */
/* the index starts at this many sets and doubles up to the bound */
#define MEMO_SETS_MIN ((size_t)512)

/*
 * What samples of an entry count again (pda_memo_replay), interned: a
 * stack's depth and binaries repeat across most of a capture's stacks,
 * so the entries (hundreds of thousands) share a few hundred of these.
 */
struct memo_counts {
	struct pda_memo_counts c;
	struct pda_dso_ent *dsos[];	/* c.nr_dsos + c.nr_unres */
};

/* 32 bytes: two make a set, one cache line. */
struct memo_ent {
	XXH128_hash_t key;
	uint64_t cookie;		/* the callback's; 0 none yet */
	const struct memo_counts *counts; /* NULL: the way is empty */
};

/*
 * The memo's index: sets of two ways, a set one 64-byte line, and two
 * sets for a key (by the low and by the high half of its hash), so that
 * a probe is one or two cache misses fetched at once (a slot table and
 * entries apart were two, one after the other).  A key goes where a set
 * has room; with two choices of two ways few keys find none before 3/4
 * of the entries are used: fold -j1 on the bench's fold10 capture (its
 * 137,702 keys in 262,144 entries) resolved 155,455 keys, with one set
 * of four ways 314,653, of two 472,855 (keys that share a full set
 * replace each other over and over).  Way 0 holds a set's key used
 * last: a hit in way 1 swaps the two.
 */
#define MEMO_WAYS 2
struct memo_set {
	struct memo_ent way[MEMO_WAYS];
};

/* What a memo key is hashed from, before the callchain's bytes. */
struct memo_head {
	uint64_t ugen, kgen;
	uint64_t ip;
	uint64_t comm;			/* its interned pointer */
	uint64_t later;			/* pda_at.comm_later's */
	uint32_t pid, tid;
	uint32_t cpumode;
	uint32_t nr;			/* callchain entries; 0 none */
};
/*
 * The memo keys of the last samples without a callchain, by their head
 * (direct-mapped by ip): a trace's synthesized samples (pda_itrace.h)
 * come from a few ips, a loop's, not in a row, and their key's XXH3 was
 * a third of their memo's cost.  A hit is the key hashing gives.
 */
#define NR_KNOWN 64
struct memo_known {
	struct memo_head h;
	XXH128_hash_t key;
	bool used;
};
#define AHEAD ((uintptr_t)2 << 20) /* bytes an idle worker maps ahead */
#define BATCH_ITEMS 512		   /* samples in one, at most */
#define CHUNK 4			   /* samples a thread takes at once */

struct item {
	struct pd_sample sample; /* decoded from the batch's copy */
	bool unwind;		 /* uj is set up */
	struct pda_unwind_job uj;
	struct pda_maps_snap *snap; /* its process's maps then, or NULL */
	bool has_at;		    /* at is its state (two passes) */
	struct pda_at at;
	struct pda_pipe_when when;  /* with has_at */
};

/*
 * Invariants: items[0..nr) point into buf[0..used); under pipe->mu, a
 * submitted batch's items [0..next) are taken and nr_done of them are
 * done; next == nr_done == nr when it is complete.
 */
struct batch {
	unsigned char *buf;
	size_t used;
	size_t held; /* bytes of the stable records it refers to */
	struct item *items;
	size_t nr;
	bool submitted;
	size_t next, nr_done;
	uint64_t end_seq; /* the items before it are in this or an older
			   * batch */
};

struct worker {
	struct pda_pipe *p;
	unsigned slot;
	pthread_t thread;
	uint64_t nr_run, nr_waits; /* unwinds run, waits for work */
};

/*
 * The resolver (pda_pipe_opts.resolve_apart): in the second pass of a
 * run that unwound first, the caller's thread reads and decodes the
 * samples and runs the callback; resolving their stacks (their state at
 * their epoch, the spooled ips, the names: the second pass's largest
 * part) runs on worker slot 1, in order, RES_RING samples ahead at most.
 * The session is the resolver's alone while it runs: the caller's thread
 * touches it again only once every sample fed is delivered (res_drain),
 * or while the resolver waits after a sample whose delivery may (a
 * barrier: a stack that did not resolve, whose message the callback
 * reads from the session; a read group or a branch stack, which the
 * callback resolves further).  Only samples whose record stays mapped
 * are queued (RES_HELD bytes of them at most, inside the reader's
 * release step); any other drains the queue and goes the usual way.
 */
#define RES_RING 64
#define RES_HELD (NR_BATCHES * BATCH_HELD) /* the batches' room */
/* samples queued before the resolver is woken, resolved before this
 * thread is: a wake-up a sample cost more than resolving it */
#define RES_WAKE 16

struct res_item {
	struct pd_sample sample;
	struct pda_pipe_when when;
	size_t bytes;		/* its record's */
	/* the resolver's: */
	struct pda_pipe_item it;
	/* its unwind read from the spool on the caller's thread (which has
	 * the time for it); unspool_rc < 0 when that failed */
	bool spooled;
	int unspool_rc;
	struct pda_unwound u;
	uint64_t *ips;
	size_t ips_alloc;
	struct pda_stack st, ip_st;
	int rc;			/* < 0: resolving failed (not err) */
	bool barrier;		/* the resolver waits for its delivery */
};

/* A sample held back (hold()): its record stays mapped. */
struct held {
	struct pd_sample sample;
	struct pda_at at;
	struct pda_pipe_when when;
	XXH128_hash_t key;
};
#define NR_HELD 2

struct pda_pipe {
	struct pda_session *s;
	/* what resolving its samples changes: opts.view, or the
	 * session's */
	struct pda_view *v;
	struct pda_pipe_opts o;
	unsigned jobs;
	size_t batch_items; /* samples in a batch, at most */
	size_t max_frames;
	struct pda_stack st;
	struct pda_stack ip_st; /* an item's ip_leaf (ip_leaf) */
	/* the ring: batches [first, first + nr_used) mod NR_BATCHES are in
	 * use, oldest first; the last is being filled unless submitted */
	struct batch b[NR_BATCHES];
	size_t first, nr_used;
	bool threaded;		/* the workers run (s->mt.on) */
	struct worker *workers; /* jobs - 1 */
	unsigned nr_workers;	/* started */
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	/* under mu: counts the broadcasts of work, so that a worker that
	 * dropped mu while it looked for work (loading ahead, unwinding,
	 * populating) does not sleep through one */
	uint64_t work_gen;
	bool quit;
	bool finished;		/* pda_pipe_finish() ran: no more input */
	/* under mu: just past the last stable record queued, and how far
	 * the capture's mapping was populated ahead of it */
	uintptr_t ahead_from, populated;
	uintptr_t last_stable;	     /* this thread's: the last one queued */
	uint64_t nr_run, nr_batches; /* unwinds run here, batches */
	uint64_t seq;		     /* items queued so far */
	struct pda_maps_snap *snaps; /* frozen maps items use */
	/* the memo: entries by key, and their interned counts */
	struct memo_set *memo_sets;	/* 64-byte aligned in memo_mem */
	void *memo_mem;
	size_t memo_mask;		/* sets in use - 1 (a power of two) */
	size_t nr_memo;			/* entries held */
	size_t memo_max_sets;		/* the bound (opts.memo_max) */
	uint64_t nr_memo_added, nr_memo_dropped;
	struct pdc_hash memo_counts;	/* struct memo_counts */
	struct pdc_arena memo_arena;	/* what memo_counts holds */
	uint64_t memo_seed;
	/* the callchain's secret, made from ~memo_seed once: XXH3 with a
	 * seed alone makes it again for every input past 240 bytes */
	unsigned char memo_secret[XXH3_SECRET_DEFAULT_SIZE];
	struct pda_memo_rec rec;
	uint64_t nr_memo_hits;
	struct memo_known known[NR_KNOWN];
	struct held held[NR_HELD]; /* a ring: nr_held from held_first */
	unsigned held_first, nr_held;
	/* the unwind pass (pda_pipe_unwind_pass) */
	enum { RESOLVE, UNWIND, SPOOLED } mode;
	/* the samples the one being fed stands for
	 * (pda_pipe_feed_decoded_n): 1 but there */
	uint64_t count;
	FILE *spool;
	uint64_t *spool_ips;
	size_t spool_alloc;
	unsigned char *spool_buf; /* a sample's encoded ips */
	size_t spool_buf_alloc;
	char *spool_io; /* stdio's buffer for spool (SPOOL_BUF), or NULL */
	uint64_t nr_spooled;
	bool ahead; /* workers load DWARF ahead (pda_first_ahead) */
	/* the resolver: samples [res_out, res_fed) are queued, of them
	 * [res_out, res_done) resolved (under mu); res_held is the caller's
	 * thread's */
	bool res_on;
	bool res_busy; /* the resolver is resolving one (under mu) */
	/* under mu: this thread waits for res_done to reach res_want */
	bool res_waiting;
	uint64_t res_want;
	struct res_item *res;
	uint64_t res_fed, res_done, res_out;
	size_t res_held;
};

int pda_pipe_new(struct pda_session *s, const struct pda_pipe_opts *opts,
		 struct pda_pipe **out)
{
	struct pda_pipe_opts o;
	struct pda_pipe *p;
	long cpus;

	*out = NULL;
	if (!s || !opts || pdc_opts_copy(&o, sizeof(o), opts) < 0 || !o.fn)
		return PD_ERR_API;
	p = pda_zalloc(s, sizeof(*p));
	if (!p)
		return PD_ERR_NOMEM;
	p->s = s;
	p->v = o.view ? o.view : &s->view;
	p->o = o;
	/* a leaf-only stack is the ip's, whatever the sample carries */
	if (p->o.leaf_only)
		p->o.ip_stacks = true;
	p->jobs = p->o.jobs;
	if (!p->jobs) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		p->jobs = cpus > 0 ? (unsigned)cpus : 1;
	}
	if (p->jobs > PDA_PIPE_MAX_JOBS)
		p->jobs = PDA_PIPE_MAX_JOBS;
	if (p->o.no_stack)
		p->jobs = 1;
	p->batch_items = p->o.batch && p->o.batch < BATCH_ITEMS ? p->o.batch
								: BATCH_ITEMS;
	/* a seed no capture can know; time only where getrandom fails */
	if (getrandom(&p->memo_seed, sizeof(p->memo_seed), GRND_NONBLOCK) !=
	    sizeof(p->memo_seed))
		p->memo_seed = (uint64_t)time(NULL) ^ (uintptr_t)p;
	XXH3_generateSecret_fromSeed(p->memo_secret, ~p->memo_seed);
	pda_pipe_memo_max(p, p->o.memo_max);
	p->max_frames = pda_unwind_max_frames(s);
	p->count = 1;
	*out = p;
	return 0;
}

void pda_pipe_memo_max(struct pda_pipe *p, size_t max)
{
	size_t sets = 1;

	/* its sets are made once, for the bound then */
	if (p->memo_mem)
		return;
	if (!max)
		max = PDA_PIPE_MEMO_MAX;
	/* sets + 1 of 64 bytes are allocated: no further than that fits */
	while (sets * MEMO_WAYS < max && sets < SIZE_MAX / 256)
		sets *= 2;
	p->memo_max_sets = sets;
}

unsigned pda_pipe_jobs(const struct pda_pipe *p)
{
	return p->jobs;
}

/* ---- the workers ---------------------------------------------------- */

/* The oldest submitted batch with samples not taken, or NULL.  Under mu. */
static struct batch *claimable(struct pda_pipe *p)
{
	for (size_t i = 0; i < p->nr_used; i++) {
		struct batch *b = &p->b[(p->first + i) % NR_BATCHES];

		if (!b->submitted)
			break;
		if (b->next < b->nr)
			return b;
	}
	return NULL;
}

/* Run items [from, to) of b on slot.  Their errors stay in the jobs:
 * finishing on the session's thread redoes or reports them. */
static uint64_t run_items(struct pda_pipe *p, struct batch *b, size_t from,
			  size_t to, unsigned slot)
{
	uint64_t nr = 0;

	for (size_t i = from; i < to; i++) {
		struct item *it = &b->items[i];

		if (it->unwind && it->uj.prepped && it->uj.proc) {
			pda_unwind_run(p->s, p->s->unwinder, &it->uj, slot);
			nr++;
		}
	}
	return nr;
}

/* Take a chunk of b (NULL: any batch) and run it, counting its unwinds
 * in *nr_run; false when there was none.  Called with mu held, returns
 * with it held. */
static bool take_and_run(struct pda_pipe *p, struct batch *b, unsigned slot,
			 uint64_t *nr_run)
{
	size_t from, to;
	uint64_t nr;

	if (!b)
		b = claimable(p);
	if (!b || !b->submitted || b->next >= b->nr)
		return false;
	from = b->next;
	to = from + CHUNK < b->nr ? from + CHUNK : b->nr;
	b->next = to;
	pthread_mutex_unlock(&p->mu);
	nr = run_items(p, b, from, to, slot);
	pthread_mutex_lock(&p->mu);
	*nr_run += nr;
	b->nr_done += to - from;
	if (b->nr_done == b->nr)
		pthread_cond_broadcast(&p->done);
	return true;
}

/*
 * The reader's time goes mostly into faulting the capture's mapping in,
 * page by page: with nothing to unwind, map the pages ahead of the last
 * stable record queued (MADV_POPULATE_READ, Linux 5.14; an error, such
 * as a range past the mapping's end, costs nothing).  Called with mu
 * held, returns with it held; false when there is nothing to do.
 */
static bool populate_ahead(struct pda_pipe *p)
{
	/* madvise wants whole pages: 64 KB on many arm64 kernels */
	const uintptr_t pm = (uintptr_t)sysconf(_SC_PAGESIZE) - 1;
	uintptr_t from =
		p->populated > p->ahead_from ? p->populated : p->ahead_from;
	uintptr_t to = (p->ahead_from + AHEAD) & ~pm;

	from &= ~pm;
	if (!p->ahead_from || to <= from)
		return false;
	p->populated = to;
#ifdef MADV_POPULATE_READ
	pthread_mutex_unlock(&p->mu);
	madvise((void *)from, to - from, MADV_POPULATE_READ);
	pthread_mutex_lock(&p->mu);
#endif
	return true;
}

/*
 * The unwind pass's DWARF loading for the replay (pda_first_ahead),
 * first: only a worker can do it there, while this thread helps with
 * the unwinds.  Called with mu held, returns with it held; false when
 * there is nothing to load.
 */
static bool load_ahead(struct pda_pipe *p)
{
	bool did;

	if (!p->ahead)
		return false;
	pthread_mutex_unlock(&p->mu);
	did = pda_first_ahead(p->s);
	pthread_mutex_lock(&p->mu);
	return did;
}

/* Wake the workers (mu held): counted, so that one that had dropped mu
 * while looking for work sees it (worker_main). */
static void wake_workers(struct pda_pipe *p)
{
	p->work_gen++;
	pthread_cond_broadcast(&p->work);
}

static void resolve_item(struct pda_pipe *p, struct res_item *r);

/* The resolver's next sample (slot 1), resolved.  Called with mu held,
 * returns with it held; false when there is none, or the last one
 * resolved is a barrier not delivered yet. */
static bool resolve_next(struct pda_pipe *p, unsigned slot)
{
	struct res_item *r;

	if (slot != 1 || !p->res_on || p->res_done == p->res_fed)
		return false;
	if (p->res_done > p->res_out &&
	    p->res[(p->res_done - 1) % RES_RING].barrier)
		return false;
	r = &p->res[p->res_done % RES_RING];
	p->res_busy = true;
	pthread_mutex_unlock(&p->mu);
	resolve_item(p, r);
	pthread_mutex_lock(&p->mu);
	p->res_busy = false;
	p->res_done++;
	if (p->res_waiting && (p->res_done >= p->res_want || r->barrier))
		pthread_cond_broadcast(&p->done);
	return true;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pda_pipe *p = w->p;

	pthread_mutex_lock(&p->mu);
	while (!p->quit) {
		const uint64_t gen = p->work_gen;

		/* each of these may drop mu: wait only if no broadcast
		 * (new batch, quit) came meanwhile */
		if (!resolve_next(p, w->slot) && !load_ahead(p) &&
		    !take_and_run(p, NULL, w->slot, &w->nr_run) &&
		    !populate_ahead(p) && gen == p->work_gen) {
			w->nr_waits++;
			pthread_cond_wait(&p->work, &p->mu);
		}
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void stop_workers(struct pda_pipe *p)
{
	if (!p->nr_workers)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	wake_workers(p);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < p->nr_workers; i++)
		pthread_join(p->workers[i].thread, NULL);
	p->nr_workers = 0;
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
}

/* Start the workers and the batches.  0 or NOMEM; on a thread that will
 * not start, fewer run (none: one job, sample by sample). */
static int start(struct pda_pipe *p)
{
	struct pda_session *s = p->s;
	int rc;

	for (size_t i = 0; i < NR_BATCHES; i++) {
		p->b[i].buf = pda_malloc(s, BATCH_BYTES);
		p->b[i].items =
			pda_malloc(s, BATCH_ITEMS * sizeof(struct item));
		if (!p->b[i].buf || !p->b[i].items)
			return PD_ERR_NOMEM;
	}
	p->workers = pda_zalloc(s, (p->jobs - 1) * sizeof(*p->workers));
	if (!p->workers)
		return PD_ERR_NOMEM;
	rc = pda_unwind_set_slots(s, s->unwinder, p->jobs);
	if (rc < 0)
		return rc;
	if (pthread_mutex_init(&p->mu, NULL) != 0)
		return PD_ERR_NOMEM;
	if (pthread_cond_init(&p->work, NULL) != 0) {
		pthread_mutex_destroy(&p->mu);
		return PD_ERR_NOMEM;
	}
	if (pthread_cond_init(&p->done, NULL) != 0) {
		pthread_cond_destroy(&p->work);
		pthread_mutex_destroy(&p->mu);
		return PD_ERR_NOMEM;
	}
	pda_session_threads(s, true);
	for (unsigned i = 0; i + 1 < p->jobs; i++) {
		struct worker *w = &p->workers[i];

		w->p = p;
		w->slot = i + 1;
		if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
			break;
		p->nr_workers++;
	}
	if (!p->nr_workers) {
		pda_session_threads(s, false);
		pthread_cond_destroy(&p->work);
		pthread_cond_destroy(&p->done);
		pthread_mutex_destroy(&p->mu);
		pda_logf(s, PD_LOG_INFO, "no thread started: unwinding on one");
		p->jobs = 1;
		return 0;
	}
	p->threaded = true;
	return 0;
}

/* Free the frozen maps that no item from seq on uses. */
static void release_snaps(struct pda_pipe *p, uint64_t seq)
{
	struct pda_maps_snap **pp = &p->snaps;

	while (*pp) {
		struct pda_maps_snap *snap = *pp;

		if (snap->last_use >= seq) {
			pp = &snap->next;
			continue;
		}
		*pp = snap->next;
		pda_maps_snap_free(p->s, snap);
	}
}

static void held_drop(struct pda_pipe *p);

void pda_pipe_free(struct pda_pipe *p)
{
	struct pda_session *s;
	unsigned nr_workers;

	if (!p)
		return;
	s = p->s;
	nr_workers = p->nr_workers;
	stop_workers(p);
	held_drop(p);
	for (unsigned i = 0; i < nr_workers; i++)
		pda_logf(s, PD_LOG_DEBUG,
			 "pipe: thread %u unwound %llu samples, waited %llu "
			 "times",
			 p->workers[i].slot,
			 (unsigned long long)p->workers[i].nr_run,
			 (unsigned long long)p->workers[i].nr_waits);
	if (p->threaded)
		pda_logf(s, PD_LOG_DEBUG,
			 "pipe: %llu batches; this thread unwound %llu samples",
			 (unsigned long long)p->nr_batches,
			 (unsigned long long)p->nr_run);
	if (p->threaded) {
		pda_session_threads(s, false);
		pda_unwind_hold(s, s->unwinder, false);
	}
	for (size_t i = 0; i < NR_BATCHES; i++) {
		pda_free(s, p->b[i].buf);
		pda_free(s, p->b[i].items);
	}
	release_snaps(p, UINT64_MAX);
	if (p->res) {
		pda_logf(s, PD_LOG_DEBUG,
			 "pipe: %llu samples resolved by the resolver",
			 (unsigned long long)p->res_done);
		for (size_t i = 0; i < RES_RING; i++) {
			pda_free(s, p->res[i].ips);
			pda_stack_release(s, &p->res[i].st);
			pda_stack_release(s, &p->res[i].ip_st);
		}
		pda_free(s, p->res);
	}
	if (p->o.memo)
		pda_logf(s, PD_LOG_DEBUG,
			 "pipe: memo: %llu stacks (%zu kept at most, %llu "
			 "replaced), %llu samples counted from it",
			 (unsigned long long)p->nr_memo_added,
			 p->memo_max_sets * MEMO_WAYS,
			 (unsigned long long)p->nr_memo_dropped,
			 (unsigned long long)p->nr_memo_hits);
	pda_free(s, p->memo_mem);
	pdc_hash_release(&s->alloc, &p->memo_counts);
	pdc_arena_release(&p->memo_arena, &s->alloc);
	if (p->spool)
		fclose(p->spool);
	pda_free(s, p->spool_io);
	pda_free(s, p->spool_ips);
	pda_free(s, p->spool_buf);
	pda_free(s, p->workers);
	pda_stack_release(s, &p->st);
	pda_stack_release(s, &p->ip_st);
	pda_free(s, p);
}

/* ---- delivering ----------------------------------------------------- */

/* With leaf_only, the callchain and the user stack are dropped where
 * sample is decoded: it is resolved and memo-keyed as a sample without
 * them, never unwound; its other fields stay for the callback. */
static void leaf_only(const struct pda_pipe *p, struct pd_sample *sample)
{
	if (p->o.leaf_only)
		sample->mask &= ~(PD_SAMPLE_CALLCHAIN | PD_SAMPLE_STACK_USER);
}

/* Whether sample's stack is resolved: its callchain, or with
 * ip_stacks, its ip as the one frame of a sample without one. */
static bool has_stack(const struct pda_pipe *p, const struct pd_sample *sample)
{
	return !p->o.no_stack &&
	       ((sample->mask & PD_SAMPLE_CALLCHAIN) || p->o.ip_stacks);
}

/* Whether sample's stack follows from its callchain or ip and the maps
 * alone: what a memo key covers. */
static bool memo_ok(const struct pda_pipe *p, const struct pd_sample *sample)
{
	/* user registers: an arm64 -g leaf's caller comes from its LR */
	const uint64_t more = PD_SAMPLE_STACK_USER | PD_SAMPLE_REGS_USER |
			      PD_SAMPLE_BRANCH_STACK;

	/* an ip alone (leaf_only) is resolved from the maps alone */
	return p->o.memo && (p->o.leaf_only || !(sample->mask & more));
}

static bool counts_eq(const void *item, const void *key)
{
	const struct memo_counts *x = item, *y = key;

	return x->c.nr_frames == y->c.nr_frames &&
	       x->c.nr_frames_unresolved == y->c.nr_frames_unresolved &&
	       x->c.unresolved == y->c.unresolved &&
	       x->c.nr_dsos == y->c.nr_dsos && x->c.nr_unres == y->c.nr_unres &&
	       memcmp(x->dsos, y->dsos,
		      (x->c.nr_dsos + x->c.nr_unres) * sizeof(x->dsos[0])) == 0;
}

/* Whether sample's own entry (perf's, from its addr_location) needs its
 * ip's frames apart from its stack (ip_leaf): its callchain gave no
 * frame, or its leaf's function bears DWARF's name for it where the
 * symbol table has another (a clone, an alias). */
static bool own_apart(const struct pd_sample *sample,
		      const struct pda_stack *st)
{
	size_t i = 0;

	if (!st->nr)
		return sample->mask & PD_SAMPLE_CALLCHAIN;
	while (i + 1 < st->nr && (st->frames[i].flags & PDA_FRAME_INLINED))
		i++;
	return (st->frames[i].flags & PDA_FRAME_DWARF_NAMED) &&
	       st->frames[0].ip == sample->ip;
}

/* sample's memo key, in the maps umaps (NULL: its process's live ones).
 * @return 0, or NOMEM. */
static int memo_key(struct pda_pipe *p, const struct pd_sample *sample,
		    struct pda_maps *umaps, const struct pda_at *at,
		    const char *comm, XXH128_hash_t *key)
{
	struct pda_session *s = p->s;
	struct pda_maps *um = umaps ? umaps : pda_machine_maps(s, sample->pid);
	const struct pda_maps *km = at ? at->kmaps : &s->machine.kmaps;
	const bool cc = sample->mask & PD_SAMPLE_CALLCHAIN;
	const size_t chain = cc ? (size_t)sample->callchain.nr * 8 : 0;
	struct memo_head h;

	if (!um)
		return PD_ERR_NOMEM;
	memset(&h, 0, sizeof(h));
	h.ugen = um->gen;
	h.kgen = km->gen;
	/* with ip_leaf the ip matters too (a chain may give no frame) */
	h.ip = cc && !p->o.ip_leaf ? 0 : sample->ip;
	h.comm = (uintptr_t)comm;
	/* a thread without a comm has a name of its own: the one it takes
	 * later (at's comm_later, per epoch), else ":TID" */
	h.later = at ? (uintptr_t)at->comm_later : 0;
	h.pid = sample->pid;
	h.tid = p->o.memo_tid || !comm || !*comm ? sample->tid : 0;
	h.cpumode = cc && !p->o.ip_leaf ? 0
					: sample->misc & PD_MISC_CPUMODE_MASK;
	h.nr = cc ? (uint32_t)sample->callchain.nr : 0;
	if (!chain) {
		struct memo_known *k =
			&p->known[(h.ip >> 2 ^ h.ip >> 9) & (NR_KNOWN - 1)];

		if (!k->used || memcmp(&k->h, &h, sizeof(h)) != 0) {
			k->h = h;
			k->key = XXH3_128bits_withSeed(&h, sizeof(h),
						       p->memo_seed);
			k->used = true;
		}
		*key = k->key;
		return 0;
	}
	*key = XXH3_128bits_withSeed(&h, sizeof(h), p->memo_seed);
	{
		/* the same hash as XXH3_128bits_withSeed(~memo_seed) */
		const XXH128_hash_t c = XXH3_128bits_withSecretandSeed(
			sample->callchain.raw, chain, p->memo_secret,
			sizeof(p->memo_secret), ~p->memo_seed);

		key->low64 ^= c.low64;
		key->high64 ^= c.high64;
	}
	return 0;
}

/* The interned copy of what the sample just resolved counted; NULL
 * when out of memory. */
static const struct memo_counts *memo_counts(struct pda_pipe *p)
{
	const struct pda_memo_rec *r = &p->rec;
	const unsigned nr = r->nr_dsos + r->nr_unres;
	struct {
		struct memo_counts k;
		struct pda_dso_ent *dsos[2 * PDA_MEMO_MAX_DSOS];
	} q;
	struct pdc_hash_slot *slot;
	struct memo_counts *c;
	uint64_t h;

	memset(&q, 0, sizeof(q));
	q.k.c.nr_frames = (uint32_t)r->nr_frames;
	q.k.c.nr_frames_unresolved = (uint32_t)r->nr_frames_unresolved;
	q.k.c.unresolved = r->unresolved;
	q.k.c.nr_dsos = (uint8_t)r->nr_dsos;
	q.k.c.nr_unres = (uint8_t)r->nr_unres;
	memcpy(q.k.dsos, r->dsos, r->nr_dsos * sizeof(q.k.dsos[0]));
	memcpy(q.k.dsos + r->nr_dsos, r->unres,
	       r->nr_unres * sizeof(q.k.dsos[0]));
	h = XXH3_64bits(&q, sizeof(q.k) + nr * sizeof(q.k.dsos[0]));
	if (pdc_hash_reserve(&p->s->alloc, &p->memo_counts) < 0)
		return NULL;
	slot = pdc_hash_probe(&p->memo_counts, h, counts_eq, &q.k);
	if (slot->item)
		return slot->item;
	c = pdc_arena_alloc(&p->memo_arena, &p->s->alloc,
			    sizeof(*c) + nr * sizeof(c->dsos[0]));
	if (!c)
		return NULL;
	memcpy(c, &q, sizeof(*c) + nr * sizeof(c->dsos[0]));
	pdc_hash_fill(&p->memo_counts, slot, h, c);
	return c;
}

/* Key's sets (the memo has them): its first, or its second. */
static struct memo_set *memo_set_of(const struct pda_pipe *p,
				    const XXH128_hash_t *key, bool second)
{
	return &p->memo_sets[(second ? key->high64 : key->low64) &
			     p->memo_mask];
}

/* Where key's entry goes in set: its first empty way, else the last. */
static size_t memo_free_way(const struct memo_set *set)
{
	size_t w = 0;

	while (w < MEMO_WAYS - 1 && set->way[w].counts)
		w++;
	return w;
}

/* Key's entry, moved to its set's way 0 (used last); NULL: not held. */
static struct memo_ent *memo_find(struct pda_pipe *p, XXH128_hash_t key)
{
	for (int i = 0; i < 2; i++) {
		struct memo_set *set = memo_set_of(p, &key, i);

		for (size_t w = 0; w < MEMO_WAYS && set->way[w].counts; w++)
			if (XXH128_isEqual(set->way[w].key, key)) {
				const struct memo_ent t = set->way[w];

				memmove(&set->way[1], &set->way[0],
					w * sizeof(set->way[0]));
				set->way[0] = t;
				return &set->way[0];
			}
	}
	return NULL;
}

/*
 * Room for key: the sets of the bound made at once (zeroed: the pages of
 * those never used are never touched), of which the first 512 are used
 * at first, and twice as many when both of key's are full, until all
 * are: no key is replaced before the memo reaches its bound, and none is
 * copied to a new index (old and new at once were 1.5 times the bound).
 * Set i's entries stay or go to set i + n (an entry keeps to its first or
 * second set).  With two sets of two to choose from a key finds room up
 * to about 3/4 of the entries: the memory is then the bound's for any
 * capture of more than a fraction of it in stacks.  0 or NOMEM, the memo
 * as it was.
 */
static int memo_reserve(struct pda_pipe *p, const XXH128_hash_t *key)
{
	const size_t n = p->memo_mask + 1;

	if (!p->memo_mem) {
		p->memo_mem = pda_zalloc(p->s, (p->memo_max_sets + 1) *
						       sizeof(struct memo_set));
		if (!p->memo_mem)
			return PD_ERR_NOMEM;
		p->memo_sets = (struct memo_set *)(((uintptr_t)p->memo_mem +
						    sizeof(struct memo_set) - 1) &
						   ~(uintptr_t)(sizeof(
							   struct memo_set) -
						   1));
		p->memo_mask = (p->memo_max_sets < MEMO_SETS_MIN
					? p->memo_max_sets
					: MEMO_SETS_MIN) -
			       1;
		return 0;
	}
	if (n >= p->memo_max_sets ||
	    !memo_set_of(p, key, false)->way[MEMO_WAYS - 1].counts ||
	    !memo_set_of(p, key, true)->way[MEMO_WAYS - 1].counts)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct memo_set *set = &p->memo_sets[i];
		const struct memo_set was = *set;

		memset(set, 0, sizeof(*set));
		for (size_t w = 0; w < MEMO_WAYS && was.way[w].counts; w++) {
			const struct memo_ent *e = &was.way[w];
			const bool second = (e->key.low64 & (n - 1)) != i;
			const uint64_t h = second ? e->key.high64 : e->key.low64;
			/* in order: each keeps its place */
			struct memo_set *to = set + (h & n);

			to->way[memo_free_way(to)] = *e;
		}
	}
	p->memo_mask = 2 * n - 1;
	return 0;
}

/*
 * Keep what the sample just resolved counted, under key: in an empty
 * way of its first set, else of its second, else in place of its first
 * set's last (used least recently of the two).  Not in way 0: a key met
 * once in a long while (most keys of a long capture) then replaces one
 * such key, not a key the set's samples use over and over.  NULL when
 * out of memory or the stack cannot be kept: the sample goes without a
 * slot.
 */
static struct memo_ent *memo_add(struct pda_pipe *p, XXH128_hash_t key)
{
	const struct pda_memo_rec *r = &p->rec;
	struct memo_set *set = memo_set_of(p, &key, false);
	struct memo_ent *e;

	if (r->overflow || r->nr_frames > UINT32_MAX)
		return NULL;
	if (set->way[MEMO_WAYS - 1].counts &&
	    !memo_set_of(p, &key, true)->way[MEMO_WAYS - 1].counts)
		set = memo_set_of(p, &key, true);
	e = &set->way[memo_free_way(set)];
	if (e->counts) {
		p->nr_memo_dropped++;
		p->nr_memo--;
	}
	e->counts = memo_counts(p);
	if (!e->counts)
		return NULL;
	p->nr_memo++;
	p->nr_memo_added++;
	e->key = key;
	e->cookie = 0;
	return e;
}

/*
 * A memoizable sample: counted from its memo entry when the callback
 * left a cookie there, else resolved (recording what it counts, for
 * the entry made for it).
 */
static int deliver_memo(struct pda_pipe *p, const struct pd_sample *sample,
			struct pda_maps *umaps, struct pda_pipe_item *it,
			const XXH128_hash_t *pre)
{
	struct memo_ent *e;
	XXH128_hash_t key;
	int rc = 0;

	if (pre)
		key = *pre;
	else
		rc = memo_key(p, sample, umaps, p->v->at, it->comm, &key);
	if (rc < 0)
		return pda_set_err(p->s, PD_ERR_NOMEM, "out of memory");
	/* a hit (most samples) adds no entry: room is made for a miss
	 * only (its growth check was ~20 instructions a sample) */
	e = p->memo_sets ? memo_find(p, key) : NULL;
	if (!e && memo_reserve(p, &key) < 0)
		return pda_set_err(p->s, PD_ERR_NOMEM, "out of memory");
	if (e && e->cookie) {
		rc = pda_memo_replay_n(p->v, &e->counts->c, e->counts->dsos,
				       p->count);
		if (rc < 0)
			return rc;
		p->nr_memo_hits += p->count;
		it->cookie = &e->cookie;
		it->hit = true;
		return 0;
	}
	rc = pda_sample_stack_rec(p->s, p->v, sample, &p->st, umaps, &p->rec);
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0) {
		it->err = rc;
		/* each of a group fails as the first did */
		for (uint64_t i = 1; i < p->count; i++)
			if (pda_sample_stack_rec(p->s, p->v, sample, &p->st,
						 umaps, &p->rec) ==
			    PD_ERR_NOMEM)
				return PD_ERR_NOMEM;
		return 0;
	}
	it->stack = &p->st;
	/* resolving did not touch the memo: e is still key's */
	if (!e)
		e = memo_add(p, key);
	it->cookie = e ? &e->cookie : NULL;
	/* the rest of a group count as the first did (as its hits would
	 * have been, or resolved again where the memo kept nothing) */
	if (p->count > 1 && e) {
		rc = pda_memo_replay_n(p->v, &e->counts->c, e->counts->dsos,
				       p->count - 1);
		if (rc < 0)
			return rc;
		p->nr_memo_hits += p->count - 1;
	}
	for (uint64_t i = 1; i < p->count && !e; i++) {
		rc = pda_sample_stack_rec(p->s, p->v, sample, &p->st, umaps,
					  &p->rec);
		if (rc == PD_ERR_NOMEM)
			return rc;
	}
	return 0;
}

/* ---- the unwind pass ------------------------------------------------ */

static int drain(struct pda_pipe *p);
static int res_start(struct pda_pipe *p);

static int spool_failed(struct pda_pipe *p)
{
	return pda_set_err(p->s, PD_ERR_IO,
			   "the unwinds' temporary file: %s",
			   ferror(p->spool) ? "cannot write or read it"
					    : "out of step");
}

/*
 * The spool keeps a sample's unwound ips as the zigzag differences of
 * each from the ip before it (the first from 0), each a byte saying how
 * many bytes of it follow (0-8), then those bytes, low first; behind
 * their length in bytes (uint32).  A stack's frames lie in a few
 * binaries, so that a difference takes 3-4 bytes where an ip took 8
 * (writing the spool was a seventh of this thread's unwind pass on the
 * bench's DWARF capture: the kernel's copy of 8 MB).  Not LEB128: its
 * byte-by-byte decoding was 65 instructions an ip on the second pass's
 * one thread; this one is a load and a mask.
 */

/* stdio's buffer for the spool: a read(2) or write(2) moves as much */
#define SPOOL_BUF ((size_t)256 << 10)
/* an ip's bytes at most, and room past the last one: 8 bytes are
 * stored and loaded whatever the length */
#define SPOOL_IP_MAX 9
#define SPOOL_SLACK 8

/* z's bytes, little-endian, as a host word */
static inline uint64_t spool_le(uint64_t z)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap64(z);
#else
	return z;
#endif
}

/* ip after prev into out (SPOOL_IP_MAX bytes of room); its bytes. */
static size_t spool_put(unsigned char *out, uint64_t prev, uint64_t ip)
{
	const uint64_t d = ip - prev;
	const uint64_t z = (d << 1) ^ (0 - (d >> 63));
	/* its significant bytes: 0 for 0, 8 for a top bit set */
	const unsigned n = z ? (unsigned)(71 - __builtin_clzll(z)) / 8 : 0;
	const uint64_t le = spool_le(z);

	out[0] = (unsigned char)n;
	memcpy(out + 1, &le, sizeof(le));
	return 1 + n;
}

/* The unwind pass's work on a sample: its user ips unwound, kept, and
 * their addresses' first uses noted. */
static int unwind_only(struct pda_pipe *p, const struct pd_sample *sample,
		       struct pda_unwind_job *uj, struct pda_maps *umaps,
		       const struct pda_pipe_when *when)
{
	struct pda_session *s = p->s;
	struct pda_unwound u;
	size_t at = sizeof(uint32_t);
	uint32_t len;
	int rc;

	if (!has_stack(p, sample) || !pda_sample_unwinds(sample))
		return 0;
	if (!umaps)
		umaps = pda_machine_maps(s, sample->pid);
	rc = pda_sample_unwind(s, sample, uj, umaps, &u);
	if (rc < 0)
		return rc;
	rc = pda_first_note(s, umaps, &u, when ? when->time : 0,
			    when ? when->seq : p->nr_spooled);
	if (rc < 0)
		return rc;
	if (PDA_GROW(s, p->spool_buf, p->spool_buf_alloc,
		     sizeof(len) + u.nr * SPOOL_IP_MAX + SPOOL_SLACK,
		     SIZE_MAX / 16) < 0)
		return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < u.nr; i++)
		at += spool_put(p->spool_buf + at, i ? u.ips[i - 1] : 0,
				u.ips[i]);
	len = (uint32_t)(at - sizeof(len));
	memcpy(p->spool_buf, &len, sizeof(len));
	if (fwrite(p->spool_buf, 1, at, p->spool) != at)
		return spool_failed(p);
	p->nr_spooled++;
	return 0;
}

/* The next sample's unwind, as the unwind pass kept it. */
/* The next sample's unwind, as the unwind pass kept it, into *ips (of
 * *alloc): 0, PD_ERR_NOMEM, or PD_ERR_IO when the spool fails, not said
 * (unspool_said() says it; not here: the caller's thread reads ahead of
 * the resolver's, which owns the session's message then). */
static int unspool_into(struct pda_pipe *p, uint64_t **ips, size_t *alloc,
			struct pda_unwound *u)
{
	static const uint64_t mask[9] = {
		0,
		0xff,
		0xffff,
		0xffffff,
		0xffffffff,
		0xffffffffffull,
		0xffffffffffffull,
		0xffffffffffffffull,
		~0ull,
	};
	const unsigned char *q, *end;
	uint64_t prev = 0;
	size_t nr = 0;
	uint32_t len;

	/* an ip takes a byte at least: len bounds their number */
	if (fread(&len, sizeof(len), 1, p->spool) != 1)
		return PD_ERR_IO;
	if (PDA_GROW(p->s, p->spool_buf, p->spool_buf_alloc,
		     (size_t)len + SPOOL_SLACK, SIZE_MAX / 16) < 0 ||
	    PDA_GROW(p->s, *ips, *alloc, len ? len : 1, SIZE_MAX / 16) < 0)
		return PD_ERR_NOMEM;
	if (len && fread(p->spool_buf, 1, len, p->spool) != len)
		return PD_ERR_IO;
	q = p->spool_buf;
	end = q + len;
	while (q < end) {
		const unsigned n = *q++;
		uint64_t z;

		if (n > 8 || (size_t)(end - q) < n)
			return PD_ERR_IO;
		/* the 8 bytes are there: SPOOL_SLACK past the end */
		memcpy(&z, q, sizeof(z));
		z = spool_le(z) & mask[n];
		q += n;
		prev += (z >> 1) ^ (0 - (z & 1));
		(*ips)[nr++] = prev;
	}
	u->ips = *ips;
	u->nr = nr;
	return 0;
}

/* unspool_into()'s error rc said. */
static int unspool_said(struct pda_pipe *p, int rc)
{
	return rc == PD_ERR_NOMEM
		       ? pda_set_err(p->s, PD_ERR_NOMEM, "out of memory")
		       : spool_failed(p);
}

/* unspool_into() the pipe's buffer: 0 or a negative pd_err, said. */
static int unspool(struct pda_pipe *p, struct pda_unwound *u)
{
	const int rc = unspool_into(p, &p->spool_ips, &p->spool_alloc, u);

	return rc < 0 ? unspool_said(p, rc) : 0;
}

int pda_pipe_tmp_fd(const char *stem, const char **dir)
{
	/* where the user keeps temporary files, as cmds/ spools stdin:
	 * tmpfile() would take /tmp whatever TMPDIR says */
	const char *env = getenv("TMPDIR");
	char path[4096];
	int fd;

	*dir = env && *env ? env : "/tmp";
	if (snprintf(path, sizeof(path), "%s/%s.XXXXXX", *dir, stem) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path); /* nobody else opens it */
	return fd;
}

int pda_pipe_unwind_pass(struct pda_pipe *p)
{
	const char *dir;
	int fd = pda_pipe_tmp_fd("pdtool-unwinds", &dir);

	if (fd < 0 && errno == ENAMETOOLONG)
		return pda_set_err(p->s, PD_ERR_IO,
				   "TMPDIR '%s': too long a path", dir);
	if (fd < 0)
		return pda_set_err(p->s, PD_ERR_IO,
				   "cannot make a temporary file for the "
				   "unwinds in '%s': %s (TMPDIR says where "
				   "it goes)",
				   dir, strerror(errno));
	p->spool = fdopen(fd, "w+");
	if (!p->spool) {
		close(fd);
		return pda_set_err(p->s, PD_ERR_NOMEM, "out of memory");
	}
	/* stdio's 4 KB made the 3 MB spool of the bench's capture 760
	 * write(2)s and as many read(2)s, the reads on the second pass's
	 * one thread (glibc takes a size only with a buffer); without
	 * one, stdio's */
	p->spool_io = pda_malloc(p->s, SPOOL_BUF);
	if (p->spool_io &&
	    setvbuf(p->spool, p->spool_io, _IOFBF, SPOOL_BUF) != 0) {
		pda_free(p->s, p->spool_io);
		p->spool_io = NULL;
	}
	p->mode = UNWIND;
	/* before the workers start: they read p->ahead and s->dwahead */
	if (p->jobs > 1 && !p->threaded) {
		if (pda_first_ahead_open(p->s) < 0)
			return pda_set_err(p->s, PD_ERR_NOMEM, "out of memory");
		p->ahead = true;
	}
	return 0;
}

int pda_pipe_unwind_done(struct pda_pipe *p)
{
	int rc = drain(p);

	if (rc < 0)
		return rc;
	if (fflush(p->spool) != 0 || fseek(p->spool, 0, SEEK_SET) != 0)
		return spool_failed(p);
	/* the binaries it unwound through are loaded: the end's diagnosis
	 * of the stripped ones reads dpkg's lists meanwhile */
	if (p->jobs > 1)
		pda_dpkg_ahead_start(p->s);
	rc = pda_first_replay(p->s);
	if (rc < 0)
		return rc;
	pda_logf(p->s, PD_LOG_DEBUG, "pipe: %llu unwinds kept",
		 (unsigned long long)p->nr_spooled);
	p->mode = SPOOLED;
	return res_start(p);
}

/*
 * Resolve one sample's stack (its unwind finished here) into *it, in
 * its state at (two passes), else the live one: the stack in st, the
 * ip's apart in ip_st; through the memo when memo.  0 or a negative
 * pd_err (it->err: a stack that did not resolve).
 */
static int resolve_in(struct pda_pipe *p, const struct pd_sample *sample,
		      struct pda_unwind_job *uj, struct pda_maps_snap *snap,
		      const struct pda_at *at, const struct pda_pipe_when *when,
		      const XXH128_hash_t *key, bool memo, struct pda_stack *st,
		      struct pda_stack *ip_st, struct pda_pipe_item *it,
		      const struct pda_unwound *pre)
{
	/* the maps of its time: the live ones while unchanged since (they
	 * share their copy's v), for their caches */
	struct pda_maps *umaps = snap && !snap->live ? &snap->m : NULL;
	int rc;

	memset(it, 0, sizeof(*it));
	it->sample = sample;
	it->when = when;
	it->count = p->count;
	if (at) {
		umaps = at->umaps;
		it->comm = at->comm;
		it->comm_later = at->comm_later;
		it->cgroup_ns = at->cgns;
	} else {
		it->comm = pda_thread_comm(p->s, sample->pid, sample->tid);
		it->cgroup_ns =
			pda_thread_cgroup_ns(p->s, sample->pid, sample->tid);
	}
	if (p->mode == SPOOLED && has_stack(p, sample) &&
	    pda_sample_unwinds(sample)) {
		struct pda_unwound u;

		/* pre: unspooled ahead (resolve_item() says a failure) */
		rc = pre ? 0 : unspool(p, &u);
		if (rc == 0)
			rc = pda_sample_stack_unwound(p->s, p->v, sample, st,
						      umaps, pre ? pre : &u);
		if (rc == PD_ERR_NOMEM || rc == PD_ERR_IO)
			return rc;
		if (rc < 0)
			it->err = rc;
		else
			it->stack = st;
	} else if (has_stack(p, sample) && !uj && memo &&
		   memo_ok(p, sample)) {
		rc = deliver_memo(p, sample, umaps, it, key);
		if (rc < 0)
			return rc;
	} else if (has_stack(p, sample)) {
		rc = pda_sample_stack_job(p->s, p->v, sample, st, uj, umaps);
		if (rc == PD_ERR_NOMEM)
			return rc;
		if (rc < 0)
			it->err = rc;
		else
			it->stack = st;
	}
	if (p->o.ip_leaf && it->stack && own_apart(sample, it->stack)) {
		rc = pda_ip_leaf(p->s, p->v, sample, umaps, ip_st);
		if (rc == PD_ERR_NOMEM)
			return rc;
		if (rc == 0)
			it->ip_leaf = ip_st;
	}
	return 0;
}

/* Resolve one sample (resolve_in) and hand it back. */
static int deliver_in(struct pda_pipe *p, const struct pd_sample *sample,
		      struct pda_unwind_job *uj, struct pda_maps_snap *snap,
		      const struct pda_at *at, const struct pda_pipe_when *when,
		      const XXH128_hash_t *key)
{
	struct pda_pipe_item it;
	int rc;

	if (p->mode == UNWIND)
		return unwind_only(p, sample, uj,
				   at ? at->umaps
				      : snap && !snap->live ? &snap->m : NULL,
				   when);
	rc = resolve_in(p, sample, uj, snap, at, when, key, true, &p->st,
			&p->ip_st, &it, NULL);
	return rc < 0 ? rc : p->o.fn(p->o.arg, &it);
}

static int deliver_keyed(struct pda_pipe *p, const struct pd_sample *sample,
			 struct pda_unwind_job *uj, struct pda_maps_snap *snap,
			 const struct pda_at *at,
			 const struct pda_pipe_when *when,
			 const XXH128_hash_t *key)
{
	int rc;

	/* what resolves it (and the callback: pda_sample_leaf) sees its
	 * state */
	p->v->at = at;
	rc = deliver_in(p, sample, uj, snap, at, when, key);
	p->v->at = NULL;
	return rc;
}

static int deliver(struct pda_pipe *p, const struct pd_sample *sample,
		   struct pda_unwind_job *uj, struct pda_maps_snap *snap,
		   const struct pda_at *at, const struct pda_pipe_when *when)
{
	return deliver_keyed(p, sample, uj, snap, at, when, NULL);
}

/*
 * ---- samples held back (two passes, memoizable stacks) ----
 *
 * On a capture of many distinct stacks, a memo probe is a cache miss
 * (its set's line), once about a tenth of the caller's thread.  A sample
 * is therefore held back two samples: on arrival its key is hashed (its
 * state is its epoch's, known then) and its set fetched; two samples
 * later it is delivered, the line in cache.  Delivering probes again:
 * what was fetched ahead is a hint only (the samples before it may have
 * replaced entries or grown the index), so the order and the result are
 * the same as delivering at once.  Only samples whose record stays
 * mapped (PD_RECF_STABLE) are held; any other sample, the end of input
 * and a change of pass deliver the held ones first.
 */

/* Deliver the oldest held sample. */
static int held_deliver(struct pda_pipe *p)
{
	struct held *h = &p->held[p->held_first];
	int rc;

	rc = deliver_keyed(p, &h->sample, NULL, NULL, &h->at, &h->when,
			   &h->key);
	pda_at_put(p->s, &h->at);
	p->held_first = (p->held_first + 1) % NR_HELD;
	p->nr_held--;
	return rc;
}

/* Drop the held samples undelivered, their views released. */
static void held_drop(struct pda_pipe *p)
{
	for (; p->nr_held; p->nr_held--) {
		pda_at_put(p->s, &p->held[p->held_first].at);
		p->held_first = (p->held_first + 1) % NR_HELD;
	}
}

/* Deliver every held sample, in order (after an error, drop the rest). */
static int held_flush(struct pda_pipe *p)
{
	int rc = 0;

	while (p->nr_held && rc == 0)
		rc = held_deliver(p);
	held_drop(p);
	return rc;
}

/* Whether a sample of the second pass is held back: its stack is
 * memoizable, its record stays where it is. */
static bool holdable(const struct pda_pipe *p, const struct pd_rec *rec,
		     const struct pd_sample *sample)
{
	return p->mode == RESOLVE && (rec->flags & PD_RECF_STABLE) &&
	       has_stack(p, sample) && memo_ok(p, sample);
}

/* Hold sample (its at handed over), delivering the oldest held one
 * when full.  0 or a negative pd_err. */
static int hold(struct pda_pipe *p, const struct pd_sample *sample,
		struct pda_at *at, const struct pda_pipe_when *when)
{
	struct held *h;
	int rc = 0;

	if (p->nr_held == NR_HELD)
		rc = held_deliver(p);
	h = &p->held[(p->held_first + p->nr_held) % NR_HELD];
	h->sample = *sample;
	h->at = *at;
	h->when = *when;
	p->nr_held++;
	if (rc == 0 &&
	    memo_key(p, &h->sample, h->at.umaps, &h->at, h->at.comm,
		     &h->key) < 0)
		rc = pda_set_err(p->s, PD_ERR_NOMEM, "out of memory");
	if (rc < 0)
		return rc;
	/* the prefetch here, not in a helper: gcc 12 removed a call of one
	 * that did nothing else */
	if (p->memo_sets) {
		__builtin_prefetch(memo_set_of(p, &h->key, false));
		__builtin_prefetch(memo_set_of(p, &h->key, true));
	}
	return 0;
}

/* ---- the resolver --------------------------------------------------- */

/* On the resolver's thread: r resolved in its state, as deliver_in()
 * resolves (not through the memo, whose entries the callback writes). */
static void resolve_item(struct pda_pipe *p, struct res_item *r)
{
	struct pda_session *s = p->s;
	struct pda_at at;
	int rc;

	rc = r->unspool_rc < 0 ? unspool_said(p, r->unspool_rc)
			       : pda_machine_at(s, p->v, r->when.epoch,
						r->sample.pid, r->sample.tid,
						&at);
	if (rc < 0) {
		r->rc = rc;
		r->barrier = true;
		return;
	}
	p->v->at = &at;
	rc = resolve_in(p, &r->sample, NULL, NULL, &at, &r->when, NULL, false,
			&r->st, &r->ip_st, &r->it, r->spooled ? &r->u : NULL);
	p->v->at = NULL;
	pda_at_put(s, &at);
	r->rc = rc;
	r->barrier = rc < 0 || r->it.err || pda_readgroup_is(&r->sample) ||
		     (r->sample.mask & PD_SAMPLE_BRANCH_STACK);
}

/* Hand the oldest queued sample back, once resolved. */
static int res_deliver_one(struct pda_pipe *p)
{
	struct res_item *r = &p->res[p->res_out % RES_RING];
	int rc;

	pthread_mutex_lock(&p->mu);
	if (p->res_done == p->res_out) {
		/* a few at once (or up to a barrier, where it stops) */
		p->res_want = p->res_fed - p->res_out < RES_WAKE
				      ? p->res_fed
				      : p->res_out + RES_WAKE;
		p->res_waiting = true;
		wake_workers(p);
		while (p->res_done == p->res_out)
			pthread_cond_wait(&p->done, &p->mu);
		p->res_waiting = false;
	}
	pthread_mutex_unlock(&p->mu);
	rc = r->rc < 0 ? r->rc : p->o.fn(p->o.arg, &r->it);
	p->res_held -= r->bytes;
	pthread_mutex_lock(&p->mu);
	p->res_out++;
	if (rc < 0) {
		/* the run stops: the resolver takes no more, the session is
		 * this thread's once it is done with the one it has */
		p->res_on = false;
		p->res_want = 0;
		p->res_waiting = true;
		while (p->res_busy)
			pthread_cond_wait(&p->done, &p->mu);
		p->res_waiting = false;
		p->res_fed = p->res_done = p->res_out;
		p->res_held = 0;
	} else if (r->barrier) {
		wake_workers(p);
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

/* Hand back every queued sample: the session is this thread's again. */
static int res_drain(struct pda_pipe *p)
{
	int rc = 0;

	while (p->res_out < p->res_fed && rc == 0)
		rc = res_deliver_one(p);
	return rc;
}

/* Queue sample (decoded from rec, which stays mapped) for the resolver,
 * handing back the oldest while the queue is full. */
static int res_feed(struct pda_pipe *p, const struct pd_rec *rec,
		    const struct pd_sample *sample,
		    const struct pda_pipe_when *when)
{
	struct res_item *r;
	int rc;

	while (p->res_fed - p->res_out == RES_RING ||
	       (p->res_fed > p->res_out && p->res_held + rec->size > RES_HELD))
		if ((rc = res_deliver_one(p)) < 0)
			return rc;
	r = &p->res[p->res_fed % RES_RING];
	r->sample = *sample;
	r->when = *when;
	r->spooled = p->mode == SPOOLED && has_stack(p, sample) &&
		     pda_sample_unwinds(sample);
	r->unspool_rc = r->spooled ? unspool_into(p, &r->ips, &r->ips_alloc,
						  &r->u)
				   : 0;
	r->bytes = rec->size;
	p->res_held += rec->size;
	pthread_mutex_lock(&p->mu);
	p->res_fed++;
	if (p->res_fed - p->res_done >= RES_WAKE)
		wake_workers(p);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* Start the resolver for the second pass, when it may run: 0 or
 * NOMEM. */
static int res_start(struct pda_pipe *p)
{
	if (!p->o.resolve_apart || !p->threaded || !p->nr_workers)
		return 0;
	p->res = pda_zalloc(p->s, RES_RING * sizeof(*p->res));
	if (!p->res)
		return pda_set_err(p->s, PD_ERR_NOMEM, "out of memory");
	pthread_mutex_lock(&p->mu);
	p->res_on = true;
	pthread_mutex_unlock(&p->mu);
	return 0;
}

/* Help with the oldest batch, wait for it, deliver it and free its
 * place. */
static int complete_oldest(struct pda_pipe *p)
{
	struct batch *b = &p->b[p->first];
	int rc = 0;

	if (!b->submitted) {
		pthread_mutex_lock(&p->mu);
		b->submitted = true;
		wake_workers(p);
		pthread_mutex_unlock(&p->mu);
	}
	/* binaries load in sample order, when delivering (pda_unwind_int.h) */
	p->s->mt.may_load = false;
	pthread_mutex_lock(&p->mu);
	while (take_and_run(p, b, 0, &p->nr_run))
		;
	while (b->nr_done < b->nr)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
	p->s->mt.may_load = true;
	for (size_t i = 0; i < b->nr && rc == 0; i++) {
		struct item *it = &b->items[i];

		rc = deliver(p, &it->sample, it->unwind ? &it->uj : NULL,
			     it->snap, it->has_at ? &it->at : NULL,
			     it->has_at ? &it->when : NULL);
	}
	for (size_t i = 0; i < b->nr; i++)
		if (b->items[i].has_at)
			pda_at_put(p->s, &b->items[i].at);
	release_snaps(p, b->end_seq);
	/* under mu: a worker may still be looking at it in claimable() */
	pthread_mutex_lock(&p->mu);
	b->nr = b->used = b->held = b->next = b->nr_done = 0;
	b->end_seq = 0;
	b->submitted = false;
	p->first = (p->first + 1) % NR_BATCHES;
	p->nr_used--;
	pthread_mutex_unlock(&p->mu);
	return rc;
}

/* Deliver every batch; the backend states may then be trimmed. */
static int drain(struct pda_pipe *p)
{
	int rc = 0;

	if (!p->threaded)
		return 0;
	while (p->nr_used && rc == 0)
		rc = complete_oldest(p);
	if (rc == 0) {
		release_snaps(p, UINT64_MAX);
		pda_unwind_hold(p->s, p->s->unwinder, false);
	}
	return rc;
}

/* The batch being filled, with room for need bytes and a sample. */
static int fill_batch(struct pda_pipe *p, size_t need, size_t held,
		      struct batch **out)
{
	struct batch *b = NULL;
	int rc;

	if (p->nr_used) {
		b = &p->b[(p->first + p->nr_used - 1) % NR_BATCHES];
		if (b->submitted || b->nr == p->batch_items ||
		    BATCH_BYTES - b->used < need ||
		    (b->nr && BATCH_HELD - b->held < held)) {
			if (!b->submitted) {
				pthread_mutex_lock(&p->mu);
				b->submitted = true;
				p->ahead_from = p->last_stable;
				wake_workers(p);
				pthread_mutex_unlock(&p->mu);
			}
			b = NULL;
		}
	}
	if (!b) {
		if (p->nr_used == NR_BATCHES && (rc = complete_oldest(p)) < 0)
			return rc;
		b = &p->b[(p->first + p->nr_used) % NR_BATCHES];
		/* backend states stay while samples that use them wait */
		if (!p->nr_used)
			pda_unwind_hold(p->s, p->s->unwinder, true);
		pthread_mutex_lock(&p->mu);
		p->nr_used++;
		p->nr_batches++;
		pthread_mutex_unlock(&p->mu);
	}
	*out = b;
	return 0;
}

/* Queue a wanted sample (rec, decoded in sample) behind the others: a
 * record that stays where it is (PD_RECF_STABLE) as it is, another
 * copied and decoded again from the copy. */
static int enqueue(struct pda_pipe *p, const struct pd_rec *rec,
		   const struct pd_sample *sample, bool unwind,
		   const struct pda_at *at, const struct pda_pipe_when *when,
		   bool *kept)
{
	struct pda_session *s = p->s;
	const bool stable = rec->flags & PD_RECF_STABLE;
	const size_t rec_bytes = stable ? 0 : (rec->size + 15) & ~(size_t)15;
	const size_t ips_bytes = unwind ? p->max_frames * sizeof(uint64_t) : 0;
	struct pd_rec copy = *rec;
	struct pda_maps_snap *snap = NULL;
	struct pda_maps *live = NULL;
	struct batch *b;
	struct item *it;
	uint64_t *ips;
	int rc;

	if (rec_bytes + ips_bytes > BATCH_BYTES) {
		/* too big for a batch (a huge --max-stack): on its own */
		rc = drain(p);
		return rc < 0 ? rc : deliver(p, sample, NULL, NULL, at, when);
	}
	rc = fill_batch(p, rec_bytes + ips_bytes, stable ? rec->size : 0, &b);
	if (rc < 0)
		return rc;
	it = &b->items[b->nr];
	ips = (uint64_t *)(void *)(b->buf + b->used + rec_bytes);
	if (stable) {
		it->sample = *sample;
	} else {
		memcpy(b->buf + b->used, rec->data, rec->size);
		copy.data = b->buf + b->used;
		if (pd_sample_decode(s->f, &copy, &it->sample) < 0)
			return pda_set_err(s, PD_ERR_FORMAT,
					   "sample at offset 0x%llx: %s",
					   (unsigned long long)rec->offset,
					   pd_file_errmsg(s->f));
		leaf_only(p, &it->sample);
	}
	it->unwind = unwind;
	it->snap = NULL;
	it->has_at = false;
	if (at) {
		/* its state stays as it is: nothing to freeze */
		live = pda_machine_maps(s, sample->pid);
		if (!live)
			return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	} else if (has_stack(p, &it->sample)) {
		/* its user addresses are looked up in its process's maps as
		 * they are now, whatever MMAPs come before it is done */
		live = pda_machine_maps(s, sample->pid);
		if (!live || pda_maps_freeze(s, live, &snap) < 0)
			return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
		if (!snap->last_use) {
			snap->next = p->snaps;
			p->snaps = snap;
		}
		snap->last_use = ++p->seq;
	}
	if (unwind) {
		s->mt.may_load = false;
		rc = pda_unwind_prep(s, s->unwinder, &it->sample, live,
				     at ? at->umaps : &snap->m, ips, &it->uj);
		s->mt.may_load = true;
		if (rc == PDA_UNWIND_AGAIN) {
			/* it needs a binary loaded, or its process's state
			 * released: once nothing is under way, on its own */
			rc = drain(p);
			return rc < 0 ? rc
				      : deliver(p, sample, NULL, NULL, at, when);
		}
		if (rc < 0)
			return pda_set_err(s, rc, "unwinding: %s",
					   pd_strerror(rc));
	}
	it->snap = snap;
	if (at) {
		/* the batch holds its views now */
		it->at = *at;
		it->when = *when;
		it->has_at = true;
		*kept = true;
	}
	b->used += rec_bytes + ips_bytes;
	if (stable) {
		b->held += rec->size;
		p->last_stable = (uintptr_t)rec->data + rec->size;
	}
	b->nr++;
	b->end_seq = p->seq + 1;
	return 0;
}

/* ---- feeding -------------------------------------------------------- */

/*
 * Whether rec changes what the samples under way see: their threads'
 * comms, or kernel maps, which they share.  A process's MMAP does not:
 * each sample under way has its process's maps frozen (pda_maps_freeze),
 * and perf writes an MMAP for every data mapping of a `--call-graph
 * dwarf` capture (it samples data addresses then).
 */
static bool needs_drain(const struct pd_rec *rec)
{
	if (rec->type == PD_REC_MMAP || rec->type == PD_REC_MMAP2)
		return (rec->misc & PD_MISC_CPUMODE_MASK) == PD_MISC_KERNEL;
	return pda_machine_changes(rec->type);
}

/* What feeding a sample begins with (rec NULL: one handed over
 * decoded): leaf_only, the callback's want, whether it is unwound here
 * (not when unwound before), the threads started for it.  @return 1 to
 * feed it on, 0 when it is not wanted, or a negative pd_err.  Inline:
 * out of line it cost 37 instructions a sample (a synthesized one's
 * whole feed is ~600). */
static inline int feed_begin(struct pda_pipe *p, const struct pd_rec *rec,
			     struct pd_sample *sample, bool unwound_before,
			     bool *unwind)
{
	struct pda_session *s = p->s;
	int rc;

	leaf_only(p, sample);
	if (p->o.want && !p->o.want(p->o.arg, sample))
		return 0;
	*unwind = !p->o.no_stack && (sample->mask & PD_SAMPLE_CALLCHAIN) &&
		  pda_sample_unwinds(sample) && !unwound_before;
	if (!rec && *unwind)
		return pda_set_err(s, PD_ERR_API,
				   "a decoded sample cannot be unwound");
	if (p->jobs > 1 && *unwind && !p->threaded && (rc = start(p)) < 0)
		return pda_set_err(s, rc, "starting threads: %s",
				   pd_strerror(rc));
	return 1;
}

/* A sample record's sample (rec NULL: one with no record, handed over
 * decoded), as pda_pipe_feed() feeds it. */
static int feed_one(struct pda_pipe *p, const struct pd_rec *rec,
		    struct pd_sample *sample)
{
	bool unwind, kept;
	int rc;

	if ((rc = feed_begin(p, rec, sample, false, &unwind)) <= 0)
		return rc;
	/* in order: behind the samples under way, if any (one without a
	 * record to queue: after them) */
	if (p->threaded && (unwind || p->nr_used)) {
		if (rec)
			return enqueue(p, rec, sample, unwind, NULL, NULL,
				       &kept);
		if ((rc = drain(p)) < 0)
			return rc;
	}
	return deliver(p, sample, NULL, NULL, NULL, NULL);
}

int pda_pipe_feed(struct pda_pipe *p, const struct pd_rec *rec)
{
	struct pda_session *s = p->s;
	struct pd_sample sample;
	int rc;

	if (p->finished)
		return pda_set_err(s, PD_ERR_API,
				   "pda_pipe_feed() after pda_pipe_finish()");
	if ((rc = held_flush(p)) < 0)
		return rc;
	if (rec->type != PD_REC_SAMPLE) {
		if (needs_drain(rec) && (rc = drain(p)) < 0)
			return rc;
		return pda_session_feed(s, rec);
	}
	if (pd_sample_decode(s->f, rec, &sample) < 0)
		return 1;
	return feed_one(p, rec, &sample);
}

/* A sample of the second pass (rec NULL: one with no record, handed
 * over decoded), as pda_pipe_feed_sample() feeds it. */
static int feed_one_at(struct pda_pipe *p, const struct pd_rec *rec,
		       struct pd_sample *sample,
		       const struct pda_pipe_when *when)
{
	struct pda_session *s = p->s;
	struct pda_at at;
	bool unwind;
	int rc;

	/* unwound before, when the unwind pass ran */
	if ((rc = feed_begin(p, rec, sample, p->mode == SPOOLED, &unwind)) <=
	    0)
		return rc;
	if (p->res_on) {
		if (rec && (rec->flags & PD_RECF_STABLE) &&
		    rec->size <= RES_HELD)
			return res_feed(p, rec, sample, when);
		if ((rc = res_drain(p)) < 0)
			return rc;
	}
	rc = pda_machine_at(s, p->v, when->epoch, sample->pid, sample->tid,
			    &at);
	if (rc < 0)
		return rc;
	if (rec && !unwind && !(p->threaded && p->nr_used) &&
	    holdable(p, rec, sample))
		return hold(p, sample, &at, when);
	if ((rc = held_flush(p)) < 0) {
		pda_at_put(s, &at);
		return rc;
	}
	if (p->threaded && (unwind || p->nr_used) && rec) {
		bool kept = false;

		rc = enqueue(p, rec, sample, unwind, &at, when, &kept);
		/* queued, the batch holds the views; else they go now */
		if (!kept)
			pda_at_put(s, &at);
		return rc;
	}
	/* one without a record to queue: after the samples under way */
	if (p->threaded && p->nr_used && (rc = drain(p)) < 0) {
		pda_at_put(s, &at);
		return rc;
	}
	rc = deliver(p, sample, NULL, NULL, &at, when);
	pda_at_put(s, &at);
	return rc;
}

int pda_pipe_feed_sample(struct pda_pipe *p, const struct pd_rec *rec,
			 const struct pda_pipe_when *when)
{
	struct pd_sample sample;

	if (p->finished)
		return pda_set_err(p->s, PD_ERR_API,
				   "pda_pipe_feed() after pda_pipe_finish()");
	if (rec->type != PD_REC_SAMPLE)
		return 0;
	if (pd_sample_decode(p->s->f, rec, &sample) < 0) {
		/* said after the samples before it */
		const int rc = p->res_on ? res_drain(p) : 0;

		return rc < 0 ? rc : 1;
	}
	return feed_one_at(p, rec, &sample, when);
}

int pda_pipe_feed_decoded(struct pda_pipe *p, struct pd_sample *sample,
			  const struct pda_pipe_when *when)
{
	int rc;

	if (p->finished)
		return pda_set_err(p->s, PD_ERR_API,
				   "pda_pipe_feed() after pda_pipe_finish()");
	if (when)
		return feed_one_at(p, NULL, sample, when);
	if (p->res_on && (rc = res_drain(p)) < 0)
		return rc;
	if ((rc = held_flush(p)) < 0)
		return rc;
	return feed_one(p, NULL, sample);
}

uint64_t pda_pipe_count(const struct pda_pipe *p)
{
	return p->count;
}

int pda_pipe_feed_decoded_n(struct pda_pipe *p, struct pd_sample *sample,
			    const struct pda_pipe_when *when, uint64_t n)
{
	int rc = 0;

	if (p->finished || !when || !n)
		return pda_set_err(p->s, PD_ERR_API,
				   "pda_pipe_feed_decoded_n(): bad arguments");
	leaf_only(p, sample);
	/* counted at once where its stack is resolved by the memo or not
	 * at all; else (unwinding, spooled stacks) one at a time */
	if (n == 1 || p->mode != RESOLVE ||
	    (has_stack(p, sample) && !memo_ok(p, sample)) ||
	    (sample->mask & PD_SAMPLE_CALLCHAIN)) {
		for (uint64_t i = 0; i < n && rc >= 0; i++)
			rc = feed_one_at(p, NULL, sample, when);
		return rc;
	}
	/* the samples before it handed back first: p->count is what
	 * every item resolved meanwhile stands for (a held one, a batch's
	 * would take the group's count) */
	if ((rc = held_flush(p)) < 0 ||
	    (p->threaded && p->nr_used && (rc = drain(p)) < 0))
		return rc;
	p->count = n;
	rc = feed_one_at(p, NULL, sample, when);
	p->count = 1;
	return rc;
}

int pda_pipe_flush(struct pda_pipe *p)
{
	int rc = p->res_on ? res_drain(p) : 0;

	if (rc == 0)
		rc = held_flush(p);
	return rc < 0 ? rc : drain(p);
}

int pda_pipe_finish(struct pda_pipe *p)
{
	const int rc = pda_pipe_flush(p);

	if (rc < 0)
		return rc;
	/* the batches' memory goes to what the caller does next (folding,
	 * rendering); the idle workers wait for pda_pipe_free() */
	p->finished = true;
	for (size_t i = 0; i < NR_BATCHES; i++) {
		pda_free(p->s, p->b[i].buf);
		pda_free(p->s, p->b[i].items);
		p->b[i].buf = NULL;
		p->b[i].items = NULL;
	}
	return 0;
}
