/*
 * pda_diff.c - two profiles, A and B, of one run or more each, merged by
 * stack and compared per symbol and per DSO (`pdtool diff`).
 *
 * Names: every string a stack brings is looked up in one table of names;
 * a new one is normalised (pda_diff_names.c) and points at the entry of
 * its normal form (itself when it is normal already), so a frame costs
 * one lookup however many builds spell it.  A stack is the array of its
 * frames' normal names (their interned strings), root first, with a
 * count per run; equal arrays are one stack.
 *
 * pda_diff_finish() walks the stacks once: a leaf's name gets the
 * stack's counts as self, every distinct name in it as inclusive (a
 * recursive function counts once per stack).  Each name or DSO then has
 * a count x_r and a denominator d_r per run r (the run's samples, 1, or
 * the scale symbol's samples); a side's value is sum x / sum d, and a
 * run's is x_r / d_r, which Welch's test compares across runs
 * (pda_sigtest.c).  Rows are sorted by the size of their change.
 *
 * Invariants: every name entry's norm is an entry whose norm is itself;
 * stacks hold norm entries' strings only; counts are per run, A's runs
 * first.  Not thread-safe.
 */
#include "pda_base_int.h"
#include "pda_diff.h"
#include "pda_sigtest_int.h"
#include "pdc_text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES (1u << 20)	 /* frames of one stack (O5) */
#define MAX_ITEMS (UINT32_MAX / 2) /* names, stacks: stamps are uint32_t */
#define DSO_CACHE 256		 /* direct-mapped, by a session's pointer */

/* A name: a symbol, a comm, or (in the DSO table) a DSO's file name;
 * the header of its entry in d->names or d->dsos, str the string. */
struct dname {
	struct dname *norm;	/* the entry of its normal form */
	uint32_t stamp;		/* the last stack (or sample) counted in */
	uint64_t *self, *incl;	/* per run; NULL until counted */
	char str[];
};

/* A distinct stack: frames root first, then per-run counts. */
struct dstack {
	struct pda_diff_stack pub;
	uint64_t *runs;
};

struct dso_slot {
	const char *ptr; /* a session's interned DSO path */
	struct dname *ent;
};

struct pda_diff {
	struct pd_alloc alloc;
	struct pda_diff_opts o;
	char *scale_symbol;	/* o.scale_symbol's copy */
	unsigned nr_runs;	/* both sides */
	bool finished, broken;
	bool sorted;		/* the stacks, by pda_diff_sort_stacks() */
	char errmsg[256];

	struct pdc_intern names; /* struct dname, by string, with ids */
	struct pdc_hash stacks;	 /* struct dstack, by frames */
	struct pdc_intern dsos;	 /* struct dname, DSO file names, ids */
	struct dstack **stack_list;
	size_t nr_stacks, alloc_stacks;
	uint64_t *run_weight;	/* per run: samples added */
	size_t nr_renamed;

	/* pda_diff_add_dsos(): the run being counted and its cache */
	unsigned dso_run;
	uint32_t dso_stamp;
	struct dso_slot dso_cache[DSO_CACHE];
	struct dname *dso_unknown;

	/* scratch */
	const char **buf;	/* the stack being added: normal names */
	size_t alloc_buf;
	struct pda_folded_split split; /* a folded line's frames */
	char *norm;		/* a name being normalised */
	size_t alloc_norm;

	/* after finish */
	struct pda_diff_row *rows[PDA_DIFF_NR_TABLES];
	size_t nr_rows[PDA_DIFF_NR_TABLES];
	struct pda_diff_summary sum;
};

/* ---- errors (memory: pdc_alloc.c, on d->alloc) --------------------- */

static int set_err(struct pda_diff *d, int err, const char *fmt, ...)
	PD_PRINTF(3, 4);
static int set_err(struct pda_diff *d, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->errmsg, sizeof(d->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

static struct dname *name_of(const char *str)
{
	return (struct dname *)(uintptr_t)(str - offsetof(struct dname, str));
}

/* Name id of table t (d->names or d->dsos), in the order they came. */
static struct dname *name_at(const struct pdc_intern *t, size_t id)
{
	return pdc_intern_at(t, id);
}

/* ---- names --------------------------------------------------------- */

/* The entry of s[0..len) in table t, added if new.  @return it, or NULL
 * (out of memory). */
static struct dname *intern(struct pda_diff *d, struct pdc_intern *t,
			    const char *s, size_t len, bool *added)
{
	void *e;
	const int rc = pdc_intern_add(t, &d->alloc, s, len, &e);
	struct dname *n = e;

	*added = rc > 0;
	if (rc > 0)
		n->norm = n; /* normal until frame_name() says otherwise */
	return n;
}

/*
 * The entry a new name e (s[0..len)) stands for: the name shown as text
 * (bytes that are not printable text as \xNN, common/pdc_text.h: a name
 * from folded text may hold any byte but ';', and none may end a line
 * of the output or reach a terminal), normalized unless no_normalize.
 * The entry of a shown name is itself, so names are scanned once each
 * and the writers need not look at them again.
 */
static struct dname *shown_name(struct pda_diff *d, struct dname *e,
				const char *s, size_t len)
{
	char small[256];
	struct pdc_strbuf b;
	struct dname *norm = NULL;
	size_t nlen = len;
	bool added, renamed = false;

	pdc_strbuf_init(&b, &d->alloc, small, sizeof(small));
	if (pdc_text_plain(s, len) != len) {
		pdc_strbuf_add_text(&b, s, len);
		if (b.oom)
			goto out;
		s = b.p;
		len = b.len;
	}
	nlen = len;
	if (!d->o.no_normalize) {
		if (pdc_grow(&d->alloc, (void **)&d->norm, 1, &d->alloc_norm,
			     len + 1, SIZE_MAX) < 0)
			goto out;
		nlen = pda_diff_normalize_name(s, len, d->norm);
		renamed = nlen != len || memcmp(d->norm, s, len) != 0;
		if (renamed)
			s = d->norm;
	}
	if (s == e->str || (nlen == pdc_intern_len(e) &&
			    memcmp(s, e->str, nlen) == 0)) {
		norm = e;
		goto out;
	}
	norm = intern(d, &d->names, s, nlen, &added);
	/* seen before as a name of its own: what that one stands for */
	if (norm && !added)
		norm = norm->norm;
	if (norm) {
		/* the shown form of a shown form is itself */
		e->norm = norm;
		d->nr_renamed += renamed;
	}
out:
	pdc_strbuf_release(&b);
	return norm;
}

/* The entry shown for frame name s[0..len). */
static struct dname *frame_name(struct pda_diff *d, const char *s, size_t len)
{
	struct dname *e;
	bool added;

	e = intern(d, &d->names, s, len, &added);
	if (!e || !added)
		return e ? e->norm : NULL;
	return shown_name(d, e, s, len);
}

/* ---- construction -------------------------------------------------- */

static int check_opts(const struct pda_diff_opts *o, char *why, size_t n)
{
	if (o->nr_runs[0] < 1 || o->nr_runs[0] > PDA_DIFF_MAX_RUNS ||
	    o->nr_runs[1] < 1 || o->nr_runs[1] > PDA_DIFF_MAX_RUNS) {
		snprintf(why, n, "each side needs 1 to %d runs",
			 PDA_DIFF_MAX_RUNS);
		return PD_ERR_API;
	}
	if (o->alpha < 0 || o->alpha >= 1 || isnan(o->alpha)) {
		snprintf(why, n, "the significance level must be in (0, 1)");
		return PD_ERR_API;
	}
	switch (o->scale) {
	case PDA_DIFF_SCALE_TOTAL:
	case PDA_DIFF_SCALE_NONE:
		return 0;
	case PDA_DIFF_SCALE_SYMBOL:
		if (o->scale_symbol && o->scale_symbol[0])
			return 0;
		snprintf(why, n, "scaling by a symbol needs its name");
		return PD_ERR_API;
	}
	snprintf(why, n, "unknown scaling %d", (int)o->scale);
	return PD_ERR_API;
}

int pda_diff_new(const struct pda_diff_opts *opts, struct pda_diff **out)
{
	struct pd_alloc a = {NULL, NULL, NULL, NULL};
	char why[128] = "bad options";
	struct pda_diff_opts o;
	struct pda_diff *d;
	int rc = PD_ERR_API;

	*out = NULL;
	if (opts && pdc_opts_copy(&o, sizeof(o), opts) == 0)
		rc = check_opts(&o, why, sizeof(why));
	if (rc < 0) {
		if (opts &&
		    PDC_OPTS_HAS(opts, struct pda_diff_opts, errbuf_size) &&
		    opts->errbuf && opts->errbuf_size)
			snprintf(opts->errbuf, opts->errbuf_size, "%s", why);
		return rc;
	}
	if (o.alloc)
		a = *o.alloc;
	d = pdc_zalloc(&a, sizeof(*d));
	if (!d)
		return PD_ERR_NOMEM;
	d->alloc = a;
	pdc_intern_init(&d->names, offsetof(struct dname, str), MAX_ITEMS,
			PDC_INTERN_IDS);
	pdc_intern_init(&d->dsos, offsetof(struct dname, str), MAX_ITEMS,
			PDC_INTERN_IDS);
	d->o = o;
	d->o.alloc = NULL;
	d->o.errbuf = NULL;
	if (d->o.alpha == 0)
		d->o.alpha = 0.05;
	d->nr_runs = opts->nr_runs[0] + opts->nr_runs[1];
	d->run_weight =
		pdc_zalloc(&d->alloc, d->nr_runs * sizeof(*d->run_weight));
	d->o.scale_symbol = NULL;
	if (opts->scale == PDA_DIFF_SCALE_SYMBOL) {
		const size_t n = strlen(opts->scale_symbol);

		/* normalised as the frames are, so that it names one */
		d->scale_symbol = pdc_malloc(&d->alloc, n + 1);
		if (d->scale_symbol) {
			size_t len = n;

			if (opts->no_normalize)
				memcpy(d->scale_symbol, opts->scale_symbol, n);
			else
				len = pda_diff_normalize_name(
					opts->scale_symbol, n, d->scale_symbol);
			d->scale_symbol[len] = '\0';
			d->o.scale_symbol = d->scale_symbol;
		}
	}
	if (!d->run_weight ||
	    (opts->scale == PDA_DIFF_SCALE_SYMBOL && !d->scale_symbol)) {
		pda_diff_free(d);
		return PD_ERR_NOMEM;
	}
	d->dso_run = UINT32_MAX;
	d->sum.scale_symbol = d->o.scale_symbol;
	*out = d;
	return 0;
}

/* Free t's names' counts, then t. */
static void free_names(struct pda_diff *d, struct pdc_intern *t)
{
	for (size_t i = 0; i < pdc_intern_nr(t); i++)
		pdc_free(&d->alloc, name_at(t, i)->self);
	pdc_intern_release(t, &d->alloc);
}

void pda_diff_free(struct pda_diff *d)
{
	if (!d)
		return;
	free_names(d, &d->names);
	free_names(d, &d->dsos);
	for (size_t i = 0; i < d->nr_stacks; i++)
		pdc_free(&d->alloc, d->stack_list[i]);
	pdc_free(&d->alloc, d->stack_list);
	pdc_hash_release(&d->alloc, &d->stacks);
	for (int t = 0; t < PDA_DIFF_NR_TABLES; t++)
		pdc_free(&d->alloc, d->rows[t]);
	pdc_free(&d->alloc, d->run_weight);
	pdc_free(&d->alloc, d->scale_symbol);
	pdc_free(&d->alloc, d->buf);
	pda_folded_split_release(&d->alloc, &d->split);
	pdc_free(&d->alloc, d->norm);
	pdc_free(&d->alloc, d);
}

const char *pda_diff_errmsg(const struct pda_diff *d)
{
	return d->errmsg;
}

/* ---- adding -------------------------------------------------------- */

/* The index of a run among both sides' runs, or -1 (API error). */
static int run_index(struct pda_diff *d, enum pda_diff_side side,
		     unsigned run)
{
	if (d->finished || d->broken) {
		set_err(d, PD_ERR_API, "added after pda_diff_finish()");
		return -1;
	}
	if ((side != PDA_DIFF_A && side != PDA_DIFF_B) ||
	    run >= d->o.nr_runs[side]) {
		set_err(d, PD_ERR_API, "no run %u of side %d", run, (int)side);
		return -1;
	}
	return (int)(side == PDA_DIFF_A ? run : d->o.nr_runs[0] + run);
}

struct stack_key {
	const char *const *frames;
	size_t nr;
};

static bool stack_eq(const void *item, const void *key)
{
	const struct dstack *st = item;
	const struct stack_key *k = key;

	return st->pub.nr == k->nr &&
	       (k->nr == 0 || memcmp(st->pub.frames, k->frames,
				     k->nr * sizeof(k->frames[0])) == 0);
}

/* Count weight for the stack d->buf[0..nr) of normal names in run g. */
static int count_stack(struct pda_diff *d, size_t nr, unsigned g,
		       uint64_t weight)
{
	const struct stack_key key = {d->buf, nr};
	uint64_t h = pdc_hash_u64(nr);
	struct dstack *st;
	size_t size;

	/* names are interned: their addresses stand for them */
	for (size_t i = 0; i < nr; i++)
		h = pdc_hash_u64(h ^ (uintptr_t)d->buf[i]);
	st = pdc_hash_find(&d->stacks, h, stack_eq, &key);
	if (st) {
		st->runs[g] += weight;
		return 0;
	}
	if (pdc_grow(&d->alloc, (void **)&d->stack_list,
			 sizeof(*d->stack_list), &d->alloc_stacks,
			 d->nr_stacks + 1, MAX_ITEMS) < 0)
		return PD_ERR_NOMEM;
	size = sizeof(*st) + d->nr_runs * sizeof(uint64_t) +
	       nr * sizeof(const char *);
	st = pdc_zalloc(&d->alloc, size);
	if (!st)
		return PD_ERR_NOMEM;
	st->runs = (uint64_t *)(st + 1);
	st->pub.frames = (const char *const *)(st->runs + d->nr_runs);
	if (nr)
		memcpy((void *)(uintptr_t)st->pub.frames, d->buf,
		       nr * sizeof(d->buf[0]));
	st->pub.nr = nr;
	if (pdc_hash_add(&d->alloc, &d->stacks, h, st) < 0) {
		pdc_free(&d->alloc, st);
		return PD_ERR_NOMEM;
	}
	d->stack_list[d->nr_stacks++] = st;
	st->runs[g] = weight;
	return 0;
}

/*
 * Add a stack of nr frames, each given by frame(arg, i, &name, &len),
 * for weight samples to run g: the common part of pda_diff_add() and
 * pda_diff_add_fold(), which looks names up through a cache.
 */
static int add_stack(struct pda_diff *d, unsigned g, size_t nr,
		     uint64_t weight,
		     const struct dname *(*frame)(struct pda_diff *d,
						  const void *arg, size_t i),
		     const void *arg)
{
	int rc;

	if (weight == 0)
		return 0;
	if (d->run_weight[g] > UINT64_MAX - weight)
		return set_err(d, PD_ERR_FORMAT,
			       "a run's samples do not fit in 64 bits");
	if (nr > MAX_FRAMES ||
	    pdc_grow(&d->alloc, (void **)&d->buf, sizeof(*d->buf),
			 &d->alloc_buf, nr, MAX_FRAMES) < 0)
		return set_err(d, PD_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < nr; i++) {
		const struct dname *e = frame(d, arg, i);

		if (!e)
			return set_err(d, PD_ERR_NOMEM, "out of memory");
		d->buf[i] = e->str;
	}
	rc = count_stack(d, nr, g, weight);
	if (rc < 0)
		return set_err(d, rc, "out of memory");
	d->run_weight[g] += weight;
	return 0;
}

/* The frames of pda_diff_add(). */
struct named {
	const char *const *frames;
	const size_t *lens;
};

static const struct dname *named_frame(struct pda_diff *d, const void *arg,
				       size_t i)
{
	const struct named *n = arg;

	return frame_name(d, n->frames[i], n->lens[i]);
}

int pda_diff_add(struct pda_diff *d, enum pda_diff_side side, unsigned run,
		 const char *const *frames, const size_t *lens, size_t nr,
		 uint64_t weight)
{
	const int g = run_index(d, side, run);
	const struct named n = {frames, lens};

	if (g < 0)
		return PD_ERR_API;
	return add_stack(d, (unsigned)g, nr, weight, named_frame, &n);
}

/* A profile's stack, with the cache of its locations' entries. */
struct prof_frames {
	const struct pda_profile *p;
	const uint32_t *locs;	  /* the stack's, root first */
	const struct dname **ent; /* by location id; NULL: not yet */
};

static const struct dname *prof_frame(struct pda_diff *d, const void *arg,
				      size_t i)
{
	const struct prof_frames *pf = arg;
	const uint32_t loc = pf->locs[i];

	if (!pf->ent[loc]) {
		size_t len;
		const char *s = pda_profile_str(
			pf->p, pda_profile_loc(pf->p, loc)->label, &len);

		pf->ent[loc] = frame_name(d, s, len);
	}
	return pf->ent[loc];
}

int pda_diff_add_profile(struct pda_diff *d, enum pda_diff_side side,
			 unsigned run, const struct pda_profile *p,
			 unsigned col)
{
	const int g = run_index(d, side, run);
	struct prof_frames pf = {p, NULL, NULL};
	uint32_t *locs = NULL;
	size_t alloc_locs = 0;
	int rc = 0;

	if (g < 0 || col >= pda_profile_nr_columns(p))
		return PD_ERR_API;
	/* a location's label is one name: look each up once */
	pf.ent = pdc_zalloc(&d->alloc,
				pda_profile_nr_locs(p) * sizeof(*pf.ent));
	if (!pf.ent)
		return set_err(d, PD_ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < pda_profile_nr_samples(p); i++) {
		const struct pda_profile_sample *s = pda_profile_sample(p, i);
		const struct pda_profile_stack *st =
			pda_profile_stack(p, s->stack);
		const size_t nr = st ? st->depth : 0;

		if (PDC_GROW(&d->alloc, locs, alloc_locs, nr + 1,
				 MAX_FRAMES + 1) < 0) {
			rc = set_err(d, PD_ERR_NOMEM, "out of memory");
			break;
		}
		pda_profile_stack_locs(p, s->stack, locs);
		pf.locs = locs;
		rc = add_stack(d, (unsigned)g, nr, s->values[col], prof_frame,
			       &pf);
	}
	pdc_free(&d->alloc, locs);
	pdc_free(&d->alloc, (void *)pf.ent);
	return rc;
}

int pda_diff_add_fold(struct pda_diff *d, enum pda_diff_side side,
		      unsigned run, struct pda_fold *fd)
{
	struct pda_profile *p;
	int rc;

	if (run_index(d, side, run) < 0)
		return PD_ERR_API;
	rc = pda_fold_profile(fd, &p);
	if (rc < 0)
		return set_err(d, rc, "out of memory");
	rc = pda_diff_add_profile(d, side, run, p, PDA_FOLD_COL_WEIGHT);
	pda_profile_free(p);
	return rc;
}

/* c times f, to the nearest whole count. */
static uint64_t scaled(uint64_t c, double f)
{
	return (uint64_t)((double)c * f + 0.5);
}

int pda_diff_scale_run(struct pda_diff *d, enum pda_diff_side side,
		       unsigned run, uint64_t to)
{
	const int g = run_index(d, side, run);
	uint64_t sum = 0;
	double f;

	if (g < 0 || to > UINT64_MAX / 2)
		return PD_ERR_API;
	if (!d->run_weight[g])
		return 0;
	f = (double)to / (double)d->run_weight[g];
	for (size_t i = 0; i < d->nr_stacks; i++) {
		uint64_t *c = &d->stack_list[i]->runs[g];

		*c = scaled(*c, f);
		sum += *c;
	}
	/* the denominator stays the sum of what the stacks now count */
	d->run_weight[g] = sum;
	for (size_t i = 0; i < pdc_intern_nr(&d->dsos); i++) {
		struct dname *e = name_at(&d->dsos, i);

		if (e->self)
			e->self[g] = scaled(e->self[g], f);
		if (e->incl)
			e->incl[g] = scaled(e->incl[g], f);
	}
	return 0;
}

int pda_diff_add_folded(struct pda_diff *d, enum pda_diff_side side,
			unsigned run, const char *line, size_t len)
{
	int rc;

	if (run_index(d, side, run) < 0)
		return PD_ERR_API;
	rc = pda_folded_split(&d->alloc, &d->split, line, len);
	if (rc < 0)
		return set_err(d, rc, "out of memory");
	if (rc > 0)
		return rc;
	return pda_diff_add(d, side, run, d->split.frames, d->split.lens,
			    d->split.nr, d->split.count);
}

/* The DSO entry of a session's DSO path (NULL: no map), by file name. */
static struct dname *dso_entry(struct pda_diff *d, const char *path)
{
	const char *base = "[unknown]";
	struct dname *e;
	bool added;

	if (path) {
		const char *slash = strrchr(path, '/');

		base = slash && slash[1] ? slash + 1 : path;
	}
	e = intern(d, &d->dsos, base, strlen(base), &added);
	if (e && added) {
		e->self = pdc_zalloc(&d->alloc, 2 * d->nr_runs * sizeof(*e->self));
		if (!e->self)
			return NULL; /* freed with the table */
		e->incl = e->self + d->nr_runs;
	}
	return e;
}

/* The run g's counting begins a sample: its cache kept to the run, a
 * new stamp.  @return 0, or a negative pd_err. */
static int dsos_begin(struct pda_diff *d, enum pda_diff_side side,
		      unsigned run, int *g)
{
	*g = run_index(d, side, run);
	if (*g < 0)
		return PD_ERR_API;
	if (!d->o.dsos)
		return set_err(d, PD_ERR_API, "DSOs counted without opts.dsos");
	if ((unsigned)*g != d->dso_run) {
		/* another run: another session, whose pointers may reuse
		 * the last one's addresses */
		memset(d->dso_cache, 0, sizeof(d->dso_cache));
		d->dso_run = (unsigned)*g;
	}
	if (d->dso_stamp == UINT32_MAX) {
		for (size_t i = 0; i < pdc_intern_nr(&d->dsos); i++)
			name_at(&d->dsos, i)->stamp = 0;
		d->dso_stamp = 0;
	}
	d->dso_stamp++;
	return 0;
}

/* One DSO of a sample's stack (self: its leaf's) counted in run g. */
static int dso_count(struct pda_diff *d, int g, const char *p, bool self,
		     uint64_t weight)
{
	struct dso_slot *slot =
		&d->dso_cache[(pdc_hash_u64((uintptr_t)p)) & (DSO_CACHE - 1)];
	struct dname *e = slot->ent;

	if (!e || slot->ptr != p) {
		e = dso_entry(d, p);
		if (!e || !e->self)
			return set_err(d, PD_ERR_NOMEM, "out of memory");
		slot->ptr = p;
		slot->ent = e;
	}
	if (self)
		e->self[g] += weight;
	if (e->stamp != d->dso_stamp) {
		e->stamp = d->dso_stamp;
		e->incl[g] += weight;
	}
	return 0;
}

int pda_diff_add_dsos(struct pda_diff *d, enum pda_diff_side side,
		      unsigned run, const struct pda_stack *st,
		      uint64_t weight)
{
	int g, rc = dsos_begin(d, side, run, &g);

	if (rc < 0 || !st || !st->nr || !weight)
		return rc;
	for (size_t i = 0; i < st->nr && rc == 0; i++) {
		/* runs of frames in one DSO are the rule */
		if (i > 0 && st->frames[i].dso == st->frames[i - 1].dso)
			continue;
		rc = dso_count(d, g, st->frames[i].dso, i == 0, weight);
	}
	return rc;
}

size_t pda_diff_stack_dsos(const struct pda_stack *st, const char **dsos)
{
	size_t nr = 0;

	for (size_t i = 0; st && i < st->nr; i++)
		if (i == 0 || st->frames[i].dso != st->frames[i - 1].dso)
			dsos[nr++] = st->frames[i].dso;
	return nr;
}

int pda_diff_add_dso_list(struct pda_diff *d, enum pda_diff_side side,
			  unsigned run, const char *const *dsos, size_t nr,
			  uint64_t weight)
{
	int g, rc = dsos_begin(d, side, run, &g);

	for (size_t i = 0; rc == 0 && weight && i < nr; i++)
		rc = dso_count(d, g, dsos[i], i == 0, weight);
	return rc;
}

/* ---- comparing ----------------------------------------------------- */

/* Per-run self and inclusive counts for e, zeroed, once. */
static int ensure_counts(struct pda_diff *d, struct dname *e)
{
	if (e->self)
		return 0;
	e->self = pdc_zalloc(&d->alloc, 2 * d->nr_runs * sizeof(*e->self));
	if (!e->self)
		return PD_ERR_NOMEM;
	e->incl = e->self + d->nr_runs;
	return 0;
}

/* Every stack's counts into its names' self and inclusive counts. */
static int count_names(struct pda_diff *d)
{
	const size_t first = d->o.root_is_comm ? 1 : 0;
	const unsigned r = d->nr_runs;

	for (size_t si = 0; si < d->nr_stacks; si++) {
		const struct dstack *st = d->stack_list[si];
		const uint32_t stamp = (uint32_t)si + 1;
		struct dname *leaf;

		if (st->pub.nr <= first)
			continue;
		for (size_t k = first; k < st->pub.nr; k++) {
			struct dname *e = name_of(st->pub.frames[k]);

			if (ensure_counts(d, e) < 0)
				return PD_ERR_NOMEM;
			/* a recursive function counts once a stack */
			if (e->stamp == stamp)
				continue;
			e->stamp = stamp;
			for (unsigned g = 0; g < r; g++)
				e->incl[g] += st->runs[g];
		}
		leaf = name_of(st->pub.frames[st->pub.nr - 1]);
		for (unsigned g = 0; g < r; g++)
			leaf->self[g] += st->runs[g];
	}
	return 0;
}

/* A run's name for messages: "A" or "B", and its number from 1. */
static int bad_run(struct pda_diff *d, unsigned g, const char *why)
{
	const bool b = g >= d->o.nr_runs[0];

	d->sum.bad_side = b ? PDA_DIFF_B : PDA_DIFF_A;
	d->sum.bad_run = b ? g - d->o.nr_runs[0] : g;
	return set_err(d, PD_ERR_NOTFOUND, "input %u of %c %s",
		       d->sum.bad_run + 1, b ? 'B' : 'A', why);
}

/* Each run's denominator: its samples, 1, or the scale symbol's. */
static int denominators(struct pda_diff *d, double *den)
{
	const struct dname *sym = NULL;

	if (d->o.scale == PDA_DIFF_SCALE_SYMBOL) {
		const struct dname *n = pdc_intern_find(
			&d->names, d->scale_symbol, strlen(d->scale_symbol));

		sym = n ? n->norm : NULL;
	}
	for (unsigned g = 0; g < d->nr_runs; g++) {
		if (!d->run_weight[g])
			return bad_run(d, g, "has no samples");
		switch (d->o.scale) {
		case PDA_DIFF_SCALE_TOTAL:
			den[g] = (double)d->run_weight[g];
			break;
		case PDA_DIFF_SCALE_NONE:
			den[g] = 1.0;
			break;
		case PDA_DIFF_SCALE_SYMBOL:
			if (!sym || !sym->incl || !sym->incl[g]) {
				bad_run(d, g, "has no samples of ");
				d->sum.bad_symbol = true;
				/* the message, with the symbol */
				snprintf(d->errmsg + strlen(d->errmsg),
					 sizeof(d->errmsg) - strlen(d->errmsg),
					 "'%s'", d->scale_symbol);
				return PD_ERR_NOTFOUND;
			}
			den[g] = (double)sym->incl[g];
			break;
		}
	}
	return 0;
}

static int cmp_rows(const void *x, const void *y)
{
	const struct pda_diff_row *a = x, *b = y;
	const double da = fabs(a->delta), db = fabs(b->delta);

	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Scratch for one table's tests. */
struct table_scratch {
	double *va, *vb;	/* per-run values of A and B */
	double *ps, *pr;	/* raw p-values, then adjusted */
	size_t *order;
};

/* One row's values and raw p-values from its per-run counts x. */
static void fill_row(const struct pda_diff *d, const double *den,
		     const uint64_t *x, struct table_scratch *sc, size_t k,
		     struct pda_diff_row *row)
{
	const unsigned na = d->o.nr_runs[0], nb = d->o.nr_runs[1];
	const double unit = d->sum.unit;
	double xs[2] = {0, 0}, ds[2] = {0, 0};
	struct pda_sigtest t;

	for (unsigned g = 0; g < na + nb; g++) {
		const int s = g >= na;

		row->count[s] += x[g];
		xs[s] += (double)x[g];
		ds[s] += den[g];
		if (s)
			sc->vb[g - na] = (double)x[g] / den[g] * unit;
		else
			sc->va[g] = (double)x[g] / den[g] * unit;
	}
	row->value[0] = xs[0] / ds[0] * unit;
	row->value[1] = xs[1] / ds[1] * unit;
	row->delta = row->value[1] - row->value[0];
	pda_sigtest_sampling(d->o.scale, xs[0], ds[0], xs[1], ds[1], &t);
	sc->ps[k] = t.p;
	row->t = row->df = row->p_runs = sc->pr[k] = NAN;
	if (d->sum.runs_tested && pda_sigtest_welch(sc->va, na, sc->vb, nb, &t) == 0) {
		row->t = t.stat;
		row->df = t.df;
		sc->pr[k] = t.p;
	}
}

/*
 * Welch's test decides only between "sampling-only" and "significant",
 * for the changes beyond sampling noise: its p-values are adjusted over
 * those (a change within sampling noise is never significant, so it
 * makes no comparison), which with a few runs a side is what leaves the
 * test any power in a table of many symbols.
 */
static void runs_verdicts(const struct pda_diff *d, struct pda_diff_row *rows,
			  size_t nr_rows, struct table_scratch *sc)
{
	size_t nr = 0;

	/* compact the candidates' p-values to the front of ps */
	for (size_t k = 0; k < nr_rows; k++)
		if (rows[k].verdict == PDA_DIFF_SAMPLING)
			sc->ps[nr++] = sc->pr[k];
	pda_sigtest_holm(sc->ps, nr, sc->order, sc->ps);
	nr = 0;
	for (size_t k = 0; k < nr_rows; k++) {
		if (rows[k].verdict != PDA_DIFF_SAMPLING) {
			rows[k].p_runs = NAN;
			continue;
		}
		rows[k].p_runs = sc->ps[nr++];
		if (rows[k].p_runs < d->o.alpha)
			rows[k].verdict = PDA_DIFF_REAL;
	}
}

/* The rows of table t from the names of names (their self or inclusive
 * counts), tested, adjusted and sorted. */
static int make_rows(struct pda_diff *d, enum pda_diff_table t,
		     const struct pdc_intern *names, bool self,
		     const double *den)
{
	const size_t nr = pdc_intern_nr(names);
	struct table_scratch sc = {NULL, NULL, NULL, NULL, NULL};
	struct pda_diff_row *rows;
	size_t nr_rows = 0;
	int rc = PD_ERR_NOMEM;

	for (size_t i = 0; i < nr; i++) {
		const struct dname *e = name_at(names, i);
		const uint64_t *x = self ? e->self : e->incl;
		uint64_t any = 0;

		for (unsigned g = 0; x && g < d->nr_runs; g++)
			any |= x[g];
		nr_rows += any != 0;
	}
	rows = pdc_zalloc(&d->alloc, nr_rows * sizeof(*rows));
	sc.va = pdc_malloc(&d->alloc, d->nr_runs * sizeof(double));
	sc.vb = pdc_malloc(&d->alloc, d->nr_runs * sizeof(double));
	sc.ps = pdc_malloc(&d->alloc, nr_rows * sizeof(double));
	sc.pr = pdc_malloc(&d->alloc, nr_rows * sizeof(double));
	sc.order = pdc_malloc(&d->alloc, nr_rows * sizeof(size_t));
	if (!rows || !sc.va || !sc.vb || !sc.ps || !sc.pr || !sc.order) {
		pdc_free(&d->alloc, rows);
		goto out;
	}
	for (size_t i = 0, k = 0; i < nr; i++) {
		const struct dname *e = name_at(names, i);
		const uint64_t *x = self ? e->self : e->incl;
		uint64_t any = 0;

		for (unsigned g = 0; x && g < d->nr_runs; g++)
			any |= x[g];
		if (!any)
			continue;
		rows[k].name = e->str;
		fill_row(d, den, x, &sc, k, &rows[k]);
		k++;
	}
	/* the sampling test's p-values are adjusted over the table, the
	 * family of changes the reader scans */
	pda_sigtest_holm(sc.ps, nr_rows, sc.order, sc.ps);
	for (size_t k = 0; k < nr_rows; k++) {
		rows[k].p_sampling = sc.ps[k];
		rows[k].verdict = sc.ps[k] < d->o.alpha ? PDA_DIFF_SAMPLING
							: PDA_DIFF_NOISE;
	}
	if (d->sum.runs_tested)
		runs_verdicts(d, rows, nr_rows, &sc);
	qsort(rows, nr_rows, sizeof(*rows), cmp_rows);
	d->rows[t] = rows;
	d->nr_rows[t] = nr_rows;
	rc = 0;
out:
	pdc_free(&d->alloc, sc.va);
	pdc_free(&d->alloc, sc.vb);
	pdc_free(&d->alloc, sc.ps);
	pdc_free(&d->alloc, sc.pr);
	pdc_free(&d->alloc, sc.order);
	return rc;
}

/*
 * Two stacks as their lines "a;b;c" compare bytewise, without rendering
 * them: frames are interned, so the first pair that differs by address
 * decides, by its bytes, each name followed by ';' or, for the last, by
 * the line's end.
 */
static int cmp_lines(const void *x, const void *y)
{
	const struct pda_diff_stack *a = &(*(struct dstack *const *)x)->pub;
	const struct pda_diff_stack *b = &(*(struct dstack *const *)y)->pub;
	const size_t n = a->nr < b->nr ? a->nr : b->nr;

	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = (const unsigned char *)a->frames[i];
		const unsigned char *q = (const unsigned char *)b->frames[i];
		const unsigned char ta = i + 1 < a->nr ? ';' : '\0';
		const unsigned char tb = i + 1 < b->nr ? ';' : '\0';

		if (p == q)
			continue;
		while (*p && *p == *q) {
			p++;
			q++;
		}
		if (*p && *q)
			return *p < *q ? -1 : 1;
		/* one name ended: its terminator against the other's byte;
		 * a name holding ';' (from a comm) may tie here, and then
		 * the shorter name goes first */
		{
			const unsigned char ca = *p ? *p : ta;
			const unsigned char cb = *q ? *q : tb;

			if (ca != cb)
				return ca < cb ? -1 : 1;
			return *p ? 1 : -1;
		}
	}
	return (a->nr > b->nr) - (a->nr < b->nr);
}

int pda_diff_finish(struct pda_diff *d)
{
	const unsigned na = d->o.nr_runs[0];
	double *den;
	int rc;

	if (d->finished)
		return 0;
	if (d->broken)
		return set_err(d, PD_ERR_API, "pda_diff_finish() failed before");
	d->broken = true; /* until it succeeds */
	den = pdc_malloc(&d->alloc, d->nr_runs * sizeof(*den));
	if (!den)
		return set_err(d, PD_ERR_NOMEM, "out of memory");
	rc = count_names(d);
	if (rc == 0)
		rc = denominators(d, den);
	if (rc < 0) {
		pdc_free(&d->alloc, den);
		return rc == PD_ERR_NOMEM ? set_err(d, rc, "out of memory")
					  : rc;
	}
	d->sum.nr_runs[0] = na;
	d->sum.nr_runs[1] = d->o.nr_runs[1];
	d->sum.denom[0] = d->sum.denom[1] = 0;
	for (unsigned g = 0; g < d->nr_runs; g++) {
		d->sum.weight[g >= na] += d->run_weight[g];
		d->sum.denom[g >= na] += den[g];
	}
	d->sum.unit = d->o.scale == PDA_DIFF_SCALE_NONE ? 1.0 : 100.0;
	d->sum.factor = d->sum.denom[1] / d->sum.denom[0];
	d->sum.scale = d->o.scale;
	d->sum.scale_symbol = d->o.scale_symbol;
	d->sum.alpha = d->o.alpha;
	d->sum.runs_tested = na >= 2 && d->o.nr_runs[1] >= 2;
	d->sum.nr_stacks = d->nr_stacks;
	d->sum.nr_renamed = d->nr_renamed;
	rc = make_rows(d, PDA_DIFF_SELF, &d->names, true, den);
	if (rc == 0)
		rc = make_rows(d, PDA_DIFF_INCL, &d->names, false, den);
	if (rc == 0 && d->o.dsos)
		rc = make_rows(d, PDA_DIFF_DSO_SELF, &d->dsos, true, den);
	if (rc == 0 && d->o.dsos)
		rc = make_rows(d, PDA_DIFF_DSO_INCL, &d->dsos, false, den);
	pdc_free(&d->alloc, den);
	if (rc < 0)
		return set_err(d, rc, "out of memory");
	for (size_t i = 0; i < d->nr_stacks; i++) {
		struct dstack *st = d->stack_list[i];

		for (unsigned g = 0; g < d->nr_runs; g++)
			st->pub.count[g >= na] += st->runs[g];
	}
	d->finished = true;
	d->broken = false;
	return 0;
}

/* ---- results ------------------------------------------------------- */

const struct pda_diff_row *pda_diff_rows(const struct pda_diff *d,
					 enum pda_diff_table t, size_t *nr)
{
	if (!d->finished || (unsigned)t >= PDA_DIFF_NR_TABLES) {
		*nr = 0;
		return NULL;
	}
	*nr = d->nr_rows[t];
	return d->rows[t];
}

const struct pda_diff_summary *pda_diff_summary(const struct pda_diff *d)
{
	return &d->sum;
}

void pda_diff_sort_stacks(struct pda_diff *d)
{
	if (d->finished && !d->sorted)
		qsort(d->stack_list, d->nr_stacks, sizeof(*d->stack_list),
		      cmp_lines);
	d->sorted = d->finished;
}

size_t pda_diff_nr_stacks(const struct pda_diff *d)
{
	return d->finished ? d->nr_stacks : 0;
}

const struct pda_diff_stack *pda_diff_stack(const struct pda_diff *d,
					    size_t i)
{
	if (!d->finished || i >= d->nr_stacks)
		return NULL;
	return &d->stack_list[i]->pub;
}

int pda_diff_flame(const struct pda_diff *d, bool negate,
		   struct pda_flame **out)
{
	const int shape = negate ? PDA_DIFF_A : PDA_DIFF_B;
	PDA_FLAME_OPTS(fo, .alloc = d->alloc.malloc_fn ? &d->alloc : NULL);
	struct pda_flame *fl;
	size_t *lens = NULL, alloc_lens = 0;
	int rc;

	*out = NULL;
	if (!d->finished)
		return PD_ERR_API;
	rc = pda_flame_new(&fo, &fl);
	if (rc < 0)
		return rc;
	for (size_t i = 0; rc == 0 && i < d->nr_stacks; i++) {
		const struct pda_diff_stack *st = &d->stack_list[i]->pub;

		rc = pdc_grow(&d->alloc, (void **)&lens, sizeof(*lens),
				  &alloc_lens, st->nr ? st->nr : 1, MAX_FRAMES);
		for (size_t k = 0; rc == 0 && k < st->nr; k++)
			lens[k] = pdc_intern_len(name_of(st->frames[k]));
		if (rc == 0)
			rc = pda_flame_add_pair(fl, st->frames, lens, st->nr,
						st->count[shape],
						st->count[!shape]);
	}
	pdc_free(&d->alloc, lens);
	if (rc == 0)
		rc = pda_flame_finish(fl);
	if (rc < 0) {
		pda_flame_free(fl);
		return rc;
	}
	*out = fl;
	return 0;
}
