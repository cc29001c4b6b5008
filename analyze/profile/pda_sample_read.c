/*
 * pda_sample_read.c - a PERF_SAMPLE_READ sample as the samples of its
 * read values (pda_sample_read.h).
 */
#include "pda_sample_read.h"

#include "pdc_alloc.h"
#include "pdc_hash.h"

#include <string.h>

/* The last value of one counter (an id). */
struct last {
	uint64_t id, value;
};

/* The counters, bounded as every growable table (O5): a capture has one
 * id per event and CPU or thread. */
#define MAX_IDS ((size_t)1 << 24)

struct pda_sample_read {
	const struct pd_alloc *alloc;
	struct pdc_hash by_id;	/* struct last by id */
	struct last **blocks;	/* the entries, in blocks that never move */
	size_t nr_blocks, alloc_blocks, used;
	uint64_t nr_unknown;
};

#define BLOCK 256

int pda_sample_read_new(const struct pd_alloc *alloc,
			struct pda_sample_read **out)
{
	struct pda_sample_read *sr = pdc_zalloc(alloc, sizeof(*sr));

	*out = NULL;
	if (!sr)
		return PD_ERR_NOMEM;
	sr->alloc = alloc;
	sr->by_id = (struct pdc_hash)PDC_HASH_INIT;
	*out = sr;
	return 0;
}

void pda_sample_read_free(struct pda_sample_read *sr)
{
	if (!sr)
		return;
	for (size_t i = 0; i < sr->nr_blocks; i++)
		pdc_free(sr->alloc, sr->blocks[i]);
	pdc_free(sr->alloc, sr->blocks);
	pdc_hash_release(sr->alloc, &sr->by_id);
	pdc_free(sr->alloc, sr);
}

bool pda_sample_read_applies(const struct pd_sample *s)
{
	return s->evsel && (s->mask & PD_SAMPLE_READ) && s->read.nr;
}

uint64_t pda_sample_read_unknown(const struct pda_sample_read *sr)
{
	return sr->nr_unknown;
}

static bool last_eq(const void *item, const void *key)
{
	return ((const struct last *)item)->id == *(const uint64_t *)key;
}

/* Id's entry, made (value 0: perf's sid->period starts at 0) when new. */
static struct last *last_of(struct pda_sample_read *sr, uint64_t id)
{
	const uint64_t h = pdc_hash_u64(id);
	struct pdc_hash_slot *slot;
	struct last *l;

	if (pdc_hash_reserve(sr->alloc, &sr->by_id) < 0)
		return NULL;
	slot = pdc_hash_probe(&sr->by_id, h, last_eq, &id);
	if (slot->item)
		return slot->item;
	if (sr->used == sr->nr_blocks * BLOCK) {
		if (sr->used >= MAX_IDS ||
		    PDC_GROW(sr->alloc, sr->blocks, sr->alloc_blocks,
			     sr->nr_blocks + 1, MAX_IDS / BLOCK) < 0)
			return NULL;
		sr->blocks[sr->nr_blocks] =
			pdc_malloc(sr->alloc, BLOCK * sizeof(struct last));
		if (!sr->blocks[sr->nr_blocks])
			return NULL;
		sr->nr_blocks++;
	}
	l = &sr->blocks[sr->used / BLOCK][sr->used % BLOCK];
	sr->used++;
	l->id = id;
	l->value = 0;
	pdc_hash_fill(&sr->by_id, slot, h, l);
	return l;
}

int pda_sample_read_split(struct pda_sample_read *sr, const struct pd_file *f,
			  const struct pd_sample *s, struct pd_sample *out,
			  size_t max)
{
	const bool has_id = s->evsel->attr.read_format & PD_FORMAT_ID;
	size_t n = 0;

	for (uint64_t i = 0; i < s->read.nr && n < max; i++) {
		const struct pd_evsel *ev;
		struct pd_read_value v;
		struct last *l;
		uint64_t delta;

		pd_sample_read_value(s, i, &v);
		ev = has_id ? pd_file_evsel_by_id(f, v.id) : NULL;
		if (!ev) {
			sr->nr_unknown++;
			continue;
		}
		l = last_of(sr, v.id);
		if (!l)
			return PD_ERR_NOMEM;
		/* unsigned: a counter that went back (a reset the capture
		 * does not show) wraps, as perf's u64 subtraction */
		delta = v.value - l->value;
		l->value = v.value;
		if (!delta)
			continue;
		out[n] = *s;
		out[n].evsel = ev;
		out[n].id = v.id;
		out[n].period = delta;
		n++;
	}
	return (int)n;
}
