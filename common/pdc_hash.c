/*
 * pdc_hash.c - pdtool's one hash table (P3): open addressing with linear
 * probing, grown by doubling.  The invariants, a usage example and the
 * inline lookups are in pdc_hash.h.  Used for the string intern tables,
 * the session's threads, processes, DSOs, DWARF units and per-address
 * resolution cache, pda_fold's names and stacks, pda_flame's names and
 * tree nodes, and the profile's id tables.
 */
#include "pdc_hash.h"

#include <stdlib.h>
#include <string.h>

/*
 * Eight bytes at a time, each word mixed into the state by a multiply and
 * a rotate; the length is folded in so that "a" and "a\0" differ, and so
 * that the last 1 to 7 bytes can be read as two overlapping loads (as
 * wyhash reads them) rather than copied byte by byte into a word, which
 * stalls the load that follows.  Not cryptographic: keys come from the
 * capture, but a hostile capture can at worst make probes long.
 */
uint64_t pdc_hash_bytes(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h =
		0x9e3779b97f4a7c15ull ^ ((uint64_t)len * 0xff51afd7ed558ccdull);
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, b, 8);
		h ^= w * 0x87c37b91114253d5ull;
		h = (h << 31 | h >> 33) * 0x4cf5ad432745937full;
		b += 8;
		len -= 8;
	}
	if (len >= 4) {
		uint32_t lo, hi;

		memcpy(&lo, b, 4);
		memcpy(&hi, b + len - 4, 4);
		w = (uint64_t)hi << 32 | lo;
	} else if (len > 0) {
		w = (uint64_t)b[0] << 16 | (uint64_t)b[len / 2] << 8 |
		    b[len - 1];
	} else {
		w = 0;
	}
	h ^= w * 0x87c37b91114253d5ull;
	return pdc_hash_u64(h);
}

int pdc_hash_grow(const struct pd_alloc *a, struct pdc_hash *h)
{
	const size_t nr_slots = h->slots ? h->mask + 1 : 0;
	size_t new_nr;
	struct pdc_hash_slot *slots;

	new_nr = nr_slots ? nr_slots * 2 : PDC_HASH_MIN_SLOTS;
	if (new_nr > PDC_HASH_MAX_SLOTS || new_nr > SIZE_MAX / sizeof(*slots))
		return PDC_ERR_NOMEM;
	slots = pdc_zalloc(a, new_nr * sizeof(*slots));
	if (!slots)
		return PDC_ERR_NOMEM;
	for (size_t i = 0; i < nr_slots; i++) {
		size_t j;

		if (!h->slots[i].item)
			continue;
		j = h->slots[i].hash & (new_nr - 1);
		while (slots[j].item)
			j = (j + 1) & (new_nr - 1);
		slots[j] = h->slots[i];
	}
	pdc_free(a, h->slots);
	h->slots = slots;
	h->mask = new_nr - 1;
	return 0;
}

int pdc_hash_add(const struct pd_alloc *a, struct pdc_hash *h, uint64_t hash,
		 void *item)
{
	size_t i;

	if (pdc_hash_reserve(a, h) < 0)
		return PDC_ERR_NOMEM;
	for (i = hash & h->mask; h->slots[i].item; i = (i + 1) & h->mask)
		;
	pdc_hash_fill(h, &h->slots[i], hash, item);
	return 0;
}

void *pdc_hash_next(const struct pdc_hash *h, size_t *pos)
{
	for (; h->slots && *pos <= h->mask; (*pos)++)
		if (h->slots[*pos].item)
			return h->slots[(*pos)++].item;
	return NULL;
}

void pdc_hash_release(const struct pd_alloc *a, struct pdc_hash *h)
{
	pdc_free(a, h->slots);
	h->slots = NULL;
	h->mask = 0;
	h->nr = 0;
}
