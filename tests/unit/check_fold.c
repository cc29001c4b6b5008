/*
 * check_fold.c - the folded-stack aggregator (pda_fold) on hand-made
 * stacks, and the perf script text parser (pda_script) on hand-written
 * perf script output: names, roots, options, filters, truncation, order,
 * names holding control characters, growth and allocation failures.
 */
#include "pd_config.h" /* open_memstream */
#include "pda_fold.h"
#include "pda_session.h"

#include "failalloc.h"

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

/* A thread's comm changes (exec), comms reuse one buffer, and comms too
 * long for root_atom's cache: each sample is named by its own comm. */
START_TEST(test_comm_changes)
{
	struct pda_fold *fd = new_fold(0);
	struct pda_frame f[] = {F("f", libc, 0)};
	const char *const lng = "a comm longer than the comm cache holds, "
				"as perf script text can give";
	char buf[64];
	char *out;

	add(fd, "sh", 1, 1, f, 1);
	add(fd, "sh", 1, 1, f, 1);
	add(fd, "make", 1, 1, f, 1);
	add(fd, "", 1, 1, f, 1);
	add(fd, "sh", 1, 1 + 64, f, 1); /* the same cache slot */
	snprintf(buf, sizeof(buf), "cc 1");
	add(fd, buf, 2, 2, f, 1);
	snprintf(buf, sizeof(buf), "cc 2");
	add(fd, buf, 2, 2, f, 1);
	add(fd, lng, 3, 3, f, 1);
	add(fd, lng, 3, 3, f, 1);
	out = render(fd);
	ck_assert_str_eq(out, ":1;f 1\n"
			      "a_comm_longer_than_the_comm_cache_holds,_as_perf_"
			      "script_text_can_give;f 2\n"
			      "cc_1;f 1\n"
			      "cc_2;f 1\n"
			      "make;f 1\n"
			      "sh;f 3\n");
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

/*
 * Names hold any byte (issue 11): a newline in a symbol, a comm or a
 * file name must not start a folded line with a count of its choosing,
 * nor ESC reach a terminal.  Every name of the output shows such bytes
 * as \xNN (pdc_text.h), from captures and from perf script text alike.
 */
START_TEST(test_control_names)
{
	struct pda_fold *fd =
		new_fold(PDA_FOLD_KERNEL | PDA_FOLD_ADDRS | PDA_FOLD_SRCLINE);
	struct pda_frame f[] = {
		F("evil;frame 999999\nx", kk, PDA_FRAME_KERNEL),
		F(NULL, "/opt/lib\nforged 5\n.so", PDA_FRAME_NO_SYMBOL),
		F("main\x1b[31m", "/bin/p", 0),
	};
	const char *names[] = {"jit\x1b]0;t\x07", "x\r\xc2\x9b\xff"};
	struct pda_fold_names n = {
		.root = "sh\n1 2", .names = names, .nr = 2, .weight = 4};
	char *out;

	f[1].dso_addr = 0x10;
	f[2].srcfile = "/src/\tp.c";
	f[2].line = 3;
	add(fd, "c\nforged\t777", 1, 1, f, 3);
	ck_assert_int_eq(pda_fold_add_names(fd, &n), 1);
	/* the same name, raw and as written, is one name */
	names[0] = "jit\\x1b]0;t\\x07";
	ck_assert_int_eq(pda_fold_add_names(fd, &n), 1);
	out = render(fd);
	ck_assert_str_eq(out, "c\\x0aforged\\x09777;main\\x1b[31m:\\x09p.c:3;"
			      "lib\\x0aforged 5\\x0a.so+0x10;"
			      "evil:frame 999999\\x0ax_[k] 1\n"
			      "sh\\x0a1 2;x\\x0d\\xc2\\x9b\\xff;"
			      "jit\\x1b]0;t\\x07 8\n");
	ck_assert_uint_eq(pda_fold_nr_lines(fd), 2);
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

/* ---- merging tables (a capture folded in shards) -------------------- */

/* The finished fold's lines, totals and profile locations as text. */
static char *render_all(struct pda_fold *fd)
{
	char *lines = render(fd), *buf = NULL;
	const struct pda_fold_totals *t = pda_fold_totals(fd);
	struct pda_profile *p;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "%s%llu %llu %llu %llu %llu %zu\n", lines,
		(unsigned long long)t->nr_samples,
		(unsigned long long)t->nr_filtered,
		(unsigned long long)t->weight,
		(unsigned long long)t->weight_unresolved,
		(unsigned long long)t->nr_truncated, t->nr_stacks);
	free(lines);
	ck_assert_int_eq(pda_fold_profile(fd, &p), 0);
	for (uint32_t id = 1; id < pda_profile_nr_locs(p); id++) {
		const struct pda_profile_loc *l = pda_profile_loc(p, id);
		const struct pda_profile_func *f = pda_profile_func(p, l->func);
		const struct pda_profile_mapping *m =
			pda_profile_mapping(p, l->mapping);

		fprintf(fp, "%s|%s|%s|%s|%llx|%u|%x\n",
			pda_profile_str(p, l->label, NULL),
			f ? pda_profile_str(p, f->name, NULL) : "-",
			f && f->file ? pda_profile_str(p, f->file, NULL) : "-",
			m ? pda_profile_str(p, m->name, NULL) : "-",
			(unsigned long long)l->address, l->line, l->flags);
	}
	pda_profile_free(p);
	fclose(fp);
	return buf;
}

/* Sample i of merge's: names that repeat at addresses that do not, so
 * that a name's location is its first frame's. */
static void merge_sample(unsigned i, struct pd_sample *s,
			 struct pda_frame *f, size_t *nr, const char **comm)
{
	static const char *const syms[] = {"main", "a", "b", "c;d", NULL};
	static const char *const dsos[] = {"/bin/p", "/usr/lib/libc.so.6",
					   "[kernel.kallsyms]", NULL};
	static const char *const files[] = {"/src/p.c", "/src/q.c", NULL};
	static const char *const comms[] = {"p", "q r", NULL};
	uint32_t x = i * 2654435761u;

	*s = sample(10 + i % 3, 20 + i % 5, 1 + i % 4);
	*comm = comms[i % 3];
	*nr = 1 + x % 5;
	for (size_t k = 0; k < *nr; k++, x = x * 1103515245u + 12345) {
		struct pda_frame *fr = &f[k];

		memset(fr, 0, sizeof(*fr));
		fr->ip = 0x1000 + i * 16 + k;
		fr->sym = syms[(x >> 8) % 5];
		fr->dso = dsos[(x >> 12) % 4];
		fr->dso_addr = 0x100 + i * 16 + k;
		fr->srcfile = files[(x >> 16) % 3];
		fr->line = (x >> 20) % 3;
		if (fr->dso == dsos[2])
			fr->flags |= PDA_FRAME_KERNEL;
		if (!fr->sym)
			fr->flags |= PDA_FRAME_NO_SYMBOL;
		if (!fr->dso)
			fr->flags |= PDA_FRAME_NO_MAP;
	}
}

/* fd rendered (render_all) is *want; the first sets *want. */
static void render_same(struct pda_fold *fd, char **want)
{
	char *got = render_all(fd);

	if (!*want) {
		*want = got;
		return;
	}
	ck_assert_str_eq(got, *want);
	free(got);
}

/* The fold flags the merge tests loop over, MERGE_NR samples each. */
static const unsigned merge_flags[] = {
	0, PDA_FOLD_ADDRS | PDA_FOLD_KERNEL,
	PDA_FOLD_SRCLINE | PDA_FOLD_PID | PDA_FOLD_TID,
	PDA_FOLD_PERIOD | PDA_FOLD_NO_COMM | PDA_FOLD_ADDRS};
enum { MERGE_NR = 600 };

/*
 * pda_fold_merge: samples folded in 1 to 4 tables by ranges, merged in
 * order, give what one table gives, locations (first frames) included.
 * Loop i: the fold's flags, and whether the tables are threaded.
 */
START_TEST(test_merge)
{
	const unsigned fl = merge_flags[_i % 4];
	const bool threaded = _i >= 4;
	char *want = NULL;

	for (unsigned nr_tables = 1; nr_tables <= 4; nr_tables++) {
		struct pda_fold *fd[4];

		for (unsigned t = 0; t < nr_tables; t++) {
			PDA_FOLD_OPTS(o, .flags = fl, .max_stack = 4,
				      .threaded = threaded);

			ck_assert_int_eq(pda_fold_new(&o, &fd[t]), 0);
		}
		for (unsigned i = 0; i < MERGE_NR; i++) {
			/* uneven ranges: the first table's is the smallest */
			const unsigned t =
				(unsigned)((uint64_t)i * i * nr_tables /
					   MERGE_NR / MERGE_NR);
			struct pda_frame f[5];
			struct pd_sample s;
			struct pda_stack st = {f, 0, 5};
			const char *comm;

			merge_sample(i, &s, f, &st.nr, &comm);
			ck_assert_int_eq(pda_fold_add(fd[t], &s, &st, comm), 1);
		}
		for (unsigned t = 1; t < nr_tables; t++) {
			ck_assert_int_eq(pda_fold_merge(fd[0], fd[t]), 0);
			pda_fold_free(fd[t]);
		}
		render_same(fd[0], &want);
		/* a finished table takes no more */
		if (nr_tables == 1) {
			struct pda_fold *other = new_fold(fl);

			ck_assert_int_eq(pda_fold_merge(fd[0], other),
					 PD_ERR_API);
			pda_fold_free(other);
		}
		pda_fold_free(fd[0]);
	}
	free(want);
}
END_TEST

/*
 * pda_fold_share: samples folded in 1 to 4 tables sharing one owner's
 * tree, added to the tables in the reverse of their order (the owner's
 * ids then come in another order than one table's), memo hits counted
 * by cookie, then merged into the owner in order: what one table gives,
 * locations (first frames) included.  Loop i: the fold's flags, and
 * from 4 on, the owner sorting on a thread (sort_thread) where it has
 * an odd number of tables (the one table's, without, is the reference).
 */
START_TEST(test_share)
{
	const unsigned fl = merge_flags[_i % 4];
	char *want = NULL;

	for (unsigned nr_tables = 0; nr_tables <= 4; nr_tables++) {
		PDA_FOLD_OPTS(oo, .flags = fl,
			      .sort_thread = _i >= 4 && nr_tables % 2);
		struct pda_fold *fd[4], *owner;
		uint64_t cookie[MERGE_NR];

		ck_assert_int_eq(pda_fold_new(&oo, &owner), 0);

		for (unsigned t = 0; t < nr_tables; t++) {
			fd[t] = new_fold(fl);
			ck_assert_int_eq(pda_fold_share(fd[t], owner), 0);
		}
		/* the last table's range first, each range in order; each
		 * sample twice, the second time by its cookie (a memo hit) */
		for (unsigned k = 0;
		     k < 2 * MERGE_NR * (nr_tables ? nr_tables : 1); k++) {
			const unsigned i = k % MERGE_NR;
			const unsigned last = nr_tables ? nr_tables - 1 : 0;
			const unsigned want_t =
				last - k / MERGE_NR % (last + 1);
			const unsigned t =
				(unsigned)((uint64_t)i * i * nr_tables /
					   MERGE_NR / MERGE_NR);
			struct pda_fold *to = nr_tables ? fd[t] : owner;
			const bool again =
				k >= MERGE_NR * (nr_tables ? nr_tables : 1);
			struct pda_frame f[5];
			struct pd_sample s;
			struct pda_stack st = {f, 0, 5};
			const char *comm;

			if (nr_tables && t != want_t)
				continue;
			merge_sample(i, &s, f, &st.nr, &comm);
			if (!again)
				ck_assert_int_eq(pda_fold_add_keyed(to, &s, &st,
								    comm,
								    &cookie[i]),
						 1);
			else
				ck_assert_int_eq(
					pda_fold_add_again(to, &s, cookie[i]),
					1);
		}
		for (unsigned t = 0; t < nr_tables; t++) {
			ck_assert_int_eq(pda_fold_finish(fd[t]), PD_ERR_API);
			ck_assert_int_eq(pda_fold_merge(owner, fd[t]), 0);
			pda_fold_free(fd[t]);
		}
		render_same(owner, &want);
		pda_fold_free(owner);
	}
	free(want);
}
END_TEST

/* What pda_fold_share takes: an empty table, not threaded, of the same
 * options, and an owner that shares nothing itself. */
START_TEST(test_share_api)
{
	PDA_FOLD_OPTS(o, .threaded = true);
	struct pda_fold *owner = new_fold(0), *fd = new_fold(0);
	struct pda_fold *other = new_fold(PDA_FOLD_PID), *th, *x;
	struct pda_frame f[] = {F("a", libc, 0)};

	ck_assert_int_eq(pda_fold_new(&o, &th), 0);
	ck_assert_int_eq(pda_fold_share(owner, owner), PD_ERR_API);
	ck_assert_int_eq(pda_fold_share(th, owner), PD_ERR_API);
	ck_assert_int_eq(pda_fold_share(fd, th), PD_ERR_API);
	ck_assert_int_eq(pda_fold_share(other, owner), PD_ERR_API);
	ck_assert_int_eq(pda_fold_share(fd, owner), 0);
	ck_assert_int_eq(pda_fold_share(fd, owner), PD_ERR_API);
	ck_assert_int_eq(pda_fold_share(owner, fd), PD_ERR_API);
	x = new_fold(0);
	add(x, "p", 1, 1, f, 1);
	ck_assert_int_eq(pda_fold_share(x, owner), PD_ERR_API);
	/* fd's stacks are owner's: merged into owner only */
	ck_assert_int_eq(pda_fold_merge(x, fd), PD_ERR_API);
	ck_assert_int_eq(pda_fold_merge(fd, x), PD_ERR_API);
	pda_fold_free(x);
	pda_fold_free(th);
	pda_fold_free(other);
	pda_fold_free(fd);
	pda_fold_free(owner);
}
END_TEST

/* ---- perf script text (pda_script) ---------------------------------- */

static const char script1[] =
	"# ========\n"
	"# cmdline : /usr/bin/perf record -g ./demo\n"
	"# ========\n"
	"#\n"
	"demo 14261 [001]   541.987909:    6711409 cpu-clock: \n"
	"\t            11b2 hash_block+0x29 (/work/bin/demo)\n"
	"\t            1233 walk+0xd (/work/bin/demo)\n"
	"\t           891f5 start_thread+0x305 (/usr/lib/libc.so.6)\n"
	"\n"
	"V8 WorkerThread 24636/25607 [000] 542.000001:   100 cpu-clock: \n"
	"\tffffffff8103ce3b native_safe_halt+0x1b ([kernel.kallsyms])\n"
	"\t    7f0011223344 [unknown] (/usr/lib/libfoo.so)\n"
	"\t    7f0011223345 [unknown] ([unknown])\n"
	"\t    7f0011223346 Foo::bar(int, char const*) (/opt/app)\n"
	"\n"
	"demo 14262 [001]   542.100000:    6711409 cpu-clock: \n"
	"\t            11b2 hash_block+0x29 (/work/bin/demo)\n"
	"\t            1233 walk+0xd (/work/bin/demo)\n"
	"\t           891f5 start_thread+0x305 (/usr/lib/libc.so.6)\n"
	"\n";

static char *fold_script(const char *text, size_t piece, unsigned fflags,
			 const struct pda_script_opts *so,
			 struct pda_script_stats *stats)
{
	struct pda_fold *fd = new_fold(fflags);
	struct pda_script *ps;
	const size_t len = strlen(text);
	char *out;

	ck_assert_int_eq(pda_script_new(so, fd, &ps), 0);
	for (size_t i = 0; i < len; i += piece)
		ck_assert_int_eq(
			pda_script_feed(ps, text + i,
					len - i < piece ? len - i : piece),
			0);
	ck_assert_int_eq(pda_script_finish(ps), 0);
	if (stats) {
		static char event[64];
		const struct pda_script_stats *st = pda_script_stats(ps);

		*stats = *st;
		snprintf(event, sizeof(event), "%s",
			 st->event ? st->event : "");
		stats->event = event;
	}
	out = render(fd);
	pda_script_free(ps);
	pda_fold_free(fd);
	return out;
}

/* R2: an older caller's smaller struct, a newer caller's larger one. */
START_TEST(test_opts_sizes)
{
	union {
		struct pda_fold_opts o;
		unsigned char bytes[sizeof(struct pda_fold_opts) + 8];
	} u;
	struct pda_fold *fd;
	char *out;

	/* only sz is the caller's: the bytes after it are not options */
	memset(&u, 0xff, sizeof(u));
	u.o.sz = sizeof(size_t);
	ck_assert_int_eq(pda_fold_new(&u.o, &fd), 0);
	add(fd, "w", 1, 1, NULL, 0);
	out = render(fd);
	ck_assert_str_eq(out, "w 1\n");
	free(out);
	pda_fold_free(fd);
	/* a newer caller's unknown option set, then left unset */
	memset(&u, 0, sizeof(u));
	u.o.sz = sizeof(u);
	u.bytes[sizeof(u) - 1] = 1;
	ck_assert_int_eq(pda_fold_new(&u.o, &fd), PD_ERR_API);
	ck_assert_ptr_null(fd);
	u.bytes[sizeof(u) - 1] = 0;
	ck_assert_int_eq(pda_fold_new(&u.o, &fd), 0);
	pda_fold_free(fd);
	u.o.sz = sizeof(size_t) - 1;
	ck_assert_int_eq(pda_fold_new(&u.o, &fd), PD_ERR_API);
}
END_TEST

START_TEST(test_script_basic)
{
	static const size_t pieces[] = {1, 7, 4096};
	PDA_SCRIPT_OPTS(so);
	struct pda_script_stats st;
	char *out = fold_script(script1, pieces[_i], 0, &so, &st);

	ck_assert_str_eq(out, "V8_WorkerThread;Foo::bar;[unknown];[libfoo.so];"
			      "native_safe_halt 1\n"
			      "demo;start_thread;walk;hash_block 2\n");
	ck_assert_uint_eq(st.nr_samples, 3);
	ck_assert_uint_eq(st.nr_unrecognized, 0);
	ck_assert_uint_eq(st.nr_events, 1);
	ck_assert_str_eq(st.event, "cpu-clock");
	free(out);
}
END_TEST

START_TEST(test_script_roots)
{
	static const struct {
		unsigned flags;
		const char *want;
	} cases[] = {
		{PDA_SCRIPT_PID, "V8_WorkerThread-24636;Foo::bar;[unknown];"
				 "[libfoo.so];native_safe_halt 1\n"
				 "demo-?;start_thread;walk;hash_block 2\n"},
		{PDA_SCRIPT_TID, "V8_WorkerThread-24636/25607;Foo::bar;"
				 "[unknown];[libfoo.so];native_safe_halt 1\n"
				 "demo-?/14261;start_thread;walk;hash_block 1\n"
				 "demo-?/14262;start_thread;walk;hash_block "
				 "1\n"},
		{PDA_SCRIPT_NO_COMM | PDA_SCRIPT_KERNEL | PDA_SCRIPT_ADDRS,
		 "Foo::bar;[unknown <7f0011223345>];"
		 "[libfoo.so <7f0011223344>];native_safe_halt_[k] 1\n"
		 "start_thread;walk;hash_block 2\n"},
	};
	PDA_SCRIPT_OPTS(so, .flags = cases[_i].flags);
	char *out = fold_script(script1, 4096, 0, &so, NULL);

	ck_assert_str_eq(out, cases[_i].want);
	free(out);
}
END_TEST

static const char script_tidy[] =
	"java 10/11 1.000000: 1 cycles: \n"
	"\t1 Lorg/mozilla/javascript/MemberBox;.<init>(Ljava/lang/reflect/"
	"Method;)V (/tmp/perf-10.map)\n"
	"\t2 ns::(anonymous namespace)::run(int) (/opt/app)\n"
	"\t3 net/http.(*Client).Do (/opt/go)\n"
	"\t4 RegExp:[&<>\\\"\\'] (/tmp/perf-7539.map)\n"
	"\t5 outer->mid->inner (/opt/app)\n"
	"\t6 sq (inlined)\n"
	"\t7 (deleted) (/opt/app)\n"
	"\t8 f (/tmp/jitted-12-3.so)\n"
	"\t9 vfs_read ([xfs])\n"
	"\ta vdso_fn ([vdso])\n"
	"this line is not perf script\n"
	"\n";

START_TEST(test_script_tidy)
{
	PDA_SCRIPT_OPTS(so, .flags = PDA_SCRIPT_KERNEL | PDA_SCRIPT_JIT);
	struct pda_script_stats st;
	char *out = fold_script(script_tidy, 4096, 0, &so, &st);

	/* leaf first in the text, root first here; "outer->mid->inner" is
	 * root first already and the inlined ones are marked; the pl marks
	 * perf-PID.map frames only, not jitted-*.so ones ("f") */
	ck_assert_str_eq(out, "java;vdso_fn_[k];vfs_read_[k];f;sq;outer;"
			      "mid_[i];inner_[i];RegExp:[&<>\\\\]_[j];"
			      "net/http.(*Client).Do;"
			      "ns::(anonymous namespace)::run;"
			      "org/mozilla/javascript/MemberBox:.<init>_[j] "
			      "1\n");
	ck_assert_uint_eq(st.nr_unrecognized, 1);
	ck_assert_uint_eq(st.first_unrecognized, 12);
	free(out);
}
END_TEST

static const char script_events[] =
	"aa 1 1.000000000: 10 cycles: \n\t1 f (/x)\n\n"
	"aa 1 2.000000000: 20 instructions: \n\t1 g (/x)\n\n"
	"bb 2 3.500000000: 30 cycles: \n\t1 h (/x)\n\n"
	"bb 2 4.000000000: 40 cycles: \n\n";

START_TEST(test_script_events)
{
	static const uint32_t pids[] = {2};
	struct pda_script_stats st;
	char *out;

	{
		PDA_SCRIPT_OPTS(so);
		out = fold_script(script_events, 4096, 0, &so, &st);
		ck_assert_str_eq(out, "aa;f 1\nbb 1\nbb;h 1\n");
		ck_assert_uint_eq(st.nr_event_skipped, 1);
		ck_assert_uint_eq(st.nr_events, 2);
		free(out);
	}
	{
		PDA_SCRIPT_OPTS(so, .event = "instructions");
		out = fold_script(script_events, 4096, 0, &so, NULL);
		ck_assert_str_eq(out, "aa;g 1\n");
		free(out);
	}
	{
		PDA_SCRIPT_OPTS(so, .flags = PDA_SCRIPT_ALL_EVENTS |
					     PDA_SCRIPT_PERIOD);
		out = fold_script(script_events, 4096, 0, &so, NULL);
		ck_assert_str_eq(out, "aa;f 10\naa;g 20\nbb 40\nbb;h 30\n");
		free(out);
	}
	{
		PDA_SCRIPT_OPTS(
			so, .pids = pids, .nr_pids = 1, .has_time_start = true,
			.time_start = 3500000000ull, .has_time_end = true,
			.time_end = 3999999999ull);
		out = fold_script(script_events, 4096, 0, &so, &st);
		ck_assert_str_eq(out, "bb;h 1\n");
		ck_assert_uint_eq(st.nr_filtered, 2);
		free(out);
	}
}
END_TEST

/* A comm of one character does not match the pl's header pattern (it
 * wants two at least), so these tests use two. */

/* the blank line ends a sample; one cut off by the end is dropped, and a
 * header with no blank line before it takes over the frames read */
START_TEST(test_script_unterminated)
{
	PDA_SCRIPT_OPTS(so);
	char *out = fold_script("aa 1 1.0: c: \n\t1 f (/x)\n"
				"bb 2 2.0: c: \n\t1 g (/x)\n\n"
				"cc 3 3.0: c: \n\t1 h (/x)\n",
				4096, 0, &so, NULL);

	ck_assert_str_eq(out, "bb;g;f 1\n");
	free(out);
}
END_TEST

/* ---- allocation failure (T9) --------------------------------------- */

/* Fail each allocation in turn: a clean PD_ERR_NOMEM, a usable or
 * freeable aggregator, and nothing leaked. */
START_TEST(test_alloc_failures)
{
	bool completed = false;
	char hostile[300];

	/* a name to escape, past the escaper's small buffer */
	memset(hostile, 'x', sizeof(hostile) - 1);
	hostile[100] = '\n';
	hostile[sizeof(hostile) - 1] = '\0';
	for (long n = 0; !completed && n < 100000; n++) {
		struct failalloc fl = {.fail_at = (unsigned long)n + 1};
		const struct pd_alloc hooks = failalloc_hooks(&fl);
		PDA_FOLD_OPTS(o, .alloc = &hooks, .flags = PDA_FOLD_ADDRS);
		struct pda_fold *fd;
		char name[16];
		struct pda_frame f[2] = {F(NULL, libc, 0), F(hostile, libc, 0)};
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

START_TEST(test_script_alloc_failures)
{
	bool completed = false;

	for (long n = 0; !completed && n < 100000; n++) {
		struct failalloc fl = {.fail_at = (unsigned long)n + 1};
		const struct pd_alloc hooks = failalloc_hooks(&fl);
		PDA_FOLD_OPTS(o, .alloc = &hooks);
		PDA_SCRIPT_OPTS(so, .alloc = &hooks, .event = "cpu-clock");
		struct pda_fold *fd = NULL;
		struct pda_script *ps = NULL;
		int rc = pda_fold_new(&o, &fd);

		if (rc >= 0)
			rc = pda_script_new(&so, fd, &ps);
		for (size_t i = 0; rc >= 0 && i < sizeof(script1) - 1; i += 5)
			rc = pda_script_feed(ps, script1 + i,
					     sizeof(script1) - 1 - i < 5
						     ? sizeof(script1) - 1 - i
						     : 5);
		if (rc >= 0)
			rc = pda_script_finish(ps);
		if (rc >= 0)
			rc = pda_fold_finish(fd);
		if (rc >= 0) {
			completed = true;
			ck_assert_uint_eq(pda_fold_nr_lines(fd), 2);
		} else {
			ck_assert_int_eq(rc, PD_ERR_NOMEM);
		}
		pda_script_free(ps);
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
	tcase_add_test(tc, test_comm_changes);
	tcase_add_test(tc, test_kernel_addrs_srcline);
	tcase_add_test(tc, test_period);
	tcase_add_test(tc, test_max_stack);
	tcase_add_test(tc, test_default_max_stack);
	tcase_add_test(tc, test_filters);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_control_names);
	tcase_add_test(tc, test_merge_alike);
	tcase_add_test(tc, test_growth);
	tcase_add_loop_test(tc, test_merge, 0, 8);
	tcase_add_loop_test(tc, test_share, 0, 8);
	tcase_add_test(tc, test_share_api);
	tcase_add_test(tc, test_opts_sizes);
	tcase_add_test(tc, test_alloc_failures);
	tcase_add_test(tc, test_script_alloc_failures);
	suite_add_tcase(s, tc);
	tc = tcase_create("script");
	tcase_add_loop_test(tc, test_script_basic, 0, 3);
	tcase_add_loop_test(tc, test_script_roots, 0, 3);
	tcase_add_test(tc, test_script_tidy);
	tcase_add_test(tc, test_script_events);
	tcase_add_test(tc, test_script_unterminated);
	suite_add_tcase(s, tc);
	return s;
}
