/*
 * check_common.c - common/, the plumbing below the layers: growth with
 * its overflow check and cap, the options rule (R2), the cursor's bounds,
 * the string buffer's growth, UTF-8 validation, the text rule for names
 * from captures (pdc_text.h) and the arena, each with its allocation
 * failures (T9), the hash table and the intern table; SHA-256 against
 * FIPS 180-4's examples.
 */
#include "failalloc.h"
#include "pdc_alloc.h"
#include "pdc_arena.h"
#include "pdc_cur.h"
#include "pdc_hash.h"
#include "pdc_intern.h"
#include "pdc_opts.h"
#include "pdc_sha256.h"
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

/* ---- LEB128 -------------------------------------------------------- */

START_TEST(test_leb)
{
	static const uint64_t vals[] = {0, 1, 0x7f, 0x80, 0x3fff, 0x4000,
					(uint64_t)1 << 56, UINT64_MAX >> 1,
					(uint64_t)1 << 63, UINT64_MAX};
	static const size_t sizes[] = {1, 1, 1, 2, 2, 3, 9, 9, 10, 10};
	/* 11 bytes: one past the longest */
	static const unsigned char eleven[] = {0x80, 0x80, 0x80, 0x80,
					       0x80, 0x80, 0x80, 0x80,
					       0x80, 0x80, 0x00};
	/* 0 and 5 padded to the longest: taken, high bits dropped */
	static const unsigned char over0[] = {0x80, 0x00};
	static const unsigned char over10[] = {0x85, 0x80, 0x80, 0x80, 0x80,
					       0x80, 0x80, 0x80, 0x80, 0x7e};
	unsigned char buf[PDC_LEB_MAX + 1];
	struct pdc_cur c;
	uint64_t v;
	int64_t sv;

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		const size_t n = pdc_uleb_put(buf, vals[i]);

		ck_assert_uint_eq(n, sizes[i]);
		pdc_cur_init(&c, buf, n, 0);
		ck_assert(pdc_cur_uleb(&c, &v));
		ck_assert_uint_eq(v, vals[i]);
		ck_assert_uint_eq(pdc_cur_left(&c), 0);
		/* truncated by a byte: nothing taken */
		pdc_cur_init(&c, buf, n - 1, 0);
		ck_assert(!pdc_cur_uleb(&c, &v));
		ck_assert_uint_eq(pdc_cur_pos(&c), 0);
	}
	pdc_cur_init(&c, eleven, sizeof(eleven), 0);
	ck_assert(!pdc_cur_uleb(&c, &v));
	ck_assert(!pdc_cur_sleb(&c, &sv));
	ck_assert_uint_eq(pdc_cur_pos(&c), 0);
	pdc_cur_init(&c, over0, sizeof(over0), 0);
	ck_assert(pdc_cur_uleb(&c, &v));
	ck_assert_uint_eq(v, 0);
	ck_assert_uint_eq(pdc_cur_pos(&c), 2);
	pdc_cur_init(&c, over10, sizeof(over10), 0);
	ck_assert(pdc_cur_uleb(&c, &v));
	ck_assert_uint_eq(v, 5);
	/* two in a row, the second where the first ends */
	pdc_cur_init(&c, (const unsigned char[]){0xe5, 0x8e, 0x26, 0x7f}, 4,
		     0);
	ck_assert(pdc_cur_uleb(&c, &v));
	ck_assert_uint_eq(v, 624485);
	ck_assert(pdc_cur_sleb(&c, &sv));
	ck_assert_int_eq(sv, -1);

	/* signed: DWARF's examples, and the ends of the range */
	pdc_cur_init(&c, (const unsigned char[]){0x02, 0x7e, 0xff, 0x00, 0x81,
						 0x7f, 0x80, 0x7f, 0xc0, 0xbb,
						 0x78},
		     11, 0);
	ck_assert(pdc_cur_sleb(&c, &sv));
	ck_assert_int_eq(sv, 2);
	ck_assert(pdc_cur_sleb(&c, &sv));
	ck_assert_int_eq(sv, -2);
	ck_assert(pdc_cur_sleb(&c, &sv));
	ck_assert_int_eq(sv, 127);
	ck_assert(pdc_cur_sleb(&c, &sv));
	ck_assert_int_eq(sv, -127);
	ck_assert(pdc_cur_sleb(&c, &sv));
	ck_assert_int_eq(sv, -128);
	ck_assert(pdc_cur_sleb(&c, &sv));
	ck_assert_int_eq(sv, -123456);
	/* INT64_MIN and INT64_MAX take 10 bytes: no sign bit past 63 */
	pdc_cur_init(&c, (const unsigned char[]){0x80, 0x80, 0x80, 0x80, 0x80,
						 0x80, 0x80, 0x80, 0x80, 0x7f},
		     10, 0);
	ck_assert(pdc_cur_sleb(&c, &sv));
	ck_assert_int_eq(sv, INT64_MIN);
	pdc_cur_init(&c, (const unsigned char[]){0xff, 0xff, 0xff, 0xff, 0xff,
						 0xff, 0xff, 0xff, 0xff, 0x00},
		     10, 0);
	ck_assert(pdc_cur_sleb(&c, &sv));
	ck_assert_int_eq(sv, INT64_MAX);
	/* truncated: the last byte still says more */
	pdc_cur_init(&c, (const unsigned char[]){0xc0, 0xbb}, 2, 0);
	ck_assert(!pdc_cur_sleb(&c, &sv));
	ck_assert_uint_eq(pdc_cur_pos(&c), 0);
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

/* ---- SHA-256 ------------------------------------------------------- */

/*
 * FIPS 180-2's examples (appendix B: one block, two blocks, a million
 * 'a'), the 896-bit message of its SHA-512 examples, and messages of 'a'
 * whose padding ends a block exactly or spills into the next (55, 56,
 * 63, 64 bytes; digests from Python's hashlib).  b64 is the CSP form.
 */
static const struct {
	const char *msg;
	size_t repeat; /* msg is one character, this many times */
	const char *hex, *b64;
} sha_cases[] = {
	{"", 0,
	 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	 "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
	{"abc", 0,
	 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	 "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="},
	{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 0,
	 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	 "JI1qYdIGOLjlwCaTDD5gOaM85Flk/yFn9uzt1BnbBsE="},
	{"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
	 "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	 0, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
	 "z1sWp3ivg4ADbOWeewSSNwskmxHo8HpRr6xFA3r+6dE="},
	{"a", 1000000,
	 "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	 "zcduXJkU+5KBocfihNc+Z/GAmkiklyAOBG05zMcRLNA="},
	{"a", 55,
	 "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
	 "n0OQ+NMMLdkuyfCVtl4rmumwqSWlJY4kHJ8ekQ9zQxg="},
	{"a", 56,
	 "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
	 "s1Q5pKxvCUi21vnjxq8PX1kM4g8b3nCQ73lwaG7Gc4o="},
	{"a", 63,
	 "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34",
	 "fT50oF19sVvOStnsBljqmOPwbu7PFrTG//LaRX3cLzQ="},
	{"a", 64,
	 "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
	 "/+BU/nrgy23GXDr5th1SCfQ5hR20PQulmXM33xVGaOs="},
};

static void sha_check(const unsigned char md[PDC_SHA256_SIZE], size_t i)
{
	char hex[2 * PDC_SHA256_SIZE + 1], b64[PDC_SHA256_B64_SIZE];

	for (size_t k = 0; k < PDC_SHA256_SIZE; k++)
		snprintf(hex + 2 * k, 3, "%02x", md[k]);
	ck_assert_str_eq(hex, sha_cases[i].hex);
	pdc_sha256_base64(md, b64);
	ck_assert_str_eq(b64, sha_cases[i].b64);
}

/* Each message whole, then fed in pieces of 1, 3, 63, 64 and 65 bytes:
 * the same digest whatever the split. */
START_TEST(test_sha256)
{
	static const size_t pieces[] = {1, 3, 63, 64, 65};
	const size_t len = sha_cases[_i].repeat ? sha_cases[_i].repeat
						: strlen(sha_cases[_i].msg);
	unsigned char md[PDC_SHA256_SIZE];
	char *msg = malloc(len + 1);

	ck_assert_ptr_nonnull(msg);
	if (sha_cases[_i].repeat)
		memset(msg, sha_cases[_i].msg[0], len);
	else
		memcpy(msg, sha_cases[_i].msg, len);
	pdc_sha256(msg, len, md);
	sha_check(md, (size_t)_i);
	for (size_t p = 0; p < NR(pieces); p++) {
		struct pdc_sha256 h;

		pdc_sha256_init(&h);
		for (size_t off = 0; off < len; off += pieces[p])
			pdc_sha256_update(&h, msg + off,
					  len - off < pieces[p] ? len - off
								: pieces[p]);
		pdc_sha256_final(&h, md);
		sha_check(md, (size_t)_i);
	}
	free(msg);
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

/*
 * pdc_text_plain() reads 8 bytes at a time while they are printable
 * ASCII: one byte that is not, at every position of a longer string, in
 * every class (controls, DEL, C1, bytes that are not UTF-8, the edges of
 * printable ASCII), stops it exactly there; a valid UTF-8 character does
 * not stop it.
 */
START_TEST(test_text_words)
{
	static const struct {
		const char *bytes;
		size_t n;
		bool stops;
	} probes[] = {
		{"\0", 1, true},    {"\x01", 1, true},  {"\x1f", 1, true},
		{"\x7f", 1, true},  {"\x80", 1, true},  {"\xc2\x9b", 2, true},
		{"\xff", 1, true},  {"\xfe", 1, true},  {" ", 1, false},
		{"~", 1, false},     {"\xc3\xa9", 2, false},
		{"\xe2\x82\xac", 3, false},
	};
	char buf[40];

	for (size_t k = 0; k < NR(probes); k++)
		for (size_t at = 0; at + probes[k].n <= 33; at++) {
			const size_t n = 33;

			memset(buf, 'a', sizeof(buf));
			memcpy(buf + at, probes[k].bytes, probes[k].n);
			ck_assert_msg(pdc_text_plain(buf, n) ==
					      (probes[k].stops ? at : n),
				      "probe %zu at %zu: %zu", k, at,
				      pdc_text_plain(buf, n));
		}
}
END_TEST

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

/* ---- the hash table (P3) ------------------------------------------- */

struct hent {
	uint64_t key;
	unsigned seen;
};

static bool hent_eq(const void *item, const void *key)
{
	return ((const struct hent *)item)->key == *(const uint64_t *)key;
}

/* A hash that collides on purpose: every key in one of four runs. */
static uint64_t bad_hash(uint64_t key)
{
	return key & 3;
}

/* Every one of nr entries (keys 0..nr) is found, and no other key. */
static void check_hash(const struct pdc_hash *h, const struct hent *ents,
		       size_t nr, uint64_t (*hash)(uint64_t))
{
	for (uint64_t k = 0; k < nr + 3; k++)
		ck_assert_ptr_eq(pdc_hash_find(h, hash(k), hent_eq, &k),
				 k < nr ? &ents[k] : NULL);
}

START_TEST(test_hash)
{
	struct failalloc fa = {.fail_at = 0};
	const struct pd_alloc a = failalloc_hooks(&fa);
	struct pdc_hash h = PDC_HASH_INIT;
	enum { NR = 5000 };
	struct hent *ents = calloc(NR, sizeof(*ents));
	struct pdc_hash_slot *slot;
	size_t pos = 0, nr_seen = 0;
	struct hent *e;
	uint64_t k = 7;

	ck_assert_ptr_nonnull(ents);
	/* empty: found nothing, holds no slots */
	ck_assert_ptr_null(pdc_hash_find(&h, pdc_hash_u64(k), hent_eq, &k));
	ck_assert_ptr_null(pdc_hash_next(&h, &pos));
	ck_assert_uint_eq(fa.nr_calls, 0);
	/* growth past many entries: doubling, never more than 3/4 full */
	for (k = 0; k < NR; k++) {
		ents[k].key = k;
		ck_assert_int_eq(
			pdc_hash_add(&a, &h, pdc_hash_u64(k), &ents[k]), 0);
		ck_assert_uint_ge(h.mask + 1, PDC_HASH_MIN_SLOTS);
		ck_assert_uint_eq((h.mask + 1) & h.mask, 0);
		ck_assert_uint_le(h.nr * 4, (h.mask + 1) * 3);
	}
	ck_assert_uint_eq(h.mask + 1, 8192);
	ck_assert_uint_eq(h.nr, NR);
	check_hash(&h, ents, NR, pdc_hash_u64);
	/* the walk gives every item once */
	pos = 0;
	while ((e = pdc_hash_next(&h, &pos))) {
		e->seen++;
		nr_seen++;
	}
	ck_assert_uint_eq(nr_seen, NR);
	for (k = 0; k < NR; k++)
		ck_assert_uint_eq(ents[k].seen, 1);
	/* out of memory at the doubling: refused, h unchanged */
	fa.fail_at = fa.nr_calls + 1;
	for (k = NR; h.nr * 4 + 4 <= (h.mask + 1) * 3; k++)
		ck_assert_int_eq(
			pdc_hash_add(&a, &h, pdc_hash_u64(k), &ents[0]), 0);
	nr_seen = h.nr;
	ck_assert_int_eq(pdc_hash_add(&a, &h, 1, &ents[0]), PDC_ERR_NOMEM);
	ck_assert_uint_eq(h.nr, nr_seen);
	ck_assert_uint_eq(h.mask + 1, 8192);
	check_hash(&h, ents, NR, pdc_hash_u64);
	/* and grows at the next try */
	ck_assert_int_eq(pdc_hash_reserve(&a, &h), 0);
	ck_assert_uint_eq(h.mask + 1, 16384);
	/* released: empty and reusable */
	pdc_hash_release(&a, &h);
	ck_assert_int_eq(fa.live, 0);
	ck_assert_ptr_null(h.slots);
	ck_assert_uint_eq(h.nr, 0);
	/* find-or-add with one probe, through colliding hashes */
	for (size_t round = 0; round < 2; round++) {
		for (k = 0; k < 300; k++) {
			ck_assert_int_eq(pdc_hash_reserve(&a, &h), 0);
			slot = pdc_hash_probe(&h, bad_hash(k), hent_eq, &k);
			if (round == 0) {
				ck_assert_ptr_null(slot->item);
				pdc_hash_fill(&h, slot, bad_hash(k), &ents[k]);
			} else {
				ck_assert_ptr_eq(slot->item, &ents[k]);
			}
		}
		check_hash(&h, ents, 300, bad_hash);
		ck_assert_uint_eq(h.nr, 300);
	}
	pdc_hash_release(&a, &h);
	pdc_hash_release(&a, &h);
	ck_assert_int_eq(fa.live, 0);
	free(ents);
}
END_TEST

START_TEST(test_hash_bytes)
{
	static const char bytes[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static const char zeros[sizeof(bytes)];
	uint64_t seen[2 * sizeof(bytes)];
	size_t nr = 0;

	/* every length its own hash, and a NUL counts as a byte */
	for (size_t len = 0; len < sizeof(bytes); len++) {
		seen[nr++] = pdc_hash_bytes(bytes, len);
		if (len > 0)
			seen[nr++] = pdc_hash_bytes(zeros, len);
	}
	for (size_t i = 0; i < nr; i++)
		for (size_t j = i + 1; j < nr; j++)
			ck_assert_msg(seen[i] != seen[j], "hashes %zu and %zu",
				      i, j);
	/* only the bytes count, not where they are */
	ck_assert_uint_eq(pdc_hash_bytes(bytes + 1, 12),
			  pdc_hash_bytes("bcdefghijklm", 12));
	ck_assert_uint_ne(pdc_hash_bytes("a", 1), pdc_hash_bytes("a\0", 2));
	ck_assert_uint_ne(pdc_hash_u64(1), pdc_hash_u64(2));
}
END_TEST

/* ---- the intern table (O5) ----------------------------------------- */

START_TEST(test_intern)
{
	struct failalloc fa = {.fail_at = 0};
	const struct pd_alloc a = failalloc_hooks(&fa);
	struct pdc_intern t = PDC_INTERN_INIT;
	/* "a" with 0, 1 and 2 NULs after it, and NULs inside */
	static const char bytes[] = "a\0\0b\0c";
	char buf[16];
	void *e[8], *again;

	ck_assert_int_eq(pdc_intern_add(&t, &a, bytes, 1, &e[0]), 1);
	ck_assert_int_eq(pdc_intern_add(&t, &a, bytes, 2, &e[1]), 1);
	ck_assert_int_eq(pdc_intern_add(&t, &a, bytes, 3, &e[2]), 1);
	ck_assert_int_eq(pdc_intern_add(&t, &a, bytes + 2, 3, &e[3]), 1);
	ck_assert_int_eq(pdc_intern_add(&t, &a, bytes + 2, 4, &e[4]), 1);
	ck_assert_int_eq(pdc_intern_add(&t, &a, "", 0, &e[5]), 1);
	ck_assert_uint_eq(pdc_intern_nr(&t), 6);
	for (size_t i = 0; i < 6; i++)
		for (size_t j = i + 1; j < 6; j++)
			ck_assert_ptr_ne(e[i], e[j]);
	/* the same bytes from anywhere: the same entry, nothing added */
	memcpy(buf, "a\0\0xyz", 6);
	ck_assert_int_eq(pdc_intern_add(&t, &a, buf, 3, &again), 0);
	ck_assert_ptr_eq(again, e[2]);
	ck_assert_ptr_eq(pdc_intern_find(&t, buf, 2), e[1]);
	ck_assert_ptr_eq(pdc_intern_find(&t, "", 0), e[5]);
	ck_assert_ptr_null(pdc_intern_find(&t, "a\0\0\0", 4));
	ck_assert_ptr_null(pdc_intern_find(&t, "b", 1));
	ck_assert_uint_eq(pdc_intern_nr(&t), 6);
	/* no header: the entry is its string, NUL-terminated at its length */
	ck_assert_ptr_eq(pdc_intern_str(&t, e[4]), e[4]);
	ck_assert_uint_eq(pdc_intern_len(e[4]), 4);
	ck_assert_int_eq(memcmp(e[4], "\0b\0c\0", 5), 0);
	ck_assert_uint_eq(pdc_intern_len(e[5]), 0);
	ck_assert_str_eq(e[5], "");
	/* ids count the entries before, with or without PDC_INTERN_IDS */
	for (size_t i = 0; i < 6; i++)
		ck_assert_uint_eq(pdc_intern_id(e[i]), i);
	ck_assert_ptr_null(pdc_intern_at(&t, 0));
	pdc_intern_release(&t, &a);
	ck_assert_int_eq(fa.live, 0);
	ck_assert_uint_eq(pdc_intern_nr(&t), 0);
	/* released: empty and reusable */
	ck_assert_ptr_null(pdc_intern_find(&t, bytes, 1));
	ck_assert_int_eq(pdc_intern_add(&t, &a, bytes, 1, &e[0]), 1);
	ck_assert_uint_eq(pdc_intern_id(e[0]), 0);
	pdc_intern_release(&t, &a);
	pdc_intern_release(&t, &a);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

/* Hooks whose memory comes dirty, to show what the table zeroes. */
static void *dirty_malloc(void *arg, size_t size)
{
	void *p = malloc(size);

	(void)arg;
	if (p)
		memset(p, 0xa5, size);
	return p;
}

static void *dirty_realloc(void *arg, void *ptr, size_t size)
{
	(void)arg;
	return realloc(ptr, size);
}

static void dirty_free(void *arg, void *ptr)
{
	(void)arg;
	free(ptr);
}

/* A caller's header: the entry is the struct, str its string. */
struct iname {
	uint64_t count;
	struct iname *other;
	unsigned char flag;
	char str[];
};

START_TEST(test_intern_header)
{
	const struct pd_alloc a = {dirty_malloc, dirty_realloc, dirty_free,
				   NULL};
	struct pdc_intern t;
	struct iname *n[3];
	void *e;

	pdc_intern_init(&t, offsetof(struct iname, str), 0, 0);
	for (unsigned i = 0; i < 3; i++) {
		const char *name = i == 0 ? "main" : i == 1 ? "mai" : "work";

		ck_assert_int_eq(pdc_intern_add(&t, &a, name, strlen(name), &e),
				 1);
		n[i] = e;
		/* a new entry's header is zeroed, its string after it */
		ck_assert_uint_eq(n[i]->count, 0);
		ck_assert_ptr_null(n[i]->other);
		ck_assert_uint_eq(n[i]->flag, 0);
		ck_assert_str_eq(n[i]->str, name);
		ck_assert_ptr_eq(pdc_intern_str(&t, n[i]), n[i]->str);
		ck_assert_uint_eq(pdc_intern_len(n[i]), strlen(name));
		ck_assert_uint_eq((uintptr_t)n[i] % PDC_ARENA_ALIGN, 0);
		n[i]->count = 10 + i;
		n[i]->other = n[0];
		n[i]->flag = 0xff;
	}
	/* found again: the caller's header as the caller left it */
	ck_assert_int_eq(pdc_intern_add(&t, &a, "main", 4, &e), 0);
	ck_assert_ptr_eq(e, n[0]);
	ck_assert_uint_eq(n[0]->count, 10);
	ck_assert_ptr_eq(pdc_intern_find(&t, "work", 4), n[2]);
	ck_assert_uint_eq(n[2]->count, 12);
	ck_assert_ptr_eq(n[2]->other, n[0]);
	pdc_intern_release(&t, &a);
}
END_TEST

START_TEST(test_intern_ids)
{
	struct failalloc fa = {.fail_at = 0};
	const struct pd_alloc a = failalloc_hooks(&fa);
	enum { NR = 20000 };
	struct pdc_intern t;
	const char *first;
	char name[32];
	void *e;

	pdc_intern_init(&t, 0, 0, PDC_INTERN_IDS);
	ck_assert_ptr_null(pdc_intern_at(&t, 0));
	/* growth past many entries: ids dense and in the order of addition,
	 * entries where they were (not ck_assert in the loops: Check's
	 * asserts are slow in fork mode) */
	ck_assert_int_eq(pdc_intern_add(&t, &a, "s0", 2, &e), 1);
	first = e;
	for (unsigned i = 0; i < NR; i++) {
		const size_t len =
			(size_t)snprintf(name, sizeof(name), "s%u", i);
		const int rc = pdc_intern_add(&t, &a, name, len, &e);

		if (rc != (i > 0) || pdc_intern_id(e) != i)
			ck_abort_msg("entry %u: rc %d, id %zu", i, rc,
				     pdc_intern_id(e));
		/* every tenth is added again: no new id */
		if (i % 10 == 0 &&
		    (pdc_intern_add(&t, &a, name, len, &e) != 0 ||
		     pdc_intern_id(e) != i))
			ck_abort_msg("entry %u again", i);
	}
	ck_assert_uint_eq(pdc_intern_nr(&t), NR);
	ck_assert_uint_eq(t.hash.mask + 1, 32768);
	ck_assert_ptr_eq(pdc_intern_at(&t, 0), first);
	ck_assert_str_eq(first, "s0");
	for (unsigned i = 0; i < NR; i++) {
		const char *s = pdc_intern_at(&t, i);
		const size_t len =
			(size_t)snprintf(name, sizeof(name), "s%u", i);

		if (strcmp(s, name) != 0 || pdc_intern_len(s) != len ||
		    pdc_intern_id(s) != i ||
		    pdc_intern_find(&t, name, len) != s)
			ck_abort_msg("entry %u: '%s'", i, s);
	}
	ck_assert_ptr_null(pdc_intern_at(&t, NR));
	pdc_intern_release(&t, &a);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

START_TEST(test_intern_caps)
{
	struct failalloc fa = {.fail_at = 0};
	const struct pd_alloc a = failalloc_hooks(&fa);
	static const char *const names[] = {"a", "b", "c"};
	struct pdc_intern t;
	void *e, *kept[3];

	/* at most 3 entries: a fourth is refused, the three still found */
	pdc_intern_init(&t, 8, 3, PDC_INTERN_IDS);
	for (unsigned i = 0; i < 3; i++)
		ck_assert_int_eq(pdc_intern_add(&t, &a, names[i], 1, &kept[i]),
				 1);
	ck_assert_int_eq(pdc_intern_add(&t, &a, "d", 1, &e), PDC_ERR_NOMEM);
	ck_assert_ptr_null(e);
	ck_assert_uint_eq(pdc_intern_nr(&t), 3);
	ck_assert_ptr_null(pdc_intern_find(&t, "d", 1));
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_int_eq(pdc_intern_add(&t, &a, names[i], 1, &e), 0);
		ck_assert_ptr_eq(e, kept[i]);
		ck_assert_ptr_eq(pdc_intern_at(&t, i), kept[i]);
	}
	/* a string past the length cap is refused before its bytes are
	 * read (this one has 2) */
	ck_assert_int_eq(
		pdc_intern_add(&t, &a, "x", PDC_INTERN_MAX_LEN + 1, &e),
		PDC_ERR_NOMEM);
	ck_assert_ptr_null(pdc_intern_find(&t, "x", PDC_INTERN_MAX_LEN + 1));
	ck_assert_int_eq(pdc_intern_add(&t, &a, "x", SIZE_MAX, &e),
			 PDC_ERR_NOMEM);
	ck_assert_uint_eq(pdc_intern_nr(&t), 3);
	pdc_intern_release(&t, &a);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

/* The strings of the out-of-memory sweep: enough for the hash and the
 * ids to grow more than once and the arena to take a second block, and
 * one past a quarter of a block (a block of its own). */
#define NOMEM_NR 300
static size_t nomem_str(unsigned i, char *buf, size_t size)
{
	if (i == NOMEM_NR / 2) {
		ck_assert_uint_ge(size, PDC_ARENA_BLOCK);
		memset(buf, 'x', PDC_ARENA_BLOCK);
		return PDC_ARENA_BLOCK;
	}
	/* long enough that 300 of them pass one 64 KiB block */
	return (size_t)snprintf(buf, size, "%0300u", i);
}

/*
 * Table _i / 2 (bit 0: PDC_INTERN_IDS, bit 1: a header) filled with the
 * Nth allocation failing, for every N until none needs to: each failure
 * is PDC_ERR_NOMEM and leaves the table as it was (O6), a run that
 * retries (_i odd) ends with the table a run without failures makes,
 * and nothing leaks.
 */
START_TEST(test_intern_nomem)
{
	const bool retry = _i % 2;
	const unsigned flags = (_i / 2) & 1 ? PDC_INTERN_IDS : 0;
	const size_t hdr = (_i / 4) & 1 ? sizeof(struct iname) : 0;
	char *buf = malloc(PDC_ARENA_BLOCK);
	struct failalloc fa;
	const struct pd_alloc a = failalloc_hooks(&fa);
	unsigned long n;

	ck_assert_ptr_nonnull(buf);
	for (n = 1; n < 100000; n++) {
		struct pdc_intern t;
		unsigned nr_ok = 0;
		void *e;

		failalloc_init(&fa, n, false);
		pdc_intern_init(&t, hdr, 0, flags);
		for (unsigned i = 0; i < NOMEM_NR; i++) {
			const size_t len = nomem_str(i, buf, PDC_ARENA_BLOCK);
			int rc = pdc_intern_add(&t, &a, buf, len, &e);

			if (rc < 0) {
				ck_assert_int_eq(rc, PDC_ERR_NOMEM);
				ck_assert_ptr_null(e);
				/* unchanged: the same entries, not this one */
				ck_assert_uint_eq(pdc_intern_nr(&t), nr_ok);
				ck_assert_ptr_null(
					pdc_intern_find(&t, buf, len));
				if (!retry)
					break;
				rc = pdc_intern_add(&t, &a, buf, len, &e);
			}
			/* not ck_assert: Check's asserts are slow in fork
			 * mode, and these run 300 times a sweep */
			if (rc != 1)
				ck_abort_msg("string %u: %d", i, rc);
			nr_ok++;
		}
		/* what was added is there, in order */
		for (unsigned i = 0; i < nr_ok; i++) {
			const size_t len = nomem_str(i, buf, PDC_ARENA_BLOCK);

			e = pdc_intern_find(&t, buf, len);
			if (!e || pdc_intern_id(e) != i ||
			    memcmp(pdc_intern_str(&t, e), buf, len) != 0 ||
			    ((flags & PDC_INTERN_IDS) &&
			     pdc_intern_at(&t, i) != e))
				ck_abort_msg("string %u lost", i);
		}
		/* a run that gives up stops at its failure */
		if (retry || !fa.nr_failed)
			ck_assert_uint_eq(nr_ok, NOMEM_NR);
		else
			ck_assert_uint_lt(nr_ok, NOMEM_NR);
		pdc_intern_release(&t, &a);
		ck_assert_int_eq(fa.live, 0);
		if (!fa.nr_failed)
			break;
	}
	/* every allocation was failed once: more than a handful */
	ck_assert_uint_gt(n, 5);
	ck_assert_uint_lt(n, 100000);
	free(buf);
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
	tcase_add_test(tc, test_leb);
	tcase_add_test(tc, test_strbuf);
	tcase_add_loop_test(tc, test_utf8, 0, (int)NR(utf8_cases));
	tcase_add_loop_test(tc, test_text, 0, (int)NR(text_cases));
	tcase_add_test(tc, test_text_words);
	tcase_add_test(tc, test_arena);
	tcase_add_loop_test(tc, test_sha256, 0, (int)NR(sha_cases));
	tcase_add_test(tc, test_hash);
	tcase_add_test(tc, test_hash_bytes);
	tcase_add_test(tc, test_intern);
	tcase_add_test(tc, test_intern_header);
	tcase_add_test(tc, test_intern_ids);
	tcase_add_test(tc, test_intern_caps);
	/* _i: bit 0 retries a failed add, bit 1 ids, bit 2 a header */
	tcase_add_loop_test(tc, test_intern_nomem, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}
