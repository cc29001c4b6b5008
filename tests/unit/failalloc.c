/*
 * failalloc.c - the failing allocator of failalloc.h.
 */
#include "failalloc.h"

#include <stdlib.h>
#include <string.h>

void failalloc_init(struct failalloc *fa, unsigned long fail_at,
		    bool persistent)
{
	memset(fa, 0, sizeof(*fa));
	fa->fail_at = fail_at;
	fa->persistent = persistent;
}

static bool should_fail(struct failalloc *fa, size_t size)
{
	fa->nr_calls++;
	if ((fa->max_size && size > fa->max_size) ||
	    (fa->fail_at && (fa->nr_calls == fa->fail_at ||
			     (fa->persistent && fa->nr_calls > fa->fail_at)))) {
		fa->nr_failed++;
		return true;
	}
	return false;
}

static void *fa_malloc(void *arg, size_t size)
{
	struct failalloc *fa = arg;
	void *p;

	if (should_fail(fa, size))
		return NULL;
	p = malloc(size);
	if (p)
		fa->live++;
	return p;
}

static void *fa_realloc(void *arg, void *ptr, size_t size)
{
	struct failalloc *fa = arg;
	void *p;

	if (should_fail(fa, size))
		return NULL;
	p = realloc(ptr, size);
	if (p && !ptr)
		fa->live++;
	return p;
}

static void fa_free(void *arg, void *ptr)
{
	struct failalloc *fa = arg;

	if (ptr)
		fa->live--;
	else
		fa->nr_free_null++;
	free(ptr);
}

struct pd_alloc failalloc_hooks(struct failalloc *fa)
{
	struct pd_alloc hooks = {fa_malloc, fa_realloc, fa_free, fa};

	return hooks;
}
