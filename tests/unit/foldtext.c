/*
 * foldtext.c - foldtext.h.
 */
#include "pd_config.h" /* open_memstream */
#include "foldtext.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

char *ft_lines(struct pda_fold *fd)
{
	char *text = NULL;
	size_t size;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	for (size_t i = 0; i < pda_fold_nr_lines(fd); i++) {
		const struct pda_fold_line *l = pda_fold_line(fd, i);

		fprintf(out, "%s %llu %llu %llu\n", l->stack,
			(unsigned long long)l->weight,
			(unsigned long long)l->samples,
			(unsigned long long)l->period);
	}
	fclose(out);
	return text;
}

static void add_list(FILE *out, const char *what,
		     const struct pda_missing_dso *m, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		fprintf(out, "%s %s %llu %llu\n", what, m[i].dso,
			(unsigned long long)m[i].nr_samples,
			(unsigned long long)m[i].nr_unresolved);
}

char *ft_dsos(const struct pda_stats *st)
{
	char *text = NULL;
	size_t size;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	add_list(out, "unresolved", st->unresolved_dsos,
		 st->nr_unresolved_dsos);
	add_list(out, "missing", st->missing, st->nr_missing);
	fclose(out);
	return text;
}
