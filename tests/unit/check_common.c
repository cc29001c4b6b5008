/*
 * check_common.c - common/, the plumbing below the layers: growth with
 * its overflow check and cap, the options rule (R2), the cursor's bounds,
 * the string buffer's growth, UTF-8 validation, the text rule for names
 * from captures (pdc_text.h) and the arena, each with
 * its allocation failures (T9).
 */
#include "failalloc.h"
#include "pdc_alloc.h"
#include "pdc_arena.h"
#include "pdc_cur.h"
#include "pdc_opts.h"
#include "pdc_strbuf.h"
#include "pdc_text.h"
#include "pdc_utf8.h"

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* ---- growth (O5) --------------------------------------------------- */

START_TEST(test_grow)
{
	struct failalloc fa = {.fail_at = 0};
	const struct pd_alloc a = failalloc_hooks(&fa);
	uint32_t *v = NULL;
	size_t alloc = 0;

	/* nothing to do: no allocation */
	ck_assert_int_eq(PDC_GROW(&a, v, alloc, 0, 100), 0);
	ck_assert_ptr_null(v);
	/* from 16, doubling */
	ck_assert_int_eq(PDC_GROW(&a, v, alloc, 1, 100), 0);
	ck_assert_uint_eq(alloc, 16);
	ck_assert_int_eq(PDC_GROW(&a, v, alloc, 17, 100), 0);
	ck_assert_uint_eq(alloc, 32);
	/* doubling stops at the cap */
	ck_assert_int_eq(PDC_GROW(&a, v, alloc, 65, 100), 0);
	ck_assert_uint_eq(alloc, 100);
	v[99] = 7;
	/* past the cap: refused, the array unchanged */
	ck_assert_int_eq(PDC_GROW(&a, v, alloc, 101, 100), PDC_ERR_NOMEM);
	ck_assert_uint_eq(alloc, 100);
	ck_assert_uint_eq(v[99], 7);
	/* an allocation that fails leaves the array as it was */
	fa.fail_at = fa.nr_calls + 1;
	ck_assert_int_eq(PDC_GROW(&a, v, alloc, 100, SIZE_MAX), 0);
	ck_assert_int_eq(PDC_GROW(&a, v, alloc, 101, SIZE_MAX), PDC_ERR_NOMEM);
	ck_assert_uint_eq(alloc, 100);
	ck_assert_uint_eq(v[99], 7);
	pdc_free(&a, v);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

START_TEST(test_grow_overflow)
{
	struct failalloc fa = {.fail_at = 0};
	const struct pd_alloc a = failalloc_hooks(&fa);
	struct big {
		char b[4096];
	} *v = NULL;
	size_t alloc = 0;

	/* the byte size would wrap: refused before any allocation */
	ck_assert_int_eq(PDC_GROW(&a, v, alloc, SIZE_MAX / 4096 + 1, SIZE_MAX),
			 PDC_ERR_NOMEM);
	ck_assert_int_eq(
		pdc_grow(&a, (void **)&v, 4096, &alloc, SIZE_MAX / 2, SIZE_MAX),
		PDC_ERR_NOMEM);
	ck_assert_ptr_null(v);
	ck_assert_uint_eq(alloc, 0);
	ck_assert_uint_eq(fa.nr_calls, 0);
	/* a doubling that would pass SIZE_MAX elements stops at the cap */
	ck_assert_int_eq(pdc_regrow(&a, (void **)&v, 1, &alloc, 20, 20), 0);
	ck_assert_uint_eq(alloc, 20);
	pdc_free(&a, v);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

START_TEST(test_alloc)
{
	struct failalloc fa = {.fail_at = 2};
	const struct pd_alloc a = failalloc_hooks(&fa);
	char *p, *q;

	/* size 0 is 1: NULL only means out of memory */
	p = pdc_malloc(&a, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_null(pdc_strndup(&a, "abc", 3));
	q = pdc_strndup(&a, "abcdef", 3);
	ck_assert_str_eq(q, "abc");
	pdc_free(&a, p);
	pdc_free(&a, q);
	pdc_free(&a, NULL);
	ck_assert_int_eq(fa.live, 0);
	/* no hooks: libc's */
	p = pdc_zalloc(NULL, 8);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p[7], 0);
	pdc_free(NULL, p);
}
END_TEST

/* ---- the options rule (R2) ----------------------------------------- */

struct v1_opts {
	size_t sz;
	int a;
};

struct v2_opts {
	size_t sz;
	int a;
	int b;
	const char *c;
};

struct v3_opts {
	struct v2_opts v2;
	int d;
};

START_TEST(test_opts)
{
	struct v1_opts older = {.sz = sizeof(older), .a = 1};
	struct v2_opts equal = {.sz = sizeof(equal), .a = 1, .b = 2, .c = "c"};
	struct v3_opts newer;
	struct v2_opts o;

	/* padding included: an older struct's tail padding is copied, and
	 * a newer one's tail must be zero byte for byte */
	memset(&older, 0, sizeof(older));
	older.sz = sizeof(older);
	older.a = 1;
	memset(&newer, 0, sizeof(newer));
	newer.v2.sz = sizeof(newer);
	newer.v2.a = 1;
	newer.v2.b = 2;

	/* older: read as far as its sz, the rest zero */
	memset(&o, 0xff, sizeof(o));
	ck_assert_int_eq(pdc_opts_copy(&o, sizeof(o), &older), 0);
	ck_assert_int_eq(o.a, 1);
	ck_assert_int_eq(o.b, 0);
	ck_assert_ptr_null(o.c);
	/* PDC_OPTS_HAS: what a caller's sz covers */
	o.sz = offsetof(struct v2_opts, c);
	ck_assert(PDC_OPTS_HAS(&o, struct v2_opts, b));
	ck_assert(!PDC_OPTS_HAS(&o, struct v2_opts, c));
	o.sz = sizeof(o);
	ck_assert(PDC_OPTS_HAS(&o, struct v2_opts, c));
	/* the same version */
	ck_assert_int_eq(pdc_opts_copy(&o, sizeof(o), &equal), 0);
	ck_assert_int_eq(o.a, 1);
	ck_assert_int_eq(o.b, 2);
	ck_assert_str_eq(o.c, "c");
	ck_assert_uint_eq(o.sz, sizeof(equal));
	/* newer, its tail zero: accepted, our part copied */
	ck_assert_int_eq(pdc_opts_copy(&o, sizeof(o), &newer), 0);
	ck_assert_int_eq(o.a, 1);
	ck_assert_int_eq(o.b, 2);
	/* newer, an option we lack set: rejected, ours zeroed */
	newer.d = 1;
	ck_assert_int_eq(pdc_opts_copy(&o, sizeof(o), &newer), PDC_ERR_API);
	ck_assert_int_eq(o.a, 0);
	/* an sz that cannot hold sz, and one past the cap */
	equal.sz = sizeof(size_t) - 1;
	ck_assert_int_eq(pdc_opts_copy(&o, sizeof(o), &equal), PDC_ERR_API);
	equal.sz = 0;
	ck_assert_int_eq(pdc_opts_copy(&o, sizeof(o), &equal), PDC_ERR_API);
	equal.sz = PDC_OPTS_MAX_SIZE + 1;
	ck_assert_int_eq(pdc_opts_copy(&o, sizeof(o), &equal), PDC_ERR_API);
	/* sz alone: every option at its default */
	equal.sz = sizeof(size_t);
	ck_assert_int_eq(pdc_opts_copy(&o, sizeof(o), &equal), 0);
	ck_assert_int_eq(o.a, 0);
	ck_assert_ptr_null(o.c);
}
END_TEST

/* ---- the cursor ---------------------------------------------------- */

START_TEST(test_cursor)
{
	static const unsigned char bytes[] = {1, 2,  3,	 4,  5,	 6,  7, 8,
					      9, 10, 11, 12, 13, 14, 15};
	const unsigned char *p;
	struct pdc_cur c;
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;
	uint8_t v8;

	pdc_cur_init(&c, bytes, sizeof(bytes), 0);
	ck_assert_uint_eq(pdc_cur_left(&c), 15);
	ck_assert(pdc_cur_u8(&c, &v8));
	ck_assert_uint_eq(v8, 1);
	ck_assert(pdc_cur_u16(&c, &v16));
	ck_assert_uint_eq(v16, pd_load_u16(bytes + 1, 0));
	ck_assert(pdc_cur_u32(&c, &v32));
	ck_assert_uint_eq(v32, pd_load_u32(bytes + 3, 0));
	ck_assert_uint_eq(pdc_cur_pos(&c), 7);
	ck_assert_uint_eq(pdc_cur_left(&c), 8);
	ck_assert(pdc_cur_u64(&c, &v64));
	ck_assert_uint_eq(v64, pd_load_u64(bytes + 7, 0));
	/* at the end: every take fails and the cursor stays */
	ck_assert_uint_eq(pdc_cur_left(&c), 0);
	ck_assert(!pdc_cur_u8(&c, &v8));
	ck_assert(!pdc_cur_skip(&c, 1));
	ck_assert(pdc_cur_take(&c, 0, &p));
	ck_assert_uint_eq(pdc_cur_pos(&c), 15);

	/* one byte short of each size: nothing taken */
	pdc_cur_init(&c, bytes, 7, 0);
	ck_assert(!pdc_cur_u64(&c, &v64));
	ck_assert_uint_eq(pdc_cur_pos(&c), 0);
	ck_assert(pdc_cur_skip(&c, 4));
	ck_assert(!pdc_cur_u32(&c, &v32));
	ck_assert(pdc_cur_skip(&c, 2));
	ck_assert(!pdc_cur_u16(&c, &v16));
	ck_assert_uint_eq(pdc_cur_left(&c), 1);
	/* a size field far past the end, and one that would wrap */
	ck_assert(!pdc_cur_take(&c, 2, &p));
	ck_assert(!pdc_cur_take(&c, UINT64_MAX, &p));
	ck_assert_uint_eq(pdc_cur_left(&c), 1);

	/* the other byte order */
	pdc_cur_init(&c, bytes, sizeof(bytes), 1);
	ck_assert(pdc_cur_u16(&c, &v16));
	ck_assert_uint_eq(v16, 0x0102);
	ck_assert(pdc_cur_u32(&c, &v32));
	ck_assert_uint_eq(v32, 0x03040506);
	ck_assert(pdc_cur_u64(&c, &v64));
	ck_assert_uint_eq(v64, 0x0708090a0b0c0d0eull);
}
END_TEST

/* ---- the string buffer --------------------------------------------- */

START_TEST(test_strbuf)
{
	struct failalloc fa = {.fail_at = 0};
	const struct pd_alloc a = failalloc_hooks(&fa);
	char small[16], want[301], big[201];
	struct pdc_strbuf b;

	memset(big, 'x', 200);
	big[200] = '\0';
	/* printf output past 63 bytes and past the small buffer, whole */
	pdc_strbuf_init(&b, &a, small, sizeof(small));
	pdc_strbuf_add(&b, "ab", 2);
	ck_assert_ptr_eq(b.p, small);
	pdc_strbuf_addf(&b, "<%s>", big);
	pdc_strbuf_addf(&b, ":%d", 42);
	snprintf(want, sizeof(want), "ab<%s>:42", big);
	ck_assert(!b.oom);
	ck_assert_uint_eq(b.len, strlen(want));
	ck_assert_str_eq(pdc_strbuf_str(&b), want);
	ck_assert_int_eq(fa.live, 1);
	pdc_strbuf_release(&b);
	ck_assert_int_eq(fa.live, 0);
	ck_assert_ptr_eq(b.p, small);
	ck_assert_uint_eq(b.len, 0);

	/* no small buffer */
	pdc_strbuf_init(&b, &a, NULL, 0);
	ck_assert_str_eq(pdc_strbuf_str(&b), "");
	for (int i = 0; i < 100; i++)
		pdc_strbuf_addf(&b, "%d,", i % 10);
	ck_assert_uint_eq(b.len, 200);
	ck_assert_int_eq(strncmp(b.p, "0,1,2,3,4,5,6,7,8,9,0,", 22), 0);
	pdc_strbuf_release(&b);

	/* out of memory: sticky, nothing added, still freeable */
	pdc_strbuf_init(&b, &a, small, sizeof(small));
	pdc_strbuf_add(&b, "0123456789", 10);
	fa.fail_at = fa.nr_calls + 1;
	pdc_strbuf_addf(&b, "%s", big);
	ck_assert(b.oom);
	ck_assert_str_eq(b.p, "0123456789");
	fa.fail_at = 0;
	pdc_strbuf_add(&b, "x", 1);
	ck_assert_uint_eq(b.len, 10);
	pdc_strbuf_release(&b);
	ck_assert(!b.oom);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

/* ---- UTF-8 --------------------------------------------------------- */

static const struct {
	const char *bytes;
	size_t n;   /* bytes given */
	size_t len; /* 0: invalid */
	uint32_t cp;
} utf8_cases[] = {
	{"A", 1, 1, 'A'},
	{"\0", 1, 1, 0},
	{"\x7f", 1, 1, 0x7f},
	{"\xc2\x80", 2, 2, 0x80},
	{"\xc3\xa9xyz", 4, 2, 0xe9},
	{"\xdf\xbf", 2, 2, 0x7ff},
	{"\xe0\xa0\x80", 3, 3, 0x800},
	{"\xe2\x82\xac", 3, 3, 0x20ac},
	{"\xef\xbf\xbf", 3, 3, 0xffff}, /* valid; XML's to refuse */
	{"\xf0\x90\x80\x80", 4, 4, 0x10000},
	{"\xf4\x8f\xbf\xbf", 4, 4, 0x10ffff},
	{"\x80", 1, 0, 0}, /* a stray continuation */
	{"\xbf", 1, 0, 0},
	{"\xc0\x80", 2, 0, 0},	       /* overlong NUL */
	{"\xc1\xbf", 2, 0, 0},	       /* overlong */
	{"\xe0\x80\x80", 3, 0, 0},     /* overlong */
	{"\xf0\x80\x80\x80", 4, 0, 0}, /* overlong */
	{"\xed\xa0\x80", 3, 0, 0},     /* surrogate U+D800 */
	{"\xed\xbf\xbf", 3, 0, 0},     /* surrogate U+DFFF */
	{"\xf4\x90\x80\x80", 4, 0, 0}, /* U+110000 */
	{"\xf5\x80\x80\x80", 4, 0, 0},
	{"\xff", 1, 0, 0},
	{"\xc3", 1, 0, 0},	   /* truncated by n */
	{"\xe2\x82\xac", 2, 0, 0}, /* truncated by n */
	{"\xe2\x82"
	 "A",
	 3, 0, 0}, /* not a continuation */
	{"\xf0\x90\x80", 3, 0, 0},
};

START_TEST(test_utf8)
{
	uint32_t cp = 0xdead;

	ck_assert_uint_eq(
		pdc_utf8_decode(utf8_cases[_i].bytes, utf8_cases[_i].n, &cp),
		utf8_cases[_i].len);
	ck_assert_uint_eq(pdc_utf8_len(utf8_cases[_i].bytes, utf8_cases[_i].n),
			  utf8_cases[_i].len);
	if (utf8_cases[_i].len)
		ck_assert_uint_eq(cp, utf8_cases[_i].cp);
	else
		ck_assert_uint_eq(cp, 0xdead);
}
END_TEST

/* ---- text: what shows as it is, \xNN for the rest (pdc_text.h) ------ */

static const struct {
	const char *bytes;
	size_t n;
	const char *text; /* pdc_strbuf_add_text()'s */
	size_t plain;	  /* pdc_text_plain()'s */
} text_cases[] = {
	{"", 0, "", 0},
	{"main", 4, "main", 4},
	{"std::vector<int>", 16, "std::vector<int>", 16},
	{"a b~", 4, "a b~", 4},
	/* a newline would start a line; ESC, BEL an escape sequence */
	{"evil;f 9\nx", 10, "evil;f 9\\x0ax", 8},
	{"\x1b]0;t\x07", 6, "\\x1b]0;t\\x07", 0},
	{"\r\t\x01\x1f", 4, "\\x0d\\x09\\x01\\x1f", 0},
	{"a\0b", 3, "a\\x00b", 1},
	{"del\x7f", 4, "del\\x7f", 3},
	/* UTF-8 shows as it is, from U+00A0 on */
	{"caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x94\xa5", 14,
	 "caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x94\xa5", 14},
	{"\xc2\xa0", 2, "\xc2\xa0", 2},
	/* a C1 control (U+009B, CSI) is a control: both its bytes */
	{"x\xc2\x9b"
	 "2J",
	 5, "x\\xc2\\x9b2J", 1},
	{"\xc2\x80", 2, "\\xc2\\x80", 0},
	/* bytes that are not UTF-8, a lone 0x9b among them */
	{"\x9b[", 2, "\\x9b[", 0},
	{"bad\xff\xc3(", 6, "bad\\xff\\xc3(", 3},
	{"\xed\xa0\x80", 3, "\\xed\\xa0\\x80", 0},
	{"\xe2\x82", 2, "\\xe2\\x82", 0},
	/* written text is written unchanged: no byte to escape is left */
	{"\\x1b", 4, "\\x1b", 4},
};

START_TEST(test_text)
{
	struct failalloc fa = {.fail_at = 0};
	const struct pd_alloc a = failalloc_hooks(&fa);
	const char *s = text_cases[_i].bytes;
	const size_t n = text_cases[_i].n;
	char small[8];
	struct pdc_strbuf b, again;

	ck_assert_uint_eq(pdc_text_plain(s, n), text_cases[_i].plain);
	if (n)
		ck_assert_uint_eq(pdc_text_char(s, n) != 0,
				  text_cases[_i].plain != 0);
	pdc_strbuf_init(&b, &a, small, sizeof(small));
	pdc_strbuf_add_text(&b, s, n);
	ck_assert(!b.oom);
	ck_assert_str_eq(pdc_strbuf_str(&b), text_cases[_i].text);
	ck_assert_uint_eq(b.len, strlen(text_cases[_i].text));
	/* no byte of the result needs escaping: a second pass is a copy */
	ck_assert_uint_eq(pdc_text_plain(b.p, b.len), b.len);
	pdc_strbuf_init(&again, &a, NULL, 0);
	pdc_strbuf_add_text(&again, b.p, b.len);
	ck_assert_str_eq(pdc_strbuf_str(&again), pdc_strbuf_str(&b));
	pdc_strbuf_release(&again);
	pdc_strbuf_release(&b);

	/* out of memory: the buffer says so, and frees */
	pdc_strbuf_init(&b, &a, NULL, 0);
	fa.fail_at = fa.nr_calls + 1;
	pdc_strbuf_add_text(&b, "\x1b[2J and more", 13);
	ck_assert(b.oom);
	pdc_strbuf_release(&b);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

/* ---- the arena ----------------------------------------------------- */

START_TEST(test_arena)
{
	struct failalloc fa = {.fail_at = 0};
	const struct pd_alloc a = failalloc_hooks(&fa);
	struct pdc_arena ar = PDC_ARENA_INIT;
	unsigned char *small1, *small2, *big, *after;
	char *s;

	small1 = pdc_arena_alloc(&ar, &a, 1);
	small2 = pdc_arena_zalloc(&ar, &a, 3);
	ck_assert_ptr_nonnull(small1);
	ck_assert_uint_eq((uintptr_t)small1 % PDC_ARENA_ALIGN, 0);
	ck_assert_uint_eq((uintptr_t)small2 % PDC_ARENA_ALIGN, 0);
	ck_assert_int_eq(small2[0] | small2[1] | small2[2], 0);
	ck_assert_int_eq(fa.live, 1);
	/* a big request has a block of its own; the current one goes on */
	big = pdc_arena_alloc(&ar, &a, PDC_ARENA_BLOCK);
	ck_assert_ptr_nonnull(big);
	ck_assert_int_eq(fa.live, 2);
	after = pdc_arena_alloc(&ar, &a, 16);
	ck_assert_ptr_eq(after, small2 + PDC_ARENA_ALIGN);
	s = pdc_arena_strndup(&ar, &a, "hello world", 5);
	ck_assert_str_eq(s, "hello");
	/* out of memory: NULL, and the arena stays usable and freeable */
	fa.fail_at = fa.nr_calls + 1;
	ck_assert_ptr_null(pdc_arena_alloc(&ar, &a, PDC_ARENA_BLOCK));
	ck_assert_ptr_null(pdc_arena_alloc(&ar, &a, SIZE_MAX));
	ck_assert_ptr_nonnull(pdc_arena_alloc(&ar, &a, 16));
	pdc_arena_release(&ar, &a);
	ck_assert_int_eq(fa.live, 0);
	ck_assert_uint_eq(ar.total, 0);
	/* released: empty and reusable */
	ck_assert_ptr_nonnull(pdc_arena_alloc(&ar, &a, 8));
	pdc_arena_release(&ar, &a);
	pdc_arena_release(&ar, &a);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

Suite *common_suite(void)
{
	Suite *s = suite_create("common");
	TCase *tc = tcase_create("common");

	tcase_add_test(tc, test_grow);
	tcase_add_test(tc, test_grow_overflow);
	tcase_add_test(tc, test_alloc);
	tcase_add_test(tc, test_opts);
	tcase_add_test(tc, test_cursor);
	tcase_add_test(tc, test_strbuf);
	tcase_add_loop_test(tc, test_utf8, 0, (int)NR(utf8_cases));
	tcase_add_loop_test(tc, test_text, 0, (int)NR(text_cases));
	tcase_add_test(tc, test_arena);
	suite_add_tcase(s, tc);
	return s;
}
