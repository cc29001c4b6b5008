/*
 * pda_dthist.c - samples per data type and member (issue 19), as perf
 * >= 6.8's annotate --data-type counts them (annotate-data.c): a type
 * is one per binary and name, the first DIE met giving its layout; a
 * sample counts at the offset its access starts at, and a member's sum
 * is over the offsets of its bytes, so a nested member's samples are in
 * its enclosing member's too.
 */
#include "pda_dthist.h"
#include "pda_datatype_int.h"

#include <stdlib.h>
#include <string.h>

/* Cap on the (type, offset) cells and types held (O5). */
#define MAX_CELLS ((size_t)1 << 24)

struct entry {
	struct pda_dthist_type pub;
	const struct pda_datatype_res *first; /* whose DIE gives the layout */
	struct cell **cells;	/* its offsets, at finish */
	struct cell **acells;	/* its offsets by alignment, at finish */
	struct pda_dthist_row *rows; /* pub.rows */
	struct pda_dthist_line *lines; /* pub.lines */
	struct pda_dthist_line *alines; /* pub.addr_lines */
	size_t nr_cells, alloc_cells, nr_acells, alloc_acells;
};

/* Samples of one type at one offset; of those with a data address, one
 * per where the object starts in its line (align). */
struct cell {
	struct entry *e;
	int64_t offset;
	int64_t align;	/* -1: every sample, address or not */
	uint64_t samples, period;
};

struct pda_dthist {
	struct pda_datatype *dt;
	struct pda_session *s;
	struct pdc_hash entries, cells;
	struct entry **sorted;
	size_t nr, nr_cells;
	bool finished;
};

int pda_dthist_new(struct pda_datatype *dt, struct pda_dthist **out)
{
	struct pda_session *s = pda_datatype_session(dt);
	struct pda_dthist *h;

	*out = NULL;
	h = pda_zalloc(s, sizeof(*h));
	if (!h)
		return PD_ERR_NOMEM;
	h->dt = dt;
	h->s = s;
	*out = h;
	return 0;
}

void pda_dthist_free(struct pda_dthist *h)
{
	size_t pos = 0;
	struct entry *e;
	void *c;

	if (!h)
		return;
	while ((e = pdc_hash_next(&h->entries, &pos))) {
		pda_free(h->s, e->rows);
		pda_free(h->s, e->lines);
		pda_free(h->s, e->alines);
		pda_free(h->s, e->cells);
		pda_free(h->s, e->acells);
		pda_free(h->s, e);
	}
	pos = 0;
	while ((c = pdc_hash_next(&h->cells, &pos)))
		pda_free(h->s, c);
	pdc_hash_release(pda_session_alloc(h->s), &h->entries);
	pdc_hash_release(pda_session_alloc(h->s), &h->cells);
	pda_free(h->s, h->sorted);
	pda_free(h->s, h);
}

static bool entry_eq(const void *item, const void *key)
{
	const struct pda_dthist_type *a = item, *b = key;

	/* names are interned: the same string is the same pointer */
	return a->event == b->event && a->dso == b->dso && a->type == b->type;
}

static bool cell_eq(const void *item, const void *key)
{
	const struct cell *a = item, *b = key;

	return a->e == b->e && a->offset == b->offset && a->align == b->align;
}

static uint64_t entry_hash(const struct pda_dthist_type *k)
{
	return pdc_hash_u64((uintptr_t)k->dso ^
			    pdc_hash_u64((uintptr_t)k->type ^ k->event));
}

/* key's entry, made on first use. */
static int entry_of(struct pda_dthist *h, const struct pda_dthist_type *key,
		    const struct pda_datatype_res *res, struct entry **out)
{
	const uint64_t hv = entry_hash(key);
	struct entry *e = pdc_hash_find(&h->entries, hv, entry_eq, key);

	if (!e) {
		if (h->nr >= MAX_CELLS)
			return PD_ERR_NOMEM;
		e = pda_zalloc(h->s, sizeof(*e));
		if (!e)
			return PD_ERR_NOMEM;
		e->pub = *key;
		e->first = res;
		if (pdc_hash_add(pda_session_alloc(h->s), &h->entries, hv, e)) {
			pda_free(h->s, e);
			return PD_ERR_NOMEM;
		}
		h->nr++;
	}
	*out = e;
	return 0;
}

/* Count sample in e's cell at offset and align. */
static int count_cell(struct pda_dthist *h, struct entry *e, int64_t offset,
		      int64_t align, const struct pd_sample *sample)
{
	struct cell ck = {.e = e, .offset = offset, .align = align}, *c;
	const uint64_t hv = pdc_hash_u64((uintptr_t)e ^
					 pdc_hash_u64((uint64_t)offset ^
						      ((uint64_t)align << 56)));

	c = pdc_hash_find(&h->cells, hv, cell_eq, &ck);
	if (!c) {
		if (h->nr_cells >= MAX_CELLS)
			return PD_ERR_NOMEM;
		c = pda_zalloc(h->s, sizeof(*c));
		if (!c)
			return PD_ERR_NOMEM;
		*c = ck;
		if (pdc_hash_add(pda_session_alloc(h->s), &h->cells, hv, c)) {
			pda_free(h->s, c);
			return PD_ERR_NOMEM;
		}
		h->nr_cells++;
	}
	c->samples++;
	c->period += sample->period;
	return 0;
}

int pda_dthist_add(struct pda_dthist *h, const struct pd_sample *sample,
		   const struct pda_datatype_res *res)
{
	struct pda_dthist_type key = {0};
	struct entry *e;
	int rc;

	if (h->finished)
		return PD_ERR_API;
	if (res->kind != PDA_DATATYPE_TYPE || !res->dso)
		return 0;
	key.event = sample->evsel ? sample->evsel->idx : 0;
	key.dso = res->dso;
	key.type = res->type;
	rc = entry_of(h, &key, res, &e);
	if (rc)
		return rc;
	e->pub.samples++;
	e->pub.period += sample->period;
	rc = count_cell(h, e, res->offset, -1, sample);
	/* the data address: the object starts at address - offset, so
	 * that far into its line (a line's size divides the address
	 * space: the subtraction's wrap is harmless) */
	if (!rc && (sample->mask & PD_SAMPLE_ADDR) && sample->addr &&
	    res->offset >= 0) {
		e->pub.addr_samples++;
		e->pub.addr_period += sample->period;
		rc = count_cell(h, e, res->offset,
				(int64_t)((sample->addr - (uint64_t)res->offset) %
					  PDA_DTHIST_LINE),
				sample);
	}
	return rc;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct pda_dthist_type *a = &(*(struct entry *const *)pa)->pub;
	const struct pda_dthist_type *b = &(*(struct entry *const *)pb)->pub;
	int c;

	if (a->event != b->event)
		return a->event < b->event ? -1 : 1;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	c = cmp_str(a->dso, b->dso);
	return c ? c : cmp_str(a->type, b->type);
}

/* e's layout (the type alone when its DWARF has none) with each row's
 * sum of the cells in its bytes. */
static int fill_rows(struct pda_dthist *h, struct entry *e)
{
	struct pda_dt_member *m = NULL;
	struct pda_dthist_row *rows;
	size_t nr = 0;
	int rc = pda_datatype_layout(h->dt, e->first, &m, &nr);

	if (rc == PD_ERR_NOMEM)
		return rc;
	rows = pda_zalloc(h->s, (nr ? nr : 1) * sizeof(*rows));
	if (!rows) {
		pda_free(h->s, m);
		return PD_ERR_NOMEM;
	}
	if (rc || !nr) {
		rows[0].type = e->pub.type;
		rows[0].end = 1;
		nr = 1;
	}
	for (size_t i = 0; i < nr && !rc; i++) {
		rows[i].offset = m[i].offset;
		rows[i].size = m[i].size;
		rows[i].depth = m[i].depth;
		rows[i].end = m[i].end;
		rows[i].type = m[i].type;
		rows[i].name = m[i].name;
	}
	pda_free(h->s, m);
	e->pub.size = rows[0].size;
	for (size_t i = 0; i < nr; i++)
		for (size_t k = 0; k < e->nr_cells; k++) {
			const struct cell *c = e->cells[k];

			/* the type's row has every sample, as perf's
			 * histogram holds only offsets inside it */
			if (i && (c->offset < rows[i].offset ||
				  (uint64_t)(c->offset - rows[i].offset) >=
					  rows[i].size))
				continue;
			rows[i].samples += c->samples;
			rows[i].period += c->period;
		}
	e->rows = rows;
	e->pub.rows = rows;
	e->pub.nr_rows = nr;
	return 0;
}

static int cmp_cell(const void *pa, const void *pb)
{
	const struct cell *a = *(struct cell *const *)pa;
	const struct cell *b = *(struct cell *const *)pb;

	if (a->align != b->align)
		return a->align < b->align ? -1 : 1;
	return (a->offset > b->offset) - (a->offset < b->offset);
}

/* The lines with samples of cells (nr, sorted by align then offset),
 * into *out and *nr_out: each cell's line counted from the line its
 * object starts in (align 0 for the type-start cells, align -1). */
static int fill_lines(struct pda_dthist *h, struct cell **cells, size_t nr,
		      struct pda_dthist_line **out, size_t *nr_out)
{
	struct pda_dthist_line *l;
	size_t n = 0;

	/* a type without samples at an address has no cells at all */
	if (nr)
		qsort(cells, nr, sizeof(*cells), cmp_cell);
	l = pda_zalloc(h->s, (nr ? nr : 1) * sizeof(*l));
	if (!l)
		return PD_ERR_NOMEM;
	for (size_t k = 0; k < nr; k++) {
		const struct cell *c = cells[k];
		const uint64_t align = c->align < 0 ? 0 : (uint64_t)c->align;
		uint64_t line;

		if (c->offset < 0)
			continue; /* before the type: in no line of it */
		line = (align + (uint64_t)c->offset) / PDA_DTHIST_LINE;
		if (!n || l[n - 1].line != line || l[n - 1].align != align) {
			l[n].line = line;
			l[n].align = align;
			l[n].start = (int64_t)(line * PDA_DTHIST_LINE) -
				     (int64_t)align;
			n++;
		}
		l[n - 1].samples += c->samples;
		l[n - 1].period += c->period;
	}
	*out = l;
	*nr_out = n;
	return 0;
}

int pda_dthist_finish(struct pda_dthist *h)
{
	size_t pos = 0, n = 0;
	struct entry *e;
	struct cell *c;
	int rc;

	if (h->finished)
		return 0;
	h->finished = true;
	h->sorted = pda_malloc(h->s, (h->nr ? h->nr : 1) * sizeof(*h->sorted));
	if (!h->sorted)
		return PD_ERR_NOMEM;
	while ((c = pdc_hash_next(&h->cells, &pos))) {
		e = c->e;
		if (c->align < 0) {
			if (PDC_GROW(pda_session_alloc(h->s), e->cells,
				     e->alloc_cells, e->nr_cells + 1,
				     MAX_CELLS) < 0)
				return PD_ERR_NOMEM;
			e->cells[e->nr_cells++] = c;
		} else {
			if (PDC_GROW(pda_session_alloc(h->s), e->acells,
				     e->alloc_acells, e->nr_acells + 1,
				     MAX_CELLS) < 0)
				return PD_ERR_NOMEM;
			e->acells[e->nr_acells++] = c;
		}
	}
	pos = 0;
	while ((e = pdc_hash_next(&h->entries, &pos))) {
		rc = fill_rows(h, e);
		if (!rc)
			rc = fill_lines(h, e->cells, e->nr_cells, &e->lines,
					&e->pub.nr_lines);
		if (!rc)
			rc = fill_lines(h, e->acells, e->nr_acells, &e->alines,
					&e->pub.nr_addr_lines);
		if (rc)
			return rc;
		e->pub.lines = e->lines;
		e->pub.addr_lines = e->alines;
		h->sorted[n++] = e;
	}
	qsort(h->sorted, n, sizeof(*h->sorted), cmp_entry);
	return 0;
}

size_t pda_dthist_nr(const struct pda_dthist *h)
{
	return h->finished && h->sorted ? h->nr : 0;
}

const struct pda_dthist_type *pda_dthist_type(const struct pda_dthist *h,
					      size_t i)
{
	return i < pda_dthist_nr(h) ? &h->sorted[i]->pub : NULL;
}
