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

static void put_file_n(struct buf *b, const char *text, size_t n)
{
	put_num(b, n, 8);
	put(b, text, n);
}

static void put_file(struct buf *b, const char *text)
{
	put_file_n(b, text, strlen(text));
}

/* A section as perf 6.1 writes it, version 0.6, of one sched event of
 * event_len bytes and the printk formats pk. */
static void section_n(struct buf *b, bool big, const char *event,
		      size_t event_len, const char *pk)
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
	put_file_n(b, event, event_len);
	put_num(b, 0, 4); /* kallsyms */
	put_num(b, strlen(pk), 4);
	put(b, pk, strlen(pk));
	put_num(b, 0, 8); /* saved cmdlines */
}

static void section_of(struct buf *b, bool big, const char *event,
		       const char *pk)
{
	section_n(b, big, event, strlen(event), pk);
}

static void section(struct buf *b, bool big)
{
	section_of(b, big, switch_fmt, "");
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

/* A cut in the kallsyms or printk sections keeps every format and
 * names the section. */
START_TEST(test_cut_printk)
{
	static const char pk[] = "0x10 : \"ten\"\n";
	struct buf b;

	section_of(&b, false, switch_fmt, pk);
	/* the sched format ends where kallsyms' u32 size starts: 8 bytes
	 * of the cmdlines, sizeof(pk) - 1 of printk text and two sizes
	 * before the end */
	for (size_t n = b.n - 8 - (sizeof(pk) - 1) - 8; n < b.n - 8; n++) {
		struct pd_tracing *t = NULL;
		char err[128] = "";

		ck_assert_int_eq(pd_tracing_parse(b.b, n, NULL, &t, err,
						  sizeof(err)),
				 PD_ERR_FORMAT);
		ck_assert_msg(strstr(err, "kallsyms") || strstr(err, "printk"),
			      "cut at %zu: '%s'", n, err);
		ck_assert_ptr_nonnull(pd_tracing_format(t, 372));
		pd_tracing_free(t);
	}
}
END_TEST

/* A format file is text: a NUL in it ends it (as libtraceevent reads
 * it), so a field after it, or a name cut at it, is not read. */
START_TEST(test_nul)
{
	static const char fmt[] =
		"name: ev\nID: 5\nformat:\n"
		"\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n"
		"\tfield:int \0b;\toffset:4;\tsize:4;\tsigned:1;\n";
	const struct pd_tp_format *f;
	struct pd_tracing *t = NULL;
	struct buf b;

	section_n(&b, false, fmt, sizeof(fmt) - 1, "");
	ck_assert_int_eq(pd_tracing_parse(b.b, b.n, NULL, &t, NULL, 0), 0);
	f = pd_tracing_format(t, 5);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->nr_fields, 1);
	ck_assert_str_eq(f->fields[0].name, "a");
	pd_tracing_free(t);
}
END_TEST

START_TEST(test_nomem)
{
	struct buf b;

	/* with printk formats: their array and strings allocated too */
	section_of(&b, false, switch_fmt, "0x10 : \"ten\"\n0x8 : \"x\"\n");
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

/* ---- pd_tp_print(): the print fmt as libtraceevent evaluates it ---- */

#define PRINT_FIELDS \
	"name: ev\nID: 9\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:long state;\toffset:32;\tsize:8;\tsigned:1;\n" \
	"\tfield:__data_loc char[] name;\toffset:40;\tsize:4;\tsigned:0;\n" \
	"\tfield:s8 small;\toffset:44;\tsize:1;\tsigned:1;\n" \
	"\tfield:void * ptr;\toffset:48;\tsize:8;\tsigned:0;\n\n"

/* perf 6.1's sched_switch print fmt (kernel 6.x), on "state" */
#define STATE_FMT \
	"\"s=%s%s\", (REC->state & ((((0x00000000 | 0x00000001 | " \
	"0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 " \
	"| 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->state & " \
	"((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | " \
	"0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - " \
	"1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { " \
	"0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" " \
	"}, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, " \
	"\"I\" }) : \"R\", REC->state & (((0x00000000 | 0x00000001 | " \
	"0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 " \
	"| 0x00000040) + 1) << 1) ? \"+\" : \"\""

/* A kernel of one function, at 0xffff88880000 for 0x100 bytes. */
static const char *test_sym(void *arg, uint64_t addr, uint64_t *off)
{
	(void)arg;
	if (addr < 0xffff88880000ull || addr >= 0xffff88880100ull)
		return NULL;
	*off = addr - 0xffff88880000ull;
	return "schedule";
}

static const struct pd_tp_syms test_syms = {.fn = test_sym};

/* The text of print fmt pf on a sample of comm "bash", pid -2, the
 * given state, name "hello" (a __data_loc string), small -1, ptr
 * 0xffff8880; raw_size bytes of it; pk the section's printk formats. */
static size_t print_pk(const char *pf, const char *pk, uint64_t state,
		       size_t raw_size, char *out, size_t size)
{
	static char text[4096];
	struct buf b;
	struct pd_tracing *t;
	unsigned char raw[64] = {0};
	size_t n;

	snprintf(text, sizeof(text), PRINT_FIELDS "print fmt: %s\n", pf);
	section_of(&b, false, text, pk);
	ck_assert_int_eq(pd_tracing_parse(b.b, b.n, NULL, &t, NULL, 0), 0);
	memcpy(raw + 8, "bash", 4);
	for (unsigned i = 0; i < 4; i++)
		raw[24 + i] = (unsigned char)(0xfffffffeu >> (8 * i));
	for (unsigned i = 0; i < 8; i++)
		raw[32 + i] = (unsigned char)(state >> (8 * i));
	raw[40] = 56;	/* name: at 56, 6 bytes */
	raw[42] = 6;
	raw[44] = 0xff;
	raw[50] = 0x88;
	raw[51] = 0x88;
	raw[52] = 0xff;
	raw[53] = 0xff;
	memcpy(raw + 56, "hello", 6);
	n = pd_tp_print(t, pd_tracing_format(t, 9), raw, raw_size, &test_syms,
			out, size);
	ck_assert_uint_eq(n < size ? n : size - 1, strlen(out));
	pd_tracing_free(t);
	return n;
}

static size_t print_one(const char *pf, uint64_t state, size_t raw_size,
			char *out, size_t size)
{
	return print_pk(pf, "", state, raw_size, out, size);
}

static void check_print(const char *pf, uint64_t state, const char *want)
{
	char out[512];

	print_one(pf, state, 64, out, sizeof(out));
	ck_assert_msg(strcmp(out, want) == 0, "%s (state %#llx): '%s', want '%s'",
		      pf, (unsigned long long)state, out, want);
}

START_TEST(test_print)
{
	/* prev_state as perf 6.1 prints it: running, flags, preempted */
	check_print(STATE_FMT, 0, "s=R");
	check_print(STATE_FMT, 1, "s=S");
	check_print(STATE_FMT, 0x81, "s=S|I");
	check_print(STATE_FMT, 0x100, "s=R+");
	check_print(STATE_FMT, 0x102, "s=D+");
	/* fields, conversions, widths, precision, escapes */
	check_print("\"%s[%d] %s %5d|%-5d|%05u|%x|%#X|%lx|%c|%.3s|%6s|%%\\n\", "
		    "REC->comm, REC->pid, __get_str(name), REC->pid, REC->pid, "
		    "42, 255, 255, REC->state, 65, REC->comm, __get_str(name)",
		    0, "bash[-2] hello    -2|-2   |00042|ff|0XFF|0|A|bas| hello|%\n");
	check_print("\"%s, %d\", REC->comm, REC->pid", 0, "bash, -2");
	/* a field read as libtraceevent reads it: unsigned, then cut by
	 * the conversion */
	check_print("\"%u %d %ld %lld\", REC->pid, REC->small, REC->pid, "
		    "REC->state", 5, "4294967294 255 4294967294 5");
	check_print("\"%p %p\", REC->ptr, 0", 0, "0xffff88880000 (nil)");
	check_print("\"%s\", __get_str(name)", 0, "hello");
	/* functions: %ps the name, %pS with the offset; none: the address */
	check_print("\"%ps %pS %ps|\", REC->ptr, REC->ptr + 0x12, 0x10", 0,
		    "schedule schedule+0x12 0x10|");
	check_print("\"%ps\", 0", 0, "0x0");
	/* arithmetic, precedence, casts, comparisons, ?: */
	check_print("\"%d %d %d %d %d\", 1 + 2 * 3, (1 + 2) * 3, 1 << 4 >> 2, "
		    "10 % 4 - 7 / 2, ~0 & 0xf", 0, "7 9 4 -1 15");
	/* unsigned: a wrapped difference divided (writeback's age) */
	check_print("\"%lu\", (jiffies - REC->state) / 250", 5,
		    "73786976294838206");
	check_print("\"%d %d %d %d\", (u8)300, (int)REC->pid, !REC->pid, "
		    "REC->pid == 4294967294 && 1 || 0", 0, "44 -2 0 1");
	check_print("\"%s\", REC->state > 3 ? \"big\" : REC->state ? \"small\" "
		    ": \"none\"", 2, "small");
	check_print("\"%lu %lu\", REC->state, 10UL", 7, "7 10");
	/* casts to other types (kept whole), __builtin_expect, a
	 * parenthesis that is no cast */
	check_print("\"%lld %d %d\", ((loff_t)REC->state) << 12, "
		    "__builtin_expect(!!(REC->state), 0), (REC->state) + 1", 2,
		    "8192 1 3");
	/* an element of a fixed array: comm's bytes, 1 each */
	check_print("\"%c%c %d\", REC->comm[0], REC->comm[1 + 2], REC->comm[15]",
		    0, "bh 0");
	/* __print_symbolic, __print_flags' leftovers and zero */
	check_print("\"%s\", __print_symbolic(REC->state, { 1, \"one\" }, "
		    "{ 2, \"two\" })", 2, "two");
	check_print("\"%s\", __print_symbolic(REC->state, { 1, \"one\" })", 9,
		    "0x9");
	check_print("\"%s\", __print_flags(REC->state, \"|\", { 0, \"NONE\" }, "
		    "{ 1, \"A\" }, { 4, \"C\" })", 0x13, "A|0x12");
	/* a value of 0 is no flag (perf 6.1's print_str_arg() wants one
	 * above 0), nor is the gfp_flags table's "{ 0, ((void *)0) }" */
	check_print("\"%s\", __print_flags(REC->state, \"|\", { 0, \"NONE\" }, "
		    "{ 1, \"A\" })", 0, "");
	check_print("\"%s\", __print_flags(REC->state, \"|\", { ( unsigned "
		    "long)(( gfp_t)((((1UL))) << (1))), \"A\" }, { 0, ((void "
		    "*)0) } )", 2, "A");
	/* "(unsigned)" casts to unsigned int */
	check_print("\"%u %u\", (unsigned) REC->pid, (unsigned)REC->state", 7,
		    "4294967294 7");
	/* unconverted enum names: a flag 0, a symbol matching nothing */
	check_print("\"%s %s\", __print_flags(REC->state, \"|\", { I_A, \"A\" }, "
		    "{ 2, \"B\" }), __print_symbolic(REC->state, { M_ABS, "
		    "\"ABS\" })", 0, "A 0x0");
	check_print("\"%s\", __print_flags(REC->state, \"|\", { I_A, \"A\" }, "
		    "{ 2, \"B\" })", 3, "B|0x1");
	/* timer:timer_start's flags (kernel 6.18) */
	check_print("\"idx=%u flags=%s\", REC->state >> 22, "
		    "__print_flags(REC->state & (0x00040000 | 0x00080000 | "
		    "0x00100000 | 0x00200000), \"|\", { 0x00040000, \"M\" }, "
		    "{ 0x00080000, \"D\" }, { 0x00100000, \"P\" }, "
		    "{ 0x00200000, \"I\" })", (49u << 22) | 0x380000u,
		    "idx=49 flags=D|P|I");
}
END_TEST

/* %s of a pointer-sized field: the printk format at its address (its
 * quotes and a trailing \n dropped), else the address in hex. */
START_TEST(test_print_printk)
{
	static const char pk[] =
		"0xffff88880000 : \"Start context switch\"\n"
		"0x10 : \"line\\n\"\n"
		"bad line\n"
		"\n"
		"0x8 : \"a: b\"";
	char out[256];

	print_pk("\"%s|%s\", REC->ptr, REC->state", pk, 0x10, 64, out,
		 sizeof(out));
	ck_assert_str_eq(out, "Start context switch|line");
	print_pk("\"%s|%10s|%s\", REC->state, (char *)REC->state, "
		 "REC->state ? REC->ptr : REC->state", pk, 0x11, 64, out,
		 sizeof(out));
	ck_assert_str_eq(out, "11|11|Start context switch");
	print_pk("\"%s\", REC->state", pk, 8, 64, out, sizeof(out));
	ck_assert_str_eq(out, "a: b");
	/* not a field (arithmetic), or not pointer-sized */
	print_pk("\"%s\", REC->state + 0", pk, 8, 64, out, sizeof(out));
	ck_assert_ptr_nonnull(strstr(out, "[FAILED TO PARSE]"));
	print_pk("\"%s\", REC->pid", pk, 8, 64, out, sizeof(out));
	ck_assert_ptr_nonnull(strstr(out, "[FAILED TO PARSE]"));
}
END_TEST

/* What is not understood prints libtraceevent's fallback: the fields. */
START_TEST(test_print_fallback)
{
	static const char fields[] =
		"[FAILED TO PARSE] comm=bash pid=-2 state=3 name=hello "
		"small=-1 ptr=0xffff88880000";
	char out[512];

	check_print("\"%pM\", REC->ptr", 3, fields);
	check_print("\"%d\", __get_bitmask(x)", 3, fields);
	check_print("\"%d\", REC->nosuch", 3, fields);
	check_print("\"%d %d\", REC->pid", 3, fields);
	check_print("\"%d\", REC->pid, REC->pid", 3, fields);
	check_print("\"%s\", REC->pid", 3, fields);
	check_print("\"%d\", 1 / 0", 3, fields);
	check_print("\"%d\", ((((((((((((((((((((((((((((((((((((((((((((((("
		    "((((((((((((((((((((1))))))))))))))))))))))))))))))))"
		    "))))))))))))))))))))))))))))))))))", 3, fields);
	check_print("\"unterminated", 3, fields);
	check_print("\"%d\", REC->comm[16]", 3, fields);
	/* raw bytes too short for a field: that field prints nothing */
	print_one("\"%d\", REC->small", 3, 40, out, sizeof(out));
	ck_assert_str_eq(out, "[FAILED TO PARSE] comm=bash pid=-2 state=3 "
			      "name= small= ptr=");
	/* a small buffer is cut, the whole length returned */
	ck_assert_uint_eq(print_one("\"%s-%s\", REC->comm, REC->comm", 0, 64,
				    out, 5),
			  9);
	ck_assert_str_eq(out, "bash");
}
END_TEST

Suite *tracing_suite(void)
{
	Suite *s = suite_create("tracing");
	TCase *tc = tcase_create("tracing");

	tcase_add_loop_test(tc, test_formats, 0, 2);
	tcase_add_test(tc, test_cut);
	tcase_add_test(tc, test_cut_printk);
	tcase_add_test(tc, test_nomem);
	tcase_add_test(tc, test_nul);
	tcase_add_test(tc, test_print);
	tcase_add_test(tc, test_print_fallback);
	tcase_add_test(tc, test_print_printk);
	suite_add_tcase(s, tc);
	return s;
}
