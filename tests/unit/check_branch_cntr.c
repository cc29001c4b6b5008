/*
 * check_branch_cntr.c - Intel's branch counters (analyze/branch/
 * pda_branch_cntr.c): the columns of the generated capture
 * testdata/branches/group-intel-cntr (the {cpu-clock,task-clock} group
 * counts, page-faults does not), every entry's value split into the
 * group's counts summing to its truth's (which counts a sample that reads
 * its group once per value, as perf delivers it), and perf's cell
 * rendering.
 */
#include "pda_branch.h"
#include "pdatest.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define CAPTURE "../../testdata/branches/group-intel-cntr.perf.data"
#define TRUTH "../../testdata/branches/group-intel-cntr.truth.json"

/* The truth's counters summed over its pairs, per event. */
static void truth_sums(uint64_t sums[2])
{
	FILE *f = fopen(pt_abs(TRUTH), "r");
	static char buf[1 << 20];
	const char *key = "\"counters\": [";
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	sums[0] = sums[1] = 0;
	for (char *p = strstr(buf, key); p; p = strstr(p, key)) {
		p += strlen(key);
		sums[0] += strtoull(p, &p, 10);
		p = strchr(p, ',');
		ck_assert_ptr_nonnull(p);
		sums[1] += strtoull(p + 1, &p, 10);
	}
}

START_TEST(test_split)
{
	struct pd_file *f;
	const struct pd_env *env;
	struct pda_brcntr c;
	struct pd_reader *rd;
	struct pd_rec rec;
	struct pd_sample s;
	uint64_t got[2] = {0, 0}, want[2], weight;
	int rc;

	ck_assert_int_eq(pd_file_open(pt_abs(CAPTURE), NULL, &f), 0);
	ck_assert_int_eq(pd_file_env(f, &env), 0);
	ck_assert_int_eq(pda_brcntr_init(f, &c), 0);
	ck_assert_uint_eq(c.nr, 2);
	ck_assert_uint_eq(c.width, 2);
	ck_assert_str_eq(c.names[0], "cpu-clock");
	ck_assert_str_eq(c.names[1], "task-clock");
	ck_assert_uint_eq(c.leader[0], c.evsel[0]);
	ck_assert_uint_eq(c.leader[1], c.evsel[0]);
	ck_assert_int_eq(pd_reader_new(f, PD_READ_ORDERED, &rd), 0);
	while ((rc = pd_reader_next(rd, &rec)) > 0) {
		if (rec.type != PD_REC_SAMPLE)
			continue;
		ck_assert_int_eq(pd_sample_decode(f, &rec, &s), 0);
		/* the truth counts as perf delivers: a group read's sample
		 * once per value read */
		weight = s.read.nr ? s.read.nr : 1;
		for (uint64_t i = 0; i < s.branch.counters.nr; i++) {
			uint64_t counts[PDA_BR_CNTR_MAX];
			const unsigned cols = pda_brcntr_split(
				&c, s.evsel, env,
				pd_u64s_get(&s.branch.counters, i), counts);

			/* the group's two events, each at most saturated */
			ck_assert_uint_eq(cols, 3);
			ck_assert_uint_le(counts[0], 3);
			ck_assert_uint_le(counts[1], 3);
			got[0] += weight * counts[0];
			got[1] += weight * counts[1];
		}
		/* page-faults asked for none: its stacks carry none */
		if (s.evsel->idx != c.evsel[0] && s.evsel->idx != c.evsel[1])
			ck_assert_uint_eq(s.branch.counters.nr, 0);
	}
	ck_assert_int_eq(rc, 0);
	pd_reader_free(rd);
	truth_sums(want);
	ck_assert_uint_gt(want[0] + want[1], 0);
	ck_assert_uint_eq(got[0], want[0]);
	ck_assert_uint_eq(got[1], want[1]);
	pd_file_close(f);
}
END_TEST

/* c's cell of sums {s0, s1} over n entries is want. */
static void cell_is(const struct pda_brcntr *c, uint64_t s0, uint64_t s1,
		    uint64_t n, const char *want)
{
	const uint64_t sums[PDA_BR_CNTR_MAX] = {s0, s1};
	char buf[PDA_BR_CNTR_CELL];

	ck_assert_str_eq(pda_brcntr_entry(c, sums, n, buf, sizeof(buf)), want);
}

START_TEST(test_cells)
{
	struct pda_brcntr c = {.nr = 2, .width = 2};
	uint64_t sums[2], counts[PDA_BR_CNTR_MAX] = {3, 1};
	char buf[64];

	/* none, then saturated once: B's own "+", not A's */
	cell_is(&c, 0, 3 | PDA_BR_CNTR_SATURATED, 1, "|-   |BBB+|");
	/* averages round up: 5/2 -> 3, 2/2 -> 1 */
	cell_is(&c, 5, 2, 2, "|AAA |B   |");
	/* over 3 on average: three letters and "+" */
	cell_is(&c, 8, 0, 2, "|AAA+|-   |");
	/* adding marks a full field saturated */
	sums[0] = sums[1] = 0;
	pda_brcntr_add(&c, counts, 3, sums);
	ck_assert_uint_eq(sums[0], 3 | PDA_BR_CNTR_SATURATED);
	ck_assert_uint_eq(sums[1], 1);
	/* a short buffer stays terminated */
	ck_assert_uint_lt(strlen(pda_brcntr_entry(&c, sums, 1, buf, 4)), 4);
}
END_TEST

/* perf -v's cell: numbers, each column's own "+", commas between */
START_TEST(test_exact_cells)
{
	struct pda_brcntr c = {.nr = 2, .width = 2, .exact = true};
	uint64_t sums[PDA_BR_CNTR_MAX] = {0};
	char buf[PDA_BR_CNTR_CELL];

	cell_is(&c, 0, 0, 1, "A=- ,B=- ");
	/* averages round up; a saturated sum keeps its own "+" */
	cell_is(&c, 5 | PDA_BR_CNTR_SATURATED, 2, 2, "A=3+,B=1 ");
	/* over 3 on average: the number, no "+" of its own */
	cell_is(&c, 0, 9, 2, "A=- ,B=5 ");
	/* the widest cell: "A=3+,B=3+" with 2-bit fields */
	ck_assert_int_eq(pda_brcntr_cell_width(&c), 9);
	c.width = 16; /* 65535: five digits */
	ck_assert_int_eq(pda_brcntr_cell_width(&c), 17);
	c.exact = false;
	ck_assert_int_eq(pda_brcntr_cell_width(&c), 11);
	/* eight 16-bit columns fit the buffer, terminated */
	c = (struct pda_brcntr){.nr = 8, .width = 16, .exact = true};
	for (unsigned i = 0; i < 8; i++)
		sums[i] = 65535 | PDA_BR_CNTR_SATURATED;
	ck_assert_uint_eq(strlen(pda_brcntr_entry(&c, sums, 1, buf,
						  sizeof(buf))),
			  (size_t)pda_brcntr_cell_width(&c));
	ck_assert_uint_lt(strlen(pda_brcntr_entry(&c, sums, 1, buf, 5)), 5);
}
END_TEST

Suite *branch_cntr_suite(void)
{
	Suite *s = suite_create("branch_cntr");
	TCase *tc = tcase_create("branch_cntr");

	tcase_add_test(tc, test_split);
	tcase_add_test(tc, test_cells);
	tcase_add_test(tc, test_exact_cells);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
