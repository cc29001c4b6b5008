/*
 * fuzz_spe.c - libFuzzer target for the Arm SPE decoder (reader/pd_spe.c)
 * and its AUXTRACE_INFO metadata (STYLE T7).
 *
 * The input's first byte n says how many of the next 8 * (n % 32) bytes
 * are the AUXTRACE_INFO's metadata words; the rest is an AUXTRACE
 * buffer.  Both go into a capture built in memory (testfile.c), which is
 * read back as a command would read it: pd_event_decode() of each
 * record, pd_spe_info_decode() and every CPU of the metadata, then the
 * buffer packet by packet and record by record.
 *
 * Properties, for any input:
 *  - every packet is 1..16 bytes (a PAD run, 16 at most; an alignment
 *    packet, 16), lies inside the buffer, and the packets tile it: their
 *    sizes sum to its length and the bad bytes counted are the BAD
 *    packets seen;
 *  - a packet's description fits perf's 256-byte buffer, is the length
 *    pd_spe_pkt_desc() says, and holds no control character;
 *  - records come in order, each starting inside the buffer after the
 *    previous one, ending in a TIMESTAMP or END (with the timestamp in
 *    the mask exactly when a TIMESTAMP ended it); the records, dropped
 *    records and tail account for the packets that are not PADs or bad;
 *  - pd_spe_next_record_lean() gives the records and counts
 *    pd_spe_next_record() gives, byte for byte, but for the details its
 *    need leaves out (0);
 *  - the metadata decodes to version 1 exactly when it has two words,
 *    and each CPU's parameters lie inside the record.
 * The decoder allocates nothing; the capture's reading goes through the
 * failing hooks as the reader's target does (fuzz_with_oom).
 */
#include "fuzz.h"

#include "pd.h"

#include <string.h>

#define DESC_MAX 256 /* perf's ARM_SPE_PKT_DESC_MAX */

static void check_desc(const struct pd_spe_pkt *pkt)
{
	char desc[DESC_MAX];
	const size_t n = pd_spe_pkt_desc(pkt, desc, sizeof(desc));

	CHECK(n < sizeof(desc));
	CHECK(strlen(desc) == n);
	for (size_t i = 0; i < n; i++)
		CHECK(desc[i] >= 0x20 && desc[i] < 0x7f);
}

static void check_packets(const unsigned char *buf, size_t len,
			  uint64_t base)
{
	struct pd_spe_cursor c;
	struct pd_spe_pkt pkt;
	uint64_t sum = 0, nr_bad = 0, nr = 0;

	pd_spe_cursor_init(&c, buf, len, base);
	while (pd_spe_next_packet(&c, &pkt) > 0) {
		CHECK(pkt.size >= 1 && pkt.size <= 16);
		CHECK(sum + pkt.size <= len);
		if (pkt.type == PD_SPE_BAD)
			nr_bad++;
		else
			CHECK(pkt.size == 1 + (unsigned)pkt.extended +
						  pkt.payload_size ||
			      pkt.type == PD_SPE_PAD);
		check_desc(&pkt);
		sum += pkt.size;
		nr++;
	}
	CHECK(sum == len && c.pos == len);
	CHECK(c.nr_bad == nr_bad && c.nr_packets == nr);
}

/* r without the details need leaves out (pd_spe_next_record_lean),
 * into n: copied byte for byte, padding too */
static void needed(const struct pd_spe_record *r, unsigned need,
		   struct pd_spe_record *n)
{
	memcpy(n, r, sizeof(*n));
	if (!(need & PD_SPE_NEED_OP_FLAGS)) {
		n->op = 0;
		n->op_vl = 0;
	}
	if (!(need & PD_SPE_NEED_ADDR_BITS)) {
		memset(n->el, 0, sizeof(n->el));
		memset(n->ns, 0, sizeof(n->ns));
		n->va_tag = n->pa_ch = n->pa_pat = 0;
	}
}

/* The lean decoder's cursor l (need) in step with the general one's c:
 * the same record and counts */
static void check_lean(struct pd_spe_cursor *l, unsigned need, int got,
		       const struct pd_spe_cursor *c,
		       const struct pd_spe_record *r)
{
	struct pd_spe_record lr;
	struct pd_spe_record want;

	CHECK(pd_spe_next_record_lean(l, &lr, need) == got);
	CHECK(memcmp(l, c, sizeof(*c)) == 0);
	if (got <= 0)
		return;
	needed(r, need, &want);
	CHECK(memcmp(&lr, &want, sizeof(lr)) == 0);
}

static void check_records(const unsigned char *buf, size_t len,
			  uint64_t base)
{
	struct pd_spe_cursor c, lean[3];
	static const unsigned needs[3] = {0, PD_SPE_NEED_OP_FLAGS,
					  PD_SPE_NEED_ALL};
	struct pd_spe_record r;
	uint64_t last = 0, nr = 0;
	int got;

	pd_spe_cursor_init(&c, buf, len, base);
	for (size_t i = 0; i < 3; i++)
		pd_spe_cursor_init(&lean[i], buf, len, base);
	while ((got = pd_spe_next_record(&c, &r)) > 0) {
		for (size_t i = 0; i < 3; i++)
			check_lean(&lean[i], needs[i], got, &c, &r);
		CHECK(r.offset < len && r.offset >= last);
		CHECK(r.ended_by == PD_SPE_TIMESTAMP ||
		      r.ended_by == PD_SPE_END);
		CHECK(((r.mask & PD_SPE_HAS_TIMESTAMP) != 0) ==
		      (r.ended_by == PD_SPE_TIMESTAMP));
		CHECK(!(r.mask & PD_SPE_HAS_OP) || r.op_class < 3);
		CHECK(!(r.mask & PD_SPE_HAS_CONTEXT) ||
		      (r.context_el >= 1 && r.context_el <= 4));
		last = c.pos;
		nr++;
	}
	for (size_t i = 0; i < 3; i++)
		check_lean(&lean[i], needs[i], got, &c, &r);
	CHECK(c.pos == len && c.nr_records == nr);
	CHECK(c.nr_tail <= len);
}

static void check_info(struct pd_file *f, const struct pd_ev_auxtrace_info *ai)
{
	struct pd_spe_info info;
	struct pd_spe_cpu cpu;
	const int rc = pd_spe_info_decode(f, ai, &info);

	CHECK(rc == 0 || rc == PD_ERR_FORMAT);
	if (rc < 0) {
		CHECK(pd_file_errmsg(f)[0] != '\0');
		return;
	}
	CHECK((info.version == 1) == (ai->priv.nr == 2));
	for (uint64_t i = 0; i < info.nr_cpus; i++) {
		CHECK(pd_spe_info_cpu(&info, i, &cpu) == 0);
		CHECK(cpu.nr_params <= info.words.nr);
	}
	CHECK(pd_spe_info_cpu(&info, info.nr_cpus, &cpu) == PD_ERR_API);
}

static bool pass(const uint8_t *data, size_t size, struct failalloc *fa)
{
	const struct pd_alloc hooks = failalloc_hooks(fa);
	const size_t nr_words = size ? (size_t)(data[0] % 32) : 0;
	const size_t meta = size ? (8 * nr_words < size - 1 ? 8 * nr_words
							   : (size - 1) & ~7u)
				 : 0;
	const unsigned char *trace = size ? data + 1 + meta : data;
	const size_t trace_len = size ? size - 1 - meta : 0;
	const struct tf_attr a = {.type = 8, .sample_type = PD_SAMPLE_TIME};
	const uint64_t id = 1;
	struct pd_reader *r = NULL;
	struct pd_event ev;
	struct pd_rec rec;
	struct pd_file *f;
	struct tf t;
	bool nomem = false;
	int rc;

	tf_init(&t, false);
	tf_add_attr(&t, &a, &id, 1);
	tf_begin(&t, PD_REC_AUXTRACE_INFO, 0);
	tf_u32(&t, PD_AUXTRACE_ARM_SPE);
	tf_u32(&t, 0);
	tf_bytes(&t, data + (size ? 1 : 0), meta);
	tf_end(&t);
	tf_begin(&t, PD_REC_AUXTRACE, 0);
	tf_u64(&t, (trace_len + 7) & ~(size_t)7);
	tf_u64(&t, 0);
	tf_u64(&t, 0);
	tf_u32(&t, 0);
	tf_u32(&t, 0);
	tf_u32(&t, 0);
	tf_u32(&t, 0);
	tf_end(&t);
	tf_bytes(&t, trace, trace_len);
	tf_zero(&t, ((trace_len + 7) & ~(size_t)7) - trace_len);
	{
		size_t len;
		const unsigned char *file = tf_build(&t, &len);
		PD_OPTS(opts, .alloc = &hooks);

		rc = pd_file_open_mem(file, len, &opts, &f);
	}
	if (rc < 0) {
		CHECK(rc == PD_ERR_NOMEM);
		tf_release(&t);
		return true;
	}
	rc = pd_reader_new(f, 0, &r);
	CHECK(rc == 0 || rc == PD_ERR_NOMEM);
	while (rc == 0 && (rc = pd_reader_next(r, &rec)) > 0) {
		if (pd_event_decode(f, &rec, &ev) < 0)
			continue;
		if (rec.type == PD_REC_AUXTRACE_INFO) {
			check_info(f, &ev.auxtrace_info);
		} else if (rec.type == PD_REC_AUXTRACE && ev.auxtrace.data) {
			const uint64_t base = rec.offset + rec.size;

			check_packets(ev.auxtrace.data, ev.auxtrace.data_size,
				      base);
			check_records(ev.auxtrace.data, ev.auxtrace.data_size,
				      base);
		}
		rc = 0;
	}
	if (rc == PD_ERR_NOMEM)
		nomem = true;
	pd_reader_free(r);
	pd_file_close(f);
	tf_release(&t);
	return nomem;
}

int fuzz_spe(const uint8_t *data, size_t size)
{
	fuzz_with_oom(data, size, pass);
	return 0;
}
