/*
 * check_memo.c - the sample pipeline's memo (analyze/session/pda_pipe.c):
 * folding every testdata capture with it gives what folding without it
 * gives, line for line, with the same totals and the same session
 * statistics (samples, frames, unresolved ones, and per binary its
 * samples and samples with unresolved frames, which the diagnostics
 * print), whatever the fold's options make of a stack: roots by tid,
 * stacks cut at --max-stack, samples a filter leaves out; and so does a
 * memo too small for a capture's stacks, whose keys are replaced and
 * resolved again.
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

/* file captures of testdata, compressed whole or not: every kind of
 * stack (frame pointers, DWARF, none, kernel, threads, pipe mode), and
 * whether the memo serves some of their samples (not DWARF ones: their
 * stacks come from the user stack each sample carries) */
static const struct {
	const char *name;
	bool memo;
} captures[] = {
	{"demo.perf.data", true},	{"fp.perf.data", true},
	{"multi.perf.data", true},	{"threads.perf.data", true},
	{"switch.perf.data", true},	{"pipe.perf.data", true},
	{"zstd.perf.data", true},	{"sysw.perf.data.zst", true},
	{"lost.perf.data.zst", true},	{"dwarf.perf.data.zst", false},
	{"exec.perf.data.zst", false},
};

struct result {
	char *text;	/* the lines, "stack weight samples period\n" */
	struct pda_fold_totals t;
	struct pda_stats st;
	char *dsos;	/* the unresolved and missing lists */
};

struct run {
	struct pda_fold *fd;
	uint64_t nr_hits;
};

static int add(void *arg, const struct pda_pipe_item *it)
{
	struct run *r = arg;
	int rc;

	if (it->hit) {
		r->nr_hits++;
		rc = pda_fold_add_again(r->fd, it->sample, *it->cookie);
	} else {
		rc = pda_fold_add_keyed(r->fd, it->sample, it->stack, it->comm,
					it->cookie);
	}
	return rc < 0 ? rc : 0;
}

/* Fold capture name with fold flags and options, the memo on or off. */
static void fold(const char *name, unsigned flags, unsigned max_stack,
		 const char *sym_re, bool memo, size_t memo_max,
		 struct result *res, uint64_t *nr_hits)
{
	char path[ET_PATH_MAX];
	struct run r = {0};
	struct pd_file *f;
	struct pda_session *s;
	struct pda_capture c;
	PDA_OPTS(o, .no_debuginfod = true);
	PDA_FOLD_OPTS(fo, .flags = flags, .max_stack = max_stack,
		      .sym_re = sym_re);
	PDA_CAPTURE_OPTS(co, .jobs = 1, .ip_stacks = true, .memo = memo,
			 .memo_tid = flags & PDA_FOLD_TID, .memo_max = memo_max,
			 .sample_fn = add, .arg = &r);
	const struct pda_stats *st;

	et_path(path, "../../testdata/%s", name);
	ck_assert_int_eq(pd_file_open(path, NULL, &f), 0);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pda_fold_new(&fo, &r.fd), 0);
	ck_assert_int_eq(pda_capture_init(&c, f, s, &co), 0);
	ck_assert_int_eq(pda_capture_run(&c), 0);
	ck_assert_int_eq(pda_fold_finish(r.fd), 0);

	res->text = ft_lines(r.fd);
	res->t = *pda_fold_totals(r.fd);
	st = pda_session_stats(s);
	res->st = *st;
	res->dsos = ft_dsos(st);
	*nr_hits = r.nr_hits;

	pda_capture_release(&c);
	pda_fold_free(r.fd);
	pda_session_free(s);
	pd_file_close(f);
}

static void result_free(struct result *r)
{
	free(r->text);
	free(r->dsos);
}

/* The memo (of at most memo_max entries, 0: the default) changes
 * nothing the fold and the session count. */
static uint64_t same_max(const char *name, unsigned flags,
			 unsigned max_stack, const char *sym_re,
			 size_t memo_max)
{
	struct result a, b;
	uint64_t hits_a, hits_b;

	fold(name, flags, max_stack, sym_re, false, 0, &a, &hits_a);
	fold(name, flags, max_stack, sym_re, true, memo_max, &b, &hits_b);
	ck_assert_uint_eq(hits_a, 0);
	ck_assert_str_eq(a.text, b.text);
	ck_assert_mem_eq(&a.t, &b.t, sizeof(a.t));
	ck_assert_uint_eq(a.st.nr_samples, b.st.nr_samples);
	ck_assert_uint_eq(a.st.nr_frames, b.st.nr_frames);
	ck_assert_uint_eq(a.st.nr_frames_unresolved,
			  b.st.nr_frames_unresolved);
	ck_assert_uint_eq(a.st.nr_samples_unresolved,
			  b.st.nr_samples_unresolved);
	ck_assert_str_eq(a.dsos, b.dsos);
	result_free(&a);
	result_free(&b);
	return hits_b;
}

static uint64_t same(const char *name, unsigned flags, unsigned max_stack,
		     const char *sym_re)
{
	return same_max(name, flags, max_stack, sym_re, 0);
}

START_TEST(test_same_folds)
{
	const char *name = captures[_i].name;
	uint64_t hits = same(name, 0, 0, NULL);

	/* the memo is used: every capture repeats some stack */
	if (captures[_i].memo)
		ck_assert_uint_gt(hits, 0);
	else
		ck_assert_uint_eq(hits, 0);
	same(name, PDA_FOLD_PID | PDA_FOLD_TID | PDA_FOLD_KERNEL, 0, NULL);
	same(name, PDA_FOLD_ADDRS | PDA_FOLD_PERIOD, 3, NULL);
	same(name, PDA_FOLD_NO_COMM, 0, "^(hash_block|main)$");
}
END_TEST

/* A memo of one set of two (every key's two sets the same) and of four
 * sets: keys replaced all the time, met again and resolved again. */
START_TEST(test_small_memo)
{
	const char *name = captures[_i].name;

	same_max(name, 0, 0, NULL, 2);
	same_max(name, PDA_FOLD_PID | PDA_FOLD_TID, 0, NULL, 8);
	same_max(name, PDA_FOLD_NO_COMM, 0, "^(hash_block|main)$", 2);
}
END_TEST

Suite *memo_suite(void)
{
	Suite *s = suite_create("memo");
	TCase *tc = tcase_create("memo");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_same_folds, 0,
			    (int)(sizeof(captures) / sizeof(captures[0])));
	tcase_add_loop_test(tc, test_small_memo, 0,
			    (int)(sizeof(captures) / sizeof(captures[0])));
	suite_add_tcase(s, tc);
	return s;
}
