/*
 * pdc_hash.h - the hash table, the only one in pdtool (P3): open
 * addressing with linear probing over slots of a full 64-bit hash and an
 * item pointer.  The caller keeps the items' memory; the table holds
 * pointers to them.
 *
 * Invariants: the slots number 0 or a power of two (mask + 1), at least
 * PDC_HASH_MIN_SLOTS; an empty slot has item NULL; an item sits in the
 * run of full slots that starts at its hash & mask; nr counts the items.
 * The table doubles (rehashing from the stored hashes) before an
 * insertion would fill more than 3/4 of it, so every probe ends at an
 * empty slot; past PDC_HASH_MAX_SLOTS an insertion fails with
 * PDC_ERR_NOMEM (O5).  Items are never removed.  Not thread-safe.
 *
 * The lookups are inline so that the compiler inlines eq as well: the
 * per-sample paths of pda_fold and the session look up every frame.
 *
 *	struct ent { uint64_t key; ... };
 *	static bool ent_eq(const void *item, const void *key)
 *	{
 *		return ((const struct ent *)item)->key ==
 *		       *(const uint64_t *)key;
 *	}
 *	e = pdc_hash_find(&h, pdc_hash_u64(k), ent_eq, &k);
 *	if (!e) {
 *		e = new entry for k;
 *		rc = pdc_hash_add(alloc, &h, pdc_hash_u64(k), e);
 *	}
 *	pdc_hash_release(alloc, &h);
 *
 * Find-or-add with one probe (nothing may change h in between):
 *
 *	if (pdc_hash_reserve(alloc, &h) < 0) fail;
 *	slot = pdc_hash_probe(&h, hash, ent_eq, &k);
 *	if (!slot->item)
 *		pdc_hash_fill(&h, slot, hash, new entry for k);
 */
#ifndef PDC_HASH_H
#define PDC_HASH_H

#include "pdc_alloc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pdc_hash_slot {
	uint64_t hash;
	void *item; /* NULL: empty */
};

struct pdc_hash {
	struct pdc_hash_slot *slots;
	size_t mask; /* nr slots - 1; 0 while slots is NULL */
	size_t nr;
};

#define PDC_HASH_INIT                                                          \
	{                                                                      \
		NULL, 0, 0                                                     \
	}
#define PDC_HASH_MIN_SLOTS ((size_t)64)
#define PDC_HASH_MAX_SLOTS ((size_t)1 << 30)

typedef bool (*pdc_hash_eq_fn)(const void *item, const void *key);

/* Double the slots (or make the first ones).
 * @return 0 or PDC_ERR_NOMEM (h unchanged). */
int pdc_hash_grow(const struct pd_alloc *a, struct pdc_hash *h);

/* Room for one more item.  @return 0 or PDC_ERR_NOMEM (h unchanged). */
static inline int pdc_hash_reserve(const struct pd_alloc *a, struct pdc_hash *h)
{
	if (h->slots && (h->nr + 1) * 4 <= (h->mask + 1) * 3)
		return 0;
	return pdc_hash_grow(a, h);
}

/*
 * The slot holding the item for which eq(item, key) holds, else the
 * empty slot where it goes (pdc_hash_fill() puts it there).  Needs slots:
 * a pdc_hash_reserve() since the table was last released.  The slot is
 * valid until h next changes.
 */
static inline struct pdc_hash_slot *pdc_hash_probe(const struct pdc_hash *h,
						   uint64_t hash,
						   pdc_hash_eq_fn eq,
						   const void *key)
{
	for (size_t i = hash & h->mask;; i = (i + 1) & h->mask) {
		struct pdc_hash_slot *slot = &h->slots[i];

		if (!slot->item || (slot->hash == hash && eq(slot->item, key)))
			return slot;
	}
}

/* Put item (not NULL) into the empty slot pdc_hash_probe() gave. */
static inline void pdc_hash_fill(struct pdc_hash *h, struct pdc_hash_slot *slot,
				 uint64_t hash, void *item)
{
	slot->hash = hash;
	slot->item = item;
	h->nr++;
}

/* The item for which eq(item, key) holds, or NULL. */
static inline void *pdc_hash_find(const struct pdc_hash *h, uint64_t hash,
				  pdc_hash_eq_fn eq, const void *key)
{
	if (!h->slots)
		return NULL;
	return pdc_hash_probe(h, hash, eq, key)->item;
}

/* Add item (not NULL; duplicates are not checked).
 * @return 0 or PDC_ERR_NOMEM (h unchanged, item not added). */
int pdc_hash_add(const struct pd_alloc *a, struct pdc_hash *h, uint64_t hash,
		 void *item);
/*
 * Iterate: start with *pos = 0; @return the next item, NULL at the end.
 * The order is the slots'; h must not change during the walk.
 */
void *pdc_hash_next(const struct pdc_hash *h, size_t *pos);
/* Free the slots (not the items); h is then empty and reusable. */
void pdc_hash_release(const struct pd_alloc *a, struct pdc_hash *h);

/* A hash of len bytes (not cryptographic: a hostile capture can at worst
 * make probes long). */
uint64_t pdc_hash_bytes(const void *p, size_t len);

/* splitmix64's finalizer: every input bit reaches every output bit. */
static inline uint64_t pdc_hash_u64(uint64_t v)
{
	v ^= v >> 30;
	v *= 0xbf58476d1ce4e5b9ull;
	v ^= v >> 27;
	v *= 0x94d049bb133111ebull;
	v ^= v >> 31;
	return v;
}

#endif /* PDC_HASH_H */
