/*
 * check_profile.c - the structured profile (analyze/profile/pda_profile.c):
 * strings, mappings, functions and locations are interned; stacks share
 * their callers' entries through prefix links; sample rows hold one
 * value per column and refuse to wrap; the folded-text reader
 * (analyze/profile/pda_folded.c) and writer (emit/pde_folded.c)
 * round-trip, the writer showing a label's control bytes as \xNN; a fold's
 * profile keeps its lines' order, values and frames' details; every allocation
 * failure is a clean PD_ERR_NOMEM that leaves the profile usable (T9, O6).
 */
#include "pd_config.h" /* open_memstream */
#include "pda_fold.h"
#include "pda_profile.h"
#include "pde.h"
#include "failalloc.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static struct pda_profile *new_profile(unsigned nr_columns)
{
	PDA_PROFILE_OPTS(o, .nr_columns = nr_columns);
	struct pda_profile *p;

	ck_assert_int_eq(pda_profile_new(&o, &p), 0);
	return p;
}

static uint32_t str(struct pda_profile *p, const char *s)
{
	uint32_t id;

	ck_assert_int_eq(pda_profile_intern(p, s, strlen(s), &id), 0);
	return id;
}

/* A location labelled name, its function name. */
static uint32_t loc(struct pda_profile *p, const char *name)
{
	struct pda_profile_func f = {.name = str(p, name)};
	struct pda_profile_loc l = {.label = f.name};

	ck_assert_int_eq(pda_profile_add_func(p, &f, &l.func), 0);
	ck_assert_int_eq(pda_profile_add_loc(p, &l, &l.func), 0);
	return l.func;
}

/* The folded text pde_folded_write() makes of column col. */
static char *folded(const struct pda_profile *p, unsigned col)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(pde_folded_write(fp, p, col), 0);
	fclose(fp);
	return buf;
}

static void add_text(struct pda_profile *p, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		const size_t n = nl ? (size_t)(nl - text) + 1 : strlen(text);

		ck_assert_int_eq(pda_profile_add_folded(p, text, n, 0), 0);
		text += n;
	}
}

START_TEST(test_intern)
{
	struct pda_profile *p = new_profile(0);
	struct pda_profile_mapping m = {0};
	struct pda_profile_func f = {0};
	uint32_t a, b, id1, id2;
	size_t len;

	ck_assert_uint_eq(pda_profile_nr_columns(p), 1);
	/* string 0 is "" */
	ck_assert_uint_eq(str(p, ""), 0);
	a = str(p, "main");
	b = str(p, "work");
	ck_assert_uint_ne(a, b);
	ck_assert_uint_eq(str(p, "main"), a);
	ck_assert_int_eq(pda_profile_intern(p, "mainly", 4, &id1), 0);
	ck_assert_uint_eq(id1, a);
	ck_assert_str_eq(pda_profile_str(p, b, &len), "work");
	ck_assert_uint_eq(len, 4);
	ck_assert_str_eq(pda_profile_str(p, 1000, &len), "");

	m.name = str(p, "/usr/lib/libc.so.6");
	m.start = 0x1000;
	ck_assert_int_eq(pda_profile_add_mapping(p, &m, &id1), 0);
	ck_assert_int_eq(pda_profile_add_mapping(p, &m, &id2), 0);
	ck_assert_uint_eq(id1, 1);
	ck_assert_uint_eq(id2, id1);
	m.start = 0x2000;
	ck_assert_int_eq(pda_profile_add_mapping(p, &m, &id2), 0);
	ck_assert_uint_eq(id2, 2);
	ck_assert_uint_eq(pda_profile_mapping(p, 2)->start, 0x2000);
	ck_assert_ptr_null(pda_profile_mapping(p, 0));
	ck_assert_ptr_null(pda_profile_mapping(p, 3));
	ck_assert_uint_eq(pda_profile_nr_mappings(p), 3);

	f.name = a;
	ck_assert_int_eq(pda_profile_add_func(p, &f, &id1), 0);
	f.file = str(p, "main.c");
	ck_assert_int_eq(pda_profile_add_func(p, &f, &id2), 0);
	ck_assert_uint_ne(id1, id2);
	ck_assert_uint_eq(loc(p, "main"), loc(p, "main"));
	ck_assert_uint_ne(loc(p, "main"), loc(p, "work"));
	/* an id that is not in its table */
	f.name = 9999;
	ck_assert_int_eq(pda_profile_add_func(p, &f, &id1), PD_ERR_API);
	pda_profile_free(p);
	pda_profile_free(NULL);
}
END_TEST

START_TEST(test_stacks)
{
	struct pda_profile *p = new_profile(1);
	const uint32_t main = loc(p, "main"), work = loc(p, "work"),
		       leaf = loc(p, "leaf");
	uint32_t s1, s2, s3, s4, locs[3];

	ck_assert_int_eq(pda_profile_add_stack(p, 0, main, &s1), 0);
	ck_assert_int_eq(pda_profile_add_stack(p, s1, work, &s2), 0);
	ck_assert_int_eq(pda_profile_add_stack(p, s2, leaf, &s3), 0);
	/* main;leaf shares main's entry */
	ck_assert_int_eq(pda_profile_add_stack(p, s1, leaf, &s4), 0);
	ck_assert_uint_eq(pda_profile_nr_stacks(p), 5);
	ck_assert_uint_eq(pda_profile_stack(p, s4)->prefix, s1);
	ck_assert_uint_eq(pda_profile_stack(p, s3)->depth, 3);
	ck_assert_uint_lt(pda_profile_stack(p, s3)->prefix, s3);
	/* found again, not added */
	ck_assert_int_eq(pda_profile_add_stack(p, s1, work, &s4), 0);
	ck_assert_uint_eq(s4, s2);
	ck_assert_uint_eq(pda_profile_nr_stacks(p), 5);
	ck_assert_uint_eq(pda_profile_stack_locs(p, s3, locs), 3);
	ck_assert_uint_eq(locs[0], main);
	ck_assert_uint_eq(locs[1], work);
	ck_assert_uint_eq(locs[2], leaf);
	ck_assert_uint_eq(pda_profile_stack_locs(p, 0, locs), 0);
	/* bad ids */
	ck_assert_int_eq(pda_profile_add_stack(p, 99, main, &s4), PD_ERR_API);
	ck_assert_int_eq(pda_profile_add_stack(p, 0, 0, &s4), PD_ERR_API);
	ck_assert_int_eq(pda_profile_add_stack(p, 0, 99, &s4), PD_ERR_API);
	pda_profile_free(p);
}
END_TEST

START_TEST(test_values)
{
	struct pda_profile *p = new_profile(4);
	const uint32_t main = loc(p, "main"), work = loc(p, "work");
	const uint64_t v1[4] = {1, 100, 0, 7}, v2[4] = {2, 50, 3, 0};
	const uint64_t big[4] = {UINT64_MAX, 0, 0, 0};
	const struct pda_profile_sample *r;
	uint32_t s1, s2;

	ck_assert_int_eq(pda_profile_set_column(p, 0, "cycles", "samples"), 0);
	ck_assert_int_eq(pda_profile_set_column(p, 1, "cycles", "period"), 0);
	ck_assert_int_eq(pda_profile_set_column(p, 4, "x", "y"), PD_ERR_API);
	ck_assert_str_eq(pda_profile_str(p, pda_profile_column(p, 1)->unit,
					 NULL),
			 "period");
	ck_assert_ptr_null(pda_profile_column(p, 4));
	ck_assert_int_eq(pda_profile_add_stack(p, 0, main, &s1), 0);
	ck_assert_int_eq(pda_profile_add_stack(p, s1, work, &s2), 0);
	ck_assert_int_eq(pda_profile_add_sample(p, s2, v1), 0);
	ck_assert_int_eq(pda_profile_add_sample(p, 0, v2), 0);
	ck_assert_int_eq(pda_profile_add_sample(p, s2, v2), 0);
	/* rows in the order their stacks first got values */
	ck_assert_uint_eq(pda_profile_nr_samples(p), 2);
	r = pda_profile_sample(p, 0);
	ck_assert_uint_eq(r->stack, s2);
	ck_assert_uint_eq(r->values[0], 3);
	ck_assert_uint_eq(r->values[1], 150);
	ck_assert_uint_eq(r->values[2], 3);
	ck_assert_uint_eq(r->values[3], 7);
	r = pda_profile_sample(p, 1);
	ck_assert_uint_eq(r->stack, 0);
	ck_assert_uint_eq(r->values[1], 50);
	ck_assert_ptr_null(pda_profile_sample(p, 2));
	ck_assert_uint_eq(pda_profile_totals(p)[1], 200);
	/* a column's total never wraps; nothing is added then */
	ck_assert_int_eq(pda_profile_add_sample(p, s1, big), PD_ERR_FORMAT);
	ck_assert_uint_eq(pda_profile_nr_samples(p), 2);
	ck_assert_uint_eq(pda_profile_totals(p)[0], 5);
	ck_assert_int_eq(pda_profile_add_sample(p, 99, v1), PD_ERR_API);
	pda_profile_free(p);
}
END_TEST

/* Columns added after rows: old values kept, new ones 0; a ranged add
 * touches only its columns; a failed widening changes nothing. */
START_TEST(test_add_columns)
{
	struct pda_profile *p = new_profile(2);
	const uint32_t main = loc(p, "main");
	const uint64_t v[2] = {1, 10}, w[2] = {4, 40};
	const struct pda_profile_sample *r;
	struct failalloc fa;
	struct pd_alloc hooks;
	unsigned first = 99;
	uint32_t s1;

	ck_assert_int_eq(pda_profile_set_column(p, 1, "cycles", "period"), 0);
	ck_assert_int_eq(pda_profile_add_stack(p, 0, main, &s1), 0);
	ck_assert_int_eq(pda_profile_add_sample(p, s1, v), 0);
	ck_assert_int_eq(pda_profile_add_sample(p, 0, v), 0);
	ck_assert_int_eq(pda_profile_add_columns(p, 0, &first), PD_ERR_API);
	ck_assert_int_eq(pda_profile_add_columns(p, PDA_PROFILE_MAX_COLUMNS,
						 &first),
			 PD_ERR_API);
	ck_assert_int_eq(pda_profile_add_columns(p, 2, &first), 0);
	ck_assert_uint_eq(first, 2);
	ck_assert_uint_eq(pda_profile_nr_columns(p), 4);
	ck_assert_str_eq(pda_profile_str(p, pda_profile_column(p, 1)->event,
					 NULL),
			 "cycles");
	ck_assert_uint_eq(pda_profile_column(p, 3)->event, 0);
	ck_assert_int_eq(pda_profile_add_values(p, s1, 2, 2, w), 0);
	ck_assert_int_eq(pda_profile_add_values(p, s1, 3, 2, w), PD_ERR_API);
	ck_assert_int_eq(pda_profile_add_values(p, s1, 5, 0, w), PD_ERR_API);
	r = pda_profile_sample(p, 0);
	ck_assert_uint_eq(r->values[0], 1);
	ck_assert_uint_eq(r->values[1], 10);
	ck_assert_uint_eq(r->values[2], 4);
	ck_assert_uint_eq(r->values[3], 40);
	r = pda_profile_sample(p, 1);
	ck_assert_uint_eq(r->values[1], 10);
	ck_assert_uint_eq(r->values[2], 0);
	ck_assert_uint_eq(pda_profile_totals(p)[0], 2);
	ck_assert_uint_eq(pda_profile_totals(p)[3], 40);
	pda_profile_free(p);

	/* out of memory at each allocation: all or nothing, no leak */
	for (unsigned long n = 1;; n++) {
		PDA_PROFILE_OPTS(o, .nr_columns = 2, .alloc = &hooks);
		int rc;

		failalloc_init(&fa, 0, false);
		hooks = failalloc_hooks(&fa);
		ck_assert_int_eq(pda_profile_new(&o, &p), 0);
		ck_assert_int_eq(pda_profile_add_stack(p, 0, loc(p, "main"),
						       &s1),
				 0);
		ck_assert_int_eq(pda_profile_add_sample(p, s1, v), 0);
		fa.fail_at = fa.nr_calls + n;
		rc = pda_profile_add_columns(p, 3, &first);
		ck_assert(rc == 0 || rc == PD_ERR_NOMEM);
		ck_assert_uint_eq(pda_profile_nr_columns(p), rc ? 2 : 5);
		ck_assert_uint_eq(pda_profile_sample(p, 0)->values[1], 10);
		ck_assert_uint_eq(pda_profile_totals(p)[1], 10);
		pda_profile_free(p);
		ck_assert_int_eq(fa.live, 0);
		if (!fa.nr_failed) {
			ck_assert_uint_gt(n, 1);
			break;
		}
	}
}
END_TEST

START_TEST(test_many_rows)
{
	/* rows' values stay right as the arrays grow */
	struct pda_profile *p = new_profile(3);
	const uint32_t root = loc(p, "root");
	uint32_t s;

	for (uint64_t i = 0; i < 5000; i++) {
		char name[32];
		const uint64_t v[3] = {i, 2 * i, 3 * i};

		snprintf(name, sizeof(name), "f%llu", (unsigned long long)i);
		ck_assert_int_eq(pda_profile_add_stack(p, 0, root, &s), 0);
		ck_assert_int_eq(pda_profile_add_stack(p, s, loc(p, name), &s),
				 0);
		ck_assert_int_eq(pda_profile_add_sample(p, s, v), 0);
	}
	ck_assert_uint_eq(pda_profile_nr_samples(p), 5000);
	for (size_t i = 0; i < 5000; i++) {
		const struct pda_profile_sample *r = pda_profile_sample(p, i);

		ck_assert_uint_eq(r->values[0], i);
		ck_assert_uint_eq(r->values[2], 3 * i);
		ck_assert_uint_eq(pda_profile_stack(p, r->stack)->depth, 2);
	}
	pda_profile_free(p);
}
END_TEST

START_TEST(test_folded_reader)
{
	struct pda_profile *p = new_profile(2);
	const struct pda_profile_loc *l;
	const struct pda_profile_func *f;
	uint32_t id;

	ck_assert_int_eq(pda_profile_add_folded(p, "a;b;c 3\n", 8, 1), 0);
	ck_assert_int_eq(pda_profile_add_folded(p, "a;b 2", 5, 1), 0);
	ck_assert_int_eq(pda_profile_add_folded(p, "a;b;c\t4\r\n", 9, 1), 0);
	/* not folded lines, blank lines: nothing added */
	ck_assert_int_eq(pda_profile_add_folded(p, "a;b\n", 4, 1), 1);
	ck_assert_int_eq(pda_profile_add_folded(p, "a;b x3", 6, 1), 1);
	ck_assert_int_eq(pda_profile_add_folded(p, "  \n", 3, 1), 1);
	ck_assert_int_eq(
		pda_profile_add_folded(p, "a 99999999999999999999", 22, 1), 1);
	/* a count of 0: no row */
	ck_assert_int_eq(pda_profile_add_folded(p, "z 0", 3, 1), 0);
	ck_assert_int_eq(pda_profile_add_folded(p, "a 1", 3, 2), PD_ERR_API);
	ck_assert_uint_eq(pda_profile_nr_samples(p), 2);
	ck_assert_uint_eq(pda_profile_sample(p, 0)->values[1], 7);
	ck_assert_uint_eq(pda_profile_sample(p, 0)->values[0], 0);
	ck_assert_uint_eq(pda_profile_sample(p, 1)->values[1], 2);
	/* a name's suffix: flags and the function's name */
	ck_assert_int_eq(pda_profile_name_loc(p, "do_sys_open_[k]", 15, &id),
			 0);
	l = pda_profile_loc(p, id);
	ck_assert_uint_eq(l->flags, PDA_LOC_KERNEL);
	ck_assert_str_eq(pda_profile_str(p, l->label, NULL),
			 "do_sys_open_[k]");
	f = pda_profile_func(p, l->func);
	ck_assert_str_eq(pda_profile_str(p, f->name, NULL), "do_sys_open");
	ck_assert_int_eq(pda_profile_name_loc(p, "[unknown]_[j]", 13, &id), 0);
	ck_assert_uint_eq(pda_profile_loc(p, id)->flags,
			  PDA_LOC_JIT | PDA_LOC_UNKNOWN);
	pda_profile_free(p);
}
END_TEST

/* Counts with decimals, as flamegraph.pl reads them ("1.5", "2."), only
 * with max_decimals; a finer line scales what came before. */
START_TEST(test_folded_decimals)
{
	PDA_PROFILE_OPTS(po, .nr_columns = 1, .max_decimals = 3);
	PDA_PROFILE_OPTS(bad, .max_decimals = PDA_PROFILE_MAX_DECIMALS + 1);
	struct pda_profile *p, *whole = new_profile(1);

	ck_assert_int_eq(pda_profile_new(&bad, &p), PD_ERR_API);
	ck_assert_int_eq(pda_profile_new(&po, &p), 0);
	ck_assert_int_eq(pda_profile_add_folded(p, "a;b 1", 5, 0), 0);
	ck_assert_uint_eq(pda_profile_decimals(p), 0);
	ck_assert_int_eq(pda_profile_add_folded(p, "a;c 1.5\n", 8, 0), 0);
	ck_assert_uint_eq(pda_profile_decimals(p), 1);
	ck_assert_int_eq(pda_profile_add_folded(p, "x 2.", 4, 0), 0);
	/* past max_decimals, digits are dropped: 0.1259 is 0.125 */
	ck_assert_int_eq(pda_profile_add_folded(p, "y 0.1259", 8, 0), 0);
	ck_assert_uint_eq(pda_profile_decimals(p), 3);
	ck_assert_uint_eq(pda_profile_sample(p, 0)->values[0], 1000);
	ck_assert_uint_eq(pda_profile_sample(p, 1)->values[0], 1500);
	ck_assert_uint_eq(pda_profile_sample(p, 2)->values[0], 2000);
	ck_assert_uint_eq(pda_profile_sample(p, 3)->values[0], 125);
	ck_assert_uint_eq(pda_profile_totals(p)[0], 4625);
	/* no number before the point, or no blank before the number */
	ck_assert_int_eq(pda_profile_add_folded(p, "z .5", 4, 0), 1);
	ck_assert_int_eq(pda_profile_add_folded(p, "z 1.5.5", 7, 0), 1);
	/* a total past 64 bits once scaled: refused, nothing changed */
	ck_assert_int_eq(
		pda_profile_add_folded(p, "w 18446744073709551", 19, 0),
		PD_ERR_FORMAT);
	/* without max_decimals, "1.5" is no folded line */
	ck_assert_int_eq(pda_profile_add_folded(whole, "a 1.5", 5, 0), 1);
	ck_assert_uint_eq(pda_profile_decimals(whole), 0);
	pda_profile_free(p);
	pda_profile_free(whole);
}
END_TEST

START_TEST(test_folded_round_trip)
{
	static const char text[] = "comm;main;work 5\n"
				   "comm;main;work;leaf_[k] 3\n"
				   "comm;main 1\n"
				   " 4\n"
				   "other;[unknown] 18446744073709551000\n"
				   "comm;main;work 2\n";
	static const char written[] = "comm;main;work 7\n"
				      "comm;main;work;leaf_[k] 3\n"
				      "comm;main 1\n"
				      " 4\n"
				      "other;[unknown] 18446744073709551000\n";
	struct pda_profile *p = new_profile(1), *q = new_profile(1);
	char *out, *again;

	add_text(p, text);
	out = folded(p, 0);
	ck_assert_str_eq(out, written);
	/* profile -> text -> profile: the same stacks and values */
	add_text(q, out);
	ck_assert_uint_eq(pda_profile_nr_samples(q), pda_profile_nr_samples(p));
	for (size_t i = 0; i < pda_profile_nr_samples(p); i++) {
		const struct pda_profile_sample *a = pda_profile_sample(p, i);
		const struct pda_profile_sample *b = pda_profile_sample(q, i);

		uint32_t la[4], lb[4];
		const size_t n = pda_profile_stack_locs(p, a->stack, la);

		ck_assert_uint_eq(a->values[0], b->values[0]);
		ck_assert_uint_eq(pda_profile_stack_locs(q, b->stack, lb), n);
		for (size_t k = 0; k < n; k++)
			ck_assert_str_eq(
				pda_profile_str(p, pda_profile_loc(p, la[k])->label,
						NULL),
				pda_profile_str(q, pda_profile_loc(q, lb[k])->label,
						NULL));
	}
	again = folded(q, 0);
	ck_assert_str_eq(again, written);
	/* a column that does not exist */
	ck_assert_int_eq(pde_folded_write(stdout, p, 1), PD_ERR_API);
	free(out);
	free(again);
	pda_profile_free(p);
	pda_profile_free(q);
}
END_TEST

/*
 * A profile made elsewhere may label a location with any byte: the
 * folded writer shows those that are not text as \xNN (pdc_text.h), so a
 * label's newline cannot start a line with a count of its own, also in
 * the lines that share the label's stack with the line before.
 */
START_TEST(test_folded_control_labels)
{
	struct pda_profile *p = new_profile(1);
	const uint32_t evil = loc(p, "evil;x 999999\nroot\x1b]0;t\x07");
	const uint32_t a = loc(p, "a\r"), b = loc(p, "b\xc2\x9b");
	const uint64_t five = 5, three = 3;
	uint32_t root, sa, sb;
	char *out;

	ck_assert_int_eq(pda_profile_add_stack(p, 0, evil, &root), 0);
	ck_assert_int_eq(pda_profile_add_stack(p, root, a, &sa), 0);
	ck_assert_int_eq(pda_profile_add_stack(p, root, b, &sb), 0);
	ck_assert_int_eq(pda_profile_add_sample(p, sa, &five), 0);
	ck_assert_int_eq(pda_profile_add_sample(p, sb, &three), 0);
	ck_assert_int_eq(pda_profile_add_sample(p, root, &three), 0);
	out = folded(p, 0);
	ck_assert_str_eq(out, "evil;x 999999\\x0aroot\\x1b]0;t\\x07;a\\x0d 5\n"
			      "evil;x 999999\\x0aroot\\x1b]0;t\\x07;"
			      "b\\xc2\\x9b 3\n"
			      "evil;x 999999\\x0aroot\\x1b]0;t\\x07 3\n");
	free(out);
	pda_profile_free(p);
}
END_TEST

#define F(sym_, dso_, fl_) {.ip = 0x10, .sym = (sym_), .dso = (dso_), \
			    .dso_addr = 0x4010, .flags = (fl_)}

START_TEST(test_fold_profile)
{
	static const char libc[] = "/usr/lib/libc.so.6";
	static const char kk[] = "[kernel.kallsyms]";
	PDA_FOLD_OPTS(o, .flags = PDA_FOLD_KERNEL);
	struct pda_frame a[] = {F("leaf", kk, PDA_FRAME_KERNEL),
				F("mid", libc, 0), F("main", libc, 0)};
	struct pda_frame b[] = {F(NULL, libc, PDA_FRAME_NO_SYMBOL),
				F("main", libc, 0)};
	struct pd_sample s;
	const struct pda_profile_loc *l;
	const struct pda_profile_sample *r;
	struct pda_stack st = {a, 3, 3};
	struct pda_profile *p;
	struct pda_fold *fd;
	uint32_t locs[4];
	char *out;

	memset(&s, 0, sizeof(s));
	s.pid = s.tid = 7;
	s.period = 1000;
	ck_assert_int_eq(pda_fold_new(&o, &fd), 0);
	ck_assert_int_eq(pda_fold_add(fd, &s, &st, "demo"), 1);
	ck_assert_int_eq(pda_fold_add(fd, &s, &st, "demo"), 1);
	st = (struct pda_stack){b, 2, 2};
	s.period = 5;
	ck_assert_int_eq(pda_fold_add(fd, &s, &st, "demo"), 1);
	ck_assert_int_eq(pda_fold_profile(fd, &p), PD_ERR_API);
	ck_assert_int_eq(pda_fold_finish(fd), 0);
	ck_assert_int_eq(pda_fold_profile(fd, &p), 0);
	pda_fold_free(fd);

	/* the lines, in fold's order, from the profile alone */
	out = folded(p, PDA_FOLD_COL_WEIGHT);
	ck_assert_str_eq(out, "demo;main;[unknown] 1\n"
			      "demo;main;mid;leaf_[k] 2\n");
	free(out);
	ck_assert_uint_eq(pda_profile_nr_columns(p), PDA_FOLD_NR_COLUMNS);
	r = pda_profile_sample(p, 1);
	ck_assert_uint_eq(r->values[PDA_FOLD_COL_SAMPLES], 2);
	ck_assert_uint_eq(r->values[PDA_FOLD_COL_PERIOD], 2000);
	ck_assert_uint_eq(pda_profile_sample(p, 0)->values[PDA_FOLD_COL_PERIOD],
			  5);
	/* the frames' details */
	ck_assert_uint_eq(pda_profile_stack_locs(p, r->stack, locs), 4);
	l = pda_profile_loc(p, locs[0]);
	ck_assert_uint_eq(l->flags, PDA_LOC_ROOT);
	l = pda_profile_loc(p, locs[3]);
	ck_assert_str_eq(pda_profile_str(p, l->label, NULL), "leaf_[k]");
	ck_assert_str_eq(
		pda_profile_str(p, pda_profile_func(p, l->func)->name, NULL),
		"leaf");
	ck_assert_str_eq(pda_profile_str(
				 p, pda_profile_mapping(p, l->mapping)->name,
				 NULL),
			 kk);
	ck_assert_uint_eq(l->address, 0x4010);
	ck_assert_uint_eq(l->flags, PDA_LOC_KERNEL | PDA_LOC_DSO_OFFSET);
	l = pda_profile_loc(p, locs[2]);
	ck_assert_uint_eq(l->flags, PDA_LOC_USER | PDA_LOC_DSO_OFFSET);
	/* main;mid and main;[unknown] share demo;main */
	ck_assert_uint_eq(pda_profile_stack_locs(p, pda_profile_sample(p, 0)->stack,
						 locs),
			  3);
	ck_assert_uint_eq(pda_profile_loc(p, locs[2])->flags & PDA_LOC_UNKNOWN,
			  PDA_LOC_UNKNOWN);
	ck_assert_uint_eq(pda_profile_nr_stacks(p), 6);
	pda_profile_free(p);
}
END_TEST

/* ---- allocation failures (T9) ---------------------------------------- */

/* Every table of p, by id, and its rows and totals: two profiles with
 * the same dump hold the same entries under the same ids. */
static char *dump(const struct pda_profile *p)
{
	const unsigned nr_cols = pda_profile_nr_columns(p);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	for (size_t i = 0; i < pda_profile_nr_strs(p); i++)
		fprintf(fp, "str %zu %s\n", i,
			pda_profile_str(p, (uint32_t)i, NULL));
	for (unsigned c = 0; c < nr_cols; c++)
		fprintf(fp, "col %u %u %u total %llu\n", c,
			pda_profile_column(p, c)->event,
			pda_profile_column(p, c)->unit,
			(unsigned long long)pda_profile_totals(p)[c]);
	for (uint32_t i = 1; i < pda_profile_nr_mappings(p); i++) {
		const struct pda_profile_mapping *m = pda_profile_mapping(p, i);

		fprintf(fp, "map %u %u %u %llx %llx %llx\n", i, m->name,
			m->build_id, (unsigned long long)m->start,
			(unsigned long long)m->limit,
			(unsigned long long)m->offset);
	}
	for (uint32_t i = 1; i < pda_profile_nr_funcs(p); i++)
		fprintf(fp, "func %u %u %u\n", i, pda_profile_func(p, i)->name,
			pda_profile_func(p, i)->file);
	for (uint32_t i = 1; i < pda_profile_nr_locs(p); i++) {
		const struct pda_profile_loc *l = pda_profile_loc(p, i);

		fprintf(fp, "loc %u %u %u %u %u %llx %x\n", i, l->label,
			l->func, l->mapping, l->line,
			(unsigned long long)l->address, l->flags);
	}
	for (uint32_t i = 1; i < pda_profile_nr_stacks(p); i++) {
		const struct pda_profile_stack *st = pda_profile_stack(p, i);

		fprintf(fp, "stack %u %u %u %u\n", i, st->prefix, st->loc,
			st->depth);
	}
	for (size_t i = 0; i < pda_profile_nr_samples(p); i++) {
		const struct pda_profile_sample *r = pda_profile_sample(p, i);

		fprintf(fp, "row %zu %u", i, r->stack);
		for (unsigned c = 0; c < nr_cols; c++)
			fprintf(fp, " %llu", (unsigned long long)r->values[c]);
		fputc('\n', fp);
	}
	fclose(fp);
	return buf;
}

/* One run of the out-of-memory tests. */
struct nomem_run {
	bool retry;	  /* on PD_ERR_NOMEM, call again (O6: the profile is
			   * as before, so the run must end as without
			   * failures); false: give up at once */
	bool by_hand;	  /* add entries table by table before the text */
	const char *text; /* folded lines for pda_profile_add_folded() */
};

/* A call that may fail only with PD_ERR_NOMEM: called again if the run
 * retries, else its error returned. */
#define STEP(run, call)                                                        \
	do {                                                                   \
		int rc_ = (call);                                              \
		if (rc_ == PD_ERR_NOMEM && (run)->retry)                       \
			rc_ = (call);                                          \
		if (rc_ != 0) {                                                \
			ck_assert_int_eq(rc_, PD_ERR_NOMEM);                   \
			return rc_;                                            \
		}                                                              \
	} while (0)

/* pda_profile_add_folded() of one line: its failure says why. */
static int add_line(struct pda_profile *p, const char *line, size_t len,
		    unsigned col)
{
	const int rc = pda_profile_add_folded(p, line, len, col);

	if (rc == PD_ERR_NOMEM)
		ck_assert_str_eq(pda_profile_errmsg(p), "out of memory");
	return rc;
}

/* Build run's profile in *out (NULL if pda_profile_new() failed), every
 * allocation through a.  @return 0 or PD_ERR_NOMEM. */
static int build(const struct nomem_run *run, const struct pd_alloc *a,
		 struct pda_profile **out)
{
	PDA_PROFILE_OPTS(o, .nr_columns = 2, .alloc = a);
	const char *text = run->text;
	struct pda_profile *p = NULL;
	int rc = pda_profile_new(&o, &p);

	if (rc == PD_ERR_NOMEM && run->retry)
		rc = pda_profile_new(&o, &p);
	*out = p;
	if (rc != 0) {
		ck_assert_int_eq(rc, PD_ERR_NOMEM);
		ck_assert_ptr_null(p);
		return rc;
	}
	if (run->by_hand) {
		struct pda_profile_mapping m = {.start = 0x400000,
						.limit = 0x401000};
		struct pda_profile_func f = {0};
		struct pda_profile_loc l = {.line = 42, .address = 0x1f};
		const uint64_t v[2] = {3, 3000};
		uint32_t main_loc, work_loc, leaf_loc, s1, s2;

		STEP(run, pda_profile_set_column(p, 0, "cycles", "samples"));
		STEP(run, pda_profile_set_column(p, 1, "cycles", "period"));
		STEP(run, pda_profile_intern(p, "/usr/bin/demo", 13, &m.name));
		STEP(run, pda_profile_intern(p, "abc123", 6, &m.build_id));
		STEP(run, pda_profile_add_mapping(p, &m, &l.mapping));
		STEP(run, pda_profile_intern(p, "main", 4, &f.name));
		STEP(run, pda_profile_intern(p, "demo.c", 6, &f.file));
		STEP(run, pda_profile_add_func(p, &f, &l.func));
		l.label = f.name;
		l.flags = PDA_LOC_USER | PDA_LOC_DSO_OFFSET;
		STEP(run, pda_profile_add_loc(p, &l, &main_loc));
		STEP(run, pda_profile_name_loc(p, "work_[i]", 8, &work_loc));
		STEP(run, pda_profile_add_stack(p, 0, main_loc, &s1));
		STEP(run, pda_profile_add_stack(p, s1, work_loc, &s2));
		STEP(run, pda_profile_add_sample(p, s2, v));
		STEP(run, pda_profile_add_sample(p, 0, v));
		/* new, unhashed: the next add_stack() rehashes */
		STEP(run, pda_profile_name_loc(p, "leaf_[k]", 8, &leaf_loc));
		STEP(run, pda_profile_append_stack(p, s2, leaf_loc, &s1));
		STEP(run, pda_profile_add_sample(p, s1, v));
	}
	while (*text) {
		const char *nl = strchr(text, '\n');
		const size_t n = nl ? (size_t)(nl - text) + 1 : strlen(text);

		STEP(run, add_line(p, text, n, 0));
		text += n;
	}
	return 0;
}

/*
 * Run's build with the Nth allocation failing, for every N until one
 * needs no failure: each failure is PD_ERR_NOMEM, the profile frees
 * without a leak, and the run that succeeds (every run, when it
 * retries) makes the profile a build without failures makes.
 */
static void nomem_loop(const struct nomem_run *run)
{
	struct failalloc fa;
	const struct pd_alloc hooks = failalloc_hooks(&fa);
	struct pda_profile *p;
	char *want, *got;
	unsigned long n;

	failalloc_init(&fa, 0, false);
	ck_assert_int_eq(build(run, &hooks, &p), 0);
	want = dump(p);
	pda_profile_free(p);
	ck_assert_int_eq(fa.live, 0);
	for (n = 1; n < 100000; n++) {
		int rc;

		failalloc_init(&fa, n, false);
		rc = build(run, &hooks, &p);
		/* nothing fails silently (E5) */
		ck_assert_int_eq(
			rc, run->retry || !fa.nr_failed ? 0 : PD_ERR_NOMEM);
		if (rc == 0) {
			/* not ck_assert_str_eq: a dump is too long for
			 * Check's message */
			got = dump(p);
			ck_assert_msg(strcmp(got, want) == 0,
				      "failing allocation %lu: another profile",
				      n);
			free(got);
		}
		pda_profile_free(p);
		ck_assert_int_eq(fa.live, 0);
		if (!fa.nr_failed)
			break;
	}
	ck_assert_uint_gt(n, 1);
	ck_assert_uint_lt(n, 100000);
	free(want);
}

/* Folded lines enough for every array and hash of the profile to grow
 * more than once and for a second string block, with the shapes the
 * reader knows. */
static char *nomem_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	fputs(" 4\n"
	      "comm;main;work 5\n"
	      "comm;main;zero 0\n"
	      "other;[unknown]_[j] 18446744073709000000\n",
	      fp);
	for (unsigned i = 0; i < 40; i++)
		fprintf(fp, "comm;main;f%u;g%u_[k]\t%u\r\n", i % 7, i, i + 1);
	/* a name longer than a string block: a block of its own */
	fputs("comm;", fp);
	for (unsigned i = 0; i < 70000; i++)
		fputc('x', fp);
	fputs(" 6\n", fp);
	fputs("comm;main;work 2", fp);
	fclose(fp);
	return buf;
}

START_TEST(test_nomem)
{
	char *text = nomem_text();
	struct nomem_run run = {
		.retry = _i != 0, .by_hand = true, .text = text};

	nomem_loop(&run);
	free(text);
}
END_TEST

START_TEST(test_nomem_round_trip)
{
	/* text -> profile -> text -> profile, the second read failing */
	char *text = nomem_text(), *out;
	struct nomem_run run = {
		.retry = _i != 0, .by_hand = true, .text = text};
	struct pda_profile *p, *q;

	ck_assert_int_eq(build(&run, NULL, &p), 0);
	out = folded(p, 0);
	run.by_hand = false;
	run.text = out;
	nomem_loop(&run);
	/* and the text it reads back is the text it was written from */
	ck_assert_int_eq(build(&run, NULL, &q), 0);
	free(text);
	text = folded(q, 0);
	ck_assert_str_eq(text, out);
	free(text);
	free(out);
	pda_profile_free(p);
	pda_profile_free(q);
}
END_TEST

/* The folded text pde_folded_write_jobs() makes with jobs, as
 * folded() for one. */
static char *folded_jobs(const struct pda_profile *p, unsigned col,
			 unsigned jobs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(pde_folded_write_jobs(fp, p, col, jobs), 0);
	fclose(fp);
	return buf;
}

/* Written with a helper thread formatting every other block of lines:
 * the same bytes as on one thread, over several blocks and a part one,
 * lines sharing callers across the blocks' edges. */
START_TEST(test_folded_jobs)
{
	struct pda_profile *p = new_profile(1);
	char line[128], *one, *two;

	for (unsigned i = 0; i < 3 * 4096 + 17; i++) {
		snprintf(line, sizeof(line), "comm;f%u;g%u;h%u %u\n", i / 1000,
			 i / 10, i, i % 97 + 1);
		add_text(p, line);
	}
	one = folded(p, 0);
	two = folded_jobs(p, 0, 2);
	ck_assert_str_eq(two, one);
	free(two);
	/* one job: the one-thread writer */
	two = folded_jobs(p, 0, 1);
	ck_assert_str_eq(two, one);
	free(two);
	pda_profile_free(p);
	/* fewer lines than a block: no helper */
	p = new_profile(1);
	add_text(p, "comm;f;g 2\ncomm;f;h 3\n");
	free(one);
	one = folded(p, 0);
	two = folded_jobs(p, 0, 2);
	ck_assert_str_eq(two, one);
	free(two);
	ck_assert_int_eq(pde_folded_write_jobs(stdout, p, 1, 2), PD_ERR_API);
	free(one);
	pda_profile_free(p);
}
END_TEST

Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");

	tcase_add_test(tc, test_intern);
	tcase_add_test(tc, test_stacks);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_add_columns);
	tcase_add_test(tc, test_many_rows);
	tcase_add_test(tc, test_folded_reader);
	tcase_add_test(tc, test_folded_decimals);
	tcase_add_test(tc, test_folded_round_trip);
	tcase_add_test(tc, test_folded_control_labels);
	tcase_add_test(tc, test_folded_jobs);
	tcase_add_test(tc, test_fold_profile);
	/* _i: 0 gives up at the failure, 1 retries the failed call */
	tcase_add_loop_test(tc, test_nomem, 0, 2);
	tcase_add_loop_test(tc, test_nomem_round_trip, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
