/*
 * pdc_opts.h - the one rule for options structs (STYLE R2), for every
 * constructor that takes one: the struct starts with size_t sz, set by
 * its *_OPTS() macro to the caller's sizeof.
 *
 *   - an older caller (sz smaller than ours) is read only as far as its
 *     sz covers: the fields it lacks are zero, their defaults;
 *   - a newer caller (sz larger) is accepted when every byte past ours
 *     is zero (options it left unset), and rejected otherwise: it asks
 *     for something this version cannot do;
 *   - an sz that cannot hold sz itself, or a huge one (past
 *     PDC_OPTS_MAX_SIZE: garbage, not a newer version), is rejected.
 *
 *	struct pda_fold_opts o;
 *	if (pdc_opts_copy(&o, sizeof(o), opts) < 0)
 *		return PD_ERR_API;
 *	(read o, never opts, from here on)
 */
#ifndef PDC_OPTS_H
#define PDC_OPTS_H

#include <stddef.h>

/* Returned by pdc_opts_copy(); the same value as PD_ERR_API (pd.h). */
#define PDC_ERR_API (-6)

#define PDC_OPTS_MAX_SIZE ((size_t)4096)

/*
 * Copy the caller's options (opts, not NULL) into ours (ours_size
 * bytes) by the rule above, zero-filling what an older caller lacks.
 * @return 0, or PDC_ERR_API (ours then all zero).
 */
int pdc_opts_copy(void *ours, size_t ours_size, const void *opts);

/*
 * Whether the caller's options (of struct type, with its sz) cover
 * field: for what must be read even when pdc_opts_copy() rejects them,
 * such as the buffer for the rejection's message.
 */
#define PDC_OPTS_HAS(opts, type, field)                                        \
	((opts)->sz >= offsetof(type, field) + sizeof(((const type *)0)->field))

#endif /* PDC_OPTS_H */
