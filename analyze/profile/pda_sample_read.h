/*
 * pda_sample_read.h - the samples perf makes of one with
 * PERF_SAMPLE_READ: a group `{cycles,instructions}:S` (or an event with
 * :S alone) records the counter values at each of the leader's samples,
 * and perf delivers one sample per value, of that value's event, whose
 * period is how much the counter moved since the previous sample of the
 * same counter (the same id: one per CPU or thread the event was opened
 * on), as perf 6.1's deliver_sample_value().  A value that did not move
 * gives no sample; a value without PERF_FORMAT_ID, or whose id no event
 * owns, gives none either and is counted (perf's nr_unknown_id).
 *
 * The periods are exact counts, not estimates: the rows of a group's
 * members are the counts of each row's code between samples.
 *
 * Samples must come in the order the kernel wrote each id's (a
 * capture's order).  Not thread-safe.
 */
#ifndef PDA_SAMPLE_READ_H
#define PDA_SAMPLE_READ_H

#include "pd.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pda_sample_read;

/* @return 0 and *out, or PD_ERR_NOMEM.  Free with pda_sample_read_free. */
int pda_sample_read_new(const struct pd_alloc *alloc,
			struct pda_sample_read **out);
/* Accepts NULL. */
void pda_sample_read_free(struct pda_sample_read *sr);

/* Whether s is delivered as its read values (it has PERF_SAMPLE_READ). */
bool pda_sample_read_applies(const struct pd_sample *s);

/*
 * The samples s stands for, into out (at most max; s->read.nr is
 * enough): copies of s, each with the evsel, id and period of one read
 * value that moved, in the record's order.  Pointers in them are s's.
 * @return how many, or PD_ERR_NOMEM.
 */
int pda_sample_read_split(struct pda_sample_read *sr, const struct pd_file *f,
			  const struct pd_sample *s, struct pd_sample *out,
			  size_t max);

/* Values no event owns (no id, or an unknown one): perf's
 * nr_unknown_id. */
uint64_t pda_sample_read_unknown(const struct pda_sample_read *sr);

#ifdef __cplusplus
}
#endif

#endif /* PDA_SAMPLE_READ_H */
