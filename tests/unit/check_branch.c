/*
 * check_branch.c - pda_branch_add_sampled() (analyze/branch/pda_branch.c),
 * the branches sampled one at a time (Arm SPE's branch samples), against
 * pda_branch_add() on the same branches as stacks: every entry of the
 * generated capture testdata/branches/loop-brbe-notype (ARM BRBE, aarch64,
 * no TYPE_SAVE) added again as a sample of its own, ip its from and addr
 * its to, gives the same rows (ends, counts, decoded types); the
 * mispredicted ones say so, the others are of unknown outcome (never
 * "predicted"); no cycles; and no adding after finish.  Each both with
 * the entries counted on the caller's thread and on a thread of their
 * own (pda_branch_opts.threaded): the same rows.
 */
#include "pda_branch.h"
#include "pdatest.h"

#include <check.h>
#include <string.h>

#define CAPTURE "../../testdata/branches/loop-brbe-notype.perf.data.zst"
#define BUILDID "../../testdata/buildid"

struct run {
	struct pd_file *f;
	struct pda_session *s;
	struct pda_branch *stacks, *sampled;
};

static void run(struct run *r, bool threaded)
{
	PDA_BRANCH_OPTS(bo, .by = PDA_BRANCH_BY_ADDR, .threaded = threaded);
	struct pd_reader *rd;
	struct pd_sample sample;
	struct pd_rec rec;
	int rc;

	memset(r, 0, sizeof(*r));
	pt_open_session(CAPTURE, BUILDID, &r->f, &r->s);
	ck_assert_int_eq(pda_branch_new(r->s, &bo, &r->stacks), 0);
	ck_assert_int_eq(pda_branch_new(r->s, &bo, &r->sampled), 0);
	ck_assert_int_eq(pd_reader_new(r->f, PD_READ_ORDERED, &rd), 0);
	while ((rc = pd_reader_next(rd, &rec)) > 0) {
		ck_assert_int_ge(pda_session_feed(r->s, &rec), 0);
		if (rec.type != PD_REC_SAMPLE)
			continue;
		ck_assert_int_eq(pd_sample_decode(r->f, &rec, &sample), 0);
		ck_assert_int_eq(pda_branch_add(r->stacks, &sample, "loop"), 0);
		for (uint64_t i = 0; i < sample.branch.nr; i++) {
			struct pd_sample one = sample;
			struct pd_branch br;

			pd_sample_branch(&sample, i, &br);
			one.ip = br.from;
			one.addr = br.to;
			ck_assert_int_eq(pda_branch_add_sampled(r->sampled, &one,
								"loop",
								br.mispred),
					 0);
		}
	}
	ck_assert_int_eq(rc, 0);
	pd_reader_free(rd);
	ck_assert_int_eq(pda_branch_finish(r->stacks, PDA_BRANCH_SORT_COUNT),
			 0);
	ck_assert_int_eq(pda_branch_finish(r->sampled, PDA_BRANCH_SORT_COUNT),
			 0);
}

static void run_free(struct run *r)
{
	pda_branch_free(r->stacks);
	pda_branch_free(r->sampled);
	pda_session_free(r->s);
	pd_file_close(r->f);
}

START_TEST(test_same_rows)
{
	struct run r;
	const struct pda_branch_totals *ts, *tb;
	size_t nr;
	uint64_t typed = 0;

	run(&r, _i != 0);
	ts = pda_branch_totals(r.stacks);
	tb = pda_branch_totals(r.sampled);
	ck_assert_uint_gt(ts->nr_entries, 1000);
	ck_assert_uint_eq(tb->nr_entries, ts->nr_entries);
	/* a stack of one each */
	ck_assert_uint_eq(tb->nr_stacks, ts->nr_entries);
	ck_assert_uint_eq(tb->nr_samples, ts->nr_entries);
	ck_assert_uint_eq(tb->nr_resolved, ts->nr_resolved);
	ck_assert_uint_eq(tb->mispred, ts->mispred);
	ck_assert_uint_gt(tb->mispred, 0);
	/* only the mispredicted ones said anything */
	ck_assert_uint_eq(tb->with_pred, tb->mispred);
	ck_assert_uint_eq(tb->with_cycles, 0);
	ck_assert_uint_gt(ts->with_cycles, 0);
	nr = pda_branch_nr_rows(r.stacks);
	ck_assert_uint_eq(pda_branch_nr_rows(r.sampled), nr);
	for (size_t i = 0; i < nr; i++) {
		const struct pda_branch_row *a = pda_branch_row(r.stacks, i);
		const struct pda_branch_row *b = pda_branch_row(r.sampled, i);

		ck_assert_uint_eq(b->from.addr, a->from.addr);
		ck_assert_uint_eq(b->to.addr, a->to.addr);
		ck_assert_str_eq(b->from.sym ? b->from.sym : "",
				 a->from.sym ? a->from.sym : "");
		ck_assert_uint_eq(b->count, a->count);
		ck_assert_uint_eq(b->mispred, a->mispred);
		ck_assert_uint_eq(b->type, a->type);
		ck_assert(!b->type_saved);
		typed += b->type != 0;
	}
	/* the types come from the aarch64 code */
	ck_assert_uint_eq(typed, nr);
	run_free(&r);
}
END_TEST

START_TEST(test_misuse)
{
	struct run r;
	struct pd_sample one;

	run(&r, _i != 0);
	memset(&one, 0, sizeof(one));
	one.ip = 0x1000;
	one.addr = 0x2000;
	ck_assert_int_eq(pda_branch_add_sampled(r.sampled, &one, NULL, true),
			 PD_ERR_API);
	run_free(&r);
}
END_TEST

Suite *branch_suite(void)
{
	Suite *s = suite_create("branch");
	TCase *tc = tcase_create("branch");

	tcase_add_loop_test(tc, test_same_rows, 0, 2);
	tcase_add_loop_test(tc, test_misuse, 0, 2);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}
