/*
 * pda_intern.c - the session's arena and its string intern table (O5).
 *
 * Arena: memory that lives as long as the session (interned strings,
 * cached resolutions) is carved from 64 KiB blocks and released all at
 * once by pda_arena_release(); a request over a quarter of a block gets a
 * block of its own, so a big request never wastes a partly used one.
 *
 * Intern table: one entry per distinct byte string, in the arena, found
 * through the session's pda_hash.  Invariants: every entry's bytes are
 * NUL-terminated and unique in the table, and pda_intern() returns the
 * entry's bytes, so equal strings are equal pointers for the session's
 * lifetime.
 *
 *	const char *a = pda_intern(s, "main", 4);
 *	const char *b = pda_intern(s, buf, strlen(buf));  // "main"
 *	assert(a == b);
 */
#include "pda_machine_int.h"

#include <stdalign.h>
#include <string.h>

#define BLOCK_SIZE ((size_t)64 * 1024)
#define ALIGN 16

struct pda_arena_block {
	struct pda_arena_block *next;
	alignas(ALIGN) unsigned char data[];
};

/* A block of at least size bytes, linked in behind head when big. */
static unsigned char *new_block(struct pda_session *s, struct pda_arena *a,
				size_t size, bool own)
{
	struct pda_arena_block *b;

	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	b = pda_malloc(s, sizeof(*b) + size);
	if (!b)
		return NULL;
	a->total += sizeof(*b) + size;
	if (own && a->head) {
		/* keep the current block current */
		b->next = a->head->next;
		a->head->next = b;
	} else {
		b->next = a->head;
		a->head = b;
		if (!own) {
			a->cur = b->data;
			a->left = size;
		}
	}
	return b->data;
}

void *pda_arena_alloc(struct pda_session *s, size_t size)
{
	struct pda_arena *a = &s->arena;
	unsigned char *p;

	if (size > SIZE_MAX - ALIGN)
		return NULL;
	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (size == 0)
		size = ALIGN;
	if (size > BLOCK_SIZE / 4)
		return new_block(s, a, size, true);
	if (size > a->left && !new_block(s, a, BLOCK_SIZE, false))
		return NULL;
	p = a->cur;
	a->cur += size;
	a->left -= size;
	return p;
}

void pda_arena_release(struct pda_session *s, struct pda_arena *a)
{
	struct pda_arena_block *b = a->head, *next;

	for (; b; b = next) {
		next = b->next;
		pda_free(s, b);
	}
	a->head = NULL;
	a->cur = NULL;
	a->left = 0;
	a->total = 0;
}

struct intern_ent {
	size_t len;
	char str[];
};

struct intern_key {
	const char *str;
	size_t len;
};

static bool intern_eq(const void *item, const void *key)
{
	const struct intern_ent *e = item;
	const struct intern_key *k = key;

	return e->len == k->len && memcmp(e->str, k->str, k->len) == 0;
}

const char *pda_intern(struct pda_session *s, const char *str, size_t len)
{
	struct intern_key key = {str, len};
	uint64_t hash = pda_hash_bytes(str, len);
	struct intern_ent *e;

	e = pda_hash_find(&s->intern, hash, intern_eq, &key);
	if (e)
		return e->str;
	if (len > SIZE_MAX - sizeof(*e) - 1)
		return NULL;
	e = pda_arena_alloc(s, sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	e->len = len;
	memcpy(e->str, str, len);
	e->str[len] = '\0';
	if (pda_hash_add(&s->alloc, &s->intern, hash, e) < 0)
		return NULL;
	return e->str;
}
