/*
 * pda_base_int.h - what every libpda module builds on: allocation through
 * the caller's hooks and options validation (common/pdc_alloc.h and
 * pdc_opts.h), the hash table, and the
 * services a session gives the modules below it (allocation, the arena
 * and intern table, logging, errors).  The services are declared here on
 * an opaque struct pda_session so that the ELF/DWARF module can use them
 * without seeing the session; the machine module, which owns the
 * session's state, implements them.
 */
#ifndef PDA_BASE_INT_H
#define PDA_BASE_INT_H

#include "pd_config.h"
#include "pda_session.h"
#include "pdc_alloc.h"
#include "pdc_arena.h"
#include "pdc_opts.h"
#include "pdc_strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A hex digit's value, or -1. */
static inline int pda_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* ---- session services (pda_session.c, pda_intern.c) ---------------- */

/* The session's allocation hooks (opts.alloc), for pdc_* and the
 * hash table; never NULL, valid as long as the session. */
const struct pd_alloc *pda_session_alloc(const struct pda_session *s);

/* Allocation through the session's hooks: pdc_* on them. */
void *pda_malloc(struct pda_session *s, size_t size);
void *pda_zalloc(struct pda_session *s, size_t size);
void *pda_realloc(struct pda_session *s, void *p, size_t size);
void pda_free(struct pda_session *s, void *p);

/* Log through opts.log. */
void pda_logf(struct pda_session *s, enum pd_log_level level,
	      const char *fmt, ...) PD_PRINTF(3, 4);

/* Set the session's error message and return err. */
int pda_set_err(struct pda_session *s, int err, const char *fmt, ...)
	PD_PRINTF(3, 4);

/*
 * The session's string intern table: the same bytes give the same
 * pointer, valid until the session is freed.  NULL only on NOMEM.
 */
const char *pda_intern(struct pda_session *s, const char *str, size_t len);

/* The session's options (never NULL). */
const struct pda_opts *pda_session_opts(const struct pda_session *s);

/* pdc_grow() on the session's hooks. */
int pda_grow(struct pda_session *s, void **arr, size_t elem, size_t *alloc,
	     size_t want, size_t max);

#define PDA_GROW(s, arr, alloc, want, max)                                  \
	pda_grow((s), (void **)&(arr), sizeof(*(arr)), &(alloc), (want), (max))

/*
 * The session's arena (pda_intern.c): size bytes, 16-byte aligned, valid
 * until the session is freed, never freed one by one.  For what lives as
 * long as the session (interned strings, cached resolutions, symbol
 * tables).  NULL only on NOMEM.
 */
void *pda_arena_alloc(struct pda_session *s, size_t size);

/* ---- the hash table (pda_hash.c) ----------------------------------- */

/*
 * The hash table, the only one in libpda (P3): open addressing with
 * linear probing over slots of a full 64-bit hash and an item pointer.
 * The caller keeps the items' memory; the table holds pointers to them.
 *
 * Invariants: the slots number 0 or a power of two (mask + 1), at least
 * PDA_HASH_MIN_SLOTS; an empty slot has item NULL; an item sits in the
 * run of full slots that starts at its hash & mask; nr counts the items.
 * The table doubles (rehashing from the stored hashes) before an
 * insertion would fill more than 3/4 of it, so every probe ends at an
 * empty slot; past PDA_HASH_MAX_SLOTS an insertion fails with
 * PD_ERR_NOMEM (O5).  Items are never removed.  Not thread-safe.
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
 *	e = pda_hash_find(&h, pda_hash_u64(k), ent_eq, &k);
 *	if (!e) {
 *		e = new entry for k;
 *		rc = pda_hash_add(alloc, &h, pda_hash_u64(k), e);
 *	}
 *	pda_hash_release(alloc, &h);
 *
 * Find-or-add with one probe (nothing may change h in between):
 *
 *	if (pda_hash_reserve(alloc, &h) < 0) fail;
 *	slot = pda_hash_probe(&h, hash, ent_eq, &k);
 *	if (!slot->item)
 *		pda_hash_fill(&h, slot, hash, new entry for k);
 */
struct pda_hash_slot {
	uint64_t hash;
	void *item; /* NULL: empty */
};

struct pda_hash {
	struct pda_hash_slot *slots;
	size_t mask; /* nr slots - 1; 0 while slots is NULL */
	size_t nr;
};

#define PDA_HASH_INIT { NULL, 0, 0 }
#define PDA_HASH_MIN_SLOTS ((size_t)64)
#define PDA_HASH_MAX_SLOTS ((size_t)1 << 30)

typedef bool (*pda_hash_eq_fn)(const void *item, const void *key);

/* Double the slots (or make the first ones).
 * @return 0 or PD_ERR_NOMEM (h unchanged). */
int pda_hash_grow(const struct pd_alloc *a, struct pda_hash *h);

/* Room for one more item.  @return 0 or PD_ERR_NOMEM (h unchanged). */
static inline int pda_hash_reserve(const struct pd_alloc *a,
				   struct pda_hash *h)
{
	if (h->slots && (h->nr + 1) * 4 <= (h->mask + 1) * 3)
		return 0;
	return pda_hash_grow(a, h);
}

/*
 * The slot holding the item for which eq(item, key) holds, else the
 * empty slot where it goes (pda_hash_fill() puts it there).  Needs slots:
 * a pda_hash_reserve() since the table was last released.  The slot is
 * valid until h next changes.
 */
static inline struct pda_hash_slot *pda_hash_probe(const struct pda_hash *h,
						   uint64_t hash,
						   pda_hash_eq_fn eq,
						   const void *key)
{
	for (size_t i = hash & h->mask;; i = (i + 1) & h->mask) {
		struct pda_hash_slot *slot = &h->slots[i];

		if (!slot->item || (slot->hash == hash && eq(slot->item, key)))
			return slot;
	}
}

/* Put item (not NULL) into the empty slot pda_hash_probe() gave. */
static inline void pda_hash_fill(struct pda_hash *h, struct pda_hash_slot *slot,
				 uint64_t hash, void *item)
{
	slot->hash = hash;
	slot->item = item;
	h->nr++;
}

/* The item for which eq(item, key) holds, or NULL. */
static inline void *pda_hash_find(const struct pda_hash *h, uint64_t hash,
				  pda_hash_eq_fn eq, const void *key)
{
	if (!h->slots)
		return NULL;
	return pda_hash_probe(h, hash, eq, key)->item;
}

/* Add item (not NULL; duplicates are not checked).
 * @return 0 or PD_ERR_NOMEM (h unchanged, item not added). */
int pda_hash_add(const struct pd_alloc *a, struct pda_hash *h, uint64_t hash,
		 void *item);
/*
 * Iterate: start with *pos = 0; @return the next item, NULL at the end.
 * The order is the slots'; h must not change during the walk.
 */
void *pda_hash_next(const struct pda_hash *h, size_t *pos);
/* Free the slots (not the items); h is then empty and reusable. */
void pda_hash_release(const struct pd_alloc *a, struct pda_hash *h);

/* A hash of len bytes (not cryptographic: a hostile capture can at worst
 * make probes long). */
uint64_t pda_hash_bytes(const void *p, size_t len);

/* splitmix64's finalizer: every input bit reaches every output bit. */
static inline uint64_t pda_hash_u64(uint64_t v)
{
	v ^= v >> 30;
	v *= 0xbf58476d1ce4e5b9ull;
	v ^= v >> 27;
	v *= 0x94d049bb133111ebull;
	v ^= v >> 31;
	return v;
}

#endif /* PDA_BASE_INT_H */
