/*
 * pdc_alloc.h - allocation through the caller's struct pd_alloc hooks
 * (O4) and the one growth rule for arrays (O5), for every layer.
 *
 * struct pd_alloc is libpd's public type (pd.h publishes it); it is
 * defined in pdc_abi.h so that common/ needs nothing above it.
 *
 *	struct item *items = NULL;
 *	size_t nr = 0, alloc = 0;
 *	if (PDC_GROW(a, items, alloc, nr + 1, ITEMS_MAX) < 0)
 *		return PD_ERR_NOMEM;	(items and alloc unchanged)
 *	items[nr++] = it;
 *	...
 *	pdc_free(a, items);
 */
#ifndef PDC_ALLOC_H
#define PDC_ALLOC_H

#include "pdc_abi.h"

#include <stddef.h>

/* Returned by pdc_regrow(); the same value as PD_ERR_NOMEM (pd.h). */
#define PDC_ERR_NOMEM (-2)

/*
 * a may be NULL, and any of its functions NULL: libc's then.  A size of
 * 0 is taken as 1, so NULL always means out of memory.
 */
void *pdc_malloc(const struct pd_alloc *a, size_t size);
void *pdc_zalloc(const struct pd_alloc *a, size_t size);
void *pdc_realloc(const struct pd_alloc *a, void *p, size_t size);
void pdc_free(const struct pd_alloc *a, void *p); /* accepts NULL */
/* A NUL-terminated copy of len bytes of s, or NULL (out of memory). */
char *pdc_strndup(const struct pd_alloc *a, const char *s, size_t len);

/*
 * Grow (*arr) of element size elem so that it holds at least want
 * elements, doubling from 16, capped at max elements; the byte size is
 * checked for overflow.  *alloc holds the capacity.
 * @return 0 or PDC_ERR_NOMEM (the array and *alloc unchanged).
 * pdc_grow() is inline for the parsers' per-line and per-frame calls,
 * which seldom need to grow; pdc_regrow() is the growing.
 */
int pdc_regrow(const struct pd_alloc *a, void **arr, size_t elem, size_t *alloc,
	       size_t want, size_t max);

static inline int pdc_grow(const struct pd_alloc *a, void **arr, size_t elem,
			   size_t *alloc, size_t want, size_t max)
{
	if (want <= *alloc)
		return 0;
	return pdc_regrow(a, arr, elem, alloc, want, max);
}

/*
 * Make (*arr)'s capacity exactly want elements (at least the ones it
 * holds: the caller's to say), for a builder that knows its final size
 * before it starts or is done growing: what doubling left unused goes
 * back.  want 0 keeps the array.  @return 0 or PDC_ERR_NOMEM (the array
 * and *alloc unchanged: still valid, only bigger than asked).
 */
int pdc_resize(const struct pd_alloc *a, void **arr, size_t elem,
	       size_t *alloc, size_t want, size_t max);

#define PDC_RESIZE(a, arr, alloc, want, max)                                   \
	pdc_resize((a), (void **)&(arr), sizeof(*(arr)), &(alloc), (want),     \
		   (max))

#define PDC_GROW(a, arr, alloc, want, max)                                     \
	pdc_grow((a), (void **)&(arr), sizeof(*(arr)), &(alloc), (want), (max))

#endif /* PDC_ALLOC_H */
