/*
 * failalloc.c - the failing allocator of failalloc.h.
 */
#include "pd_config.h"

#include "failalloc.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

void failalloc_init(struct failalloc *fa, unsigned long fail_at,
		    bool persistent)
{
	memset(fa, 0, sizeof(*fa));
	fa->fail_at = fail_at;
	fa->persistent = persistent;
}

/* A request for size bytes in place of old live ones: the peak it
 * would make, were it granted. */
static void note_request(struct failalloc *fa, size_t old, size_t size)
{
	const size_t base = fa->live_bytes - old;
	const size_t would = size > SIZE_MAX - base ? SIZE_MAX : base + size;

	if (would > fa->peak_bytes)
		fa->peak_bytes = would;
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

	note_request(fa, 0, size);
	if (should_fail(fa, size))
		return NULL;
	p = malloc(size);
	if (p) {
		fa->live++;
		fa->live_bytes += malloc_usable_size(p);
	}
	return p;
}

static void *fa_realloc(void *arg, void *ptr, size_t size)
{
	struct failalloc *fa = arg;
	const size_t old = ptr ? malloc_usable_size(ptr) : 0;
	void *p;

	note_request(fa, old, size);
	if (should_fail(fa, size))
		return NULL;
	p = realloc(ptr, size);
	if (!p)
		return NULL;
	if (!ptr)
		fa->live++;
	fa->live_bytes = fa->live_bytes - old + malloc_usable_size(p);
	return p;
}

static void fa_free(void *arg, void *ptr)
{
	struct failalloc *fa = arg;

	if (ptr) {
		fa->live--;
		fa->live_bytes -= malloc_usable_size(ptr);
	} else {
		fa->nr_free_null++;
	}
	free(ptr);
}

struct pd_alloc failalloc_hooks(struct failalloc *fa)
{
	struct pd_alloc hooks = {fa_malloc, fa_realloc, fa_free, fa};

	return hooks;
}
