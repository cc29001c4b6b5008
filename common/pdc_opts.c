/*
 * pdc_opts.c - the options rule of pdc_opts.h (STYLE R2).
 */
#include "pdc_opts.h"

#include <string.h>

int pdc_opts_copy(void *ours, size_t ours_size, const void *opts)
{
	const unsigned char *p = opts;
	size_t sz;

	memset(ours, 0, ours_size);
	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(sz) || sz > PDC_OPTS_MAX_SIZE)
		return PDC_ERR_API;
	/* a newer caller: the options we do not know must be unset */
	for (size_t i = ours_size; i < sz; i++)
		if (p[i])
			return PDC_ERR_API;
	memcpy(ours, opts, sz < ours_size ? sz : ours_size);
	return 0;
}
