/*
 * pde_folded.c - folded stacks as text: "comm;outer;...;leaf weight", one
 * line per stack, the format of stackcollapse-perf.pl and of `perf script
 * report stackcollapse`, which flamegraph.pl, speedscope and inferno read.
 * The one folded-text writer: it writes a structured profile
 * (pda_profile.h); the one reader is pda_profile_add_folded().
 */
#include "pd_config.h"
#include "pda_profile.h"
#include "pde.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int pde_folded_write(FILE *out, const struct pda_profile *p, unsigned col)
{
	const size_t nr = pda_profile_nr_samples(p);
	uint32_t *locs = NULL;
	size_t alloc = 0;
	int rc = 0;

	if (col >= pda_profile_nr_columns(p))
		return -1;
	for (size_t i = 0; i < nr && rc == 0; i++) {
		const struct pda_profile_sample *s = pda_profile_sample(p, i);
		const struct pda_profile_stack *st =
			pda_profile_stack(p, s->stack);
		const size_t depth = st ? st->depth : 0;
		char num[24], *n = num + sizeof(num);
		uint64_t w = s->values[col];

		if (depth > alloc) {
			uint32_t *nl = realloc(locs, depth * 2 * sizeof(*nl));

			if (!nl) {
				errno = ENOMEM;
				rc = -1;
				break;
			}
			locs = nl;
			alloc = depth * 2;
		}
		pda_profile_stack_locs(p, s->stack, locs);
		for (size_t j = 0; j < depth; j++) {
			size_t len;
			const char *label = pda_profile_str(
				p, pda_profile_loc(p, locs[j])->label, &len);

			if ((j > 0 && putc(';', out) == EOF) ||
			    fwrite(label, 1, len, out) != len)
				rc = -1;
		}
		/* the count by hand: this loop writes every line of a
		 * profile, and fprintf's format parsing would dominate */
		*--n = '\n';
		do {
			*--n = (char)('0' + w % 10);
			w /= 10;
		} while (w);
		*--n = ' ';
		if (fwrite(n, 1, (size_t)(num + sizeof(num) - n), out) !=
		    (size_t)(num + sizeof(num) - n))
			rc = -1;
	}
	free(locs);
	return rc < 0 || ferror(out) ? -1 : 0;
}
