/*
 * pdc_intern.h - a string intern table (O5): one entry per distinct
 * byte string, in an arena of its own (pdc_arena.h), found through the
 * hash table (pdc_hash.h).  The session's names, pda_fold's atoms and
 * details, pda_diff's names and DSOs and the profile's string table are
 * each one.
 *
 * An entry is the caller's header, hdr_size bytes (none by default),
 * followed by the string: its bytes and a NUL.  A caller whose header is
 * a struct ending in `char str[]` gives offsetof(struct X, str) as
 * hdr_size: the entry is then the struct and str its string.  In front
 * of the entry, out of the caller's sight, the table keeps the string's
 * length and the entry's id (struct pdc_intern_pre).
 *
 * Invariants: no two entries hold the same bytes (the length counts:
 * "a" and "a\0" are two entries); an entry's string is NUL-terminated
 * at its length, and may hold NULs before; an entry never moves, and
 * lives until pdc_intern_release(); a new entry's header is zeroed, and
 * its id is the number of entries before it, so the ids are 0, 1, ...
 * in the order the strings were first added.  With PDC_INTERN_IDS the
 * table also keeps an array of the entries by id (pdc_intern_at()).
 * Entries number at most max (PDC_INTERN_MAX_ENTRIES when 0) and a
 * string is at most PDC_INTERN_MAX_LEN bytes: past either, a new string
 * is refused as out of memory (O5).  A failed add leaves the table as
 * it was, and it can always be released (O6).  Headers are aligned to
 * PDC_ARENA_ALIGN.  A zeroed struct is an empty table with no header
 * and no ids (PDC_INTERN_INIT).  Not thread-safe.
 *
 *	struct name { unsigned count; char str[]; };
 *	struct pdc_intern t;
 *	struct name *n;
 *	void *e;
 *
 *	pdc_intern_init(&t, offsetof(struct name, str), 0, 0);
 *	rc = pdc_intern_add(&t, alloc, "main", 4, &e);
 *	if (rc < 0)
 *		return rc;		(t unchanged)
 *	n = e;			(rc 1: new, n->count is 0)
 *	n->count++;
 *	... n->str is "main" until
 *	pdc_intern_release(&t, alloc);	(the same hooks every time)
 */
#ifndef PDC_INTERN_H
#define PDC_INTERN_H

#include "pdc_alloc.h"
#include "pdc_arena.h"
#include "pdc_hash.h"

#include <stddef.h>
#include <stdint.h>

#define PDC_INTERN_MAX_LEN ((size_t)1 << 30) /* bytes of one string (O5) */
#define PDC_INTERN_MAX_HDR ((size_t)4096)    /* bytes of a caller's header */
/* entries, when the caller sets no cap: what the hash table holds */
#define PDC_INTERN_MAX_ENTRIES (PDC_HASH_MAX_SLOTS / 4 * 3)

enum pdc_intern_flags {
	PDC_INTERN_IDS = 1u << 0, /* keep the entries by id: pdc_intern_at() */
};

struct pdc_intern {
	struct pdc_arena arena; /* the entries */
	struct pdc_hash hash;	/* of entries (their headers) */
	void **ents;		/* PDC_INTERN_IDS: entry by id */
	size_t alloc_ents;
	size_t hdr_size;
	size_t max; /* 0: PDC_INTERN_MAX_ENTRIES */
	unsigned flags;
};

#define PDC_INTERN_INIT                                                        \
	{                                                                      \
		PDC_ARENA_INIT, PDC_HASH_INIT, NULL, 0, 0, 0, 0                \
	}

/* What the table keeps in front of each entry. */
struct pdc_intern_pre {
	size_t len; /* of the string, the NUL not counted */
	size_t id;  /* the entries added before it */
};

/* The bytes in front of an entry: the prefix, padded to keep the
 * caller's header aligned as the arena aligns. */
#define PDC_INTERN_PRE_SIZE                                                    \
	((sizeof(struct pdc_intern_pre) + PDC_ARENA_ALIGN - 1) &               \
	 ~(size_t)(PDC_ARENA_ALIGN - 1))

/*
 * An empty table whose entries have a header of hdr_size bytes (at most
 * PDC_INTERN_MAX_HDR), with at most max entries (0: no cap but
 * PDC_INTERN_MAX_ENTRIES) and the pdc_intern_flags in flags.
 */
void pdc_intern_init(struct pdc_intern *t, size_t hdr_size, size_t max,
		     unsigned flags);

/*
 * The entry of len bytes of s (which need not be NUL-terminated, and may
 * hold NULs), added if new: *entry is its header (its string when the
 * table has none), valid until pdc_intern_release().
 * @return 1 when the entry is new (its header zeroed), 0 when it was
 * there, PDC_ERR_NOMEM when out of memory or past a cap (t unchanged,
 * *entry NULL).
 */
int pdc_intern_add(struct pdc_intern *t, const struct pd_alloc *a,
		   const char *s, size_t len, void **entry);

/* The entry of len bytes of s (valid until pdc_intern_release()), or
 * NULL; never adds. */
void *pdc_intern_find(const struct pdc_intern *t, const char *s, size_t len);

/* The entries in the table. */
static inline size_t pdc_intern_nr(const struct pdc_intern *t)
{
	return t->hash.nr;
}

/* Entry id, valid until pdc_intern_release(); NULL when id >=
 * pdc_intern_nr() or the table keeps no ids (no PDC_INTERN_IDS). */
static inline void *pdc_intern_at(const struct pdc_intern *t, size_t id)
{
	return id < t->hash.nr && t->ents ? t->ents[id] : NULL;
}

/* An entry's string, NUL-terminated, as long as the entry. */
static inline const char *pdc_intern_str(const struct pdc_intern *t,
					 const void *entry)
{
	return (const char *)entry + t->hdr_size;
}

/* The length and id the table keeps for entry. */
static inline const struct pdc_intern_pre *pdc_intern_pre(const void *entry)
{
	return (const void *)((const unsigned char *)entry -
			      PDC_INTERN_PRE_SIZE);
}

/* An entry's string length, the NUL not counted. */
static inline size_t pdc_intern_len(const void *entry)
{
	return pdc_intern_pre(entry)->len;
}

/* An entry's id: how many entries were added before it. */
static inline size_t pdc_intern_id(const void *entry)
{
	return pdc_intern_pre(entry)->id;
}

/*
 * Iterate over the entries in no set order: start with *pos = 0;
 * @return the next entry (valid until pdc_intern_release()), NULL at
 * the end.  t must not change during the walk.
 */
static inline void *pdc_intern_next(const struct pdc_intern *t, size_t *pos)
{
	return pdc_hash_next(&t->hash, pos);
}

/* Free every entry and the table's memory; t is then empty and reusable
 * with the same header size, cap and flags. */
void pdc_intern_release(struct pdc_intern *t, const struct pd_alloc *a);

#endif /* PDC_INTERN_H */
