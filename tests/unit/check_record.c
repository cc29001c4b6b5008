/*
 * check_record.c - the recorder's records written without a kernel:
 * CPU_MAP in each encoding perf 6.1 picks (cpu_map_data__alloc: a
 * range where the CPUs follow each other, else the smaller of a u16 list
 * and a u32 bitmap, the list where -1 is), byte for byte as perf's rule
 * gives them, and read back by the reader as the same CPUs.
 */
#include "testfile.h"
#include "pda_record_priv.h"

#include <check.h>
#include <string.h>

struct cpu_case {
	const char *what;
	int cpus[8];
	size_t nr;
	unsigned char want[32]; /* the record perf 6.1 writes */
	size_t size;
};

static const struct cpu_case cpu_cases[] = {
	{"range 0-3", {0, 1, 2, 3}, 4,
	 {0x4a, 0, 0, 0, 0, 0, 16, 0, 2, 0, 0, 0, 0, 0, 3, 0}, 16},
	{"range 1", {1}, 1,
	 {0x4a, 0, 0, 0, 0, 0, 16, 0, 2, 0, 0, 0, 1, 0, 1, 0}, 16},
	/* a list: 4 + 2 * 2 bytes beat a bitmap's 6 + 4 */
	{"list 1,3", {1, 3}, 2,
	 {0x4a, 0, 0, 0, 0, 0, 16, 0, 0, 0, 2, 0, 1, 0, 3, 0}, 16},
	/* -1 (any CPU) is always a list */
	{"list any", {-1, 2, 5}, 3,
	 {0x4a, 0, 0, 0, 0, 0, 24, 0, 0, 0, 3, 0, 0xff, 0xff, 2, 0, 5, 0}, 24},
	/* even CPUs: a bitmap of 6 + 4 bytes beats a list's 4 + 12 */
	{"mask 0,2..10", {0, 2, 4, 6, 8, 10}, 6,
	 {0x4a, 0, 0, 0, 0, 0, 24, 0, 1, 0, 1, 0, 4, 0, 0x55, 0x05, 0, 0},
	 24},
	/* 33 and 63 in a second word */
	{"mask 0,2,4,6,33,63", {0, 2, 4, 6, 33, 63}, 6,
	 {0x4a, 0, 0, 0, 0, 0, 24, 0, 1, 0, 2, 0, 4, 0, 0x55, 0, 0, 0, 2, 0,
	  0, 0x80},
	 24},
};

START_TEST(test_cpu_map_encoding)
{
	const struct cpu_case *c = &cpu_cases[_i];
	struct pdc_strbuf b;
	struct tf_attr a;
	struct tf t;
	struct pd_file *f;
	struct pd_rec rec;
	struct pd_event ev;
	uint64_t pos = 0;
	size_t n = 0;
	int cpu;

	pdc_strbuf_init(&b, NULL, NULL, 0);
	rec_synth_cpu_map(&b, c->cpus, c->nr);
	ck_assert_msg(!b.oom, "%s", c->what);
	ck_assert_uint_eq(b.len, c->size);
	ck_assert_msg(memcmp(b.p, c->want, c->size) == 0, "%s: bytes differ",
		      c->what);

	/* the reader takes it as the same CPUs */
	memset(&a, 0, sizeof(a));
	a.type = 1;
	a.sample_period = 1000;
	tf_init(&t, false);
	tf_add_attr(&t, &a, NULL, 0);
	tf_begin(&t, PD_REC_CPU_MAP, 0);
	tf_bytes(&t, (const unsigned char *)b.p + 8, b.len - 8);
	ck_assert_uint_eq(tf_end(&t), c->size);
	f = tf_open(&t);
	rec = tf_rec_copy(&t, 0, (uint32_t)c->size);
	ck_assert_int_eq(pd_event_decode(f, &rec, &ev), 0);
	while (pd_cpu_map_next(&ev.cpu_map, &pos, &cpu)) {
		ck_assert_uint_lt(n, c->nr);
		ck_assert_int_eq(cpu, c->cpus[n]);
		n++;
	}
	ck_assert_uint_eq(n, c->nr);
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);
	pdc_strbuf_release(&b);
}
END_TEST

Suite *record_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("maps");

	tcase_add_loop_test(tc, test_cpu_map_encoding, 0,
			    (int)(sizeof(cpu_cases) / sizeof(cpu_cases[0])));
	suite_add_tcase(s, tc);
	return s;
}
