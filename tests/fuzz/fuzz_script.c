/*
 * fuzz_script.c - libFuzzer target for the `perf script` text parser
 * (pda_script_*, analyze/profile/pda_script.c) and the folding it feeds
 * (pda_fold_add_names, pda_fold_finish, pda_fold_profile), as
 * `pdtool fold --from-script` runs them (STYLE T7).
 *
 * The input is the text; its hash picks the options (root naming,
 * annotations, event, period weights, a pid and a time filter).  The
 * text is fed once whole and once in pieces of hash-chosen sizes, as a
 * pipe delivers it.  Properties, for any input:
 *  - the pieces give what the whole gives: the same folded lines,
 *    weights and statistics;
 *  - the statistics are consistent: no more samples or unrecognized
 *    lines than lines, the first unrecognized line among them;
 *  - the folded lines are sorted bytewise and distinct, each the join of
 *    its frames with ';', no frame but the root (a comm) holding ';';
 *    their weights sum to the totals' weight;
 *  - the profile made of them (pda_fold_profile) is whole and has one
 *    row per line, in order, with the line's weight.
 * Every allocation goes through failing hooks (fuzz_with_oom): a failure
 * is a clean PD_ERR_NOMEM, and nothing leaks.
 */
#include "fuzz.h"

#include "pda_fold.h"

#include <string.h>

/* What one reading gave. */
struct reading {
	struct pda_fold *fd;
	struct pda_script_stats st;
	int rc;
};

static void read_text(const uint8_t *data, size_t size, uint64_t h,
		      const struct pd_alloc *hooks, bool pieces,
		      struct reading *out, bool *nomem)
{
	static const uint32_t pids[] = {1, 42, 1234};
	PDA_FOLD_OPTS(fo, .alloc = hooks);
	PDA_SCRIPT_OPTS(so, .alloc = hooks);
	struct pda_script *ps = NULL;
	size_t at = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	so.flags = (unsigned)(h & 0xff);
	/* a bit no other option reads: --srcline's source lines */
	if (h >> 20 & 1)
		so.flags |= PDA_SCRIPT_SRCLINE;
	if (h >> 8 & 1)
		so.event = "cycles";
	if (h >> 9 & 1) {
		so.pids = pids;
		so.nr_pids = 1 + (h >> 10) % 3;
	}
	so.has_time_start = h >> 12 & 1;
	so.time_start = 1000000000ull * (h >> 13 & 7);
	so.has_time_end = h >> 16 & 1;
	so.time_end = 1000000000ull * (h >> 17 & 1023);
	rc = pda_fold_new(&fo, &out->fd);
	if (rc == 0)
		rc = pda_script_new(&so, out->fd, &ps);
	while (rc == 0 && at < size) {
		size_t n = pieces ? 1 + (size_t)(h >> (at % 40) & 0x7f) : size;

		if (n > size - at)
			n = size - at;
		rc = pda_script_feed(ps, (const char *)data + at, n);
		at += n;
	}
	if (rc == 0)
		rc = pda_script_finish(ps);
	if (ps)
		out->st = *pda_script_stats(ps);
	if (rc == 0)
		rc = pda_fold_finish(out->fd);
	CHECK(rc == 0 || rc == PD_ERR_NOMEM);
	*nomem |= rc == PD_ERR_NOMEM;
	out->rc = rc;
	/* the event string lives with ps */
	out->st.event = NULL;
	pda_script_free(ps);
}

/*
 * The lines are sorted, distinct and their frames joined.  @return true
 * when a line's text could not be made (out of memory: only when an
 * allocation failed).
 */
static bool check_lines(const struct pda_fold *fd, bool no_comm,
			const struct failalloc *fa)
{
	const struct pda_fold_totals *t = pda_fold_totals(fd);
	const struct pda_fold_line *prev = NULL;
	uint64_t weight = 0;

	CHECK(t->nr_stacks == pda_fold_nr_lines(fd));
	for (size_t i = 0; i < pda_fold_nr_lines(fd); i++) {
		const struct pda_fold_line *l = pda_fold_line(fd, i);
		size_t at = 0;

		if (!l) {
			CHECK(fa->nr_failed);
			return true;
		}
		CHECK(l->stack[l->len] == '\0');
		for (size_t k = 0; k < l->nr_frames; k++) {
			const struct pda_fold_frame *fr = l->frames[k];

			CHECK(fr->len == strlen(fr->name));
			if (k || no_comm)
				CHECK(!memchr(fr->name, ';', fr->len));
			if (k)
				CHECK(at < l->len && l->stack[at++] == ';');
			CHECK(fr->len <= l->len - at &&
			      memcmp(l->stack + at, fr->name, fr->len) == 0);
			at += fr->len;
		}
		CHECK(at == l->len);
		if (prev) {
			const size_t n =
				prev->len < l->len ? prev->len : l->len;
			const int c = memcmp(prev->stack, l->stack, n);

			CHECK(c < 0 || (c == 0 && prev->len < l->len));
		}
		CHECK(weight + l->weight >= weight);
		weight += l->weight;
		prev = l;
	}
	CHECK(weight == t->weight);
	CHECK(pda_fold_line(fd, pda_fold_nr_lines(fd)) == NULL);
	return false;
}

/* The profile of the lines: one row per line, in order. */
static bool check_profile(struct pda_fold *fd)
{
	struct pda_profile *p;
	int rc = pda_fold_profile(fd, &p);

	CHECK(rc == 0 || rc == PD_ERR_NOMEM);
	if (rc < 0)
		return true;
	fuzz_check_profile(p);
	CHECK(pda_profile_nr_samples(p) == pda_fold_nr_lines(fd));
	for (size_t i = 0; i < pda_profile_nr_samples(p); i++)
		CHECK(pda_profile_sample(p, i)->values[PDA_FOLD_COL_WEIGHT] ==
		      pda_fold_line(fd, i)->weight);
	pda_profile_free(p);
	return false;
}

static bool same_stats(const struct pda_script_stats *a,
		       const struct pda_script_stats *b)
{
	return a->nr_lines == b->nr_lines && a->nr_samples == b->nr_samples &&
	       a->nr_event_skipped == b->nr_event_skipped &&
	       a->nr_filtered == b->nr_filtered &&
	       a->nr_unrecognized == b->nr_unrecognized &&
	       a->first_unrecognized == b->first_unrecognized &&
	       a->nr_events == b->nr_events;
}

static bool pass(const uint8_t *data, size_t size, struct failalloc *fa)
{
	const struct pd_alloc hooks = failalloc_hooks(fa);
	const uint64_t h = fuzz_hash(data, size);
	const bool no_comm = (h & PDA_SCRIPT_NO_COMM) != 0;
	struct reading whole, cut;
	const struct pda_script_stats *st = &whole.st;
	bool nomem = false;

	read_text(data, size, h, &hooks, false, &whole, &nomem);
	read_text(data, size, h, &hooks, true, &cut, &nomem);
	CHECK(st->nr_samples <= st->nr_lines &&
	      st->nr_unrecognized <= st->nr_lines &&
	      st->first_unrecognized <= st->nr_lines &&
	      !st->first_unrecognized == !st->nr_unrecognized &&
	      st->nr_event_skipped + st->nr_filtered <= st->nr_samples);
	if (whole.rc == 0 && check_lines(whole.fd, no_comm, fa))
		nomem = true;
	else if (whole.rc == 0)
		nomem |= check_profile(whole.fd);
	if (cut.rc == 0 && check_lines(cut.fd, no_comm, fa))
		nomem = true;
	else if (whole.rc == 0 && cut.rc == 0 && !fa->nr_failed) {
		CHECK(same_stats(&whole.st, &cut.st));
		CHECK(pda_fold_nr_lines(whole.fd) == pda_fold_nr_lines(cut.fd));
		for (size_t i = 0; i < pda_fold_nr_lines(whole.fd); i++) {
			const struct pda_fold_line *a =
				pda_fold_line(whole.fd, i);
			const struct pda_fold_line *b =
				pda_fold_line(cut.fd, i);

			CHECK(a->len == b->len &&
			      memcmp(a->stack, b->stack, a->len) == 0 &&
			      a->weight == b->weight &&
			      a->samples == b->samples);
		}
	}
	pda_fold_free(whole.fd);
	pda_fold_free(cut.fd);
	return nomem;
}

int fuzz_script(const uint8_t *data, size_t size)
{
	fuzz_with_oom(data, size, pass);
	return 0;
}
