/*
 * pda_folded.c - the one folded-text reader (pda_profile.h's folded
 * text): pda_folded_split() cuts a line into its frames and count, for
 * pda_profile_add_folded() and for the flame and diff readers, and
 * pda_profile_add_folded() adds the line to a profile, through
 * pda_profile_int.h.
 */
#include "pda_base_int.h"
#include "pda_profile_int.h"

#include <string.h>

/* Space or tab: what separates the count from the stack. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int pda_folded_split(const struct pd_alloc *alloc,
		     struct pda_folded_split *sp, const char *line, size_t len)
{
	size_t end = len, count_start, start = 0, nr = 0, point = SIZE_MAX;
	unsigned decimals = 0;
	uint64_t count = 0;

	sp->nr = 0;
	sp->too_many = false;
	sp->decimals = 0;
	while (end > 0 && (line[end - 1] == '\n' || line[end - 1] == '\r' ||
			   is_blank(line[end - 1])))
		end--;
	count_start = end;
	while (count_start > 0 && is_digit(line[count_start - 1]))
		count_start--;
	/* flamegraph.pl's /\d+(?:\.\d*)?$/: decimals after a whole number */
	if (sp->max_decimals && count_start > 1 &&
	    line[count_start - 1] == '.' && is_digit(line[count_start - 2])) {
		point = count_start - 1;
		for (count_start = point; count_start > 0 &&
					  is_digit(line[count_start - 1]);)
			count_start--;
	}
	/* a number, and a blank between it and the stack */
	if (count_start == end || count_start == 0 ||
	    !is_blank(line[count_start - 1]))
		return 1;
	for (size_t i = count_start; i < end; i++) {
		unsigned digit;

		if (i == point)
			continue;
		/* digits past max_decimals are dropped */
		if (i > point && decimals == sp->max_decimals)
			break;
		digit = (unsigned)(line[i] - '0');
		if (count > (UINT64_MAX - digit) / 10)
			return 1;
		count = count * 10 + digit;
		decimals += i > point && point != SIZE_MAX;
	}
	sp->count = count;
	sp->decimals = decimals;
	end = count_start - 1;
	while (end > 0 && is_blank(line[end - 1]))
		end--;
	/* split at ';'; an empty stack has no frames.  nr is a local: a
	 * store to lens[] could alias sp->nr */
	for (size_t i = 0; end > 0 && i <= end; i++) {
		const char *semi;

		if (i < end) {
			semi = memchr(line + i, ';', end - i);
			i = semi ? (size_t)(semi - line) : end;
		}
		if (nr >= PDA_PROFILE_MAX_DEPTH) {
			sp->too_many = true;
			return PD_ERR_NOMEM;
		}
		if (nr == sp->alloc) {
			size_t a = sp->alloc;

			/* the two arrays share alloc: both grow alike */
			if (PDC_GROW(alloc, sp->frames, a, nr + 1,
					 PDA_PROFILE_MAX_DEPTH) < 0)
				return PD_ERR_NOMEM;
			a = sp->alloc;
			if (PDC_GROW(alloc, sp->lens, a, nr + 1,
					 PDA_PROFILE_MAX_DEPTH) < 0)
				return PD_ERR_NOMEM;
			sp->alloc = a;
		}
		sp->frames[nr] = line + start;
		sp->lens[nr++] = i - start;
		sp->nr = nr;
		start = i + 1;
	}
	return 0;
}

void pda_folded_split_release(const struct pd_alloc *alloc,
			      struct pda_folded_split *sp)
{
	pdc_free(alloc, sp->frames);
	pdc_free(alloc, sp->lens);
	*sp = (struct pda_folded_split)PDA_FOLDED_SPLIT_INIT;
}

int pda_profile_add_folded(struct pda_profile *p, const char *line,
			   size_t len, unsigned col)
{
	struct pda_folded_split *sp = pda_profile_split(p);
	const unsigned nr_columns = pda_profile_nr_columns(p);
	uint64_t *scratch;
	uint32_t stack = 0;
	int rc;

	if (col >= nr_columns)
		return pda_profile_set_err(p, PD_ERR_API, "no such column");
	sp->max_decimals = pda_profile_max_decimals(p);
	rc = pda_folded_split(pda_profile_mem(p), sp, line, len);
	if (rc < 0)
		return pda_profile_set_err(
			p, rc,
			sp->too_many ? "a stack has too many frames"
				     : "out of memory");
	if (rc > 0)
		return rc;
	for (size_t i = 0; i < sp->nr; i++) {
		uint32_t loc;

		rc = pda_profile_name_loc(p, sp->frames[i], sp->lens[i], &loc);
		if (rc == 0)
			rc = pda_profile_add_stack(p, stack, loc, &stack);
		if (rc < 0)
			return pda_profile_set_err(p, rc, "out of memory");
	}
	/* nothing counted: no row, so the rows keep the order in which
	 * stacks were first counted */
	if (sp->count == 0)
		return 0;
	/* one unit for every line: the finer of this line's and the
	 * profile's */
	rc = pda_profile_set_decimals(p, sp->decimals);
	if (rc < 0)
		return rc;
	scratch = pda_profile_scratch(p);
	memset(scratch, 0, nr_columns * sizeof(*scratch));
	scratch[col] = sp->count;
	for (unsigned d = sp->decimals; d < pda_profile_decimals(p); d++) {
		if (scratch[col] > UINT64_MAX / 10)
			return pda_profile_set_err(p, PD_ERR_FORMAT,
						   "the total count does not "
						   "fit in 64 bits");
		scratch[col] *= 10;
	}
	return pda_profile_add_sample(p, stack, scratch);
}
