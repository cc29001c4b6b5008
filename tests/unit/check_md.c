/*
 * check_md.c - pde_md_text and pde_md_code (emit/pde_md.c): names from a
 * capture render in GitHub-flavoured Markdown as the text they are, never
 * as HTML, links, emphasis or the end of a table cell; ordinary names
 * stay as they are.
 */
#include "pd_config.h" /* open_memstream */
#include "pde.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

enum md_kind { MD_TEXT, MD_CODE, MD_CELL_CODE };

static char *md(enum md_kind kind, const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	if (kind == MD_TEXT)
		pde_md_text(fp, s, n);
	else
		pde_md_code(fp, s, n, kind == MD_CELL_CODE);
	ck_assert_int_eq(fclose(fp), 0);
	return buf;
}

static const struct {
	enum md_kind kind;
	const char *in;
	size_t len; /* 0: strlen(in) */
	const char *want;
} cases[] = {
	/* names that are not syntax stay as they are */
	{MD_TEXT, "loop.c:15", 0, "loop.c:15"},
	{MD_TEXT, "/usr/lib/x86_64-linux-gnu/libc.so.6", 0,
	 "/usr/lib/x86_64-linux-gnu/libc.so.6"},
	{MD_TEXT, "mix_columns (inlined)", 0, "mix_columns (inlined)"},
	{MD_TEXT, "caf\xc3\xa9", 0, "caf\xc3\xa9"},
	/* HTML: a template argument, a tag with a handler */
	{MD_TEXT, "std::vector<int>::push_back(int const&)", 0,
	 "std::vector\\<int\\>::push_back(int const\\&)"},
	{MD_TEXT, "<img src=x onerror=alert(1)>", 0,
	 "\\<img src=x onerror=alert(1)\\>"},
	{MD_TEXT, "&lt;b&gt;", 0, "\\&lt;b\\&gt;"},
	/* a table cell's end */
	{MD_TEXT, "a|b", 0, "a\\|b"},
	{MD_TEXT, "a\\|b", 0, "a\\\\\\|b"},
	/* links, emphasis, code, headings, strikethrough, math */
	{MD_TEXT, "[x](javascript:y)", 0, "\\[x\\](javascript:y)"},
	{MD_TEXT, "*a* _b_ __c", 0, "\\*a\\* \\_b\\_ \\_\\_c"},
	{MD_TEXT, "`x`", 0, "\\`x\\`"},
	{MD_TEXT, "f #1 ~a~ $x$", 0, "f \\#1 \\~a\\~ \\$x\\$"},
	/* control characters and bytes that are not UTF-8: visible */
	{MD_TEXT, "a\tb\nc\x1b[31m\x7f", 0, "a\\x09b\\x0ac\\x1b\\[31m\\x7f"},
	{MD_TEXT, "\xff\xc3", 0, "\\xff\\xc3"},
	/* a C1 control (U+009B, CSI): both bytes */
	{MD_TEXT, "x\xc2\x9b[2J", 0, "x\\xc2\\x9b\\[2J"},
	/* n bytes, or up to a NUL */
	{MD_TEXT, "ab\0cd", 5, "ab"},
	{MD_TEXT, "a<b>", 2, "a\\<"},

	/* code spans: content as it is, the fence longer than its backticks */
	{MD_CODE, "h ^= v;", 0, "`h ^= v;`"},
	{MD_CODE, "std::vector<int>", 0, "`std::vector<int>`"},
	{MD_CODE, "a|b", 0, "`a|b`"},
	{MD_CELL_CODE, "a|b", 0, "`a\\|b`"},
	{MD_CELL_CODE, "a\\|b", 0, "`a\\\\\\|b`"},
	{MD_CODE, "a`b", 0, "``a`b``"},
	{MD_CODE, "`x``", 0, "``` `x`` ```"},
	{MD_CODE, " x ", 0, "`  x  `"},
	{MD_CODE, "\tx", 0, "` x`"},
	{MD_CODE, "", 0, "` `"},
	{MD_CODE, "a\x01\n\xff", 0, "`a\\x01\\x0a\\xff`"},
	{MD_CODE, "\xc2\x9b", 0, "`\\xc2\\x9b`"},
	/* a newline and a fence cannot end the span, or a code block */
	{MD_CODE, "a\n```\n<img src=x>", 0,
	 "````a\\x0a```\\x0a<img src=x>````"},
};

START_TEST(test_escape)
{
	const size_t len = cases[_i].len ? cases[_i].len : strlen(cases[_i].in);
	char *got = md(cases[_i].kind, cases[_i].in, len);

	ck_assert_msg(strcmp(got, cases[_i].want) == 0,
		      "case %d: got '%s', want '%s'", _i, got, cases[_i].want);
	free(got);
}
END_TEST

Suite *md_suite(void)
{
	Suite *s = suite_create("md");
	TCase *tc = tcase_create("escape");

	tcase_add_loop_test(tc, test_escape, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	suite_add_tcase(s, tc);
	return s;
}
