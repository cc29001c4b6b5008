/*
 * check_flame.c - the flame graph's tree (analyze/profile/pda_flame.c) and its
 * writers (emit/pde_flame.c, emit/pde_speedscope.c): stacks merge into
 * one node per path, children are sorted by name whatever the input
 * order, x and width follow the counts, frames under --minwidth are left
 * out with their callees, names are escaped for XML, colours are a
 * function of the input, and allocation failures leave clean errors.
 */
#include "pd_config.h" /* open_memstream */
#include "pda_flame.h"
#include "pde.h"

#include "failalloc.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------- */

static struct pda_flame *tree_of(const char *const *lines, size_t nr,
				 bool reverse)
{
	PDA_FLAME_OPTS(o, .reverse = reverse);
	struct pda_flame *fl;

	ck_assert_int_eq(pda_flame_new(&o, &fl), 0);
	for (size_t i = 0; i < nr; i++)
		ck_assert_int_eq(
			pda_flame_add_folded(fl, lines[i], strlen(lines[i])),
			0);
	ck_assert_int_eq(pda_flame_finish(fl), 0);
	return fl;
}

/* "name total self start depth parent" per node, one line each */
static char *describe(const struct pda_flame *fl)
{
	const struct pda_flame_node *n;
	char *buf = NULL;
	size_t len = 0, nr;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	n = pda_flame_nodes(fl, &nr);
	for (size_t i = 0; i < nr; i++)
		fprintf(fp, "%s %llu %llu %llu %u %u\n", n[i].name,
			(unsigned long long)n[i].total,
			(unsigned long long)n[i].self,
			(unsigned long long)n[i].start, n[i].depth,
			n[i].parent);
	fclose(fp);
	return buf;
}

static char *svg_of(const struct pda_flame *fl, const struct pde_flame_opts *o,
		    size_t *nr_drawn)
{
	const struct pda_flame_node *n;
	char *buf = NULL;
	size_t len = 0, nr;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	n = pda_flame_nodes(fl, &nr);
	ck_assert_int_eq(pde_flame_svg(fp, n, nr, o, nr_drawn), 0);
	fclose(fp);
	return buf;
}

/* ---- the tree ------------------------------------------------------ */

START_TEST(test_merge)
{
	static const char *const lines[] = {
		"a;b 1\n", "a;c 2\n", "a;b 3\n", "d 4\n", "a 5\n",
	};
	struct pda_flame *fl = tree_of(lines, 5, false);
	char *d = describe(fl);

	/* all; a (b, c); d: one node per path, depth first, by name; a's
	 * own 5 samples left of its callees, as flamegraph.pl draws them */
	ck_assert_str_eq(d, "all 15 0 0 0 0\n"
			    "a 11 5 0 1 0\n"
			    "b 4 4 5 2 1\n"
			    "c 2 2 9 2 1\n"
			    "d 4 4 11 1 0\n");
	ck_assert_uint_eq(pda_flame_max_depth(fl), 2);
	ck_assert_uint_eq(pda_flame_nr_names(fl), 5);
	free(d);
	pda_flame_free(fl);
}
END_TEST

/* The same stacks in any order make the same tree. */
START_TEST(test_order_independent)
{
	static const char *const lines[] = {
		"x;zeta;q 1",  "x;alpha;q 2", "x;Beta 3",	"y;a 4",
		"x;alpha;p 5", "x;zeta 6",    "x;alpha_long 7", "x;alph 8",
	};
	const char *perm[8];
	struct pda_flame *fl = tree_of(lines, 8, false);
	char *want = describe(fl), *got;
	unsigned seed = (unsigned)_i * 2654435761u + 1;

	/* a shuffle picked by the loop index */
	memcpy(perm, lines, sizeof(perm));
	for (size_t i = 7; i > 0; i--) {
		size_t j;
		const char *t;

		seed = seed * 1103515245u + 12345u;
		j = (seed >> 16) % (i + 1);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	pda_flame_free(fl);
	fl = tree_of(perm, 8, false);
	got = describe(fl);
	ck_assert_str_eq(got, want);
	/* bytewise order: "Beta" < "alph" < "alpha" < "alpha_long" */
	ck_assert_ptr_nonnull(strstr(want, "Beta 3 3 0 2 1\n"
					   "alph 8 8 3 2 1\n"
					   "alpha 7 0 11 2 1\n"));
	free(want);
	free(got);
	pda_flame_free(fl);
}
END_TEST

START_TEST(test_reverse)
{
	static const char *const lines[] = {"a;b;c 2", "a;b;d 1"};
	struct pda_flame *fl = tree_of(lines, 2, true);
	char *d = describe(fl);

	ck_assert_str_eq(d, "all 3 0 0 0 0\n"
			    "c 2 0 0 1 0\n"
			    "b 2 0 0 2 1\n"
			    "a 2 2 0 3 2\n"
			    "d 1 0 2 1 0\n"
			    "b 1 0 2 2 4\n"
			    "a 1 1 2 3 5\n");
	free(d);
	pda_flame_free(fl);
}
END_TEST

/* Equal names share one string and one id, ids by first use. */
START_TEST(test_names)
{
	static const char *const lines[] = {"m;f;g 1", "n;g;f 1"};
	struct pda_flame *fl = tree_of(lines, 2, false);
	const struct pda_flame_node *n;
	size_t nr;

	n = pda_flame_nodes(fl, &nr);
	ck_assert_uint_eq(nr, 7);
	/* all m f g n g f */
	ck_assert_ptr_eq(n[2].name, n[6].name);
	ck_assert_ptr_eq(n[3].name, n[5].name);
	ck_assert_uint_eq(n[2].name_id, n[6].name_id);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_le(n[i].name_id, i);
	ck_assert_uint_eq(n[4].name_id, 4);
	ck_assert_uint_eq(pda_flame_nr_names(fl), 5);
	pda_flame_free(fl);
}
END_TEST

/* What counts as a folded line, and what is ignored. */
static const struct {
	const char *line;
	int rc;
	const char *tree; /* describe() after it, when added */
} folded_cases[] = {
	{"a;b 5\r\n", 0, "all 5 0 0 0 0\na 5 0 0 1 0\nb 5 5 0 2 1\n"},
	{"sh x;c d\t7 \n", 0, "all 7 0 0 0 0\nsh x 7 0 0 1 0\nc d 7 7 0 2 1\n"},
	{"a;;b 1", 0, "all 1 0 0 0 0\na 1 0 0 1 0\n 1 0 0 2 1\nb 1 1 0 3 2\n"},
	{" 3", 0, "all 3 3 0 0 0\n"},
	{"a 0", 0, "all 0 0 0 0 0\n"},
	{"a 18446744073709551615", 0,
	 "all 18446744073709551615 0 0 0 0\na 18446744073709551615 "
	 "18446744073709551615 0 1 0\n"},
	{"", 1, NULL},
	{"   \n", 1, NULL},
	{"no count here", 1, NULL},
	{"a;b 12abc", 1, NULL},
	{"a;b 1.5", 1, NULL},
	{"a;b -3", 1, NULL},
	{"42", 1, NULL},
	{"a 18446744073709551616", 1, NULL},
};

START_TEST(test_folded_lines)
{
	struct pda_flame *fl;
	char *d;

	ck_assert_int_eq(pda_flame_new(NULL, &fl), 0);
	ck_assert_int_eq(pda_flame_add_folded(fl, folded_cases[_i].line,
					      strlen(folded_cases[_i].line)),
			 folded_cases[_i].rc);
	ck_assert_int_eq(pda_flame_finish(fl), 0);
	d = describe(fl);
	ck_assert_str_eq(d, folded_cases[_i].tree ? folded_cases[_i].tree
						  : "all 0 0 0 0 0\n");
	free(d);
	pda_flame_free(fl);
}
END_TEST

START_TEST(test_overflow_and_api)
{
	struct pda_flame *fl;
	char *d;

	ck_assert_int_eq(pda_flame_new(NULL, &fl), 0);
	ck_assert_int_eq(pda_flame_add_folded(fl, "a 18446744073709551615", 22),
			 0);
	ck_assert_int_eq(pda_flame_add_folded(fl, "b;c 1", 5), PD_ERR_FORMAT);
	ck_assert_str_ne(pda_flame_errmsg(fl), "");
	ck_assert_int_eq(pda_flame_finish(fl), 0);
	/* the failed stack left nothing */
	d = describe(fl);
	ck_assert_str_eq(d,
			 "all 18446744073709551615 0 0 0 0\n"
			 "a 18446744073709551615 18446744073709551615 0 1 0\n");
	ck_assert_int_eq(pda_flame_add_folded(fl, "a 1", 3), PD_ERR_API);
	free(d);
	pda_flame_free(fl);
	pda_flame_free(NULL);
	{
		/* unknown non-zero option bytes are refused (R2) */
		struct {
			struct pda_flame_opts o;
			char extra[8];
		} big;

		memset(&big, 0, sizeof(big));
		big.o.sz = sizeof(big);
		big.extra[3] = 1;
		ck_assert_int_eq(pda_flame_new(&big.o, &fl), PD_ERR_API);
		ck_assert_ptr_null(fl);
	}
}
END_TEST

/* ---- allocation failures ------------------------------------------- */

/*
 * Fail the Nth allocation for every N until the whole run succeeds: each
 * failure is PD_ERR_NOMEM, the tree stays freeable, nothing leaks, and
 * a run that succeeds describes the right tree.
 */
START_TEST(test_nomem)
{
	static const char *const lines[] = {
		"a;b;c 1", "a;b;d 2", "e;f 3", "a;b;c 4", "g 5",
	};
	struct failalloc f;
	struct pd_alloc alloc = failalloc_hooks(&f);
	bool done = false;

	for (int n = 0; !done; n++) {
		PDA_FLAME_OPTS(o, .alloc = &alloc);
		struct pda_flame *fl = NULL;
		int rc;

		ck_assert_int_lt(n, 1000);
		failalloc_init(&f, (unsigned long)n + 1, true);
		rc = pda_flame_new(&o, &fl);
		for (size_t i = 0; rc == 0 && i < 5; i++)
			rc = pda_flame_add_folded(fl, lines[i],
						  strlen(lines[i]));
		if (rc < 0) {
			ck_assert_int_eq(rc, PD_ERR_NOMEM);
			pda_flame_free(fl);
			ck_assert_int_eq(f.live, 0);
			continue;
		}
		rc = pda_flame_finish(fl);
		if (rc < 0) {
			/* after a failed finish, only free */
			ck_assert_int_eq(rc, PD_ERR_NOMEM);
			f.fail_at = 0;
			ck_assert_int_eq(pda_flame_finish(fl), PD_ERR_API);
			ck_assert_int_eq(pda_flame_add_folded(fl, "a 1", 3),
					 PD_ERR_API);
		} else {
			char *d = describe(fl);

			ck_assert_str_eq(d, "all 15 0 0 0 0\n"
					    "a 7 0 0 1 0\n"
					    "b 7 0 0 2 1\n"
					    "c 5 5 0 3 2\n"
					    "d 2 2 5 3 2\n"
					    "e 3 0 7 1 0\n"
					    "f 3 3 7 2 5\n"
					    "g 5 5 10 1 0\n");
			free(d);
			done = true;
		}
		pda_flame_free(fl);
		ck_assert_int_eq(f.live, 0);
	}
}
END_TEST

/* ---- the SVG ------------------------------------------------------- */

/* Read the frames back: data-n and the rect's width, per <g>. */
static size_t parse_frames(const char *svg, unsigned long long *counts,
			   double *widths, size_t max)
{
	const char *p = svg;
	size_t nr = 0;

	while ((p = strstr(p, "<g class=\"f\"")) && nr < max) {
		const char *w = strstr(p, "width=\"");

		ck_assert_int_eq(sscanf(p,
					"<g class=\"f\" data-s=\"%*u\" "
					"data-n=\"%llu\"",
					&counts[nr]),
				 1);
		ck_assert_ptr_nonnull(w);
		ck_assert_int_eq(sscanf(w, "width=\"%lf\"", &widths[nr]), 1);
		nr++;
		p++;
	}
	return nr;
}

START_TEST(test_svg_widths)
{
	/* 1000 + 20 + 2 + 1 samples over 1180 px */
	static const char *const lines[] = {
		"big;x 1000",
		"mid;y;z 20",
		"small;s 2",
		"tiny;t;u 1",
	};
	struct pda_flame *fl = tree_of(lines, 4, false);
	struct pde_flame_opts o = {.min_width = 0};
	unsigned long long counts[32];
	double widths[32];
	size_t nr_drawn, nr;
	char *svg;

	svg = svg_of(fl, &o, &nr_drawn);
	nr = parse_frames(svg, counts, widths, 32);
	/* all, big, x, mid, y, z, small, s, tiny, t, u */
	ck_assert_uint_eq(nr, 11);
	ck_assert_uint_eq(nr_drawn, 11);
	for (size_t i = 0; i < nr; i++)
		ck_assert_double_eq_tol(widths[i], counts[i] * 1180.0 / 1023,
					0.006);
	free(svg);

	/* 1.5 px: the 1-sample frames (1.15 px) go, with their callees;
	 * the 2-sample ones (2.3 px) stay */
	o.min_width = 1.5;
	svg = svg_of(fl, &o, &nr_drawn);
	nr = parse_frames(svg, counts, widths, 32);
	ck_assert_uint_eq(nr, 8);
	ck_assert_uint_eq(nr_drawn, 8);
	for (size_t i = 0; i < nr; i++)
		ck_assert_uint_ge(counts[i], 2);
	ck_assert_ptr_null(strstr(svg, "<title>tiny "));
	ck_assert_ptr_nonnull(strstr(svg, "<title>small (2 samples, 0.20%)"));
	free(svg);

	/* wider than everything but the root and "big" */
	o.min_width = 30;
	o.width = 2000; /* 1980 px for 1023 samples: "mid" is 38.7 px */
	svg = svg_of(fl, &o, &nr_drawn);
	ck_assert_uint_eq(nr_drawn, 6);
	ck_assert_ptr_nonnull(strstr(svg, "width=\"2000\""));
	free(svg);
	pda_flame_free(fl);
}
END_TEST

START_TEST(test_svg_deterministic)
{
	static const char *const lines[] = {
		"p;main;f_[k] 3",
		"p;main;g 2",
		"q;[unknown];h_[j] 4",
		"p;main;f_[k];g 1",
	};
	static const char *const shuffled[] = {
		"p;main;f_[k];g 1",
		"q;[unknown];h_[j] 4",
		"p;main;g 2",
		"p;main;f_[k] 3",
	};
	struct pde_flame_opts o = {.min_width = 0.1,
				   .title = "T",
				   .subtitle = "S",
				   .inverted = true};
	struct pda_flame *a = tree_of(lines, 4, false);
	struct pda_flame *b = tree_of(shuffled, 4, false);
	size_t nr_a, nr_b;
	char *sa = svg_of(a, &o, &nr_a), *sb = svg_of(b, &o, &nr_b);

	ck_assert_uint_eq(nr_a, nr_b);
	ck_assert_str_eq(sa, sb);
	ck_assert_ptr_nonnull(strstr(sa, ">T</text>"));
	ck_assert_ptr_nonnull(strstr(sa, ">S</text>"));
	free(sa);
	free(sb);
	pda_flame_free(a);
	pda_flame_free(b);
}
END_TEST

START_TEST(test_svg_escape)
{
	static const char *const lines[] = {
		"<a href=\"x\">&'b';c\x01\xff]]> 1",
	};
	struct pda_flame *fl = tree_of(lines, 1, false);
	struct pde_flame_opts o = {.countname = "<n>"};
	size_t nr_drawn;
	char *svg = svg_of(fl, &o, &nr_drawn);

	ck_assert_ptr_nonnull(strstr(svg, "<title>&lt;a href=&quot;x&quot;&gt;"
					  "&amp;&apos;b&apos; (1 &lt;n&gt;, "
					  "100.00%)</title>"));
	/* a control character and a byte that is not UTF-8 as text */
	ck_assert_ptr_nonnull(strstr(svg, "<title>c\\x01\\xff]]&gt; (1 "));
	ck_assert_ptr_null(strstr(svg, "\x01"));
	ck_assert_ptr_null(strstr(svg, "\xff"));
	free(svg);
	pda_flame_free(fl);
}
END_TEST

/* A label is the name when it fits, else cut with "..", else nothing. */
START_TEST(test_svg_labels)
{
	static const char *const lines[] = {
		"a_rather_long_function_name 1",
		"b 1000",
	};
	struct pda_flame *fl = tree_of(lines, 2, false);
	struct pde_flame_opts o = {.width = 1200};
	size_t nr_drawn;
	char *svg = svg_of(fl, &o, &nr_drawn);

	/* "b": 1178.8 px, whole; the other 1.18 px: no room, no label */
	ck_assert_ptr_nonnull(strstr(svg, "\">b</text>"));
	ck_assert_ptr_nonnull(strstr(svg, "\"></text></g>"));
	free(svg);
	pda_flame_free(fl);

	/* 20 of 21 samples over 1180 px wide: 1124 px - 6 = 1118 px at
	 * 7.2 px a character: 155 characters fit; the name has 200 */
	{
		char name[256];
		const char *two[2];
		char *want;

		memset(name, 'x', 200);
		memcpy(name + 200, " 20", 4);
		two[0] = name;
		two[1] = "y 1";
		fl = tree_of(two, 2, false);
		svg = svg_of(fl, &o, &nr_drawn);
		want = calloc(1, 200);
		ck_assert_ptr_nonnull(want);
		want[0] = '>';
		memset(want + 1, 'x', 153);
		memcpy(want + 154, "..</text>", 10);
		ck_assert_ptr_nonnull(strstr(svg, want));
		free(want);
		free(svg);
		pda_flame_free(fl);
	}
}
END_TEST

START_TEST(test_colors)
{
	static const struct pda_flame_node k1 = {
		.name = "f_[k]", .depth = 3, .start = 10, .total = 1};
	static const struct pda_flame_node k2 = {
		.name = "f_[k]", .depth = 7, .start = 99, .total = 1};
	static const struct pda_flame_node u = {
		.name = "main", .depth = 3, .start = 10, .total = 1};
	static const struct pda_flame_node j = {
		.name = "m_[j]", .depth = 1, .start = 0, .total = 1};
	static const struct pda_flame_node q = {
		.name = "[unknown]", .depth = 1, .total = 1};
	struct pde_flame_opts o = {.palette = PDE_PALETTE_DEFAULT};
	unsigned char a[3], b[3];

	/* --hash: the name alone decides */
	o.hash = true;
	pde_flame_color(&o, &k1, a);
	pde_flame_color(&o, &k2, b);
	ck_assert_mem_eq(a, b, 3);
	/* by kind: kernel orange, user red, JIT green, unknown grey */
	o.hash = false;
	pde_flame_color(&o, &k1, a);
	ck_assert(a[0] >= 225 && a[1] >= 130 && a[2] < 40);
	pde_flame_color(&o, &u, a);
	ck_assert(a[0] >= 200 && a[1] < 110);
	pde_flame_color(&o, &j, a);
	ck_assert(a[1] >= 190 && a[0] < 110);
	pde_flame_color(&o, &q, a);
	ck_assert(a[0] == a[1] && a[1] == a[2]);
	/* the other palettes ignore the kind */
	o.palette = PDE_PALETTE_IO;
	pde_flame_color(&o, &k1, a);
	ck_assert(a[2] >= 190 && a[0] == a[1]);
	o.palette = PDE_PALETTE_MEM;
	pde_flame_color(&o, &u, a);
	ck_assert(a[0] == 0 && a[1] >= 190);
	ck_assert_str_eq(pde_flame_palette_name(PDE_PALETTE_HOT), "hot");
	ck_assert_ptr_null(pde_flame_palette_name(PDE_PALETTE_MAX));
}
END_TEST

/* ---- speedscope ---------------------------------------------------- */

START_TEST(test_speedscope)
{
	static const char *const lines[] = {"a;b 1", "a;c 2", "a 3", "c 4"};
	struct pda_flame *fl = tree_of(lines, 4, false);
	const struct pda_flame_node *n;
	struct pde_speedscope_opts so = {.name = "in", .exporter = "t"};
	char *buf = NULL;
	size_t len = 0, nr;
	FILE *fp = open_memstream(&buf, &len);

	n = pda_flame_nodes(fl, &nr);
	ck_assert_int_eq(pde_speedscope(fp, n, nr, &so), 0);
	fclose(fp);
	ck_assert_str_eq(
		buf,
		"{\"$schema\":\"https://www.speedscope.app/"
		"file-format-schema.json\",\"name\":\"in\",\"exporter\":\"t\","
		"\"activeProfileIndex\":0,\"shared\":{\"frames\":[{\"name\":"
		"\"all\"},{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]},"
		"\"profiles\":[{\"type\":\"sampled\",\"name\":\"in\",\"unit\":"
		"\"none\",\"startValue\":0,\"endValue\":10,\"samples\":[[1],"
		"[1,2],[1,3],[3]],\"weights\":[3,1,2,4]}]}\n");
	free(buf);
	pda_flame_free(fl);
}
END_TEST

Suite *flame_suite(void)
{
	Suite *s = suite_create("flame");
	TCase *tc = tcase_create("tree");
	TCase *tw = tcase_create("writers");

	tcase_add_test(tc, test_merge);
	tcase_add_loop_test(tc, test_order_independent, 0, 8);
	tcase_add_test(tc, test_reverse);
	tcase_add_test(tc, test_names);
	tcase_add_loop_test(tc, test_folded_lines, 0,
			    sizeof(folded_cases) / sizeof(folded_cases[0]));
	tcase_add_test(tc, test_overflow_and_api);
	tcase_add_test(tc, test_nomem);
	suite_add_tcase(s, tc);
	tcase_add_test(tw, test_svg_widths);
	tcase_add_test(tw, test_svg_deterministic);
	tcase_add_test(tw, test_svg_escape);
	tcase_add_test(tw, test_svg_labels);
	tcase_add_test(tw, test_colors);
	tcase_add_test(tw, test_speedscope);
	suite_add_tcase(s, tw);
	return s;
}
