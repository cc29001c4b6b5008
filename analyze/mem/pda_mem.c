/*
 * pda_mem.c - memory samples aggregated by data source, snoop, TLB,
 * lock, function, data symbol, cache line and data type.
 *
 * Each sample is kept as one small entry (its resolved ip and data
 * address, data_src, latencies, CPU); the views are built at the end by
 * sorting the entries by the view's key and summing the runs, so that a
 * row's latency percentiles come from its own sorted latencies.  An
 * address is resolved as a sample there would be (pda_addr_leaf on a
 * copy of the sample with ip = the address, in the space its top bit
 * says, as perf's ip__resolve_data looks a data address up), which
 * does not count it as a sample in the session's statistics.
 */
#include "pda_mem.h"
#include "pda_base_int.h"
#include "pda_stack_int.h"

#include <stdlib.h>
#include <string.h>

/* union perf_mem_data_src's fields used here */
#define DS_OP_LOAD (2ull)
#define DS_OP_STORE (4ull)
#define DS_SNOOP_HITM (16ull << 19)
#define DS_SNOOPX_PEER (2ull << 38)

#define LINE_SIZE 64u
#define MAX_ENTRIES (1ull << 32)

struct mem_ent {
	uint64_t ip, addr, data_src;
	uint64_t map_ip;	 /* ip as perf names it without a symbol */
	const char *sym, *dso;	 /* at ip; NULL none */
	const char *dsym, *ddso; /* at addr */
	const char *type, *tdso; /* the type view's key; NULL: none */
	int8_t var_match;	 /* 1 the data symbol is DWARF's variable,
				  * -1 another symbol, 0 unknown */
	uint32_t weight;
	uint16_t issue, xlat;
	uint32_t cpu;
	bool has_weight, has_addr;
};

/* An entry as one view keys it, for qsort (which has no context). */
struct mem_key {
	uint64_t k;
	const char *s1, *s2;
	uint32_t weight;
	uint32_t idx;
};

struct pda_mem {
	struct pda_session *s;
	struct pda_stack st;
	struct mem_ent *ents;
	size_t nr, alloc;
	struct pda_mem_row *rows[PDA_MEM_NR_VIEWS];
	size_t nr_rows[PDA_MEM_NR_VIEWS];
	struct pda_mem_totals t;
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
	return 0;
}

void pda_mem_free(struct pda_mem *m)
{
	if (!m)
		return;
	pda_stack_release(m->s, &m->st);
	for (unsigned v = 0; v < PDA_MEM_NR_VIEWS; v++)
		pda_free(m->s, m->rows[v]);
	pda_free(m->s, m->ents);
	pda_free(m->s, m);
}

/* The out-of-line function and object at addr in sample's process. */
static int resolve(struct pda_mem *m, const struct pd_sample *sample,
		   uint64_t addr, const char **sym, const char **dso,
		   uint64_t *map_ip)
{
	struct pd_sample at = *sample;
	struct pda_dso *d;
	uint64_t al_addr; /* the frame's map_ip below says the same */
	int rc;

	at.ip = addr;
	at.mask &= ~(uint64_t)PD_SAMPLE_CALLCHAIN;
	at.callchain.nr = 0;
	at.misc = (uint16_t)((sample->misc & ~PD_MISC_CPUMODE_MASK) |
			     (addr >> 63 ? PD_MISC_KERNEL : PD_MISC_USER));
	*sym = *dso = NULL;
	*map_ip = addr;
	rc = pda_addr_leaf(m->s, &at, &m->st, &d, &al_addr);
	if (rc == PD_ERR_NOMEM)
		return rc;
	if (rc < 0 || !m->st.nr)
		return 0; /* an address that does not resolve: unknown */
	{
		const struct pda_frame *out = &m->st.frames[m->st.nr - 1];

		*dso = out->dso;
		*map_ip = out->map_ip;
		*sym = (out->flags & PDA_FRAME_NO_SYMBOL) ? NULL : out->sym;
	}
	return 0;
}

int pda_mem_add(struct pda_mem *m, const struct pd_sample *sample)
{
	return pda_mem_add_type(m, sample, NULL, NULL, NULL);
}

int pda_mem_add_type(struct pda_mem *m, const struct pd_sample *sample,
		     const char *typeoff, const char *dso, const char *var)
{
	struct mem_ent *e;
	uint64_t map_ip;
	int rc;

	if (!(sample->mask & PD_SAMPLE_DATA_SRC)) {
		m->t.nr_no_data_src++;
		return 0;
	}
	if (m->nr == m->alloc &&
	    PDA_GROW(m->s, m->ents, m->alloc, m->nr + 1, MAX_ENTRIES) < 0)
		return PD_ERR_NOMEM;
	e = &m->ents[m->nr];
	memset(e, 0, sizeof(*e));
	e->ip = sample->ip;
	e->data_src = sample->data_src;
	e->cpu = (sample->mask & PD_SAMPLE_CPU) ? sample->cpu : UINT32_MAX;
	if (sample->mask & PD_SAMPLE_WEIGHT_STRUCT) {
		e->has_weight = true;
		e->weight = sample->weight_var1;
		e->issue = sample->weight_var2;
		e->xlat = sample->weight_var3;
		m->t.has_var2 |= sample->weight_var2 != 0;
		m->t.has_var3 |= sample->weight_var3 != 0;
	} else if (sample->mask & PD_SAMPLE_WEIGHT) {
		e->has_weight = true;
		e->weight = sample->weight > UINT32_MAX
				    ? UINT32_MAX
				    : (uint32_t)sample->weight;
	}
	rc = resolve(m, sample, sample->ip, &e->sym, &e->dso, &e->map_ip);
	if (rc < 0)
		return rc;
	if ((sample->mask & PD_SAMPLE_ADDR) && sample->addr) {
		e->has_addr = true;
		e->addr = sample->addr;
		m->t.with_addr++;
		rc = resolve(m, sample, sample->addr, &e->dsym, &e->ddso,
			     &map_ip);
		if (rc < 0)
			return rc;
		/* the address's symbol and DWARF's variable: the same
		 * global, or DWARF's answer is not where the access went
		 * (a local's name, found in a register, is no symbol) */
		if (var && e->dsym)
			e->var_match = strcmp(var, e->dsym) ? -1 : 1;
	}
	e->type = typeoff;
	e->tdso = dso;
	m->nr++;
	m->t.nr_samples++;
	m->t.loads += (e->data_src & DS_OP_LOAD) != 0;
	m->t.stores += (e->data_src & DS_OP_STORE) != 0;
	m->t.weight += e->weight;
	return 0;
}

static int strcmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct mem_key *a = pa, *b = pb;
	int c;

	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	c = strcmp_null(a->s1, b->s1);
	if (!c)
		c = strcmp_null(a->s2, b->s2);
	if (!c && a->weight != b->weight)
		c = a->weight < b->weight ? -1 : 1;
	return c;
}

/* Entry e as view v keys it; false when v does not count it. */
static bool key_of(const struct mem_ent *e, enum pda_mem_view v,
		   struct mem_key *k)
{
	k->s1 = k->s2 = NULL;
	k->weight = e->weight;
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

static unsigned bucket(uint64_t lat)
{
	unsigned b = 0;

	while (lat && b < PDA_MEM_HIST - 1) {
		lat >>= 1;
		b++;
	}
	return b;
}

static int cmp_u64(const void *pa, const void *pb)
{
	const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

static int cmp_ent_sym(const void *pa, const void *pb)
{
	const struct mem_ent *a = *(const struct mem_ent *const *)pa;
	const struct mem_ent *b = *(const struct mem_ent *const *)pb;
	int c = strcmp_null(a->sym, b->sym);

	return c ? c : strcmp_null(a->dso, b->dso);
}

/* The line's distinct CPUs and offsets, and its hottest function. */
static int line_detail(struct pda_mem *m, const struct mem_key *keys,
		       size_t n, struct pda_mem_row *r)
{
	uint64_t *v;
	size_t i, best = 0, run;

	if (n == 1) {
		/* most lines of a large capture: no sorting to do */
		const struct mem_ent *e = &m->ents[keys[0].idx];

		r->nr_cpus = e->cpu != UINT32_MAX;
		r->nr_offsets = 1;
		r->sym = e->sym;
		r->dso = e->dso;
		return 0;
	}
	v = pda_malloc(m->s, n * sizeof(*v));
	if (!v)
		return PD_ERR_NOMEM;
	for (i = 0; i < n; i++)
		v[i] = m->ents[keys[i].idx].cpu;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		r->nr_cpus += (!i || v[i] != v[i - 1]) && v[i] != UINT32_MAX;
	for (i = 0; i < n; i++)
		v[i] = m->ents[keys[i].idx].addr & (LINE_SIZE - 1);
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		r->nr_offsets += !i || v[i] != v[i - 1];
	pda_free(m->s, v);
	/* the function with most samples on the line (the first name on
	 * ties): its entries' functions sorted, the longest run */
	{
		const struct mem_ent **e = pda_malloc(m->s, n * sizeof(*e));

		if (!e)
			return PD_ERR_NOMEM;
		for (i = 0; i < n; i++)
			e[i] = &m->ents[keys[i].idx];
		qsort(e, n, sizeof(*e), cmp_ent_sym);
		for (i = 0; i < n; i += run) {
			for (run = 1; i + run < n &&
				      !cmp_ent_sym(&e[i], &e[i + run]);
			     run++)
				;
			if (run > best) {
				best = run;
				r->sym = e[i]->sym;
				r->dso = e[i]->dso;
			}
		}
		pda_free(m->s, e);
	}
	return 0;
}

static uint64_t pctile(const struct mem_key *keys, size_t lo, size_t n,
		       unsigned p)
{
	/* nearest rank: the smallest value with at least p% at or below */
	size_t rank = (n * p + 99) / 100;

	return keys[lo + (rank ? rank - 1 : 0)].weight;
}

/* The row of keys[0..n), which share a key (sorted by latency). */
static int make_row(struct pda_mem *m, enum pda_mem_view v,
		    const struct mem_key *keys, size_t n,
		    struct pda_mem_row *r)
{
	size_t lo = SIZE_MAX, nw = 0;

	memset(r, 0, sizeof(*r));
	r->key = keys[0].k;
	if (v == PDA_MEM_SYM || v == PDA_MEM_DSYM || v == PDA_MEM_TYPE) {
		r->sym = keys[0].s1;
		r->dso = keys[0].s2;
	}
	for (size_t i = 0; i < n; i++) {
		const struct mem_ent *e = &m->ents[keys[i].idx];

		r->samples++;
		r->loads += (e->data_src & DS_OP_LOAD) != 0;
		r->stores += (e->data_src & DS_OP_STORE) != 0;
		r->hitm += (e->data_src & DS_SNOOP_HITM) != 0;
		r->peer += (e->data_src & DS_SNOOPX_PEER) != 0;
		r->issue += e->issue;
		r->xlat += e->xlat;
		r->var_agree += e->var_match > 0;
		r->var_differ += e->var_match < 0;
		if (!e->has_weight)
			continue;
		if (lo == SIZE_MAX)
			lo = i;
		nw++;
		r->weight += e->weight;
		r->hist[bucket(e->weight)]++;
	}
	r->with_weight = nw;
	if (nw) {
		/* the weighted entries are a sorted run: the unweighted
		 * (weight 0) sort first and are skipped by lo */
		r->lat_min = keys[lo].weight;
		r->lat_max = keys[lo + nw - 1].weight;
		r->p50 = pctile(keys, lo, nw, 50);
		r->p90 = pctile(keys, lo, nw, 90);
		r->p99 = pctile(keys, lo, nw, 99);
	}
	if (v == PDA_MEM_LINE)
		return line_detail(m, keys, n, r);
	return 0;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct pda_mem_row *a = pa, *b = pb;

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return strcmp_null(a->sym, b->sym);
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

static int build_view(struct pda_mem *m, enum pda_mem_view v,
		      struct mem_key *keys)
{
	size_t n = 0, nr = 0, i, j;
	struct pda_mem_row *rows;

	for (i = 0; i < m->nr; i++)
		if (key_of(&m->ents[i], v, &keys[n])) {
			keys[n].idx = (uint32_t)i;
			/* unweighted first: make_row skips them */
			if (!m->ents[i].has_weight)
				keys[n].weight = 0;
			n++;
		}
	qsort(keys, n, sizeof(*keys), cmp_key);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && keys[j].k == keys[i].k &&
				!strcmp_null(keys[j].s1, keys[i].s1) &&
				!strcmp_null(keys[j].s2, keys[i].s2);
		     j++)
			;
		nr++;
	}
	rows = pda_zalloc(m->s, (nr ? nr : 1) * sizeof(*rows));
	if (!rows)
		return PD_ERR_NOMEM;
	m->rows[v] = rows;
	nr = 0;
	for (i = 0; i < n; i = j) {
		int rc;

		for (j = i + 1; j < n && keys[j].k == keys[i].k &&
				!strcmp_null(keys[j].s1, keys[i].s1) &&
				!strcmp_null(keys[j].s2, keys[i].s2);
		     j++)
			;
		rc = make_row(m, v, keys + i, j - i, &rows[nr++]);
		if (rc < 0)
			return rc;
	}
	m->nr_rows[v] = nr;
	qsort(rows, nr, sizeof(*rows), v == PDA_MEM_LINE ? cmp_line : cmp_row);
	return 0;
}

int pda_mem_finish(struct pda_mem *m, unsigned views)
{
	struct mem_key *keys;
	int rc = 0;

	keys = pda_malloc(m->s, (m->nr ? m->nr : 1) * sizeof(*keys));
	if (!keys)
		return PD_ERR_NOMEM;
	for (unsigned v = 0; v < PDA_MEM_NR_VIEWS && !rc; v++)
		if (views & (1u << v))
			rc = build_view(m, (enum pda_mem_view)v, keys);
	pda_free(m->s, keys);
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
