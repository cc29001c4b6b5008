/*
 * pdc_alloc.c - allocation through struct pd_alloc hooks (O4) and array
 * growth with an overflow check and a cap (O5), for every layer: the
 * reader's handles, the session, and the aggregators that have no
 * session (pda_fold, pda_flame, pda_script, pda_diff).
 */
#include "pdc_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *pdc_malloc(const struct pd_alloc *a, size_t size)
{
	if (size == 0)
		size = 1;
	if (a && a->malloc_fn)
		return a->malloc_fn(a->arg, size);
	return malloc(size);
}

void *pdc_zalloc(const struct pd_alloc *a, size_t size)
{
	void *p = pdc_malloc(a, size);

	if (p)
		memset(p, 0, size);
	return p;
}

void *pdc_realloc(const struct pd_alloc *a, void *p, size_t size)
{
	if (size == 0)
		size = 1;
	if (a && a->realloc_fn)
		return a->realloc_fn(a->arg, p, size);
	return realloc(p, size);
}

void pdc_free(const struct pd_alloc *a, void *p)
{
	if (!p)
		return;
	if (a && a->free_fn)
		a->free_fn(a->arg, p);
	else
		free(p);
}

char *pdc_strndup(const struct pd_alloc *a, const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = pdc_malloc(a, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

int pdc_regrow(const struct pd_alloc *a, void **arr, size_t elem, size_t *alloc,
	       size_t want, size_t max)
{
	size_t cap = *alloc;
	void *p;

	if (want <= cap)
		return 0;
	if (want > max || want > SIZE_MAX / elem)
		return PDC_ERR_NOMEM;
	if (cap < 16)
		cap = 16;
	while (cap < want)
		cap = cap > max / 2 ? max : cap * 2;
	p = pdc_realloc(a, *arr, cap * elem);
	if (!p)
		return PDC_ERR_NOMEM;
	*arr = p;
	*alloc = cap;
	return 0;
}

int pdc_resize(const struct pd_alloc *a, void **arr, size_t elem,
	       size_t *alloc, size_t want, size_t max)
{
	void *p;

	if (want == *alloc || want == 0)
		return 0;
	if (want > max || want > SIZE_MAX / elem)
		return PDC_ERR_NOMEM;
	p = pdc_realloc(a, *arr, want * elem);
	if (!p)
		return PDC_ERR_NOMEM;
	*arr = p;
	*alloc = want;
	return 0;
}
