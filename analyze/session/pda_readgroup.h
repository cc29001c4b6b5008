/*
 * pda_readgroup.h - samples that read their counters (PERF_SAMPLE_READ
 * with PERF_FORMAT_ID) handed on as perf 6.1 delivers them (session.c
 * deliver_sample_group, deliver_sample_value): a group's (leader
 * sampling, `perf record -e '{a,b}:S'`) once per member, as that
 * member's event, and a lone event's (`-e cycles:S`) once, each with
 * its counter's count since that counter's previous sample as the
 * period, not the sample's own; a value whose count did not move is not
 * handed on, nor one whose id names no event (perf counts those as
 * "samples with id not present in the header").  Private to
 * analyze/session.
 */
#ifndef PDA_READGROUP_H
#define PDA_READGROUP_H

#include "pda_session.h"

/* Each counter's (id's) count at its last sample. */
struct pda_readgroup {
	struct pda_rg_count *counts;
	size_t nr, alloc;
	size_t last; /* the last one found */
};

#define PDA_READGROUP_INIT {NULL, 0, 0, 0}

/* Whether sample reads its counters (and is handed on by their values:
 * without PERF_FORMAT_ID a value names no counter, and the sample goes
 * on with its own period). */
bool pda_readgroup_is(const struct pd_sample *sample);

/* pda_readgroup_member()'s answer for a value whose id names no event */
#define PDA_READGROUP_UNKNOWN 2

/*
 * Read value i of sample (i < sample->read.nr: a group's member, or the
 * lone event's value) as its own sample, in *out: the counter's event
 * (from its id), id and period.
 * @return 1 when it is to be handed on, 0 when its count did not move,
 * PDA_READGROUP_UNKNOWN when its id names no event (perf skips both),
 * PD_ERR_NOMEM.
 */
int pda_readgroup_member(struct pda_readgroup *rg, struct pda_session *s,
			 struct pd_file *f, const struct pd_sample *sample,
			 uint64_t i, struct pd_sample *out);

void pda_readgroup_release(struct pda_readgroup *rg, struct pda_session *s);

#endif /* PDA_READGROUP_H */
