/*
 * check_demangle.c - symbol names as perf 6.1 prints them (pda_demangle).
 *
 * data/perf61/demangle.txt holds what perf 6.1 printed for ELF symbols
 * with those names (recorded by data/perf61-symbols.py): C++ without
 * parameter lists, Rust legacy without the hash and v0, OCaml, and names
 * left as they are.  D names, which perf leaves mangled and pdtool
 * demangles, are checked against libiberty's D demangler's output here.
 */
#include "elftest.h"

#include "pda_symbols_int.h"

#include "failalloc.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct et_session es;
static struct pda_session *S;
static struct failalloc fa;
static struct pd_alloc counting;

static void setup(void)
{
	failalloc_init(&fa, 0, false);
	counting = failalloc_hooks(&fa);
	S = et_session_new(&es, &counting);
}

static void teardown(void)
{
	et_session_free(&es);
}

START_TEST(test_perf61)
{
	FILE *f = fopen("data/perf61/demangle.txt", "r");
	char line[1024];
	size_t nr = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char *tab;

		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		tab = strchr(line, '\t');
		ck_assert_ptr_nonnull(tab);
		*tab = '\0';
		ck_assert_msg(!strcmp(pda_demangle(S, line), tab + 1),
			      "%s: perf '%s', pdtool '%s'", line, tab + 1,
			      pda_demangle(S, line));
		nr++;
	}
	fclose(f);
	ck_assert_uint_ge(nr, 20);
}
END_TEST

/* D, which perf 6.1 leaves as it is, as libiberty demangles it. */
START_TEST(test_dlang)
{
	ck_assert_str_eq(pda_demangle(S, "_D3foo3barFiZv"), "foo.bar(int)");
	ck_assert_str_eq(pda_demangle(S, "_D4test3fooFZi"), "test.foo()");
	ck_assert_str_eq(pda_demangle(S, "_D"), "_D");
	ck_assert_str_eq(pda_demangle(S, "_Dfoo"), "_Dfoo");
}
END_TEST

/* perf demangles a PLT entry's symbol, then appends "@plt". */
START_TEST(test_plt)
{
	ck_assert_str_eq(pda_demangle(S, "_ZNSo3putEc@plt"),
			 "std::ostream::put@plt");
	ck_assert_str_eq(pda_demangle(S, "_RNvCs1234_7mycrate3foo@plt"),
			 "mycrate::foo@plt");
	ck_assert_str_eq(pda_demangle(S, "printf@plt"), "printf@plt");
	ck_assert_str_eq(pda_demangle(S, "@plt"), "@plt");
	ck_assert_str_eq(pda_demangle(S, ".plt"), ".plt");
	ck_assert_str_eq(pda_demangle(S, "offset_0x1030@plt"),
			 "offset_0x1030@plt");
}
END_TEST

START_TEST(test_unchanged)
{
	static const char *const names[] = {
		"",	     "main",
		"_start",    "memcpy@GLIBC_2.2.5",
		"caml",	     "camlx_y",
		"_Zfoo",     "foo.cold",
		"$x",	     "x86.get_pc_thunk.bx",
		"[unknown]",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ck_assert_str_eq(pda_demangle(S, names[i]), names[i]);
}
END_TEST

START_TEST(test_interned)
{
	char buf[64];
	const char *a = pda_demangle(S, "_ZN3fooC2Ev");

	snprintf(buf, sizeof(buf), "%s", "_ZN3fooC2Ev");
	ck_assert_ptr_eq(pda_demangle(S, buf), a);
	ck_assert_ptr_eq(pda_demangle(S, "_ZN3fooC1Ev"), a); /* foo::foo */
	ck_assert_ptr_eq(pda_demangle(S, "main"), pda_intern(S, "main", 4));
}
END_TEST

START_TEST(test_nomem)
{
	bool done = false;

	for (long n = 0; !done && n < 50; n++) {
		const char *r;

		failalloc_init(&fa, (unsigned long)n + 1, false);
		r = pda_demangle(S, "_ZNSo5flushEv@plt");
		done = !fa.nr_failed;
		fa.fail_at = 0;
		if (r)
			ck_assert_str_eq(r, "std::ostream::flush@plt");
		else
			ck_assert(!done);
	}
	ck_assert(done);
}
END_TEST

Suite *demangle_suite(void)
{
	Suite *s = suite_create("demangle");
	TCase *tc = tcase_create("demangle");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_perf61);
	tcase_add_test(tc, test_dlang);
	tcase_add_test(tc, test_plt);
	tcase_add_test(tc, test_unchanged);
	tcase_add_test(tc, test_interned);
	tcase_add_test(tc, test_nomem);
	suite_add_tcase(s, tc);
	return s;
}
