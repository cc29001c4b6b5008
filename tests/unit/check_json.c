/*
 * check_json.c - pde_json always writes valid JSON: structure, escapes,
 * and bytes that are not UTF-8 (a capture's comm or filename can hold
 * anything).
 */
#include "pd_config.h" /* open_memstream */
#include "pde.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

struct out {
	char *buf;
	size_t len;
	FILE *fp;
	struct pde_json j;
};

static void out_open(struct out *o, bool pretty)
{
	o->buf = NULL;
	o->len = 0;
	o->fp = open_memstream(&o->buf, &o->len);
	ck_assert_ptr_nonnull(o->fp);
	pde_json_init(&o->j, o->fp, pretty);
}

static const char *out_close(struct out *o)
{
	fclose(o->fp);
	return o->buf;
}

START_TEST(test_structure)
{
	struct out o;

	out_open(&o, false);
	pde_json_begin_object(&o.j, NULL);
	pde_json_u64(&o.j, "a", 18446744073709551615ull);
	pde_json_i64(&o.j, "b", -1);
	pde_json_begin_array(&o.j, "c");
	pde_json_bool(&o.j, NULL, true);
	pde_json_null(&o.j, NULL);
	pde_json_hex(&o.j, NULL, 0xff);
	pde_json_end_array(&o.j);
	pde_json_begin_object(&o.j, "d");
	pde_json_end_object(&o.j);
	pde_json_begin_array(&o.j, "e");
	pde_json_end_array(&o.j);
	pde_json_hexbytes(&o.j, "f", (const unsigned char *)"\x01\xab", 2);
	pde_json_double(&o.j, "g", 0.5);
	pde_json_end_object(&o.j);
	pde_json_newline(&o.j);
	ck_assert_str_eq(out_close(&o),
			 "{\"a\":18446744073709551615,\"b\":-1,\"c\":[true,null,"
			 "\"0xff\"],\"d\":{},\"e\":[],\"f\":\"01ab\",\"g\":0.5}\n");
	free(o.buf);
}
END_TEST

static const struct {
	const char *in;
	size_t len;
	const char *want;
} strings[] = {
	{ "plain", 5, "\"plain\"" },
	{ "q\"b\\s", 5, "\"q\\\"b\\\\s\"" },
	{ "\n\t\x01\x7f", 4, "\"\\n\\t\\u0001\\u007f\"" },
	/* valid UTF-8 passes through */
	{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9,
	  "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"" },
	/* invalid: lone continuation, truncated sequence, overlong, surrogate */
	{ "\x80", 1, "\"\\u0080\"" },
	{ "a\xc3", 2, "\"a\\u00c3\"" },
	{ "\xc0\xaf", 2, "\"\\u00c0\\u00af\"" },
	{ "\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\"" },
	{ "\xf5\x80\x80\x80", 4, "\"\\u00f5\\u0080\\u0080\\u0080\"" },
	/* stops at the length, and at a NUL */
	{ "abcdef", 3, "\"abc\"" },
	{ "ab\0cd", 5, "\"ab\"" },
};

START_TEST(test_strings)
{
	struct out o;

	out_open(&o, false);
	pde_json_strn(&o.j, NULL, strings[_i].in, strings[_i].len);
	ck_assert_str_eq(out_close(&o), strings[_i].want);
	free(o.buf);
}
END_TEST

START_TEST(test_keys_escaped)
{
	struct out o;

	out_open(&o, false);
	pde_json_begin_object(&o.j, NULL);
	pde_json_u64(&o.j, "k\"\xff", 1);
	pde_json_end_object(&o.j);
	ck_assert_str_eq(out_close(&o), "{\"k\\\"\\u00ff\":1}");
	free(o.buf);
}
END_TEST

START_TEST(test_text_str)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	pde_text_str(fp, "a\x01\xc3\xa9\xff", 5);
	fclose(fp);
	ck_assert_str_eq(buf, "a\\x01\xc3\xa9\\xff");
	free(buf);
}
END_TEST

Suite *json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("writer");

	tcase_add_test(tc, test_structure);
	tcase_add_loop_test(tc, test_strings, 0,
			    sizeof(strings) / sizeof(strings[0]));
	tcase_add_test(tc, test_keys_escaped);
	tcase_add_test(tc, test_text_str);
	suite_add_tcase(s, tc);
	return s;
}
