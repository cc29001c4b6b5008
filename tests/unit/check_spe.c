/*
 * check_spe.c - the Arm SPE decoder (reader/pd_spe.c) against ground
 * truth: testdata/spe/NAME.truth lists, for each record that
 * tests/gen/pd_spe_synth.py put in NAME.perf.data, its CPU, offset and
 * every field, so the records pdtool decodes from the capture must equal
 * it line for line.  Also the metadata of both AUXTRACE_INFO forms and
 * packets built here from the format's rules.
 */
#include "pd.h"

#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPE_DIR "../../testdata/spe/"

static const char *const captures[] = {
	"n1",	 "v1-noctx", "n2-thread",      "n1-meta2",
	"n1-nots", "zoo",	 "v2",		 "ampere1a-meta2",
	"hetero-meta2", "hip12-meta2", "v1-taskswitch",
	"v1-taskswitch-thread", "v2-pbt",
};

/* A field of a truth line: hex, or '-' for absent (PD_SPE_HAS_*). */
static void field(char *out, size_t size, bool has, uint64_t v)
{
	if (has)
		snprintf(out, size, "%" PRIx64, v);
	else
		snprintf(out, size, "-");
}

/* The record as a truth line (tests/gen/pd_spe_synth.py's format). */
static void record_line(char *out, size_t size, uint32_t cpu,
			const struct pd_spe_record *r)
{
	char f[12][24];
	const unsigned m = r->mask;

	field(f[0], 24, m & PD_SPE_HAS_PC, r->addr[PD_SPE_ADDR_PC]);
	field(f[1], 24, m & PD_SPE_HAS_TGT, r->addr[PD_SPE_ADDR_TGT]);
	field(f[2], 24, m & PD_SPE_HAS_VA, r->addr[PD_SPE_ADDR_VA]);
	field(f[3], 24, m & PD_SPE_HAS_PA, r->addr[PD_SPE_ADDR_PA]);
	field(f[4], 24, m & PD_SPE_HAS_TIMESTAMP, r->timestamp);
	field(f[5], 24, m & PD_SPE_HAS_CONTEXT, r->context);
	field(f[6], 24, m & PD_SPE_HAS_EVENTS, r->events);
	field(f[7], 24, m & PD_SPE_HAS_SOURCE, r->source);
	field(f[8], 24, m & PD_SPE_HAS_LAT_TOTAL, r->lat_total);
	field(f[9], 24, m & PD_SPE_HAS_LAT_ISSUE, r->lat_issue);
	field(f[10], 24, m & PD_SPE_HAS_LAT_XLAT, r->lat_xlat);
	snprintf(out, size,
		 "%" PRIu32 " %" PRIx64 " %s %u %u %s %s %s %s %s %u %x %s %s "
		 "%s %s %s %s",
		 cpu, r->offset, f[0], r->el[PD_SPE_ADDR_PC],
		 r->ns[PD_SPE_ADDR_PC], f[1], f[2], f[3], f[4], f[5],
		 r->op_class, r->op_raw, f[6], f[7], f[8], f[9], f[10],
		 r->ended_by == PD_SPE_TIMESTAMP ? "TS" : "END");
	if (m & PD_SPE_HAS_PBT) {
		const size_t n = strlen(out);

		snprintf(out + n, size - n, " pbt=%" PRIx64,
			 r->addr[PD_SPE_ADDR_PBT]);
	}
}

START_TEST(test_truth)
{
	const char *name = captures[_i];
	char path[256], want[512], got[512];
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	struct pd_event ev;
	struct pd_spe_record sr;
	struct pd_spe_cursor c;
	FILE *truth;
	uint64_t nr = 0, nr_bufs = 0;
	bool zoo = strcmp(name, "zoo") == 0;
	int rc;

	snprintf(path, sizeof(path), SPE_DIR "%s.truth", name);
	truth = fopen(path, "r");
	ck_assert_msg(truth, "%s", path);
	ck_assert(fgets(want, sizeof(want), truth)); /* the options line */
	snprintf(path, sizeof(path), SPE_DIR "%s.perf.data", name);
	ck_assert_int_eq(pd_file_open(path, NULL, &f), 0);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		if (rec.type != PD_REC_AUXTRACE)
			continue;
		ck_assert_int_eq(pd_event_decode(f, &rec, &ev), 0);
		ck_assert(ev.auxtrace.data);
		nr_bufs++;
		pd_spe_cursor_init(&c, ev.auxtrace.data,
				   ev.auxtrace.data_size, rec.offset + rec.size);
		/* the zoo's last buffer is for descriptions, not truth */
		if (zoo && ev.auxtrace.reference == 0x9000) {
			while (pd_spe_next_record(&c, &sr) > 0)
				;
			ck_assert_uint_eq(c.nr_bad, 7);
			ck_assert_uint_eq(c.nr_dropped, 1); /* the reserved op class */
			continue;
		}
		while (pd_spe_next_record(&c, &sr) > 0) {
			record_line(got, sizeof(got), ev.auxtrace.cpu == UINT32_MAX
							      ? 0
							      : ev.auxtrace.cpu,
				    &sr);
			ck_assert_msg(fgets(want, sizeof(want), truth),
				      "%s: record %" PRIu64 " not in the truth",
				      name, nr);
			want[strcspn(want, "\n")] = '\0';
			ck_assert_str_eq(got, want);
			nr++;
		}
		ck_assert_uint_eq(c.nr_bad, 0);
		ck_assert_uint_eq(c.nr_dropped, 0);
		ck_assert_uint_eq(c.nr_tail, 0);
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(!fgets(want, sizeof(want), truth),
		      "%s: truth has more records than the %" PRIu64
		      " decoded", name, nr);
	ck_assert_uint_gt(nr, 0);
	ck_assert_uint_ge(nr_bufs, 2);
	fclose(truth);
	pd_reader_free(r);
	pd_file_close(f);
}
END_TEST

/* Both metadata forms, told apart by size as perf tells them. */
START_TEST(test_info)
{
	static const char *const names[] = {"n1", "n1-meta2"};
	char path[256];
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	struct pd_event ev;
	struct pd_spe_info info;
	struct pd_spe_cpu cpu;
	bool seen = false;

	snprintf(path, sizeof(path), SPE_DIR "%s.perf.data", names[_i]);
	ck_assert_int_eq(pd_file_open(path, NULL, &f), 0);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	while (pd_reader_next(r, &rec) > 0) {
		if (rec.type != PD_REC_AUXTRACE_INFO)
			continue;
		ck_assert_int_eq(pd_event_decode(f, &rec, &ev), 0);
		ck_assert_int_eq(pd_spe_info_decode(f, &ev.auxtrace_info, &info),
				 0);
		ck_assert_uint_eq(info.pmu_type, 8);
		if (_i == 0) {
			ck_assert_uint_eq(info.version, 1);
			ck_assert_uint_eq(info.per_cpu_mmaps, 1);
			ck_assert_uint_eq(info.nr_cpus, 0);
		} else {
			ck_assert_uint_eq(info.version, 2);
			ck_assert_uint_eq(info.nr_cpus, 2);
			for (uint64_t i = 0; i < 2; i++) {
				ck_assert_int_eq(pd_spe_info_cpu(&info, i, &cpu),
						 0);
				ck_assert_uint_eq(cpu.cpu, i);
				ck_assert_uint_eq(cpu.midr, 0x410fd0c0);
				ck_assert_uint_eq(cpu.pmu_type, 8);
				ck_assert_uint_eq(cpu.min_interval, 256);
			}
		}
		seen = true;
	}
	ck_assert(seen);
	pd_reader_free(r);
	pd_file_close(f);
}
END_TEST

/* Packets from the format's rules: headers, sizes, indexes. */
START_TEST(test_packets)
{
	static const struct {
		unsigned char bytes[10];
		size_t len;
		int rc;
		enum pd_spe_pkt_type type;
		unsigned index;
		uint64_t payload;
		const char *desc;
	} t[] = {
		{{0x00}, 1, 1, PD_SPE_PAD, 0, 0, "PAD"},
		{{0x01}, 1, 1, PD_SPE_END, 0, 0, "END"},
		{{0x42, 0x06}, 2, 2, PD_SPE_EVENTS, 1, 6,
		 "EV RETIRED L1D-ACCESS"},
		{{0x62, 0, 0, 2, 0}, 5, 5, PD_SPE_EVENTS, 4, 0x20000,
		 "EV SVE-PARTIAL-PRED"},
		{{0x53, 0x08, 0x00}, 3, 3, PD_SPE_DATA_SOURCE, 0, 8,
		 "DATA-SOURCE 8"},
		{{0x49, 0x02}, 2, 2, PD_SPE_OP_TYPE, 1, 2, "LD"},
		{{0x49, 0x07}, 2, 2, PD_SPE_OP_TYPE, 1, 7, "ST AT"},
		{{0x4a, 0x03}, 2, 2, PD_SPE_OP_TYPE, 2, 3, "B COND IND"},
		{{0x9a, 0x05, 0x01}, 3, 3, PD_SPE_COUNTER, 2, 0x105,
		 "LAT 261 XLAT"},
		{{0x20, 0x9a, 0x05, 0x00}, 4, 4, PD_SPE_COUNTER, 2, 5,
		 "LAT 5 XLAT"},
		{{0xb1, 1, 0, 0, 0, 0, 0, 0, 0xa0}, 9, 9, PD_SPE_ADDRESS, 1,
		 0xa000000000000001ull, "TGT 0x1 el1 ns=1"},
		{{0x71, 1, 2}, 3, PD_ERR_TRUNCATED, PD_SPE_TIMESTAMP, 0, 0,
		 NULL},
		{{0x02}, 1, PD_ERR_FORMAT, PD_SPE_BAD, 0, 0, NULL},
		{{0x20}, 1, PD_ERR_FORMAT, PD_SPE_BAD, 0, 0, NULL},
	};
	struct pd_spe_pkt pkt;
	char desc[256];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const int rc = pd_spe_pkt_decode(t[i].bytes, t[i].len, 0, &pkt,
						 NULL);

		ck_assert_int_eq(rc, t[i].rc);
		if (rc < 0)
			continue;
		ck_assert_int_eq(pkt.type, t[i].type);
		ck_assert_uint_eq(pkt.index, t[i].index);
		ck_assert_uint_eq(pkt.payload, t[i].payload);
		pd_spe_pkt_desc(&pkt, desc, sizeof(desc));
		ck_assert_str_eq(desc, t[i].desc);
	}
}
END_TEST

/* The record's op flags hold what perf 6.1's text cannot say. */
START_TEST(test_op_flags)
{
	static const unsigned char trace[] = {
		0x49, 0x25, 0x01,	/* ST MEMSET, END */
		0x49, 0x44, 0x01,	/* LD GCS COMM */
		0x48, 0x88 | 0x10 | 0x04 | 0x02, 0x01, /* SME-OTHER FP */
		0x4a, 0x10, 0x01,	/* B CR-RET */
	};
	static const uint32_t want[] = {
		PD_SPE_OPF_ST | PD_SPE_OPF_MEMSET,
		PD_SPE_OPF_LD | PD_SPE_OPF_GCS | PD_SPE_OPF_GCS_COMM,
		PD_SPE_OPF_SME_OTHER | PD_SPE_OPF_FP,
		PD_SPE_OPF_CR_RET,
	};
	static const unsigned want_vl[] = {0, 0, 128u << 3, 0};
	struct pd_spe_cursor c;
	struct pd_spe_record r;
	size_t n = 0;

	pd_spe_cursor_init(&c, trace, sizeof(trace), 0);
	while (pd_spe_next_record(&c, &r) > 0) {
		ck_assert_uint_lt(n, 4);
		ck_assert_uint_eq(r.op, want[n]);
		ck_assert_uint_eq(r.op_vl, want_vl[n]);
		ck_assert_int_eq(r.ended_by, PD_SPE_END);
		n++;
	}
	ck_assert_uint_eq(n, 4);
}
END_TEST

/* One record of spe_gen's shape (bench/spe_gen.c): a load with every
 * packet the straight-line path knows, in its order */
static size_t put_load(unsigned char *p, uint64_t ts)
{
	static const unsigned char rec[] = {
		0x65, 0x39, 0x30, 0x00, 0x00,			/* CONTEXT */
		0xb0, 0x10, 0x32, 0x54, 0x76, 0x98, 0x00, 0x00, 0x80, /* PC */
		0x99, 0x05, 0x00,				/* LAT ISSUE */
		0x98, 0x0c, 0x00,				/* LAT TOT */
		0x52, 0x16, 0x00,				/* EVENTS */
		0x49, 0x00,					/* LD */
		0xb2, 0x08, 0x00, 0xc0, 0xff, 0xff, 0x00, 0x00, 0x00, /* VA */
		0x9a, 0x02, 0x00,				/* LAT XLAT */
		0xb3, 0x08, 0x00, 0xc0, 0x8f, 0x00, 0x00, 0x00, 0x80, /* PA */
		0x43, 0x08,					/* SOURCE */
	};

	memcpy(p, rec, sizeof(rec));
	p[sizeof(rec)] = 0x71;	/* TIMESTAMP */
	memcpy(p + sizeof(rec) + 1, &ts, 8);
	return sizeof(rec) + 9;
}

/*
 * pd_spe_next_record_lean() against pd_spe_next_record() on records the
 * straight line takes whole, and ones it leaves to the general decoder
 * part way (a PAD run between records and before the end, one longer
 * than a packet, an END, the reserved op class, a packet out of order):
 * the same records, cursor and counts; without the op flags asked, op 0.
 */
START_TEST(test_lean)
{
	unsigned char buf[2048];
	size_t len = 0;
	struct pd_spe_cursor c, l;
	struct pd_spe_record r, lr;
	const unsigned need = _i ? PD_SPE_NEED_ALL : 0;
	size_t nr = 0;
	int got;

	memset(buf, 0, sizeof(buf));
	for (unsigned i = 0; i < 24; i++) {
		len += put_load(buf + len, 1000 + i);
		switch (i % 6) {
		case 1:
			len += 3;	/* a PAD run between records */
			break;
		case 2:
			len += 20;	/* longer than a packet */
			break;
		case 3:		/* the reserved op class: dropped */
			buf[len++] = 0xb0;
			len += 8;
			buf[len++] = 0x4b;
			buf[len++] = 0x00;
			break;
		case 4:		/* out of order, then END */
			buf[len++] = 0x98;
			buf[len++] = 0x07;
			buf[len++] = 0x00;
			buf[len++] = 0xb0;
			len += 8;
			buf[len++] = 0x01;
			break;
		default:
			break;
		}
	}
	ck_assert_uint_le(len, sizeof(buf));
	pd_spe_cursor_init(&c, buf, len, 0);
	pd_spe_cursor_init(&l, buf, len, 0);
	while ((got = pd_spe_next_record(&c, &r)) > 0) {
		ck_assert_int_eq(pd_spe_next_record_lean(&l, &lr, need), got);
		ck_assert_mem_eq(&l, &c, sizeof(c));
		if (!need) {
			/* the details left out, 0 */
			ck_assert_uint_eq(lr.op, 0);
			ck_assert_uint_eq(lr.el[PD_SPE_ADDR_PC], 0);
			ck_assert_uint_eq(lr.ns[PD_SPE_ADDR_PC], 0);
			ck_assert_uint_eq(lr.ns[PD_SPE_ADDR_PA], 0);
			lr.op = r.op;
			memcpy(lr.el, r.el, sizeof(lr.el));
			memcpy(lr.ns, r.ns, sizeof(lr.ns));
			lr.va_tag = r.va_tag;
			lr.pa_ch = r.pa_ch;
			lr.pa_pat = r.pa_pat;
		}
		ck_assert_mem_eq(&lr, &r, sizeof(r));
		nr++;
	}
	ck_assert_int_eq(pd_spe_next_record_lean(&l, &lr, need), 0);
	ck_assert_mem_eq(&l, &c, sizeof(c));
	ck_assert_uint_eq(c.nr_dropped, 4);
	/* each load, and the four ENDed records */
	ck_assert_uint_eq(nr, 24 + 4);
}
END_TEST

Suite *spe_suite(void)
{
	Suite *s = suite_create("spe");
	TCase *tc = tcase_create("spe");

	tcase_add_loop_test(tc, test_truth, 0,
			    sizeof(captures) / sizeof(captures[0]));
	tcase_add_loop_test(tc, test_info, 0, 2);
	tcase_add_test(tc, test_packets);
	tcase_add_test(tc, test_op_flags);
	tcase_add_loop_test(tc, test_lean, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
