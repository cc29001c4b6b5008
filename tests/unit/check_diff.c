/*
 * check_diff.c - `pdtool diff`'s library side: the statistics
 * (analyze/profile/pda_sigtest.c) against values computed independently by
 * tests/unit/data/diff_stats_gen.py, name normalisation
 * (pda_diff_names.c), the comparison of stacks (pda_diff.c: matching,
 * self and inclusive counts, scalings, verdicts, errors, allocation
 * failures) and the writers (emit/pde_diff.c, the differential mode of
 * emit/pde_flame.c).
 */
#include "pd_config.h" /* open_memstream */
#include "pda_diff.h"
#include "pda_sigtest_int.h"
#include "pda_flame.h"
#include "pda_fold.h"
#include "pda_session.h"
#include "pde.h"

#include "failalloc.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/diff_stats.inc"

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* |got - want| within an absolute or a relative tolerance */
static void ck_near(double got, double want, double abs_tol, double rel_tol)
{
	const double err = fabs(got - want);

	ck_assert_msg(err <= abs_tol || err <= rel_tol * fabs(want),
		      "got %.17g, want %.17g", got, want);
}

/* ---- statistics ---------------------------------------------------- */

START_TEST(test_betainc)
{
	ck_near(pda_sigtest_betainc(betainc_cases[_i].a, betainc_cases[_i].b,
				 betainc_cases[_i].x),
		betainc_cases[_i].want, 1e-14, 1e-12);
}
END_TEST

START_TEST(test_t_dist)
{
	const double t = t_cases[_i].t, df = t_cases[_i].df;

	ck_near(pda_sigtest_t_cdf(t, df), t_cases[_i].cdf, 1e-12, 1e-10);
	ck_near(pda_sigtest_t_p2(t, df), t_cases[_i].p2, 1e-12, 1e-9);
	/* and through the incomplete beta function itself */
	if (t != 0)
		ck_near(pda_sigtest_betainc(df / 2, 0.5, df / (df + t * t)),
			t_cases[_i].p2, 1e-12, 1e-9);
}
END_TEST

START_TEST(test_welch)
{
	struct pda_sigtest r;

	ck_assert_int_eq(pda_sigtest_welch(welch_cases[_i].a, welch_cases[_i].na,
					welch_cases[_i].b, welch_cases[_i].nb,
					&r),
			 0);
	ck_near(r.stat, welch_cases[_i].t, 1e-12, 1e-10);
	ck_near(r.df, welch_cases[_i].df, 1e-12, 1e-10);
	ck_near(r.p, welch_cases[_i].p, 1e-11, 1e-8);
}
END_TEST

START_TEST(test_sampling)
{
	struct pda_sigtest r;

	pda_sigtest_sampling(sampling_cases[_i].scale, sampling_cases[_i].xa,
			  sampling_cases[_i].da, sampling_cases[_i].xb,
			  sampling_cases[_i].db, &r);
	ck_near(r.stat, sampling_cases[_i].z, 1e-12, 1e-10);
	ck_near(r.p, sampling_cases[_i].p, 1e-14, 1e-9);
	ck_assert(isnan(r.df));
}
END_TEST

START_TEST(test_holm)
{
	double adj[HOLM_MAX], same[HOLM_MAX];
	size_t order[HOLM_MAX];
	const size_t n = holm_cases[_i].n;

	pda_sigtest_holm(holm_cases[_i].p, n, order, adj);
	memcpy(same, holm_cases[_i].p, sizeof(same));
	pda_sigtest_holm(same, n, order, same); /* in place */
	for (size_t k = 0; k < n; k++) {
		ck_near(adj[k], holm_cases[_i].adj[k], 1e-15, 1e-12);
		ck_near(same[k], holm_cases[_i].adj[k], 1e-15, 1e-12);
	}
}
END_TEST

START_TEST(test_stats_edges)
{
	const double one[1] = {1}, two[2] = {1, 1}, three[2] = {2, 2};
	struct pda_sigtest r;
	double p[2] = {NAN, 0.01}, adj[2];
	size_t order[2];

	ck_assert(isnan(pda_sigtest_betainc(0, 1, 0.5)));
	ck_assert(isnan(pda_sigtest_betainc(1, 1, 1.5)));
	ck_assert(isnan(pda_sigtest_betainc(NAN, 1, 0.5)));
	ck_assert(pda_sigtest_betainc(2, 3, 0) == 0);
	ck_assert(pda_sigtest_betainc(2, 3, 1) == 1);
	ck_assert(isnan(pda_sigtest_t_cdf(1, 0)));
	ck_assert(isnan(pda_sigtest_t_cdf(NAN, 3)));
	ck_assert(pda_sigtest_t_cdf(INFINITY, 3) == 1);
	ck_assert(pda_sigtest_t_cdf(-INFINITY, 3) == 0);
	/* infinite df: the normal distribution */
	ck_near(pda_sigtest_t_p2(1.959963984540054, INFINITY), 0.05, 1e-12, 0);
	ck_near(pda_sigtest_normal_p2(-1.959963984540054), 0.05, 1e-12, 0);
	/* a tiny t against a huge df keeps its precision */
	ck_near(pda_sigtest_t_p2(1e-6, 1e9), 1 - 7.978845608028654e-7, 1e-12, 0);
	ck_assert_int_eq(pda_sigtest_welch(one, 1, two, 2, &r), PD_ERR_API);
	ck_assert_int_eq(pda_sigtest_welch(two, 2, two, 2, &r), 0);
	ck_assert(r.stat == 0 && r.p == 1 && isnan(r.df));
	ck_assert_int_eq(pda_sigtest_welch(two, 2, three, 2, &r), 0);
	ck_assert(isinf(r.stat) && r.stat > 0 && r.p == 0);
	/* no samples: no variance, no evidence */
	pda_sigtest_sampling(PDA_DIFF_SCALE_TOTAL, 0, 10, 0, 10, &r);
	ck_assert(r.stat == 0 && r.p == 1);
	pda_sigtest_sampling(PDA_DIFF_SCALE_TOTAL, 10, 10, 10, 10, &r);
	ck_assert(r.stat == 0 && r.p == 1);
	/* a NaN (no test) counts as 1 */
	pda_sigtest_holm(p, 2, order, adj);
	ck_near(adj[0], 1, 0, 0);
	ck_near(adj[1], 0.02, 1e-15, 0);
	pda_sigtest_holm(p, 0, order, adj);
}
END_TEST

/* ---- names --------------------------------------------------------- */

static const struct {
	const char *in, *out;
} name_cases[] = {
	{"transform.constprop.0", "transform"},
	{"finish_task_switch.isra.0", "finish_task_switch"},
	{"foo.cold", "foo"},
	{"foo.cold.12", "foo"},
	{"foo.part.3", "foo"},
	{"foo.lto_priv.0", "foo"},
	{"foo.constprop.0.isra.0", "foo"},
	{"foo.isra.0.cold", "foo"},
	{"foo.part.0.constprop.2.cold", "foo"},
	{"ns::f() [clone .isra.0]", "ns::f()"},
	{"ns::f [clone .constprop.1] [clone .cold]", "ns::f"},
	{"core::fmt::write::h0123456789abcdef", "core::fmt::write"},
	{"a::b::h0123456789abcdef.cold", "a::b"},
	{"foo.isra.0_[k]", "foo_[k]"},
	{"bar.cold_[j]", "bar_[j]"},
	{"foo", "foo"},
	{"", ""},
	/* not suffixes: kept */
	{"foo.isra", "foo.isra"},
	{"foo.constprop", "foo.constprop"},
	{"foo.1", "foo.1"},
	{"foo.coldx", "foo.coldx"},
	{"x.isra.0a", "x.isra.0a"},
	{"a::b::h0123456789ABCDEF", "a::b::h0123456789ABCDEF"},
	{"a::b::h0123456789abcde", "a::b::h0123456789abcde"},
	{"f [clone .localalias]", "f [clone .localalias]"},
	{"[unknown]", "[unknown]"},
	{"_[k]", "_[k]"},
	/* nothing but suffixes: no name to keep */
	{".cold", ".cold"},
	{".isra.0.cold", ".isra.0.cold"},
	{"::h0123456789abcdef", "::h0123456789abcdef"},
};

START_TEST(test_normalize)
{
	const char *in = name_cases[_i].in;
	char out[64];
	size_t n;

	memset(out, '#', sizeof(out));
	n = pda_diff_normalize_name(in, strlen(in), out);
	ck_assert_uint_le(n, strlen(in));
	out[n] = '\0';
	ck_assert_str_eq(out, name_cases[_i].out);
	/* idempotent */
	ck_assert_uint_eq(pda_diff_normalize_name(out, n, out), n);
}
END_TEST

/* ---- the comparison ------------------------------------------------ */

/* A finished diff of folded lines, "A1 | A2 || B1 | B2": runs split by
 * a line "|", the sides by "||". */
static struct pda_diff *diff_of(const struct pda_diff_opts *base,
				const char *const *lines, size_t nr)
{
	struct pda_diff_opts o = *base;
	struct pda_diff *d;
	unsigned side = 0, run = 0;

	o.nr_runs[0] = o.nr_runs[1] = 1;
	for (size_t i = 0; i < nr; i++) {
		if (strcmp(lines[i], "||") == 0) {
			side = 1;
		} else if (strcmp(lines[i], "|") == 0) {
			o.nr_runs[side]++;
		}
	}
	ck_assert_int_eq(pda_diff_new(&o, &d), 0);
	side = 0;
	for (size_t i = 0; i < nr; i++) {
		if (strcmp(lines[i], "||") == 0) {
			side = 1;
			run = 0;
		} else if (strcmp(lines[i], "|") == 0) {
			run++;
		} else {
			ck_assert_int_eq(pda_diff_add_folded(d, side, run,
							     lines[i],
							     strlen(lines[i])),
					 0);
		}
	}
	ck_assert_int_eq(pda_diff_finish(d), 0);
	return d;
}

static const struct pda_diff_row *row_of(const struct pda_diff *d,
					 enum pda_diff_table t,
					 const char *name)
{
	size_t nr;
	const struct pda_diff_row *rows = pda_diff_rows(d, t, &nr);

	for (size_t i = 0; i < nr; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

static char *folded_of(struct pda_diff *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	pda_diff_sort_stacks(d);
	ck_assert_int_eq(pde_diff_folded(fp, d), 0);
	fclose(fp);
	return buf;
}

/* Two builds: a clone's name lines up with its original, B's counts
 * stay, A's are scaled to B's total. */
START_TEST(test_builds)
{
	static const char *const lines[] = {
		"prog;main;work 30\n", "prog;main;parse 60\n",
		"prog;main;work;leaf.cold 10\n", "||",
		"prog;main;work.constprop.0 80\n", "prog;main;parse 60\n",
		"prog;main;work.constprop.0;leaf 20\n",
	};
	PDA_DIFF_OPTS(o, .root_is_comm = true);
	struct pda_diff *d = diff_of(&o, lines, NR(lines));
	const struct pda_diff_summary *s = pda_diff_summary(d);
	const struct pda_diff_row *r;
	size_t nr;
	char *f;

	ck_assert_uint_eq(s->weight[0], 100);
	ck_assert_uint_eq(s->weight[1], 160);
	ck_assert_uint_eq(s->nr_stacks, 3);
	ck_assert_uint_eq(s->nr_renamed, 2);
	ck_near(s->factor, 1.6, 1e-15, 0);
	ck_assert(s->unit == 100);
	ck_assert(!s->runs_tested);
	/* self: work 30% -> 50%, parse 60% -> 37.5%, leaf 10% -> 12.5% */
	r = pda_diff_rows(d, PDA_DIFF_SELF, &nr);
	ck_assert_uint_eq(nr, 3);
	ck_assert_str_eq(r[0].name, "parse"); /* -22.5, the largest */
	ck_assert_str_eq(r[1].name, "work");
	ck_assert_str_eq(r[2].name, "leaf");
	ck_near(r[1].value[0], 30, 1e-12, 0);
	ck_near(r[1].value[1], 50, 1e-12, 0);
	ck_near(r[1].delta, 20, 1e-12, 0);
	ck_assert_uint_eq(r[1].count[0], 30);
	ck_assert_uint_eq(r[1].count[1], 80);
	ck_assert(isnan(r[1].p_runs) && isnan(r[1].t));
	/* inclusive: work holds leaf; main is everything; no comm row */
	r = row_of(d, PDA_DIFF_INCL, "work");
	ck_assert_ptr_nonnull(r);
	ck_near(r->value[0], 40, 1e-12, 0);
	ck_near(r->value[1], 62.5, 1e-12, 0);
	r = row_of(d, PDA_DIFF_INCL, "main");
	ck_near(r->delta, 0, 1e-12, 0);
	ck_assert_ptr_null(row_of(d, PDA_DIFF_INCL, "prog"));
	/* no DSO tables without opts.dsos */
	ck_assert_ptr_null(pda_diff_rows(d, PDA_DIFF_DSO_SELF, &nr));
	ck_assert_uint_eq(nr, 0);
	/* difffolded.pl's format, A times 1.6 rounded */
	f = folded_of(d);
	ck_assert_str_eq(f, "prog;main;parse 96 60\n"
			    "prog;main;work 48 80\n"
			    "prog;main;work;leaf 16 20\n");
	free(f);
	pda_diff_free(d);
}
END_TEST

/* Names exactly as they are: the clone is another function. */
START_TEST(test_no_normalize)
{
	static const char *const lines[] = {"p;work 10\n", "||",
					    "p;work.isra.0 10\n"};
	PDA_DIFF_OPTS(o, .root_is_comm = true, .no_normalize = true);
	struct pda_diff *d = diff_of(&o, lines, NR(lines));
	size_t nr;

	pda_diff_rows(d, PDA_DIFF_SELF, &nr);
	ck_assert_uint_eq(nr, 2);
	ck_near(row_of(d, PDA_DIFF_SELF, "work")->value[1], 0, 0, 0);
	ck_near(row_of(d, PDA_DIFF_SELF, "work.isra.0")->value[0], 0, 0, 0);
	ck_assert_uint_eq(pda_diff_summary(d)->nr_renamed, 0);
	ck_assert_uint_eq(pda_diff_nr_stacks(d), 2);
	pda_diff_free(d);
}
END_TEST

/* A recursive function counts once a stack in its inclusive count; the
 * first frame is a symbol without root_is_comm. */
START_TEST(test_inclusive)
{
	static const char *const lines[] = {
		"f;g;f;g 4\n", "f;h 6\n", "||", "f;g;f 5\n", "f 5\n",
	};
	PDA_DIFF_OPTS(o, .root_is_comm = false);
	struct pda_diff *d = diff_of(&o, lines, NR(lines));

	ck_near(row_of(d, PDA_DIFF_INCL, "f")->value[0], 100, 1e-12, 0);
	ck_near(row_of(d, PDA_DIFF_INCL, "g")->value[0], 40, 1e-12, 0);
	ck_near(row_of(d, PDA_DIFF_INCL, "g")->value[1], 50, 1e-12, 0);
	ck_near(row_of(d, PDA_DIFF_SELF, "f")->value[1], 100, 1e-12, 0);
	ck_near(row_of(d, PDA_DIFF_SELF, "g")->value[0], 40, 1e-12, 0);
	ck_assert_ptr_null(row_of(d, PDA_DIFF_SELF, "x"));
	pda_diff_free(d);
}
END_TEST

/* --scale none: means per run; --scale SYMBOL: per sample of it. */
START_TEST(test_scales)
{
	static const char *const lines[] = {
		"p;unit 100\n", "p;work 150\n", "|", "p;unit 100\n",
		"p;work 150\n", "||", "p;unit.cold 50\n", "p;work 150\n",
	};
	PDA_DIFF_OPTS(none, .scale = PDA_DIFF_SCALE_NONE,
		      .root_is_comm = true);
	PDA_DIFF_OPTS(sym, .scale = PDA_DIFF_SCALE_SYMBOL,
		      .scale_symbol = "unit.constprop.0",
		      .root_is_comm = true);
	struct pda_diff *d = diff_of(&none, lines, NR(lines));
	const struct pda_diff_row *r;
	char *f;

	ck_assert(pda_diff_summary(d)->unit == 1);
	ck_near(pda_diff_summary(d)->factor, 0.5, 1e-15, 0);
	r = row_of(d, PDA_DIFF_SELF, "work");
	ck_near(r->value[0], 150, 1e-12, 0); /* 300 in 2 runs */
	ck_near(r->value[1], 150, 1e-12, 0);
	ck_assert_uint_eq(r->count[0], 300);
	r = row_of(d, PDA_DIFF_SELF, "unit");
	ck_near(r->delta, -50, 1e-12, 0);
	f = folded_of(d);
	ck_assert_str_eq(f, "p;unit 100 50\np;work 150 150\n");
	free(f);
	pda_diff_free(d);

	/* per unit: unit's own value is 100%; work 150% -> 300% */
	d = diff_of(&sym, lines, NR(lines));
	ck_assert_str_eq(pda_diff_summary(d)->scale_symbol, "unit");
	ck_near(pda_diff_summary(d)->factor, 0.25, 1e-15, 0);
	r = row_of(d, PDA_DIFF_SELF, "work");
	ck_near(r->value[0], 150, 1e-12, 0);
	ck_near(r->value[1], 300, 1e-12, 0);
	ck_assert(r->verdict == PDA_DIFF_SAMPLING);
	ck_near(row_of(d, PDA_DIFF_SELF, "unit")->delta, 0, 1e-12, 0);
	pda_diff_free(d);
}
END_TEST

/* Verdicts: one run a side, only sampling noise is tested; several,
 * the spread between runs too. */
START_TEST(test_verdicts)
{
	/* "hot" doubles in every run; "noisy" moves as much on average,
	 * but its runs scatter */
	static const char *const multi[] = {
		"p;hot 200\n", "p;noisy 300\n", "p;rest 500\n", "|",
		"p;hot 205\n", "p;noisy 150\n", "p;rest 645\n", "|",
		"p;hot 195\n", "p;noisy 450\n", "p;rest 355\n", "||",
		"p;hot 400\n", "p;noisy 450\n", "p;rest 150\n", "|",
		"p;hot 410\n", "p;noisy 100\n", "p;rest 490\n", "|",
		"p;hot 390\n", "p;noisy 600\n", "p;rest 10\n",
	};
	static const char *const single[] = {
		"p;hot 200\n", "p;rest 800\n", "p;tiny 10\n", "||",
		"p;hot 400\n", "p;rest 600\n", "p;tiny 12\n",
	};
	PDA_DIFF_OPTS(o, .root_is_comm = true);
	struct pda_diff *d = diff_of(&o, multi, NR(multi));
	const struct pda_diff_row *r;

	ck_assert(pda_diff_summary(d)->runs_tested);
	r = row_of(d, PDA_DIFF_SELF, "hot");
	ck_assert_int_eq(r->verdict, PDA_DIFF_REAL);
	ck_assert(r->p_runs < 0.05 && r->t > 0 && r->df > 1);
	r = row_of(d, PDA_DIFF_SELF, "noisy");
	ck_assert_int_eq(r->verdict, PDA_DIFF_SAMPLING);
	ck_assert(r->p_sampling < 0.05 && r->p_runs >= 0.05);
	pda_diff_free(d);

	d = diff_of(&o, single, NR(single));
	r = row_of(d, PDA_DIFF_SELF, "hot");
	ck_assert_int_eq(r->verdict, PDA_DIFF_SAMPLING);
	ck_assert(isnan(r->p_runs));
	r = row_of(d, PDA_DIFF_SELF, "tiny");
	ck_assert_int_eq(r->verdict, PDA_DIFF_NOISE);
	ck_assert(r->p_sampling >= 0.05);
	pda_diff_free(d);
}
END_TEST

START_TEST(test_errors)
{
	PDA_DIFF_OPTS(o, .nr_runs = {1, 2});
	PDA_DIFF_OPTS(bad, .nr_runs = {0, 1});
	PDA_DIFF_OPTS(nosym, .nr_runs = {1, 1},
		      .scale = PDA_DIFF_SCALE_SYMBOL);
	PDA_DIFF_OPTS(sym, .nr_runs = {1, 1}, .scale = PDA_DIFF_SCALE_SYMBOL,
		      .scale_symbol = "unit");
	char err[128] = "";
	struct pda_diff *d;
	struct pda_flame *fl;
	const char *frames[1] = {"x"};
	size_t lens[1] = {1}, nr;

	bad.errbuf = err;
	bad.errbuf_size = sizeof(err);
	ck_assert_int_eq(pda_diff_new(&bad, &d), PD_ERR_API);
	ck_assert_ptr_null(d);
	ck_assert_str_eq(err, "each side needs 1 to 1024 runs");
	ck_assert_int_eq(pda_diff_new(&nosym, &d), PD_ERR_API);
	o.alpha = 1.5;
	ck_assert_int_eq(pda_diff_new(&o, &d), PD_ERR_API);
	o.alpha = 0;
	ck_assert_int_eq(pda_diff_new(&o, &d), 0);
	ck_assert_int_eq(pda_diff_add(d, PDA_DIFF_A, 1, frames, lens, 1, 1),
			 PD_ERR_API);
	ck_assert_int_eq(pda_diff_add(d, 2, 0, frames, lens, 1, 1),
			 PD_ERR_API);
	ck_assert_int_eq(pda_diff_add_dsos(d, PDA_DIFF_A, 0, NULL, 1),
			 PD_ERR_API); /* no opts.dsos */
	ck_assert_int_eq(pda_diff_add_folded(d, PDA_DIFF_A, 0, "x 1.5", 5),
			 1);
	ck_assert_int_eq(pda_diff_add_folded(d, PDA_DIFF_A, 0, "x", 1), 1);
	ck_assert_int_eq(pda_diff_add_folded(d, PDA_DIFF_A, 0, "  \n", 3), 1);
	ck_assert_int_eq(pda_diff_add_folded(d, PDA_DIFF_A, 0,
					     "x 99999999999999999999", 22),
			 1);
	ck_assert_int_eq(pda_diff_add(d, PDA_DIFF_A, 0, frames, lens, 1,
				      UINT64_MAX),
			 0);
	ck_assert_int_eq(pda_diff_add(d, PDA_DIFF_A, 0, frames, lens, 1, 1),
			 PD_ERR_FORMAT);
	ck_assert_int_eq(pda_diff_add(d, PDA_DIFF_B, 0, frames, lens, 1, 1),
			 0);
	ck_assert_int_eq(pda_diff_flame(d, false, &fl), PD_ERR_API);
	/* B's second run has no samples */
	ck_assert_int_eq(pda_diff_finish(d), PD_ERR_NOTFOUND);
	ck_assert_str_eq(pda_diff_errmsg(d), "input 2 of B has no samples");
	ck_assert_int_eq(pda_diff_summary(d)->bad_side, PDA_DIFF_B);
	ck_assert_uint_eq(pda_diff_summary(d)->bad_run, 1);
	ck_assert_int_eq(pda_diff_finish(d), PD_ERR_API);
	ck_assert_ptr_null(pda_diff_rows(d, PDA_DIFF_SELF, &nr));
	pda_diff_free(d);

	ck_assert_int_eq(pda_diff_new(&sym, &d), 0);
	ck_assert_int_eq(pda_diff_add_folded(d, PDA_DIFF_A, 0, "p;unit 3", 8),
			 0);
	ck_assert_int_eq(pda_diff_add_folded(d, PDA_DIFF_B, 0, "p;other 3",
					     9),
			 0);
	ck_assert_int_eq(pda_diff_finish(d), PD_ERR_NOTFOUND);
	ck_assert_str_eq(pda_diff_errmsg(d),
			 "input 1 of B has no samples of 'unit'");
	pda_diff_free(d);
	pda_diff_free(NULL);
}
END_TEST

/* DSOs by file name, self from the leaf, inclusive once a sample. */
START_TEST(test_dsos)
{
	static const char a_bin[] = "/build-a/prog", b_bin[] = "/build-b/prog";
	static const char libc[] = "/lib/libc.so.6";
	struct pda_frame fa[3] = {{.dso = libc}, {.dso = a_bin},
				  {.dso = a_bin}};
	struct pda_frame fb[2] = {{.dso = b_bin}, {.dso = NULL}};
	struct pda_stack sa = {fa, 3, 3}, sb = {fb, 2, 2};
	PDA_DIFF_OPTS(o, .nr_runs = {1, 1}, .dsos = true);
	const char *frames[1] = {"f"};
	size_t lens[1] = {1};
	struct pda_diff *d;
	const struct pda_diff_row *r;

	ck_assert_int_eq(pda_diff_new(&o, &d), 0);
	ck_assert_int_eq(pda_diff_add_dsos(d, PDA_DIFF_A, 0, &sa, 3), 0);
	ck_assert_int_eq(pda_diff_add(d, PDA_DIFF_A, 0, frames, lens, 1, 3),
			 0);
	ck_assert_int_eq(pda_diff_add_dsos(d, PDA_DIFF_B, 0, &sb, 2), 0);
	ck_assert_int_eq(pda_diff_add_dsos(d, PDA_DIFF_B, 0, NULL, 2), 0);
	ck_assert_int_eq(pda_diff_add(d, PDA_DIFF_B, 0, frames, lens, 1, 4),
			 0);
	ck_assert_int_eq(pda_diff_finish(d), 0);
	r = row_of(d, PDA_DIFF_DSO_SELF, "prog");
	ck_assert_uint_eq(r->count[0], 0);
	ck_assert_uint_eq(r->count[1], 2);
	r = row_of(d, PDA_DIFF_DSO_INCL, "prog");
	ck_assert_uint_eq(r->count[0], 3); /* twice in the stack: once */
	ck_near(r->value[1], 50, 1e-12, 0);
	ck_assert_uint_eq(row_of(d, PDA_DIFF_DSO_SELF, "libc.so.6")->count[0],
			  3);
	ck_assert_uint_eq(row_of(d, PDA_DIFF_DSO_INCL, "[unknown]")->count[1],
			  2);
	pda_diff_free(d);
}
END_TEST

/* A run added in weights (latencies): brought to its samples, stacks and
 * DSOs alike, each to the nearest whole count; a stack under half a
 * sample counts 0 and the run's total is what the stacks count. */
START_TEST(test_scale_run)
{
	static const char libc[] = "/lib/libc.so.6";
	struct pda_frame fr[1] = {{.dso = libc}};
	struct pda_stack st = {fr, 1, 1};
	PDA_DIFF_OPTS(o, .nr_runs = {1, 1}, .dsos = true,
		      .scale = PDA_DIFF_SCALE_NONE);
	const char *f[1] = {"f"}, *g[1] = {"g"}, *h[1] = {"h"};
	size_t lens[1] = {1};
	struct pda_diff *d;
	const struct pda_diff_row *r;

	ck_assert_int_eq(pda_diff_new(&o, &d), 0);
	/* weights 7000, 2500 and 200 brought to 10 samples: 7.2, 2.6, 0.2 */
	ck_assert_int_eq(pda_diff_add(d, PDA_DIFF_A, 0, f, lens, 1, 7000), 0);
	ck_assert_int_eq(pda_diff_add_dsos(d, PDA_DIFF_A, 0, &st, 7000), 0);
	ck_assert_int_eq(pda_diff_add(d, PDA_DIFF_A, 0, g, lens, 1, 2500), 0);
	ck_assert_int_eq(pda_diff_add(d, PDA_DIFF_A, 0, h, lens, 1, 200), 0);
	ck_assert_int_eq(pda_diff_scale_run(d, PDA_DIFF_A, 0, 10), 0);
	ck_assert_int_eq(pda_diff_add(d, PDA_DIFF_B, 0, f, lens, 1, 4), 0);
	ck_assert_int_eq(pda_diff_scale_run(d, PDA_DIFF_B, 2, 4), PD_ERR_API);
	ck_assert_int_eq(pda_diff_finish(d), 0);
	ck_assert_int_eq(pda_diff_scale_run(d, PDA_DIFF_A, 0, 10), PD_ERR_API);
	ck_assert_uint_eq(pda_diff_summary(d)->weight[0], 10); /* 7 + 3 + 0 */
	ck_assert_uint_eq(row_of(d, PDA_DIFF_SELF, "f")->count[0], 7);
	ck_assert_uint_eq(row_of(d, PDA_DIFF_SELF, "g")->count[0], 3);
	r = row_of(d, PDA_DIFF_SELF, "h");
	ck_assert(!r || r->count[0] == 0);
	ck_assert_uint_eq(row_of(d, PDA_DIFF_DSO_SELF, "libc.so.6")->count[0],
			  7);
	pda_diff_free(d);
}
END_TEST

/* A fold's lines, added at once, count as the same lines one by one. */
START_TEST(test_add_fold)
{
	static const char *const names[][3] = {
		{"prog", "main", "work.isra.0"}, {"prog", "main", "work"},
		{"prog", "parse", NULL},
	};
	PDA_FOLD_OPTS(fo, .flags = 0);
	PDA_DIFF_OPTS(o, .nr_runs = {1, 1}, .root_is_comm = true,
		      .scale = PDA_DIFF_SCALE_NONE);
	struct pda_fold *fd;
	struct pda_diff *d;
	char *f;

	ck_assert_int_eq(pda_fold_new(&fo, &fd), 0);
	for (size_t i = 0; i < NR(names); i++) {
		/* pda_fold_names wants frames leaf first, no root */
		const char *leaf_first[2];
		const size_t nr = names[i][2] ? 2 : 1;
		struct pda_fold_names n = {.root = names[i][0],
					   .names = leaf_first, .nr = nr,
					   .weight = 10 * (i + 1)};

		leaf_first[0] = names[i][nr];
		leaf_first[1] = names[i][1];
		ck_assert_int_eq(pda_fold_add_names(fd, &n), 1);
	}
	ck_assert_int_eq(pda_fold_finish(fd), 0);
	ck_assert_int_eq(pda_diff_new(&o, &d), 0);
	ck_assert_int_eq(pda_diff_add_fold(d, PDA_DIFF_A, 0, fd), 0);
	ck_assert_int_eq(pda_diff_add_folded(d, PDA_DIFF_B, 0,
					     "prog;main;work 30", 17),
			 0);
	ck_assert_int_eq(pda_diff_add_fold(d, PDA_DIFF_B, 1, fd), PD_ERR_API);
	ck_assert_int_eq(pda_diff_finish(d), 0);
	f = folded_of(d);
	/* work.isra.0 (10) and work (20) are one stack */
	ck_assert_str_eq(f, "prog;main;work 30 30\nprog;parse 30 0\n");
	free(f);
	pda_diff_free(d);
	pda_fold_free(fd);
}
END_TEST

/* The stacks' order is their lines' bytewise order. */
START_TEST(test_stack_order)
{
	static const char *const lines[] = {
		"a;b 1\n", "a 1\n", "ab 1\n", "a;b;c 1\n", "a:b 1\n", "||",
		"a;c 1\n", " 4\n", "a;B 1\n",
	};
	PDA_DIFF_OPTS(o, .root_is_comm = false);
	struct pda_diff *d = diff_of(&o, lines, NR(lines));
	char *f = folded_of(d);

	/* "" < "a" < "a:b" < "a;B" < "a;b" < "a;b;c" < "a;c" < "ab" */
	ck_assert_str_eq(f, " 0 4\na 1 0\na:b 1 0\na;B 0 1\na;b 1 0\n"
			    "a;b;c 1 0\na;c 0 1\nab 1 0\n");
	free(f);
	pda_diff_free(d);
}
END_TEST

/* ---- the flame graph ----------------------------------------------- */

START_TEST(test_flame)
{
	/* main's callees grew: main itself is grown; gone is only in A */
	static const char *const lines[] = {
		"p;main;a 10\n", "p;other 70\n", "p;gone 20\n", "||",
		"p;main;a 20\n", "p;main;b 20\n", "p;other 60\n",
	};
	PDA_DIFF_OPTS(o, .root_is_comm = true);
	struct pda_diff *d = diff_of(&o, lines, NR(lines));
	const struct pda_diff_summary *s = pda_diff_summary(d);
	struct pde_flame_diff df = {{s->denom[0], s->denom[1]}, s->unit, NULL,
				    false};
	const struct pda_flame_node *n;
	struct pda_flame *fl;
	unsigned char rgb[3];
	size_t nr;

	ck_assert_int_eq(pda_diff_flame(d, false, &fl), 0);
	n = pda_flame_nodes(fl, &nr);
	/* all, p, main, a, b, other: B's shape */
	ck_assert_uint_eq(nr, 6);
	ck_assert_str_eq(n[2].name, "main");
	ck_assert_uint_eq(n[0].total, 100);
	ck_assert_uint_eq(n[0].other, 100);
	ck_assert_uint_eq(n[2].total, 40);
	ck_assert_uint_eq(n[2].other, 10);
	ck_near(pde_flame_diff_change(&df, &n[2]), 30, 1e-12, 0);
	ck_near(pde_flame_diff_change(&df, &n[5]), -10, 1e-12, 0);
	pde_flame_diff_color(pde_flame_diff_change(&df, &n[2]), 30, rgb);
	ck_assert(rgb[0] == 220 && rgb[1] == 30 && rgb[2] == 30);
	pde_flame_diff_color(-15, 30, rgb);
	ck_assert(rgb[2] > rgb[0] && rgb[0] > 30);
	pde_flame_diff_color(0, 30, rgb);
	ck_assert(rgb[0] == 250 && rgb[1] == 250 && rgb[2] == 250);
	pde_flame_diff_color(NAN, 0, rgb);
	ck_assert(rgb[0] == 250);
	pda_flame_free(fl);

	/* negated: A's shape, gone is there, b is not */
	df.negate = true;
	ck_assert_int_eq(pda_diff_flame(d, true, &fl), 0);
	n = pda_flame_nodes(fl, &nr);
	ck_assert_uint_eq(nr, 6); /* all, p, gone, main, a, other */
	ck_assert_str_eq(n[2].name, "gone");
	ck_assert_uint_eq(n[2].total, 20);
	ck_assert_uint_eq(n[2].other, 0);
	ck_near(pde_flame_diff_change(&df, &n[2]), -20, 1e-12, 0);
	ck_near(pde_flame_diff_change(&df, &n[3]), 30, 1e-12, 0);
	pda_flame_free(fl);
	pda_diff_free(d);
}
END_TEST

static char *text_of(void (*write)(FILE *, const struct pda_diff *,
				   const void *),
		     const struct pda_diff *d, const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	write(fp, d, arg);
	fclose(fp);
	return buf;
}

static void write_svg(FILE *fp, const struct pda_diff *d, const void *arg)
{
	const struct pda_diff_summary *s = pda_diff_summary(d);
	const struct pde_flame_diff df = {{s->denom[0], s->denom[1]},
					  s->unit, arg, false};
	struct pde_flame_opts fo = {.diff = &df};
	const struct pda_flame_node *n;
	struct pda_flame *fl;
	size_t nr;

	ck_assert_int_eq(pda_diff_flame(d, false, &fl), 0);
	n = pda_flame_nodes(fl, &nr);
	ck_assert_int_eq(pde_flame_svg(fp, n, nr, &fo, NULL), 0);
	pda_flame_free(fl);
}

START_TEST(test_svg)
{
	static const char *const lines[] = {"p;a 10\n", "p;b 30\n", "||",
					    "p;a 40\n", "p;b 40\n"};
	PDA_DIFF_OPTS(o, .root_is_comm = true);
	struct pda_diff *d = diff_of(&o, lines, NR(lines));
	char *svg = text_of(write_svg, d, NULL);

	ck_assert_ptr_nonnull(strstr(svg, ">Differential Flame Graph<"));
	/* a: 25% -> 50%, the largest change: full red */
	ck_assert_ptr_nonnull(
		strstr(svg, "<title>a (A 10, B 40 samples; 25.00% -&gt; "
			    "50.00%, +25.00 points)</title><rect x=\"10.00\""));
	ck_assert_ptr_nonnull(strstr(svg, "width=\"590.00\" height=\"15\" "
					  "fill=\"rgb(220,30,30)\""));
	ck_assert_ptr_nonnull(
		strstr(svg, "<title>b (A 30, B 40 samples; 75.00% -&gt; "
			    "50.00%, -25.00 points)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "fill=\"rgb(30,80,220)\""));
	free(svg);
	svg = text_of(write_svg, d, "a");
	ck_assert_ptr_nonnull(strstr(svg, "-&gt; 50.00% of a, +25.00"));
	free(svg);
	pda_diff_free(d);
}
END_TEST

static void write_report(FILE *fp, const struct pda_diff *d, const void *arg)
{
	ck_assert_int_eq(pde_diff_report(fp, d, arg), 0);
}

START_TEST(test_report)
{
	static const char *const lines[] = {"p;a 100\n", "p;b 300\n", "||",
					    "p;a 400\n", "p;b 400\n"};
	static const char *const pa[] = {"a.folded"}, *const pb[] = {"b.folded"};
	PDA_DIFF_OPTS(o, .root_is_comm = true);
	struct pda_diff *d = diff_of(&o, lines, NR(lines));
	struct pde_diff_opts ro = {.paths = {pa, pb}};
	char *t = text_of(write_report, d, &ro);

	ck_assert_ptr_nonnull(strstr(
		t, "A (before): 1 input, 400 samples: a.folded\n"
		   "B (after): 1 input, 800 samples: b.folded\n"));
	ck_assert_ptr_nonnull(strstr(t, "Run-to-run variation is NOT "
					"covered: with one input per side"));
	ck_assert_ptr_nonnull(strstr(t, "two-proportion z-test"));
	ck_assert_ptr_nonnull(
		strstr(t, "Self, per symbol: 2 symbols, 2 beyond sampling "
			  "noise\n"));
	ck_assert_ptr_nonnull(strstr(t, "   25.00%    50.00%    +25.00"));
	ck_assert_ptr_nonnull(strstr(t, "sampling-only  a\n"));
	ck_assert_ptr_null(strstr(t, "significant "));
	free(t);
	/* filters and Markdown */
	ro.format = PDE_DIFF_MARKDOWN;
	ro.top = 1;
	t = text_of(write_report, d, &ro);
	ck_assert_ptr_nonnull(strstr(t, "- A (before): 1 input, 400 "
					"samples: `a.folded`\n"));
	ck_assert_ptr_nonnull(strstr(t, "| 25.00% | 50.00% | +25.00 | "));
	ck_assert_ptr_null(strstr(t, "| b |"));
	free(t);
	ro.min_delta = 30;
	t = text_of(write_report, d, &ro);
	ck_assert_ptr_nonnull(strstr(t, "(no change passes the filters)"));
	free(t);
	pda_diff_free(d);
}
END_TEST

/* Names from a capture show as text in the Markdown report: no HTML, no
 * extra table cells, the inputs' paths in code spans. */
START_TEST(test_report_markdown_names)
{
	static const char *const lines[] = {
		"p;std::vector<int>::at 100\n", "p;<img src=x onerror=f()> 300\n",
		"p;a|b 50\n", "||", "p;std::vector<int>::at 400\n",
		"p;<img src=x onerror=f()> 100\n", "p;a|b 50\n"};
	static const char *const pa[] = {"a`|.folded"},
				 *const pb[] = {"<b>.folded"};
	static const char *const want[] = {
		" | std::vector\\<int\\>::at |\n",
		" | \\<img src=x onerror=f()\\> |\n",
		" | a\\|b |\n",
		": ``a`|.folded``\n",
		": `<b>.folded`\n",
	};
	PDA_DIFF_OPTS(o, .root_is_comm = true);
	struct pda_diff *d = diff_of(&o, lines, NR(lines));
	struct pde_diff_opts ro = {.format = PDE_DIFF_MARKDOWN,
				   .paths = {pa, pb}};
	char *t = text_of(write_report, d, &ro);

	for (size_t i = 0; i < NR(want); i++)
		ck_assert_msg(strstr(t, want[i]), "no '%s' in:\n%s", want[i], t);
	/* no raw tag anywhere */
	ck_assert_ptr_null(strstr(t, " <img"));
	ck_assert_ptr_null(strstr(t, "<int>"));
	free(t);
	pda_diff_free(d);
}
END_TEST

/* ---- allocation failures ------------------------------------------- */

/* Fail the Nth allocation for every N until a whole run succeeds: each
 * failure is PD_ERR_NOMEM, the diff stays freeable, nothing leaks. */
START_TEST(test_nomem)
{
	static const char *const lines[] = {
		"p;main;work.isra.0 30", "p;main;parse 60", "p;x;y;z 3",
	};
	static const char b_bin[] = "/b/prog";
	struct pda_frame fr[2] = {{.dso = b_bin}, {.dso = NULL}};
	struct pda_stack st = {fr, 2, 2};
	bool done = false;

	for (int n = 0; !done && n < 10000; n++) {
		struct failalloc f = {.fail_at = (unsigned long)n + 1,
				      .persistent = true};
		const struct pd_alloc a = failalloc_hooks(&f);
		PDA_DIFF_OPTS(o, .nr_runs = {1, 2}, .alloc = &a,
			      .scale = PDA_DIFF_SCALE_SYMBOL,
			      .scale_symbol = "main", .dsos = true,
			      .root_is_comm = true);
		struct pda_diff *d;
		struct pda_flame *fl = NULL;
		int rc = pda_diff_new(&o, &d);

		for (unsigned g = 0; rc == 0 && g < 3; g++) {
			for (size_t i = 0; rc == 0 && i < NR(lines); i++)
				rc = pda_diff_add_folded(
					d, g ? PDA_DIFF_B : PDA_DIFF_A,
					g ? g - 1 : 0, lines[i],
					strlen(lines[i]));
			if (rc == 0)
				rc = pda_diff_add_dsos(
					d, g ? PDA_DIFF_B : PDA_DIFF_A,
					g ? g - 1 : 0, &st, 1);
		}
		if (rc == 0)
			rc = pda_diff_finish(d);
		if (rc == 0)
			rc = pda_diff_flame(d, false, &fl);
		if (rc == 0) {
			ck_assert_uint_eq(pda_diff_nr_stacks(d), 3);
			ck_assert(row_of(d, PDA_DIFF_SELF, "work")->verdict ==
				  PDA_DIFF_NOISE);
			done = true;
		} else {
			ck_assert_int_eq(rc, PD_ERR_NOMEM);
		}
		pda_flame_free(fl);
		pda_diff_free(d);
		ck_assert_int_eq(f.live, 0);
	}
	ck_assert(done);
}
END_TEST

Suite *diff_suite(void)
{
	Suite *s = suite_create("diff");
	TCase *ts = tcase_create("stats");
	TCase *tn = tcase_create("names");
	TCase *td = tcase_create("diff");

	tcase_add_loop_test(ts, test_betainc, 0, NR(betainc_cases));
	tcase_add_loop_test(ts, test_t_dist, 0, NR(t_cases));
	tcase_add_loop_test(ts, test_welch, 0, NR(welch_cases));
	tcase_add_loop_test(ts, test_sampling, 0, NR(sampling_cases));
	tcase_add_loop_test(ts, test_holm, 0, NR(holm_cases));
	tcase_add_test(ts, test_stats_edges);
	suite_add_tcase(s, ts);
	tcase_add_loop_test(tn, test_normalize, 0, NR(name_cases));
	suite_add_tcase(s, tn);
	tcase_add_test(td, test_builds);
	tcase_add_test(td, test_no_normalize);
	tcase_add_test(td, test_inclusive);
	tcase_add_test(td, test_scales);
	tcase_add_test(td, test_verdicts);
	tcase_add_test(td, test_errors);
	tcase_add_test(td, test_dsos);
	tcase_add_test(td, test_scale_run);
	tcase_add_test(td, test_add_fold);
	tcase_add_test(td, test_stack_order);
	tcase_add_test(td, test_flame);
	tcase_add_test(td, test_svg);
	tcase_add_test(td, test_report);
	tcase_add_test(td, test_report_markdown_names);
	tcase_add_test(td, test_nomem);
	suite_add_tcase(s, td);
	return s;
}
