/*
 * pd_sample.c - PERF_RECORD_SAMPLE decoding in the kernel's field order,
 * the sample_id_all trailer of other kernel records, and finding the
 * event a record belongs to.  format.md §8.
 */
#include "pd_reader_int.h"
#include "pdc_cur.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static inline bool u32pair(struct pdc_cur *c, uint32_t *a, uint32_t *b)
{
	const unsigned char *p;

	if (!pdc_cur_take(c, 8, &p))
		return false;
	*a = pd_load_u32(p, c->swap);
	if (b)
		*b = pd_load_u32(p + 4, c->swap);
	return true;
}

/*
 * The event of a SAMPLE: by the id at the common position when there are
 * several events, else the only one.
 */
static inline const struct pd_evsel *sample_evsel(struct pd_file *f,
						  const struct pd_rec *rec)
{
	uint64_t id;
	int pos;

	if (f->nr_evsels == 1)
		return f->evsels[0];
	if (f->nr_evsels == 0)
		return NULL;
	pos = f->sample_id_pos;
	if (pos < 0) {
		/* events disagree: IDENTIFIER (first u64) is the only rule */
		if (!(f->evsels[0]->attr.sample_type & PD_SAMPLE_IDENTIFIER))
			return f->evsels[0];
		pos = 0;
	}
	if (rec->size < 8 + 8 * (uint32_t)pos + 8)
		return NULL;
	id = pd_load_u64(rec->data + 8 + 8 * pos, f->swap);
	if (f->threads)
		return pd_file_evsel_by_id(f, id);
	/* runs of samples from one event are the rule */
	if (f->last_evsel && id == f->last_id &&
	    f->last_evsel_gen == f->nr_evsels)
		return f->last_evsel;
	f->last_evsel = pd_file_evsel_by_id(f, id);
	f->last_id = id;
	f->last_evsel_gen = f->nr_evsels;
	return f->last_evsel;
}

static int short_sample(struct pd_file *f, const struct pd_rec *rec,
			const char *field)
{
	return PD_CORRUPT(f,
			  "SAMPLE at offset 0x%llx: %u bytes end before its "
			  "%s field",
			  (unsigned long long)rec->offset, rec->size, field);
}

static int decode_regs(struct pdc_cur *c, uint64_t mask, struct pd_regs *regs)
{
	const unsigned char *p;
	uint64_t nr;

	regs->mask = mask;
	if (!pdc_cur_u64(c, &regs->abi))
		return -1;
	regs->regs.swap = c->swap;
	if (regs->abi == 0)
		return 0;
	nr = (uint64_t)__builtin_popcountll(mask);
	if (!pdc_cur_take(c, nr * 8, &p))
		return -1;
	regs->regs.nr = nr;
	regs->regs.raw = p;
	return 0;
}

/* The fields before READ, in the kernel's order (format.md §8). */
static const struct {
	uint64_t bit;
	const char *name;
} head_fields[] = {
	{ PD_SAMPLE_IDENTIFIER, "IDENTIFIER" }, { PD_SAMPLE_IP, "IP" },
	{ PD_SAMPLE_TID, "TID" },		{ PD_SAMPLE_TIME, "TIME" },
	{ PD_SAMPLE_ADDR, "ADDR" },		{ PD_SAMPLE_ID, "ID" },
	{ PD_SAMPLE_STREAM_ID, "STREAM_ID" },	{ PD_SAMPLE_CPU, "CPU" },
	{ PD_SAMPLE_PERIOD, "PERIOD" },
};

/* A SAMPLE too short for its fields before READ: the first that does not
 * fit is the one named. */
static int short_head(struct pd_file *f, const struct pd_rec *rec,
		      uint64_t st)
{
	uint64_t end = 8;

	for (size_t i = 0; i < sizeof(head_fields) / sizeof(head_fields[0]);
	     i++) {
		if (!(st & head_fields[i].bit))
			continue;
		end += 8;
		if (end > rec->size)
			return short_sample(f, rec, head_fields[i].name);
	}
	/* sample_head and head_fields disagree: our bug */
	assert(0);
	return short_sample(f, rec, "IDENTIFIER");
}

static inline uint64_t take_u64(const unsigned char **p, int swap)
{
	const uint64_t v = pd_load_u64(*p, swap);

	*p += 8;
	return v;
}

#define NEED(ok, name)                                                      \
	do {                                                                \
		if (!(ok))                                                  \
			return short_sample(f, rec, name);                  \
	} while (0)

/* The fields after CALLCHAIN, which most captures lack: kept out of the
 * common path, which then tests one bit for all of them. */
#define TAIL_FIELDS                                                          \
	(PD_SAMPLE_RAW | PD_SAMPLE_BRANCH_STACK | PD_SAMPLE_REGS_USER |     \
	 PD_SAMPLE_STACK_USER | PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT | \
	 PD_SAMPLE_DATA_SRC | PD_SAMPLE_TRANSACTION | PD_SAMPLE_REGS_INTR |  \
	 PD_SAMPLE_PHYS_ADDR | PD_SAMPLE_CGROUP | PD_SAMPLE_DATA_PAGE_SIZE | \
	 PD_SAMPLE_CODE_PAGE_SIZE | PD_SAMPLE_AUX)

static int decode_tail(struct pd_file *f, const struct pd_rec *rec,
		       const struct pd_attr *a, struct pdc_cur c,
		       struct pd_sample *s)
{
	const uint64_t st = a->sample_type;
	const unsigned char *p;

	if (st & PD_SAMPLE_RAW) {
		/* u32 size and the data together keep u64 alignment */
		NEED(pdc_cur_take(&c, 4, &p), "RAW");
		s->raw.size = pd_load_u32(p, f->swap);
		NEED(pdc_cur_take(&c, s->raw.size, &s->raw.data), "RAW");
	}
	if (st & PD_SAMPLE_BRANCH_STACK) {
		NEED(pdc_cur_u64(&c, &s->branch.nr), "BRANCH_STACK");
		if (a->branch_sample_type & PD_BRANCH_SAMPLE_HW_INDEX) {
			s->branch.has_hw_idx = 1;
			NEED(pdc_cur_u64(&c, &s->branch.hw_idx),
			     "BRANCH_STACK");
		}
		NEED(s->branch.nr <= pdc_cur_left(&c) / 24, "BRANCH_STACK");
		NEED(pdc_cur_take(&c, s->branch.nr * 24, &s->branch.entries),
		     "BRANCH_STACK");
		s->branch.counters.swap = f->swap;
		if (a->branch_sample_type & PD_BRANCH_SAMPLE_COUNTERS) {
			s->branch.counters.nr = s->branch.nr;
			NEED(pdc_cur_take(&c, s->branch.nr * 8,
					  &s->branch.counters.raw),
			     "BRANCH_STACK counters");
		}
	}
	if (st & PD_SAMPLE_REGS_USER)
		NEED(decode_regs(&c, a->sample_regs_user, &s->regs_user) == 0,
		     "REGS_USER");
	if (st & PD_SAMPLE_STACK_USER) {
		NEED(pdc_cur_u64(&c, &s->stack_user.size), "STACK_USER");
		NEED(pdc_cur_take(&c, s->stack_user.size, &s->stack_user.data),
		     "STACK_USER");
		if (s->stack_user.size)
			NEED(pdc_cur_u64(&c, &s->stack_user.dyn_size),
			     "STACK_USER");
	}
	if (st & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT)) {
		NEED(pdc_cur_u64(&c, &s->weight), "WEIGHT");
		if (st & PD_SAMPLE_WEIGHT_STRUCT) {
			/* uapi orders the members per byte order, so the
			 * value of the word means the same everywhere */
			s->weight_var1 = (uint32_t)s->weight;
			s->weight_var2 = (uint16_t)(s->weight >> 32);
			s->weight_var3 = (uint16_t)(s->weight >> 48);
		}
	}
	if (st & PD_SAMPLE_DATA_SRC)
		NEED(pdc_cur_u64(&c, &s->data_src), "DATA_SRC");
	if (st & PD_SAMPLE_TRANSACTION)
		NEED(pdc_cur_u64(&c, &s->transaction), "TRANSACTION");
	if (st & PD_SAMPLE_REGS_INTR)
		NEED(decode_regs(&c, a->sample_regs_intr, &s->regs_intr) == 0,
		     "REGS_INTR");
	if (st & PD_SAMPLE_PHYS_ADDR)
		NEED(pdc_cur_u64(&c, &s->phys_addr), "PHYS_ADDR");
	if (st & PD_SAMPLE_CGROUP)
		NEED(pdc_cur_u64(&c, &s->cgroup), "CGROUP");
	if (st & PD_SAMPLE_DATA_PAGE_SIZE)
		NEED(pdc_cur_u64(&c, &s->data_page_size), "DATA_PAGE_SIZE");
	if (st & PD_SAMPLE_CODE_PAGE_SIZE)
		NEED(pdc_cur_u64(&c, &s->code_page_size), "CODE_PAGE_SIZE");
	if (st & PD_SAMPLE_AUX) {
		NEED(pdc_cur_u64(&c, &s->aux.size), "AUX");
		NEED(pdc_cur_take(&c, s->aux.size, &s->aux.data), "AUX");
	}
	return 0;
}

static int decode_fields(struct pd_file *f, const struct pd_rec *rec,
			 struct pd_sample *s);

int pd_sample_decode(struct pd_file *f, const struct pd_rec *rec,
		     struct pd_sample *s)
{
	const int rc = decode_fields(f, rec, s);
	uint64_t flags;

	/* a synthesized sample's flags: the u64 after its fields, in the
	 * host's order as all its fields (pd_sample.flags) */
	if (rc == 0 && s->evsel->synth && rec->size >= 16) {
		memcpy(&flags, rec->data + rec->size - 8, 8);
		s->flags = (uint32_t)flags;
	}
	return rc;
}

static int decode_fields(struct pd_file *f, const struct pd_rec *rec,
			 struct pd_sample *s)
{
	const int sw = f->swap;
	const struct pd_evsel *e;
	const struct pd_attr *a;
	struct pdc_cur c;
	uint64_t st, v;
	const unsigned char *p;

	pd_zero(s, sizeof(*s));
	if (rec->type != PD_REC_SAMPLE)
		return pd_set_err(f, PD_ERR_API, "record at offset 0x%llx is "
				  "not a SAMPLE",
				  (unsigned long long)rec->offset);
	e = sample_evsel(f, rec);
	if (!e)
		return PD_CORRUPT(f,
				  "SAMPLE at offset 0x%llx: no event with its "
				  "id",
				  (unsigned long long)rec->offset);
	a = &e->attr;
	st = a->sample_type;
	s->mask = st;
	s->evsel = e;
	s->misc = rec->misc;
	s->swap = sw;
	/* the fields before READ have fixed sizes: one check for them all */
	if (rec->size - 8 < e->sample_head)
		return short_head(f, rec, st);
	p = rec->data + 8;
	if (st & PD_SAMPLE_IDENTIFIER)
		s->id = take_u64(&p, sw);
	if (st & PD_SAMPLE_IP)
		s->ip = take_u64(&p, sw);
	if (st & PD_SAMPLE_TID) {
		s->pid = pd_load_u32(p, sw);
		s->tid = pd_load_u32(p + 4, sw);
		p += 8;
	}
	if (st & PD_SAMPLE_TIME)
		s->time = take_u64(&p, sw);
	if (st & PD_SAMPLE_ADDR)
		s->addr = take_u64(&p, sw);
	if (st & PD_SAMPLE_ID)
		s->id = take_u64(&p, sw);
	if (st & PD_SAMPLE_STREAM_ID)
		s->stream_id = take_u64(&p, sw);
	if (st & PD_SAMPLE_CPU) {
		s->cpu = pd_load_u32(p, sw);
		p += 8;
	}
	if (st & PD_SAMPLE_PERIOD)
		s->period = take_u64(&p, sw);
	else if (!PD_ATTR_HAS(a, freq))
		s->period = a->sample_period;
	pdc_cur_init(&c, p, (size_t)(rec->data + rec->size - p), sw);
	if (st & PD_SAMPLE_READ) {
		const uint64_t rf = a->read_format;
		size_t entry = 8 + (rf & PD_FORMAT_ID ? 8 : 0) +
			       (rf & PD_FORMAT_LOST ? 8 : 0);

		s->read.entry_size = entry;
		if (rf & PD_FORMAT_GROUP) {
			NEED(pdc_cur_u64(&c, &s->read.nr), "READ");
			if (rf & PD_FORMAT_TOTAL_TIME_ENABLED)
				NEED(pdc_cur_u64(&c, &s->read.time_enabled),
				     "READ");
			if (rf & PD_FORMAT_TOTAL_TIME_RUNNING)
				NEED(pdc_cur_u64(&c, &s->read.time_running),
				     "READ");
			NEED(s->read.nr <= pdc_cur_left(&c) / entry, "READ");
			NEED(pdc_cur_take(&c, s->read.nr * entry, &s->read.raw),
			     "READ");
		} else {
			/* value, [enabled], [running], [id], [lost] */
			s->read.nr = 1;
			NEED(pdc_cur_take(&c, 8, &s->read.raw), "READ");
			if (rf & PD_FORMAT_TOTAL_TIME_ENABLED)
				NEED(pdc_cur_u64(&c, &s->read.time_enabled),
				     "READ");
			if (rf & PD_FORMAT_TOTAL_TIME_RUNNING)
				NEED(pdc_cur_u64(&c, &s->read.time_running),
				     "READ");
			s->read.entry_size = 0; /* see pd_sample_read_value */
			NEED(pdc_cur_take(&c, entry - 8, &p), "READ");
		}
	}
	if (st & PD_SAMPLE_CALLCHAIN) {
		NEED(pdc_cur_u64(&c, &v), "CALLCHAIN");
		NEED(v <= pdc_cur_left(&c) / 8, "CALLCHAIN");
		s->callchain.nr = v;
		s->callchain.swap = f->swap;
		NEED(pdc_cur_take(&c, v * 8, &s->callchain.raw), "CALLCHAIN");
	}
	if (st & TAIL_FIELDS)
		return decode_tail(f, rec, a, c, s);
	return 0;
}
#undef NEED

/*
 * Big-endian compilers allocate struct perf_branch_entry's flag bits from
 * the top of the word: a field at little-endian bit offset o of width w
 * sits at bit 64 - o - w.
 */
static uint64_t bits(uint64_t v, unsigned off, unsigned width, int be)
{
	const unsigned shift = be ? 64 - off - width : off;

	return (v >> shift) & ((1ull << width) - 1);
}

void pd_sample_branch(const struct pd_sample *s, uint64_t i,
		      struct pd_branch *out)
{
	const unsigned char *p = s->branch.entries + i * 24;
	const int sw = s->swap;
	uint64_t fl = pd_load_u64(p + 16, sw);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	const int be = !sw;
#else
	const int be = sw;
#endif

	if (!be) {
		/* the usual layout (a little-endian capture read here): the
		 * flags are fl's low 34 bits, assigned whole rather than
		 * field by field, the branch views' hottest path */
		*out = (struct pd_branch){
			.from = pd_load_u64(p, sw),
			.to = pd_load_u64(p + 8, sw),
			.flags_raw = fl & ((1ull << 34) - 1),
			.mispred = fl & 1,
			.predicted = (fl >> 1) & 1,
			.in_tx = (fl >> 2) & 1,
			.abort = (fl >> 3) & 1,
			.cycles = (fl >> 4) & 0xffff,
			.type = (fl >> 20) & 0xf,
			.spec = (fl >> 24) & 3,
			.new_type = (fl >> 26) & 0xf,
			.priv = (fl >> 30) & 7,
			.not_taken = (fl >> 33) & 1,
		};
		return;
	}
	out->from = pd_load_u64(p, sw);
	out->to = pd_load_u64(p + 8, sw);
	out->mispred = bits(fl, 0, 1, be);
	out->predicted = bits(fl, 1, 1, be);
	out->in_tx = bits(fl, 2, 1, be);
	out->abort = bits(fl, 3, 1, be);
	out->cycles = bits(fl, 4, 16, be);
	out->type = bits(fl, 20, 4, be);
	out->spec = bits(fl, 24, 2, be);
	out->new_type = bits(fl, 26, 4, be);
	out->priv = bits(fl, 30, 3, be);
	out->not_taken = bits(fl, 33, 1, be);
	out->flags_raw = (uint64_t)out->mispred | (uint64_t)out->predicted << 1 |
			 (uint64_t)out->in_tx << 2 | (uint64_t)out->abort << 3 |
			 (uint64_t)out->cycles << 4 | (uint64_t)out->type << 20 |
			 (uint64_t)out->spec << 24 |
			 (uint64_t)out->new_type << 26 |
			 (uint64_t)out->priv << 30 |
			 (uint64_t)out->not_taken << 33;
}

void pd_sample_read_value(const struct pd_sample *s, uint64_t i,
			  struct pd_read_value *out)
{
	const uint64_t rf = s->evsel->attr.read_format;
	const unsigned char *p;

	memset(out, 0, sizeof(*out));
	if (rf & PD_FORMAT_GROUP) {
		p = s->read.raw + i * s->read.entry_size;
		out->value = pd_load_u64(p, s->swap);
		p += 8;
	} else {
		/* value, then [enabled], [running] already taken, [id] */
		out->value = pd_load_u64(s->read.raw, s->swap);
		p = s->read.raw + 8 +
		    (rf & PD_FORMAT_TOTAL_TIME_ENABLED ? 8 : 0) +
		    (rf & PD_FORMAT_TOTAL_TIME_RUNNING ? 8 : 0);
	}
	if (rf & PD_FORMAT_ID) {
		out->id = pd_load_u64(p, s->swap);
		p += 8;
	}
	if (rf & PD_FORMAT_LOST)
		out->lost = pd_load_u64(p, s->swap);
}

/* ---- sample_id_all trailers ---------------------------------------- */

static const struct pd_evsel *trailer_evsel(struct pd_file *f,
					    const struct pd_rec *rec)
{
	int pos;

	if (f->nr_evsels == 1)
		return f->evsels[0];
	if (f->nr_evsels == 0)
		return NULL;
	pos = f->trailer_is_pos;
	if (pos < 0) {
		if (!(f->evsels[0]->attr.sample_type & PD_SAMPLE_IDENTIFIER))
			return f->evsels[0];
		pos = 1;
	}
	if (rec->size < 8 + 8 * (uint32_t)pos)
		return NULL;
	return pd_file_evsel_by_id(
		f, pd_load_u64(rec->data + rec->size - 8 * pos, f->swap));
}

/* pd_rec_sample_id(); f set no error (*s zero) where !f_err */
static int sample_id(struct pd_file *f, struct pd_file *f_err,
		     const struct pd_rec *rec, struct pd_sample_id *s)
{
	const struct pd_evsel *e;
	uint64_t st;
	struct pdc_cur c;

	memset(s, 0, sizeof(*s));
	if (rec->type == PD_REC_SAMPLE || rec->type >= PD_REC_USER_TYPE_START)
		return !f_err ? PD_ERR_API
			      : pd_set_err(f_err, PD_ERR_API,
					   "record at offset 0x%llx has no "
					   "sample_id_all trailer",
					   (unsigned long long)rec->offset);
	e = trailer_evsel(f, rec);
	s->evsel = e;
	if (!e || !e->id_hdr_size)
		return 0;
	if (rec->size < 8 + e->id_hdr_size)
		return !f_err ? PD_ERR_FORMAT
			      : PD_CORRUPT(f_err,
					   "%s record at offset 0x%llx: %u "
					   "bytes, too short for its %zu-byte "
					   "sample_id trailer",
					   pd_rec_type_name(rec->type)
						   ? pd_rec_type_name(rec->type)
						   : "unknown",
					   (unsigned long long)rec->offset,
					   rec->size, e->id_hdr_size);
	st = e->attr.sample_type;
	s->mask = st & (PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID |
			PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU |
			PD_SAMPLE_IDENTIFIER);
	pdc_cur_init(&c, rec->data + rec->size - e->id_hdr_size, e->id_hdr_size,
		     f->swap);
	/* the kernel's __perf_event__output_id_sample order */
	if (st & PD_SAMPLE_TID)
		u32pair(&c, &s->pid, &s->tid);
	if (st & PD_SAMPLE_TIME)
		pdc_cur_u64(&c, &s->time);
	if (st & PD_SAMPLE_ID)
		pdc_cur_u64(&c, &s->id);
	if (st & PD_SAMPLE_STREAM_ID)
		pdc_cur_u64(&c, &s->stream_id);
	if (st & PD_SAMPLE_CPU)
		u32pair(&c, &s->cpu, NULL);
	if (st & PD_SAMPLE_IDENTIFIER)
		pdc_cur_u64(&c, &s->id);
	return 0;
}

int pd_rec_sample_id(struct pd_file *f, const struct pd_rec *rec,
		     struct pd_sample_id *s)
{
	return sample_id(f, f, rec, s);
}

const struct pd_evsel *pd_rec_evsel(struct pd_file *f,
				    const struct pd_rec *rec)
{
	return rec->type == PD_REC_SAMPLE ? sample_evsel(f, rec) : NULL;
}

/* pd_rec_time(); f set no error where !f_err */
static void rec_time(struct pd_file *f, struct pd_file *f_err,
		     const struct pd_rec *rec, uint64_t *time)
{
	const struct pd_evsel *e;
	uint64_t st;
	unsigned idx;

	*time = 0;
	if (rec->type >= PD_REC_USER_TYPE_START)
		return;
	if (rec->type != PD_REC_SAMPLE) {
		struct pd_sample_id sid;

		if (sample_id(f, f_err, rec, &sid) < 0)
			return;
		if (sid.mask & PD_SAMPLE_TIME)
			*time = sid.time;
		return;
	}
	e = sample_evsel(f, rec);
	if (!e)
		return;
	st = e->attr.sample_type;
	if (!(st & PD_SAMPLE_TIME))
		return;
	idx = (st & PD_SAMPLE_IDENTIFIER ? 1 : 0) + (st & PD_SAMPLE_IP ? 1 : 0) +
	      (st & PD_SAMPLE_TID ? 1 : 0);
	if (rec->size < 8 + 8 * idx + 8)
		return;
	*time = pd_load_u64(rec->data + 8 + 8 * idx, f->swap);
}

int pd_rec_time(struct pd_file *f, const struct pd_rec *rec, uint64_t *time)
{
	rec_time(f, f, rec, time);
	return 0;
}

void pd_rec_time_quiet(struct pd_file *f, const struct pd_rec *rec,
		       uint64_t *time)
{
	rec_time(f, NULL, rec, time);
}

void pd_data_src_decode(uint64_t v, struct pd_data_src *o)
{
	/* union perf_mem_data_src, the same value in either byte order */
	o->op = (unsigned)(v & 0x1f);
	o->lvl = (unsigned)((v >> 5) & 0x3fff);
	o->snoop = (unsigned)((v >> 19) & 0x1f);
	o->lock = (unsigned)((v >> 24) & 0x3);
	o->dtlb = (unsigned)((v >> 26) & 0x7f);
	o->lvl_num = (unsigned)((v >> 33) & 0xf);
	o->remote = (unsigned)((v >> 37) & 0x1);
	o->snoopx = (unsigned)((v >> 38) & 0x3);
	o->blk = (unsigned)((v >> 40) & 0x7);
	o->hops = (unsigned)((v >> 43) & 0x7);
}
