/*
 * pda_collect.c - samples into a profile at full detail (pda_collect.h).
 *
 * The per-sample path: the event's column pair (a one-entry cache in
 * front of a short list), the root location (a one-entry cache by thread
 * and comm), then each frame's location through a hash keyed by the
 * frame's identity.  The session interns sym, dso and srcfile, so their
 * pointers stand for their strings and a key is compared as bytes.
 * Stacks are found or added root first, pda_profile_add_stack() doing
 * the lookup.  Locations are made once, the first time a key is seen.
 */
#include "pda_base_int.h"
#include "pda_collect.h"
#include "pdc_text.h"

#include <stdio.h>
#include <string.h>

/* A frame's identity: equal keys are one location. */
struct fkey {
	const char *sym, *dso, *file; /* the session's interned strings */
	uint64_t addr;		      /* dso_addr with a dso, else ip */
	uint32_t line, flags;
};

_Static_assert(sizeof(struct fkey) == 3 * sizeof(void *) + 16,
	       "a frame key is compared as bytes: no padding");

struct fent {
	struct fkey k;
	uint32_t loc;
};

struct event {
	const struct pd_evsel *evsel; /* NULL: samples whose event is unknown */
	unsigned first;		      /* its samples column; period next */
};

#define COMM_CACHED 64

struct pda_collect {
	struct pd_alloc mem;
	unsigned flags, max_stack;
	struct pda_profile *p;	/* NULL once handed over */
	bool done;
	struct pdc_arena arena; /* struct fent */
	struct pdc_hash frames; /* struct fent by key */
	struct event *events;
	size_t alloc_events;
	unsigned last_event;	/* index into events, or UINT_MAX */
	uint32_t *locs;		/* the sample's locations, leaf first */
	size_t alloc_locs;
	/* the last sample's thread and its root location */
	bool root_set;
	uint32_t root_pid, root_tid, root_loc;
	char root_comm[COMM_CACHED];
	struct pda_collect_stats st;
};

static bool fent_eq(const void *item, const void *key)
{
	return memcmp(&((const struct fent *)item)->k, key,
		      sizeof(struct fkey)) == 0;
}

static uint64_t fkey_hash(const struct fkey *k)
{
	uint64_t h = pdc_hash_u64((uintptr_t)k->sym ^ k->addr);

	h = pdc_hash_u64(h ^ (uintptr_t)k->dso);
	return pdc_hash_u64(h ^ (uintptr_t)k->file ^
			    ((uint64_t)k->line << 32 | k->flags));
}

int pda_collect_new(const struct pda_collect_opts *opts,
		    struct pda_collect **out)
{
	struct pda_collect_opts o;
	struct pda_collect *col;
	struct pd_alloc m = {NULL, NULL, NULL, NULL};
	int rc;

	*out = NULL;
	if (!opts || pdc_opts_copy(&o, sizeof(o), opts) < 0)
		return PD_ERR_API;
	if (o.flags & ~(unsigned)(PDA_COLLECT_NO_COMM | PDA_COLLECT_PID |
				  PDA_COLLECT_TID))
		return PD_ERR_API;
	if (o.alloc)
		m = *o.alloc;
	col = pdc_zalloc(&m, sizeof(*col));
	if (!col)
		return PD_ERR_NOMEM;
	col->mem = m;
	col->flags = o.flags;
	col->max_stack = o.max_stack ? o.max_stack : PDA_MAX_STACK;
	col->last_event = UINT32_MAX;
	{
		/* the first event takes the two columns made here */
		PDA_PROFILE_OPTS(po, .nr_columns = 2, .alloc = &col->mem);

		rc = pda_profile_new(&po, &col->p);
	}
	if (rc < 0) {
		pdc_free(&m, col);
		return rc;
	}
	*out = col;
	return 0;
}

void pda_collect_free(struct pda_collect *col)
{
	struct pd_alloc m;

	if (!col)
		return;
	m = col->mem;
	pda_profile_free(col->p);
	pdc_hash_release(&m, &col->frames);
	pdc_arena_release(&col->arena, &m);
	pdc_free(&m, col->events);
	pdc_free(&m, col->locs);
	pdc_free(&m, col);
}

const struct pda_collect_stats *
pda_collect_stats(const struct pda_collect *col)
{
	return &col->st;
}

int pda_collect_event(const struct pda_collect *col,
		      const struct pd_evsel *evsel)
{
	for (unsigned e = 0; e < col->st.nr_events; e++)
		if (col->events[e].evsel == evsel)
			return (int)e;
	return -1;
}

/* The first column of sample's event, its two columns made and named
 * on its first sample. */
static int event_column(struct pda_collect *col, const struct pd_evsel *ev,
			unsigned *first)
{
	const char *name = ev ? ev->name : "unknown";
	struct event *e;
	int idx;
	int rc;

	if (col->last_event != UINT32_MAX &&
	    col->events[col->last_event].evsel == ev) {
		*first = col->events[col->last_event].first;
		return 0;
	}
	idx = pda_collect_event(col, ev);
	if (idx >= 0) {
		col->last_event = (unsigned)idx;
		*first = col->events[idx].first;
		return 0;
	}
	if (col->st.nr_events == PDA_COLLECT_MAX_EVENTS)
		return PD_ERR_UNSUPPORTED;
	if (PDC_GROW(&col->mem, col->events, col->alloc_events,
		     col->st.nr_events + 1, PDA_COLLECT_MAX_EVENTS) < 0)
		return PD_ERR_NOMEM;
	e = &col->events[col->st.nr_events];
	e->evsel = ev;
	e->first = 0;
	if (col->st.nr_events) {
		rc = pda_profile_add_columns(col->p, 2, &e->first);
		if (rc < 0)
			return rc;
	}
	/* a failure here leaves named-less columns: harmless, and the
	 * sample is not added */
	if (pda_profile_set_column(col->p, e->first, name, "samples") < 0 ||
	    pda_profile_set_column(col->p, e->first + 1, name, "period") < 0)
		return PD_ERR_NOMEM;
	col->last_event = col->st.nr_events++;
	*first = e->first;
	return 0;
}

/* The thread's root location, named as pdtool fold names it. */
static int root_loc(struct pda_collect *col, const struct pd_sample *sample,
		    const char *comm, uint32_t *id)
{
	const uint32_t pid = col->flags & PDA_COLLECT_PID ? sample->pid : 0;
	const uint32_t tid = sample->tid;
	struct pda_profile_loc l = {.flags = PDA_LOC_ROOT};
	struct pda_profile_func f = {0};
	char small[128];
	struct pdc_strbuf b;
	int rc = PD_ERR_NOMEM;

	if (!comm)
		comm = "";
	if (col->root_set && col->root_tid == tid && col->root_pid == pid &&
	    strcmp(col->root_comm, comm) == 0) {
		*id = col->root_loc;
		return 0;
	}
	pdc_strbuf_init(&b, &col->mem, small, sizeof(small));
	if (*comm) {
		const size_t start = b.len;

		pdc_strbuf_add_text(&b, comm, strlen(comm));
		for (size_t i = start; !b.oom && i < b.len; i++)
			if (b.p[i] == ' ')
				b.p[i] = '_';
	} else {
		pdc_strbuf_addf(&b, ":%d", (int32_t)tid);
	}
	if (col->flags & PDA_COLLECT_PID)
		pdc_strbuf_addf(&b, "-%u", pid);
	if (col->flags & PDA_COLLECT_TID)
		pdc_strbuf_addf(&b, "%s%u",
				col->flags & PDA_COLLECT_PID ? "/" : "-", tid);
	if (!b.oom)
		rc = pda_profile_intern(col->p, b.p, b.len, &l.label);
	pdc_strbuf_release(&b);
	f.name = l.label;
	if (rc == 0)
		rc = pda_profile_add_func(col->p, &f, &l.func);
	if (rc == 0)
		rc = pda_profile_add_loc(col->p, &l, id);
	if (rc < 0)
		return rc;
	/* a comm too long for the cache is named each time */
	col->root_set = strlen(comm) < COMM_CACHED;
	if (col->root_set) {
		memcpy(col->root_comm, comm, strlen(comm) + 1);
		col->root_pid = pid;
		col->root_tid = tid;
		col->root_loc = *id;
	}
	return 0;
}

static int intern_opt(struct pda_profile *p, const char *s, uint32_t *id)
{
	*id = 0;
	return s ? pda_profile_intern(p, s, strlen(s), id) : 0;
}

/*
 * The label: the symbol as fold writes it, ';' as ':' and what is not
 * printable text as \xNN (common/pdc_text.h), or "[unknown]".
 */
static int frame_label(struct pda_collect *col, const char *sym, uint32_t *id)
{
	const size_t len = sym ? strlen(sym) : 0;
	char small[256];
	struct pdc_strbuf b;
	int rc = PD_ERR_NOMEM;

	if (!sym)
		return pda_profile_intern(col->p, "[unknown]", 9, id);
	if (!strchr(sym, ';') && pdc_text_plain(sym, len) == len)
		return pda_profile_intern(col->p, sym, len, id);
	pdc_strbuf_init(&b, &col->mem, small, sizeof(small));
	pdc_strbuf_add_text(&b, sym, len);
	if (!b.oom) {
		for (size_t i = 0; i < b.len; i++)
			if (b.p[i] == ';')
				b.p[i] = ':';
		rc = pda_profile_intern(col->p, b.p, b.len, id);
	}
	pdc_strbuf_release(&b);
	return rc;
}

/* A new location for frame key k. */
static int make_loc(struct pda_collect *col, const struct fkey *k,
		    uint32_t *id)
{
	struct pda_profile *p = col->p;
	struct pda_profile_loc l = {0};
	struct pda_profile_func f = {0};
	struct pda_profile_mapping m = {0};
	const unsigned ff = k->flags;
	int rc;

	rc = frame_label(col, k->sym, &l.label);
	if (rc == 0 && k->sym) {
		rc = intern_opt(p, k->sym, &f.name);
		if (rc == 0)
			rc = intern_opt(p, k->file, &f.file);
		if (rc == 0)
			rc = pda_profile_add_func(p, &f, &l.func);
	}
	if (rc == 0 && k->dso) {
		rc = intern_opt(p, k->dso, &m.name);
		if (rc == 0)
			rc = pda_profile_add_mapping(p, &m, &l.mapping);
	}
	if (rc < 0)
		return rc;
	l.address = k->addr;
	l.line = k->line;
	l.flags = (k->dso ? PDA_LOC_DSO_OFFSET : 0) |
		  (ff & PDA_FRAME_KERNEL ? PDA_LOC_KERNEL : PDA_LOC_USER) |
		  (ff & PDA_FRAME_JIT ? PDA_LOC_JIT : 0) |
		  (ff & PDA_FRAME_INLINED ? PDA_LOC_INLINED : 0) |
		  (!k->sym || (ff & (PDA_FRAME_NO_SYMBOL | PDA_FRAME_NO_MAP))
			   ? PDA_LOC_UNKNOWN
			   : 0);
	return pda_profile_add_loc(p, &l, id);
}

static int frame_loc(struct pda_collect *col, const struct pda_frame *fr,
		     uint32_t *id)
{
	struct fkey k;
	struct pdc_hash_slot *slot;
	struct fent *e;
	uint64_t h;
	int rc;

	memset(&k, 0, sizeof(k));
	k.sym = fr->sym;
	k.dso = fr->dso;
	k.file = fr->srcfile;
	k.addr = fr->dso ? fr->dso_addr : fr->ip;
	k.line = fr->line;
	k.flags = fr->flags;
	h = fkey_hash(&k);
	if (pdc_hash_reserve(&col->mem, &col->frames) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&col->frames, h, fent_eq, &k);
	if (slot->item) {
		*id = ((const struct fent *)slot->item)->loc;
		return 0;
	}
	e = pdc_arena_alloc(&col->arena, &col->mem, sizeof(*e));
	if (!e)
		return PD_ERR_NOMEM;
	rc = make_loc(col, &k, &e->loc);
	if (rc < 0)
		return rc;
	e->k = k;
	/* make_loc() did not touch col->frames: slot is still free */
	pdc_hash_fill(&col->frames, slot, h, e);
	*id = e->loc;
	return 0;
}

int pda_collect_add(struct pda_collect *col, const struct pd_sample *sample,
		    const struct pda_stack *st, const char *comm)
{
	uint32_t stack;

	return pda_collect_add_stack(col, sample, st, comm, &stack);
}

int pda_collect_add_stack(struct pda_collect *col,
			  const struct pd_sample *sample,
			  const struct pda_stack *st, const char *comm,
			  uint32_t *stack_out)
{
	const size_t nr = st ? pda_stack_kept(st, col->max_stack) : 0;
	const uint64_t values[2] = {1, sample->period};
	uint32_t stack = 0;
	unsigned first;
	bool unresolved = false;
	int rc;

	if (col->done)
		return PD_ERR_API;
	rc = event_column(col, sample->evsel, &first);
	if (rc < 0)
		return rc;
	if (PDC_GROW(&col->mem, col->locs, col->alloc_locs, nr + 1,
		     PDA_PROFILE_MAX_DEPTH) < 0)
		return PD_ERR_NOMEM;
	/* the locations first: a stack is added only once all are made */
	for (size_t i = 0; i < nr; i++) {
		const struct pda_frame *fr = &st->frames[i];

		rc = frame_loc(col, fr, &col->locs[i]);
		if (rc < 0)
			return rc;
		if (!fr->sym ||
		    (fr->flags & (PDA_FRAME_NO_SYMBOL | PDA_FRAME_NO_MAP)))
			unresolved = true;
	}
	if (!(col->flags & PDA_COLLECT_NO_COMM)) {
		uint32_t root;

		rc = root_loc(col, sample, comm, &root);
		if (rc == 0)
			rc = pda_profile_add_stack(col->p, 0, root, &stack);
		if (rc < 0)
			return rc;
	}
	for (size_t i = nr; i-- > 0;) {
		rc = pda_profile_add_stack(col->p, stack, col->locs[i], &stack);
		if (rc < 0)
			return rc;
	}
	rc = pda_profile_add_values(col->p, stack, first, 2, values);
	if (rc < 0)
		return rc;
	*stack_out = stack;
	col->st.nr_samples++;
	col->st.nr_truncated += st && nr < st->nr;
	col->st.nr_unresolved += unresolved;
	return 0;
}

int pda_collect_profile(struct pda_collect *col, struct pda_profile **out)
{
	*out = col->p;
	if (!col->p)
		return PD_ERR_API;
	col->p = NULL;
	col->done = true;
	return 0;
}
