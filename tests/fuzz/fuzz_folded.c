/*
 * fuzz_folded.c - libFuzzer target for the folded-text reader (STYLE T7):
 * pda_folded_split(), pda_profile_add_folded() and the flame graph's
 * readers of the same text (analyze/profile).
 *
 * The input is folded text, cut into lines at '\n' as `pdtool flame -`
 * and `pdtool diff` cut it; line i goes to column i % nr_columns of a
 * profile of 1 to 3 columns (chosen by a hash of the input).  Each line
 * is split on its own, then added to the profile, and column 0's lines
 * to a flame graph as text too.  Properties, for any input:
 *  - a split line's frames are the bytes before its count, cut at each
 *    ';' and nowhere else, in order; its count is the decimal number
 *    after the last blank; the profile adds a line exactly when the
 *    splitter takes it;
 *  - the profile's tables refer only to earlier entries, a stack is one
 *    deeper than its prefix, no two rows share a stack, and each
 *    column's total is the sum of its rows and of the counts added;
 *  - writing the rows back as folded text and reading that gives the
 *    same rows, in the same order, with the same values;
 *  - the flame graph of column 0 made from the profile is the one made
 *    from the text, and its widths add up: the root holds every sample,
 *    each node its self samples and its children.
 * Every allocation goes through failing hooks (fuzz_with_oom): a failure
 * is a clean PD_ERR_NOMEM, and nothing leaks.
 */
#include "fuzz.h"

#include "pda_flame.h"
#include "pda_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLUMNS 3

struct run {
	struct pd_alloc hooks;
	bool nomem;
	const struct failalloc *fa; /* whose failures make results differ */
	unsigned nr_columns;
	uint64_t totals[MAX_COLUMNS]; /* the counts added, by column */
};

/* Some allocation was refused (injected, or past the cap on one): the
 * results may differ, so compare nothing. */
static bool failing(const struct run *r)
{
	return r->fa->fail_at || r->fa->nr_failed;
}

static void note_rc(struct run *r, int rc)
{
	CHECK(rc <= 1 && rc >= PD_ERR_NOTFOUND);
	if (rc == PD_ERR_NOMEM)
		r->nomem = true;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * The split of line, checked against the text: @return what
 * pda_folded_split() returned.
 */
static int check_split(struct run *r, struct pda_folded_split *sp,
		       const char *line, size_t len)
{
	int rc = pda_folded_split(&r->hooks, sp, line, len);
	size_t end = len, digits;
	uint64_t count = 0;

	note_rc(r, rc);
	CHECK(rc == 0 || rc == 1 || rc == PD_ERR_NOMEM);
	if (rc != 0)
		return rc;
	/* the count: digits after the last blank, before trailing space */
	while (end && (line[end - 1] == '\n' || line[end - 1] == '\r' ||
		       is_blank(line[end - 1])))
		end--;
	digits = 0;
	while (digits < end && line[end - 1 - digits] >= '0' &&
	       line[end - 1 - digits] <= '9')
		digits++;
	CHECK(digits > 0 && digits < end && is_blank(line[end - 1 - digits]));
	for (size_t i = end - digits; i < end; i++)
		count = count * 10 + (uint64_t)(line[i] - '0');
	CHECK(sp->count == count);
	end -= digits + 1;
	while (end && is_blank(line[end - 1]))
		end--;
	/* the frames tile line[0, end) with one ';' between each two */
	CHECK((sp->nr == 0) == (end == 0));
	for (size_t i = 0; i < sp->nr; i++) {
		const size_t at = (size_t)(sp->frames[i] - line);

		CHECK(sp->frames[i] >= line && at <= end);
		CHECK(sp->lens[i] <= end - at);
		CHECK(!memchr(sp->frames[i], ';', sp->lens[i]));
		if (i == 0)
			CHECK(at == 0);
		if (i + 1 < sp->nr)
			CHECK(at + sp->lens[i] < end &&
			      line[at + sp->lens[i]] == ';' &&
			      sp->frames[i + 1] ==
				      sp->frames[i] + sp->lens[i] + 1);
		else
			CHECK(at + sp->lens[i] == end);
	}
	return 0;
}

/* The profile is whole; its totals are the counts added. */
static void check_profile(struct run *r, const struct pda_profile *p)
{
	const uint64_t *totals = pda_profile_totals(p);

	fuzz_check_profile(p);
	/* folded text names frames, nothing more */
	for (uint32_t id = 1; id < pda_profile_nr_locs(p); id++)
		CHECK(pda_profile_loc(p, id)->mapping == 0 &&
		      pda_profile_loc(p, id)->address == 0);
	for (unsigned c = 0; c < r->nr_columns && !failing(r); c++)
		CHECK(totals[c] == r->totals[c]);
}

/* A growable byte buffer of the harness's own (plain malloc). */
struct text {
	char *p;
	size_t len, cap;
};

static void put(struct text *t, const void *p, size_t n)
{
	if (!n)
		return;
	if (t->len + n > t->cap) {
		t->cap = (t->len + n) * 2 + 64;
		t->p = realloc(t->p, t->cap);
		if (!t->p)
			abort();
	}
	memcpy(t->p + t->len, p, n);
	t->len += n;
}

/* Row i's column col as a folded line: its labels, root first. */
static void row_line(const struct pda_profile *p, size_t i, unsigned col,
		     uint32_t *locs, struct text *t)
{
	const struct pda_profile_sample *row = pda_profile_sample(p, i);
	const size_t nr = pda_profile_stack_locs(p, row->stack, locs);
	char num[32];
	int n;

	t->len = 0;
	for (size_t k = 0; k < nr; k++) {
		size_t len;
		const char *s = pda_profile_str(
			p, pda_profile_loc(p, locs[k])->label, &len);

		if (k)
			put(t, ";", 1);
		put(t, s, len);
	}
	n = snprintf(num, sizeof(num), " %llu\n",
		     (unsigned long long)row->values[col]);
	put(t, num, (size_t)n);
}

/* The rows written as text and read back are the rows. */
static void check_round_trip(struct run *r, const struct pda_profile *p)
{
	PDA_PROFILE_OPTS(o, .nr_columns = r->nr_columns);
	struct pda_profile *back;
	struct text t = {NULL, 0, 0};
	uint32_t *locs, *locs2;
	size_t max_depth = 1;

	for (uint32_t id = 1; id < pda_profile_nr_stacks(p); id++)
		if (pda_profile_stack(p, id)->depth > max_depth)
			max_depth = pda_profile_stack(p, id)->depth;
	locs = malloc(max_depth * sizeof(*locs));
	locs2 = malloc(max_depth * sizeof(*locs2));
	CHECK(pda_profile_new(&o, &back) == 0);
	if (!locs || !locs2)
		abort();
	for (size_t i = 0; i < pda_profile_nr_samples(p); i++)
		for (unsigned c = 0; c < r->nr_columns; c++) {
			if (!pda_profile_sample(p, i)->values[c])
				continue;
			row_line(p, i, c, locs, &t);
			CHECK(pda_profile_add_folded(back, t.p, t.len, c) == 0);
		}
	CHECK(pda_profile_nr_samples(back) == pda_profile_nr_samples(p));
	for (size_t i = 0; i < pda_profile_nr_samples(p); i++) {
		const struct pda_profile_sample *a = pda_profile_sample(p, i);
		const struct pda_profile_sample *b =
			pda_profile_sample(back, i);
		const size_t nr = pda_profile_stack_locs(p, a->stack, locs);

		CHECK(pda_profile_stack_locs(back, b->stack, locs2) == nr);
		CHECK(memcmp(a->values, b->values,
			     r->nr_columns * sizeof(*a->values)) == 0);
		for (size_t k = 0; k < nr; k++) {
			size_t la, lb;
			const char *sa = pda_profile_str(
				p, pda_profile_loc(p, locs[k])->label, &la);
			const char *sb = pda_profile_str(
				back, pda_profile_loc(back, locs2[k])->label,
				&lb);

			CHECK(la == lb && memcmp(sa, sb, la) == 0);
		}
	}
	pda_profile_free(back);
	free(locs);
	free(locs2);
	free(t.p);
}

/* The tree's widths add up; @return its node count. */
static size_t check_flame(const struct pda_flame *fl, uint64_t total)
{
	size_t nr;
	const struct pda_flame_node *n = pda_flame_nodes(fl, &nr);
	uint64_t *kids;

	CHECK(nr >= 1 && n[0].depth == 0 && n[0].total == total);
	kids = calloc(nr, sizeof(*kids));
	if (!kids)
		abort();
	for (size_t i = 1; i < nr; i++) {
		CHECK(n[i].parent < i &&
		      n[i].depth == n[n[i].parent].depth + 1);
		CHECK(n[i].total >= n[i].self && n[i].total > 0);
		kids[n[i].parent] += n[i].total;
		fuzz_touch_str(n[i].name);
	}
	for (size_t i = 0; i < nr; i++)
		CHECK(n[i].total == n[i].self + kids[i]);
	free(kids);
	return nr;
}

/* Column 0 drawn from the profile is column 0 drawn from the text. */
static void check_flames(struct run *r, const struct pda_profile *p,
			 struct pda_flame *from_text)
{
	PDA_FLAME_OPTS(o, .alloc = &r->hooks);
	struct pda_flame *fl;
	const struct pda_flame_node *a, *b;
	size_t nr_a, nr_b;
	int rc = pda_flame_new(&o, &fl);

	note_rc(r, rc);
	if (rc < 0)
		return;
	rc = pda_flame_add_profile(fl, p, 0);
	note_rc(r, rc);
	if (rc == 0)
		rc = pda_flame_finish(fl);
	note_rc(r, rc);
	if (rc == 0 && !failing(r)) {
		check_flame(fl, r->totals[0]);
		check_flame(from_text, r->totals[0]);
		a = pda_flame_nodes(fl, &nr_a);
		b = pda_flame_nodes(from_text, &nr_b);
		CHECK(nr_a == nr_b);
		for (size_t i = 0; i < nr_a; i++)
			CHECK(strcmp(a[i].name, b[i].name) == 0 &&
			      a[i].total == b[i].total &&
			      a[i].self == b[i].self &&
			      a[i].depth == b[i].depth);
	}
	pda_flame_free(fl);
}

static bool pass(const uint8_t *data, size_t size, struct failalloc *fa)
{
	const char *text = (const char *)data;
	PDA_FLAME_OPTS(fo);
	struct run r;
	struct pda_profile *p = NULL;
	struct pda_flame *fl = NULL;
	struct pda_folded_split sp = PDA_FOLDED_SPLIT_INIT;
	size_t at = 0;
	unsigned line_no = 0;
	int rc;

	memset(&r, 0, sizeof(r));
	r.hooks = failalloc_hooks(fa);
	r.fa = fa;
	r.nr_columns = 1 + (unsigned)(fuzz_hash(data, size) % MAX_COLUMNS);
	{
		PDA_PROFILE_OPTS(po, .nr_columns = r.nr_columns,
				 .alloc = &r.hooks);

		rc = pda_profile_new(&po, &p);
	}
	note_rc(&r, rc);
	fo.alloc = &r.hooks;
	if (rc == 0) {
		rc = pda_flame_new(&fo, &fl);
		note_rc(&r, rc);
	}
	while (rc == 0 && at < size) {
		const char *nl = memchr(text + at, '\n', size - at);
		const size_t len =
			nl ? (size_t)(nl - text) + 1 - at : size - at;
		const char *line = text + at;
		const unsigned col = line_no++ % r.nr_columns;
		int split_rc, add_rc;

		at += len;
		split_rc = check_split(&r, &sp, line, len);
		add_rc = pda_profile_add_folded(p, line, len, col);
		note_rc(&r, add_rc);
		if (add_rc < 0)
			CHECK(pda_profile_errmsg(p)[0] != '\0');
		if (split_rc == 1)
			CHECK(add_rc == 1);
		if (split_rc == 0 && !failing(&r)) {
			CHECK(add_rc == 0 || add_rc == PD_ERR_FORMAT ||
			      (add_rc == PD_ERR_NOMEM && sp.too_many));
			if (add_rc == 0)
				r.totals[col] += sp.count;
		}
		if (col == 0) {
			int flame_rc = pda_flame_add_folded(fl, line, len);

			note_rc(&r, flame_rc);
			if (!failing(&r))
				CHECK(flame_rc == add_rc);
		}
	}
	pda_folded_split_release(&r.hooks, &sp);
	if (fl) {
		rc = pda_flame_finish(fl);
		note_rc(&r, rc);
		if (rc == 0) {
			check_profile(&r, p);
			if (!failing(&r)) {
				check_round_trip(&r, p);
				check_flames(&r, p, fl);
			}
		}
	}
	pda_flame_free(fl);
	pda_profile_free(p);
	return r.nomem;
}

int fuzz_folded(const uint8_t *data, size_t size)
{
	fuzz_with_oom(data, size, pass);
	return 0;
}
