/*
 * pda_machine.c - the recording host's processes, threads and memory maps
 * over time, from COMM, FORK, EXIT, MMAP, MMAP2, KSYMBOL (and, for the
 * threads' cgroup namespaces, NAMESPACES) records fed in time order
 * (perf's synthesized records for what was running at the start come
 * first).
 *
 * The model is perf's (tools/perf/util/machine.c, thread.c, map.c):
 * - maps belong to a process; its threads share them.  A FORK that makes
 *   a new process copies the parent's maps, unless perf marked the FORK
 *   as synthesized (misc bit 13, PERF_RECORD_MISC_FORK_EXEC), and a FORK
 *   that reuses a thread id forgets the old thread;
 * - a new map cuts what it overlaps out of the maps already there;
 * - exec (COMM with COMM_EXEC) changes the comm and keeps the maps: the
 *   new image's MMAPs replace what they overlap;
 * - an executable map of anonymous memory is JIT code, named
 *   /tmp/perf-PID.map as perf names it;
 * - kernel maps (cpumode KERNEL, pid -1) are the machine's: the kernel
 *   ("[kernel.kallsyms]_text" and the like), modules by path or
 *   "[name]", and KSYMBOL ranges;
 * - records of guest machines (cpumode GUEST_*) are counted and skipped.
 */
#include "pda_machine_int.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MISC_FORK_EXEC (1u << 13) /* perf-internal: a synthesized FORK */
#define MAP_HUGETLB_FLAG 0x40000u /* MAP_HUGETLB, in MMAP2 flags */
#define PROT_EXEC_FLAG 0x4u	  /* PROT_EXEC, in MMAP2 prot */
/* simpleperf's map_flags::PROT_JIT_SYMFILE_MAP, in MMAP2 prot: a map of
 * ART's JIT code, whose symbols (FILE feature) are at its addresses */
#define PROT_JIT_SYMFILE_FLAG 0x4000u
#define KSYMBOL_UNREGISTER 1u

struct pda_proc {
	uint32_t pid;
	struct pda_maps maps;
};

struct pda_hcomm {
	uint32_t epoch;
	const char *comm;
	struct pda_nsid cgns; /* the cgroup namespace from epoch on */
	bool fork;	      /* a FORK made the thread anew at epoch */
	const char *later;    /* the comm a thread without one at epoch
			       * takes (later_fill) */
};

struct pda_thread {
	uint32_t tid, pid;
	const char *comm; /* NULL until a COMM or FORK set it */
	bool dead;
	/* its cgroup namespace: 0/0 until a NAMESPACES record names it
	 * (a FORK makes the thread anew, without one, as perf's) */
	struct pda_nsid cgns;
	/* with history: the comms and namespaces set, by epoch, and the
	 * ones before */
	struct pda_hcomm *ch;
	size_t nr_ch, ch_alloc;
	/* ch's changes made, and the count ch's later was filled at */
	uint64_t ch_gen, later_gen;
	const char *comm0;
	struct pda_nsid cgns0;
};

#define VIEWS_MAX 64 /* views kept when none holds them */
#define HIST_MAX ((size_t)1 << 28)

struct pda_mview {
	struct pda_maps m; /* owns m.v */
	struct pda_mhist *h;
	size_t version;
	unsigned refs;
	uint64_t last_use;
	struct pda_mview *next;
};

/* ---- maps ---------------------------------------------------------- */

/* The index of the first map whose end is above addr (nr if none). */
static size_t first_above(const struct pda_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr;

	/* ends are sorted too: the maps do not overlap */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

const struct pda_map *pda_maps_find(struct pda_maps *m, uint64_t addr)
{
	/* relaxed: shard threads may look up in one maps at once (a plain
	 * load and store here; the hint is only a guess) */
	const size_t h = atomic_load_explicit((_Atomic size_t *)&m->hint,
					      memory_order_relaxed);
	size_t i;

	if (h < m->nr && m->v[h].start <= addr && addr < m->v[h].end)
		return &m->v[h];
	i = first_above(m, addr);
	if (i == m->nr || m->v[i].start > addr)
		return NULL;
	atomic_store_explicit((_Atomic size_t *)&m->hint, i,
			      memory_order_relaxed);
	return &m->v[i];
}

const struct pda_map *pda_maps_lookup(const struct pda_maps *m, uint64_t addr)
{
	size_t i = first_above(m, addr);

	return i < m->nr && m->v[i].start <= addr ? &m->v[i] : NULL;
}

/* ---- the maps over time (pda_machine_int.h) ------------------------- */

/* Keep map, living from now on, in h (room made by hist_ready). */
static void hist_open(struct pda_session *s, struct pda_mhist *h,
		      struct pda_map *map)
{
	struct pda_hmap *e = &h->v[h->nr];

	map->hidx = (uint32_t)h->nr++;
	e->map = *map;
	e->from = s->machine.epoch;
	e->to = PDA_EPOCH_LIVE;
}

/* map, one of m's, ends now. */
static void hist_close(struct pda_session *s, struct pda_maps *m,
		       const struct pda_map *map)
{
	if (m->hist && map->hidx < m->hist->nr)
		m->hist->v[map->hidx].to = s->machine.epoch;
}

/*
 * With history on, m's history made (its maps so far living from epoch
 * 0) with room for a change and nr_open more maps, so that what follows
 * cannot fail.  0 or NOMEM.
 */
static int hist_ready(struct pda_session *s, struct pda_maps *m,
		      size_t nr_open)
{
	struct pda_mhist *h = m->hist;
	bool made = false;

	if (!s->machine.hist_on)
		return 0;
	if (!h) {
		h = pda_zalloc(s, sizeof(*h));
		if (!h)
			return PD_ERR_NOMEM;
		h->base_gen = m->gen;
		m->hist = h;
		nr_open += m->nr;
		made = true;
	}
	if (PDA_GROW(s, h->v, h->alloc, h->nr + nr_open, HIST_MAX) < 0 ||
	    PDA_GROW(s, h->chg, h->chg_alloc, h->nr_chg + 1, HIST_MAX) < 0)
		return pda_set_err(s, PD_ERR_NOMEM,
				   "out of memory for the maps' history");
	if (made) {
		uint32_t epoch = s->machine.epoch;

		s->machine.epoch = 0;
		for (size_t i = 0; i < m->nr; i++)
			hist_open(s, h, &m->v[i]);
		s->machine.epoch = epoch;
	}
	return 0;
}

void pda_machine_history(struct pda_session *s)
{
	s->machine.hist_on = true;
	s->machine.epoch = 0;
}

void pda_machine_set_epoch(struct pda_session *s, uint32_t epoch)
{
	s->machine.epoch = epoch;
}

static void hist_free(struct pda_session *s, struct pda_mhist *h)
{
	if (!h)
		return;
	pda_free(s, h->v);
	pda_free(s, h->chg);
	pda_free(s, h);
}

/* How many of the nr elements at v (size bytes each, in the order of
 * the uint32_t epoch at offset off) have an epoch at most epoch. */
static size_t epochs_upto(const void *v, size_t nr, size_t size, size_t off,
			  uint32_t epoch)
{
	const unsigned char *b = v;
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t e;

		memcpy(&e, b + mid * size + off, sizeof(e));
		if (e <= epoch)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The changes of h at or before epoch: the version of the maps then. */
static size_t version_at(const struct pda_mhist *h, uint32_t epoch)
{
	return epochs_upto(h->chg, h->nr_chg, sizeof(*h->chg),
			   offsetof(struct pda_hchg, epoch), epoch);
}

/* By start, then as h keeps them (the order a stable sort leaves). */
static int cmp_map_start(const void *a, const void *b)
{
	const struct pda_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->hidx < y->hidx ? -1 : x->hidx > y->hidx;
}

static void view_free(struct pda_session *s, struct pda_mview *v)
{
	pda_free(s, v->m.v);
	pda_free(s, v);
}

/* Drop the least recently used view no sample holds, if any. */
static void views_trim(struct pda_session *s)
{
	struct pda_machine *mc = &s->machine;
	struct pda_mview **pp, **old = NULL, *v;

	for (pp = &mc->views; *pp; pp = &(*pp)->next)
		if (!atomic_load_explicit((_Atomic unsigned *)&(*pp)->refs,
					  memory_order_relaxed) &&
		    (!old || (*pp)->last_use < (*old)->last_use))
			old = pp;
	if (!old)
		return; /* all held: more than the cap, for now */
	v = *old;
	if (v->h->hint == v)
		v->h->hint = NULL;
	*old = v->next;
	view_free(s, v);
	mc->nr_views--;
}

/* The first of h's maps opened after epoch at: h keeps them in the
 * order opened, and records are applied in time order, so their from
 * epochs never go down. */
static size_t opened_after(const struct pda_mhist *h, uint32_t at)
{
	return epochs_upto(h->v, h->nr, sizeof(*h->v),
			   offsetof(struct pda_hmap, from), at);
}

/*
 * v's maps at epoch at from o, a view of h at an earlier epoch: o's
 * maps that still live, merged by start with those opened since.  A
 * view is the few maps a process has at once, h all it ever mapped
 * (a DWARF capture's process maps and unmaps as it runs, and its
 * samples, in time order, want one view after the other): this costs
 * the view, not the history.  0 or NOMEM.
 */
static int view_fill_next(struct pda_session *s, const struct pda_mhist *h,
			  const struct pda_mview *o, uint32_t at,
			  struct pda_mview *v)
{
	const uint32_t o_at = h->chg[o->version].epoch - 1;
	const size_t first = opened_after(h, o_at);
	size_t nr = 0, nr_new = 0, i = 0, j = 0;
	struct pda_map *fresh = NULL;

	for (size_t k = 0; k < o->m.nr; k++)
		nr += h->v[o->m.v[k].hidx].to > at;
	for (size_t k = first; k < h->nr && h->v[k].from <= at; k++)
		nr_new += at < h->v[k].to;
	if (!nr && !nr_new)
		return 0;
	v->m.v = pda_malloc(s, (nr + nr_new) * sizeof(*v->m.v));
	if (nr_new)
		fresh = pda_malloc(s, nr_new * sizeof(*fresh));
	if (!v->m.v || (nr_new && !fresh)) {
		pda_free(s, fresh);
		pda_free(s, v->m.v);
		v->m.v = NULL;
		return PD_ERR_NOMEM;
	}
	nr_new = 0;
	for (size_t k = first; k < h->nr && h->v[k].from <= at; k++)
		if (at < h->v[k].to)
			fresh[nr_new++] = h->v[k].map;
	qsort(fresh, nr_new, sizeof(*fresh), cmp_map_start);
	for (;;) {
		const struct pda_map *m = NULL;

		while (i < o->m.nr && h->v[o->m.v[i].hidx].to <= at)
			i++;
		if (i < o->m.nr &&
		    (j == nr_new || cmp_map_start(&o->m.v[i], &fresh[j]) < 0))
			m = &h->v[o->m.v[i++].hidx].map;
		else if (j < nr_new)
			m = &fresh[j++];
		if (!m)
			break;
		v->m.v[v->m.nr++] = *m;
	}
	pda_free(s, fresh);
	return 0;
}

/* v's maps at epoch at from the whole of h.  0 or NOMEM. */
static int view_fill_all(struct pda_session *s, const struct pda_mhist *h,
			 uint32_t at, struct pda_mview *v)
{
	size_t nr = 0;

	for (size_t i = 0; i < h->nr; i++)
		nr += h->v[i].from <= at && at < h->v[i].to;
	if (!nr)
		return 0;
	v->m.v = pda_malloc(s, nr * sizeof(*v->m.v));
	if (!v->m.v)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < h->nr; i++)
		if (h->v[i].from <= at && at < h->v[i].to)
			v->m.v[v->m.nr++] = h->v[i].map;
	qsort(v->m.v, nr, sizeof(*v->m.v), cmp_map_start);
	return 0;
}

/* h's maps at version (below h->nr_chg), sorted by start; made from o
 * (NULL: none) when it is a view of h before. */
static struct pda_mview *view_make(struct pda_session *s, struct pda_mhist *h,
				   size_t version, const struct pda_mview *o)
{
	const uint32_t at = h->chg[version].epoch - 1;
	struct pda_mview *v;
	int rc;

	v = pda_zalloc(s, sizeof(*v));
	if (!v)
		return NULL;
	if (o && o->h == h && o->version < version)
		rc = view_fill_next(s, h, o, at, v);
	else
		rc = view_fill_all(s, h, at, v);
	if (rc < 0) {
		pda_free(s, v);
		return NULL;
	}
	v->m.alloc = v->m.nr;
	v->m.gen = version ? h->chg[version - 1].gen : h->base_gen;
	v->h = h;
	v->version = version;
	return v;
}

/* A reference to v more (n 1) or less (n -1): atomic while shard
 * threads share the views. */
static inline void view_ref(const struct pda_machine *mc,
			    struct pda_mview *v, int n)
{
	if (mc->shared)
		atomic_fetch_add_explicit((_Atomic unsigned *)&v->refs,
					  (unsigned)n, memory_order_relaxed);
	else
		v->refs += (unsigned)n;
}

/* live's maps at epoch into *out: live itself, or a view held in *held. */
static int view_get(struct pda_session *s, struct pda_maps *live,
		    uint32_t epoch, struct pda_maps **out,
		    struct pda_mview **held)
{
	struct pda_machine *mc = &s->machine;
	struct pda_mhist *h = live->hist;
	struct pda_mview *v;
	size_t version;

	*out = live;
	*held = NULL;
	/* most samples come after the last change */
	if (!h || epoch == PDA_EPOCH_LIVE || !h->nr_chg ||
	    epoch >= h->chg[h->nr_chg - 1].epoch)
		return 0;
	version = version_at(h, epoch);
	if (version == h->nr_chg)
		return 0;
	v = h->hint;
	if (!v || v->version != version)
		for (v = mc->views; v; v = v->next)
			if (v->h == h && v->version == version)
				break;
	if (!v) {
		if (mc->nr_views >= VIEWS_MAX)
			views_trim(s);
		v = view_make(s, h, version, h->hint);
		if (!v)
			return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
		v->next = mc->views;
		mc->views = v;
		mc->nr_views++;
		mc->nr_views_made++;
	}
	h->hint = v;
	view_ref(mc, v, 1);
	v->last_use = ++mc->view_clock;
	*out = &v->m;
	*held = v;
	return 0;
}

void pda_at_put(struct pda_session *s, struct pda_at *at)
{
	if (at->uv)
		view_ref(&s->machine, at->uv, -1);
	if (at->kv)
		view_ref(&s->machine, at->kv, -1);
	at->uv = at->kv = NULL;
}

/* A frozen copy shares m's v: give m a copy of its own, which it may
 * change.  0 or NOMEM (m unchanged). */
static int unshare(struct pda_session *s, struct pda_maps *m)
{
	struct pda_map *v = NULL;

	if (!m->snap)
		return 0;
	if (m->alloc) {
		v = pda_malloc(s, m->alloc * sizeof(*v));
		if (!v)
			return PD_ERR_NOMEM;
		memcpy(v, m->v, m->nr * sizeof(*v));
	}
	m->snap->live = NULL;
	m->snap = NULL;
	m->v = v;
	return 0;
}

/* m's v goes to its frozen copy, if any, m keeps none. */
static void detach(struct pda_maps *m)
{
	if (!m->snap)
		return;
	m->snap->live = NULL;
	m->snap = NULL;
	m->v = NULL;
	m->nr = m->alloc = 0;
}

int pda_maps_freeze(struct pda_session *s, struct pda_maps *m,
		    struct pda_maps_snap **out)
{
	struct pda_maps_snap *snap = m->snap;

	/* m->snap is dropped at m's first change: it is as m is */
	if (!snap) {
		snap = pda_zalloc(s, sizeof(*snap));
		if (!snap)
			return PD_ERR_NOMEM;
		snap->m.v = m->v;
		snap->m.nr = m->nr;
		snap->m.gen = 1ull << 63 | ++s->machine.nr_snaps;
		snap->live = m;
		snap->src_gen = m->gen;
		m->snap = snap;
	}
	*out = snap;
	return 0;
}

void pda_maps_snap_free(struct pda_session *s, struct pda_maps_snap *snap)
{
	if (!snap)
		return;
	if (snap->live)
		snap->live->snap = NULL;
	else
		pda_free(s, snap->m.v);
	pda_free(s, snap);
}

void pda_maps_bump(struct pda_session *s, struct pda_maps *m)
{
	struct pda_mhist *h = m->hist;

	/* below the snapshots' gens, which have the top bit set */
	m->gen = ++s->machine.nr_gens;
	if (!h || !s->machine.hist_on || h->nr_chg == h->chg_alloc)
		return; /* hist_ready made room: never full here */
	if (h->nr_chg && h->chg[h->nr_chg - 1].epoch == s->machine.epoch)
		h->nr_chg--; /* one change per epoch: its last gen */
	h->chg[h->nr_chg].epoch = s->machine.epoch;
	h->chg[h->nr_chg++].gen = m->gen;
}

int pda_maps_insert(struct pda_session *s, struct pda_maps *m,
		    const struct pda_map *map)
{
	struct pda_map left, right;
	bool has_left = false, has_right = false;
	size_t i, j, nr_new, nr_old;

	if (map->end <= map->start)
		return 0;
	if (unshare(s, m) < 0 || hist_ready(s, m, 3) < 0)
		return PD_ERR_NOMEM;
	i = first_above(m, map->start);
	for (j = i; j < m->nr && m->v[j].start < map->end; j++)
		;
	if (i < j && m->v[i].start < map->start) {
		left = m->v[i];
		left.end = map->start;
		has_left = true;
	}
	if (i < j && m->v[j - 1].end > map->end) {
		right = m->v[j - 1];
		right.pgoff += map->end - right.start;
		right.start = map->end;
		has_right = true;
	}
	nr_old = j - i;
	nr_new = 1 + has_left + has_right;
	if (nr_new > nr_old) {
		int rc = PDA_GROW(s, m->v, m->alloc, m->nr + nr_new - nr_old,
				  PDA_MAPS_MAX);

		if (rc < 0)
			return rc;
	}
	for (size_t k = i; k < j; k++)
		hist_close(s, m, &m->v[k]);
	memmove(&m->v[i + nr_new], &m->v[j], (m->nr - j) * sizeof(*m->v));
	pda_maps_bump(s, m);
	m->nr = m->nr + nr_new - nr_old;
	if (has_left) {
		m->v[i] = left;
		if (m->hist)
			hist_open(s, m->hist, &m->v[i]);
		i++;
	}
	m->hint = i;
	m->v[i] = *map;
	if (m->hist)
		hist_open(s, m->hist, &m->v[i]);
	i++;
	if (has_right) {
		m->v[i] = right;
		if (m->hist)
			hist_open(s, m->hist, &m->v[i]);
	}
	return 0;
}

int pda_maps_remove(struct pda_session *s, struct pda_maps *m, uint64_t start,
		    uint64_t end)
{
	size_t i = first_above(m, start);

	if (i < m->nr && m->v[i].start == start && m->v[i].end == end) {
		if (unshare(s, m) < 0 || hist_ready(s, m, 0) < 0)
			return PD_ERR_NOMEM;
		hist_close(s, m, &m->v[i]);
		memmove(&m->v[i], &m->v[i + 1],
			(m->nr - i - 1) * sizeof(*m->v));
		pda_maps_bump(s, m);
		m->nr--;
		m->hint = 0;
	}
	return 0;
}

void pda_maps_release(struct pda_session *s, struct pda_maps *m)
{
	detach(m);
	pda_free(s, m->v);
	hist_free(s, m->hist);
	memset(m, 0, sizeof(*m));
	pda_maps_bump(s, m); /* what was cached of m stays stale */
}

/* m without maps: a new process under a reused pid.  0 or NOMEM. */
static int maps_clear(struct pda_session *s, struct pda_maps *m,
		      size_t nr_open)
{
	if (hist_ready(s, m, nr_open) < 0)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < m->nr; i++)
		hist_close(s, m, &m->v[i]);
	detach(m);
	m->nr = 0;
	m->hint = 0;
	pda_maps_bump(s, m);
	return 0;
}

static int maps_copy(struct pda_session *s, struct pda_maps *dst,
		     const struct pda_maps *src)
{
	if (maps_clear(s, dst, src->nr) < 0)
		return PD_ERR_NOMEM;
	if (!src->nr)
		return 0;
	if (PDA_GROW(s, dst->v, dst->alloc, src->nr, PDA_MAPS_MAX) < 0)
		return PD_ERR_NOMEM;
	memcpy(dst->v, src->v, src->nr * sizeof(*src->v));
	dst->nr = src->nr;
	if (dst->hist)
		for (size_t i = 0; i < dst->nr; i++)
			hist_open(s, dst->hist, &dst->v[i]);
	return 0;
}

/* ---- processes and threads ----------------------------------------- */

static bool proc_eq(const void *item, const void *key)
{
	return ((const struct pda_proc *)item)->pid == *(const uint32_t *)key;
}

static bool thread_eq(const void *item, const void *key)
{
	return ((const struct pda_thread *)item)->tid ==
	       *(const uint32_t *)key;
}

static struct pda_proc *find_proc(struct pda_session *s, uint32_t pid)
{
	struct pda_machine *m = &s->machine;

	if (m->last_proc && m->last_proc->pid == pid)
		return m->last_proc;
	m->last_proc = pdc_hash_find(&m->procs, pdc_hash_u64(pid), proc_eq,
				     &pid);
	return m->last_proc;
}

static struct pda_proc *findnew_proc(struct pda_session *s, uint32_t pid)
{
	struct pda_proc *p = find_proc(s, pid);

	if (p)
		return p;
	p = pda_arena_alloc(s, sizeof(*p));
	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (pdc_hash_add(&s->alloc, &s->machine.procs, pdc_hash_u64(pid), p) <
	    0)
		return NULL;
	s->machine.last_proc = p;
	return p;
}

struct pda_maps *pda_machine_maps(struct pda_session *s, uint32_t pid)
{
	struct pda_proc *p = findnew_proc(s, pid);

	return p ? &p->maps : NULL;
}

static struct pda_thread *find_thread(struct pda_session *s, uint32_t tid)
{
	return pdc_hash_find(&s->machine.threads, pdc_hash_u64(tid), thread_eq,
			     &tid);
}

static struct pda_thread *findnew_thread(struct pda_session *s, uint32_t pid,
					 uint32_t tid)
{
	struct pda_thread *t = find_thread(s, tid);

	if (t)
		return t;
	t = pda_arena_alloc(s, sizeof(*t));
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = pid;
	if (pdc_hash_add(&s->alloc, &s->machine.threads, pdc_hash_u64(tid),
			 t) < 0)
		return NULL;
	return t;
}

const char *pda_thread_comm(struct pda_session *s, uint32_t pid, uint32_t tid)
{
	const struct pda_thread *t = find_thread(s, tid);

	(void)pid;
	return t && t->comm ? t->comm : "";
}

struct pda_nsid pda_thread_cgroup_ns(struct pda_session *s, uint32_t pid,
				     uint32_t tid)
{
	const struct pda_thread *t = find_thread(s, tid);

	(void)pid;
	return t ? t->cgns : (struct pda_nsid){0, 0};
}

const char *pda_session_cgroup(struct pda_session *s, uint64_t id)
{
	const struct pda_machine *m = &s->machine;

	/* a capture names a handful of cgroups: a scan will do */
	for (size_t i = 0; i < m->nr_cgroups; i++)
		if (m->cgroups[i].id == id)
			return m->cgroups[i].path;
	return NULL;
}

/* A CGROUP record: its path, unless the id has one already.  0 or
 * NOMEM. */
static int on_cgroup(struct pda_session *s, const struct pd_event *ev)
{
	struct pda_machine *m = &s->machine;
	const char *path;

	if (pda_session_cgroup(s, ev->cgroup.id))
		return 0;
	path = pda_intern(s, ev->cgroup.path.ptr,
			  strnlen(ev->cgroup.path.ptr, ev->cgroup.path.len));
	if (!path ||
	    PDA_GROW(s, m->cgroups, m->alloc_cgroups, m->nr_cgroups + 1,
		     SIZE_MAX / sizeof(*m->cgroups)) < 0)
		return PD_ERR_NOMEM;
	m->cgroups[m->nr_cgroups].id = ev->cgroup.id;
	m->cgroups[m->nr_cgroups++].path = path;
	return 0;
}

/* t's comm becomes comm (NULL: none known) and its cgroup namespace
 * cgns.  0 or NOMEM. */
static int set_state(struct pda_session *s, struct pda_thread *t,
		     const char *comm, struct pda_nsid cgns, bool fork)
{
	const uint32_t epoch = s->machine.epoch;

	if (s->machine.hist_on) {
		if (!t->nr_ch) {
			t->comm0 = t->comm;
			t->cgns0 = t->cgns;
		}
		if (!t->nr_ch || t->ch[t->nr_ch - 1].epoch != epoch) {
			if (PDA_GROW(s, t->ch, t->ch_alloc, t->nr_ch + 1,
				     HIST_MAX) < 0)
				return PD_ERR_NOMEM;
			t->nr_ch++;
			t->ch[t->nr_ch - 1].fork = false;
		}
		t->ch[t->nr_ch - 1].epoch = epoch;
		t->ch[t->nr_ch - 1].comm = comm;
		t->ch[t->nr_ch - 1].cgns = cgns;
		/* a FORK then a COMM in one epoch: still a new thread for
		 * later_fill (the rows before it keep ":TID") */
		t->ch[t->nr_ch - 1].fork |= fork;
		t->ch_gen++;
	}
	t->comm = comm;
	t->cgns = cgns;
	return 0;
}

static int set_comm(struct pda_session *s, struct pda_thread *t,
		    const char *comm)
{
	return set_state(s, t, comm, t->cgns, false);
}

/*
 * The name perf's report gives a thread without a comm at history entry
 * i on, into each entry's later: perf's ____thread__set_comm() overrides
 * the thread's default ":TID" comm in place at its first COMM
 * (comm__override), so the rows made before take that name; a FORK makes
 * the thread anew (the old one, with its samples, keeps ":TID").  NULL:
 * none.  Filled once for the history as it is, from its end, not looked
 * for at each lookup (a thread's samples come at many epochs).
 */
static void later_fill(struct pda_thread *t)
{
	const char *later = NULL;

	if (t->later_gen == t->ch_gen)
		return;
	for (size_t i = t->nr_ch; i > 0; i--) {
		struct pda_hcomm *h = &t->ch[i - 1];

		if (h->fork)
			later = NULL;
		else if (h->comm)
			later = h->comm;
		h->later = later;
	}
	t->later_gen = t->ch_gen;
}

/* t's state at epoch: its comm (or NULL) and cgroup namespace, and
 * (without a comm) the one report names it by later. */
static const char *state_at(struct pda_thread *t, uint32_t epoch,
			    struct pda_nsid *cgns, const char **later)
{
	size_t lo = 0, hi = t->nr_ch;

	*later = NULL;
	if (!t->nr_ch || epoch == PDA_EPOCH_LIVE) {
		*cgns = t->cgns;
		return t->comm;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ch[mid].epoch <= epoch)
			lo = mid + 1;
		else
			hi = mid;
	}
	*cgns = lo ? t->ch[lo - 1].cgns : t->cgns0;
	if (!(lo ? t->ch[lo - 1].comm : t->comm0) && lo < t->nr_ch) {
		later_fill(t);
		*later = t->ch[lo].later;
	}
	return lo ? t->ch[lo - 1].comm : t->comm0;
}

/* Another hold on at's views (inline: every sample of a run in one). */
static inline __attribute__((always_inline)) void at_hold(const struct pda_machine *mc, struct pda_at *at)
{
	if (at->uv)
		view_ref(mc, at->uv, 1);
	if (at->kv)
		view_ref(mc, at->kv, 1);
}

static int machine_at_miss(struct pda_session *s, struct pda_at_cache *ac,
			   uint32_t epoch, uint32_t pid, uint32_t tid,
			   struct pda_at *at);

int pda_machine_at(struct pda_session *s, struct pda_view *v, uint32_t epoch,
		   uint32_t pid, uint32_t tid, struct pda_at *at)
{
	struct pda_machine *mc = &s->machine;
	struct pda_at_cache *ac = &v->atc;
	int rc;

	/* samples come in runs of one thread at one epoch */
	if (ac->ok && ac->pid == pid && ac->tid == tid && ac->epoch == epoch) {
		*at = ac->at;
		at_hold(mc, at);
		return 0;
	}
	if (!mc->lock)
		return machine_at_miss(s, ac, epoch, pid, tid, at);
	pthread_mutex_lock(mc->lock);
	rc = machine_at_miss(s, ac, epoch, pid, tid, at);
	pthread_mutex_unlock(mc->lock);
	return rc;
}

/* pda_machine_at() past ac. */
static int machine_at_miss(struct pda_session *s, struct pda_at_cache *ac,
			   uint32_t epoch, uint32_t pid, uint32_t tid,
			   struct pda_at *at)
{
	struct pda_machine *mc = &s->machine;
	struct pda_maps *live;
	struct pda_thread *t;
	const char *comm;

	live = pda_machine_maps(s, pid);
	t = find_thread(s, tid);
	memset(at, 0, sizeof(*at));
	comm = t ? state_at(t, epoch, &at->cgns, &at->comm_later) : NULL;
	at->comm = comm ? comm : "";
	if (!live)
		return pda_set_err(s, PD_ERR_NOMEM, "out of memory");
	if (view_get(s, live, epoch, &at->umaps, &at->uv) < 0 ||
	    view_get(s, &mc->kmaps, epoch, &at->kmaps, &at->kv) < 0) {
		pda_at_put(s, at);
		return PD_ERR_NOMEM;
	}
	/* the cache holds its views too */
	if (ac->ok)
		pda_at_put(s, &ac->at);
	ac->at = *at;
	at_hold(mc, &ac->at);
	ac->ok = true;
	ac->pid = pid;
	ac->tid = tid;
	ac->epoch = epoch;
	return 0;
}

int pda_machine_init(struct pda_session *s)
{
	struct pda_thread *idle;

	/* perf names the idle task's thread 0/0 "swapper" itself */
	idle = findnew_thread(s, 0, 0);
	if (!idle)
		return PD_ERR_NOMEM;
	idle->comm = pda_intern(s, "swapper", 7);
	return idle->comm ? 0 : PD_ERR_NOMEM;
}

void pda_machine_release(struct pda_session *s)
{
	struct pda_machine *m = &s->machine;
	struct pda_proc *p;
	size_t pos = 0;

	struct pda_thread *t;

	while (m->views) {
		struct pda_mview *v = m->views;

		m->views = v->next;
		view_free(s, v);
	}
	m->nr_views = 0;
	while ((p = pdc_hash_next(&m->procs, &pos)))
		pda_maps_release(s, &p->maps);
	pos = 0;
	while ((t = pdc_hash_next(&m->threads, &pos)))
		pda_free(s, t->ch);
	pdc_hash_release(&s->alloc, &m->procs);
	pdc_hash_release(&s->alloc, &m->threads);
	pda_maps_release(s, &m->kmaps);
	pda_kernel_ahead_free(s);
	pda_free(s, m->cgroups);
	m->cgroups = NULL;
	m->nr_cgroups = m->alloc_cgroups = 0;
	m->last_proc = NULL;
}

/* ---- records ------------------------------------------------------- */

static bool is_guest(uint16_t misc)
{
	unsigned cpumode = misc & PD_MISC_CPUMODE_MASK;

	return cpumode == PD_MISC_GUEST_KERNEL || cpumode == PD_MISC_GUEST_USER;
}

static int on_comm(struct pda_session *s, const struct pd_event *ev)
{
	struct pda_thread *t;
	const char *comm;

	t = findnew_thread(s, ev->comm.pid, ev->comm.tid);
	comm = pda_intern(s, ev->comm.comm.ptr, ev->comm.comm.len);
	if (!t || !comm)
		return PD_ERR_NOMEM;
	t->pid = ev->comm.pid;
	return set_comm(s, t, comm);
}

static int on_fork(struct pda_session *s, const struct pd_event *ev)
{
	const struct pd_ev_fork *fk = &ev->fork;
	struct pda_thread *child, *parent;
	struct pda_proc *cp, *pp;

	parent = find_thread(s, fk->ptid);
	child = findnew_thread(s, fk->pid, fk->tid);
	if (!child)
		return PD_ERR_NOMEM;
	/* a reused thread id: the old thread is gone */
	child->pid = fk->pid;
	child->dead = false;
	if (set_state(s, child, parent ? parent->comm : NULL,
		      (struct pda_nsid){0, 0}, true) < 0)
		return PD_ERR_NOMEM;
	if (fk->pid == fk->ppid)
		return 0; /* a new thread: it shares its process's maps */
	cp = findnew_proc(s, fk->pid);
	if (!cp)
		return PD_ERR_NOMEM;
	if (ev->misc & MISC_FORK_EXEC)
		return maps_clear(s, &cp->maps, 0); /* a reused pid */
	pp = find_proc(s, fk->ppid);
	return pp ? maps_copy(s, &cp->maps, &pp->maps)
		  : maps_clear(s, &cp->maps, 0);
}

/* perf's CGROUP_NS_INDEX: the cgroup namespace's place in a NAMESPACES
 * record's link_info */
#define CGROUP_NS_INDEX 6

/* A NAMESPACES record (the kernel's at fork, unshare and setns, perf's
 * for the threads running at the start): the thread's cgroup namespace
 * from now on.  perf 6.1 reads past a record of fewer namespaces; here
 * the namespace is then unknown (0/0). */
static int on_namespaces(struct pda_session *s, const struct pd_event *ev)
{
	const struct pd_ev_namespaces *ns = &ev->namespaces;
	struct pda_thread *t = findnew_thread(s, ns->pid, ns->tid);
	struct pda_nsid id = {0, 0};

	if (!t)
		return PD_ERR_NOMEM;
	if (ns->nr_namespaces > CGROUP_NS_INDEX) {
		id.dev = pd_u64s_get(&ns->link_info, 2 * CGROUP_NS_INDEX);
		id.ino = pd_u64s_get(&ns->link_info, 2 * CGROUP_NS_INDEX + 1);
	}
	return set_state(s, t, t->comm, id, false);
}

static int on_exit_rec(struct pda_session *s, const struct pd_event *ev)
{
	struct pda_thread *t = find_thread(s, ev->fork.tid);

	/* samples after EXIT (the exit path) still resolve, as in perf */
	if (t)
		t->dead = true;
	return 0;
}

static bool has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

static bool is_name(const char *s, size_t len, const char *name)
{
	return len == strlen(name) && memcmp(s, name, len) == 0;
}

/* What a user-space map's name says it is (perf's map__new). */
static enum pda_map_kind user_map_kind(const char *name, size_t len, bool exec,
				       bool hugetlb)
{
	bool anon, no_dso;

	if (is_name(name, len, "[vdso]") || is_name(name, len, "[vdso32]") ||
	    is_name(name, len, "[vdsox32]"))
		return PDA_MAP_VDSO;
	anon = is_name(name, len, "//anon") ||
	       has_prefix(name, len, "/dev/zero") ||
	       has_prefix(name, len, "/anon_hugepage") || hugetlb;
	no_dso = has_prefix(name, len, "[stack") ||
		 has_prefix(name, len, "/SYSV") || is_name(name, len, "[heap]");
	/*
	 * perf 6.1 treats memfd code as a file it cannot find; JIT engines
	 * that map code through a memfd write perf-PID.map like the others,
	 * so it is looked up there.
	 */
	if (has_prefix(name, len, "/memfd:"))
		return exec ? PDA_MAP_JIT : PDA_MAP_ANON;
	if (anon || no_dso)
		return exec ? PDA_MAP_JIT : PDA_MAP_ANON;
	/* "[vsyscall]", "[uprobes]", "[anon:name]": not files */
	if (len && name[0] == '[')
		return PDA_MAP_ANON;
	return PDA_MAP_FILE;
}

struct mmap_args {
	uint32_t pid;
	uint64_t start, len, pgoff;
	const char *name;
	size_t name_len;
	bool exec, hugetlb;
	const unsigned char *build_id;
	unsigned build_id_size;
	bool has_ino; /* MMAP2's inode form */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags; /* kept on the map (perf's dcacheline key) */
};

static uint64_t map_end(uint64_t start, uint64_t len)
{
	return len > UINT64_MAX - start ? UINT64_MAX : start + len;
}

/*
 * A JIT maps its jitdump file (jit-PID.dump, any directory) executable
 * so that the capture names it: noted on that process's JIT DSO, whose
 * symbols and code then come from it (pda_jit_load).
 */
static int note_jitdump(struct pda_session *s, const struct mmap_args *a)
{
	const char *base = a->name, *p;
	struct pda_dso_ent *d;
	char jit_name[64];

	for (p = a->name; p < a->name + a->name_len; p++)
		if (*p == '/')
			base = p + 1;
	p = base + 4;
	if (a->name + a->name_len - base < 10 || memcmp(base, "jit-", 4) ||
	    !(*p >= '0' && *p <= '9'))
		return 0;
	while (p < a->name + a->name_len && *p >= '0' && *p <= '9')
		p++;
	if (a->name + a->name_len - p != 5 || memcmp(p, ".dump", 5))
		return 0;
	snprintf(jit_name, sizeof(jit_name), "/tmp/perf-%u.map",
		 (unsigned)a->pid);
	d = pda_dso_get(s, PDA_DSO_JIT, jit_name, strlen(jit_name), NULL, 0,
			a->pid);
	if (!d)
		return PD_ERR_NOMEM;
	d->jitdump = pda_intern(s, a->name, a->name_len);
	return d->jitdump ? 0 : PD_ERR_NOMEM;
}

static int user_mmap(struct pda_session *s, const struct mmap_args *a)
{
	struct pda_map map = {0};
	struct pda_maps *maps;
	char jit_name[64];

	map.start = a->start;
	map.end = map_end(a->start, a->len);
	map.pgoff = a->pgoff;
	map.prot = a->prot;
	map.flags = a->flags;
	map.kind = user_map_kind(a->name, a->name_len, a->exec, a->hugetlb);
	switch (map.kind) {
	case PDA_MAP_FILE:
	case PDA_MAP_VDSO:
		map.name = pda_intern(s, a->name, a->name_len);
		map.dso = pda_dso_get(
			s,
			map.kind == PDA_MAP_VDSO ? PDA_DSO_VDSO : PDA_DSO_FILE,
			a->name, a->name_len, a->build_id, a->build_id_size, 0);
		if (!map.name || !map.dso)
			return PD_ERR_NOMEM;
		/* the first mapping names the file (pda_dso_same_file) */
		if (a->has_ino && !map.dso->has_ino) {
			map.dso->has_ino = true;
			map.dso->maj = a->maj;
			map.dso->min = a->min;
			map.dso->ino = a->ino;
			map.dso->ino_generation = a->ino_generation;
		}
		if (map.kind == PDA_MAP_VDSO)
			map.pgoff = 0; /* as perf: the image starts the map */
		else if (note_jitdump(s, a) < 0)
			return PD_ERR_NOMEM;
		break;
	case PDA_MAP_JIT:
		snprintf(jit_name, sizeof(jit_name), "/tmp/perf-%u.map",
			 (unsigned)a->pid);
		/* memfd code keeps its own name, as perf shows it */
		if (has_prefix(a->name, a->name_len, "/memfd:"))
			map.name = pda_intern(s, a->name, a->name_len);
		else
			map.name = pda_intern(s, jit_name, strlen(jit_name));
		map.dso = pda_dso_get(s, PDA_DSO_JIT, jit_name,
				      strlen(jit_name), NULL, 0, a->pid);
		if (!map.name || !map.dso)
			return PD_ERR_NOMEM;
		break;
	case PDA_MAP_ANON:
		map.name = pda_intern(s, a->name, a->name_len);
		if (!map.name)
			return PD_ERR_NOMEM;
		break;
	case PDA_MAP_KERNEL:
	case PDA_MAP_MODULE:
	case PDA_MAP_KSYM:
		break;
	}
	maps = pda_machine_maps(s, a->pid);
	if (!maps)
		return PD_ERR_NOMEM;
	return pda_maps_insert(s, maps, &map);
}

static struct pda_dso_ent *kernel_dso(struct pda_session *s,
				      const struct mmap_args *a)
{
	static const char kname[] = "[kernel.kallsyms]";
	struct pda_machine *m = &s->machine;
	struct pda_dso_ent *d;

	d = pda_dso_get(s, PDA_DSO_KERNEL, kname, sizeof(kname) - 1,
			a->build_id, a->build_id_size, 0);
	if (d && !m->kernel)
		m->kernel = d;
	return d;
}

static int kernel_mmap(struct pda_session *s, const struct mmap_args *a)
{
	static const char kname[] = "[kernel.kallsyms]";
	struct pda_machine *m = &s->machine;
	struct pda_map map = {0};
	bool is_kernel;

	is_kernel = has_prefix(a->name, a->name_len, kname);
	map.start = a->start;
	map.end = map_end(a->start, a->len);
	if (a->start == 0 && a->len == 0)
		map.end = UINT64_MAX; /* perf: the whole address space */
	map.prot = a->prot;
	map.flags = a->flags;
	map.dso = kernel_dso(s, a);
	if (!map.dso)
		return PD_ERR_NOMEM;
	if (is_kernel) {
		const char *ref = a->name + sizeof(kname) - 1;
		size_t ref_len = a->name_len - (sizeof(kname) - 1);

		map.kind = PDA_MAP_KERNEL;
		map.name = pda_intern(s, kname, sizeof(kname) - 1);
		/* kallsyms addresses: the map is identity-mapped */
		map.pgoff = map.start;
		/*
		 * pgoff is the address of the reloc symbol the name ends
		 * with ("_text"); 0 when kptr_restrict hid it.
		 */
		if (a->pgoff && ref_len) {
			m->ref_name = pda_intern(s, ref, ref_len);
			if (!m->ref_name)
				return PD_ERR_NOMEM;
			m->ref_addr = a->pgoff;
		}
		m->kimage = map;
		/* kernel addresses may land in kimage */
		if (hist_ready(s, &m->kmaps, 0) < 0)
			return PD_ERR_NOMEM;
		pda_maps_bump(s, &m->kmaps);
	} else if (a->name_len && (a->name[0] == '/' || a->name[0] == '[')) {
		map.kind = PDA_MAP_MODULE;
		map.name = pda_intern(s, a->name, a->name_len);
		map.pgoff = map.start;
	} else {
		/*
		 * perf's extra kernel maps (x86 entry trampolines): code
		 * whose kallsyms address is pgoff.
		 */
		map.kind = PDA_MAP_KERNEL;
		map.name = pda_intern(s, kname, sizeof(kname) - 1);
		map.pgoff = a->pgoff;
	}
	if (!map.name)
		return PD_ERR_NOMEM;
	return pda_maps_insert(s, &m->kmaps, &map);
}

static int on_mmap(struct pda_session *s, const struct pd_event *ev)
{
	struct mmap_args a = {0};
	unsigned cpumode = ev->misc & PD_MISC_CPUMODE_MASK;

	if (ev->type == PD_REC_MMAP) {
		a.pid = ev->mmap.pid;
		a.start = ev->mmap.start;
		a.len = ev->mmap.len;
		a.pgoff = ev->mmap.pgoff;
		a.name = ev->mmap.filename.ptr;
		a.name_len = ev->mmap.filename.len;
		/* perf: an MMAP is code unless it says MMAP_DATA */
		a.exec = !(ev->misc & PD_MISC_MMAP_DATA);
		a.prot = a.exec ? PROT_EXEC_FLAG : 0;
	} else {
		a.pid = ev->mmap2.pid;
		a.start = ev->mmap2.start;
		a.len = ev->mmap2.len;
		a.pgoff = ev->mmap2.pgoff;
		a.name = ev->mmap2.filename.ptr;
		a.name_len = ev->mmap2.filename.len;
		a.exec = ev->mmap2.prot & PROT_EXEC_FLAG;
		a.prot = ev->mmap2.prot;
		a.flags = ev->mmap2.flags;
		a.hugetlb = ev->mmap2.flags & MAP_HUGETLB_FLAG;
		/* simpleperf looks such a map's symbols up by address: make
		 * its offsets the addresses (pgoff + ip - start = ip) */
		if (ev->mmap2.prot & PROT_JIT_SYMFILE_FLAG)
			a.pgoff = a.start;
		if (ev->mmap2.has_build_id && ev->mmap2.build_id_size) {
			a.build_id = ev->mmap2.build_id;
			a.build_id_size = ev->mmap2.build_id_size;
		} else if (!ev->mmap2.has_build_id) {
			a.has_ino = true;
			a.maj = ev->mmap2.maj;
			a.min = ev->mmap2.min;
			a.ino = ev->mmap2.ino;
			a.ino_generation = ev->mmap2.ino_generation;
		}
	}
	if (cpumode == PD_MISC_KERNEL)
		return kernel_mmap(s, &a);
	return user_mmap(s, &a);
}

static int on_ksymbol(struct pda_session *s, const struct pd_event *ev)
{
	const struct pd_ev_ksymbol *k = &ev->ksymbol;
	struct pda_machine *m = &s->machine;
	const struct pda_map *cover;
	struct pda_map map = {0};

	map.start = k->addr;
	map.end = map_end(k->addr, k->len);
	if (k->flags & KSYMBOL_UNREGISTER)
		return pda_maps_remove(s, &m->kmaps, map.start, map.end);
	map.kind = PDA_MAP_KSYM;
	map.pgoff = map.start;
	map.sym = pda_intern(s, k->name.ptr, k->name.len);
	if (!map.sym)
		return PD_ERR_NOMEM;
	/*
	 * perf gives the symbol to a kernel map that covers it, else a map
	 * and dso named after the symbol.
	 */
	cover = pda_maps_find(&m->kmaps, k->addr);
	map.name = cover && cover->kind != PDA_MAP_KSYM ? cover->name : map.sym;
	return pda_maps_insert(s, &m->kmaps, &map);
}

static int on_build_id(struct pda_session *s, const struct pd_event *ev)
{
	const struct pd_ev_build_id *b = &ev->build_id;
	unsigned cpumode = ev->misc & PD_MISC_CPUMODE_MASK;

	if (is_guest(ev->misc))
		return 0;
	return pda_dso_note_build_id(s, b->filename.ptr, b->filename.len,
				     cpumode == PD_MISC_KERNEL, b->build_id,
				     b->size);
}

/* Build-ids of the HEADER_BUILD_ID feature (file mode, or pipe mode
 * once its HEADER_FEATURE arrived). */
static int absorb_env(struct pda_session *s)
{
	const struct pd_env *env;
	int rc = pd_file_env(s->f, &env);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < env->nr_build_ids; i++) {
		const struct pd_env_build_id *b = &env->build_ids[i];

		if (b->cpumode == PD_MISC_GUEST_KERNEL ||
		    b->cpumode == PD_MISC_GUEST_USER || !b->filename)
			continue;
		rc = pda_dso_note_build_id(s, b->filename, strlen(b->filename),
					   b->cpumode == PD_MISC_KERNEL,
					   b->build_id, b->size);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int pda_machine_absorb_env(struct pda_session *s)
{
	return absorb_env(s);
}

bool pda_machine_changes(uint32_t type)
{
	switch (type) {
	case PD_REC_COMM:
	case PD_REC_FORK:
	case PD_REC_EXIT:
	case PD_REC_MMAP:
	case PD_REC_MMAP2:
	case PD_REC_KSYMBOL:
	case PD_REC_HEADER_BUILD_ID:
	case PD_REC_HEADER_FEATURE:
	case PD_REC_CGROUP:
	case PD_REC_NAMESPACES:
		return true;
	default:
		return false;
	}
}

int pda_machine_feed(struct pda_session *s, const struct pd_rec *rec)
{
	struct pd_event ev;
	int rc;

	if (!pda_machine_changes(rec->type))
		return 0;
	rc = pd_event_decode(s->f, rec, &ev);
	if (rc != 0) {
		/* E5: counted and warned about, never silent */
		s->machine.nr_bad++;
		pda_logf(s, PD_LOG_WARN,
			 "%s record at offset 0x%llx skipped: %s",
			 pd_rec_type_name(rec->type),
			 (unsigned long long)rec->offset,
			 rc < 0 ? pd_file_errmsg(s->f) : "unknown type");
		return rc == PD_ERR_NOMEM ? rc : 0;
	}
	if (rec->type < PD_REC_USER_TYPE_START && is_guest(ev.misc)) {
		s->machine.nr_guest++;
		return 0;
	}
	switch (rec->type) {
	case PD_REC_COMM:
		return on_comm(s, &ev);
	case PD_REC_FORK:
		return on_fork(s, &ev);
	case PD_REC_EXIT:
		return on_exit_rec(s, &ev);
	case PD_REC_MMAP:
	case PD_REC_MMAP2:
		return on_mmap(s, &ev);
	case PD_REC_KSYMBOL:
		return on_ksymbol(s, &ev);
	case PD_REC_CGROUP:
		return on_cgroup(s, &ev);
	case PD_REC_NAMESPACES:
		return on_namespaces(s, &ev);
	case PD_REC_HEADER_BUILD_ID:
		return on_build_id(s, &ev);
	case PD_REC_HEADER_FEATURE:
		return ev.feature.feat_id == PD_FEAT_BUILD_ID ? absorb_env(s)
							      : 0;
	default:
		return 0;
	}
}
