/*
 * pda_mem.c - memory samples aggregated by data source, snoop, TLB,
 * lock, function, data symbol, cache line and data type.
 *
 * Each sample is added to its row in every view as it comes (a hash
 * table per view, on the view's key), so that memory grows with the
 * rows, not the samples (issue 18: a 1 GB SPE trace has tens of millions
 * of memory samples).  A row's latency percentiles stay exact: it counts
 * each distinct latency it saw (SPE's counters are 16 bits, PEBS weights
 * repeat), and pda_mem_finish() sorts those values.  An
 * address is resolved as a sample there would be (pda_addr_leaf on a
 * copy of the sample with ip = the address, in the space its top bit
 * says, as perf's ip__resolve_data looks a data address up), which
 * does not count it as a sample in the session's statistics.
 */
#include "pda_mem.h"
#include "pda_base_int.h"
#include "pda_stack_int.h"
#include "pdc_hash.h"

#include <stdlib.h>
#include <string.h>

/* union perf_mem_data_src's fields used here */
#define DS_OP_LOAD (2ull)
#define DS_OP_STORE (4ull)
#define DS_SNOOP_HITM (16ull << 19)
#define DS_SNOOPX_PEER (2ull << 38)

#define LINE_SIZE 64u /* the offsets of a line fit a uint64_t's bits */
#define ALL_VIEWS ((1u << PDA_MEM_NR_VIEWS) - 1)

/* A sample as the views key it: its resolved ip and data address. */
struct mem_ent {
	uint64_t ip, addr, data_src;
	uint64_t map_ip;	 /* ip as perf names it without a symbol */
	const char *sym, *dso;	 /* at ip; NULL none */
	const char *dsym, *ddso; /* at addr */
	const char *type, *tdso; /* the type view's key; NULL: none */
	int8_t var_match;	 /* 1 the data symbol is DWARF's variable,
				  * -1 another symbol, 0 unknown */
	int64_t toff;		 /* the access's offset in the type; < 0
				  * none */
	uint32_t weight;
	uint16_t issue, xlat;
	uint32_t cpu;
	bool has_weight, has_addr;
};

/* A row's key in its view. */
struct mem_key {
	uint64_t k;
	const char *s1, *s2;
};

/* The distinct latencies of a row and their counts: open addressing on
 * lat + 1 (0 is an empty slot), doubled at half full. */
struct lat_set {
	uint64_t *lat, *n;
	size_t nr, mask;
};

/* A function's samples on a line (the line view's hottest function). */
struct line_fn {
	const char *sym, *dso;
	uint64_t n;
};

/* A row being summed.  row.sym, row.dso hold the key's strings (sym,
 * dsym, type); the line's function is chosen at the end. */
struct acc {
	struct pda_mem_row row;
	struct lat_set lats;
	uint64_t offsets;	/* line: a bit per offset seen */
	uint32_t *cpus;		/* line: the distinct CPUs, row.nr_cpus */
	size_t cpus_alloc;
	struct line_fn *fns;	/* line */
	size_t nr_fns, fns_alloc;
	struct pda_mem_tline *tl; /* type: row.tlines, as they came */
	size_t tl_alloc;
};

struct view {
	struct pdc_hash h;	/* of struct acc, by key */
	struct acc **accs;	/* in the order they came */
	size_t nr, alloc;
	struct acc *last;	/* the last sample's: runs skip the hash */
};

struct pda_mem {
	struct pda_session *s;
	struct pda_stack st;
	unsigned views;		/* the views summed (pda_mem_views) */
	struct view v[PDA_MEM_NR_VIEWS];
	struct pda_mem_row *rows[PDA_MEM_NR_VIEWS];
	size_t nr_rows[PDA_MEM_NR_VIEWS];
	struct pda_mem_totals t;
	uint64_t last_sym_off;	/* resolve()'s symbol offset */
	bool last_object;	/* and whether it is a data object's */
	bool own_mode;		/* resolve() in the sample's cpumode, not
				 * the address's */
};

static const char *const view_names[PDA_MEM_NR_VIEWS] = {
	"level", "snoop", "tlb", "lock", "sym", "dsym", "line", "type",
};

const char *pda_mem_view_name(enum pda_mem_view v)
{
	return v < PDA_MEM_NR_VIEWS ? view_names[v] : "?";
}

int pda_mem_new(struct pda_session *s, struct pda_mem **out)
{
	struct pda_mem *m = pda_zalloc(s, sizeof(*m));

	*out = m;
	if (!m)
		return PD_ERR_NOMEM;
	m->s = s;
	m->views = ALL_VIEWS;
	return 0;
}

void pda_mem_views(struct pda_mem *m, unsigned views)
{
	m->views = views & ALL_VIEWS;
}

void pda_mem_free(struct pda_mem *m)
{
	if (!m)
		return;
	pda_stack_release(m->s, &m->st);
	for (unsigned v = 0; v < PDA_MEM_NR_VIEWS; v++) {
		struct view *w = &m->v[v];

		for (size_t i = 0; i < w->nr; i++) {
			struct acc *a = w->accs[i];

			pda_free(m->s, a->lats.lat);
			pda_free(m->s, a->lats.n);
			pda_free(m->s, a->cpus);
			pda_free(m->s, a->fns);
			pda_free(m->s, a->tl);
			pda_free(m->s, a);
		}
		pda_free(m->s, w->accs);
		pdc_hash_release(pda_session_alloc(m->s), &w->h);
		pda_free(m->s, m->rows[v]);
	}
	pda_free(m->s, m);
}

/* A copy of sample for resolve_id(): no callchain. */
static void sample_at(struct pd_sample *at, const struct pd_sample *sample)
{
	*at = *sample;
	at->mask &= ~(uint64_t)PD_SAMPLE_CALLCHAIN;
	at->callchain.nr = 0;
}

/* The out-of-line function and object at addr in sample's process; at
 * is sample_at()'s copy of it (its ip and misc changed here: one copy
 * for a sample's addresses). */
static int resolve_id(struct pda_mem *m, const struct pd_sample *sample,
		      struct pd_sample *at, uint64_t addr, const char **sym,
		      const char **dso, uint64_t *map_ip,
		      struct pda_map_id *id)
{
	struct pda_dso *d;
	uint64_t al_addr; /* the frame's map_ip below says the same */
	int rc;

	at->ip = addr;
	at->misc = m->own_mode
			   ? sample->misc
			   : (uint16_t)((sample->misc & ~PD_MISC_CPUMODE_MASK) |
					(addr >> 63 ? PD_MISC_KERNEL
						    : PD_MISC_USER));
	*sym = *dso = NULL;
	*map_ip = addr;
	rc = pda_addr_leaf_id(m->s, at, &m->st, &d, &al_addr, id);
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0 || !m->st.nr)
		return 0; /* an address that does not resolve: unknown */
	{
		const struct pda_frame *out = &m->st.frames[m->st.nr - 1];

		*dso = out->dso;
		*map_ip = out->map_ip;
		*sym = (out->flags & PDA_FRAME_NO_SYMBOL) ? NULL : out->sym;
		m->last_sym_off = out->sym_off;
		m->last_object = (out->flags & PDA_FRAME_OBJECT) != 0;
	}
	return 0;
}

/* resolve_id() without the map's id. */
static int resolve(struct pda_mem *m, const struct pd_sample *sample,
		   struct pd_sample *at, uint64_t addr, const char **sym,
		   const char **dso, uint64_t *map_ip)
{
	struct pda_map_id id;

	return resolve_id(m, sample, at, addr, sym, dso, map_ip, &id);
}

int pda_mem_daddr(struct pda_mem *m, const struct pd_sample *sample,
		  struct pda_daddr *out)
{
	struct pd_sample at;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(sample->mask & PD_SAMPLE_ADDR) || !sample->addr)
		return 0;
	out->al_addr = sample->addr;
	/* perf 6.1's ip__resolve_data(): in the maps of the sample's own
	 * mode, the kernel's holding no user address */
	if ((sample->misc & PD_MISC_CPUMODE_MASK) == PD_MISC_KERNEL &&
	    !(sample->addr >> 63))
		return 0;
	m->last_sym_off = 0;
	m->last_object = false;
	m->own_mode = true;
	sample_at(&at, sample);
	rc = resolve_id(m, sample, &at, sample->addr, &out->sym, &out->dso,
			&out->al_addr, &out->map);
	m->own_mode = false;
	if (rc == 0 && out->sym) {
		out->off = m->last_sym_off;
		out->object = m->last_object;
	}
	return rc;
}

static int strcmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return a == b ? 0 : strcmp(a, b);
}

/* Entry e as view v keys it; false when v does not count it. */
static bool key_of(const struct mem_ent *e, enum pda_mem_view v,
		   struct mem_key *k)
{
	k->s1 = k->s2 = NULL;
	switch (v) {
	case PDA_MEM_LEVEL:
		k->k = e->data_src & PDA_MEM_LEVEL_BITS;
		return true;
	case PDA_MEM_SNOOP:
		k->k = e->data_src & PDA_MEM_SNOOP_BITS;
		return true;
	case PDA_MEM_TLB:
		k->k = e->data_src & PDA_MEM_TLB_BITS;
		return true;
	case PDA_MEM_LOCK:
		k->k = e->data_src & PDA_MEM_LOCK_BITS;
		return true;
	case PDA_MEM_SYM:
		/* a function is one row; without one, each address */
		k->k = e->sym ? 0 : e->map_ip;
		k->s1 = e->sym;
		k->s2 = e->dso;
		return true;
	case PDA_MEM_DSYM:
		/* unresolved data addresses by object: a stack or heap
		 * address has no symbol, and each on a row of its own
		 * (perf's symbol_daddr) says nothing */
		if (!e->has_addr)
			return false;
		k->k = 0;
		k->s1 = e->dsym;
		k->s2 = e->ddso;
		return true;
	case PDA_MEM_LINE:
		if (!e->has_addr)
			return false;
		k->k = e->addr & ~(uint64_t)(LINE_SIZE - 1);
		return true;
	case PDA_MEM_TYPE:
		if (!e->type)
			return false;
		k->k = e->data_src & PDA_MEM_LEVEL_BITS;
		k->s1 = e->type;
		k->s2 = e->tdso;
		return true;
	case PDA_MEM_NR_VIEWS:
		break;
	}
	return false;
}

static uint64_t str_hash(const char *s)
{
	return s ? pdc_hash_bytes(s, strlen(s)) : 0;
}

static bool acc_eq(const void *item, const void *key)
{
	const struct acc *a = item;
	const struct mem_key *k = key;

	return a->row.key == k->k && !strcmp_null(a->row.sym, k->s1) &&
	       !strcmp_null(a->row.dso, k->s2);
}

/* The row of key k in view w, made when new; NULL only on NOMEM. */
static struct acc *acc_of(struct pda_mem *m, struct view *w,
			  const struct mem_key *k)
{
	struct pdc_hash_slot *slot;
	uint64_t hash;
	struct acc *a;

	if (w->last && acc_eq(w->last, k))
		return w->last;
	hash = pdc_hash_u64(k->k) ^ str_hash(k->s1) ^
	       (str_hash(k->s2) * 0x9e3779b97f4a7c15ull);
	if (pdc_hash_reserve(pda_session_alloc(m->s), &w->h) < 0)
		return NULL;
	slot = pdc_hash_probe(&w->h, hash, acc_eq, k);
	if (slot->item)
		return w->last = slot->item;
	if (w->nr == w->alloc &&
	    PDA_GROW(m->s, w->accs, w->alloc, w->nr + 1, PDC_HASH_MAX_SLOTS) < 0)
		return NULL;
	a = pda_zalloc(m->s, sizeof(*a));
	if (!a)
		return NULL;
	a->row.key = k->k;
	a->row.sym = k->s1;
	a->row.dso = k->s2;
	w->accs[w->nr++] = a;
	pdc_hash_fill(&w->h, slot, hash, a);
	return w->last = a;
}

static int lat_add(struct pda_mem *m, struct lat_set *ls, uint32_t lat)
{
	uint64_t key = (uint64_t)lat + 1;
	size_t i;

	if ((ls->nr + 1) * 2 > (ls->lat ? ls->mask + 1 : 0)) {
		size_t cap = ls->lat ? 2 * (ls->mask + 1) : 8;
		uint64_t *nl = pda_zalloc(m->s, cap * sizeof(*nl));
		uint64_t *nn = pda_zalloc(m->s, cap * sizeof(*nn));

		if (!nl || !nn) {
			pda_free(m->s, nl);
			pda_free(m->s, nn);
			return PD_ERR_NOMEM;
		}
		for (size_t j = 0; ls->lat && j <= ls->mask; j++) {
			if (!ls->lat[j])
				continue;
			for (i = pdc_hash_u64(ls->lat[j]) & (cap - 1); nl[i];
			     i = (i + 1) & (cap - 1))
				;
			nl[i] = ls->lat[j];
			nn[i] = ls->n[j];
		}
		pda_free(m->s, ls->lat);
		pda_free(m->s, ls->n);
		ls->lat = nl;
		ls->n = nn;
		ls->mask = cap - 1;
	}
	for (i = pdc_hash_u64(key) & ls->mask; ls->lat[i] && ls->lat[i] != key;
	     i = (i + 1) & ls->mask)
		;
	if (!ls->lat[i]) {
		ls->lat[i] = key;
		ls->nr++;
	}
	ls->n[i]++;
	return 0;
}

/* The histogram's bucket of lat: its bit length, the last bucket
 * holding the rest. */
static unsigned bucket(uint64_t lat)
{
	const unsigned b = lat ? 64u - (unsigned)__builtin_clzll(lat) : 0;

	return b < PDA_MEM_HIST - 1 ? b : PDA_MEM_HIST - 1;
}

/* The line's CPUs and functions: what line_finish() reduces. */
static int line_add(struct pda_mem *m, struct acc *a,
		    const struct mem_ent *e)
{
	size_t i;

	a->offsets |= 1ull << (e->addr & (LINE_SIZE - 1));
	if (e->cpu != UINT32_MAX) {
		for (i = 0; i < a->row.nr_cpus && a->cpus[i] != e->cpu; i++)
			;
		if (i == a->row.nr_cpus) {
			if (i == a->cpus_alloc &&
			    PDA_GROW(m->s, a->cpus, a->cpus_alloc, i + 1,
				     UINT32_MAX) < 0)
				return PD_ERR_NOMEM;
			a->cpus[a->row.nr_cpus++] = e->cpu;
		}
	}
	for (i = 0; i < a->nr_fns; i++)
		if (!strcmp_null(a->fns[i].sym, e->sym) &&
		    !strcmp_null(a->fns[i].dso, e->dso))
			break;
	if (i == a->nr_fns) {
		if (i == a->fns_alloc &&
		    PDA_GROW(m->s, a->fns, a->fns_alloc, i + 1, SIZE_MAX) < 0)
			return PD_ERR_NOMEM;
		a->fns[a->nr_fns++] = (struct line_fn){ e->sym, e->dso, 0 };
	}
	a->fns[i].n++;
	return 0;
}

/* The object's line the type view's sample hit (pda_mem_tline); a line's
 * size divides the address space, so the subtraction's wrap is
 * harmless. */
static int tline_add(struct pda_mem *m, struct acc *a, const struct mem_ent *e)
{
	const uint64_t align = (e->addr - (uint64_t)e->toff) % LINE_SIZE;
	const uint64_t line = (align + (uint64_t)e->toff) / LINE_SIZE;
	size_t i;

	for (i = 0; i < a->row.nr_tlines; i++)
		if (a->tl[i].line == line && a->tl[i].align == align)
			break;
	if (i == a->row.nr_tlines) {
		/* one offset per row: one line per align, LINE_SIZE at
		 * most */
		if (i == a->tl_alloc &&
		    PDA_GROW(m->s, a->tl, a->tl_alloc, i + 1, LINE_SIZE) < 0)
			return PD_ERR_NOMEM;
		a->tl[i] = (struct pda_mem_tline){ line, align, 0 };
		a->row.tlines = a->tl;
		a->row.nr_tlines++;
	}
	a->tl[i].samples++;
	return 0;
}

static int acc_add(struct pda_mem *m, enum pda_mem_view v, struct acc *a,
		   const struct mem_ent *e)
{
	struct pda_mem_row *r = &a->row;

	r->samples++;
	r->loads += (e->data_src & DS_OP_LOAD) != 0;
	r->stores += (e->data_src & DS_OP_STORE) != 0;
	r->hitm += (e->data_src & DS_SNOOP_HITM) != 0;
	r->peer += (e->data_src & DS_SNOOPX_PEER) != 0;
	r->issue += e->issue;
	r->xlat += e->xlat;
	r->var_agree += e->var_match > 0;
	r->var_differ += e->var_match < 0;
	if (e->has_weight) {
		r->with_weight++;
		r->weight += e->weight;
		r->hist[bucket(e->weight)]++;
		if (lat_add(m, &a->lats, e->weight) < 0)
			return PD_ERR_NOMEM;
	}
	if (v == PDA_MEM_TYPE && e->has_addr && e->toff >= 0)
		return tline_add(m, a, e);
	return v == PDA_MEM_LINE ? line_add(m, a, e) : 0;
}

int pda_mem_add(struct pda_mem *m, const struct pd_sample *sample)
{
	return pda_mem_add_type(m, sample, NULL, NULL, NULL, -1);
}

int pda_mem_add_type(struct pda_mem *m, const struct pd_sample *sample,
		     const char *typeoff, const char *dso, const char *var,
		     int64_t offset)
{
	struct pd_sample at;
	struct mem_ent e;
	uint64_t map_ip;
	int rc;

	if (!(sample->mask & PD_SAMPLE_DATA_SRC)) {
		m->t.nr_no_data_src++;
		return 0;
	}
	memset(&e, 0, sizeof(e));
	e.ip = sample->ip;
	e.data_src = sample->data_src;
	e.cpu = (sample->mask & PD_SAMPLE_CPU) ? sample->cpu : UINT32_MAX;
	if (sample->mask & PD_SAMPLE_WEIGHT_STRUCT) {
		e.has_weight = true;
		e.weight = sample->weight_var1;
		e.issue = sample->weight_var2;
		e.xlat = sample->weight_var3;
		m->t.has_var2 |= sample->weight_var2 != 0;
		m->t.has_var3 |= sample->weight_var3 != 0;
	} else if (sample->mask & PD_SAMPLE_WEIGHT) {
		e.has_weight = true;
		e.weight = sample->weight > UINT32_MAX
				   ? UINT32_MAX
				   : (uint32_t)sample->weight;
	}
	sample_at(&at, sample);
	rc = resolve(m, sample, &at, sample->ip, &e.sym, &e.dso, &e.map_ip);
	if (rc < 0)
		return rc;
	if ((sample->mask & PD_SAMPLE_ADDR) && sample->addr) {
		e.has_addr = true;
		e.addr = sample->addr;
		m->t.with_addr++;
		rc = resolve(m, sample, &at, sample->addr, &e.dsym, &e.ddso,
			     &map_ip);
		if (rc < 0)
			return rc;
		/* the address's symbol and DWARF's variable: the same
		 * global, or DWARF's answer is not where the access went
		 * (a local's name, found in a register, is no symbol) */
		if (var && e.dsym)
			e.var_match = strcmp(var, e.dsym) ? -1 : 1;
	}
	e.type = typeoff;
	e.tdso = dso;
	e.toff = offset;
	for (unsigned v = 0; v < PDA_MEM_NR_VIEWS; v++) {
		struct mem_key k;
		struct acc *a;

		if (!(m->views & (1u << v)) ||
		    !key_of(&e, (enum pda_mem_view)v, &k))
			continue;
		a = acc_of(m, &m->v[v], &k);
		if (!a || acc_add(m, (enum pda_mem_view)v, a, &e) < 0)
			return PD_ERR_NOMEM;
	}
	m->t.nr_samples++;
	m->t.loads += (e.data_src & DS_OP_LOAD) != 0;
	m->t.stores += (e.data_src & DS_OP_STORE) != 0;
	m->t.weight += e.weight;
	return 0;
}

struct lat_pair {
	uint64_t lat, n;
};

static int cmp_pair(const void *pa, const void *pb)
{
	const struct lat_pair *a = pa, *b = pb;

	return a->lat < b->lat ? -1 : a->lat > b->lat;
}

/* The smallest latency with at least p% of the row's at or below it
 * (nearest rank), pairs sorted by latency. */
static uint64_t pctile(const struct lat_pair *pairs, size_t nr,
		       uint64_t total, unsigned p)
{
	uint64_t rank = (total * p + 99) / 100, seen = 0;

	if (!rank)
		rank = 1;
	for (size_t i = 0; i < nr; i++) {
		seen += pairs[i].n;
		if (seen >= rank)
			return pairs[i].lat;
	}
	return nr ? pairs[nr - 1].lat : 0;
}

/* a's latency range and percentiles into its row */
static int lat_finish(struct pda_mem *m, const struct acc *a,
		      struct pda_mem_row *r)
{
	const struct lat_set *ls = &a->lats;
	struct lat_pair *pairs;
	size_t nr = 0;

	if (!ls->nr)
		return 0;
	pairs = pda_malloc(m->s, ls->nr * sizeof(*pairs));
	if (!pairs)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i <= ls->mask; i++)
		if (ls->lat[i])
			pairs[nr++] = (struct lat_pair){ ls->lat[i] - 1,
							 ls->n[i] };
	qsort(pairs, nr, sizeof(*pairs), cmp_pair);
	r->lat_min = pairs[0].lat;
	r->lat_max = pairs[nr - 1].lat;
	r->p50 = pctile(pairs, nr, r->with_weight, 50);
	r->p90 = pctile(pairs, nr, r->with_weight, 90);
	r->p99 = pctile(pairs, nr, r->with_weight, 99);
	pda_free(m->s, pairs);
	return 0;
}

/* The line's distinct offsets and hottest function (most samples; the
 * first by name, then object, on ties). */
static void line_finish(const struct acc *a, struct pda_mem_row *r)
{
	const struct line_fn *best = NULL;
	uint64_t o = a->offsets;

	r->nr_offsets = 0;
	for (; o; o &= o - 1)
		r->nr_offsets++;
	for (size_t i = 0; i < a->nr_fns; i++) {
		const struct line_fn *f = &a->fns[i];
		int c;

		if (!best || f->n > best->n) {
			best = f;
			continue;
		}
		if (f->n < best->n)
			continue;
		c = strcmp_null(f->sym, best->sym);
		if (c < 0 || (!c && strcmp_null(f->dso, best->dso) < 0))
			best = f;
	}
	r->sym = best ? best->sym : NULL;
	r->dso = best ? best->dso : NULL;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct pda_mem_row *a = pa, *b = pb;
	int c;

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	c = strcmp_null(a->sym, b->sym);
	return c ? c : strcmp_null(a->dso, b->dso);
}

static int cmp_line(const void *pa, const void *pb)
{
	const struct pda_mem_row *a = pa, *b = pb;

	if (a->hitm + a->peer != b->hitm + b->peer)
		return a->hitm + a->peer > b->hitm + b->peer ? -1 : 1;
	if (a->nr_cpus != b->nr_cpus)
		return a->nr_cpus > b->nr_cpus ? -1 : 1;
	return cmp_row(pa, pb);
}

/* The type view's lines: most samples first, then line, then align. */
static int cmp_tline(const void *pa, const void *pb)
{
	const struct pda_mem_tline *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->align < b->align ? -1 : a->align > b->align;
}

static int build_view(struct pda_mem *m, enum pda_mem_view v)
{
	const struct view *w = &m->v[v];
	struct pda_mem_row *rows;

	rows = pda_zalloc(m->s, (w->nr ? w->nr : 1) * sizeof(*rows));
	if (!rows)
		return PD_ERR_NOMEM;
	m->rows[v] = rows;
	for (size_t i = 0; i < w->nr; i++) {
		rows[i] = w->accs[i]->row;
		if (lat_finish(m, w->accs[i], &rows[i]) < 0)
			return PD_ERR_NOMEM;
		if (v == PDA_MEM_LINE)
			line_finish(w->accs[i], &rows[i]);
		if (rows[i].nr_tlines)
			qsort(w->accs[i]->tl, rows[i].nr_tlines,
			      sizeof(*w->accs[i]->tl), cmp_tline);
	}
	m->nr_rows[v] = w->nr;
	qsort(rows, w->nr, sizeof(*rows),
	      v == PDA_MEM_LINE ? cmp_line : cmp_row);
	return 0;
}

int pda_mem_finish(struct pda_mem *m, unsigned views)
{
	int rc = 0;

	if (views & ALL_VIEWS & ~m->views)
		return PD_ERR_API; /* a view not summed */
	for (unsigned v = 0; v < PDA_MEM_NR_VIEWS && !rc; v++)
		if ((views & (1u << v)) && !m->rows[v])
			rc = build_view(m, (enum pda_mem_view)v);
	return rc;
}

size_t pda_mem_nr_rows(const struct pda_mem *m, enum pda_mem_view v)
{
	return v < PDA_MEM_NR_VIEWS ? m->nr_rows[v] : 0;
}

const struct pda_mem_row *pda_mem_row(const struct pda_mem *m,
				      enum pda_mem_view v, size_t i)
{
	return v < PDA_MEM_NR_VIEWS && i < m->nr_rows[v] ? &m->rows[v][i]
							 : NULL;
}

const struct pda_mem_totals *pda_mem_totals(const struct pda_mem *m)
{
	return &m->t;
}
