/*
 * pda_profile_int.h - what the folded-text reader (pda_folded.c) needs of
 * a profile beyond pda_profile.h: its allocator, its error detail and the
 * buffers it keeps from line to line, which live in the profile so that
 * pda_profile_free() releases them.  Internal to the profile module.
 */
#ifndef PDA_PROFILE_INT_H
#define PDA_PROFILE_INT_H

#include "pda_profile.h"

/* How many of st's frames perf keeps: max_stack callchain entries from
 * the leaf (inlined frames not counted), each with the inlined frames
 * it expands to: pda_collect's and pda_report's --max-stack. */
size_t pda_kept_frames(const struct pda_stack *st, unsigned max_stack);

/* The hooks p allocates with.  Valid until pda_profile_free(). */
const struct pd_alloc *pda_profile_mem(const struct pda_profile *p);
/* Set pda_profile_errmsg()'s detail to msg (cut to fit).  @return err. */
int pda_profile_set_err(struct pda_profile *p, int err, const char *msg);
/* The folded reader's splitter, kept between lines.  Valid until
 * pda_profile_free(). */
struct pda_folded_split *pda_profile_split(struct pda_profile *p);
/* pda_profile_nr_columns() values the folded reader may scribble on.
 * Valid until pda_profile_free(). */
uint64_t *pda_profile_scratch(struct pda_profile *p);
/* The opts' max_decimals. */
unsigned pda_profile_max_decimals(const struct pda_profile *p);
/* Count in units of 10^-decimals from now on, when that is finer than
 * before: the values so far are scaled.  @return 0 or PD_ERR_FORMAT
 * (a total past 64 bits; nothing changed for the last step). */
int pda_profile_set_decimals(struct pda_profile *p, unsigned decimals);

#endif /* PDA_PROFILE_INT_H */
