/*
 * pd_spe.h - part of pd.h (included at its end): the Arm Statistical
 * Profiling Extension's trace, as a capture of `perf record -e
 * arm_spe_0//` holds it in its AUXTRACE records, and the SPE metadata of
 * its AUXTRACE_INFO record.
 *
 *	struct pd_spe_cursor c;
 *	struct pd_spe_record r;
 *
 *	pd_spe_cursor_init(&c, ev.auxtrace.data, ev.auxtrace.data_size,
 *			   rec.offset + rec.size);
 *	while (pd_spe_next_record(&c, &r) > 0)
 *		if (r.mask & PD_SPE_HAS_VA)
 *			use(r.pc, r.va, r.lat_total);
 *
 * The packet format is the Arm ARM's (DDI 0487, "Statistical Profiling
 * Extension", the packet chapter); docs/format.md §12 gives the fields
 * as the decoder reads them.  Nothing here allocates, and nothing is
 * kept between calls but the cursor, which the caller owns.
 */
#ifndef PD_SPE_H
#define PD_SPE_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- packets -------------------------------------------------------- */

enum pd_spe_pkt_type {
	PD_SPE_BAD = 0,		/* no packet starts at this byte */
	PD_SPE_PAD = 1,		/* PAD, or an alignment packet */
	PD_SPE_END = 2,		/* END: a record without a timestamp ends */
	PD_SPE_TIMESTAMP = 3,	/* TIMESTAMP: a record ends */
	PD_SPE_ADDRESS = 4,
	PD_SPE_COUNTER = 5,
	PD_SPE_CONTEXT = 6,
	PD_SPE_OP_TYPE = 7,
	PD_SPE_EVENTS = 8,
	PD_SPE_DATA_SOURCE = 9,
};

/* ADDRESS packet indexes */
enum pd_spe_addr_index {
	PD_SPE_ADDR_PC = 0,	/* the sampled instruction */
	PD_SPE_ADDR_TGT = 1,	/* a branch's target */
	PD_SPE_ADDR_VA = 2,	/* data virtual address */
	PD_SPE_ADDR_PA = 3,	/* data physical address */
	PD_SPE_ADDR_PBT = 4,	/* the previous branch's target (SPEv1p2) */
	PD_SPE_ADDR_NR = 5,
};

/* COUNTER packet indexes: latencies in cycles */
enum pd_spe_counter_index {
	PD_SPE_LAT_TOTAL = 0,	/* issue to completion */
	PD_SPE_LAT_ISSUE = 1,	/* dispatch to issue */
	PD_SPE_LAT_XLAT = 2,	/* address translation */
};

/* OP_TYPE packet classes */
enum pd_spe_op_class {
	PD_SPE_OP_OTHER = 0,
	PD_SPE_OP_LDST = 1,	/* load, store, atomic */
	PD_SPE_OP_BRANCH = 2,	/* branch or exception return */
};

/*
 * One packet.  index is the ADDRESS or COUNTER index (five bits with an
 * extended header), the CONTEXT packet's two bits (0: CONTEXTIDR_EL1,
 * 1: CONTEXTIDR_EL2), the OP_TYPE class, or the EVENTS payload's size.
 */
struct pd_spe_pkt {
	enum pd_spe_pkt_type type;
	unsigned index;
	unsigned size;		/* bytes of the packet, headers included */
	unsigned payload_size;	/* bytes: 1, 2, 4 or 8; 0 without one */
	int extended;		/* a two-byte (extended) header */
	uint64_t payload;	/* little-endian on every host */
};

/*
 * Decode the packet at buf[0..len).  pos is where buf lies for an
 * alignment packet (which pads to a multiple of 2..16 bytes of it):
 * perf measures it from the payload's place in its mapping of the file,
 * which is the AUXTRACE payload's file offset.  A run of zero bytes after
 * a PAD joins it, up to 16 bytes, as `perf report -D` prints them.
 * @return the packet's size (> 0); PD_ERR_TRUNCATED when buf ends inside
 * the packet; PD_ERR_FORMAT when no packet has this header.  *why names
 * the check that failed (may be NULL).
 */
PD_API int pd_spe_pkt_decode(const unsigned char *buf, size_t len,
			     uint64_t pos, struct pd_spe_pkt *pkt,
			     const char **why);

/*
 * The packet as perf 6.1's `perf report -D` describes it ("LD GP-REG",
 * "PC 0xffff800080123456 el1 ns=1", "LAT 12 TOT"), NUL-terminated in
 * out[0..size): what 6.1 cannot name (PBT, the events past bit 11 but
 * the SVE predicates, MTE tag, MEMCPY, MEMSET, SME, GCS, call-return) it
 * shows as 6.1 does; pd_spe_next_record() decodes them all.  @return the length the
 * description has (out is cut short when size is smaller).
 */
PD_API size_t pd_spe_pkt_desc(const struct pd_spe_pkt *pkt, char *out,
			      size_t size);

/* ---- records -------------------------------------------------------- */

/* Which fields a record has (struct pd_spe_record.mask). */
enum pd_spe_has {
	PD_SPE_HAS_PC = 1u << 0,
	PD_SPE_HAS_TGT = 1u << 1,
	PD_SPE_HAS_VA = 1u << 2,
	PD_SPE_HAS_PA = 1u << 3,
	PD_SPE_HAS_PBT = 1u << 4,
	PD_SPE_HAS_TIMESTAMP = 1u << 5,
	PD_SPE_HAS_CONTEXT = 1u << 6,
	PD_SPE_HAS_OP = 1u << 7,
	PD_SPE_HAS_EVENTS = 1u << 8,
	PD_SPE_HAS_SOURCE = 1u << 9,
	PD_SPE_HAS_LAT_TOTAL = 1u << 10,
	PD_SPE_HAS_LAT_ISSUE = 1u << 11,
	PD_SPE_HAS_LAT_XLAT = 1u << 12,
};

/* EVENTS packet bits (the architected ones; the rest are IMPDEF). */
enum pd_spe_event_bits {
	PD_SPE_EV_EXCEPTION_GEN = 0,
	PD_SPE_EV_RETIRED = 1,
	PD_SPE_EV_L1D_ACCESS = 2,
	PD_SPE_EV_L1D_REFILL = 3,
	PD_SPE_EV_TLB_ACCESS = 4,
	PD_SPE_EV_TLB_WALK = 5,
	PD_SPE_EV_NOT_TAKEN = 6,
	PD_SPE_EV_MISPRED = 7,
	PD_SPE_EV_LLC_ACCESS = 8,
	PD_SPE_EV_LLC_MISS = 9,
	PD_SPE_EV_REMOTE_ACCESS = 10,
	PD_SPE_EV_ALIGNMENT = 11,
	PD_SPE_EV_TRANSACTIONAL = 16,
	PD_SPE_EV_PARTIAL_PREDICATE = 17,
	PD_SPE_EV_EMPTY_PREDICATE = 18,
	PD_SPE_EV_L2D_ACCESS = 19,
	PD_SPE_EV_L2D_MISS = 20,
	PD_SPE_EV_CACHE_DATA_MODIFIED = 21,
	PD_SPE_EV_RECENTLY_FETCHED = 22,
	PD_SPE_EV_DATA_SNOOPED = 23,
	PD_SPE_EV_STREAMING_SVE_MODE = 24,
	PD_SPE_EV_SMCU = 25,
};

/*
 * What an OP_TYPE packet says, decoded (struct pd_spe_record.op).  One
 * subclass bit at most, then its qualifiers.
 */
enum pd_spe_op_flags {
	/* load/store class */
	PD_SPE_OPF_LD = 1u << 0,
	PD_SPE_OPF_ST = 1u << 1,
	PD_SPE_OPF_GP_REG = 1u << 2,
	PD_SPE_OPF_SIMD_FP = 1u << 3,
	PD_SPE_OPF_UNSPEC_REG = 1u << 4,
	PD_SPE_OPF_NV_SYSREG = 1u << 5,
	PD_SPE_OPF_MTE_TAG = 1u << 6,
	PD_SPE_OPF_MEMCPY = 1u << 7,
	PD_SPE_OPF_MEMSET = 1u << 8,
	PD_SPE_OPF_EXTENDED = 1u << 9,	/* atomic, exclusive, acquire/release */
	PD_SPE_OPF_AT = 1u << 10,	/* atomic */
	PD_SPE_OPF_EXCL = 1u << 11,
	PD_SPE_OPF_AR = 1u << 12,	/* acquire/release */
	PD_SPE_OPF_SVE_SME = 1u << 13,	/* SVE or SME register load/store */
	PD_SPE_OPF_SG = 1u << 14,	/* gather/scatter */
	PD_SPE_OPF_GCS = 1u << 15,	/* Guarded Control Stack access */
	PD_SPE_OPF_GCS_COMM = 1u << 16,	/* ...a common one */
	/* other class */
	PD_SPE_OPF_SVE_OTHER = 1u << 17,
	PD_SPE_OPF_SME_OTHER = 1u << 18,
	PD_SPE_OPF_COND = 1u << 19,	/* conditional (select or branch) */
	PD_SPE_OPF_ASE = 1u << 20,	/* Advanced SIMD */
	PD_SPE_OPF_FP = 1u << 21,	/* floating point */
	PD_SPE_OPF_PRED = 1u << 22,	/* SVE predicated */
	/* branch class */
	PD_SPE_OPF_IND = 1u << 23,	/* indirect */
	PD_SPE_OPF_BR_GCS = 1u << 24,	/* with a GCS access */
	PD_SPE_OPF_CR_BL = 1u << 25,	/* call-return: a call (BL) */
	PD_SPE_OPF_CR_RET = 1u << 26,	/* call-return: a return */
	PD_SPE_OPF_CR_NON_BL_RET = 1u << 27, /* call-return: neither */
};

/*
 * One SPE record: the packets from after the previous record's end to a
 * TIMESTAMP or END packet, fields present per mask.  Addresses are as
 * perf makes them: PC, TGT and PBT with the top byte filled (0xff) for
 * a non-secure EL1 or EL2 address; VA with its tag byte cleared, and
 * filled when bits 55:52 are all ones (a kernel address); PA with its
 * top byte cleared.  The raw bits are kept beside them.
 */
struct pd_spe_record {
	uint64_t offset;	/* of its first packet in the buffer */
	unsigned mask;		/* PD_SPE_HAS_* */
	uint64_t addr[PD_SPE_ADDR_NR]; /* by pd_spe_addr_index */
	uint8_t el[PD_SPE_ADDR_NR];    /* PC, TGT, PBT: exception level */
	uint8_t ns[PD_SPE_ADDR_NR];    /* PC, TGT, PBT, PA: non-secure */
	uint8_t va_tag;		/* VA: the top byte (pointer tag) */
	uint8_t pa_ch;		/* PA: checked access (MTE) */
	uint8_t pa_pat;		/* PA: physical address tag */
	uint64_t timestamp;	/* in the counter's ticks (TIME_CONV) */
	uint64_t context;	/* CONTEXTIDR: the pid perf's kernel put */
	uint8_t context_el;	/* 1 or 2: which CONTEXTIDR (3, 4: reserved) */
	uint8_t op_class;	/* pd_spe_op_class */
	uint8_t op_raw;		/* the OP_TYPE payload byte */
	uint32_t op;		/* pd_spe_op_flags */
	unsigned op_vl;		/* SVE vector length or SME tile size, bits */
	uint64_t events;	/* the EVENTS payload: pd_spe_event_bits */
	unsigned events_size;	/* bytes of it: 1, 2, 4 or 8 */
	uint64_t source;	/* DATA_SOURCE payload: IMPDEF, per CPU */
	uint16_t lat_total, lat_issue, lat_xlat; /* cycles */
	int ended_by;		/* PD_SPE_TIMESTAMP, PD_SPE_END, or PD_SPE_BAD
				 * for the trace's unterminated tail */
};

/* A bounded cursor over one AUXTRACE buffer; the caller owns it. */
struct pd_spe_cursor {
	const unsigned char *buf;
	size_t len;
	size_t pos;		/* next byte */
	uint64_t align_base;	/* pos 0's place, for alignment packets */
	uint64_t nr_packets;	/* delivered, PADs included */
	uint64_t nr_bad;	/* bytes skipped: no packet started there */
	uint64_t nr_records;	/* delivered */
	uint64_t nr_dropped;	/* records a bad byte or op class cut */
	uint64_t nr_tail;	/* bytes of an unterminated last record */
};

PD_API void pd_spe_cursor_init(struct pd_spe_cursor *c, const void *buf,
			       size_t len, uint64_t align_base);

/*
 * The next packet.  @return 1 and *pkt (a byte where no packet starts
 * comes as PD_SPE_BAD of size 1, counted in nr_bad), or 0 at the end.
 */
PD_API int pd_spe_next_packet(struct pd_spe_cursor *c,
			      struct pd_spe_pkt *pkt);

/*
 * The next record, assembled as perf's decoder assembles it: PADs are
 * skipped; a TIMESTAMP or END ends it; a bad byte, or an OP_TYPE of the
 * reserved class, drops the record being assembled (nr_dropped) and the
 * next starts after it.  Packets after the last TIMESTAMP or END that
 * form no complete record are not delivered (nr_tail counts their bytes).
 * @return 1 and *r, or 0 at the end.
 */
PD_API int pd_spe_next_record(struct pd_spe_cursor *c,
			      struct pd_spe_record *r);

/* The details of a record pd_spe_next_record_lean() decodes on request. */
enum pd_spe_need {
	PD_SPE_NEED_OP_FLAGS = 1u << 0,	 /* op, op_vl */
	PD_SPE_NEED_ADDR_BITS = 1u << 1, /* el, ns, va_tag, pa_ch, pa_pat */
	PD_SPE_NEED_ALL = (1u << 2) - 1,
};

/*
 * pd_spe_next_record() for a consumer that reads the records only: a
 * record of perf's usual fixed layouts told by its header bytes and
 * taken at once, else the common record's packets taken in a straight
 * line (the rest as pd_spe_next_record() takes them), and of the
 * details only those in need (PD_SPE_NEED_*), the others left 0.  The
 * records, the cursor and its counts are otherwise
 * pd_spe_next_record()'s, byte for byte (tests/fuzz/fuzz_spe.c holds
 * them so on every input).
 */
PD_API int pd_spe_next_record_lean(struct pd_spe_cursor *c,
				   struct pd_spe_record *r, unsigned need);

/* The name of an architected event bit ("L1D-REFILL"), or NULL. */
PD_API const char *pd_spe_event_name(unsigned bit);

/* ---- AUXTRACE_INFO metadata ----------------------------------------- */

#define PD_AUXTRACE_ARM_SPE 4	/* AUXTRACE_INFO type */
#define PD_SPE_CPU_MAGIC 0x1010101010101010ull

/* One CPU of the per-CPU form.  Fields past nr_params are zero. */
struct pd_spe_cpu {
	uint64_t cpu;		/* logical CPU number */
	uint64_t nr_params;	/* values after the first three words */
	uint64_t midr;		/* MIDR_EL1 */
	uint64_t pmu_type;	/* its SPE PMU; UINT64_MAX: none */
	uint64_t min_interval;	/* the PMU's caps/min_interval */
	uint64_t event_filter;	/* caps/event_filter (version 2's later
				 * writers), 0 when absent */
};

/*
 * The SPE metadata of an AUXTRACE_INFO record.  Told apart as perf
 * tells them: a body of exactly two words is the original form (version
 * 1: PMU type and per-CPU mmaps); anything else starts with a version
 * (2 and up), a header size in words, the PMU type and the number of
 * CPUs, each CPU then being a magic, its number, its parameter count and
 * that many parameters.
 */
struct pd_spe_info {
	unsigned version;	/* 1, or the header's version */
	uint64_t pmu_type;	/* of the arm_spe_N event */
	uint64_t per_cpu_mmaps;	/* version 1 only */
	uint64_t header_size;	/* words; version 2+ */
	uint64_t nr_cpus;	/* CPUs described; 0 for version 1 */
	struct pd_u64s words;	/* the per-CPU part, version 2+ */
};

/*
 * Decode ai (type PD_AUXTRACE_ARM_SPE).  @return 0; PD_ERR_FORMAT with
 * the field named in pd_file_errmsg() when a size or count does not fit
 * the record, or a CPU's magic is wrong; PD_ERR_UNSUPPORTED when ai is
 * not SPE's.
 */
PD_API int pd_spe_info_decode(struct pd_file *f,
			      const struct pd_ev_auxtrace_info *ai,
			      struct pd_spe_info *out);

/* CPU i of info (i < nr_cpus), checked when decoded.  @return 0. */
PD_API int pd_spe_info_cpu(const struct pd_spe_info *info, uint64_t i,
			   struct pd_spe_cpu *out);

#ifdef __cplusplus
}
#endif

#endif /* PD_SPE_H */
