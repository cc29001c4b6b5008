/*
 * failalloc.h - the failing allocator of the out-of-memory tests (T9),
 * for every unit test and the fuzz target: struct pd_alloc hooks that
 * fail the fail_at-th call (malloc or realloc), once or from then on,
 * and count the blocks still live so that a test can check for leaks,
 * and the bytes live at the worst moment, for memory budgets.
 *
 *	struct failalloc fa;
 *	for (unsigned long n = 1;; n++) {
 *		failalloc_init(&fa, n, false);
 *		const struct pd_alloc hooks = failalloc_hooks(&fa);
 *		rc = (run with hooks);
 *		ck_assert(rc == 0 || rc == PD_ERR_NOMEM);
 *		ck_assert_int_eq(fa.live, 0);
 *		if (!fa.nr_failed)
 *			break;		(the run needed fewer calls)
 *	}
 *
 * Not thread-safe beyond what the caller's locking gives: the pipeline's
 * tests count approximately across threads, which is all they need.
 */
#ifndef FAILALLOC_H
#define FAILALLOC_H

#include "pd.h"

#include <stdbool.h>
#include <stddef.h>

struct failalloc {
	unsigned long fail_at;	    /* 1-based call that fails; 0: none */
	bool persistent;	    /* every call after fail_at fails too */
	size_t max_size;	    /* a larger request fails; 0: no cap */
	unsigned long nr_calls;	    /* malloc and realloc calls so far */
	unsigned long nr_failed;    /* calls failed (injected or capped) */
	long live;		    /* blocks allocated and not yet freed */
	unsigned long nr_free_null; /* free(NULL) calls the hooks saw */
	size_t live_bytes;	    /* bytes of the live blocks (usable
				     * sizes, as malloc_usable_size says) */
	size_t peak_bytes;	    /* the most live_bytes would have been:
				     * a request counts at its size whether
				     * it is granted or failed, so a cap
				     * (max_size) hides no large request */
};

/* Zero fa (counters included), then set fail_at and persistent. */
void failalloc_init(struct failalloc *fa, unsigned long fail_at,
		    bool persistent);

/* Hooks on fa; fa must outlive every allocation made through them. */
struct pd_alloc failalloc_hooks(struct failalloc *fa);

#endif /* FAILALLOC_H */
