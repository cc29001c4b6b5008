/*
 * pdc_arena.h - an arena (O5): memory carved from 64 KiB blocks taken
 * through struct pd_alloc hooks, for what lives as long as its owner (a
 * session's interned strings, an aggregator's names and stacks, a
 * file's decoded feature sections) and is released all at once.
 *
 * Invariants: blocks form a list from head; cur points at the free space
 * of head, left bytes of it; every allocation is 16-byte aligned.  A
 * request over a quarter of a block gets a block of its own, linked
 * behind head, so a big request never wastes a partly used block.
 * Memory is never freed one allocation at a time.  A zeroed struct is an
 * empty arena (PDC_ARENA_INIT).  Not thread-safe.
 *
 *	struct pdc_arena ar = PDC_ARENA_INIT;
 *	char *name = pdc_arena_alloc(&ar, alloc, len + 1);
 *	...
 *	pdc_arena_release(&ar, alloc);	(the same hooks every time)
 */
#ifndef PDC_ARENA_H
#define PDC_ARENA_H

#include "pdc_alloc.h"

#include <stddef.h>
#include <stdint.h>

#define PDC_ARENA_BLOCK ((size_t)64 * 1024)
#define PDC_ARENA_ALIGN 16

struct pdc_arena_block;

struct pdc_arena {
	struct pdc_arena_block *head;
	unsigned char *cur;
	size_t left;
	uint64_t total; /* bytes taken from the hooks */
};

#define PDC_ARENA_INIT                                                         \
	{                                                                      \
		NULL, NULL, 0, 0                                               \
	}

/* size bytes (not zeroed), valid until pdc_arena_release(); NULL only
 * when out of memory. */
void *pdc_arena_alloc(struct pdc_arena *ar, const struct pd_alloc *a,
		      size_t size);
/* size bytes, zeroed. */
void *pdc_arena_zalloc(struct pdc_arena *ar, const struct pd_alloc *a,
		       size_t size);
/* A NUL-terminated copy of len bytes of s in the arena, or NULL. */
char *pdc_arena_strndup(struct pdc_arena *ar, const struct pd_alloc *a,
			const char *s, size_t len);
/* Move from's blocks into ar (from is then empty): what was allocated
 * in from lives as long as ar.  Both on the same hooks. */
void pdc_arena_adopt(struct pdc_arena *ar, struct pdc_arena *from);
/* Free every block; ar is then empty and reusable.  Accepts an empty
 * arena. */
void pdc_arena_release(struct pdc_arena *ar, const struct pd_alloc *a);

#endif /* PDC_ARENA_H */
