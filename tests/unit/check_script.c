/*
 * check_script.c - perf script's sample lines (emit/pde_script.c): the
 * fields whose text does not depend on a capture, as perf 6.1 prints
 * them: misc's cpumode letters, flags' blank column, ins_lat, the page
 * size names, insn's bytes, tod's wall-clock time, the registers' names
 * and srccode's source line.
 */
#include "pd_config.h" /* open_memstream */
#include "pde.h"
#include "pd.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What w wrote to out (open_memstream's), into buf. */
static void text_of(FILE *out, char **mem, char *buf, size_t size)
{
	size_t len;

	ck_assert_int_eq(fclose(out), 0);
	len = strlen(*mem);
	ck_assert_uint_lt(len, size);
	memcpy(buf, *mem, len + 1);
	free(*mem);
}

/* The line pde_script_sample() writes for s with fields, in buf. */
static void line_of(const struct pd_sample *s, uint64_t fields, char *buf,
		    size_t size)
{
	struct pde_script w;
	struct pde_script_line l = {.sample = s, .comm = "x", .event = "e",
				    .fields = fields};
	char *mem = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&mem, &len);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(pde_script_init(&w, out, false, 0), 0);
	ck_assert_int_eq(pde_script_sample(&w, &l), 0);
	ck_assert_int_eq(pde_script_finish(&w), 0);
	text_of(out, &mem, buf, size);
}

/* perf matches each cpumode as a mask of the record's misc: a
 * hypervisor sample (3) is "KUH", a guest user one (5) "KGg"; the
 * letters are padded to 6, the exact-ip bit changes nothing. */
START_TEST(test_misc)
{
	static const struct {
		unsigned misc;
		const char *want;
	} cases[] = {
		{0, "x           1.000000: \n"},
		{1, "x K         1.000000: \n"},
		{2, "x U         1.000000: \n"},
		{3, "x KUH       1.000000: \n"},
		{4, "x G         1.000000: \n"},
		{5, "x KGg       1.000000: \n"},
		{2 | (1u << 14), "x U         1.000000: \n"},
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pd_sample s;

		memset(&s, 0, sizeof(s));
		s.misc = (uint16_t)cases[i].misc;
		s.time = 1000000000u;
		memset(buf, 0, sizeof(buf));
		line_of(&s, PDE_SF(COMM) | PDE_SF(MISC) | PDE_SF(TIME), buf,
			sizeof(buf));
		/* comm is padded to 16 without callchains */
		ck_assert_str_eq(buf + 15, cases[i].want);
	}
}
END_TEST

/* flags: perf's "  %-21s " of no flags; ins_lat: the WEIGHT_STRUCT's
 * second weight in 16; page sizes: " 4K", " 2M", " 1024B", " N/A". */
START_TEST(test_columns)
{
	struct pd_sample s;
	char buf[256];

	memset(&s, 0, sizeof(s));
	s.weight_var2 = 37;
	s.data_page_size = 4096;
	s.code_page_size = 2u << 20;
	line_of(&s, PDE_SF(EVENT) | PDE_SF(FLAGS) | PDE_SF(INS_LAT) |
			    PDE_SF(DATA_PAGE_SIZE) | PDE_SF(CODE_PAGE_SIZE),
		buf, sizeof(buf));
	ck_assert_str_eq(buf, "e: " "                        "
			      "              37 4K 2M\n");
	s.data_page_size = 1024;
	s.code_page_size = 0;
	line_of(&s, PDE_SF(DATA_PAGE_SIZE) | PDE_SF(CODE_PAGE_SIZE), buf,
		sizeof(buf));
	ck_assert_str_eq(buf, " 1024B N/A\n");
}
END_TEST

/* insn: the instruction's bytes after ilen, none where its length is
 * not known */
START_TEST(test_insn)
{
	static const unsigned char bytes[] = {0x48, 0x89, 0xe7};
	struct pde_script w;
	struct pd_sample s;
	struct pde_script_line l = {.sample = &s,
				    .fields = PDE_SF(INSNLEN) | PDE_SF(INSN),
				    .insn = bytes, .insn_len = 3};
	char buf[128];
	char *mem = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&mem, &len);

	ck_assert_ptr_nonnull(out);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(pde_script_init(&w, out, false, 0), 0);
	ck_assert_int_eq(pde_script_sample(&w, &l), 0);
	l.insn_len = 0;
	ck_assert_int_eq(pde_script_sample(&w, &l), 0);
	ck_assert_int_eq(pde_script_finish(&w), 0);
	text_of(out, &mem, buf, sizeof(buf));
	ck_assert_str_eq(buf, " ilen: 3 insn: 48 89 e7\n ilen: 0\n");
}
END_TEST

/* tod: the wall clock of the capture's reference pair moved by the
 * sample's distance from it, either way, in local time */
START_TEST(test_tod)
{
	struct pde_script w;
	struct pd_sample s;
	struct pde_script_line l = {.sample = &s, .fields = PDE_SF(TOD)};
	char buf[256];
	char *mem = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&mem, &len);

	ck_assert_ptr_nonnull(out);
	setenv("TZ", "UTC", 1);
	tzset();
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(pde_script_init(&w, out, false, 0), 0);
	w.tod = true;
	w.tod_ns = 1700000000ull * 1000000000u; /* 2023-11-14 22:13:20 */
	w.clock_ns = 5000000000u;
	s.time = 6500001234u;	/* 1.5 s later */
	ck_assert_int_eq(pde_script_sample(&w, &l), 0);
	s.time = 4000000000u;	/* 1 s before */
	ck_assert_int_eq(pde_script_sample(&w, &l), 0);
	w.ns = true;
	s.time = 6500001234u;
	ck_assert_int_eq(pde_script_sample(&w, &l), 0);
	w.tod = false;
	ck_assert_int_eq(pde_script_sample(&w, &l), 0);
	ck_assert_int_eq(pde_script_finish(&w), 0);
	text_of(out, &mem, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2023-11-14 22:13:21.500001 \n"
			      "2023-11-14 22:13:19.000000 \n"
			      "2023-11-14 22:13:21.500001234 \n"
			      "disabled \n");
}
END_TEST

/* Write l (fields of its own) with w's reg_arch into buf. */
static void regs_line(const char *arch, const struct pde_script_line *l,
		      char *buf, size_t size)
{
	struct pde_script w;
	char *mem = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&mem, &len);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(pde_script_init(&w, out, false, 0), 0);
	w.reg_arch = arch;
	ck_assert_int_eq(pde_script_sample(&w, l), 0);
	ck_assert_int_eq(pde_script_finish(&w), 0);
	text_of(out, &mem, buf, size);
}

/* iregs, uregs: " ABI:N " then each register of the mask by perf's name
 * for the architecture ("unknown" past them), none with ABI 0 */
START_TEST(test_regs)
{
	static const uint64_t vals[] = {1, 0x2a, 3, 0xff};
	struct pd_sample s;
	struct pde_script_line l = {.sample = &s,
				    .fields = PDE_SF(IREGS) | PDE_SF(UREGS)};
	char buf[256];

	memset(&s, 0, sizeof(s));
	s.regs_intr.abi = 2;
	s.regs_intr.mask = 1u | 1u << 9 | 1u << 25 | (uint64_t)1 << 32;
	s.regs_intr.regs.nr = 4;
	s.regs_intr.regs.raw = (const unsigned char *)vals;
	s.regs_intr.regs.swap = 0;
	regs_line("x86", &l, buf, sizeof(buf));
	ck_assert_str_eq(buf, " ABI:2    AX:0x1 FLAGS:0x2a unknown:0x3  XMM0:0xff \n");
	s.regs_user = s.regs_intr;
	s.regs_user.mask = 1u << 29 | 1u << 30 | 1u << 31 | (uint64_t)1 << 46;
	s.regs_intr.abi = 0;
	regs_line("arm64", &l, buf, sizeof(buf));
	ck_assert_str_eq(buf, " ABI:2   x29:0x1    lr:0x2a    sp:0x3    vg:0xff \n");
	s.regs_user.mask = 1u << 11 | 1u << 15 | 1u << 16 | 1u << 17;
	regs_line("arm", &l, buf, sizeof(buf));
	ck_assert_str_eq(buf, " ABI:2    fp:0x1    pc:0x2a unknown:0x3 unknown:0xff \n");
	ck_assert_str_eq(pde_script_reg_arch("x86_64"), "x86");
	ck_assert_str_eq(pde_script_reg_arch("i686"), "x86");
	ck_assert_str_eq(pde_script_reg_arch("aarch64"), "arm64");
	ck_assert_str_eq(pde_script_reg_arch("armv7l"), "arm");
	ck_assert_ptr_null(pde_script_reg_arch("ppc64le"));
	ck_assert_ptr_null(pde_script_reg_arch(NULL));
}
END_TEST

/* srccode: "|LINE     text" under the sample's line, the number padded
 * to 8, the text as it is (tabs kept); none without text */
START_TEST(test_srccode)
{
	static const char text[] = "\tfor (;;) {\nnext line";
	struct pd_sample s;
	struct pde_script_line l = {.sample = &s, .fields = PDE_SF(SRCCODE),
				    .src = {text, 11, 36}};
	char buf[128];

	memset(&s, 0, sizeof(s));
	regs_line(NULL, &l, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\n|36       \tfor (;;) {\n");
	l.src.line = 123456789;
	regs_line(NULL, &l, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\n|123456789 \tfor (;;) {\n");
	l.src.text = NULL;
	regs_line(NULL, &l, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\n");
}
END_TEST

Suite *script_suite(void)
{
	Suite *s = suite_create("script");
	TCase *tc = tcase_create("script");

	tcase_add_test(tc, test_misc);
	tcase_add_test(tc, test_columns);
	tcase_add_test(tc, test_insn);
	tcase_add_test(tc, test_tod);
	tcase_add_test(tc, test_regs);
	tcase_add_test(tc, test_srccode);
	suite_add_tcase(s, tc);
	return s;
}
