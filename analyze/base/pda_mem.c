/*
 * pda_mem.c - libpda's allocation through struct pd_alloc hooks (O4):
 * the session's (pda_malloc() and friends wrap these) and those of the
 * aggregators that have no session (pda_fold, pda_flame, pda_script),
 * and the copy of a caller's options their constructors start with.
 * reader/pd_util.c has the reader's own: the layer rule (L1) keeps the
 * two apart.
 */
#include "pda_base_int.h"

#include <stdlib.h>
#include <string.h>

void *pda_mem_alloc(const struct pd_alloc *a, size_t size)
{
	if (size == 0)
		size = 1;
	if (a && a->malloc_fn)
		return a->malloc_fn(a->arg, size);
	return malloc(size);
}

void *pda_mem_zalloc(const struct pd_alloc *a, size_t size)
{
	void *p = pda_mem_alloc(a, size);

	if (p)
		memset(p, 0, size);
	return p;
}

void *pda_mem_realloc(const struct pd_alloc *a, void *p, size_t size)
{
	if (size == 0)
		size = 1;
	if (a && a->realloc_fn)
		return a->realloc_fn(a->arg, p, size);
	return realloc(p, size);
}

void pda_mem_free(const struct pd_alloc *a, void *p)
{
	if (!p)
		return;
	if (a && a->free_fn)
		a->free_fn(a->arg, p);
	else
		free(p);
}

int pda_mem_regrow(const struct pd_alloc *a, void **arr, size_t elem,
		   size_t *alloc, size_t want, size_t max)
{
	size_t cap = *alloc;
	void *p;

	if (want <= cap)
		return 0;
	if (want > max || want > SIZE_MAX / elem)
		return PD_ERR_NOMEM;
	if (cap < 16)
		cap = 16;
	while (cap < want)
		cap = cap > max / 2 ? max : cap * 2;
	p = pda_mem_realloc(a, *arr, cap * elem);
	if (!p)
		return PD_ERR_NOMEM;
	*arr = p;
	*alloc = cap;
	return 0;
}

int pda_opts_copy(void *ours, size_t ours_size, const void *opts)
{
	const unsigned char *p = opts;
	size_t sz;

	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(sz))
		return PD_ERR_API;
	/* a newer caller: the options we do not know must be unset */
	for (size_t i = ours_size; i < sz; i++)
		if (p[i])
			return PD_ERR_API;
	memset(ours, 0, ours_size);
	memcpy(ours, opts, sz < ours_size ? sz : ours_size);
	return 0;
}
