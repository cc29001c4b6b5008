/*
 * pda_hash.c - libpda's one hash table (P3): intrusive chaining over a
 * power-of-two bucket array, grown by doubling.  The invariants and a
 * usage example are in pda_int.h.  Used for the intern table, threads,
 * processes, DSOs and the per-address resolution cache.
 */
#include "pda_int.h"

#include <stdlib.h>
#include <string.h>

/* splitmix64's finalizer: every input bit reaches every output bit. */
uint64_t pda_hash_u64(uint64_t v)
{
	v ^= v >> 30;
	v *= 0xbf58476d1ce4e5b9ull;
	v ^= v >> 27;
	v *= 0x94d049bb133111ebull;
	v ^= v >> 31;
	return v;
}

/*
 * Eight bytes at a time, each word mixed into the state by a multiply and
 * a rotate; the length is folded in so that "a" and "a\0" differ.  Not
 * cryptographic: keys come from the capture, but a hostile capture can at
 * worst make chains long.
 */
uint64_t pda_hash_bytes(const void *p, size_t len)
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
	w = 0;
	memcpy(&w, b, len);
	h ^= w * 0x87c37b91114253d5ull;
	return pda_hash_u64(h);
}

struct pda_hash_node *pda_hash_find(const struct pda_hash *h, uint64_t hash,
				    pda_hash_eq_fn eq, const void *key)
{
	struct pda_hash_node *n;

	if (!h->nr_buckets)
		return NULL;
	for (n = h->buckets[hash & (h->nr_buckets - 1)]; n; n = n->next)
		if (n->hash == hash && eq(n, key))
			return n;
	return NULL;
}

/* Move every node of h into buckets (nr_buckets, zeroed, a power of
 * two); @return h's old bucket array, for the caller to free. */
static struct pda_hash_node **relink(struct pda_hash *h,
				     struct pda_hash_node **buckets,
				     size_t nr_buckets)
{
	struct pda_hash_node **old = h->buckets;

	for (size_t i = 0; i < h->nr_buckets; i++) {
		struct pda_hash_node *n = h->buckets[i], *next;

		for (; n; n = next) {
			size_t b = n->hash & (nr_buckets - 1);

			next = n->next;
			n->next = buckets[b];
			buckets[b] = n;
		}
	}
	h->buckets = buckets;
	h->nr_buckets = nr_buckets;
	return old;
}

/* The bucket count h should grow to before adding a node, or 0. */
static size_t grow_to(const struct pda_hash *h)
{
	if (h->nr < h->nr_buckets || h->nr_buckets >= PDA_HASH_MAX_BUCKETS)
		return 0;
	return h->nr_buckets ? h->nr_buckets * 2 : 64;
}

/*
 * Link node in.  Without a first bucket array there is nowhere to put
 * it; otherwise a growth that failed before only lengthens the chains.
 */
static int link_node(struct pda_hash *h, struct pda_hash_node *node)
{
	size_t b;

	if (!h->nr_buckets)
		return PD_ERR_NOMEM;
	b = node->hash & (h->nr_buckets - 1);
	node->next = h->buckets[b];
	h->buckets[b] = node;
	h->nr++;
	return 0;
}

int pda_hash_add(struct pda_session *s, struct pda_hash *h,
		 struct pda_hash_node *node)
{
	const size_t n = grow_to(h);

	if (n) {
		struct pda_hash_node **b = pda_zalloc(s, n * sizeof(*b));

		if (b)
			pda_free(s, relink(h, b, n));
	}
	return link_node(h, node);
}

int pda_hash_add_mem(const struct pd_alloc *a, struct pda_hash *h,
		     struct pda_hash_node *node)
{
	const size_t n = grow_to(h);

	if (n) {
		struct pda_hash_node **b =
			a && a->malloc_fn ? a->malloc_fn(a->arg, n * sizeof(*b))
					  : malloc(n * sizeof(*b));

		if (b) {
			memset(b, 0, n * sizeof(*b));
			b = relink(h, b, n);
			if (b && a && a->free_fn)
				a->free_fn(a->arg, b);
			else
				free(b);
		}
	}
	return link_node(h, node);
}

void pda_hash_remove(struct pda_hash *h, struct pda_hash_node *node)
{
	struct pda_hash_node **pp;

	if (!h->nr_buckets)
		return;
	pp = &h->buckets[node->hash & (h->nr_buckets - 1)];
	for (; *pp; pp = &(*pp)->next) {
		if (*pp == node) {
			*pp = node->next;
			node->next = NULL;
			h->nr--;
			return;
		}
	}
}

struct pda_hash_node *pda_hash_next(const struct pda_hash *h, size_t *pos,
				    struct pda_hash_node *node)
{
	if (node && node->next)
		return node->next;
	if (node)
		(*pos)++;
	for (; *pos < h->nr_buckets; (*pos)++)
		if (h->buckets[*pos])
			return h->buckets[*pos];
	return NULL;
}

void pda_hash_release(struct pda_session *s, struct pda_hash *h)
{
	pda_free(s, h->buckets);
	h->buckets = NULL;
	h->nr_buckets = 0;
	h->nr = 0;
}

void pda_hash_release_mem(const struct pd_alloc *a, struct pda_hash *h)
{
	if (h->buckets && a && a->free_fn)
		a->free_fn(a->arg, h->buckets);
	else
		free(h->buckets);
	h->buckets = NULL;
	h->nr_buckets = 0;
	h->nr = 0;
}
