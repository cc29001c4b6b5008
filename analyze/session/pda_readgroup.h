/*
 * pda_readgroup.h - samples that read their group (leader sampling,
 * `perf record -e '{a,b}:S'`: PERF_SAMPLE_READ with PERF_FORMAT_GROUP)
 * handed on as perf 6.1 delivers them (session.c deliver_sample_group):
 * once per member, as that member's event, with the member's count since
 * its counter's previous sample as the period; a member whose count did
 * not move is not handed on.  Private to analyze/session.
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

/* Whether sample reads its group (and is to be split). */
bool pda_readgroup_is(const struct pd_sample *sample);

/*
 * The member of sample's group at index i (i < sample->read.nr) as its
 * own sample, in *out: the member's event (from its id), id and period.
 * @return 1 when it is to be handed on, 0 when its count did not move or
 * its id names no event (perf skips both), PD_ERR_NOMEM.
 */
int pda_readgroup_member(struct pda_readgroup *rg, struct pda_session *s,
			 struct pd_file *f, const struct pd_sample *sample,
			 uint64_t i, struct pd_sample *out);

void pda_readgroup_release(struct pda_readgroup *rg, struct pda_session *s);

#endif /* PDA_READGROUP_H */
