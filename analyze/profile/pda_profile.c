/*
 * pda_profile.c - the structured profile's tables (pda_profile.h); the
 * folded-text reader is pda_folded.c, through pda_profile_int.h.
 *
 * The strings are an intern table with ids (common/pdc_intern.h): a
 * string's id is its entry's, so ids run 0 (""), 1, ... as strings are
 * first added.
 *
 * Every other table is a struct table: an array of fixed-size
 * entries, entry 0 all zero ("none"), and a pdc_hash over the first
 * key_size bytes of each entry, which holds ids + 1 as its items (the
 * array moves as it grows, so the table cannot hold pointers).  Entries
 * are zeroed before their fields are set, so padding compares equal.
 *
 * Mappings and functions have no padding (static asserts below), so
 * the caller's struct is the key.
 *
 * Invariants: t->nr >= 1 once the profile is made; the hash holds every
 * entry but 0; rows[i].values points at values + i * nr_columns (fixed
 * up whenever values moves); row_of[s] is stack s's row + 1 (0: none).
 */
#include "pda_base_int.h"
#include "pda_profile_int.h"

#include <string.h>

struct table {
	unsigned char *arr;
	size_t nr, alloc;
	size_t elem, key_size;
	struct pdc_hash h;
};

struct pda_profile {
	struct pd_alloc mem;
	unsigned nr_columns;
	struct pda_profile_column *cols;

	struct pdc_intern strs; /* no header; ids are the string ids */

	struct table mappings, funcs, locs, stacks;

	uint32_t *name_loc; /* by string id: pda_profile_name_loc()'s
			     * location, 0 none */
	size_t alloc_name_loc;

	struct pda_profile_sample *rows;
	size_t nr_rows, alloc_rows;
	uint64_t *values;
	size_t alloc_values;
	uint32_t *row_of; /* by stack id */
	size_t alloc_row_of;
	uint32_t empty_row; /* the empty stack's row + 1 */
	bool stacks_stale; /* pda_profile_append_stack() left stacks out of
			    * stacks.h */

	uint64_t *totals; /* nr_columns: the rows' sums */
	/* folded counts: up to max_decimals allowed; the values are in
	 * units of 10^-decimals */
	unsigned max_decimals, decimals;

	struct pda_folded_split split;
	uint64_t *scratch; /* nr_columns values */
	char errmsg[64];
};

static int set_err(struct pda_profile *p, int err, const char *msg)
{
	const size_t n = strlen(msg) < sizeof(p->errmsg) - 1
				 ? strlen(msg)
				 : sizeof(p->errmsg) - 1;

	memcpy(p->errmsg, msg, n);
	p->errmsg[n] = '\0';
	return err;
}

const char *pda_profile_errmsg(const struct pda_profile *p)
{
	return p->errmsg;
}

int pda_profile_set_err(struct pda_profile *p, int err, const char *msg)
{
	return set_err(p, err, msg);
}

const struct pd_alloc *pda_profile_mem(const struct pda_profile *p)
{
	return &p->mem;
}

struct pda_folded_split *pda_profile_split(struct pda_profile *p)
{
	return &p->split;
}

uint64_t *pda_profile_scratch(struct pda_profile *p)
{
	return p->scratch;
}

unsigned pda_profile_max_decimals(const struct pda_profile *p)
{
	return p->max_decimals;
}

unsigned pda_profile_decimals(const struct pda_profile *p)
{
	return p->decimals;
}

int pda_profile_set_decimals(struct pda_profile *p, unsigned decimals)
{
	const size_t nr = p->nr_rows * p->nr_columns;

	/* every value and total times 10 per decimal more; the totals
	 * bound the values, so checking them is enough */
	for (; p->decimals < decimals; p->decimals++) {
		for (unsigned c = 0; c < p->nr_columns; c++)
			if (p->totals[c] > UINT64_MAX / 10)
				return set_err(p, PD_ERR_FORMAT,
					       "the total count does not fit "
					       "in 64 bits");
		for (size_t i = 0; i < nr; i++)
			p->values[i] *= 10;
		for (unsigned c = 0; c < p->nr_columns; c++)
			p->totals[c] *= 10;
	}
	return 0;
}

_Static_assert(sizeof(struct pda_profile_mapping) == 4 * 2 + 8 * 3,
	       "a mapping is compared as bytes: no padding");
_Static_assert(sizeof(struct pda_profile_func) == 4 * 2,
	       "a function is compared as bytes: no padding");

static void *id_item(size_t id)
{
	return (void *)((uintptr_t)id + 1);
}

static uint32_t item_id(const void *item)
{
	return (uint32_t)((uintptr_t)item - 1);
}

/* ---- strings --------------------------------------------------------- */

int pda_profile_intern(struct pda_profile *p, const char *s, size_t len,
		       uint32_t *id)
{
	void *e;

	if (pdc_intern_add(&p->strs, &p->mem, s, len, &e) < 0)
		return PD_ERR_NOMEM;
	*id = (uint32_t)pdc_intern_id(e);
	return 0;
}

size_t pda_profile_nr_strs(const struct pda_profile *p)
{
	return pdc_intern_nr(&p->strs);
}

const char *pda_profile_str(const struct pda_profile *p, uint32_t id,
			    size_t *len)
{
	const char *e = pdc_intern_at(&p->strs, id);

	if (len)
		*len = e ? pdc_intern_len(e) : 0;
	return e ? e : "";
}

/* ---- the id tables ----------------------------------------------------- */

struct entry_key {
	const struct table *t;
	const void *entry;
};

static bool entry_eq(const void *item, const void *key)
{
	const struct entry_key *k = key;

	return memcmp(k->t->arr + item_id(item) * k->t->elem, k->entry,
		      k->t->key_size) == 0;
}

static uint64_t entry_hash(const struct table *t, const void *entry)
{
	uint64_t v;

	if (t->key_size != sizeof(v))
		return pdc_hash_bytes(entry, t->key_size);
	memcpy(&v, entry, sizeof(v));
	return pdc_hash_u64(v);
}

static int table_init(const struct pd_alloc *m, struct table *t, size_t elem,
		      size_t key_size)
{
	t->elem = elem;
	t->key_size = key_size;
	if (pdc_grow(m, (void **)&t->arr, elem, &t->alloc, 1,
			 PDA_PROFILE_MAX_ITEMS) < 0)
		return PD_ERR_NOMEM;
	memset(t->arr, 0, elem);
	t->nr = 1;
	return 0;
}

static void table_release(const struct pd_alloc *m, struct table *t)
{
	pdc_free(m, t->arr);
	pdc_hash_release(m, &t->h);
}

/* The id of entry (elem bytes) in t, added if new. */
static int table_add(const struct pd_alloc *m, struct table *t,
		     const void *entry, uint32_t *id)
{
	const struct entry_key key = {t, entry};
	const uint64_t h = entry_hash(t, entry);
	struct pdc_hash_slot *slot;

	if (pdc_hash_reserve(m, &t->h) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&t->h, h, entry_eq, &key);
	if (slot->item) {
		*id = item_id(slot->item);
		return 0;
	}
	if (pdc_grow(m, (void **)&t->arr, t->elem, &t->alloc, t->nr + 1,
			 PDA_PROFILE_MAX_ITEMS) < 0)
		return PD_ERR_NOMEM;
	memcpy(t->arr + t->nr * t->elem, entry, t->elem);
	*id = (uint32_t)t->nr++;
	pdc_hash_fill(&t->h, slot, h, id_item(*id));
	return 0;
}

static const void *table_at(const struct table *t, uint32_t id)
{
	return id && id < t->nr ? t->arr + (size_t)id * t->elem : NULL;
}

/* ---- the profile ------------------------------------------------------- */

int pda_profile_new(const struct pda_profile_opts *opts,
		    struct pda_profile **out)
{
	struct pda_profile_opts o;
	struct pd_alloc m = {NULL, NULL, NULL, NULL};
	struct pda_profile *p;
	uint32_t empty;

	*out = NULL;
	if (!opts || pdc_opts_copy(&o, sizeof(o), opts) < 0 ||
	    o.nr_columns > PDA_PROFILE_MAX_COLUMNS ||
	    o.max_decimals > PDA_PROFILE_MAX_DECIMALS)
		return PD_ERR_API;
	if (o.alloc)
		m = *o.alloc;
	p = pdc_zalloc(&m, sizeof(*p));
	if (!p)
		return PD_ERR_NOMEM;
	p->mem = m;
	pdc_intern_init(&p->strs, 0, PDA_PROFILE_MAX_ITEMS, PDC_INTERN_IDS);
	p->nr_columns = o.nr_columns ? o.nr_columns : 1;
	p->max_decimals = o.max_decimals;
	p->cols = pdc_zalloc(&m, p->nr_columns * sizeof(*p->cols));
	p->scratch = pdc_zalloc(&m, p->nr_columns * sizeof(*p->scratch));
	p->totals = pdc_zalloc(&m, p->nr_columns * sizeof(*p->totals));
	if (!p->cols || !p->scratch || !p->totals ||
	    table_init(&m, &p->mappings, sizeof(struct pda_profile_mapping),
		       sizeof(struct pda_profile_mapping)) < 0 ||
	    table_init(&m, &p->funcs, sizeof(struct pda_profile_func),
		       sizeof(struct pda_profile_func)) < 0 ||
	    table_init(&m, &p->locs, sizeof(struct pda_profile_loc),
		       sizeof(struct pda_profile_loc)) < 0 ||
	    /* a stack's key is (prefix, loc); depth follows from it */
	    table_init(&m, &p->stacks, sizeof(struct pda_profile_stack),
		       2 * sizeof(uint32_t)) < 0 ||
	    pda_profile_intern(p, "", 0, &empty) < 0) {
		pda_profile_free(p);
		return PD_ERR_NOMEM;
	}
	*out = p;
	return 0;
}

void pda_profile_free(struct pda_profile *p)
{
	struct pd_alloc m;

	if (!p)
		return;
	m = p->mem;
	pdc_intern_release(&p->strs, &m);
	table_release(&m, &p->mappings);
	table_release(&m, &p->funcs);
	table_release(&m, &p->locs);
	table_release(&m, &p->stacks);
	pdc_free(&m, p->name_loc);
	pdc_free(&m, p->rows);
	pdc_free(&m, p->values);
	pdc_free(&m, p->row_of);
	pdc_free(&m, p->cols);
	pdc_free(&m, p->scratch);
	pdc_free(&m, p->totals);
	pda_folded_split_release(&m, &p->split);
	pdc_free(&m, p);
}

unsigned pda_profile_nr_columns(const struct pda_profile *p)
{
	return p->nr_columns;
}

int pda_profile_set_column(struct pda_profile *p, unsigned col,
			   const char *event, const char *unit)
{
	uint32_t e = 0, u = 0;

	if (col >= p->nr_columns)
		return PD_ERR_API;
	if ((event && pda_profile_intern(p, event, strlen(event), &e) < 0) ||
	    (unit && pda_profile_intern(p, unit, strlen(unit), &u) < 0))
		return PD_ERR_NOMEM;
	p->cols[col].event = e;
	p->cols[col].unit = u;
	return 0;
}

const struct pda_profile_column *
pda_profile_column(const struct pda_profile *p, unsigned col)
{
	return col < p->nr_columns ? &p->cols[col] : NULL;
}

/* ---- mappings, functions, locations ------------------------------------ */

int pda_profile_add_mapping(struct pda_profile *p,
			    const struct pda_profile_mapping *m, uint32_t *id)
{
	const size_t nr_strs = pdc_intern_nr(&p->strs);

	/* no padding: the caller's struct is the key */
	if (m->name >= nr_strs || m->build_id >= nr_strs)
		return PD_ERR_API;
	return table_add(&p->mem, &p->mappings, m, id);
}

int pda_profile_add_func(struct pda_profile *p,
			 const struct pda_profile_func *f, uint32_t *id)
{
	const size_t nr_strs = pdc_intern_nr(&p->strs);

	/* no padding: the caller's struct is the key */
	if (f->name >= nr_strs || f->file >= nr_strs)
		return PD_ERR_API;
	return table_add(&p->mem, &p->funcs, f, id);
}

int pda_profile_add_loc(struct pda_profile *p, const struct pda_profile_loc *l,
			uint32_t *id)
{
	struct pda_profile_loc k;

	if (l->label >= pdc_intern_nr(&p->strs) || l->func >= p->funcs.nr ||
	    l->mapping >= p->mappings.nr)
		return PD_ERR_API;
	memset(&k, 0, sizeof(k));
	k.label = l->label;
	k.func = l->func;
	k.mapping = l->mapping;
	k.line = l->line;
	k.address = l->address;
	k.flags = l->flags;
	return table_add(&p->mem, &p->locs, &k, id);
}

const struct pda_profile_mapping *
pda_profile_mapping(const struct pda_profile *p, uint32_t id)
{
	return table_at(&p->mappings, id);
}

const struct pda_profile_func *pda_profile_func(const struct pda_profile *p,
						uint32_t id)
{
	return table_at(&p->funcs, id);
}

const struct pda_profile_loc *pda_profile_loc(const struct pda_profile *p,
					      uint32_t id)
{
	return table_at(&p->locs, id);
}

size_t pda_profile_nr_mappings(const struct pda_profile *p)
{
	return p->mappings.nr;
}

size_t pda_profile_nr_funcs(const struct pda_profile *p)
{
	return p->funcs.nr;
}

size_t pda_profile_nr_locs(const struct pda_profile *p)
{
	return p->locs.nr;
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	const size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* The location of a name, made: its flags and function from its
 * suffix, as pdtool fold and stackcollapse-perf.pl annotate frames. */
static int make_name_loc(struct pda_profile *p, uint32_t label,
			 const char *name, size_t len, uint32_t *id)
{
	struct pda_profile_loc l = {.label = label};
	struct pda_profile_func f = {0};
	size_t base = len;
	int rc;

	if (has_suffix(name, len, "_[k]")) {
		l.flags |= PDA_LOC_KERNEL;
		base -= 4;
	} else if (has_suffix(name, len, "_[j]")) {
		l.flags |= PDA_LOC_JIT;
		base -= 4;
	} else if (has_suffix(name, len, "_[i]")) {
		l.flags |= PDA_LOC_INLINED;
		base -= 4;
	}
	if (base == 9 && memcmp(name, "[unknown]", 9) == 0)
		l.flags |= PDA_LOC_UNKNOWN;
	rc = base == len ? (f.name = label, 0)
			 : pda_profile_intern(p, name, base, &f.name);
	if (rc == 0)
		rc = pda_profile_add_func(p, &f, &l.func);
	if (rc == 0)
		rc = pda_profile_add_loc(p, &l, id);
	return rc;
}

int pda_profile_name_loc(struct pda_profile *p, const char *name, size_t len,
			 uint32_t *id)
{
	uint32_t label, loc;
	int rc = pda_profile_intern(p, name, len, &label);

	if (rc < 0)
		return rc;
	if (label < p->alloc_name_loc && p->name_loc[label]) {
		*id = p->name_loc[label];
		return 0;
	}
	rc = make_name_loc(p, label, name, len, &loc);
	if (rc < 0)
		return rc;
	if (label >= p->alloc_name_loc) {
		const size_t had = p->alloc_name_loc;

		if (PDC_GROW(&p->mem, p->name_loc, p->alloc_name_loc,
				 (size_t)label + 1, PDA_PROFILE_MAX_ITEMS) < 0)
			return PD_ERR_NOMEM;
		memset(p->name_loc + had, 0,
		       (p->alloc_name_loc - had) * sizeof(*p->name_loc));
	}
	p->name_loc[label] = loc;
	*id = loc;
	return 0;
}

/* ---- stacks and samples -------------------------------------------------- */

struct stack_key {
	const struct pda_profile_stack *arr;
	uint32_t prefix, loc;
};

/* table_add()'s entry_eq for stacks, without a memcmp call: every
 * folded frame looks a stack up */
static bool stack_eq(const void *item, const void *key)
{
	const struct stack_key *k = key;
	const struct pda_profile_stack *st = &k->arr[item_id(item)];

	return st->prefix == k->prefix && st->loc == k->loc;
}

static uint64_t stack_hash(uint32_t prefix, uint32_t loc)
{
	return pdc_hash_u64((uint64_t)loc << 32 | prefix);
}

/* Put every stack in stacks.h again.  @return 0 or PD_ERR_NOMEM (still
 * stale). */
static int rehash_stacks(struct pda_profile *p)
{
	const struct pda_profile_stack *arr =
		(const struct pda_profile_stack *)p->stacks.arr;

	pdc_hash_release(&p->mem, &p->stacks.h);
	for (size_t i = 1; i < p->stacks.nr; i++)
		if (pdc_hash_add(&p->mem, &p->stacks.h,
				 stack_hash(arr[i].prefix, arr[i].loc),
				 id_item(i)) < 0) {
			pdc_hash_release(&p->mem, &p->stacks.h);
			return PD_ERR_NOMEM;
		}
	p->stacks_stale = false;
	return 0;
}

/* Check (prefix, loc) and append its stack, unhashed.  @return 0 or a
 * negative pd_err, as pda_profile_add_stack(). */
static int append_stack(struct pda_profile *p, uint32_t prefix, uint32_t loc,
			uint32_t *id)
{
	struct table *t = &p->stacks;
	struct pda_profile_stack *arr = (struct pda_profile_stack *)t->arr;
	uint32_t depth = 1;

	if (prefix >= t->nr || loc == 0 || loc >= p->locs.nr)
		return PD_ERR_API;
	if (prefix) {
		depth = arr[prefix].depth + 1;
		if (depth > PDA_PROFILE_MAX_DEPTH)
			return PD_ERR_API;
	}
	/* row_of covers every stack */
	if (pdc_grow(&p->mem, (void **)&t->arr, t->elem, &t->alloc,
			 t->nr + 1, PDA_PROFILE_MAX_ITEMS) < 0 ||
	    PDC_GROW(&p->mem, p->row_of, p->alloc_row_of, t->nr + 1,
			 PDA_PROFILE_MAX_ITEMS) < 0)
		return PD_ERR_NOMEM;
	arr = (struct pda_profile_stack *)t->arr;
	arr[t->nr] = (struct pda_profile_stack){prefix, loc, depth};
	p->row_of[t->nr] = 0;
	*id = (uint32_t)t->nr++;
	return 0;
}

int pda_profile_append_stack(struct pda_profile *p, uint32_t prefix,
			     uint32_t loc, uint32_t *id)
{
	const int rc = append_stack(p, prefix, loc, id);

	if (rc == 0)
		p->stacks_stale = true;
	return rc;
}

int pda_profile_add_stack(struct pda_profile *p, uint32_t prefix,
			  uint32_t loc, uint32_t *id)
{
	struct table *t = &p->stacks;
	const struct stack_key key = {
		(const struct pda_profile_stack *)t->arr, prefix, loc};
	const uint64_t h = stack_hash(prefix, loc);
	struct pdc_hash_slot *slot;
	int rc;

	if (prefix >= t->nr || loc == 0 || loc >= p->locs.nr)
		return PD_ERR_API;
	if ((p->stacks_stale && rehash_stacks(p) < 0) ||
	    pdc_hash_reserve(&p->mem, &t->h) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&t->h, h, stack_eq, &key);
	if (slot->item) {
		*id = item_id(slot->item);
		return 0;
	}
	rc = append_stack(p, prefix, loc, id);
	/* append_stack() did not touch the table: slot is still free */
	if (rc == 0)
		pdc_hash_fill(&t->h, slot, h, id_item(*id));
	return rc;
}

const struct pda_profile_stack *
pda_profile_stack(const struct pda_profile *p, uint32_t id)
{
	return table_at(&p->stacks, id);
}

size_t pda_profile_nr_stacks(const struct pda_profile *p)
{
	return p->stacks.nr;
}

/* A new row for stack.  @return 0 or PD_ERR_NOMEM (nothing changed). */
static int new_row(struct pda_profile *p, uint32_t stack)
{
	const size_t n = p->nr_columns;
	const uint64_t *old = p->values;
	struct pda_profile_sample *r;

	if (PDC_GROW(&p->mem, p->rows, p->alloc_rows, p->nr_rows + 1,
			 PDA_PROFILE_MAX_ITEMS) < 0 ||
	    pdc_grow(&p->mem, (void **)&p->values, n * sizeof(uint64_t),
			 &p->alloc_values, p->nr_rows + 1,
			 PDA_PROFILE_MAX_ITEMS) < 0)
		return PD_ERR_NOMEM;
	if (p->values != old)
		for (size_t i = 0; i < p->nr_rows; i++)
			p->rows[i].values = p->values + i * n;
	r = &p->rows[p->nr_rows];
	r->stack = stack;
	r->values = p->values + p->nr_rows * n;
	memset((uint64_t *)(uintptr_t)r->values, 0, n * sizeof(uint64_t));
	p->nr_rows++;
	if (stack)
		p->row_of[stack] = (uint32_t)p->nr_rows;
	else
		p->empty_row = (uint32_t)p->nr_rows;
	return 0;
}

int pda_profile_add_values(struct pda_profile *p, uint32_t stack,
			   unsigned first, unsigned nr, const uint64_t *values)
{
	uint32_t row;
	uint64_t *v;

	if (stack >= p->stacks.nr)
		return set_err(p, PD_ERR_API, "no such stack");
	if (first > p->nr_columns || nr > p->nr_columns - first)
		return set_err(p, PD_ERR_API, "no such column");
	/* a column's total bounds its rows: no sum of them can wrap */
	for (unsigned c = 0; c < nr; c++)
		if (p->totals[first + c] > UINT64_MAX - values[c])
			return set_err(p, PD_ERR_FORMAT,
				       "the total count does not fit in 64 "
				       "bits");
	row = stack ? p->row_of[stack] : p->empty_row;
	if (!row) {
		if (new_row(p, stack) < 0)
			return set_err(p, PD_ERR_NOMEM, "out of memory");
		row = (uint32_t)p->nr_rows;
	}
	v = p->values + (size_t)(row - 1) * p->nr_columns + first;
	for (unsigned c = 0; c < nr; c++) {
		v[c] += values[c];
		p->totals[first + c] += values[c];
	}
	return 0;
}

int pda_profile_add_sample(struct pda_profile *p, uint32_t stack,
			   const uint64_t *values)
{
	return pda_profile_add_values(p, stack, 0, p->nr_columns, values);
}

/* A copy of nr entries of elem_old bytes at from as entries of elem_new
 * bytes, the added bytes zero; NULL when out of memory. */
static void *widen(const struct pd_alloc *m, const void *from,
		   size_t elem_old, size_t elem_new, size_t nr)
{
	unsigned char *to = pdc_zalloc(m, nr ? nr * elem_new : elem_new);

	for (size_t i = 0; to && i < nr; i++)
		memcpy(to + i * elem_new, (const unsigned char *)from +
						  i * elem_old,
		       elem_old);
	return to;
}

int pda_profile_add_columns(struct pda_profile *p, unsigned nr,
			    unsigned *first)
{
	const size_t old = p->nr_columns, n = old + nr;
	const size_t u64 = sizeof(uint64_t);
	struct pda_profile_column *cols;
	uint64_t *totals, *scratch, *values;

	if (nr == 0 || nr > PDA_PROFILE_MAX_COLUMNS - old)
		return PD_ERR_API;
	/* all or nothing: the old arrays go only once every new one is
	 * made (sizes are small: n <= MAX_COLUMNS, rows < MAX_ITEMS) */
	cols = widen(&p->mem, p->cols, old * sizeof(*cols), n * sizeof(*cols),
		     1);
	totals = widen(&p->mem, p->totals, old * u64, n * u64, 1);
	scratch = widen(&p->mem, p->scratch, old * u64, n * u64, 1);
	values = p->nr_rows > SIZE_MAX / (n * u64)
			 ? NULL
			 : widen(&p->mem, p->values, old * u64, n * u64,
				 p->nr_rows);
	if (!cols || !totals || !scratch || !values) {
		pdc_free(&p->mem, cols);
		pdc_free(&p->mem, totals);
		pdc_free(&p->mem, scratch);
		pdc_free(&p->mem, values);
		return PD_ERR_NOMEM;
	}
	pdc_free(&p->mem, p->cols);
	pdc_free(&p->mem, p->totals);
	pdc_free(&p->mem, p->scratch);
	pdc_free(&p->mem, p->values);
	p->cols = cols;
	p->totals = totals;
	p->scratch = scratch;
	p->values = values;
	p->alloc_values = p->nr_rows ? p->nr_rows : 1;
	p->nr_columns = (unsigned)n;
	for (size_t i = 0; i < p->nr_rows; i++)
		p->rows[i].values = p->values + i * n;
	*first = (unsigned)old;
	return 0;
}

const uint64_t *pda_profile_totals(const struct pda_profile *p)
{
	return p->totals;
}

size_t pda_profile_nr_samples(const struct pda_profile *p)
{
	return p->nr_rows;
}

const struct pda_profile_sample *
pda_profile_sample(const struct pda_profile *p, size_t i)
{
	return i < p->nr_rows ? &p->rows[i] : NULL;
}

size_t pda_profile_stack_locs(const struct pda_profile *p, uint32_t stack,
			      uint32_t *locs)
{
	const struct pda_profile_stack *s = pda_profile_stack(p, stack);
	size_t nr;

	if (!s)
		return 0;
	nr = s->depth;
	for (size_t i = nr; s; s = pda_profile_stack(p, s->prefix))
		locs[--i] = s->loc;
	return nr;
}

size_t pda_kept_frames(const struct pda_stack *st, unsigned max_stack)
{
	size_t cut, counted = 0;

	for (cut = 0; cut < st->nr; cut++) {
		if (st->frames[cut].flags & PDA_FRAME_INLINED)
			continue;
		if (counted == max_stack)
			break;
		counted++;
	}
	/* a callchain entry cut keeps none of its inlined frames */
	while (cut > 0 && cut < st->nr &&
	       (st->frames[cut - 1].flags & PDA_FRAME_INLINED))
		cut--;
	return cut;
}
