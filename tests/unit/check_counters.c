/*
 * check_counters.c - analyze/counters (pda_stat): the saved aggregation
 * mode of every perf generation, the totals of a capture against its
 * STAT records summed here, and clean out-of-memory failures (T9).
 */
#include "pd_config.h"
#include "failalloc.h"
#include "pda_stat.h"

#include <check.h>
#include <string.h>

#define CAPTURE "../../testdata/stat-cpu.perf.data" /* -a -A, 2 CPUs */

/* util/stat.h's enum aggr_mode of each generation, as saved */
static const struct {
	uint64_t saved;
	bool has_level;
	unsigned major, minor;
	int want;
} modes[] = {
	/* perf up to 6.4: NONE GLOBAL SOCKET DIE CORE THREAD UNSET NODE */
	{0, false, 6, 1, PDA_STAT_AGGR_NONE},
	{1, false, 6, 1, PDA_STAT_AGGR_GLOBAL},
	{2, false, 6, 1, PDA_STAT_AGGR_SOCKET},
	{3, false, 6, 1, PDA_STAT_AGGR_DIE},
	{4, false, 6, 1, PDA_STAT_AGGR_CORE},
	{5, false, 5, 10, PDA_STAT_AGGR_THREAD},
	{6, false, 6, 1, -1},
	{7, false, 6, 1, PDA_STAT_AGGR_NODE},
	{8, false, 6, 1, -1},
	/* 6.5 to 6.7: CACHE after DIE, and the AGGR_LEVEL term */
	{4, true, 6, 5, PDA_STAT_AGGR_CACHE},
	{5, true, 6, 7, PDA_STAT_AGGR_CORE},
	{6, true, 6, 6, PDA_STAT_AGGR_THREAD},
	{8, true, 6, 5, PDA_STAT_AGGR_NODE},
	/* 6.8 on: CLUSTER before CACHE; no version: the newest */
	{4, true, 6, 8, PDA_STAT_AGGR_CLUSTER},
	{5, true, 6, 12, PDA_STAT_AGGR_CACHE},
	{6, true, 6, 12, PDA_STAT_AGGR_CORE},
	{7, true, 7, 0, PDA_STAT_AGGR_THREAD},
	{9, true, 0, 0, PDA_STAT_AGGR_NODE},
	{10, true, 6, 12, -1},
};

START_TEST(test_aggr_numbering)
{
	ck_assert_int_eq(pda_stat_aggr_from_file(modes[_i].saved,
						 modes[_i].has_level,
						 modes[_i].major,
						 modes[_i].minor),
			 modes[_i].want);
}
END_TEST

/* Read CAPTURE into s: every record, in file order. */
static int read_into(struct pda_stat *s, struct pd_file *f)
{
	struct pd_reader *r;
	struct pd_rec rec;
	int rc;

	rc = pda_stat_begin(s, f);
	if (rc < 0)
		return rc;
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	while ((rc = pd_reader_next(r, &rec)) > 0)
		if ((rc = pda_stat_rec(s, &rec)) < 0)
			break;
	pd_reader_free(r);
	if (rc < 0)
		return rc;
	rc = pda_stat_end(s);
	return rc < 0 ? rc : pda_stat_finish(s);
}

/* Each per-CPU row is its STAT record's value; --per-socket sums them. */
START_TEST(test_totals)
{
	uint64_t sum[8] = {0}, per_cpu[8][2] = {{0}};
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	const struct pda_stat_report *rep;
	struct pda_stat *s;
	PD_OPTS(opts);
	PDA_STAT_OPTS(so, .aggr = PDA_STAT_AGGR_AS_RECORDED);
	int rc;

	ck_assert_int_eq(pd_file_open(CAPTURE, &opts, &f), 0);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		struct pd_event ev;
		const struct pd_evsel *e;

		if (rec.type != PD_REC_STAT)
			continue;
		ck_assert_int_eq(pd_event_decode(f, &rec, &ev), 0);
		e = pd_file_evsel_by_id(f, ev.stat.id);
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_lt(e->idx, 8);
		ck_assert_uint_lt(ev.stat.cpu, 2);
		per_cpu[e->idx][ev.stat.cpu] = ev.stat.val;
		sum[e->idx] += ev.stat.val;
	}
	pd_reader_free(r);

	ck_assert_int_eq(pda_stat_new(&so, &s), 0);
	ck_assert_int_eq(read_into(s, f), 0);
	rep = pda_stat_report(s);
	ck_assert_int_eq(rep->aggr, PDA_STAT_AGGR_NONE);
	ck_assert_uint_eq(rep->nr_rounds, 1);
	ck_assert_uint_eq(rep->nr_rows, 2 * rep->nr_events);
	for (size_t i = 0; i < rep->nr_rows; i++) {
		const struct pda_stat_row *row = &rep->rows[i];

		ck_assert_uint_eq(row->raw, per_cpu[row->event][row->cpu]);
		ck_assert(row->counted);
	}
	pda_stat_free(s);

	so.aggr = PDA_STAT_AGGR_SOCKET;
	ck_assert_int_eq(pda_stat_new(&so, &s), 0);
	ck_assert_int_eq(read_into(s, f), 0);
	rep = pda_stat_report(s);
	ck_assert_uint_eq(rep->nr_rows, rep->nr_events); /* one socket */
	for (size_t i = 0; i < rep->nr_rows; i++) {
		ck_assert_uint_eq(rep->rows[i].raw, sum[rep->rows[i].event]);
		ck_assert_uint_eq(rep->rows[i].nr, 2);
	}
	pda_stat_free(s);
	pd_file_close(f);
}
END_TEST

/* T9: every allocation that fails gives PD_ERR_NOMEM and no leak. */
START_TEST(test_nomem)
{
	struct pd_file *f;
	PD_OPTS(opts);

	ck_assert_int_eq(pd_file_open(CAPTURE, &opts, &f), 0);
	for (unsigned long n = 1;; n++) {
		struct failalloc fa;
		struct pd_alloc hooks;
		struct pda_stat *s;
		PDA_STAT_OPTS(so, .aggr = PDA_STAT_AGGR_CORE, .alloc = &hooks);
		int rc;

		failalloc_init(&fa, n, false);
		hooks = failalloc_hooks(&fa);
		rc = pda_stat_new(&so, &s);
		if (rc == 0) {
			rc = read_into(s, f);
			pda_stat_free(s);
		}
		ck_assert(rc == 0 || rc == PD_ERR_NOMEM);
		ck_assert_int_eq(fa.live, 0);
		if (!fa.nr_failed)
			break;
	}
	pd_file_close(f);
}
END_TEST

Suite *counters_suite(void)
{
	Suite *s = suite_create("counters");
	TCase *tc = tcase_create("stat");

	tcase_add_loop_test(tc, test_aggr_numbering, 0,
			    (int)(sizeof(modes) / sizeof(modes[0])));
	tcase_add_test(tc, test_totals);
	tcase_add_test(tc, test_nomem);
	suite_add_tcase(s, tc);
	return s;
}
