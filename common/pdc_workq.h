/*
 * pdc_workq.h - work handed to one thread of its own, in order: the
 * caller fills blocks of 64-bit words with records of its own format,
 * and a consumer thread takes the blocks in the order they were filled.
 * For an aggregation whose per-item counting needs nothing the caller's
 * thread goes on changing (branches' table), so that it runs beside the
 * reading instead of after it.
 *
 *	struct pdc_workq *q;
 *	pdc_workq_start(&q, alloc, count_block, arg);
 *	uint64_t *w = pdc_workq_reserve(q, n);	// room for n words
 *	... w[0..k) written, k <= n ...
 *	pdc_workq_commit(q, k);
 *	rc = pdc_workq_stop(q);		// every block counted, thread gone
 *
 * A record never straddles blocks: reserve gives n contiguous words
 * (a block of its own when n is larger than a block).  Memory: at most
 * PDC_WORKQ_BLOCKS blocks of PDC_WORKQ_WORDS words wait; the caller
 * waits for the consumer beyond that.  The consumer's first error stops
 * it counting; reserve then fails, and stop returns that error.
 */
#ifndef PDC_WORKQ_H
#define PDC_WORKQ_H

#include "pdc_abi.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PDC_WORKQ_WORDS (8u << 10) /* a block's words (64 KB) */
#define PDC_WORKQ_BLOCKS 8	   /* blocks of that size at most */

struct pdc_workq;

/* Count the records of one block, w[0..nr), on the consumer's thread.
 * @return 0 or a negative error code (the caller's: returned by stop). */
typedef int (*pdc_workq_fn)(void *arg, const uint64_t *w, size_t nr);

/* Start the consumer.  @return 0 and *out, or -1 (no memory, no thread;
 * *out NULL). */
int pdc_workq_start(struct pdc_workq **out, const struct pd_alloc *a,
		    pdc_workq_fn fn, void *arg);
/* Room for n words at the end of the caller's block (a new block taken
 * when it has not).  NULL: out of memory, or the consumer failed. */
uint64_t *pdc_workq_reserve(struct pdc_workq *q, size_t n);
/* n words written at what the last reserve returned: queued. */
void pdc_workq_commit(struct pdc_workq *q, size_t n);
/* The rest handed over, the consumer joined, the queue freed (NULL
 * accepted).  @return 0 or the consumer's first error. */
int pdc_workq_stop(struct pdc_workq *q);

#ifdef __cplusplus
}
#endif

#endif
