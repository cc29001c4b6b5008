/*
 * pda_intern.c - the session's arena and its string intern table (O5).
 *
 * Arena: memory that lives as long as the session (interned strings,
 * cached resolutions), common/pdc_arena.c's on the session's hooks,
 * released with the session.
 *
 * Intern table: common/pdc_intern.c's, on the session's hooks, with no
 * header: pda_intern() returns the entry, which is its string, so equal
 * strings are equal pointers for the session's lifetime.
 *
 *	const char *a = pda_intern(s, "main", 4);
 *	const char *b = pda_intern(s, buf, strlen(buf));  // "main"
 *	assert(a == b);
 */
#include "pda_machine_int.h"

void *pda_arena_alloc(struct pda_session *s, size_t size)
{
	return pdc_arena_alloc(&s->arena, &s->alloc, size);
}

const char *pda_intern(struct pda_session *s, const char *str, size_t len)
{
	void *e;
	int rc;

	if (!s->mt.on) {
		rc = pdc_intern_add(&s->intern, &s->alloc, str, len, &e);
		return rc < 0 ? NULL : e;
	}
	/* equal strings give the same entry whatever the order they come
	 * in from the threads: an entry's address is all a caller keeps */
	pthread_mutex_lock(&s->mt.intern_lock);
	rc = pdc_intern_add(&s->intern, &s->alloc, str, len, &e);
	pthread_mutex_unlock(&s->mt.intern_lock);
	return rc < 0 ? NULL : e;
}
