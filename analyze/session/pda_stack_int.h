/*
 * pda_stack_int.h - the session module's services to the analyses: a
 * sample's leaf alone, and LBR call stacks as perf builds them.
 */
#ifndef PDA_STACK_INT_H
#define PDA_STACK_INT_H

#include "pda_machine_int.h"

/*
 * pda_sample_stack() for the sample's own address only (its ip, in the
 * space perf's thread__find_map_fb picks): the frames of that address,
 * inlined ones first, the out-of-line function last, and *dso the DSO of
 * its map (NULL: none, anonymous memory or a KSYMBOL).  @return 0 or a
 * negative pd_err.
 */
int pda_sample_leaf(struct pda_session *s, const struct pd_sample *sample,
		    struct pda_stack *st, struct pda_dso **dso);

/* ---- stacks from LBR call stacks (pda_lbr.c) ------------------------ */

/* A walk over the addresses of one sample's LBR call stack. */
struct pda_lbr_walk {
	const struct pd_sample *sample;
	uint64_t user_marker; /* callchain index of PERF_CONTEXT_USER */
	uint64_t pos;
	unsigned cpumode;
};

/*
 * Whether sample's stack is built from its LBR call stack, as perf 6.1
 * builds it (--call-graph lbr); then lw is set for pda_lbr_next().  On
 * false, the callchain is to be walked as usual.  lw keeps a pointer to
 * sample.
 */
bool pda_lbr_begin(const struct pd_sample *sample, struct pda_lbr_walk *lw);

/*
 * The next address of the stack, leaf first, and the space (PD_MISC_USER,
 * _KERNEL or _HYPERVISOR) it is looked up in.  @return false at the end.
 */
bool pda_lbr_next(struct pda_lbr_walk *lw, uint64_t *ip, unsigned *cpumode);

#endif /* PDA_STACK_INT_H */
