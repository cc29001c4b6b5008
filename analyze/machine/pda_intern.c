/*
 * pda_intern.c - the session's arena and its string intern table (O5).
 *
 * Arena: memory that lives as long as the session (interned strings,
 * cached resolutions), common/pdc_arena.c's on the session's hooks,
 * released with the session.
 *
 * Intern table: one entry per distinct byte string, in the arena, found
 * through the session's pdc_hash.  Invariants: every entry's bytes are
 * NUL-terminated and unique in the table, and pda_intern() returns the
 * entry's bytes, so equal strings are equal pointers for the session's
 * lifetime.
 *
 *	const char *a = pda_intern(s, "main", 4);
 *	const char *b = pda_intern(s, buf, strlen(buf));  // "main"
 *	assert(a == b);
 */
#include "pda_machine_int.h"

#include <string.h>

void *pda_arena_alloc(struct pda_session *s, size_t size)
{
	return pdc_arena_alloc(&s->arena, &s->alloc, size);
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
	uint64_t hash = pdc_hash_bytes(str, len);
	struct intern_ent *e;

	e = pdc_hash_find(&s->intern, hash, intern_eq, &key);
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
	if (pdc_hash_add(&s->alloc, &s->intern, hash, e) < 0)
		return NULL;
	return e->str;
}
