/*
 * check_leaf.c - the sample pipeline's leaf_only (analyze/session/
 * pda_pipe.c), what a report without call graphs or children runs on:
 * every sample's stack is the frames of its ip alone (inlined ones
 * included), on every kind of capture, DWARF ones too (never unwound);
 * the memo serves them all, DWARF captures included, and changes
 * nothing the fold of those one-address stacks and the session count.
 */
#include "pd_config.h"
#include "pda_capture.h"
#include "pda_fold.h"
#include "elftest.h"
#include "foldtext.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const captures[] = {
	"demo.perf.data",     "fp.perf.data",	     "multi.perf.data",
	"threads.perf.data",  "pipe.perf.data",	     "zstd.perf.data",
	"sysw.perf.data.zst", "dwarf.perf.data.zst", "exec.perf.data.zst",
};

struct run {
	struct pda_fold *fd;
	uint64_t nr_hits, nr_stacks, nr_samples;
};

static int add(void *arg, const struct pda_pipe_item *it)
{
	struct run *r = arg;

	r->nr_samples++;
	ck_assert(!(it->sample->mask &
		    (PD_SAMPLE_CALLCHAIN | PD_SAMPLE_STACK_USER)));
	if (it->hit) {
		r->nr_hits++;
		return pda_fold_add_again(r->fd, it->sample, *it->cookie);
	}
	ck_assert_ptr_nonnull(it->stack);
	ck_assert_uint_ge(it->stack->nr, 1);
	/* one address: its function and the ones inlined at it */
	for (size_t i = 0; i < it->stack->nr; i++)
		ck_assert_uint_eq(it->stack->frames[i].ip, it->sample->ip);
	r->nr_stacks++;
	return pda_fold_add_keyed(r->fd, it->sample, it->stack, it->comm,
				  it->cookie);
}

struct result {
	char *text;
	struct pda_fold_totals t;
	struct pda_stats st;
	struct run r;
};

static void fold(const char *name, bool memo, struct result *res)
{
	char path[ET_PATH_MAX];
	struct pd_file *f;
	struct pda_session *s;
	struct pda_capture c;
	PDA_OPTS(o, .no_debuginfod = true);
	PDA_FOLD_OPTS(fo, .flags = PDA_FOLD_PID);
	PDA_CAPTURE_OPTS(co, .jobs = 2, .leaf_only = true, .memo = memo,
			 .sample_fn = add, .arg = &res->r);

	memset(res, 0, sizeof(*res));
	et_path(path, "../../testdata/%s", name);
	ck_assert_int_eq(pd_file_open(path, NULL, &f), 0);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pda_fold_new(&fo, &res->r.fd), 0);
	ck_assert_int_eq(pda_capture_init(&c, f, s, &co), 0);
	ck_assert_int_eq(pda_capture_run(&c), 0);
	ck_assert_int_eq(pda_fold_finish(res->r.fd), 0);
	res->text = ft_lines(res->r.fd);
	res->t = *pda_fold_totals(res->r.fd);
	res->st = *pda_session_stats(s);
	pda_capture_release(&c);
	pda_fold_free(res->r.fd);
	pda_session_free(s);
	pd_file_close(f);
}

START_TEST(test_leaf_stacks)
{
	struct result a, b;

	fold(captures[_i], false, &a);
	fold(captures[_i], true, &b);
	ck_assert_uint_gt(a.r.nr_samples, 0);
	ck_assert_uint_eq(a.r.nr_hits, 0);
	ck_assert_uint_eq(a.r.nr_stacks, a.r.nr_samples);
	/* every capture repeats an ip in a process: DWARF ones too */
	ck_assert_uint_gt(b.r.nr_hits, 0);
	ck_assert_uint_eq(b.r.nr_samples, a.r.nr_samples);
	ck_assert_str_eq(a.text, b.text);
	ck_assert_mem_eq(&a.t, &b.t, sizeof(a.t));
	ck_assert_uint_eq(a.st.nr_samples, b.st.nr_samples);
	ck_assert_uint_eq(a.st.nr_frames, b.st.nr_frames);
	ck_assert_uint_eq(a.st.nr_frames_unresolved,
			  b.st.nr_frames_unresolved);
	free(a.text);
	free(b.text);
}
END_TEST

Suite *leaf_suite(void)
{
	Suite *s = suite_create("leaf");
	TCase *tc = tcase_create("leaf");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_leaf_stacks, 0,
			    (int)(sizeof(captures) / sizeof(captures[0])));
	suite_add_tcase(s, tc);
	return s;
}
