/*
 * pde_folded.c - folded stacks as text: "comm;outer;...;leaf weight", one
 * line per stack, the format of stackcollapse-perf.pl and of `perf script
 * report stackcollapse`, which flamegraph.pl, speedscope and inferno read.
 */
#include "pd_config.h"
#include "pda_fold.h"
#include "pde.h"

#include <stdio.h>

int pde_folded_write(FILE *out, const struct pda_fold *fd)
{
	const size_t nr = pda_fold_nr_lines(fd);

	for (size_t i = 0; i < nr; i++) {
		const struct pda_fold_line *l = pda_fold_line(fd, i);
		char num[24], *p = num + sizeof(num);
		uint64_t w = l->weight;

		/* the count by hand: this loop writes every line of a
		 * profile, and fprintf's format parsing would dominate */
		*--p = '\n';
		do {
			*--p = (char)('0' + w % 10);
			w /= 10;
		} while (w);
		*--p = ' ';
		if (fwrite(l->stack, 1, l->len, out) != l->len ||
		    fwrite(p, 1, (size_t)(num + sizeof(num) - p), out) !=
			    (size_t)(num + sizeof(num) - p))
			return PD_ERR_IO;
	}
	return ferror(out) ? PD_ERR_IO : 0;
}
