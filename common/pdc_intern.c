/*
 * pdc_intern.c - the string intern table of pdc_intern.h.
 */
#include "pdc_intern.h"

#include <assert.h>
#include <string.h>

void pdc_intern_init(struct pdc_intern *t, size_t hdr_size, size_t max,
		     unsigned flags)
{
	const struct pdc_intern empty = PDC_INTERN_INIT;

	assert(hdr_size <= PDC_INTERN_MAX_HDR);
	*t = empty;
	t->hdr_size = hdr_size;
	t->max = max;
	t->flags = flags;
}

struct str_key {
	const char *s;
	size_t len;
	size_t hdr_size;
};

static bool ent_eq(const void *item, const void *key)
{
	const struct str_key *k = key;

	return pdc_intern_len(item) == k->len &&
	       memcmp((const char *)item + k->hdr_size, k->s, k->len) == 0;
}

void *pdc_intern_find(const struct pdc_intern *t, const char *s, size_t len)
{
	const struct str_key key = {s, len, t->hdr_size};

	if (len > PDC_INTERN_MAX_LEN)
		return NULL;
	return pdc_hash_find(&t->hash, pdc_hash_bytes(s, len), ent_eq, &key);
}

int pdc_intern_add(struct pdc_intern *t, const struct pd_alloc *a,
		   const char *s, size_t len, void **entry)
{
	const struct str_key key = {s, len, t->hdr_size};
	const size_t max = t->max ? t->max : PDC_INTERN_MAX_ENTRIES;
	struct pdc_intern_pre *pre;
	struct pdc_hash_slot *slot;
	unsigned char *e;
	uint64_t hash;

	*entry = NULL;
	/* a string past the cap cannot be in the table: not even hashed */
	if (len > PDC_INTERN_MAX_LEN)
		return PDC_ERR_NOMEM;
	hash = pdc_hash_bytes(s, len);
	/* what may fail comes first, the arena last: a failure changes
	 * no entry, only the room the table has */
	if (pdc_hash_reserve(a, &t->hash) < 0)
		return PDC_ERR_NOMEM;
	slot = pdc_hash_probe(&t->hash, hash, ent_eq, &key);
	if (slot->item) {
		*entry = slot->item;
		return 0;
	}
	if (t->hash.nr >= max ||
	    ((t->flags & PDC_INTERN_IDS) &&
	     PDC_GROW(a, t->ents, t->alloc_ents, t->hash.nr + 1, max) < 0))
		return PDC_ERR_NOMEM;
	/* no overflow: len and hdr_size are capped far below SIZE_MAX / 2 */
	e = pdc_arena_alloc(&t->arena, a,
			    PDC_INTERN_PRE_SIZE + t->hdr_size + len + 1);
	if (!e)
		return PDC_ERR_NOMEM;
	pre = (void *)e;
	pre->len = len;
	pre->id = t->hash.nr;
	e += PDC_INTERN_PRE_SIZE;
	memset(e, 0, t->hdr_size);
	memcpy(e + t->hdr_size, s, len);
	e[t->hdr_size + len] = '\0';
	if (t->flags & PDC_INTERN_IDS)
		t->ents[t->hash.nr] = e;
	/* the probe's slot: nothing changed the hash since */
	pdc_hash_fill(&t->hash, slot, hash, e);
	*entry = e;
	return 1;
}

void pdc_intern_release(struct pdc_intern *t, const struct pd_alloc *a)
{
	pdc_arena_release(&t->arena, a);
	pdc_hash_release(a, &t->hash);
	pdc_free(a, t->ents);
	t->ents = NULL;
	t->alloc_ents = 0;
}
