/*
 * check_fold.c - the folded-stack aggregator (pda_fold) on hand-made
 * stacks, and the perf script text parser (pda_script) on hand-written
 * perf script output: names, roots, options, filters, truncation, order,
 * growth and allocation failures.
 */
#include "pd_config.h" /* open_memstream */
#include "pda.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------- */

/* The finished aggregator as text, "stack weight\n" per line. */
static char *render(struct pda_fold *fd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(pda_fold_finish(fd), 0);
	for (size_t i = 0; i < pda_fold_nr_lines(fd); i++) {
		const struct pda_fold_line *l = pda_fold_line(fd, i);

		fprintf(fp, "%s %llu\n", l->stack,
			(unsigned long long)l->weight);
	}
	fclose(fp);
	return buf;
}

#define F(s, d, fl)                                                            \
	{                                                                      \
		.ip = 0x1000, .sym = (s), .dso = (d), .flags = (fl)            \
	}

static struct pd_sample sample(uint32_t pid, uint32_t tid, uint64_t period)
{
	struct pd_sample s;

	memset(&s, 0, sizeof(s));
	s.pid = pid;
	s.tid = tid;
	s.period = period;
	return s;
}

static void add(struct pda_fold *fd, const char *comm, uint32_t pid,
		uint32_t tid, struct pda_frame *frames, size_t nr)
{
	const struct pd_sample s = sample(pid, tid, 100);
	const struct pda_stack st = {frames, nr, nr};

	ck_assert_int_eq(pda_fold_add(fd, &s, &st, comm), 1);
}

static struct pda_fold *new_fold(unsigned flags)
{
	struct pda_fold *fd;
	PDA_FOLD_OPTS(o, .flags = flags);

	ck_assert_int_eq(pda_fold_new(&o, &fd), 0);
	return fd;
}

static const char libc[] = "/usr/lib/libc.so.6";
static const char kk[] = "[kernel.kallsyms]";

/* ---- aggregation --------------------------------------------------- */

START_TEST(test_basic)
{
	struct pda_fold *fd = new_fold(0);
	struct pda_frame a[] = {F("leaf", libc, 0), F("mid", libc, 0),
				F("main", libc, 0)};
	struct pda_frame b[] = {F(NULL, NULL, PDA_FRAME_NO_MAP),
				F("x;y", libc, 0)};
	const struct pd_sample s = sample(7, 8, 1);
	const struct pda_fold_totals *t;
	char *out;

	add(fd, "my prog", 1, 1, a, 3);
	add(fd, "my prog", 1, 2, a, 3);
	add(fd, "my prog", 1, 1, b, 2);
	add(fd, "", 5, 6, a, 1);
	add(fd, NULL, (uint32_t)-1, (uint32_t)-1, a, 1);
	/* no callchain: the comm alone, as perf's stackcollapse.py */
	ck_assert_int_eq(pda_fold_add(fd, &s, NULL, "sh"), 1);
	out = render(fd);
	ck_assert_str_eq(out, ":-1;leaf 1\n"
			      ":6;leaf 1\n"
			      "my_prog;main;mid;leaf 2\n"
			      "my_prog;x:y;[unknown] 1\n"
			      "sh 1\n");
	t = pda_fold_totals(fd);
	ck_assert_uint_eq(t->nr_samples, 6);
	ck_assert_uint_eq(t->weight, 6);
	ck_assert_uint_eq(t->weight_unresolved, 1);
	ck_assert_uint_eq(t->nr_stacks, 5);
	ck_assert_uint_eq(t->nr_truncated, 0);
	/* frames are root first, with their flags */
	{
		const struct pda_fold_line *l = pda_fold_line(fd, 3);

		ck_assert_uint_eq(l->nr_frames, 3);
		ck_assert_str_eq(l->frames[0]->name, "my_prog");
		ck_assert_str_eq(l->frames[2]->name, "[unknown]");
		ck_assert(l->frames[2]->flags & PDA_FRAME_NO_SYMBOL);
		ck_assert_ptr_null(pda_fold_line(fd, 5));
	}
	/* adding after finish is misuse */
	ck_assert_int_eq(pda_fold_add(fd, &s, NULL, "sh"), PD_ERR_API);
	free(out);
	pda_fold_free(fd);
	pda_fold_free(NULL);
}
END_TEST

START_TEST(test_roots)
{
	static const struct {
		unsigned flags;
		const char *want;
	} cases[] = {
		{PDA_FOLD_PID, "a_b-10;f 1\n"},
		{PDA_FOLD_TID, "a_b-11;f 1\n"},
		{PDA_FOLD_PID | PDA_FOLD_TID, "a_b-10/11;f 1\n"},
		{PDA_FOLD_NO_COMM, "f 1\n"},
	};
	struct pda_fold *fd = new_fold(cases[_i].flags);
	struct pda_frame f[] = {F("f", libc, 0)};
	char *out;

	add(fd, "a b", 10, 11, f, 1);
	out = render(fd);
	ck_assert_str_eq(out, cases[_i].want);
	free(out);
	pda_fold_free(fd);
}
END_TEST

START_TEST(test_kernel_addrs_srcline)
{
	struct pda_fold *fd =
		new_fold(PDA_FOLD_KERNEL | PDA_FOLD_ADDRS | PDA_FOLD_SRCLINE);
	struct pda_frame f[] = {
		F("do_idle", kk, PDA_FRAME_KERNEL),
		F(NULL, kk, PDA_FRAME_KERNEL | PDA_FRAME_NO_SYMBOL),
		F(NULL, libc, PDA_FRAME_NO_SYMBOL),
		F(NULL, NULL, PDA_FRAME_NO_MAP),
		F("main", "/bin/p", 0),
	};
	char *out;

	f[1].dso_addr = 0xabc;
	f[2].dso_addr = 0x1f;
	f[3].ip = 0x7f00;
	f[4].srcfile = "/src/p.c";
	f[4].line = 12;
	add(fd, "p", 1, 1, f, 5);
	out = render(fd);
	ck_assert_str_eq(out, "p;main:p.c:12;0x7f00;libc.so.6+0x1f;"
			      "[kernel.kallsyms]+0xabc_[k];do_idle_[k] 1\n");
	free(out);
	pda_fold_free(fd);

	/* without --addrs a kernel frame without a symbol is still one */
	fd = new_fold(PDA_FOLD_KERNEL);
	add(fd, "p", 1, 1, f, 2);
	out = render(fd);
	ck_assert_str_eq(out, "p;[unknown]_[k];do_idle_[k] 1\n");
	free(out);
	pda_fold_free(fd);
}
END_TEST

START_TEST(test_period)
{
	struct pda_fold *fd = new_fold(PDA_FOLD_PERIOD);
	struct pda_frame f[] = {F("f", libc, 0)};
	char *out;

	add(fd, "p", 1, 1, f, 1);
	add(fd, "p", 1, 1, f, 1);
	out = render(fd);
	ck_assert_str_eq(out, "p;f 200\n");
	ck_assert_uint_eq(pda_fold_totals(fd)->weight, 200);
	free(out);
	pda_fold_free(fd);
}
END_TEST

/* perf keeps max_stack entries from the leaf; inlined frames ride along
 * with the entry they expand */
START_TEST(test_max_stack)
{
	struct pda_fold *fd;
	PDA_FOLD_OPTS(o, .max_stack = 2);
	struct pda_frame f[] = {
		F("in1", libc, PDA_FRAME_INLINED), F("a", libc, 0),
		F("in2", libc, PDA_FRAME_INLINED), F("b", libc, 0),
		F("in3", libc, PDA_FRAME_INLINED), F("c", libc, 0),
	};
	char *out;

	ck_assert_int_eq(pda_fold_new(&o, &fd), 0);
	add(fd, "p", 1, 1, f, 6);
	add(fd, "p", 1, 1, f, 2);
	out = render(fd);
	ck_assert_str_eq(out, "p;a;in1 1\n"
			      "p;b;in2;a;in1 1\n");
	ck_assert_uint_eq(pda_fold_totals(fd)->nr_truncated, 1);
	free(out);
	pda_fold_free(fd);
}
END_TEST

START_TEST(test_default_max_stack)
{
	struct pda_fold *fd = new_fold(PDA_FOLD_NO_COMM);
	struct pda_frame f[200];
	char *out;

	for (int i = 0; i < 200; i++)
		f[i] = (struct pda_frame)F("x", libc, 0);
	add(fd, "p", 1, 1, f, 200);
	out = render(fd);
	ck_assert_uint_eq(pda_fold_line(fd, 0)->nr_frames, PDA_FOLD_MAX_STACK);
	free(out);
	pda_fold_free(fd);
}
END_TEST

START_TEST(test_filters)
{
	struct pda_fold *fd;
	char err[256] = "";
	PDA_FOLD_OPTS(o, .comm_re = "^w", .dso_re = "libc", .sym_re = "^m.*n$");
	PDA_FOLD_OPTS(bad, .sym_re = "(", .errbuf = err,
		      .errbuf_size = sizeof(err));
	struct pda_frame ok[] = {F("leaf", libc, 0), F("main", "/bin/w", 0)};
	struct pda_frame nodso[] = {F("main", "/bin/w", 0)};
	struct pda_frame nosym[] = {F("leaf", libc, 0)};
	const struct pd_sample s = sample(1, 1, 1);
	const struct pda_stack st_ok = {ok, 2, 2};
	const struct pda_stack st_nodso = {nodso, 1, 1};
	const struct pda_stack st_nosym = {nosym, 1, 1};
	char *out;

	ck_assert_int_eq(pda_fold_new(&bad, &fd), PD_ERR_API);
	ck_assert_ptr_null(fd);
	ck_assert_ptr_nonnull(strstr(err, "'('"));

	ck_assert_int_eq(pda_fold_new(&o, &fd), 0);
	ck_assert_int_eq(pda_fold_add(fd, &s, &st_ok, "worker"), 1);
	ck_assert_int_eq(pda_fold_add(fd, &s, &st_ok, "other"), 0);
	ck_assert_int_eq(pda_fold_add(fd, &s, &st_nodso, "worker"), 0);
	ck_assert_int_eq(pda_fold_add(fd, &s, &st_nosym, "worker"), 0);
	ck_assert_int_eq(pda_fold_add(fd, &s, NULL, "worker"), 0);
	ck_assert_int_eq(pda_fold_add(fd, &s, &st_ok, "worker"), 1);
	ck_assert_uint_eq(pda_fold_totals(fd)->nr_filtered, 4);
	out = render(fd);
	ck_assert_str_eq(out, "worker;main;leaf 2\n");
	free(out);
	pda_fold_free(fd);
}
END_TEST

START_TEST(test_names)
{
	struct pda_fold *fd;
	PDA_FOLD_OPTS(o, .dso_re = "^/bin/");
	const char *names[] = {"leaf", "root"};
	const char *dsos[] = {"/lib/x.so", "/bin/p"};
	const char *dsos2[] = {"/lib/x.so", NULL};
	struct pda_fold_names n = {.root = "p-1/2",
				   .comm = "p",
				   .names = names,
				   .dsos = dsos,
				   .nr = 2,
				   .weight = 3,
				   .unresolved = true};
	char *out;

	ck_assert_int_eq(pda_fold_new(&o, &fd), 0);
	ck_assert_int_eq(pda_fold_add_names(fd, &n), 1);
	n.dsos = dsos2;
	ck_assert_int_eq(pda_fold_add_names(fd, &n), 0);
	n.dsos = dsos;
	n.root = NULL;
	ck_assert_int_eq(pda_fold_add_names(fd, &n), 1);
	out = render(fd);
	ck_assert_str_eq(out, "p-1/2;root;leaf 3\nroot;leaf 3\n");
	ck_assert_uint_eq(pda_fold_totals(fd)->weight_unresolved, 6);
	free(out);
	pda_fold_free(fd);
}
END_TEST

/* distinct stacks that render alike are one line (a comm with ';') */
START_TEST(test_merge_alike)
{
	struct pda_fold *fd = new_fold(0);
	struct pda_frame ab[] = {F("c", libc, 0), F("b", libc, 0)};
	struct pda_frame c[] = {F("c", libc, 0)};
	char *out;

	add(fd, "a", 1, 1, ab, 2);
	add(fd, "a;b", 1, 1, c, 1);
	out = render(fd);
	ck_assert_str_eq(out, "a;b;c 2\n");
	free(out);
	pda_fold_free(fd);
}
END_TEST

/* many distinct stacks: the tables grow and every count stays right */
START_TEST(test_growth)
{
	enum { NR_NAMES = 300, NR_STACKS = 20000 };
	struct pda_fold *fd = new_fold(PDA_FOLD_NO_COMM);
	static char names[NR_NAMES][16];
	struct pda_frame f[3];
	uint64_t total = 0;

	for (int i = 0; i < NR_NAMES; i++)
		snprintf(names[i], sizeof(names[i]), "f%03d", i);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < NR_STACKS; i++) {
			f[0] = (struct pda_frame)F(names[i % NR_NAMES], libc,
						   0);
			f[1] = (struct pda_frame)F(names[i / NR_NAMES], libc,
						   0);
			f[2] = (struct pda_frame)F(names[i % 7], libc, 0);
			add(fd, "p", 1, 1, f, 3);
		}
	}
	ck_assert_int_eq(pda_fold_finish(fd), 0);
	ck_assert_uint_eq(pda_fold_nr_lines(fd), NR_STACKS);
	for (size_t i = 0; i < pda_fold_nr_lines(fd); i++) {
		const struct pda_fold_line *l = pda_fold_line(fd, i);

		ck_assert_uint_eq(l->weight, 2);
		total += l->weight;
		if (i > 0)
			ck_assert_int_lt(strcmp(pda_fold_line(fd, i - 1)->stack,
						l->stack),
					 0);
	}
	ck_assert_uint_eq(total, 2 * NR_STACKS);
	pda_fold_free(fd);
}
END_TEST

/* ---- allocation failure (T9) --------------------------------------- */

struct fail {
	long left; /* allocations that succeed before one fails */
	long live;
};

static void *fail_malloc(void *arg, size_t size)
{
	struct fail *f = arg;
	void *p;

	if (f->left-- == 0)
		return NULL;
	p = malloc(size);
	f->live += p != NULL;
	return p;
}

static void *fail_realloc(void *arg, void *p, size_t size)
{
	struct fail *f = arg;
	void *q;

	if (f->left-- == 0)
		return NULL;
	q = realloc(p, size);
	f->live += q && !p;
	return q;
}

static void fail_free(void *arg, void *p)
{
	struct fail *f = arg;

	if (p)
		f->live--;
	free(p);
}

/* Fail each allocation in turn: a clean PD_ERR_NOMEM, a usable or
 * freeable aggregator, and nothing leaked. */
START_TEST(test_alloc_failures)
{
	bool completed = false;

	for (long n = 0; !completed && n < 100000; n++) {
		struct fail fl = {n, 0};
		const struct pd_alloc hooks = {fail_malloc, fail_realloc,
					       fail_free, &fl};
		PDA_FOLD_OPTS(o, .alloc = &hooks, .flags = PDA_FOLD_ADDRS);
		struct pda_fold *fd;
		char name[16];
		struct pda_frame f[2] = {F(NULL, libc, 0), F("x", libc, 0)};
		int rc = pda_fold_new(&o, &fd);

		if (rc < 0) {
			ck_assert_int_eq(rc, PD_ERR_NOMEM);
			ck_assert_ptr_null(fd);
			ck_assert_int_eq(fl.live, 0);
			continue;
		}
		for (int i = 0; i < 400 && rc >= 0; i++) {
			const struct pd_sample s = sample(1, 1, 1);
			const struct pda_stack st = {f, 2, 2};

			snprintf(name, sizeof(name), "c%d", i % 50);
			f[0].dso_addr = (uint64_t)i;
			rc = pda_fold_add(fd, &s, &st, name);
		}
		if (rc >= 0)
			rc = pda_fold_finish(fd);
		if (rc >= 0) {
			completed = true;
			ck_assert_uint_eq(pda_fold_nr_lines(fd), 400);
		} else {
			ck_assert_int_eq(rc, PD_ERR_NOMEM);
		}
		pda_fold_free(fd);
		ck_assert_int_eq(fl.live, 0);
	}
	ck_assert(completed);
}
END_TEST

Suite *fold_suite(void)
{
	Suite *s = suite_create("fold");
	TCase *tc = tcase_create("aggregate");

	tcase_add_test(tc, test_basic);
	tcase_add_loop_test(tc, test_roots, 0, 4);
	tcase_add_test(tc, test_kernel_addrs_srcline);
	tcase_add_test(tc, test_period);
	tcase_add_test(tc, test_max_stack);
	tcase_add_test(tc, test_default_max_stack);
	tcase_add_test(tc, test_filters);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_merge_alike);
	tcase_add_test(tc, test_growth);
	tcase_add_test(tc, test_alloc_failures);
	suite_add_tcase(s, tc);
	return s;
}
