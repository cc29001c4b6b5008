/*
 * check_branch_blocks.c - pda_brep_blocks() (analyze/branch/
 * pda_branch_rep.c), perf's block view (report --total-cycles), on the
 * generated Intel LBR capture testdata/branches/demo-intel (every entry
 * with cycles, both ends in the demo binary's functions): Sampled
 * Cycles%'s whole is every entry's cycles (counted here from the
 * samples), the blocks hold most of them (an entry whose block began in
 * another function ends none); blocks are one per
 * (function, start, end), each within its function, starting before it
 * ends unless no entry told its start (the function's start then);
 * sorted by cycles; the averages' whole is at least their sum; the
 * misuses refused.  tests/cli/report/total-cycles.test holds the view
 * to perf 7.2's.
 */
#include "pda_branch_rep.h"
#include "pdatest.h"

#include <check.h>
#include <string.h>

#define CAPTURE "../../testdata/branches/demo-intel.perf.data.zst"
#define BUILDID "../../testdata/buildid"

struct run {
	struct pd_file *f;
	struct pda_session *s;
	struct pda_brep *r;
	uint64_t cycles, entries;
};

static void run(struct run *u, bool total)
{
	PDA_BREP_OPTS(ro, .total_cycles = total);
	struct pd_reader *rd;
	struct pd_sample sample;
	struct pd_rec rec;
	int rc;

	memset(u, 0, sizeof(*u));
	pt_open_session(CAPTURE, BUILDID, &u->f, &u->s);
	ck_assert_int_eq(pda_brep_new(u->s, &ro, &u->r), 0);
	ck_assert_int_eq(pd_reader_new(u->f, PD_READ_ORDERED, &rd), 0);
	while ((rc = pd_reader_next(rd, &rec)) > 0) {
		ck_assert_int_ge(pda_session_feed(u->s, &rec), 0);
		if (rec.type != PD_REC_SAMPLE)
			continue;
		ck_assert_int_eq(pd_sample_decode(u->f, &rec, &sample), 0);
		ck_assert_int_eq(pda_brep_add(u->r, &sample, "demo"), 0);
		for (uint64_t i = 0; i < sample.branch.nr; i++) {
			struct pd_branch br;

			pd_sample_branch(&sample, i, &br);
			u->cycles += br.cycles;
			u->entries++;
		}
	}
	ck_assert_int_eq(rc, 0);
	pd_reader_free(rd);
}

static void run_free(struct run *u)
{
	pda_brep_free(u->r);
	pda_session_free(u->s);
	pd_file_close(u->f);
}

START_TEST(test_blocks)
{
	struct pda_brep_blocks bl;
	struct run u;
	uint64_t cycles = 0, nr = 0, avg = 0;

	run(&u, true);
	/* before the rows are sorted */
	ck_assert_int_eq(pda_brep_blocks(u.r, 0, &bl), PD_ERR_API);
	ck_assert_int_eq(pda_brep_finish(u.r), 0);
	ck_assert_uint_eq(pda_brep_nr_tables(u.r), 1);
	ck_assert_int_eq(pda_brep_blocks(u.r, 1, &bl), PD_ERR_API);
	ck_assert_int_eq(pda_brep_blocks(u.r, 0, &bl), 0);
	ck_assert_uint_gt(u.entries, 1000);
	ck_assert_uint_eq(bl.total_cycles, u.cycles);
	ck_assert_uint_gt(bl.nr, 5);
	for (size_t i = 0; i < bl.nr; i++) {
		const struct pda_brep_block *b = &bl.blocks[i];

		cycles += b->cycles;
		nr += b->nr;
		avg += b->cycles / b->nr;
		ck_assert_uint_gt(b->nr, 0);
		ck_assert(b->start < b->end || b->start == 0);
		ck_assert_str_eq(b->dso, "demo");
		ck_assert_ptr_nonnull(b->start_line);
		ck_assert_ptr_nonnull(b->end_line);
		ck_assert_ptr_null(b->cntr);
		if (i)
			ck_assert_uint_ge(bl.blocks[i - 1].cycles * 1000 / 999,
					  b->cycles);
		for (size_t j = 0; j < i; j++)
			ck_assert(strcmp(bl.blocks[j].sym, b->sym) ||
				  bl.blocks[j].start != b->start ||
				  bl.blocks[j].end != b->end);
	}
	/* a branch whose block began in another function ends none (perf
	 * drops it: its start is out of the function's range) */
	ck_assert_uint_le(cycles, u.cycles);
	ck_assert_uint_gt(cycles, u.cycles / 2);
	ck_assert_uint_le(nr, u.entries);
	ck_assert_uint_gt(nr, u.entries / 2);
	ck_assert_uint_ge(bl.block_cycles, avg);
	pda_brep_blocks_release(u.r, &bl);
	ck_assert_uint_eq(bl.nr, 0);
	run_free(&u);
}
END_TEST

START_TEST(test_not_asked)
{
	struct pda_brep_blocks bl;
	struct run u;

	run(&u, false);
	ck_assert_int_eq(pda_brep_finish(u.r), 0);
	ck_assert_int_eq(pda_brep_blocks(u.r, 0, &bl), PD_ERR_API);
	run_free(&u);
}
END_TEST

Suite *branch_blocks_suite(void)
{
	Suite *s = suite_create("branch_blocks");
	TCase *tc = tcase_create("branch_blocks");

	tcase_add_test(tc, test_blocks);
	tcase_add_test(tc, test_not_asked);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}
