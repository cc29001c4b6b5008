/*
 * check_memo.c - the sample pipeline's memo (analyze/session/pda_pipe.c):
 * folding every testdata capture with it, and with stacks handed back in
 * part (the frames past an outer part resolved before, which fold takes
 * with pda_fold_add_part), gives what folding without it gives, line for
 * line, with the same totals and the same session
 * statistics (samples, frames, unresolved ones, and per binary its
 * samples and samples with unresolved frames, which the diagnostics
 * print), whatever the fold's options make of a stack: roots by tid,
 * stacks cut at --max-stack, samples a filter leaves out.
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
/* ... and whether some stack shares 4 outer callchain entries with an
 * earlier one, so that it comes in part (pda_pipe_opts.prefix) */
static const struct {
	const char *name;
	bool memo, parts;
} captures[] = {
	{"demo.perf.data", true, true},	      {"fp.perf.data", true, false},
	{"multi.perf.data", true, true},      {"threads.perf.data", true, true},
	{"switch.perf.data", true, false},    {"pipe.perf.data", true, true},
	{"zstd.perf.data", true, true},	      {"sysw.perf.data.zst", true, false},
	{"lost.perf.data.zst", true, true},   {"dwarf.perf.data.zst", false, false},
	{"exec.perf.data.zst", false, false},
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
	uint64_t nr_parts;	/* stacks handed back in part */
	uint64_t nr_frames;	/* frames handed back, all samples */
};

static int add(void *arg, const struct pda_pipe_item *it)
{
	struct run *r = arg;
	int rc;

	if (it->stack)
		r->nr_frames += it->stack->nr;
	if (it->hit) {
		r->nr_hits++;
		rc = pda_fold_add_again(r->fd, it->sample, *it->cookie);
	} else if (it->prefix || it->cuts) {
		const struct pda_fold_part pt = {it->prefix, it->cuts,
						 it->nr_cuts, it->cut_cookies};

		r->nr_parts += it->prefix != 0;
		rc = pda_fold_add_part(r->fd, it->sample, it->stack, it->comm,
				       &pt, it->cookie);
	} else {
		rc = pda_fold_add_keyed(r->fd, it->sample, it->stack, it->comm,
					it->cookie);
	}
	return rc < 0 ? rc : 0;
}

/* Fold capture name with fold flags and options, the memo on or off,
 * and with it stacks in parts (pda_pipe_opts.prefix) or not. */
static void fold(const char *name, unsigned flags, unsigned max_stack,
		 const char *sym_re, bool memo, bool prefix,
		 struct result *res, struct run *out)
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
			 .memo_tid = flags & PDA_FOLD_TID, .prefix = prefix,
			 .prefix_max = max_stack ? max_stack
						 : PDA_FOLD_MAX_STACK,
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
	*out = r;

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

static void same_result(const struct result *a, const struct result *b)
{
	ck_assert_str_eq(a->text, b->text);
	ck_assert_mem_eq(&a->t, &b->t, sizeof(a->t));
	ck_assert_uint_eq(a->st.nr_samples, b->st.nr_samples);
	ck_assert_uint_eq(a->st.nr_frames, b->st.nr_frames);
	ck_assert_uint_eq(a->st.nr_frames_unresolved,
			  b->st.nr_frames_unresolved);
	ck_assert_uint_eq(a->st.nr_samples_unresolved,
			  b->st.nr_samples_unresolved);
	ck_assert_str_eq(a->dsos, b->dsos);
}

/* The memo, and stacks in parts, change nothing the fold and the
 * session count; *parts: the stacks that came in part. */
static uint64_t same(const char *name, unsigned flags, unsigned max_stack,
		     const char *sym_re, uint64_t *parts)
{
	struct result a, b, c;
	struct run ra, rb, rc;

	fold(name, flags, max_stack, sym_re, false, false, &a, &ra);
	fold(name, flags, max_stack, sym_re, true, false, &b, &rb);
	fold(name, flags, max_stack, sym_re, true, true, &c, &rc);
	ck_assert_uint_eq(ra.nr_hits, 0);
	ck_assert_uint_eq(rb.nr_parts, 0);
	same_result(&a, &b);
	same_result(&a, &c);
	ck_assert_uint_eq(rb.nr_hits, rc.nr_hits);
	/* a stack in part is its frames past the part only */
	if (rc.nr_parts)
		ck_assert_uint_lt(rc.nr_frames, rb.nr_frames);
	else
		ck_assert_uint_eq(rc.nr_frames, rb.nr_frames);
	result_free(&a);
	result_free(&b);
	result_free(&c);
	if (parts)
		*parts = rc.nr_parts;
	return rb.nr_hits;
}

START_TEST(test_same_folds)
{
	const char *name = captures[_i].name;
	uint64_t parts;
	uint64_t hits = same(name, 0, 0, NULL, &parts);

	/* the memo is used: every capture repeats some stack */
	if (captures[_i].memo)
		ck_assert_uint_gt(hits, 0);
	else
		ck_assert_uint_eq(hits, 0);
	if (captures[_i].parts)
		ck_assert_uint_gt(parts, 0);
	else
		ck_assert_uint_eq(parts, 0);
	same(name, PDA_FOLD_PID | PDA_FOLD_TID | PDA_FOLD_KERNEL, 0, NULL,
	     NULL);
	same(name, PDA_FOLD_ADDRS | PDA_FOLD_PERIOD, 3, NULL, NULL);
	same(name, PDA_FOLD_NO_COMM, 0, "^(hash_block|main)$", NULL);
}
END_TEST

Suite *memo_suite(void)
{
	Suite *s = suite_create("memo");
	TCase *tc = tcase_create("memo");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_same_folds, 0,
			    (int)(sizeof(captures) / sizeof(captures[0])));
	suite_add_tcase(s, tc);
	return s;
}
