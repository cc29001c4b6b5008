/*
 * check_branch_annot.c - annotate's branch counts (analyze/branch/
 * pda_branch_annot.c, pda_branch_cyc.c) on the generated capture
 * testdata/branches/loop-brbe (ARM BRBE, aarch64, cycles): every entry
 * is counted once at the instruction it left, in a function annotated
 * with pda_annot_add_func(), as many as the generator's truth says; the
 * mispredicted ones no more than taken; IPC only where cycles are; and
 * misuse.
 */
#include "pda_annotate.h"
#include "pda_branch.h"
#include "pdatest.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPTURE "../../testdata/branches/loop-brbe.perf.data.zst"
#define TRUTH "../../testdata/branches/loop-brbe.truth.json"
#define BUILDID "../../testdata/buildid"

struct run {
	struct pd_file *f;
	struct pda_session *s;
	struct pda_annot *a;
	struct pda_branch_annot *ba;
};

static void run(struct run *r)
{
	char bid[4096];
	PDA_OPTS(po, .buildid_dir = bid, .no_inline = true,
		 .no_debuginfod = true);
	PDA_ANNOT_OPTS(ao, .nr_events = 1);
	struct pd_reader *rd;
	struct pd_sample sample;
	struct pd_rec rec;
	int rc;

	memset(r, 0, sizeof(*r));
	snprintf(bid, sizeof(bid), "%s", pt_abs(BUILDID));
	ck_assert_int_eq(pd_file_open(pt_abs(CAPTURE), NULL, &r->f), 0);
	ck_assert_int_eq(pda_session_new(r->f, &po, &r->s), 0);
	ck_assert_int_eq(pda_annot_new(r->s, &ao, &r->a), 0);
	ck_assert_int_eq(pda_branch_annot_new(r->s, &r->ba), 0);
	ck_assert_int_eq(pd_reader_new(r->f, PD_READ_ORDERED, &rd), 0);
	while ((rc = pd_reader_next(rd, &rec)) > 0) {
		ck_assert_int_ge(pda_session_feed(r->s, &rec), 0);
		if (rec.type != PD_REC_SAMPLE)
			continue;
		ck_assert_int_eq(pd_sample_decode(r->f, &rec, &sample), 0);
		ck_assert_int_ge(pda_annot_add(r->a, &sample, 0), 0);
		ck_assert_int_eq(pda_branch_annot_add(r->ba, &sample, ""), 0);
	}
	ck_assert_int_eq(rc, 0);
	pd_reader_free(rd);
}

static void run_free(struct run *r)
{
	pda_branch_annot_free(r->ba);
	pda_annot_free(r->a);
	pda_session_free(r->s);
	pd_file_close(r->f);
}

static int add_func(void *arg, struct pda_dso *dso, const char *dso_name,
		    const char *name, uint64_t start, bool kernel)
{
	return pda_annot_add_func(arg, dso, dso_name, name, start, kernel);
}

/* The truth's "entries": every branch entry of the capture. */
static uint64_t truth_entries(void)
{
	FILE *f = fopen(pt_abs(TRUTH), "r");
	static char buf[1 << 20];
	size_t n;
	const char *p;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strstr(buf, "\"entries\": ");
	ck_assert_ptr_nonnull(p);
	return strtoull(p + strlen("\"entries\": "), NULL, 10);
}

START_TEST(test_counts)
{
	struct run r;
	uint64_t taken = 0, with_cycles = 0;
	size_t nr_branch_funcs = 0;

	run(&r);
	ck_assert_int_eq(pda_branch_annot_each(r.ba, add_func, r.a), 0);
	ck_assert_int_eq(pda_annot_finish(r.a), 0);
	for (size_t i = 0; i < pda_annot_nr_syms(r.a); i++) {
		const struct pda_annot_sym *sym = pda_annot_sym(r.a, i);
		struct pda_annot_func *fn;
		struct pda_branch_insn *b;
		uint64_t *addrs;

		ck_assert_int_eq(pda_annot_func_new(r.a, i, &fn), 0);
		ck_assert_ptr_null(fn->error);
		addrs = calloc(fn->nr_insns + 1, sizeof(*addrs));
		b = calloc(fn->nr_insns + 1, sizeof(*b));
		ck_assert(addrs && b);
		for (size_t k = 0; k < fn->nr_insns; k++)
			addrs[k] = fn->insns[k].addr;
		if (pda_branch_annot_func(r.ba, sym->dso, sym->start, addrs,
					  fn->nr_insns, b) == 1)
			nr_branch_funcs++;
		for (size_t k = 0; k < fn->nr_insns; k++) {
			taken += b[k].taken;
			with_cycles += b[k].nr_cycles;
			ck_assert_uint_le(b[k].mispred, b[k].with_pred);
			ck_assert_uint_le(b[k].with_pred, b[k].taken);
			/* cycles and IPC only where entries left with them */
			ck_assert_uint_le(b[k].nr_cycles, b[k].taken);
			if (!b[k].nr_cycles)
				ck_assert(b[k].ipc == 0.0 && !b[k].cycles_avg);
			if (b[k].cycles_avg)
				ck_assert(b[k].cycles_min <= b[k].cycles_avg &&
					  b[k].cycles_avg <= b[k].cycles_max);
		}
		free(addrs);
		free(b);
		pda_annot_func_free(r.a, fn);
	}
	/* every entry leaves a function of the binary */
	ck_assert_uint_eq(taken, truth_entries());
	ck_assert_uint_gt(with_cycles, 0);
	ck_assert_uint_gt(nr_branch_funcs, 1);
	run_free(&r);
}
END_TEST

START_TEST(test_misuse)
{
	struct run r;
	struct pda_branch_insn b[2];
	const uint64_t addrs[2] = {0x400000, 0x400004};

	run(&r);
	memset(b, 0xff, sizeof(b));
	/* a function no entry left: zeroes */
	ck_assert_int_eq(pda_branch_annot_func(r.ba, "/no/such", 0x400000,
					       addrs, 2, b),
			 0);
	ck_assert_uint_eq(b[0].taken, 0);
	ck_assert_uint_eq(b[1].nr_cycles, 0);
	ck_assert_int_eq(pda_branch_annot_func(r.ba, NULL, 0, addrs, 0, b), 0);
	ck_assert_int_eq(pda_annot_finish(r.a), 0);
	/* after finish no function is added */
	ck_assert_int_eq(pda_branch_annot_each(r.ba, add_func, r.a),
			 PD_ERR_API);
	pda_branch_annot_free(NULL);
	run_free(&r);
}
END_TEST

Suite *branch_annot_suite(void)
{
	Suite *s = suite_create("branch_annot");
	TCase *tc = tcase_create("branch_annot");

	tcase_add_test(tc, test_counts);
	tcase_add_test(tc, test_misuse);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}
