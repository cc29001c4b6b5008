/*
 * pd_spe.c - the Arm Statistical Profiling Extension: packets, records
 * as perf assembles them, their descriptions as `perf report -D` prints
 * them, and the SPE metadata of AUXTRACE_INFO.  format.md §12.
 */
#include "pd_reader_int.h"
#include "pdc_cur.h"
#include "pdc_zero.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

/* ---- packets -------------------------------------------------------- */

/* Header bytes (the Arm ARM's packet headers; format.md §12.1). */
#define HDR_PAD 0x00
#define HDR_END 0x01
#define HDR_TIMESTAMP 0x71
#define HDR_MASK_EV_SRC 0xcf	/* bits 7:6 and 3:0; 5:4 are the size */
#define HDR_EVENTS 0x42
#define HDR_SOURCE 0x43
#define HDR_MASK_CTX_OP 0xfc	/* bits 1:0 are the index or class */
#define HDR_CONTEXT 0x64
#define HDR_OP_TYPE 0x48
#define HDR_EXTENDED 0x20	/* byte 0 of a two-byte header */
#define HDR_MASK_ADDR_CNT 0xf8	/* bits 2:0 are the index */
#define HDR_ADDRESS 0xb0
#define HDR_COUNTER 0x98
#define HDR1_ALIGNMENT 0x00	/* byte 1 of an alignment packet */

#define PAD_RUN_MAX 16		/* perf prints at most 16 bytes a line */

/* kept out of line: a cold path out of a hot caller */
#define PD_SPE_NOINLINE __attribute__((noinline))

static unsigned payload_size(unsigned char hdr)
{
	return 1u << ((hdr >> 4) & 3);
}

/* The n (1, 2, 4 or 8) little-endian bytes at p, on any host: unrolled,
 * as the compiler then loads them at once (a byte loop was a fifth of
 * decoding a large trace, bench/spe.sh). */
static uint64_t le_bytes(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	switch (n) {
	case 8:
		v |= (uint64_t)p[7] << 56 | (uint64_t)p[6] << 48 |
		     (uint64_t)p[5] << 40 | (uint64_t)p[4] << 32;
		/* fall through */
	case 4:
		v |= (uint64_t)p[3] << 24 | (uint64_t)p[2] << 16;
		/* fall through */
	case 2:
		v |= (uint64_t)p[1] << 8;
		/* fall through */
	default:
		v |= p[0];
	}
	return v;
}

/* The payload after nr_hdr header bytes: little-endian, 1..8 bytes. */
static int take_payload(const unsigned char *buf, size_t len,
			unsigned nr_hdr, struct pd_spe_pkt *pkt,
			const char **why)
{
	const unsigned n = payload_size(buf[nr_hdr - 1]);

	if (len < nr_hdr + n) {
		*why = "payload";
		return PD_ERR_TRUNCATED;
	}
	pkt->payload = le_bytes(buf + nr_hdr, n);
	pkt->payload_size = n;
	pkt->size = nr_hdr + n;
	return (int)pkt->size;
}

static int decode(const unsigned char *buf, size_t len, uint64_t pos,
		  struct pd_spe_pkt *pkt, const char **why)
{
	unsigned hdr;

	memset(pkt, 0, sizeof(*pkt));
	if (!len) {
		*why = "header";
		return PD_ERR_TRUNCATED;
	}
	hdr = buf[0];
	switch (hdr) {
	case HDR_PAD:
		pkt->type = PD_SPE_PAD;
		pkt->size = 1;
		return 1;
	case HDR_END:
		pkt->type = PD_SPE_END;
		pkt->size = 1;
		return 1;
	case HDR_TIMESTAMP:
		pkt->type = PD_SPE_TIMESTAMP;
		return take_payload(buf, len, 1, pkt, why);
	default:
		break;
	}
	if ((hdr & HDR_MASK_EV_SRC) == HDR_EVENTS) {
		pkt->type = PD_SPE_EVENTS;
		pkt->index = payload_size((unsigned char)hdr);
		return take_payload(buf, len, 1, pkt, why);
	}
	if ((hdr & HDR_MASK_EV_SRC) == HDR_SOURCE) {
		pkt->type = PD_SPE_DATA_SOURCE;
		return take_payload(buf, len, 1, pkt, why);
	}
	if ((hdr & HDR_MASK_CTX_OP) == HDR_CONTEXT) {
		pkt->type = PD_SPE_CONTEXT;
		pkt->index = hdr & 3;
		return take_payload(buf, len, 1, pkt, why);
	}
	if ((hdr & HDR_MASK_CTX_OP) == HDR_OP_TYPE) {
		pkt->type = PD_SPE_OP_TYPE;
		pkt->index = hdr & 3;
		return take_payload(buf, len, 1, pkt, why);
	}
	if ((hdr & HDR_MASK_CTX_OP) == HDR_EXTENDED) {
		const unsigned hdr0 = hdr;

		/* perf takes a lone first byte as bad, not as short */
		if (len < 2) {
			*why = "extended header";
			return PD_ERR_FORMAT;
		}
		hdr = buf[1];
		pkt->extended = 1;
		if (hdr == HDR1_ALIGNMENT) {
			/* pads to a multiple of 2 << (hdr0 & 0xf) bytes, which
			 * perf wants wholly present (arm_spe_get_alignment) */
			const unsigned align = 2u << (hdr0 & 0xf);

			if (len < align) {
				*why = "alignment";
				return PD_ERR_TRUNCATED;
			}
			pkt->type = PD_SPE_PAD;
			pkt->size = align - (unsigned)(pos & (align - 1));
			return (int)pkt->size;
		}
		if ((hdr & HDR_MASK_ADDR_CNT) == HDR_ADDRESS ||
		    (hdr & HDR_MASK_ADDR_CNT) == HDR_COUNTER) {
			pkt->type = (hdr & HDR_MASK_ADDR_CNT) == HDR_ADDRESS
					    ? PD_SPE_ADDRESS
					    : PD_SPE_COUNTER;
			pkt->index = (hdr0 & 3) << 3 | (hdr & 7);
			return take_payload(buf, len, 2, pkt, why);
		}
		*why = "extended header";
		return PD_ERR_FORMAT;
	}
	if ((hdr & HDR_MASK_ADDR_CNT) == HDR_ADDRESS ||
	    (hdr & HDR_MASK_ADDR_CNT) == HDR_COUNTER) {
		pkt->type = (hdr & HDR_MASK_ADDR_CNT) == HDR_ADDRESS
				    ? PD_SPE_ADDRESS
				    : PD_SPE_COUNTER;
		pkt->index = hdr & 7;
		return take_payload(buf, len, 1, pkt, why);
	}
	*why = "header";
	return PD_ERR_FORMAT;
}

/* pd_spe_pkt_decode, inline in the record loop: pkt stays in registers
 * there (through the exported call, reading back its type and index
 * stalled on the stores that wrote them, bench/spe.sh) */
static inline int pkt_decode(const unsigned char *buf, size_t len,
			     uint64_t pos, struct pd_spe_pkt *pkt,
			     const char **why)
{
	int rc = decode(buf, len, pos, pkt, why);

	if (rc > 0 && pkt->type == PD_SPE_PAD) {
		size_t n = (size_t)rc;

		while (n < PAD_RUN_MAX && n < len && buf[n] == 0)
			n++;
		pkt->size = (unsigned)n;
		rc = (int)n;
	}
	return rc;
}

int pd_spe_pkt_decode(const unsigned char *buf, size_t len, uint64_t pos,
		      struct pd_spe_pkt *pkt, const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	*why = NULL;
	return pkt_decode(buf, len, pos, pkt, why);
}

/* ---- descriptions, as perf report -D prints them -------------------- */

struct out {
	char *p;
	size_t left, total;
};

static void PD_PRINTF(2, 3) put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->p, o->left, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	o->total += (size_t)n;
	if ((size_t)n >= o->left) {
		o->p += o->left ? o->left - 1 : 0;
		o->left = o->left ? 1 : 0;
	} else {
		o->p += n;
		o->left -= (size_t)n;
	}
}

static const char *const event_names[32] = {
	[PD_SPE_EV_EXCEPTION_GEN] = "EXCEPTION-GEN",
	[PD_SPE_EV_RETIRED] = "RETIRED",
	[PD_SPE_EV_L1D_ACCESS] = "L1D-ACCESS",
	[PD_SPE_EV_L1D_REFILL] = "L1D-REFILL",
	[PD_SPE_EV_TLB_ACCESS] = "TLB-ACCESS",
	[PD_SPE_EV_TLB_WALK] = "TLB-REFILL",
	[PD_SPE_EV_NOT_TAKEN] = "NOT-TAKEN",
	[PD_SPE_EV_MISPRED] = "MISPRED",
	[PD_SPE_EV_LLC_ACCESS] = "LLC-ACCESS",
	[PD_SPE_EV_LLC_MISS] = "LLC-REFILL",
	[PD_SPE_EV_REMOTE_ACCESS] = "REMOTE-ACCESS",
	[PD_SPE_EV_ALIGNMENT] = "ALIGNMENT",
	[PD_SPE_EV_TRANSACTIONAL] = "TXN",
	[PD_SPE_EV_PARTIAL_PREDICATE] = "SVE-PARTIAL-PRED",
	[PD_SPE_EV_EMPTY_PREDICATE] = "SVE-EMPTY-PRED",
	[PD_SPE_EV_L2D_ACCESS] = "L2D-ACCESS",
	[PD_SPE_EV_L2D_MISS] = "L2D-MISS",
	[PD_SPE_EV_CACHE_DATA_MODIFIED] = "HITM",
	[PD_SPE_EV_RECENTLY_FETCHED] = "LFB",
	[PD_SPE_EV_DATA_SNOOPED] = "SNOOPED",
	[PD_SPE_EV_STREAMING_SVE_MODE] = "STREAMING-SVE",
	[PD_SPE_EV_SMCU] = "SMCU",
};

const char *pd_spe_event_name(unsigned bit)
{
	return bit < 32 ? event_names[bit] : NULL;
}

/*
 * perf 6.1 names the events of bits 0-11, 17 and 18 and says nothing of
 * the others (later perfs print them as IMPDEF:n, and the newer
 * architected ones by name): the record has them all (events).
 */
static void desc_events(struct out *o, const struct pd_spe_pkt *pkt)
{
	static const uint64_t named = 0xfffull | 1ull << 17 | 1ull << 18;

	put(o, "EV");
	for (unsigned bit = 0; bit < 32; bit++)
		if ((pkt->payload & named) >> bit & 1)
			put(o, " %s", event_names[bit]);
}

/* The OP_TYPE payload's meaning: format.md §12.3. */
static uint32_t op_flags(unsigned cls, unsigned v, unsigned *vl)
{
	uint32_t f = 0;

	*vl = 0;
	switch (cls) {
	case PD_SPE_OP_OTHER:
		if ((v & 0x89) == 0x08) {
			f |= PD_SPE_OPF_SVE_OTHER;
			*vl = 32u << ((v >> 4) & 7);
			if (v & 2)
				f |= PD_SPE_OPF_FP;
			if (v & 4)
				f |= PD_SPE_OPF_PRED;
		} else if ((v & 0x89) == 0x88) {
			f |= PD_SPE_OPF_SME_OTHER;
			*vl = 128u << (((v >> 4) & 7) << 1 | ((v >> 2) & 1));
			if (v & 2)
				f |= PD_SPE_OPF_FP;
		} else if ((v & 0xf8) == 0) {
			if (v & 4)
				f |= PD_SPE_OPF_ASE;
			if (v & 2)
				f |= PD_SPE_OPF_FP;
			if (v & 1)
				f |= PD_SPE_OPF_COND;
		}
		break;
	case PD_SPE_OP_LDST:
		f |= (v & 1) ? PD_SPE_OPF_ST : PD_SPE_OPF_LD;
		if ((v & 0xe2) == 0x02) {
			f |= PD_SPE_OPF_EXTENDED;
			if (v & 4)
				f |= PD_SPE_OPF_AT;
			if (v & 8)
				f |= PD_SPE_OPF_EXCL;
			if (v & 16)
				f |= PD_SPE_OPF_AR;
		} else if ((v & 0xfe) == 0x04) {
			f |= PD_SPE_OPF_SIMD_FP;
		} else if ((v & 0xfe) == 0x00) {
			f |= PD_SPE_OPF_GP_REG;
		} else if ((v & 0xfe) == 0x10) {
			f |= PD_SPE_OPF_UNSPEC_REG;
		} else if ((v & 0xfe) == 0x30) {
			f |= PD_SPE_OPF_NV_SYSREG;
		} else if ((v & 0xfe) == 0x14) {
			f |= PD_SPE_OPF_MTE_TAG;
		} else if ((v & 0xfe) == 0x20) {
			f |= PD_SPE_OPF_MEMCPY;
		} else if (v == 0x25) {
			f |= PD_SPE_OPF_MEMSET;
		} else if ((v & 0x0a) == 0x08) {
			f |= PD_SPE_OPF_SVE_SME;
			*vl = 32u << ((v >> 4) & 7);
			if (v & 4)
				f |= PD_SPE_OPF_PRED;
			if (v & 0x80)
				f |= PD_SPE_OPF_SG;
		} else if ((v & 0xfa) == 0x40) {
			f |= PD_SPE_OPF_GCS;
			if (v & 4)
				f |= PD_SPE_OPF_GCS_COMM;
		}
		break;
	case PD_SPE_OP_BRANCH:
		if (v & 1)
			f |= PD_SPE_OPF_COND;
		if (v & 2)
			f |= PD_SPE_OPF_IND;
		if (v & 4)
			f |= PD_SPE_OPF_BR_GCS;
		switch ((v >> 3) & 3) {
		case 1:
			f |= PD_SPE_OPF_CR_BL;
			break;
		case 2:
			f |= PD_SPE_OPF_CR_RET;
			break;
		case 3:
			f |= PD_SPE_OPF_CR_NON_BL_RET;
			break;
		default:
			break;
		}
		break;
	default:
		break;
	}
	return f;
}

/*
 * perf 6.1's reading of an OP_TYPE payload, which predates MTE tag,
 * MEMCPY and MEMSET accesses, SME, GCS, the call-return bits and the
 * "other" class's ASE and FP bits: the record's op flags have those
 * (op_flags()).
 * @return false for the reserved class, which perf prints raw.
 */
static bool desc_op(struct out *o, const struct pd_spe_pkt *pkt)
{
	const unsigned v = (unsigned)(pkt->payload & 0xff);

	switch (pkt->index) {
	case PD_SPE_OP_OTHER:
		if ((v & 0x89) == 0x08) {
			put(o, "SVE-OTHER EVLEN %u", 32u << ((v >> 4) & 7));
			if (v & 2)
				put(o, " FP");
			if (v & 4)
				put(o, " PRED");
		} else {
			put(o, "OTHER %s", v & 1 ? "COND-SELECT" : "INSN-OTHER");
		}
		return true;
	case PD_SPE_OP_LDST:
		put(o, "%s", v & 1 ? "ST" : "LD");
		if ((v & 0xe2) == 0x02) {
			if (v & 4)
				put(o, " AT");
			if (v & 8)
				put(o, " EXCL");
			if (v & 16)
				put(o, " AR");
		}
		switch (v & 0xfe) {
		case 0x04:
			put(o, " SIMD-FP");
			break;
		case 0x00:
			put(o, " GP-REG");
			break;
		case 0x10:
			put(o, " UNSPEC-REG");
			break;
		case 0x30:
			put(o, " NV-SYSREG");
			break;
		default:
			break;
		}
		if ((v & 0x0a) == 0x08) {
			put(o, " EVLEN %u", 32u << ((v >> 4) & 7));
			if (v & 4)
				put(o, " PRED");
			if (v & 0x80)
				put(o, " SG");
		}
		return true;
	case PD_SPE_OP_BRANCH:
		put(o, "B");
		if (v & 1)
			put(o, " COND");
		if ((v & 0xfe) == 0x02)
			put(o, " IND");
		return true;
	default:
		return false;
	}
}

#define ADDR_LOW56(v) ((uint64_t)((v) & UINT64_C(0x00ffffffffffffff)))

static bool desc_addr(struct out *o, const struct pd_spe_pkt *pkt)
{
	static const char *const names[] = {"PC", "TGT"};
	const uint64_t v = pkt->payload;

	switch (pkt->index) {
	case PD_SPE_ADDR_PC:
	case PD_SPE_ADDR_TGT:
		put(o, "%s 0x%" PRIx64 " el%u ns=%u", names[pkt->index],
		    ADDR_LOW56(v), (unsigned)(v >> 61 & 3),
		    (unsigned)(v >> 63));
		return true;
	case PD_SPE_ADDR_VA:
		put(o, "VA 0x%" PRIx64, v);
		return true;
	case PD_SPE_ADDR_PA:
		put(o, "PA 0x%" PRIx64 " ns=%u ch=%u pat=%x", ADDR_LOW56(v),
		    (unsigned)(v >> 63), (unsigned)(v >> 62 & 1),
		    (unsigned)(v >> 56 & 0xf));
		return true;
	default:
		return false;
	}
}

static const char *const pkt_names[] = {
	[PD_SPE_BAD] = "BAD",	       [PD_SPE_PAD] = "PAD",
	[PD_SPE_END] = "END",	       [PD_SPE_TIMESTAMP] = "TS",
	[PD_SPE_ADDRESS] = "ADDR",     [PD_SPE_COUNTER] = "LAT",
	[PD_SPE_CONTEXT] = "CONTEXT",  [PD_SPE_OP_TYPE] = "OP-TYPE",
	[PD_SPE_EVENTS] = "EVENTS",    [PD_SPE_DATA_SOURCE] = "DATA-SOURCE",
};

size_t pd_spe_pkt_desc(const struct pd_spe_pkt *pkt, char *out, size_t size)
{
	struct out o = {out, size, 0};
	const char *name = (unsigned)pkt->type < 10 ? pkt_names[pkt->type]
						    : "BAD";
	bool known = true;

	if (size)
		out[0] = '\0';
	switch (pkt->type) {
	case PD_SPE_BAD:
	case PD_SPE_PAD:
	case PD_SPE_END:
		put(&o, "%s", name);
		break;
	case PD_SPE_EVENTS:
		desc_events(&o, pkt);
		break;
	case PD_SPE_OP_TYPE:
		known = desc_op(&o, pkt);
		break;
	case PD_SPE_DATA_SOURCE:
	case PD_SPE_TIMESTAMP:
		put(&o, "%s %" PRId64, name, (int64_t)pkt->payload);
		break;
	case PD_SPE_ADDRESS:
		known = desc_addr(&o, pkt);
		break;
	case PD_SPE_CONTEXT:
		put(&o, "%s 0x%" PRIx64 " el%u", name, pkt->payload,
		    pkt->index + 1);
		break;
	case PD_SPE_COUNTER:
		put(&o, "%s %u ", name, (unsigned)(pkt->payload & 0xffff));
		if (pkt->index == PD_SPE_LAT_TOTAL)
			put(&o, "TOT");
		else if (pkt->index == PD_SPE_LAT_ISSUE)
			put(&o, "ISSUE");
		else if (pkt->index == PD_SPE_LAT_XLAT)
			put(&o, "XLAT");
		break;
	default:
		known = false;
		break;
	}
	if (!known) {
		/* perf prints what it cannot name raw, from the start */
		o = (struct out){out, size, 0};
		put(&o, "%s 0x%" PRIx64 " (%u)", name, pkt->payload,
		    pkt->index);
	}
	return o.total;
}

/* ---- the cursor and records ----------------------------------------- */

void pd_spe_cursor_init(struct pd_spe_cursor *c, const void *buf, size_t len,
			uint64_t align_base)
{
	memset(c, 0, sizeof(*c));
	c->buf = buf;
	c->len = buf ? len : 0;
	c->align_base = align_base;
}

static inline int next_packet(struct pd_spe_cursor *c,
			      struct pd_spe_pkt *pkt)
{
	const char *why;
	int rc;

	if (c->pos >= c->len)
		return 0;
	rc = pkt_decode(c->buf + c->pos, c->len - c->pos,
			c->align_base + c->pos, pkt, &why);
	if (rc <= 0) {
		/* perf steps one byte and tries again from there */
		memset(pkt, 0, sizeof(*pkt));
		pkt->type = PD_SPE_BAD;
		pkt->size = 1;
		pkt->payload = c->buf[c->pos];
		c->nr_bad++;
	}
	c->pos += pkt->size;
	c->nr_packets++;
	return 1;
}

int pd_spe_next_packet(struct pd_spe_cursor *c, struct pd_spe_pkt *pkt)
{
	return next_packet(c, pkt);
}

/* perf's arm_spe_calc_ip: the address as a tool should see it */
static uint64_t canonical(unsigned index, uint64_t v)
{
	const uint64_t low = ADDR_LOW56(v);

	switch (index) {
	case PD_SPE_ADDR_PC:
	case PD_SPE_ADDR_TGT:
	case PD_SPE_ADDR_PBT: {
		const unsigned el = (unsigned)(v >> 61 & 3);

		if ((v >> 63) && (el == 1 || el == 2))
			return low | 0xff00000000000000ull;
		return low;
	}
	case PD_SPE_ADDR_VA:
		if ((low >> 52 & 0xf) == 0xf)
			return low | 0xff00000000000000ull;
		return low;
	default:
		return low;
	}
}

static void record_zero(struct pd_spe_record *r)
{
	/* nine 16-byte stores of a zeroed register: memset() became a
	 * `rep stos` (27 of the lean decoder's ~230 instructions a record,
	 * and a slow start on most cores); a copy of a zero record loaded
	 * each 16 bytes too */
	pdc_zero(r, sizeof(*r));
}

static void record_start(struct pd_spe_cursor *c, struct pd_spe_record *r)
{
	record_zero(r);
	r->offset = c->pos;
}

static inline void take_addr(struct pd_spe_record *r, unsigned index,
			     uint64_t v, unsigned need)
{
	if (index >= PD_SPE_ADDR_NR)
		return; /* reserved index: perf ignores it too */
	r->mask |= PD_SPE_HAS_PC << index;
	r->addr[index] = canonical(index, v);
	if (!(need & PD_SPE_NEED_ADDR_BITS))
		return;
	if (index == PD_SPE_ADDR_VA) {
		r->va_tag = (uint8_t)(v >> 56);
	} else if (index == PD_SPE_ADDR_PA) {
		r->ns[index] = (uint8_t)(v >> 63);
		r->pa_ch = (uint8_t)(v >> 62 & 1);
		r->pa_pat = (uint8_t)(v >> 56 & 0xf);
	} else {
		r->el[index] = (uint8_t)(v >> 61 & 3);
		r->ns[index] = (uint8_t)(v >> 63);
	}
}

static inline void take_counter(struct pd_spe_record *r, unsigned index,
				uint64_t v)
{
	if (index == PD_SPE_LAT_TOTAL) {
		r->lat_total = (uint16_t)v;
		r->mask |= PD_SPE_HAS_LAT_TOTAL;
	} else if (index == PD_SPE_LAT_ISSUE) {
		r->lat_issue = (uint16_t)v;
		r->mask |= PD_SPE_HAS_LAT_ISSUE;
	} else if (index == PD_SPE_LAT_XLAT) {
		r->lat_xlat = (uint16_t)v;
		r->mask |= PD_SPE_HAS_LAT_XLAT;
	}
}

/* false (r unchanged) for the reserved operation class */
static inline bool take_op(struct pd_spe_record *r, unsigned index,
			   uint64_t v, unsigned need)
{
	if (index == 3)
		return false;
	r->op_class = (uint8_t)index;
	r->op_raw = (uint8_t)v;
	/* several OP_TYPE packets: perf ORs what they say */
	if (need & PD_SPE_NEED_OP_FLAGS)
		r->op |= op_flags(index, (unsigned)(v & 0xff), &r->op_vl);
	r->mask |= PD_SPE_HAS_OP;
	return true;
}

static inline void take_context(struct pd_spe_record *r, unsigned index,
				uint64_t v)
{
	r->context = v;
	r->context_el = (uint8_t)(index + 1);
	r->mask |= PD_SPE_HAS_CONTEXT;
}

static inline void take_events(struct pd_spe_record *r, unsigned size,
			       uint64_t v)
{
	r->events = v;
	r->events_size = size;
	r->mask |= PD_SPE_HAS_EVENTS;
}

static inline void take_source(struct pd_spe_record *r, uint64_t v)
{
	r->source = v;
	r->mask |= PD_SPE_HAS_SOURCE;
}

static inline void take_timestamp(struct pd_spe_record *r, uint64_t v)
{
	r->timestamp = v;
	r->mask |= PD_SPE_HAS_TIMESTAMP;
}

/* pkt into r; false (r unchanged) for the reserved operation class */
static inline bool take(struct pd_spe_record *r, const struct pd_spe_pkt *pkt,
			unsigned need)
{
	const uint64_t v = pkt->payload;

	switch (pkt->type) {
	case PD_SPE_ADDRESS:
		take_addr(r, pkt->index, v, need);
		break;
	case PD_SPE_COUNTER:
		take_counter(r, pkt->index, v);
		break;
	case PD_SPE_CONTEXT:
		take_context(r, pkt->index, v);
		break;
	case PD_SPE_OP_TYPE:
		return take_op(r, pkt->index, v, need);
	case PD_SPE_EVENTS:
		take_events(r, pkt->payload_size, v);
		break;
	case PD_SPE_DATA_SOURCE:
		take_source(r, v);
		break;
	case PD_SPE_TIMESTAMP:
		take_timestamp(r, v);
		break;
	case PD_SPE_BAD:
	case PD_SPE_PAD:
	case PD_SPE_END:
		break;
	}
	return true;
}

/* The payload of 1 << sz bytes at p, which has 8 bytes to read: one
 * unaligned load, masked */
static inline uint64_t payload8(const unsigned char *p, unsigned sz)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	static const uint64_t mask[4] = {0xff, 0xffff, 0xffffffff,
					 UINT64_MAX};
	uint64_t v;

	memcpy(&v, p, 8);
	return v & mask[sz & 3];
#else
	return le_bytes(p, 1u << (sz & 3));
#endif
}

/*
 * The common packets taken into r straight from their bytes: a one-byte
 * header with its payload, where 9 bytes are left (none then reads past
 * the buffer).  PAD, END, extended headers, bad bytes and a buffer's
 * last bytes go through next_packet() and take().  decode() for every
 * packet (its memset, a call per payload, the chain of header tests,
 * then take()'s switch again) was 57% of `pdtool report --itrace=M` on
 * a large trace (bench/spe.sh).  @return the packet's size, *got 1 (2:
 * a TIMESTAMP, the record ends; -1: the reserved operation class, r
 * unchanged); 0 for none of them (nothing taken).
 */
static inline unsigned fast_take(struct pd_spe_record *r,
				 const unsigned char *p, int *got,
				 unsigned need)
{
	const unsigned hdr = p[0];

	/* one jump on the header byte (its size bits fixed per case),
	 * not a chain of masked compares: the payload's size is then a
	 * constant */
	*got = 1;
	switch (hdr) {
	case HDR_ADDRESS + 0: case HDR_ADDRESS + 1: case HDR_ADDRESS + 2:
	case HDR_ADDRESS + 3: case HDR_ADDRESS + 4: case HDR_ADDRESS + 5:
	case HDR_ADDRESS + 6: case HDR_ADDRESS + 7:
		take_addr(r, hdr & 7, payload8(p + 1, 3), need);
		return 9;
	case HDR_COUNTER + 0: case HDR_COUNTER + 1: case HDR_COUNTER + 2:
	case HDR_COUNTER + 3: case HDR_COUNTER + 4: case HDR_COUNTER + 5:
	case HDR_COUNTER + 6: case HDR_COUNTER + 7:
		take_counter(r, hdr & 7, payload8(p + 1, 1));
		return 3;
	case HDR_EVENTS: case HDR_EVENTS + 0x10: case HDR_EVENTS + 0x20:
	case HDR_EVENTS + 0x30: {
		const unsigned sz = (hdr >> 4) & 3;

		take_events(r, 1u << sz, payload8(p + 1, sz));
		return 1 + (1u << sz);
	}
	case HDR_SOURCE: case HDR_SOURCE + 0x10: case HDR_SOURCE + 0x20:
	case HDR_SOURCE + 0x30: {
		const unsigned sz = (hdr >> 4) & 3;

		take_source(r, payload8(p + 1, sz));
		return 1 + (1u << sz);
	}
	case HDR_OP_TYPE + 0: case HDR_OP_TYPE + 1: case HDR_OP_TYPE + 2:
	case HDR_OP_TYPE + 3:
		*got = take_op(r, hdr & 3, payload8(p + 1, 0), need) ? 1 : -1;
		return 2;
	case HDR_CONTEXT + 0: case HDR_CONTEXT + 1: case HDR_CONTEXT + 2:
	case HDR_CONTEXT + 3:
		take_context(r, hdr & 3, payload8(p + 1, 2));
		return 5;
	case HDR_TIMESTAMP:
		take_timestamp(r, payload8(p + 1, 3));
		*got = 2;
		return 9;
	default:
		*got = 0;
		return 0;
	}
}

/*
 * The general decoder: the rest of the record r, started (a packet of it
 * taken) or not, packet by packet.  need: the PD_SPE_NEED_* details
 * decoded.
 */
static inline int next_record(struct pd_spe_cursor *c,
			      struct pd_spe_record *r, bool started,
			      unsigned need)
{
	struct pd_spe_pkt pkt;

	for (;;) {
		/* the fast path, with the cursor in registers */
		const unsigned char *const buf = c->buf;
		const size_t len = c->len;
		size_t pos = c->pos;
		uint64_t nr = 0;
		int got = 0;
		unsigned n;

		while (len - pos >= 9 &&
		       (n = fast_take(r, buf + pos, &got, need))) {
			pos += n;
			nr++;
			if (got < 0)
				break;
			started = true;
			if (got == 2)
				break;
		}
		c->pos = pos;
		c->nr_packets += nr;
		if (got == 2) {
			r->ended_by = PD_SPE_TIMESTAMP;
			c->nr_records++;
			return 1;
		}
		if (got < 0) {
			/* the reserved operation class: as below */
			c->nr_dropped++;
			started = false;
			record_start(c, r);
			continue;
		}
		/* the slow path: one packet */
		if (next_packet(c, &pkt) <= 0)
			break;
		if (pkt.type == PD_SPE_PAD && !started) {
			r->offset = c->pos;
			continue;
		}
		if (pkt.type == PD_SPE_PAD)
			continue;
		/* a bad byte or the reserved operation class (which take()
		 * refuses): perf's decoder returns an error for the record
		 * and starts the next one after this packet.  (take()'s
		 * switch reads the index: compared together here, type
		 * and index were read as one word, stalling on their two
		 * stores, a fifth of decoding.) */
		if (pkt.type == PD_SPE_BAD || !take(r, &pkt, need)) {
			if (started || pkt.type == PD_SPE_OP_TYPE)
				c->nr_dropped++;
			started = false;
			record_start(c, r);
			continue;
		}
		started = true;
		if (pkt.type == PD_SPE_TIMESTAMP || pkt.type == PD_SPE_END) {
			r->ended_by = (int)pkt.type;
			c->nr_records++;
			return 1;
		}
	}
	if (started)
		c->nr_tail += c->pos - r->offset;
	return 0;
}

int pd_spe_next_record(struct pd_spe_cursor *c, struct pd_spe_record *r)
{
	record_start(c, r);
	return next_record(c, r, false, PD_SPE_NEED_ALL);
}

/* The bytes the straight-line path may read: two PAD runs and its
 * packets' largest sum (PADs 2 * 16, CONTEXT 5, four ADDRESS 4 * 9,
 * three COUNTER 3 * 3, EVENTS 9, OP_TYPE 2, DATA_SOURCE 9, TIMESTAMP 9:
 * 111), then an 8-byte load at a packet's payload. */
#define LINE_MAX 144

/* The PAD run at p (which has LINE_MAX bytes) as one packet: its size,
 * 0 for none or a run longer than a packet (the general decoder's) */
static inline unsigned line_pad(const unsigned char *p)
{
	unsigned k = 0;

	while (k < PAD_RUN_MAX && p[k] == 0)
		k++;
	return k < PAD_RUN_MAX || p[k] ? k : 0;
}

/* The record's packet at p when its header is hdr: the payload of the
 * size the header says (p has LINE_MAX bytes to read) */
#define LINE_PAYLOAD(p) payload8((p) + 1, ((p)[0] >> 4) & 3)
#define LINE_SIZE(p) (1u + (1u << (((p)[0] >> 4) & 3)))

/* The ADDRESS packet of index at *p (which has LINE_MAX bytes), when it
 * is one: taken, *p past it, counted in *n */
static inline void line_addr(struct pd_spe_record *r,
			     const unsigned char **p, unsigned index,
			     unsigned need, unsigned *n)
{
	if ((*p)[0] != HDR_ADDRESS + index)
		return;
	take_addr(r, index, payload8(*p + 1, 3), need);
	*p += 9;
	(*n)++;
}

/* The COUNTER packet of index at *p, as line_addr() */
static inline void line_counter(struct pd_spe_record *r,
				const unsigned char **p, unsigned index,
				unsigned *n)
{
	if ((*p)[0] != HDR_COUNTER + index)
		return;
	take_counter(r, index, payload8(*p + 1, 1));
	*p += 3;
	(*n)++;
}

/* The common records' fixed layouts: byte offsets of their packets
 * (perf's Neoverse writers: CONTEXT, PC, the issue and total latencies,
 * a two-byte EVENTS, OP_TYPE; then by the operation's class nothing, a
 * branch's TGT, or a load or store's VA, translation latency, PA and a
 * one-byte DATA_SOURCE or none; then the TIMESTAMP) */
#define FIX_PC 5
#define FIX_ISSUE 14
#define FIX_TOTAL 17
#define FIX_EVENTS 20
#define FIX_OP 23
#define FIX_TAIL 25		/* TGT, VA or the TIMESTAMP */
#define FIX_XLAT 34
#define FIX_PA 37
#define FIX_SOURCE 46
/* the headers at 0 (CONTEXT, any index) and FIX_PC, as the little-endian
 * word at 0 has them; those at FIX_ISSUE, FIX_TOTAL and FIX_EVENTS, as
 * the word at FIX_ISSUE has them */
#define FIX_W0_MASK UINT64_C(0x0000ff00000000fc)
#define FIX_W0 ((uint64_t)HDR_ADDRESS << 40 | HDR_CONTEXT)
#define FIX_W1_MASK UINT64_C(0x00ff0000ff0000ff)
#define FIX_W1 ((uint64_t)(HDR_EVENTS + 0x10) << 48 | \
		(uint64_t)HDR_COUNTER << 24 | (HDR_COUNTER + 1))

/* The payload of nr_bytes (1, 2, 4 or 8) at p, which has 8 to read */
#define FIX_LE(p, nr_bytes) payload8((p), (nr_bytes) == 8 ? 3 : (nr_bytes) / 2)

/* The record of a fixed layout at p (fixed_record) into r: its OP_TYPE
 * header op, size bytes, a DATA_SOURCE or not.  restrict: r's stores
 * are not to p's bytes (the compiler loaded them again after each, or
 * held them all in registers it saved and restored), and the mask is
 * stored once. */
static inline void fixed_take(struct pd_spe_record *restrict r,
			      const unsigned char *restrict p, unsigned op,
			      unsigned size, bool has_source, unsigned need)
{
	unsigned mask = PD_SPE_HAS_CONTEXT | PD_SPE_HAS_PC |
			PD_SPE_HAS_LAT_ISSUE | PD_SPE_HAS_LAT_TOTAL |
			PD_SPE_HAS_EVENTS | PD_SPE_HAS_OP |
			PD_SPE_HAS_TIMESTAMP;

	record_zero(r);
	take_context(r, p[0] & 3, FIX_LE(p + 1, 4));
	take_addr(r, PD_SPE_ADDR_PC, FIX_LE(p + FIX_PC + 1, 8), need);
	r->lat_issue = (uint16_t)FIX_LE(p + FIX_ISSUE + 1, 2);
	r->lat_total = (uint16_t)FIX_LE(p + FIX_TOTAL + 1, 2);
	r->events = FIX_LE(p + FIX_EVENTS + 1, 2);
	r->events_size = 2;
	/* take_op() of a class not the reserved one */
	r->op_class = (uint8_t)(op & 3);
	r->op_raw = p[FIX_OP + 1];
	if (need & PD_SPE_NEED_OP_FLAGS)
		r->op = op_flags(op & 3, p[FIX_OP + 1], &r->op_vl);
	if (op == HDR_OP_TYPE + PD_SPE_OP_BRANCH) {
		take_addr(r, PD_SPE_ADDR_TGT, FIX_LE(p + FIX_TAIL + 1, 8),
			  need);
		mask |= PD_SPE_HAS_TGT;
	} else if (op == HDR_OP_TYPE + PD_SPE_OP_LDST) {
		take_addr(r, PD_SPE_ADDR_VA, FIX_LE(p + FIX_TAIL + 1, 8),
			  need);
		r->lat_xlat = (uint16_t)FIX_LE(p + FIX_XLAT + 1, 2);
		take_addr(r, PD_SPE_ADDR_PA, FIX_LE(p + FIX_PA + 1, 8), need);
		mask |= PD_SPE_HAS_VA | PD_SPE_HAS_PA | PD_SPE_HAS_LAT_XLAT;
		if (has_source) {
			r->source = FIX_LE(p + FIX_SOURCE + 1, 1);
			mask |= PD_SPE_HAS_SOURCE;
		}
	}
	r->timestamp = FIX_LE(p + size - 8, 8);
	r->mask = mask;
}

/*
 * A record of one of the fixed layouts at p (which has LINE_MAX bytes),
 * told by its header bytes at their places, two of the words compared
 * at once: taken into r (started by record_start()), the cursor past
 * it.  false: none of them (nothing taken).  Each packet's test and
 * the pointer it moves (pd_spe_next_record_lean's line) were ~225
 * instructions a record of spe-big.
 */
static inline bool fixed_record(struct pd_spe_cursor *c,
				struct pd_spe_record *r,
				const unsigned char *p, unsigned skip,
				unsigned need)
{
	const unsigned op = p[FIX_OP];
	unsigned size, nr;

	if ((payload8(p, 3) & FIX_W0_MASK) != FIX_W0 ||
	    (payload8(p + FIX_ISSUE, 3) & FIX_W1_MASK) != FIX_W1)
		return false;
	/* the layout, by the operation's class: its size and packets */
	switch (op) {
	case HDR_OP_TYPE + PD_SPE_OP_OTHER:
		if (p[FIX_TAIL] != HDR_TIMESTAMP)
			return false;
		size = FIX_TAIL + 9;
		nr = 7;
		break;
	case HDR_OP_TYPE + PD_SPE_OP_BRANCH:
		if (p[FIX_TAIL] != HDR_ADDRESS + PD_SPE_ADDR_TGT ||
		    p[FIX_TAIL + 9] != HDR_TIMESTAMP)
			return false;
		size = FIX_TAIL + 18;
		nr = 8;
		break;
	case HDR_OP_TYPE + PD_SPE_OP_LDST:
		if (p[FIX_TAIL] != HDR_ADDRESS + PD_SPE_ADDR_VA ||
		    p[FIX_XLAT] != HDR_COUNTER + PD_SPE_LAT_XLAT ||
		    p[FIX_PA] != HDR_ADDRESS + PD_SPE_ADDR_PA)
			return false;
		if (p[FIX_SOURCE] == HDR_SOURCE &&
		    p[FIX_SOURCE + 2] == HDR_TIMESTAMP) {
			size = FIX_SOURCE + 11;
			nr = 11;
		} else if (p[FIX_SOURCE] == HDR_TIMESTAMP) {
			size = FIX_SOURCE + 9;
			nr = 10;
		} else {
			return false;
		}
		break;
	default:
		return false;
	}
	fixed_take(r, p, op, size, nr == 11, need);
	r->offset = c->pos + skip;
	r->ended_by = PD_SPE_TIMESTAMP;
	c->pos += skip + size;
	c->nr_packets += nr + (skip != 0);
	c->nr_records++;
	return true;
}

/*
 * The common record in a straight line: each packet perf's Neoverse
 * writers put in a record, in their order, tested by its header byte and
 * taken at its fixed place (CONTEXT, PC, the issue and total latencies,
 * EVENTS, OP_TYPE, VA, the translation latency, PA, DATA_SOURCE, TGT,
 * then the TIMESTAMP or END).  A packet out of that order, a PAD, an
 * extended header or a bad byte leaves the rest of the record to the
 * general decoder, from where the line stopped.  A switch per packet
 * (next_record's fast_take) was ~20 instructions a packet, ~190 a
 * record; the tests here cost ~3 for a packet absent.
 */
static PD_SPE_NOINLINE int lean_line(struct pd_spe_cursor *c,
				     struct pd_spe_record *r, unsigned need)
{
	const unsigned char *const p0 = c->buf + c->pos;
	const unsigned char *p = p0;
	unsigned hdr, k, n = 0, pads = 0; /* packets taken, PADs */

	record_start(c, r);
	if (c->len - c->pos < LINE_MAX)
		return next_record(c, r, false, need);
	/* a PAD before the record: it starts after it */
	if ((k = line_pad(p))) {
		p += k;
		pads++;
		r->offset += k;
	}
	if ((p[0] & HDR_MASK_CTX_OP) == HDR_CONTEXT) {
		take_context(r, p[0] & 3, payload8(p + 1, 2));
		p += 5;
		n++;
	}
	line_addr(r, &p, PD_SPE_ADDR_PC, need, &n);
	line_counter(r, &p, PD_SPE_LAT_ISSUE, &n);
	line_counter(r, &p, PD_SPE_LAT_TOTAL, &n);
	if ((p[0] & HDR_MASK_EV_SRC) == HDR_EVENTS) {
		take_events(r, LINE_SIZE(p) - 1, LINE_PAYLOAD(p));
		p += LINE_SIZE(p);
		n++;
	}
	/* not the reserved class (3): the general decoder drops it */
	if ((p[0] & HDR_MASK_CTX_OP) == HDR_OP_TYPE && (p[0] & 3) != 3) {
		take_op(r, p[0] & 3, p[1], need);
		p += 2;
		n++;
	}
	line_addr(r, &p, PD_SPE_ADDR_VA, need, &n);
	line_counter(r, &p, PD_SPE_LAT_XLAT, &n);
	line_addr(r, &p, PD_SPE_ADDR_PA, need, &n);
	if ((p[0] & HDR_MASK_EV_SRC) == HDR_SOURCE) {
		take_source(r, LINE_PAYLOAD(p));
		p += LINE_SIZE(p);
		n++;
	}
	line_addr(r, &p, PD_SPE_ADDR_TGT, need, &n);
	/* a PAD before the end (perf's writers align records so) */
	if ((k = line_pad(p))) {
		p += k;
		pads++;
	}
	hdr = p[0];
	if (hdr == HDR_TIMESTAMP || hdr == HDR_END) {
		if (hdr == HDR_TIMESTAMP)
			take_timestamp(r, payload8(p + 1, 3));
		r->ended_by = hdr == HDR_TIMESTAMP ? PD_SPE_TIMESTAMP
						   : PD_SPE_END;
		c->nr_packets += n + pads + 1;
		c->pos += (size_t)(p - p0) + (hdr == HDR_TIMESTAMP ? 9 : 1);
		c->nr_records++;
		return 1;
	}
	c->nr_packets += n + pads;
	c->pos += (size_t)(p - p0);
	return next_record(c, r, n > 0, need);
}

/* A fixed layout (fixed_record) after a PAD or none; else the line, and
 * the general decoder after it.  Apart, the fixed layouts' path keeps
 * its few registers: with the line inlined it saved and restored a
 * dozen a record. */
int pd_spe_next_record_lean(struct pd_spe_cursor *c, struct pd_spe_record *r,
			    unsigned need)
{
	const unsigned char *const p = c->buf + c->pos;

	if (c->len - c->pos >= LINE_MAX) {
		const unsigned k = p[0] ? 0 : line_pad(p);

		if (fixed_record(c, r, p + k, k, need))
			return 1;
	}
	return lean_line(c, r, need);
}

/* ---- AUXTRACE_INFO --------------------------------------------------- */

/* format.md §12.5: the two forms of SPE's AUXTRACE_INFO priv words */
#define V1_WORDS 2
#define V2_HEADER_MIN 4	 /* version, header size, PMU type, CPUs */
#define CPU_FIXED 3	 /* magic, CPU, number of parameters */

int pd_spe_info_decode(struct pd_file *f, const struct pd_ev_auxtrace_info *ai,
		       struct pd_spe_info *out)
{
	const uint64_t nr = ai->priv.nr;
	uint64_t at;

	memset(out, 0, sizeof(*out));
	if (ai->type != PD_AUXTRACE_ARM_SPE)
		return pd_set_err(f, PD_ERR_UNSUPPORTED,
				  "AUXTRACE_INFO: type %u is not Arm SPE (%d)",
				  ai->type, PD_AUXTRACE_ARM_SPE);
	if (nr < V1_WORDS)
		return PD_CORRUPT(f,
				  "AUXTRACE_INFO: %" PRIu64
				  " words of Arm SPE metadata, fewer than 2",
				  nr);
	if (nr == V1_WORDS) {
		out->version = 1;
		out->pmu_type = pd_u64s_get(&ai->priv, 0);
		out->per_cpu_mmaps = pd_u64s_get(&ai->priv, 1);
		return 0;
	}
	if (nr < V2_HEADER_MIN)
		return PD_CORRUPT(f,
				  "AUXTRACE_INFO: Arm SPE metadata of %" PRIu64
				  " words ends in its header",
				  nr);
	{
		const uint64_t version = pd_u64s_get(&ai->priv, 0);

		if (version < 2 || version > 0xffff)
			return PD_CORRUPT(f,
					  "AUXTRACE_INFO: Arm SPE metadata "
					  "version %" PRIu64 " (2 and up "
					  "follow the two-word form)",
					  version);
		out->version = (unsigned)version;
	}
	out->header_size = pd_u64s_get(&ai->priv, 1);
	out->pmu_type = pd_u64s_get(&ai->priv, 2);
	out->nr_cpus = pd_u64s_get(&ai->priv, 3);
	if (out->header_size < V2_HEADER_MIN || out->header_size > nr)
		return PD_CORRUPT(f,
				  "AUXTRACE_INFO: Arm SPE header size %" PRIu64
				  " words, not within 4..%" PRIu64,
				  out->header_size, nr);
	if (out->nr_cpus > (nr - out->header_size) / CPU_FIXED)
		return PD_CORRUPT(f,
				  "AUXTRACE_INFO: %" PRIu64
				  " CPUs of Arm SPE metadata in %" PRIu64
				  " words",
				  out->nr_cpus, nr - out->header_size);
	out->words.raw = ai->priv.raw + 8 * out->header_size;
	out->words.nr = nr - out->header_size;
	out->words.swap = ai->priv.swap;
	at = 0;
	for (uint64_t i = 0; i < out->nr_cpus; i++) {
		uint64_t params;

		if (at + CPU_FIXED > out->words.nr)
			return PD_CORRUPT(f,
					  "AUXTRACE_INFO: Arm SPE CPU %" PRIu64
					  " of %" PRIu64 " past the record's end",
					  i, out->nr_cpus);
		if (pd_u64s_get(&out->words, at) != PD_SPE_CPU_MAGIC)
			return PD_CORRUPT(f,
					  "AUXTRACE_INFO: Arm SPE CPU %" PRIu64
					  " magic 0x%" PRIx64 ", not 0x%llx",
					  i, pd_u64s_get(&out->words, at),
					  PD_SPE_CPU_MAGIC);
		params = pd_u64s_get(&out->words, at + 2);
		if (params > out->words.nr - at - CPU_FIXED)
			return PD_CORRUPT(f,
					  "AUXTRACE_INFO: Arm SPE CPU %" PRIu64
					  " has %" PRIu64
					  " parameters, past the record's end",
					  i, params);
		at += CPU_FIXED + params;
	}
	return 0;
}

int pd_spe_info_cpu(const struct pd_spe_info *info, uint64_t i,
		    struct pd_spe_cpu *out)
{
	uint64_t at = 0;

	memset(out, 0, sizeof(*out));
	if (i >= info->nr_cpus)
		return PD_ERR_API;
	for (uint64_t k = 0; k < i; k++)
		at += CPU_FIXED + pd_u64s_get(&info->words, at + 2);
	out->cpu = pd_u64s_get(&info->words, at + 1);
	out->nr_params = pd_u64s_get(&info->words, at + 2);
	{
		uint64_t *const params[] = {&out->midr, &out->pmu_type,
					    &out->min_interval,
					    &out->event_filter};

		for (uint64_t k = 0; k < out->nr_params && k < 4; k++)
			*params[k] = pd_u64s_get(&info->words,
						 at + CPU_FIXED + k);
	}
	return 0;
}
