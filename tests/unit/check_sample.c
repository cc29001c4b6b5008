/*
 * check_sample.c - pd_sample_decode() on SAMPLE records built in memory:
 * every sample_type bit alone and all together, every read_format
 * combination, branch stacks with and without hw_idx and counters,
 * register masks, user stacks of size 0 and not, in both byte orders,
 * and every truncation of each record (PD_ERR_FORMAT, never a read past
 * the end: each truncated copy is its own heap block for ASan).
 */
#include "testfile.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define ALL_SAMPLE_BITS ((1ull << PD_SAMPLE_NR_BITS) - 1)
#define ALL_READ_FORMAT 0x1full

/* Which value a field holds: distinct per field and index, and never
 * equal to its own byte swap. */
enum field {
	F_ID = 1,
	F_IP,
	F_PID,
	F_TID,
	F_TIME,
	F_ADDR,
	F_STREAM,
	F_CPU,
	F_PERIOD,
	F_ENABLED,
	F_RUNNING,
	F_VALUE,
	F_VALUE_ID,
	F_LOST,
	F_CALLCHAIN,
	F_FROM,
	F_TO,
	F_HW_IDX,
	F_COUNTER,
	F_REGS_USER,
	F_DYN_SIZE,
	F_WEIGHT,
	F_DATA_SRC,
	F_TRANSACTION,
	F_REGS_INTR,
	F_PHYS,
	F_CGROUP,
	F_DATA_PAGE,
	F_CODE_PAGE,
};

static uint64_t val(enum field f, uint64_t i)
{
	return 0x0102030405060708ull * (uint64_t)f + i * 0x10001ull + 1;
}

struct spec {
	uint64_t st, rf, bst;
	uint64_t regs_user_mask, regs_intr_mask;
	uint64_t abi;	   /* of both register sets: 0 or 2 */
	uint64_t nr_group; /* READ with GROUP */
	uint64_t nr_callchain, nr_branch;
	uint32_t raw_size; /* 4 + raw_size is a multiple of 8 */
	uint64_t stack_size, aux_size;
};

/* struct perf_branch_entry's flag fields of entry i */
static void branch_fields(uint64_t i, unsigned f[9])
{
	f[0] = i & 1;			  /* mispred */
	f[1] = !(i & 1);		  /* predicted */
	f[2] = (i >> 1) & 1;		  /* in_tx */
	f[3] = (i >> 2) & 1;		  /* abort */
	f[4] = (unsigned)(0x1234 + i);	  /* cycles */
	f[5] = (unsigned)((i + 3) & 0xf); /* type */
	f[6] = (unsigned)(i & 3);	  /* spec */
	f[7] = (unsigned)((i + 5) & 0xf); /* new_type */
	f[8] = (unsigned)((i + 1) & 7);	  /* priv */
}

/*
 * The flags word as a compiler lays the bitfield out: little-endian from
 * bit 0 up; big-endian from bit 63 down, each field's value in natural
 * order within its bits.
 */
static uint64_t branch_flags_word(uint64_t i, bool be)
{
	static const unsigned off[9] = {0, 1, 2, 3, 4, 20, 24, 26, 30};
	static const unsigned width[9] = {1, 1, 1, 1, 16, 4, 2, 4, 3};
	unsigned f[9];
	uint64_t w = 0;

	branch_fields(i, f);
	for (int k = 0; k < 9; k++) {
		const unsigned shift = be ? 64 - off[k] - width[k] : off[k];

		w |= (uint64_t)f[k] << shift;
	}
	return w;
}

static unsigned char pattern(uint64_t i)
{
	return (unsigned char)(0xa5 ^ (i * 7));
}

static void put_pattern(struct tf *t, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		tf_u8(t, pattern(i));
}

static void put_regs(struct tf *t, uint64_t abi, uint64_t mask, enum field f)
{
	tf_u64(t, abi);
	if (abi)
		for (int i = 0; i < __builtin_popcountll(mask); i++)
			tf_u64(t, val(f, (uint64_t)i));
}

/* A SAMPLE in the kernel's order (perf_output_sample). */
static uint32_t put_sample(struct tf *t, const struct spec *s)
{
	const uint64_t st = s->st, rf = s->rf;

	tf_begin(t, PD_REC_SAMPLE, PD_MISC_USER);
	if (st & PD_SAMPLE_IDENTIFIER)
		tf_u64(t, val(F_ID, 0));
	if (st & PD_SAMPLE_IP)
		tf_u64(t, val(F_IP, 0));
	if (st & PD_SAMPLE_TID) {
		tf_u32(t, (uint32_t)val(F_PID, 0));
		tf_u32(t, (uint32_t)val(F_TID, 0));
	}
	if (st & PD_SAMPLE_TIME)
		tf_u64(t, val(F_TIME, 0));
	if (st & PD_SAMPLE_ADDR)
		tf_u64(t, val(F_ADDR, 0));
	if (st & PD_SAMPLE_ID)
		tf_u64(t, val(F_ID, 0));
	if (st & PD_SAMPLE_STREAM_ID)
		tf_u64(t, val(F_STREAM, 0));
	if (st & PD_SAMPLE_CPU) {
		tf_u32(t, (uint32_t)val(F_CPU, 0));
		tf_u32(t, 0);
	}
	if (st & PD_SAMPLE_PERIOD)
		tf_u64(t, val(F_PERIOD, 0));
	if (st & PD_SAMPLE_READ) {
		const uint64_t nr = rf & PD_FORMAT_GROUP ? s->nr_group : 1;

		if (rf & PD_FORMAT_GROUP)
			tf_u64(t, nr);
		else
			tf_u64(t, val(F_VALUE, 0));
		if (rf & PD_FORMAT_TOTAL_TIME_ENABLED)
			tf_u64(t, val(F_ENABLED, 0));
		if (rf & PD_FORMAT_TOTAL_TIME_RUNNING)
			tf_u64(t, val(F_RUNNING, 0));
		for (uint64_t i = 0; i < nr; i++) {
			if (rf & PD_FORMAT_GROUP)
				tf_u64(t, val(F_VALUE, i));
			if (rf & PD_FORMAT_ID)
				tf_u64(t, val(F_VALUE_ID, i));
			if (rf & PD_FORMAT_LOST)
				tf_u64(t, val(F_LOST, i));
		}
	}
	if (st & PD_SAMPLE_CALLCHAIN) {
		tf_u64(t, s->nr_callchain);
		for (uint64_t i = 0; i < s->nr_callchain; i++)
			tf_u64(t,
			       i == 0 ? PD_CONTEXT_USER : val(F_CALLCHAIN, i));
	}
	if (st & PD_SAMPLE_RAW) {
		tf_u32(t, s->raw_size);
		put_pattern(t, s->raw_size);
	}
	if (st & PD_SAMPLE_BRANCH_STACK) {
		tf_u64(t, s->nr_branch);
		if (s->bst & PD_BRANCH_SAMPLE_HW_INDEX)
			tf_u64(t, val(F_HW_IDX, 0));
		for (uint64_t i = 0; i < s->nr_branch; i++) {
			tf_u64(t, val(F_FROM, i));
			tf_u64(t, val(F_TO, i));
			tf_u64(t, branch_flags_word(i, t->big_endian));
		}
		if (s->bst & PD_BRANCH_SAMPLE_COUNTERS)
			for (uint64_t i = 0; i < s->nr_branch; i++)
				tf_u64(t, val(F_COUNTER, i));
	}
	if (st & PD_SAMPLE_REGS_USER)
		put_regs(t, s->abi, s->regs_user_mask, F_REGS_USER);
	if (st & PD_SAMPLE_STACK_USER) {
		tf_u64(t, s->stack_size);
		put_pattern(t, s->stack_size);
		if (s->stack_size)
			tf_u64(t, val(F_DYN_SIZE, 0));
	}
	if (st & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT))
		tf_u64(t, val(F_WEIGHT, 0));
	if (st & PD_SAMPLE_DATA_SRC)
		tf_u64(t, val(F_DATA_SRC, 0));
	if (st & PD_SAMPLE_TRANSACTION)
		tf_u64(t, val(F_TRANSACTION, 0));
	if (st & PD_SAMPLE_REGS_INTR)
		put_regs(t, s->abi, s->regs_intr_mask, F_REGS_INTR);
	if (st & PD_SAMPLE_PHYS_ADDR)
		tf_u64(t, val(F_PHYS, 0));
	if (st & PD_SAMPLE_CGROUP)
		tf_u64(t, val(F_CGROUP, 0));
	if (st & PD_SAMPLE_DATA_PAGE_SIZE)
		tf_u64(t, val(F_DATA_PAGE, 0));
	if (st & PD_SAMPLE_CODE_PAGE_SIZE)
		tf_u64(t, val(F_CODE_PAGE, 0));
	if (st & PD_SAMPLE_AUX) {
		tf_u64(t, s->aux_size);
		put_pattern(t, s->aux_size);
	}
	return tf_end(t);
}

static void check_pattern(const unsigned char *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		ck_assert_uint_eq(p[i], pattern(i));
}

static void check_regs(const struct pd_regs *r, uint64_t abi, uint64_t mask,
		       enum field f)
{
	ck_assert_uint_eq(r->abi, abi);
	ck_assert_uint_eq(r->mask, mask);
	ck_assert_uint_eq(r->regs.nr,
			  abi ? (uint64_t)__builtin_popcountll(mask) : 0);
	for (uint64_t i = 0; i < r->regs.nr; i++)
		ck_assert_uint_eq(pd_u64s_get(&r->regs, i), val(f, i));
}

static void check_read(const struct pd_sample *d, const struct spec *s)
{
	const uint64_t rf = s->rf;
	const uint64_t nr = rf & PD_FORMAT_GROUP ? s->nr_group : 1;
	struct pd_read_value v;

	ck_assert_uint_eq(d->read.nr, nr);
	ck_assert_uint_eq(d->read.time_enabled,
			  rf & PD_FORMAT_TOTAL_TIME_ENABLED ? val(F_ENABLED, 0)
							    : 0);
	ck_assert_uint_eq(d->read.time_running,
			  rf & PD_FORMAT_TOTAL_TIME_RUNNING ? val(F_RUNNING, 0)
							    : 0);
	for (uint64_t i = 0; i < nr; i++) {
		pd_sample_read_value(d, i, &v);
		ck_assert_uint_eq(v.value, val(F_VALUE, i));
		ck_assert_uint_eq(v.id,
				  rf & PD_FORMAT_ID ? val(F_VALUE_ID, i) : 0);
		ck_assert_uint_eq(v.lost,
				  rf & PD_FORMAT_LOST ? val(F_LOST, i) : 0);
	}
}

static void check_branches(const struct pd_sample *d, const struct spec *s)
{
	struct pd_branch b;
	unsigned f[9];

	ck_assert_uint_eq(d->branch.nr, s->nr_branch);
	ck_assert_int_eq(d->branch.has_hw_idx,
			 !!(s->bst & PD_BRANCH_SAMPLE_HW_INDEX));
	if (s->bst & PD_BRANCH_SAMPLE_HW_INDEX)
		ck_assert_uint_eq(d->branch.hw_idx, val(F_HW_IDX, 0));
	for (uint64_t i = 0; i < s->nr_branch; i++) {
		pd_sample_branch(d, i, &b);
		branch_fields(i, f);
		ck_assert_uint_eq(b.from, val(F_FROM, i));
		ck_assert_uint_eq(b.to, val(F_TO, i));
		ck_assert_uint_eq(b.mispred, f[0]);
		ck_assert_uint_eq(b.predicted, f[1]);
		ck_assert_uint_eq(b.in_tx, f[2]);
		ck_assert_uint_eq(b.abort, f[3]);
		ck_assert_uint_eq(b.cycles, f[4]);
		ck_assert_uint_eq(b.type, f[5]);
		ck_assert_uint_eq(b.spec, f[6]);
		ck_assert_uint_eq(b.new_type, f[7]);
		ck_assert_uint_eq(b.priv, f[8]);
		/* flags_raw is the little-endian layout in either order */
		ck_assert_uint_eq(b.flags_raw, branch_flags_word(i, false));
	}
	ck_assert_uint_eq(d->branch.counters.nr,
			  s->bst & PD_BRANCH_SAMPLE_COUNTERS ? s->nr_branch
							     : 0);
	for (uint64_t i = 0; i < d->branch.counters.nr; i++)
		ck_assert_uint_eq(pd_u64s_get(&d->branch.counters, i),
				  val(F_COUNTER, i));
}

static void check_sample(const struct pd_sample *d, const struct spec *s)
{
	const uint64_t st = s->st;

	ck_assert_uint_eq(d->mask, st);
	ck_assert_uint_eq(d->misc, PD_MISC_USER);
	ck_assert_uint_eq(d->id, st & (PD_SAMPLE_ID | PD_SAMPLE_IDENTIFIER)
					 ? val(F_ID, 0)
					 : 0);
	ck_assert_uint_eq(d->ip, st & PD_SAMPLE_IP ? val(F_IP, 0) : 0);
	ck_assert_uint_eq(d->pid,
			  st & PD_SAMPLE_TID ? (uint32_t)val(F_PID, 0) : 0);
	ck_assert_uint_eq(d->tid,
			  st & PD_SAMPLE_TID ? (uint32_t)val(F_TID, 0) : 0);
	ck_assert_uint_eq(d->time, st & PD_SAMPLE_TIME ? val(F_TIME, 0) : 0);
	ck_assert_uint_eq(d->addr, st & PD_SAMPLE_ADDR ? val(F_ADDR, 0) : 0);
	ck_assert_uint_eq(d->stream_id,
			  st & PD_SAMPLE_STREAM_ID ? val(F_STREAM, 0) : 0);
	ck_assert_uint_eq(d->cpu,
			  st & PD_SAMPLE_CPU ? (uint32_t)val(F_CPU, 0) : 0);
	/* without PERIOD, the attr's fixed period */
	ck_assert_uint_eq(d->period,
			  st & PD_SAMPLE_PERIOD ? val(F_PERIOD, 0) : 4000);
	if (st & PD_SAMPLE_READ)
		check_read(d, s);
	if (st & PD_SAMPLE_CALLCHAIN) {
		ck_assert_uint_eq(d->callchain.nr, s->nr_callchain);
		for (uint64_t i = 0; i < s->nr_callchain; i++)
			ck_assert_uint_eq(pd_u64s_get(&d->callchain, i),
					  i == 0 ? PD_CONTEXT_USER
						 : val(F_CALLCHAIN, i));
	}
	if (st & PD_SAMPLE_RAW) {
		ck_assert_uint_eq(d->raw.size, s->raw_size);
		check_pattern(d->raw.data, s->raw_size);
	}
	if (st & PD_SAMPLE_BRANCH_STACK)
		check_branches(d, s);
	if (st & PD_SAMPLE_REGS_USER)
		check_regs(&d->regs_user, s->abi, s->regs_user_mask,
			   F_REGS_USER);
	if (st & PD_SAMPLE_STACK_USER) {
		ck_assert_uint_eq(d->stack_user.size, s->stack_size);
		check_pattern(d->stack_user.data, s->stack_size);
		ck_assert_uint_eq(d->stack_user.dyn_size,
				  s->stack_size ? val(F_DYN_SIZE, 0) : 0);
	}
	if (st & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT))
		ck_assert_uint_eq(d->weight, val(F_WEIGHT, 0));
	if (st & PD_SAMPLE_WEIGHT_STRUCT) {
		ck_assert_uint_eq(d->weight_var1, (uint32_t)val(F_WEIGHT, 0));
		ck_assert_uint_eq(d->weight_var2,
				  (uint16_t)(val(F_WEIGHT, 0) >> 32));
		ck_assert_uint_eq(d->weight_var3,
				  (uint16_t)(val(F_WEIGHT, 0) >> 48));
	}
	ck_assert_uint_eq(d->data_src,
			  st & PD_SAMPLE_DATA_SRC ? val(F_DATA_SRC, 0) : 0);
	ck_assert_uint_eq(d->transaction, st & PD_SAMPLE_TRANSACTION
						  ? val(F_TRANSACTION, 0)
						  : 0);
	if (st & PD_SAMPLE_REGS_INTR)
		check_regs(&d->regs_intr, s->abi, s->regs_intr_mask,
			   F_REGS_INTR);
	ck_assert_uint_eq(d->phys_addr,
			  st & PD_SAMPLE_PHYS_ADDR ? val(F_PHYS, 0) : 0);
	ck_assert_uint_eq(d->cgroup,
			  st & PD_SAMPLE_CGROUP ? val(F_CGROUP, 0) : 0);
	ck_assert_uint_eq(d->data_page_size, st & PD_SAMPLE_DATA_PAGE_SIZE
						     ? val(F_DATA_PAGE, 0)
						     : 0);
	ck_assert_uint_eq(d->code_page_size, st & PD_SAMPLE_CODE_PAGE_SIZE
						     ? val(F_CODE_PAGE, 0)
						     : 0);
	if (st & PD_SAMPLE_AUX) {
		ck_assert_uint_eq(d->aux.size, s->aux_size);
		check_pattern(d->aux.data, s->aux_size);
	}
}

/* ---- the cases ------------------------------------------------------ */

#define MAX_CASES 256

static struct spec cases[MAX_CASES];
static int nr_cases;

static struct spec base_spec(uint64_t st)
{
	struct spec s;

	memset(&s, 0, sizeof(s));
	s.st = st;
	s.nr_group = 3;
	s.nr_callchain = 4;
	s.nr_branch = 3;
	s.raw_size = 12;
	s.regs_user_mask = 0xff;
	s.regs_intr_mask = 0x3;
	s.abi = 2;
	s.stack_size = 64;
	s.aux_size = 24;
	return s;
}

static void add_case(struct spec s)
{
	if (nr_cases >= MAX_CASES)
		abort(); /* raise MAX_CASES */
	cases[nr_cases++] = s;
}

static void make_cases(void)
{
	static const uint64_t masks[] = {0, 1, 0xff, (1ull << 63) | 1, ~0ull};
	struct spec s;

	/* each bit alone, then all of them (WEIGHT_STRUCT beats WEIGHT) */
	for (unsigned bit = 0; bit < PD_SAMPLE_NR_BITS; bit++)
		add_case(base_spec(1ull << bit));
	add_case(base_spec(ALL_SAMPLE_BITS));
	/* every read_format, alone and with everything else */
	for (uint64_t rf = 0; rf <= ALL_READ_FORMAT; rf++) {
		s = base_spec(PD_SAMPLE_READ | PD_SAMPLE_TID);
		s.rf = rf;
		add_case(s);
		s = base_spec(ALL_SAMPLE_BITS);
		s.rf = rf;
		add_case(s);
	}
	s = base_spec(PD_SAMPLE_READ);
	s.rf = PD_FORMAT_GROUP | PD_FORMAT_ID;
	s.nr_group = 0;
	add_case(s);
	/* branch stacks: hw_idx and counters, empty and not */
	for (uint64_t nr = 0; nr <= 3; nr += 3)
		for (int v = 0; v < 4; v++) {
			s = base_spec(PD_SAMPLE_BRANCH_STACK | PD_SAMPLE_IP |
				      PD_SAMPLE_REGS_USER);
			s.nr_branch = nr;
			s.bst = (v & 1 ? PD_BRANCH_SAMPLE_HW_INDEX : 0) |
				(v & 2 ? PD_BRANCH_SAMPLE_COUNTERS : 0);
			add_case(s);
		}
	/* registers: masks, and abi 0 (no values follow) */
	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++)
		for (uint64_t abi = 0; abi <= 2; abi += 2) {
			s = base_spec(PD_SAMPLE_REGS_USER |
				      PD_SAMPLE_REGS_INTR |
				      PD_SAMPLE_STACK_USER);
			s.regs_user_mask = masks[m];
			s.regs_intr_mask = masks[m] ^ 0x5;
			s.abi = abi;
			add_case(s);
		}
	/* user stacks: size 0 has no data and no dyn_size */
	for (uint64_t size = 0; size <= 64; size += 64) {
		s = base_spec(PD_SAMPLE_STACK_USER | PD_SAMPLE_REGS_USER |
			      PD_SAMPLE_WEIGHT);
		s.stack_size = size;
		add_case(s);
	}
	/* empty callchain, raw and aux */
	s = base_spec(PD_SAMPLE_CALLCHAIN | PD_SAMPLE_RAW | PD_SAMPLE_AUX);
	s.nr_callchain = 0;
	s.raw_size = 4;
	s.aux_size = 0;
	add_case(s);
}

static void build_file(struct tf *t, const struct spec *s, bool be)
{
	struct tf_attr a;
	const uint64_t ids[] = {val(F_ID, 0)};

	memset(&a, 0, sizeof(a));
	a.type = 1; /* PERF_TYPE_SOFTWARE */
	a.sample_period = 4000;
	a.sample_type = s->st;
	a.read_format = s->rf;
	a.branch_sample_type = s->bst;
	a.sample_regs_user = s->regs_user_mask;
	a.sample_regs_intr = s->regs_intr_mask;
	a.sample_stack_user = 64;
	a.flags = 1ull << PD_ATTR_sample_id_all | 1ull << PD_ATTR_disabled |
		  2ull << 15 /* precise_ip */;
	tf_init(t, be);
	tf_add_attr(t, &a, ids, 1);
}

START_TEST(test_sample_case)
{
	const bool be = _i & 1;
	struct tf t;
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	struct pd_sample s;
	const struct spec *sp;
	uint32_t size;

	sp = &cases[_i / 2];
	build_file(&t, sp, be);
	size = put_sample(&t, sp);
	f = tf_open(&t);
	ck_assert_int_eq(pd_file_header(f)->big_endian, be);
	/* the attr flags come back in little-endian bit numbers */
	ck_assert_uint_eq(pd_file_evsel(f, 0)->attr.flags,
			  1ull << PD_ATTR_sample_id_all |
				  1ull << PD_ATTR_disabled | 2ull << 15);

	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	ck_assert_int_eq(pd_reader_next(r, &rec), 1);
	ck_assert_uint_eq(rec.type, PD_REC_SAMPLE);
	ck_assert_uint_eq(rec.size, size);
	ck_assert_msg(pd_sample_decode(f, &rec, &s) == 0, "case %d (%s): %s",
		      _i / 2, be ? "BE" : "LE", pd_file_errmsg(f));
	check_sample(&s, sp);
	ck_assert_int_eq(pd_reader_next(r, &rec), 0);
	pd_reader_free(r);

	/* the whole record again from its own heap copy, then every
	 * truncation of it */
	for (uint32_t len = size; len >= 8; len--) {
		struct pd_rec cut = tf_rec_copy(&t, 0, len);
		const int rc = pd_sample_decode(f, &cut, &s);

		if (len == size) {
			ck_assert_int_eq(rc, 0);
			check_sample(&s, sp);
		} else {
			ck_assert_msg(rc == PD_ERR_FORMAT,
				      "case %d cut to %u of %u: rc %d", _i / 2,
				      len, size, rc);
			ck_assert_str_ne(pd_file_errmsg(f), "");
		}
		tf_rec_free(&cut);
	}
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/* Several events: IDENTIFIER says which one a sample belongs to. */
START_TEST(test_sample_identifier)
{
	const bool be = _i;
	struct tf t;
	struct tf_attr a;
	struct pd_file *f;
	struct pd_rec rec;
	struct pd_sample s;
	const uint64_t ids0[] = {10, 11}, ids1[] = {20};

	memset(&a, 0, sizeof(a));
	tf_init(&t, be);
	a.type = 1;
	a.sample_period = 1;
	a.sample_type = PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP | PD_SAMPLE_TID;
	tf_add_attr(&t, &a, ids0, 2);
	a.config = 1;
	a.sample_type |= PD_SAMPLE_PERIOD;
	tf_add_attr(&t, &a, ids1, 1);
	tf_begin(&t, PD_REC_SAMPLE, PD_MISC_KERNEL);
	tf_u64(&t, 20);
	tf_u64(&t, 0xffffffff81000000ull);
	tf_u32(&t, 1);
	tf_u32(&t, 2);
	tf_u64(&t, 7);
	tf_end(&t);
	tf_begin(&t, PD_REC_SAMPLE, PD_MISC_USER);
	tf_u64(&t, 11);
	tf_u64(&t, 0x400000);
	tf_u32(&t, 3);
	tf_u32(&t, 4);
	tf_end(&t);
	tf_begin(&t, PD_REC_SAMPLE, PD_MISC_USER);
	tf_u64(&t, 99); /* no such id */
	tf_u64(&t, 0x400000);
	tf_u32(&t, 3);
	tf_u32(&t, 4);
	tf_end(&t);
	f = tf_open(&t);

	rec = tf_rec_copy(&t, 0, 40);
	ck_assert_int_eq(pd_sample_decode(f, &rec, &s), 0);
	ck_assert_ptr_eq(s.evsel, pd_file_evsel(f, 1));
	ck_assert_uint_eq(s.id, 20);
	ck_assert_uint_eq(s.ip, 0xffffffff81000000ull);
	ck_assert_uint_eq(s.pid, 1);
	ck_assert_uint_eq(s.tid, 2);
	ck_assert_uint_eq(s.period, 7);
	tf_rec_free(&rec);

	rec = tf_rec_copy(&t, 40, 32);
	ck_assert_int_eq(pd_sample_decode(f, &rec, &s), 0);
	ck_assert_ptr_eq(s.evsel, pd_file_evsel(f, 0));
	ck_assert_uint_eq(s.pid, 3);
	ck_assert_uint_eq(s.period, 1); /* the attr's */
	tf_rec_free(&rec);

	rec = tf_rec_copy(&t, 72, 32);
	ck_assert_int_eq(pd_sample_decode(f, &rec, &s), PD_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(pd_file_errmsg(f), "no event"));
	tf_rec_free(&rec);

	/* an id cut off by the end of the record */
	rec = tf_rec_copy(&t, 40, 8);
	ck_assert_int_eq(pd_sample_decode(f, &rec, &s), PD_ERR_FORMAT);
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/* A count that does not fit must not wrap the bounds check. */
START_TEST(test_sample_huge_counts)
{
	static const uint64_t bits[] = {
		PD_SAMPLE_CALLCHAIN, PD_SAMPLE_BRANCH_STACK,
		PD_SAMPLE_STACK_USER, PD_SAMPLE_AUX, PD_SAMPLE_READ};
	static const uint64_t counts[] = {~0ull, 1ull << 61, 1ull << 60,
					  0x0aaaaaaaaaaaaaabull};

	for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++)
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]);
		     c++) {
			struct tf t;
			struct spec sp = base_spec(bits[b]);
			struct pd_file *f;
			struct pd_rec rec;
			struct pd_sample s;
			uint32_t size;

			sp.rf = PD_FORMAT_GROUP | PD_FORMAT_ID;
			build_file(&t, &sp, c & 1);
			tf_begin(&t, PD_REC_SAMPLE, 0);
			tf_u64(&t, counts[c]);
			tf_zero(&t, 64);
			size = tf_end(&t);
			f = tf_open(&t);
			rec = tf_rec_copy(&t, 0, size);
			ck_assert_int_eq(pd_sample_decode(f, &rec, &s),
					 PD_ERR_FORMAT);
			tf_rec_free(&rec);
			pd_file_close(f);
			tf_release(&t);
		}
}
END_TEST

/* A branch stack sample: nr, hw_idx when has_idx, then the words of
 * words[] (entries and counters as the case writes them). */
static struct pd_file *branch_file(struct tf *t, uint64_t bst, bool be,
				   uint64_t nr, bool has_idx, uint64_t idx,
				   const uint64_t *words, size_t nr_words,
				   struct pd_rec *rec)
{
	struct spec sp = base_spec(PD_SAMPLE_BRANCH_STACK);
	struct pd_file *f;
	uint32_t size;

	sp.bst = bst;
	build_file(t, &sp, be);
	tf_begin(t, PD_REC_SAMPLE, PD_MISC_USER);
	tf_u64(t, nr);
	if (has_idx)
		tf_u64(t, idx);
	for (size_t i = 0; i < nr_words; i++)
		tf_u64(t, words[i]);
	size = tf_end(t);
	f = tf_open(t);
	*rec = tf_rec_copy(t, 0, size);
	return f;
}

/* Malformed branch stacks: a count beyond the record, counters or an
 * hw_idx missing, are errors naming the field and the offset; an
 * unknown hw_idx (~0, what the kernel writes when it has none), an
 * empty stack with its hw_idx and flag words with reserved bits set
 * decode as they are. */
START_TEST(test_sample_branch_malformed)
{
	const bool be = _i;
	const uint64_t hw = PD_BRANCH_SAMPLE_HW_INDEX;
	const uint64_t cnt = PD_BRANCH_SAMPLE_COUNTERS;
	/* two entries (from, to, flags), then two counters; the second
	 * entry's flags with 4 reserved bits set, which no field of
	 * perf_branch_entry has (its top ones little-endian, its bottom
	 * ones big-endian) */
	const uint64_t rsv = be ? 0xfull : 0xf000000000000000ull;
	uint64_t w[8] = {0x401000, 0x401100, 0, 0x402000, 0x402200, 0, 7, 9};
	struct tf t;
	struct pd_file *f;
	struct pd_rec rec;
	struct pd_sample s;
	struct pd_branch b;
	unsigned fl[9];

	w[2] = branch_flags_word(0, be);
	w[5] = branch_flags_word(1, be) | rsv;

	/* nr says 5, two entries follow */
	f = branch_file(&t, 0, be, 5, false, 0, w, 6, &rec);
	ck_assert_int_eq(pd_sample_decode(f, &rec, &s), PD_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(pd_file_errmsg(f), "BRANCH_STACK"));
	ck_assert_ptr_nonnull(strstr(pd_file_errmsg(f), "offset 0x"));
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);

	/* a count so large that nr * 24 wraps: still beyond */
	f = branch_file(&t, 0, be, UINT64_MAX / 24 + 1, false, 0, w, 6, &rec);
	ck_assert_int_eq(pd_sample_decode(f, &rec, &s), PD_ERR_FORMAT);
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);

	/* HW_INDEX in the attr, no hw_idx in the record: the entries come
	 * 8 bytes short */
	f = branch_file(&t, hw, be, 2, false, 0, w, 6, &rec);
	ck_assert_int_eq(pd_sample_decode(f, &rec, &s), PD_ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(pd_file_errmsg(f), "BRANCH_STACK"));
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);

	/* counters for one entry of two */
	f = branch_file(&t, cnt, be, 2, false, 0, w, 7, &rec);
	ck_assert_int_eq(pd_sample_decode(f, &rec, &s), PD_ERR_FORMAT);
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);

	/* an unknown hw_idx (~0) and reserved flag bits: decoded as they
	 * are, the fields from their own bits */
	f = branch_file(&t, hw | cnt, be, 2, true, ~0ull, w, 8, &rec);
	ck_assert_int_eq(pd_sample_decode(f, &rec, &s), 0);
	ck_assert_uint_eq(s.branch.nr, 2);
	ck_assert_int_eq(s.branch.has_hw_idx, 1);
	ck_assert_uint_eq(s.branch.hw_idx, ~0ull);
	pd_sample_branch(&s, 0, &b);
	ck_assert_uint_eq(b.from, 0x401000);
	pd_sample_branch(&s, 1, &b);
	ck_assert_uint_eq(b.from, 0x402000);
	ck_assert_uint_eq(b.to, 0x402200);
	branch_fields(1, fl);
	ck_assert_uint_eq(b.mispred, fl[0]);
	ck_assert_uint_eq(b.predicted, fl[1]);
	ck_assert_uint_eq(b.cycles, fl[4]);
	ck_assert_uint_eq(b.type, fl[5]);
	ck_assert_uint_eq(b.priv, fl[8]);
	/* flags_raw is the word in the little-endian layout: the reserved
	 * bits, wherever the file had them, do not reach the fields */
	ck_assert_uint_eq(b.flags_raw & 0x1ffffffffull,
			  branch_flags_word(1, false));
	ck_assert_uint_eq(pd_u64s_get(&s.branch.counters, 1), 9);
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);

	/* an empty stack keeps its hw_idx */
	f = branch_file(&t, hw, be, 0, true, 3, w, 0, &rec);
	ck_assert_int_eq(pd_sample_decode(f, &rec, &s), 0);
	ck_assert_uint_eq(s.branch.nr, 0);
	ck_assert_int_eq(s.branch.has_hw_idx, 1);
	ck_assert_uint_eq(s.branch.hw_idx, 3);
	tf_rec_free(&rec);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/* union perf_mem_data_src */
START_TEST(test_data_src_decode)
{
	struct pd_data_src d;
	/* op LOAD (2), lvl L1|HIT (0x8|0x2), snoop NONE (2), lock 1,
	 * dtlb L1|HIT (0x8|0x2)... lvl_num 1, remote 1, snoopx 2, blk 4,
	 * hops 3 */
	const uint64_t v = 2ull | 0xaull << 5 | 2ull << 19 | 1ull << 24 |
			   0xaull << 26 | 1ull << 33 | 1ull << 37 | 2ull << 38 |
			   4ull << 40 | 3ull << 43;

	pd_data_src_decode(v, &d);
	ck_assert_uint_eq(d.op, 2);
	ck_assert_uint_eq(d.lvl, 0xa);
	ck_assert_uint_eq(d.snoop, 2);
	ck_assert_uint_eq(d.lock, 1);
	ck_assert_uint_eq(d.dtlb, 0xa);
	ck_assert_uint_eq(d.lvl_num, 1);
	ck_assert_uint_eq(d.remote, 1);
	ck_assert_uint_eq(d.snoopx, 2);
	ck_assert_uint_eq(d.blk, 4);
	ck_assert_uint_eq(d.hops, 3);
}
END_TEST

Suite *sample_suite(void)
{
	Suite *s = suite_create("sample");
	TCase *tc = tcase_create("decode");

	/* the table is made before the tests fork, so each sees it */
	make_cases();
	tcase_add_loop_test(tc, test_sample_case, 0, 2 * nr_cases);
	tcase_add_loop_test(tc, test_sample_identifier, 0, 2);
	tcase_add_test(tc, test_sample_huge_counts);
	tcase_add_loop_test(tc, test_sample_branch_malformed, 0, 2);
	tcase_add_test(tc, test_data_src_decode);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
