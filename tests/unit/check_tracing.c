/*
 * check_tracing.c - HEADER_TRACING_DATA's format files (reader/
 * pd_tracing.c): a section built here in both byte orders, its formats
 * and fields found by ID and name, integer fields read from raw bytes in
 * the section's order, damage at every length refused with the offset
 * named (what came before kept), and every allocation failing in turn.
 */
#include "failalloc.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd.h"

static const char switch_fmt[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_pid=%d\", REC->prev_pid\n";

static const char ftrace_fmt[] = "name: function\nID: 1\nformat:\n"
				 "\tfield:unsigned long ip;\toffset:8;\t"
				 "size:8;\tsigned:0;\n";

struct buf {
	unsigned char b[4096];
	size_t n;
	bool big;
};

static void put(struct buf *b, const void *p, size_t n)
{
	ck_assert_uint_le(b->n + n, sizeof(b->b));
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put_num(struct buf *b, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++) {
		const unsigned shift = 8 * (b->big ? size - 1 - i : i);

		b->b[b->n++] = (unsigned char)(v >> shift);
	}
}

static void put_file(struct buf *b, const char *text)
{
	put_num(b, strlen(text), 8);
	put(b, text, strlen(text));
}

/* A section as perf 6.1 writes it, version 0.6. */
static void section(struct buf *b, bool big)
{
	memset(b, 0, sizeof(*b));
	b->big = big;
	put(b, "\x17\x08\x44tracing", 10);
	put(b, "0.6", 4);
	b->b[b->n++] = big;
	b->b[b->n++] = 8;
	put_num(b, 4096, 4);
	put(b, "header_page", 12);
	put_num(b, 3, 8);
	put(b, "abc", 3);
	put(b, "header_event", 13);
	put_num(b, 0, 8);
	put_num(b, 1, 4);
	put_file(b, ftrace_fmt);
	put_num(b, 1, 4);
	put(b, "sched", 6);
	put_num(b, 1, 4);
	put_file(b, switch_fmt);
	put_num(b, 0, 4); /* kallsyms */
	put_num(b, 0, 4); /* printk */
	put_num(b, 0, 8); /* saved cmdlines */
}

START_TEST(test_formats)
{
	struct buf b;
	struct pd_tracing *t;
	const struct pd_tp_format *fmt;
	const struct pd_tp_field *fl;
	unsigned char raw[64] = {0};
	char err[128] = "";
	int64_t v;

	section(&b, _i);
	ck_assert_int_eq(pd_tracing_parse(b.b, b.n, NULL, &t, err, sizeof(err)), 0);
	/* the ftrace formats are not tracepoints */
	ck_assert_ptr_null(pd_tracing_format(t, 1));
	fmt = pd_tracing_format(t, 372);
	ck_assert_ptr_nonnull(fmt);
	ck_assert_str_eq(fmt->system, "sched");
	ck_assert_str_eq(fmt->name, "sched_switch");
	ck_assert_uint_eq(fmt->nr_fields, 6);
	fl = pd_tp_field(fmt, "prev_comm");
	ck_assert_ptr_nonnull(fl);
	ck_assert_uint_eq(fl->offset, 8);
	ck_assert_uint_eq(fl->size, 16);
	ck_assert_ptr_null(pd_tp_field(fmt, "next_prio"));
	/* prev_pid -2 and prev_state 0x100 in the section's byte order */
	fl = pd_tp_field(fmt, "prev_pid");
	for (unsigned i = 0; i < 4; i++)
		raw[24 + (_i ? 3 - i : i)] = (unsigned char)(0xfffffffeu >> (8 * i));
	raw[32 + (_i ? 6 : 1)] = 1;
	ck_assert_int_eq(pd_tp_field_int(t, fl, raw, sizeof(raw), &v), 0);
	ck_assert_int_eq(v, -2);
	fl = pd_tp_field(fmt, "prev_state");
	ck_assert_int_eq(pd_tp_field_int(t, fl, raw, sizeof(raw), &v), 0);
	ck_assert_int_eq(v, 0x100);
	/* past the raw bytes, or not an integer */
	ck_assert_int_eq(pd_tp_field_int(t, fl, raw, 39, &v), PD_ERR_FORMAT);
	ck_assert_int_eq(pd_tp_field_int(t, pd_tp_field(fmt, "prev_comm"), raw,
					 sizeof(raw), &v),
			 PD_ERR_FORMAT);
	pd_tracing_free(t);
}
END_TEST

/* Every cut of the section up to the event format's end is refused
 * with the place named; the formats before the cut are kept. */
START_TEST(test_cut)
{
	struct buf b;
	const char *at = NULL;

	section(&b, false);
	/* the sched format ends 16 bytes before the section does */
	for (size_t n = 0; n + 16 < b.n; n++) {
		struct pd_tracing *t = NULL;
		char err[128] = "";

		ck_assert_int_eq(pd_tracing_parse(b.b, n, NULL, &t, err,
						  sizeof(err)),
				 PD_ERR_FORMAT);
		ck_assert_ptr_nonnull(t);
		at = strstr(err, "HEADER_TRACING_DATA at byte ");
		ck_assert_msg(at == err, "cut at %zu: '%s'", n, err);
		ck_assert_ptr_null(pd_tracing_format(t, 372));
		pd_tracing_free(t);
	}
}
END_TEST

START_TEST(test_nomem)
{
	struct buf b;

	section(&b, false);
	for (unsigned long n = 1;; n++) {
		struct failalloc fa;
		struct pd_tracing *t = NULL;
		struct pd_alloc hooks;
		int rc;

		failalloc_init(&fa, n, false);
		hooks = failalloc_hooks(&fa);
		rc = pd_tracing_parse(b.b, b.n, &hooks, &t, NULL, 0);
		ck_assert(rc == 0 || rc == PD_ERR_NOMEM);
		ck_assert((rc == 0) == (t != NULL));
		if (rc == 0)
			ck_assert_ptr_nonnull(pd_tracing_format(t, 372));
		pd_tracing_free(t);
		ck_assert_int_eq(fa.live, 0);
		if (!fa.nr_failed)
			break;
	}
}
END_TEST

Suite *tracing_suite(void)
{
	Suite *s = suite_create("tracing");
	TCase *tc = tcase_create("tracing");

	tcase_add_loop_test(tc, test_formats, 0, 2);
	tcase_add_test(tc, test_cut);
	tcase_add_test(tc, test_nomem);
	suite_add_tcase(s, tc);
	return s;
}
