/*
 * pda_itrace.c - Arm SPE samples synthesized as perf 6.1's arm-spe.c
 * synthesizes them, or perf 7's with --spe-events 7 (pda_itrace.h says
 * which and with what).
 *
 * The whole trace is decoded when the run begins, into sample records
 * sorted by time: perf decodes its per-CPU queues lazily, interleaved
 * with the other records by timestamp, which gives the same order (a
 * record's samples come before any record of a later time) and the same
 * thread (the CPU's last context switch at or before the record's time).
 */
#include "pda_itrace.h"
#include "pda_base_int.h"
#include "pda_pipe.h"
#include "pdc_zero.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* perf's ids of its synthesized events: the SPE event's first id plus
 * this, one more per event (arm_spe_synth_events) */
#define SYNTH_ID_OFFSET 1000000000ull

/* ---- --itrace --------------------------------------------------------- */

static const char *const kind_names[PDA_ITRACE_NR_KINDS] = {
	"l1d-miss", "l1d-access",    "llc-miss", "llc-access",
	"tlb-miss", "tlb-access",    "branch-miss", "remote-access",
	"memory",   "instructions",
};

const char *pda_itrace_kind_name(enum pda_itrace_kind kind)
{
	return kind < PDA_ITRACE_NR_KINDS ? kind_names[kind] : "?";
}

const char *pda_itrace_event_name(const struct pda_itrace_opts *o,
				  enum pda_itrace_kind kind)
{
	if (o->perf7 && kind == PDA_ITRACE_BRANCH_MISS)
		return "branch";
	return pda_itrace_kind_name(kind);
}

int pda_itrace_set_events(const char *name, struct pda_itrace_opts *o,
			  char *err, size_t err_size)
{
	if (!strcmp(name, "6.1")) {
		o->perf7 = false;
	} else if (!strcmp(name, "7") || !strcmp(name, "7.2")) {
		o->perf7 = true;
	} else {
		snprintf(err, err_size,
			 "--spe-events '%s': 6.1 or 7 (perf 6.1's or perf "
			 "7's Arm SPE events)", name);
		return PD_ERR_API;
	}
	return 0;
}

int pda_itrace_parse(const char *spec, struct pda_itrace_opts *o, char *err,
		     size_t err_size)
{
	const char *p = spec;
	const bool perf7 = o->perf7;

	memset(o, 0, sizeof(*o));
	o->set = true;
	o->perf7 = perf7;
	while (p && *p) {
		const char c = *p++;

		switch (c) {
		case 'f': o->flc = true; break;
		case 'm': o->llc = true; break;
		case 't': o->tlb = true; break;
		case 'b': o->branch = true; break;
		case 'a': o->remote = true; break;
		case 'M': o->mem = true; break;
		case 'i': {
			char *end;

			o->instructions = true;
			if (*p < '0' || *p > '9')
				break;
			o->period = strtoull(p, &end, 10);
			p = end;
			/* perf's units: i(nstructions), t(icks), ms, us, ns;
			 * a bare number is in instructions */
			if (*p == 'i' || !*p || strchr("fmtbaMi", *p)) {
				o->period_insns = true;
				if (*p == 'i')
					p++;
			} else if (*p == 't') {
				p++;
			} else if ((p[0] == 'm' || p[0] == 'u' ||
				    p[0] == 'n') && p[1] == 's') {
				p += 2;
			}
			break;
		}
		case 'l': {
			/* perf's default size: PERF_ITRACE_DEFAULT_LAST_
			 * BRANCH_SZ; SPE fills two entries at most */
			char *end;
			unsigned long n = 64;

			if (*p >= '0' && *p <= '9') {
				n = strtoul(p, &end, 10);
				p = end;
			}
			if (!n || n > 1024) {
				snprintf(err, err_size,
					 "--itrace: l%lu: the branch stack "
					 "size is 1 to 1024", n);
				return PD_ERR_API;
			}
			o->last_branch = true;
			o->last_branch_sz = (unsigned)n;
			break;
		}
		case ',': case ' ': break;
		default:
			snprintf(err, err_size,
				 "--itrace: '%c' is not a kind of Arm SPE "
				 "sample (f, m, t, b, a, M, i[PERIOD], "
				 "l[SIZE])", c);
			return PD_ERR_API;
		}
	}
	return 0;
}

bool pda_itrace_wants(const struct pda_itrace_opts *o,
		      enum pda_itrace_kind kind)
{
	const bool dflt = !o->set;

	switch (kind) {
	case PDA_ITRACE_L1D_MISS: case PDA_ITRACE_L1D_ACCESS:
		return dflt || o->flc;
	case PDA_ITRACE_LLC_MISS: case PDA_ITRACE_LLC_ACCESS:
		return dflt || o->llc;
	case PDA_ITRACE_TLB_MISS: case PDA_ITRACE_TLB_ACCESS:
		return dflt || o->tlb;
	case PDA_ITRACE_BRANCH_MISS:
		return dflt || o->branch;
	case PDA_ITRACE_REMOTE_ACCESS:
		return dflt || o->remote;
	case PDA_ITRACE_MEMORY:
		return dflt || o->mem;
	case PDA_ITRACE_INSTRUCTIONS:
		/* perf 7: by default every record (i1i); a period in time
		 * fails the run (pda_itrace_new) */
		if (o->perf7)
			return dflt || o->instructions;
		/* perf 6.1 warns "Only instruction-based sampling period is
		 * currently supported" and makes none otherwise; its
		 * default period is in nanoseconds */
		return o->set && o->instructions && o->period_insns;
	case PDA_ITRACE_NR_KINDS:
	default:
		return false;
	}
}

/* ---- data_src (perf's union perf_mem_data_src) ----------------------- */

#define MEM_OP_NA 0x1ull
#define MEM_OP_LOAD 0x2ull
#define MEM_OP_STORE 0x4ull
#define LVL_NA 0x1ull
#define LVL_HIT 0x2ull
#define LVL_MISS 0x4ull
#define LVL_L1 0x8ull
#define LVL_L2 0x20ull
#define LVL_L3 0x40ull
#define LVL_LOC_RAM 0x80ull
#define LVL_LFB 0x10ull
#define LVL_REM_RAM1 0x100ull
#define LVL_REM_CCE1 0x400ull
#define LVL_REM_CCE2 0x800ull
#define LVL_IO 0x1000ull
#define SNOOP_HITM 0x10ull
#define LVLNUM_IO 0xaull
#define LVLNUM_ANY_CACHE 0xbull
#define SNOOP_NA 0x1ull
#define SNOOP_NONE 0x2ull
#define SNOOP_HIT 0x4ull
#define TLB_HIT 0x2ull
#define TLB_MISS 0x4ull
#define TLB_WK 0x20ull
#define LVLNUM_L1 0x1ull
#define LVLNUM_L2 0x2ull
#define LVLNUM_L3 0x3ull
#define LVLNUM_LFB 0xcull
#define LVLNUM_RAM 0xdull
#define LVLNUM_NA 0xfull
#define SNOOPX_PEER 0x2ull

/* the fields' places in the word */
#define DS_OP(v) ((uint64_t)(v) << 0)
#define DS_LVL(v) ((uint64_t)(v) << 5)
#define DS_SNOOP(v) ((uint64_t)(v) << 19)
#define DS_TLB(v) ((uint64_t)(v) << 26)
#define DS_LVLNUM(v) ((uint64_t)(v) << 33)
#define DS_REMOTE(v) ((uint64_t)(v) << 37)
#define DS_SNOOPX(v) ((uint64_t)(v) << 38)

/* perf's record types (arm-spe-decoder.h), from the EVENTS payload */
enum {
	T_L1D_MISS = 1u << 0,
	T_L1D_ACCESS = 1u << 1,
	T_TLB_MISS = 1u << 2,
	T_TLB_ACCESS = 1u << 3,
	T_BRANCH_MISS = 1u << 4,
	T_LLC_MISS = 1u << 5,
	T_LLC_ACCESS = 1u << 6,
	T_REMOTE_ACCESS = 1u << 7,
	T_MEM_KINDS = T_L1D_MISS | T_L1D_ACCESS | T_TLB_MISS | T_TLB_ACCESS |
		      T_LLC_MISS | T_LLC_ACCESS,
};

/* The record types of an EVENTS payload e. */
static unsigned events_type(uint64_t e)
{
	unsigned t = 0;

#define EV(bit) (e & (1ull << PD_SPE_EV_##bit))
	t |= EV(L1D_REFILL) ? T_L1D_MISS : 0;
	t |= EV(L1D_ACCESS) ? T_L1D_ACCESS : 0;
	t |= EV(TLB_WALK) ? T_TLB_MISS : 0;
	t |= EV(TLB_ACCESS) ? T_TLB_ACCESS : 0;
	t |= EV(LLC_MISS) ? T_LLC_MISS : 0;
	t |= EV(LLC_ACCESS) ? T_LLC_ACCESS : 0;
	t |= EV(REMOTE_ACCESS) ? T_REMOTE_ACCESS : 0;
	t |= EV(MISPRED) ? T_BRANCH_MISS : 0;
#undef EV
	return t;
}

/* events_type() reads bits 2 to 10 only: by a table of them */
#define TYPE_SHIFT 2
#define NR_TYPE_BITS 9
_Static_assert(PD_SPE_EV_L1D_ACCESS == TYPE_SHIFT &&
		       PD_SPE_EV_REMOTE_ACCESS == TYPE_SHIFT + NR_TYPE_BITS - 1,
	       "events_type() reads bits 2 to 10 (L1D-ACCESS to REMOTE)");

static unsigned record_type(const struct pd_spe_record *r)
{
	return events_type(r->mask & PD_SPE_HAS_EVENTS ? r->events : 0);
}

/*
 * The CPUs whose data source packets use the common encoding (perf's
 * common_ds_encoding_cpus since 6.10: perf 6.1's neoverse_spe list, N1,
 * N2 and V1, and Neoverse V2, Cortex-A720, A725, X1C, X3, X925), any
 * variant and revision.  perf 6.1 takes the level of a V2 (Graviton 4)
 * or Cortex record from its events, which its data source says better.
 */
static bool is_common_ds(uint64_t midr)
{
	static const unsigned parts[] = {
		0xd0c, /* Neoverse N1 */
		0xd49, /* Neoverse N2 */
		0xd40, /* Neoverse V1 */
		0xd4f, /* Neoverse V2 */
		0xd81, /* Cortex-A720 */
		0xd87, /* Cortex-A725 */
		0xd4c, /* Cortex-X1C */
		0xd4e, /* Cortex-X3 */
		0xd85, /* Cortex-X925 */
	};
	const unsigned impl = (unsigned)(midr >> 24) & 0xff;
	const unsigned part = (unsigned)(midr >> 4) & 0xfff;

	if (impl != 0x41)
		return false;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (part == parts[i])
			return true;
	return false;
}

/* AmpereOne (AMPERE1A: implementer 0xc0, part 0xac4), whose data
 * sources perf (>= 6.12) maps onto the common ones */
static bool is_ampereone(uint64_t midr)
{
	return ((midr >> 24) & 0xff) == 0xc0 && ((midr >> 4) & 0xfff) == 0xac4;
}

/* HiSilicon HIP12 (implementer 0x48, part 0xd06), whose data sources
 * perf 7 reads by its own table (arm_spe__synth_data_source_hisi_hip);
 * perf 7.2 takes HIP08 (TSV110, 0xd01) and HIP09 (0xd02) records' levels
 * from their events */
static bool is_hisi_hip(uint64_t midr)
{
	return ((midr >> 24) & 0xff) == 0x48 && ((midr >> 4) & 0xfff) == 0xd06;
}

/* A HiSilicon HIP data source (perf's ARM_SPE_HISI_HIP_*) as perf's
 * level, level number, snoop, remote and peer snoop; 0 for a code perf
 * does not list.  Its *_HITM twins: the line was modified there. */
static uint64_t hisi_level(unsigned source)
{
	const uint64_t l2 = DS_LVL(LVL_L2 | LVL_HIT) | DS_LVLNUM(LVLNUM_L2);
	const uint64_t l3 = DS_LVL(LVL_L3 | LVL_HIT) | DS_LVLNUM(LVLNUM_L3);
	const uint64_t cluster = DS_LVL(LVL_REM_CCE1 | LVL_HIT) |
				 DS_LVLNUM(LVLNUM_L3) | DS_SNOOPX(SNOOPX_PEER);
	const uint64_t socket = DS_LVL(LVL_REM_CCE2) |
				DS_LVLNUM(LVLNUM_ANY_CACHE) | DS_REMOTE(1u) |
				DS_SNOOPX(SNOOPX_PEER);

	switch (source) {
	case 0: /* peer CPU */
		return l2 | DS_SNOOPX(SNOOPX_PEER);
	case 1:
		return l2 | DS_SNOOPX(SNOOPX_PEER) | DS_SNOOP(SNOOP_HITM);
	case 2: /* L3 */
		return l3 | DS_SNOOP(SNOOP_HIT);
	case 3:
		return l3 | DS_SNOOP(SNOOP_HITM);
	case 4: /* a peer cluster */
		return cluster;
	case 5:
		return cluster | DS_SNOOP(SNOOP_HITM);
	case 6: /* the other socket's caches */
		return socket;
	case 7:
		return socket | DS_SNOOP(SNOOP_HITM);
	case 8: /* local memory */
		return DS_LVL(LVL_LOC_RAM | LVL_HIT) | DS_LVLNUM(LVLNUM_RAM) |
		       DS_SNOOP(SNOOP_NONE);
	case 9: /* remote memory */
		return DS_LVL(LVL_REM_RAM1 | LVL_HIT) | DS_LVLNUM(LVLNUM_RAM) |
		       DS_REMOTE(1u);
	case 13: /* a non-cacheable device */
		return DS_LVL(LVL_IO | LVL_HIT) | DS_LVLNUM(LVLNUM_IO) |
		       DS_SNOOP(SNOOP_NONE);
	case 16: /* L2 */
		return l2 | DS_SNOOP(SNOOP_NONE);
	case 17:
		return l2 | DS_SNOOP(SNOOP_HITM);
	case 18: /* L1 */
		return DS_LVL(LVL_L1 | LVL_HIT) | DS_LVLNUM(LVLNUM_L1) |
		       DS_SNOOP(SNOOP_NONE);
	default:
		return 0;
	}
}

/* The common data sources (the Neoverse TRMs; perf's ARM_SPE_NV_*,
 * later ARM_SPE_COMMON_DS_*) */
enum {
	NV_L1D = 0x0,
	NV_L2 = 0x8,
	NV_PEER_CORE = 0x9,
	NV_LOCAL_CLUSTER = 0xa,
	NV_SYS_CACHE = 0xb,
	NV_PEER_CLUSTER = 0xc,
	NV_REMOTE = 0xd,
	NV_DRAM = 0xe,
};

/* AmpereOne's own data sources (perf's ARM_SPE_AMPEREONE_*) as the
 * common ones; -1 for one it does not list */
static int ampereone_source(unsigned source)
{
	switch (source) {
	case 0x0: /* local chip cache or device */
		return NV_PEER_CORE;
	case 0x3: /* SLC */
		return NV_SYS_CACHE;
	case 0x5: /* remote chip cache */
		return NV_REMOTE;
	case 0x7: /* DDR */
		return NV_DRAM;
	case 0x8: /* L1D */
		return NV_L1D;
	case 0x9: /* L2D */
		return NV_L2;
	default:
		return -1;
	}
}

static uint64_t neoverse_level(unsigned source, bool has_source, bool store)
{
	/* Neoverse records say nothing of where a store went */
	if (store)
		return DS_LVL(LVL_NA) | DS_LVLNUM(LVLNUM_NA) |
		       DS_SNOOP(SNOOP_NA);
	if (!has_source)
		return 0;
	switch (source) {
	case NV_L1D:
		return DS_LVL(LVL_L1 | LVL_HIT) | DS_LVLNUM(LVLNUM_L1) |
		       DS_SNOOP(SNOOP_NONE);
	case NV_L2:
		return DS_LVL(LVL_L2 | LVL_HIT) | DS_LVLNUM(LVLNUM_L2) |
		       DS_SNOOP(SNOOP_NONE);
	case NV_PEER_CORE:
		return DS_LVL(LVL_L2 | LVL_HIT) | DS_LVLNUM(LVLNUM_L2) |
		       DS_SNOOPX(SNOOPX_PEER);
	/* L1 or L2 of another core, by a cache-to-cache transfer */
	case NV_LOCAL_CLUSTER:
	case NV_PEER_CLUSTER:
		return DS_LVL(LVL_L3 | LVL_HIT) | DS_LVLNUM(LVLNUM_L3) |
		       DS_SNOOPX(SNOOPX_PEER);
	/* the system cache, taken as L3 */
	case NV_SYS_CACHE:
		return DS_LVL(LVL_L3 | LVL_HIT) | DS_LVLNUM(LVLNUM_L3) |
		       DS_SNOOP(SNOOP_HIT);
	/* the other socket, at a level unknown (perf 6.1 says none) */
	case NV_REMOTE:
		return DS_LVL(LVL_NA) | DS_LVLNUM(LVLNUM_NA) | DS_REMOTE(1u) |
		       DS_SNOOPX(SNOOPX_PEER);
	case NV_DRAM:
		return DS_LVL(LVL_LOC_RAM | LVL_HIT) | DS_LVLNUM(LVLNUM_RAM) |
		       DS_SNOOP(SNOOP_NONE);
	default:
		return 0;
	}
}

/* Without a known data source: the farthest level the events name. */
static uint64_t generic_level(unsigned t)
{
	uint64_t lvl = 0;

	if (t & (T_LLC_ACCESS | T_LLC_MISS))
		lvl = LVL_L3 | (t & T_LLC_MISS ? LVL_MISS : LVL_HIT);
	else if (t & (T_L1D_ACCESS | T_L1D_MISS))
		lvl = LVL_L1 | (t & T_L1D_MISS ? LVL_MISS : LVL_HIT);
	/* perf 6.1: remote, at whatever level */
	return DS_LVL(lvl) | (t & T_REMOTE_ACCESS ? DS_REMOTE(1u) : 0);
}

/* perf 6.1 knows a load or a store only from the load/store class's
 * first bit (arm-spe-decoder.c): every other op is none */
static int record_op(const struct pd_spe_record *r)
{
	if (!(r->mask & PD_SPE_HAS_OP) || r->op_class != PD_SPE_OP_LDST)
		return 0;
	return r->op_raw & 1 ? 2 : 1;
}

/* How a CPU model's data sources read: a queue's, found once */
enum ds_model { DSM_EVENTS, DSM_COMMON, DSM_HISI, DSM_AMPERE };

static enum ds_model ds_model_of(uint64_t midr)
{
	return is_common_ds(midr)  ? DSM_COMMON
	       : is_hisi_hip(midr) ? DSM_HISI
	       : is_ampereone(midr) ? DSM_AMPERE
				    : DSM_EVENTS;
}

/* pda_itrace_spe_data_src() of a load or store (op: record_op()) whose
 * record_type() is t, on a CPU of model m */
static uint64_t data_src_of(const struct pd_spe_record *r, enum ds_model m,
			    int op, unsigned t)
{
	uint64_t ds;

	ds = DS_OP(op == 1 ? MEM_OP_LOAD : MEM_OP_STORE);
	if (m == DSM_COMMON) {
		ds |= neoverse_level(r->source,
				     (r->mask & PD_SPE_HAS_SOURCE) != 0,
				     op == 2);
	} else if (m == DSM_HISI) {
		/* a store: as the common encoding's (no level) */
		ds |= op == 2 ? neoverse_level(0, false, true)
			      : r->mask & PD_SPE_HAS_SOURCE
					? hisi_level(r->source)
					: 0;
	} else if (m == DSM_AMPERE) {
		/* a source AmpereOne does not list: no level (perf warns
		 * once), as a store's */
		const int src = r->mask & PD_SPE_HAS_SOURCE
					? ampereone_source(r->source)
					: -1;

		ds |= neoverse_level(src < 0 ? 0 : (unsigned)src, src >= 0,
				     op == 2);
	} else {
		ds |= generic_level(t);
	}
	if (t & (T_TLB_ACCESS | T_TLB_MISS))
		ds |= DS_TLB(TLB_WK | (t & T_TLB_MISS ? TLB_MISS : TLB_HIT));
	return ds;
}

uint64_t pda_itrace_spe_data_src(const struct pd_spe_record *r,
				 uint64_t midr)
{
	const int op = record_op(r);

	return op ? data_src_of(r, ds_model_of(midr), op, record_type(r)) : 0;
}

/* ---- data_src, perf 7 ------------------------------------------------ */

/* the event bits perf 7 reads besides record_type()'s */
#define EVB(r, bit)                                                         \
	(((r)->mask & PD_SPE_HAS_EVENTS) &&                                 \
	 ((r)->events & (1ull << PD_SPE_EV_##bit)))

/* a hit at a level: its access event without its miss */
#define HIT_AT(r, acc, miss) (EVB(r, acc) && !EVB(r, miss))

/* perf 7's level from the events, where the model gave none
 * (arm_spe__synth_ld_memory_level, _st_memory_level): a load's nearest
 * hit, else its farthest miss; a store's farthest level named */
static uint64_t events_level7(const struct pd_spe_record *r, bool store)
{
	if (store) {
		if (EVB(r, LLC_ACCESS) || EVB(r, LLC_MISS))
			return DS_LVL(LVL_L3 | (EVB(r, LLC_MISS) ? LVL_MISS
								  : LVL_HIT)) |
			       DS_LVLNUM(LVLNUM_L3);
		if (EVB(r, L2D_ACCESS) || EVB(r, L2D_MISS))
			return DS_LVL(LVL_L2 | (EVB(r, L2D_MISS) ? LVL_MISS
								  : LVL_HIT)) |
			       DS_LVLNUM(LVLNUM_L2);
		if (EVB(r, L1D_ACCESS) || EVB(r, L1D_REFILL))
			return DS_LVL(LVL_L1 | (EVB(r, L1D_REFILL) ? LVL_MISS
								    : LVL_HIT)) |
			       DS_LVLNUM(LVLNUM_L1);
		return 0;
	}
	if (HIT_AT(r, L1D_ACCESS, L1D_REFILL))
		return DS_LVL(LVL_L1 | LVL_HIT) | DS_LVLNUM(LVLNUM_L1);
	if (EVB(r, RECENTLY_FETCHED))
		return DS_LVL(LVL_LFB | LVL_HIT) | DS_LVLNUM(LVLNUM_LFB);
	if (HIT_AT(r, L2D_ACCESS, L2D_MISS))
		return DS_LVL(LVL_L2 | LVL_HIT) | DS_LVLNUM(LVLNUM_L2);
	if (HIT_AT(r, LLC_ACCESS, LLC_MISS))
		return DS_LVL(LVL_L3 | LVL_HIT) | DS_LVLNUM(LVLNUM_L3);
	if (EVB(r, LLC_MISS))
		return DS_LVL(LVL_L3 | LVL_MISS) | DS_LVLNUM(LVLNUM_L3);
	if (EVB(r, L2D_MISS))
		return DS_LVL(LVL_L2 | LVL_MISS) | DS_LVLNUM(LVLNUM_L2);
	if (EVB(r, L1D_REFILL))
		return DS_LVL(LVL_L1 | LVL_MISS) | DS_LVLNUM(LVLNUM_L1);
	return 0;
}

/*
 * perf 7's data_src (arm_spe__synth_data_source): the model's table as
 * perf >= 6.13's, then what it left unsaid from the events: the level
 * (events_level7(), else N/A), the snoop (DATA-SNOOPED: hit, HITM with
 * CACHE-DATA-MODIFIED; else none where the CPU's event filter shows it
 * reports snoops, N/A otherwise) and a remote access.
 */
uint64_t pda_itrace_spe_data_src7(const struct pd_spe_record *r,
				  uint64_t midr, bool reports_snoops)
{
	uint64_t ds = pda_itrace_spe_data_src(r, midr);
	const bool store = (ds & DS_OP(MEM_OP_STORE)) != 0;

	if (!ds)
		return 0;
	if (!is_common_ds(midr) && !is_ampereone(midr) && !is_hisi_hip(midr))
		/* no model: pda_itrace_spe_data_src took perf 6.1's level
		 * from the events; perf 7 takes its own */
		ds &= ~(DS_LVL(0x3fffu) | DS_REMOTE(1u));
	if (!(ds & DS_LVL(0x3fffu))) {
		const uint64_t lvl = events_level7(r, store);

		ds |= lvl ? lvl : DS_LVL(LVL_NA) | DS_LVLNUM(LVLNUM_NA);
	}
	if (!(ds & DS_SNOOP(0x1fu))) {
		if (EVB(r, DATA_SNOOPED))
			ds |= DS_SNOOP(EVB(r, CACHE_DATA_MODIFIED) ? 0x10u
								 : SNOOP_HIT);
		else
			ds |= DS_SNOOP(reports_snoops ? SNOOP_NONE : SNOOP_NA);
	}
	if (!(ds & DS_REMOTE(1u)) && EVB(r, REMOTE_ACCESS))
		ds |= DS_REMOTE(1u);
	return ds;
}

/* ---- the trace -------------------------------------------------------- */

/* One AUXTRACE buffer of a queue: its trace bytes (the file's mapping,
 * or a copy where the reader had them only in passing), its place in
 * the file's order of buffers. */
struct qbuf {
	const unsigned char *data;
	size_t size;
	uint64_t data_off;	/* the payload's file offset: alignment */
	uint64_t order;		/* among all the capture's buffers */
	bool owned;		/* data is a copy of ours */
};

/* The bytes of a synthesized SAMPLE: header, the 12 fields at most
 * encode() writes, a branch stack of 2 entries (nr, hw_idx, 2 * 24),
 * the flags after them. */
#define SYNTH_MAX (8 + 13 * 8 + 16 + 2 * 24)

/* A branch stack entry as perf's struct branch_entry: from, to, and
 * the flags word (perf's struct branch_flags, whose bit 33 is the
 * tool's not_taken), laid out as a SAMPLE record in the host's order
 * holds it (pd_sample.branch.entries may point at these) */
struct synth_br {
	uint64_t from, to, flags;
};

/* The fields of one sample, before encoding. */
struct synth {
	uint64_t ip, time, addr, phys, period, weight, data_src;
	uint32_t pid, tid, cpu;
	uint32_t flags;		/* pd_ip_flags (pd_sample.flags) */
	uint16_t misc;
	unsigned nr_br;		/* with BRANCH_STACK: br[0..nr_br) */
	struct synth_br br[2];	/* the branch, the previous target */
};

/* A sample made and not yet handed out, and where it goes in time
 * order: time, then (timeless) the queue, then the file's order of
 * buffers, records and samples (what a global sort of the samples by
 * time and the order they were made in gives).  Kept as its fields:
 * the pipeline takes them as a decoded sample (pda_itrace_next_sample),
 * and only pda_itrace_next() encodes a SAMPLE record of them. */
struct out {
	uint64_t time, major, order, rec, nth;
	uint8_t kind;		/* enum pda_itrace_kind */
	/* grouping (pda_itrace_set_groups): the samples it stands for
	 * (else 1), and their epoch (the sideband bounds before them) */
	uint32_t n, epoch;
	/* the sample as pda_itrace_next_sample() hands it out (its branch
	 * entries br), made where it is made (on a decoding thread, with
	 * jobs): the caller's thread takes it in place (out_sample, with
	 * its memset, was a tenth of that thread under `report
	 * --itrace=M -j2`); encode() writes its record of it */
	struct pd_sample s;
	struct synth_br br[2];
};

/*
 * A queue's samples are made a chunk at a time: records decoded until
 * the next one's samples (one per kind at most) might not fit.  Where
 * the chunk ends depends on the queue's records alone, so the same
 * samples fall in the same chunks whoever decodes them: the caller's
 * thread when it needs the chunk, or a decoding thread ahead of it
 * (pda_itrace_set_jobs: each CPU's trace is independent of the others').
 * What decoding counted goes with its chunk into the statistics as the
 * chunk is handed out, so they too are the same for any jobs.
 */
#define CHUNK_OUTS 256
/* chunks a queue keeps decoded ahead with decoding threads (memory:
 * CHUNK_DEPTH * CHUNK_OUTS * sizeof(struct out), ~1 MB a queue); a
 * thread that found its queues full sleeps until one is half empty, so
 * that it wakes for several chunks, not for each */
#define CHUNK_DEPTH 8
/* grouping: the records a chunk decodes at most (its samples joining a
 * few groups, a queue's trace could be one chunk: no decoding ahead of
 * the caller's thread) and its index of groups, at most a quarter
 * full */
#define CHUNK_RECORDS 8192
#define GROUP_SLOTS 1024

struct chunk {
	struct pda_itrace_stats st;	/* what making it decoded */
	unsigned n;			/* out[0..n) */
	bool end;			/* the queue's last */
	struct out out[CHUNK_OUTS];
};

struct queue {
	uint32_t idx;		/* AUXTRACE idx: perf's queue */
	uint32_t cpu, tid;	/* of its buffers (-1: none) */
	int32_t cur_tid;	/* CONTEXT's, carried to the next records */
	uint32_t last_tid, last_pid; /* pid_of()'s last answer here */
	uint64_t insns;		/* records since the last instructions
				 * sample */
	bool started;		/* timeless: its first "record" made */
	struct qbuf *bufs;
	size_t nr_bufs, alloc_bufs;
	/* decoding: the buffer under way, its cursor, the record's index
	 * in it (0: the timeless queue's empty first record), the chunk
	 * being made */
	size_t cur;
	bool open, done;
	struct pd_spe_cursor c;
	uint64_t rec;
	struct chunk *wr;
	uint64_t order;		/* of the buffer under way (emit) */
	/* the ring of chunks: made [made - depth, made), handed out up to
	 * taken (the one at taken - 1 is being handed out, from pos); made
	 * and taken under the trace's lock with decoding threads */
	struct chunk **ring;
	uint64_t made, taken;
	unsigned pos;
	struct chunk *out_ch;	/* the one at taken - 1; NULL before */
	bool finished;		/* its last chunk taken and handed out */
	enum ds_model model;	/* of queue_midr(), set by start() */
	/* grouping: the chunk under way's groups by key (out + 1; 0
	 * empty), and the last epoch found, [ep_lo, ep_hi) its times */
	uint64_t ep_lo, ep_hi;
	uint32_t ep;
	uint16_t gslot[GROUP_SLOTS];
};
struct sw {			/* a context switch out: who runs next */
	uint64_t time;
	uint32_t cpu, pid, tid;
};

struct tidpid {
	uint32_t tid, pid;
};


struct cpu_midr {
	uint64_t cpu, midr;
	uint64_t event_filter;	/* caps/event_filter; 0: none given */
};

struct pda_itrace {
	struct pda_session *s;
	struct pd_file *f;
	struct pda_itrace_opts o;
	const struct pd_evsel *spe;	/* the arm_spe_N event */
	const struct pd_evsel *ev[PDA_ITRACE_NR_KINDS]; /* NULL: not made */
	uint64_t first_id;	/* of ev[]: perf's ids */
	uint64_t nr_ids;
	uint64_t sample_type;
	bool timeless;
	bool swap;		/* the file's order is not the host's */
	bool use_ctx;		/* CONTEXT packets give the tid */
	uint64_t midr;		/* env's CPUID (perf 6.1 reads that) */
	/* The per-CPU metadata (version 2+, perf >= 6.13): each CPU's
	 * MIDR, which decides its records' data sources there */
	unsigned meta_version;
	struct cpu_midr *cpu_midr;
	size_t nr_cpu_midr, alloc_cpu_midr;
	struct pd_ev_time_conv tc;
	bool have_tc;
	struct queue *q;
	size_t nr_q, alloc_q;
	struct sw *sw;
	size_t nr_sw, alloc_sw;
	struct tidpid *tp;
	size_t nr_tp, alloc_tp;
	uint64_t nr_bufs;	/* AUXTRACE buffers seen, all queues */
	/* the record types (T_*) whose samples --itrace selects among
	 * the event-driven kinds: a record of none of them, no memory
	 * sample and no instructions makes nothing (synth_record) */
	unsigned want_types;
	/* events_type() of each value of the payload's bits it reads:
	 * a record's types by a load, not eight tests */
	uint8_t types[1u << NR_TYPE_BITS];
	struct pda_itrace_stats st;
	/* decoding threads (pda_itrace_set_jobs): nr_threads of them,
	 * each making the chunks of queues i with i % nr_threads its
	 * index; started at the first pda_itrace_next() */
	unsigned jobs, depth, nr_threads;
	pthread_t *threads;
	struct thread_arg {
		struct pda_itrace *it;
		unsigned self;
		/* it sleeps on its own cv (waits): a chunk taken wakes
		 * the one thread that decodes its queue, not all of
		 * them, which found nothing to do and slept again */
		bool waits;
		pthread_cond_t taken_cv;
	} *thread_args;
	bool running, stop;
	/* who sleeps: the caller on made_cv for the queue it waits on
	 * (NULL: none), decoding threads on their taken_cv (woken only
	 * then, and only for their queue: a wake is a system call) */
	const struct queue *consumer_waits;
	pthread_mutex_t mu;
	pthread_cond_t made_cv;
	bool sync_init;
	char *err;
	size_t err_size;
	/* next_out()'s last choice and the head it beat (NULL: none):
	 * only that queue's head moved since, so its next sample goes out
	 * while it is still before the runner-up's, without looking at
	 * the other queues (no two queues' samples tie: their buffers'
	 * order differs) */
	struct queue *last;
	const struct out *rival;
	/* pda_itrace_set_groups(): grouping on, bounds[0..nr_bounds) the
	 * sideband's times, which kinds group (no pointer in their
	 * samples) */
	bool grouping;
	bool mem_groups;	/* and the memory kind's alone joins (fill) */
	const uint64_t *bounds;
	size_t nr_bounds;
	bool group_kind[PDA_ITRACE_NR_KINDS];
	unsigned char rec_buf[SYNTH_MAX]; /* pda_itrace_next()'s record */
	struct pd_sample swapped; /* pda_itrace_next_decoded()'s, decoded
				   * from rec_buf (swap) */
};

/* perf's tsc_to_perf_time() */
static uint64_t to_perf_time(const struct pda_itrace *it, uint64_t cyc)
{
	const struct pd_ev_time_conv *tc = &it->tc;
	uint64_t quot, rem;

	if (!it->have_tc)
		return cyc;
	if (tc->has_long && tc->cap_user_time_short)
		cyc = tc->time_cycles + ((cyc - tc->time_cycles) & tc->time_mask);
	if (tc->time_shift >= 64)
		return tc->time_zero;
	quot = cyc >> tc->time_shift;
	rem = cyc & ((1ull << tc->time_shift) - 1);
	return tc->time_zero + quot * tc->time_mult +
	       ((rem * tc->time_mult) >> tc->time_shift);
}

/* rc, with why (and the record's offset, when off is not UINT64_MAX) */
static int failed(struct pda_itrace *it, int rc, const char *why,
		  uint64_t off)
{
	if (it->err && it->err_size && off != UINT64_MAX)
		snprintf(it->err, it->err_size, "%s at offset 0x%llx", why,
			 (unsigned long long)off);
	else if (it->err && it->err_size)
		snprintf(it->err, it->err_size, "%s", why);
	return rc;
}

static struct queue *queue_of(struct pda_itrace *it,
			      const struct pd_ev_auxtrace *a)
{
	for (size_t i = 0; i < it->nr_q; i++)
		if (it->q[i].idx == a->idx)
			return &it->q[i];
	if (PDA_GROW(it->s, it->q, it->alloc_q, it->nr_q + 1, 1u << 20) < 0)
		return NULL;
	it->q[it->nr_q] = (struct queue){.idx = a->idx, .cpu = a->cpu,
					 .tid = a->tid, .cur_tid = -1,
					 .last_tid = UINT32_MAX,
					 .last_pid = UINT32_MAX,
					 .ep_lo = 1};
	return &it->q[it->nr_q++];
}

static int cmp_sw(const void *a, const void *b)
{
	const struct sw *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

static int cmp_tp(const void *a, const void *b)
{
	const struct tidpid *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}


/* The pid of a thread as the sideband names it; -1 unknown (perf makes
 * the thread then, without a pid). */
static uint32_t pid_of(const struct pda_itrace *it, uint32_t tid)
{
	const struct tidpid key = {.tid = tid};
	const struct tidpid *tp;

	if (tid == UINT32_MAX || !it->nr_tp)
		return UINT32_MAX;
	tp = bsearch(&key, it->tp, it->nr_tp, sizeof(*tp), cmp_tp);
	return tp ? tp->pid : UINT32_MAX;
}

/* The thread on cpu at time t by the switches: the next of the last one
 * out at or before t; else none. */
static const struct sw *switched_to(const struct pda_itrace *it,
				    uint32_t cpu, uint64_t t)
{
	size_t lo = 0, hi = it->nr_sw;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sw *m = &it->sw[mid];

		if (m->cpu < cpu || (m->cpu == cpu && m->time <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || it->sw[lo - 1].cpu != cpu)
		return NULL;
	return &it->sw[lo - 1];
}

static void put64(unsigned char **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

static void put32x2(unsigned char **p, uint32_t a, uint32_t b)
{
	memcpy(*p, &a, 4);
	memcpy(*p + 4, &b, 4);
	*p += 8;
}

/* One sample of kind k as a SAMPLE record in the host's byte order (the
 * reader swaps only what came from a file of the other order) into rec,
 * the flags in a u64 after the fields (pd_sample_decode reads them there
 * for a synthesized event); its size. */
static uint16_t encode(const struct pda_itrace *it, const struct out *o,
		       unsigned char rec[SYNTH_MAX])
{
	const enum pda_itrace_kind k = (enum pda_itrace_kind)o->kind;
	const struct pd_sample *y = &o->s;
	const uint64_t st = it->ev[k]->attr.sample_type;
	unsigned char *p = rec + 8;
	const uint64_t id = it->ev[k]->ids[0];
	uint16_t hdr16[2] = {PD_REC_SAMPLE, y->misc};
	uint16_t size;

	if (st & PD_SAMPLE_IDENTIFIER)
		put64(&p, id);
	if (st & PD_SAMPLE_IP)
		put64(&p, y->ip);
	if (st & PD_SAMPLE_TID)
		put32x2(&p, y->pid, y->tid);
	if (st & PD_SAMPLE_TIME)
		put64(&p, y->time);
	if (st & PD_SAMPLE_ADDR)
		put64(&p, y->addr);
	if (st & PD_SAMPLE_ID)
		put64(&p, id);
	if (st & PD_SAMPLE_STREAM_ID)
		put64(&p, id);
	if (st & PD_SAMPLE_CPU)
		put32x2(&p, y->cpu, 0);
	if (st & PD_SAMPLE_PERIOD)
		put64(&p, y->period);
	if (st & PD_SAMPLE_BRANCH_STACK) {
		put64(&p, y->branch.nr);
		if (it->ev[k]->attr.branch_sample_type &
		    PD_BRANCH_SAMPLE_HW_INDEX)
			put64(&p, UINT64_MAX); /* perf's -1: no index */
		for (unsigned i = 0; i < y->branch.nr; i++) {
			put64(&p, o->br[i].from);
			put64(&p, o->br[i].to);
			put64(&p, o->br[i].flags);
		}
	}
	if (st & PD_SAMPLE_WEIGHT_STRUCT)
		put64(&p, y->weight);
	if (st & PD_SAMPLE_DATA_SRC)
		put64(&p, y->data_src);
	if (st & PD_SAMPLE_PHYS_ADDR)
		put64(&p, y->phys_addr);
	put64(&p, y->flags);
	size = (uint16_t)(p - rec);
	{
		const uint32_t type = PD_REC_SAMPLE;

		memcpy(rec, &type, 4);
		memcpy(rec + 4, &hdr16[1], 2);
		memcpy(rec + 6, &size, 2);
	}
	return size;
}

/*
 * y of kind k as o's sample, as pd_sample_decode() gives the record
 * encode() makes of it, field for field (tests/fuzz/fuzz_spe_synth.c
 * holds them equal): the event is the kind's (check_ids), the fields in
 * the host's order.  Its branch entries go to o.
 */
static inline void out_sample(const struct pda_itrace *it,
			      enum pda_itrace_kind k, const struct synth *y,
			      struct out *o)
{
	const struct pd_evsel *e = it->ev[k];
	const uint64_t st = e->attr.sample_type;
	struct pd_sample *s = &o->s;

	/* 16-byte stores (a memset() of it, a `rep stos`, was ~52
	 * instructions of each sample's ~1,000 under --itrace=M) */
	pdc_zero(s, sizeof(*s));
	s->mask = st;
	s->evsel = e;
	s->misc = y->misc;
	if (st & (PD_SAMPLE_IDENTIFIER | PD_SAMPLE_ID))
		s->id = e->ids[0];
	if (st & PD_SAMPLE_STREAM_ID)
		s->stream_id = e->ids[0];
	s->ip = y->ip;			/* IP, TID, ADDR, PERIOD: always */
	s->pid = y->pid;
	s->tid = y->tid;
	if (st & PD_SAMPLE_TIME)
		s->time = y->time;
	s->addr = y->addr;
	if (st & PD_SAMPLE_CPU)
		s->cpu = y->cpu;
	s->period = y->period;
	if (st & PD_SAMPLE_BRANCH_STACK) {
		s->branch.nr = y->nr_br;
		if (e->attr.branch_sample_type & PD_BRANCH_SAMPLE_HW_INDEX) {
			s->branch.has_hw_idx = 1;
			s->branch.hw_idx = UINT64_MAX;
		}
		memcpy(o->br, y->br, y->nr_br * sizeof(o->br[0]));
		s->branch.entries = (const unsigned char *)o->br;
	}
	s->weight = y->weight;		/* WEIGHT_STRUCT */
	s->weight_var1 = (uint32_t)y->weight;
	s->weight_var2 = (uint16_t)(y->weight >> 32);
	s->weight_var3 = (uint16_t)(y->weight >> 48);
	s->data_src = y->data_src;
	s->phys_addr = y->phys;
	s->flags = y->flags;
}

/* The epoch of a sample of q at time t: the sideband bounds at or
 * before t (pda_capture's epoch_of(): a synthesized sample comes after
 * the records of its time); most samples fall in q's last one. */
static uint32_t epoch_at(const struct pda_itrace *it, struct queue *q,
			 uint64_t t)
{
	size_t lo = 0, hi = it->nr_bounds;

	if (q->ep_lo <= t && t < q->ep_hi)
		return q->ep;
	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;

		if (it->bounds[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	q->ep = (uint32_t)lo;
	q->ep_lo = lo ? it->bounds[lo - 1] : 0;
	q->ep_hi = lo < it->nr_bounds ? it->bounds[lo] : UINT64_MAX;
	return q->ep;
}

/* Grouping: y (of kind k, epoch ep) counted into its group in q's chunk
 * under way, true; false when it has none (then *slot is where its
 * group goes).  The key is what pda_capture's groups compare: the cpu
 * is q's, misc follows ip, the event and its mask k. */
static inline bool group_join(const struct queue *q, enum pda_itrace_kind k,
			      uint64_t ip, uint32_t tid, uint32_t pid,
			      uint64_t period, uint32_t flags, uint32_t ep,
			      size_t *slot)
{
	const uint64_t h = (ip >> 2) ^ (ip >> 11) ^
			   (uint64_t)tid * 0x9e3779b97f4a7c15ull ^
			   (uint64_t)(k + 1) * 0x85ebca6bull;
	size_t i = (size_t)(h ^ h >> 29) & (GROUP_SLOTS - 1);

	for (; q->gslot[i]; i = (i + 1) & (GROUP_SLOTS - 1)) {
		struct out *o = &q->wr->out[q->gslot[i] - 1];

		if (o->s.ip == ip && o->kind == k && o->epoch == ep &&
		    o->s.tid == tid && o->s.pid == pid &&
		    o->s.period == period && o->s.flags == flags) {
			o->n++;
			return true;
		}
	}
	*slot = i;
	return false;
}

static int emit(const struct pda_itrace *it, struct queue *q,
		enum pda_itrace_kind k, const struct synth *y, uint64_t seq)
{
	struct chunk *ch = q->wr;
	struct out *o;
	uint32_t ep = 0;
	size_t slot = 0;

	if (it->grouping && it->group_kind[k]) {
		ep = epoch_at(it, q, y->time);
		if (group_join(q, k, y->ip, y->tid, y->pid, y->period,
			       y->flags, ep, &slot)) {
			ch->st.nr_samples++;
			ch->st.by_kind[k]++;
			return 0;
		}
	}
	if (ch->n == CHUNK_OUTS)
		return PD_ERR_API; /* more samples than kinds: cannot be */
	if (it->grouping && it->group_kind[k])
		q->gslot[slot] = (uint16_t)(ch->n + 1);
	o = &ch->out[ch->n++];
	o->n = 1;
	o->epoch = ep;
	o->time = y->time;
	o->major = it->timeless ? (uint64_t)(q - it->q) : 0;
	o->order = q->order;
	o->rec = q->rec;
	o->nth = seq;
	o->kind = (uint8_t)k;
	out_sample(it, k, y, o);
	ch->st.nr_samples++;
	ch->st.by_kind[k]++;
	return 0;
}

/*
 * The MIDR that decides q's data sources, as perf >= 6.13 picks it
 * (arm_spe__synth_ds): the original metadata has none per CPU, so the
 * capture's CPUID; the per-CPU form, the queue's CPU's, and for a
 * per-thread queue (no CPU) CPU 0's when every CPU is the same model.
 * 0 (none: the level from the events) where none applies.
 */
static uint64_t queue_midr(const struct pda_itrace *it, const struct queue *q)
{
	if (it->meta_version < 2)
		return it->midr;
	if (q->cpu == UINT32_MAX) {
		for (size_t i = 1; i < it->nr_cpu_midr; i++)
			if (it->cpu_midr[i].midr != it->cpu_midr[0].midr)
				return 0;
		return it->nr_cpu_midr ? it->cpu_midr[0].midr : 0;
	}
	for (size_t i = 0; i < it->nr_cpu_midr; i++)
		if (it->cpu_midr[i].cpu == q->cpu)
			return it->cpu_midr[i].midr;
	return 0;
}

/* A branch or exception return (perf 7's ARM_SPE_OP_BRANCH_ERET) */
static bool is_branch(const struct pd_spe_record *r)
{
	return (r->mask & PD_SPE_HAS_OP) && r->op_class == PD_SPE_OP_BRANCH;
}

/* Whether q's CPU reports snoops (perf 7: the DATA-SNOOPED event in its
 * metadata's event filter; a per-thread queue, CPU 0's when every CPU
 * is the same model). */
static bool queue_snoops(const struct pda_itrace *it, const struct queue *q)
{
	const struct cpu_midr *m = NULL;

	if (it->meta_version < 2 || !it->nr_cpu_midr)
		return false;
	if (q->cpu == UINT32_MAX) {
		/* queue_midr() is 0 when the models differ */
		if (queue_midr(it, q))
			m = &it->cpu_midr[0];
	} else {
		for (size_t i = 0; i < it->nr_cpu_midr && !m; i++)
			if (it->cpu_midr[i].cpu == q->cpu)
				m = &it->cpu_midr[i];
	}
	return m && ((m->event_filter >> PD_SPE_EV_DATA_SNOOPED) & 1);
}

/* perf 7's flags of a record's branch and instruction samples
 * (arm_spe__sample_flags): a branch's kind and what happened to it; an
 * indirect branch that neither calls nor returns (BR) counts as a
 * return, as perf counts it. */
static uint32_t branch_flags(const struct pd_spe_record *r)
{
	uint32_t f;

	if (!is_branch(r))
		return 0;
	f = PD_IP_FLAG_BRANCH;
	if (r->events >> PD_SPE_EV_MISPRED & 1)
		f |= PD_IP_FLAG_BRANCH_MISS;
	if (r->events >> PD_SPE_EV_NOT_TAKEN & 1)
		f |= PD_IP_FLAG_NOT_TAKEN;
	if (r->events >> PD_SPE_EV_TRANSACTIONAL & 1)
		f |= PD_IP_FLAG_IN_TX;
	if (r->op & PD_SPE_OPF_COND)
		f |= PD_IP_FLAG_CONDITIONAL;
	if (r->op & PD_SPE_OPF_CR_BL)
		f |= PD_IP_FLAG_CALL;
	else if (r->op & (PD_SPE_OPF_CR_RET | PD_SPE_OPF_IND))
		f |= PD_IP_FLAG_RETURN;
	return f;
}

/* perf's branch_flags word: mispred 0, predicted 1, in_tx 2, cycles
 * 4..19, type 20..23, the tool's not_taken 33 */
#define BRF_MISPRED (1ull << 0)
#define BRF_PREDICTED (1ull << 1)
#define BRF_IN_TX (1ull << 2)
#define BRF_CYCLES_SHIFT 4
#define BRF_TYPE_SHIFT 20
#define BRF_NOT_TAKEN (1ull << 33)

/* perf's PERF_BR_* types SPE branches take */
enum { BR_UNKNOWN = 0, BR_COND = 1, BR_UNCOND = 2, BR_CALL = 4,
       BR_RET = 6, BR_COND_CALL = 9, BR_COND_RET = 10 };

/* perf 7's branch stack of a record's branch and instructions samples
 * (arm_spe__prep_branch_stack, --itrace=l): the branch itself (from the
 * PC to the target, its kind, prediction and latency as cycles), then
 * the previous branch target (PBT) when the size leaves room. */
static unsigned branch_stack(const struct pda_itrace *it,
			     const struct pd_spe_record *r, uint32_t flags,
			     struct synth_br br[2])
{
	const unsigned sz = it->o.last_branch_sz;
	const bool tgt = flags & PD_IP_FLAG_BRANCH;
	const bool pbt = sz >= (tgt ? 2u : 1u) && (r->mask & PD_SPE_HAS_PBT) &&
			 r->addr[PD_SPE_ADDR_PBT];
	const bool cond = r->op & PD_SPE_OPF_COND;
	unsigned n = 0;

	if (tgt) {
		uint64_t f, type;

		if (r->op & PD_SPE_OPF_CR_BL)
			type = cond ? BR_COND_CALL : BR_CALL;
		else if (r->op & (PD_SPE_OPF_CR_RET | PD_SPE_OPF_IND))
			type = cond ? BR_COND_RET : BR_RET;
		else if (r->op & PD_SPE_OPF_CR_NON_BL_RET)
			type = cond ? BR_COND : BR_UNCOND;
		else
			type = cond ? BR_COND : BR_UNKNOWN;
		f = type << BRF_TYPE_SHIFT;
		f |= flags & PD_IP_FLAG_BRANCH_MISS ? BRF_MISPRED
						    : BRF_PREDICTED;
		if (flags & PD_IP_FLAG_NOT_TAKEN)
			f |= BRF_NOT_TAKEN;
		if (flags & PD_IP_FLAG_IN_TX)
			f |= BRF_IN_TX;
		if (r->mask & PD_SPE_HAS_LAT_TOTAL)
			f |= (uint64_t)r->lat_total << BRF_CYCLES_SHIFT;
		br[n].from = r->mask & PD_SPE_HAS_PC ? r->addr[PD_SPE_ADDR_PC]
						     : 0;
		br[n].to = r->mask & PD_SPE_HAS_TGT ? r->addr[PD_SPE_ADDR_TGT]
						    : 0;
		br[n++].flags = f;
	}
	if (pbt) {
		br[n].from = 0;
		br[n].to = r->addr[PD_SPE_ADDR_PBT];
		br[n++].flags = (uint64_t)BR_UNKNOWN << BRF_TYPE_SHIFT;
	}
	return n;
}

/* The thread of q's record r at time t into *tid and *pid: CONTEXT
 * (carried to the records after it), else the CPU's switches, else the
 * buffer's; none without a time. */
static inline void thread_of(const struct pda_itrace *it, struct queue *q,
			     const struct pd_spe_record *r, uint64_t t,
			     uint32_t *tid, uint32_t *pid)
{
	*tid = UINT32_MAX;
	if (!it->timeless && it->use_ctx) {
		if (r->mask & PD_SPE_HAS_CONTEXT)
			q->cur_tid = (int32_t)(uint32_t)r->context;
		*tid = (uint32_t)q->cur_tid;
	} else if (!it->timeless && it->nr_sw) {
		const struct sw *w = switched_to(it, q->cpu, t);

		*tid = w ? w->tid : UINT32_MAX;
	}
	if (*tid == UINT32_MAX && q->tid != UINT32_MAX)
		*tid = q->tid;
	/* a queue's records come from one thread for long runs */
	if (*tid != q->last_tid) {
		q->last_tid = *tid;
		q->last_pid = pid_of(it, *tid);
	}
	*pid = q->last_pid;
	if (*pid == UINT32_MAX && !it->use_ctx && !it->timeless &&
	    it->nr_sw) {
		const struct sw *w = switched_to(it, q->cpu, t);

		*pid = w ? w->pid : UINT32_MAX;
	}
}

/* The cache and TLB kinds, in perf's order, and their record types */
static const struct {
	enum pda_itrace_kind k;
	unsigned type;
} mem[] = {
	{PDA_ITRACE_L1D_MISS, T_L1D_MISS},
	{PDA_ITRACE_L1D_ACCESS, T_L1D_ACCESS},
	{PDA_ITRACE_LLC_MISS, T_LLC_MISS},
	{PDA_ITRACE_LLC_ACCESS, T_LLC_ACCESS},
	{PDA_ITRACE_TLB_MISS, T_TLB_MISS},
	{PDA_ITRACE_TLB_ACCESS, T_TLB_ACCESS},
};

/* The samples of record r of types t and record_op() op, which makes
 * some (synth_record), in perf's order (arm_spe_sample).  Out of line:
 * the records that make none do not save and restore its registers. */
static __attribute__((noinline)) int
synth_samples(const struct pda_itrace *it, struct queue *q,
	      const struct pd_spe_record *r, unsigned t, int op,
	      uint64_t *seq)
{
	uint64_t ds;
	struct synth y;
	int rc;

	/* br: written where nr_br says (branch_stack()), read up to it */
	memset(&y, 0, offsetof(struct synth, br));
	y.ip = r->mask & PD_SPE_HAS_PC ? r->addr[PD_SPE_ADDR_PC] : 0;
	y.misc = (y.ip >> 56) == 0xff ? PD_MISC_KERNEL : PD_MISC_USER;
	y.time = it->timeless ? 0 : to_perf_time(it, r->timestamp);
	y.cpu = q->cpu;
	y.period = 1;
	if (it->o.perf7) {
		/* perf 7: an instruction period N keeps every Nth record
		 * of the queue, all its samples, each with period N (an
		 * --itrace without i: every record, period 0) */
		y.period = !it->o.set ? 1 : it->o.instructions ? it->o.period
							      : 0;
		if (++q->insns < y.period)
			return 0;
		q->insns = 0;
	}
	thread_of(it, q, r, y.time, &y.tid, &y.pid);
	if (it->o.perf7)
		ds = pda_itrace_spe_data_src7(r, queue_midr(it, q),
					      queue_snoops(it, q));
	else
		ds = op ? data_src_of(r, q->model, op, t) : 0;
	/* WEIGHT_STRUCT: the total latency (perf's weight), the issue
	 * latency where perf puts an instruction latency, the translation
	 * latency in the third: perf keeps the first only */
	y.weight = r->mask & PD_SPE_HAS_LAT_TOTAL ? r->lat_total : 0;
	if (r->mask & PD_SPE_HAS_LAT_ISSUE)
		y.weight |= (uint64_t)r->lat_issue << 32;
	if (r->mask & PD_SPE_HAS_LAT_XLAT)
		y.weight |= (uint64_t)r->lat_xlat << 48;
	/* want_types has the memory kinds made (ev[]): most records of
	 * --itrace=M are of none of them */
	for (size_t i = 0; (t & it->want_types & T_MEM_KINDS) &&
			   i < sizeof(mem) / sizeof(mem[0]);
	     i++)
		if (t & it->want_types & mem[i].type) {
			y.addr = r->mask & PD_SPE_HAS_VA
					 ? r->addr[PD_SPE_ADDR_VA] : 0;
			y.phys = r->mask & PD_SPE_HAS_PA
					 ? r->addr[PD_SPE_ADDR_PA] : 0;
			y.data_src = ds;
			if ((rc = emit(it, q, mem[i].k, &y, (*seq)++)) < 0)
				return rc;
		}
	if (it->ev[PDA_ITRACE_BRANCH_MISS] &&
	    (it->o.perf7 ? is_branch(r) : (t & T_BRANCH_MISS) != 0)) {
		struct synth b = y;

		b.addr = r->mask & PD_SPE_HAS_TGT ? r->addr[PD_SPE_ADDR_TGT]
						  : 0;
		b.phys = 0;
		b.data_src = 0;
		b.flags = it->o.perf7 ? branch_flags(r) : 0;
		if (it->sample_type & PD_SAMPLE_BRANCH_STACK)
			b.nr_br = branch_stack(it, r, b.flags, b.br);
		if ((rc = emit(it, q, PDA_ITRACE_BRANCH_MISS, &b, (*seq)++)) <
		    0)
			return rc;
	}
	y.addr = r->mask & PD_SPE_HAS_VA ? r->addr[PD_SPE_ADDR_VA] : 0;
	y.phys = r->mask & PD_SPE_HAS_PA ? r->addr[PD_SPE_ADDR_PA] : 0;
	y.data_src = ds;
	if (it->ev[PDA_ITRACE_REMOTE_ACCESS] && (t & T_REMOTE_ACCESS) &&
	    (rc = emit(it, q, PDA_ITRACE_REMOTE_ACCESS, &y, (*seq)++)) < 0)
		return rc;
	/* a data_src of 0: no load or store, no memory sample */
	if (it->ev[PDA_ITRACE_MEMORY] && ds &&
	    (rc = emit(it, q, PDA_ITRACE_MEMORY, &y, (*seq)++)) < 0)
		return rc;
	if (it->ev[PDA_ITRACE_INSTRUCTIONS]) {
		const uint64_t period = it->o.period ? it->o.period : 1;

		if (it->o.perf7 || ++q->insns >= period) {
			q->insns = 0;
			/* perf 7: the record's period (above); the branch
			 * target, as a branch sample's */
			if (!it->o.perf7) {
				y.period = period;
			} else {
				y.addr = r->mask & PD_SPE_HAS_TGT
						 ? r->addr[PD_SPE_ADDR_TGT]
						 : 0;
				y.flags = branch_flags(r);
				if (it->sample_type & PD_SAMPLE_BRANCH_STACK)
					y.nr_br = branch_stack(it, r, y.flags,
							       y.br);
			}
			rc = emit(it, q, PDA_ITRACE_INSTRUCTIONS, &y, (*seq)++);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* Grouping, a record whose one sample is its memory sample (most that
 * make one under --itrace=M): joining its group, the sample is counted,
 * not made; else synth_samples().  Out of line, as that. */
static __attribute__((noinline)) int
mem_join(const struct pda_itrace *it, struct queue *q,
	 const struct pd_spe_record *r, unsigned t, int op, uint64_t *seq)
{
	const uint64_t ip = r->mask & PD_SPE_HAS_PC ? r->addr[PD_SPE_ADDR_PC]
						    : 0;
	const uint64_t time = it->timeless ? 0 : to_perf_time(it, r->timestamp);
	uint32_t tid, pid;
	size_t slot;

	thread_of(it, q, r, time, &tid, &pid);
	if (group_join(q, PDA_ITRACE_MEMORY, ip, tid, pid, 1, 0,
		       epoch_at(it, q, time), &slot)) {
		q->wr->st.nr_samples++;
		q->wr->st.by_kind[PDA_ITRACE_MEMORY]++;
		return 0;
	}
	return synth_samples(it, q, r, t, op, seq);
}

/* The samples of one record: none (most records under --itrace=M), and
 * only the thread carries on; else synth_samples().  A record has a
 * data_src (a memory sample) when it is a load or a store. */
static inline int synth_record(const struct pda_itrace *it, struct queue *q,
			       const struct pd_spe_record *r, uint64_t *seq)
{
	const unsigned t =
		it->types[(r->mask & PD_SPE_HAS_EVENTS ? r->events : 0) >>
				  TYPE_SHIFT &
			  ((1u << NR_TYPE_BITS) - 1)];
	const int op = record_op(r);

	if (!it->o.perf7 && !it->ev[PDA_ITRACE_INSTRUCTIONS] &&
	    !(t & it->want_types) && !(op && it->ev[PDA_ITRACE_MEMORY])) {
		if (!it->timeless && it->use_ctx &&
		    (r->mask & PD_SPE_HAS_CONTEXT))
			q->cur_tid = (int32_t)(uint32_t)r->context;
		return 0;
	}
	if (it->mem_groups && op && !(t & it->want_types))
		return mem_join(it, q, r, t, op, seq);
	return synth_samples(it, q, r, t, op, seq);
}

/*
 * Whether the reader tells each synthesized event's samples by their id:
 * it finds a sample's id where the capture's events agree to keep it, so
 * events that keep theirs elsewhere (perf refuses such a capture: its
 * sample types do not match) would have the synthesized samples taken
 * for another event's.
 */
static int check_ids(struct pda_itrace *it)
{
	for (int k = 0; k < PDA_ITRACE_NR_KINDS; k++) {
		const struct synth y = {0};
		unsigned char bytes[SYNTH_MAX];
		struct pd_rec rec = {.type = PD_REC_SAMPLE, .data = bytes};
		struct out o = {.kind = (uint8_t)k};

		if (!it->ev[k])
			continue;
		out_sample(it, (enum pda_itrace_kind)k, &y, &o);
		rec.size = encode(it, &o, bytes);
		if (pd_rec_evsel(it->f, &rec) != it->ev[k])
			return failed(it, PD_ERR_FORMAT,
				      "the capture's events do not keep their "
				      "sample ids alike: the samples of the "
				      "Arm SPE trace could not be told from "
				      "theirs", UINT64_MAX);
	}
	return 0;
}

/* The events perf adds, in its order, with its ids and sample type. */
static int add_events(struct pda_itrace *it)
{
	struct pd_attr a;
	uint64_t id;

	if (!it->spe->nr_ids)
		return failed(it, PD_ERR_UNSUPPORTED,
			      "the Arm SPE event has no sample id: its "
			      "samples cannot be synthesized", UINT64_MAX);
	/* perf 7 fails here ("You must only use i (instructions)
	 * --itrace period with Arm SPE"); perf 6.1 makes none */
	if (it->o.perf7 && it->o.set && it->o.instructions &&
	    !it->o.period_insns)
		return failed(it, PD_ERR_API,
			      "--itrace: perf 7's Arm SPE instructions take "
			      "an instruction period only (i1i, i100i)",
			      UINT64_MAX);
	id = it->spe->ids[0] + SYNTH_ID_OFFSET;
	memset(&a, 0, sizeof(a));
	a.type = 0;	/* PERF_TYPE_HARDWARE, as perf's */
	a.size = it->spe->attr.size;
	a.sample_period = 1;
	a.flags = it->spe->attr.flags;
	/* perf: the SPE event's sample type and what its samples add;
	 * the physical address besides (perf 6.1 leaves it out) and the
	 * weight as a struct, for the three latencies */
	a.sample_type = (it->spe->attr.sample_type &
			 (PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP | PD_SAMPLE_TID |
			  PD_SAMPLE_TIME | PD_SAMPLE_CPU | PD_SAMPLE_ID |
			  PD_SAMPLE_STREAM_ID)) |
			PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_PERIOD |
			PD_SAMPLE_DATA_SRC | PD_SAMPLE_WEIGHT_STRUCT |
			PD_SAMPLE_ADDR | PD_SAMPLE_PHYS_ADDR;
	if (it->timeless)
		a.sample_type &= ~(uint64_t)PD_SAMPLE_TIME;
	else
		a.sample_type |= PD_SAMPLE_TIME;
	if (!(a.sample_type & (PD_SAMPLE_IDENTIFIER | PD_SAMPLE_ID)))
		a.sample_type |= PD_SAMPLE_IDENTIFIER;
	if (it->o.perf7 && it->o.last_branch) {
		/* perf 7: every synthesized event has the stack (the
		 * memory samples' empty), without a hardware index */
		a.sample_type |= PD_SAMPLE_BRANCH_STACK;
		a.branch_sample_type |= PD_BRANCH_SAMPLE_HW_INDEX;
	}
	it->sample_type = a.sample_type;
	it->first_id = id;
	for (unsigned v = 0; v < 1u << NR_TYPE_BITS; v++)
		it->types[v] = (uint8_t)events_type((uint64_t)v << TYPE_SHIFT);
	for (size_t i = 0; i < sizeof(mem) / sizeof(mem[0]); i++)
		if (pda_itrace_wants(&it->o, mem[i].k))
			it->want_types |= mem[i].type;
	if (pda_itrace_wants(&it->o, PDA_ITRACE_BRANCH_MISS))
		it->want_types |= T_BRANCH_MISS;
	if (pda_itrace_wants(&it->o, PDA_ITRACE_REMOTE_ACCESS))
		it->want_types |= T_REMOTE_ACCESS;
	for (int k = 0; k < PDA_ITRACE_NR_KINDS; k++) {
		int rc;

		if (!pda_itrace_wants(&it->o, (enum pda_itrace_kind)k))
			continue;
		a.config = (uint64_t)k;
		rc = pd_file_add_synth_evsel(it->f, &a,
					     pda_itrace_event_name(
						     &it->o,
						     (enum pda_itrace_kind)k),
					     id,
					     &it->ev[k]);
		if (rc < 0)
			return failed(it, rc,
				      "cannot add the synthesized events",
				      UINT64_MAX);
		id++;
		it->nr_ids++;
	}
	return check_ids(it);
}

/* The records of one AUXTRACE buffer, kept for when the switches are
 * known. */
/* The SPE metadata of an AUXTRACE_INFO record at off: its version and,
 * in the per-CPU form, each CPU's MIDR. */
static int read_meta(struct pda_itrace *it,
		     const struct pd_ev_auxtrace_info *ai, uint64_t off)
{
	struct pd_spe_info info;
	int rc = pd_spe_info_decode(it->f, ai, &info);

	if (rc < 0) {
		if (it->err && it->err_size)
			/* the reader's message names the record */
			snprintf(it->err, it->err_size,
				 "record at offset 0x%llx: %s",
				 (unsigned long long)off,
				 pd_file_errmsg(it->f));
		return rc;
	}
	it->meta_version = info.version;
	it->nr_cpu_midr = 0;
	for (uint64_t i = 0; i < info.nr_cpus; i++) {
		struct pd_spe_cpu c;

		if (pd_spe_info_cpu(&info, i, &c) < 0)
			continue;
		if (PDA_GROW(it->s, it->cpu_midr, it->alloc_cpu_midr,
			     it->nr_cpu_midr + 1,
			     SIZE_MAX / sizeof(*it->cpu_midr)) < 0)
			return PD_ERR_NOMEM;
		it->cpu_midr[it->nr_cpu_midr++] =
			(struct cpu_midr){c.cpu, c.midr, c.event_filter};
	}
	return 0;
}

/*
 * Who runs on a CPU from a context switch on: a CPU-wide switch out
 * names the next thread (next_prev_pid, as perf follows them).  A
 * task's own switch (PERF_RECORD_SWITCH: the events bound to the
 * traced threads, `perf record -- cmd`) has no such field: its
 * sample_id names the thread switching, so a switch in is who runs from
 * then, and a switch out says nothing of what runs next (no record of
 * the traced threads comes before the next switch in).  perf 6.1 and
 * 7.2 take a task's switch out as a CPU-wide one, reading the sample_id's
 * pid and tid where the next thread would be: they give the records
 * after each switch in the thread of the switch out before it (one
 * switch late), and the first run on each CPU no thread; per thread
 * (no CPU in the sample_id) they stop at the first switch out
 * (docs/man/pdtool-script.1.md).  Without the CPU it cannot say which
 * CPU: the per-thread buffers' own thread tells.
 */
static int add_switch(struct pda_itrace *it, const struct pd_rec *rec,
		      const struct pd_event *ev)
{
	struct sw w;

	if (rec->type == PD_REC_SWITCH_CPU_WIDE) {
		if (!(rec->misc & PD_MISC_SWITCH_OUT))
			return 0;
		w = (struct sw){.time = ev->sample_id.time,
				.cpu = ev->sample_id.cpu,
				.pid = ev->context_switch.next_prev_pid,
				.tid = ev->context_switch.next_prev_tid};
	} else {
		const uint64_t need = PD_SAMPLE_CPU | PD_SAMPLE_TID |
				      PD_SAMPLE_TIME;

		if ((rec->misc & PD_MISC_SWITCH_OUT) ||
		    (ev->sample_id.mask & need) != need)
			return 0;
		w = (struct sw){.time = ev->sample_id.time,
				.cpu = ev->sample_id.cpu,
				.pid = ev->sample_id.pid,
				.tid = ev->sample_id.tid};
	}
	if (PDA_GROW(it->s, it->sw, it->alloc_sw, it->nr_sw + 1,
		     SIZE_MAX / sizeof(*it->sw)) < 0)
		return PD_ERR_NOMEM;
	it->sw[it->nr_sw++] = w;
	return 0;
}

/* A buffer of q's kept for decoding later (a copy when the reader has
 * its bytes only until the next record), and whether any of its records
 * has a CONTEXT packet (then every tid comes from them, as perf's
 * use_ctx_pkt_for_pid). */
static int add_buffer(struct pda_itrace *it, struct queue *q,
		      const struct pd_ev_auxtrace *a, uint64_t data_off,
		      bool stable)
{
	struct pd_spe_cursor c;
	struct pd_spe_record r;
	struct qbuf b = {a->data, (size_t)a->data_size, data_off,
			 it->nr_bufs++, false};

	if (!stable) {
		unsigned char *copy = pda_malloc(it->s, b.size ? b.size : 1);

		if (!copy)
			return PD_ERR_NOMEM;
		memcpy(copy, a->data, b.size);
		b.data = copy;
		b.owned = true;
	}
	if (PDA_GROW(it->s, q->bufs, q->alloc_bufs, q->nr_bufs + 1,
		     SIZE_MAX / sizeof(*q->bufs)) < 0) {
		if (b.owned)
			pda_free(it->s, (void *)(uintptr_t)b.data);
		return PD_ERR_NOMEM;
	}
	q->bufs[q->nr_bufs++] = b;
	/* alignment is measured from the payload's offset in the file,
	 * as perf maps it */
	pd_spe_cursor_init(&c, b.data, b.size, data_off);
	while (!it->use_ctx && pd_spe_next_record(&c, &r) > 0)
		if (r.mask & PD_SPE_HAS_CONTEXT)
			it->use_ctx = true;
	return 0;
}

/*
 * The pass over f's records: what synthesis depends on (the metadata,
 * TIME_CONV, the threads, the switches, whether any record has a
 * CONTEXT packet) and each queue's buffers.  The records are decoded
 * and synthesized later, a queue at a time as its samples are handed
 * out (pda_itrace_next), so that neither records nor samples are held.
 */
static int read_trace(struct pda_itrace *it, bool *has_spe)
{
	struct pd_reader *rd;
	struct pd_rec rec;
	int rc;

	*has_spe = false;
	rc = pd_reader_new(it->f, PD_READ_QUIET, &rd);
	if (rc < 0)
		return failed(it, rc, "cannot read the capture", UINT64_MAX);
	while ((rc = pd_reader_next(rd, &rec)) > 0) {
		struct pd_event ev;

		if (rec.type != PD_REC_AUXTRACE &&
		    rec.type != PD_REC_AUXTRACE_INFO &&
		    rec.type != PD_REC_TIME_CONV && rec.type != PD_REC_COMM &&
		    rec.type != PD_REC_FORK && rec.type != PD_REC_SWITCH &&
		    rec.type != PD_REC_SWITCH_CPU_WIDE)
			continue;
		if (pd_event_decode(it->f, &rec, &ev) < 0) {
			rc = failed(it, PD_ERR_FORMAT,
				    pd_rec_type_name(rec.type), rec.offset);
			if (it->err && it->err_size)
				snprintf(it->err, it->err_size,
					 "%s record at offset 0x%llx: %s",
					 pd_rec_type_name(rec.type),
					 (unsigned long long)rec.offset,
					 pd_file_errmsg(it->f));
			break;
		}
		if (rec.type == PD_REC_AUXTRACE_INFO) {
			*has_spe |= ev.auxtrace_info.type ==
				    PD_AUXTRACE_ARM_SPE;
			if (ev.auxtrace_info.type == PD_AUXTRACE_ARM_SPE) {
				rc = read_meta(it, &ev.auxtrace_info,
					       rec.offset);
				if (rc < 0)
					break;
			}
		} else if (rec.type == PD_REC_TIME_CONV) {
			it->tc = ev.time_conv;
			it->have_tc = true;
		} else if (rec.type == PD_REC_COMM || rec.type == PD_REC_FORK) {
			const uint32_t pid = rec.type == PD_REC_COMM
						     ? ev.comm.pid
						     : ev.fork.pid;
			const uint32_t tid = rec.type == PD_REC_COMM
						     ? ev.comm.tid
						     : ev.fork.tid;

			if (PDA_GROW(it->s, it->tp, it->alloc_tp, it->nr_tp + 1,
				     SIZE_MAX / sizeof(*it->tp)) < 0) {
				rc = PD_ERR_NOMEM;
				break;
			}
			it->tp[it->nr_tp++] = (struct tidpid){tid, pid};
		} else if (rec.type == PD_REC_SWITCH_CPU_WIDE ||
			   rec.type == PD_REC_SWITCH) {
			if ((rc = add_switch(it, &rec, &ev)) < 0)
				break;
		} else if (ev.auxtrace.data) {
			struct queue *q = queue_of(it, &ev.auxtrace);

			if (!q) {
				rc = PD_ERR_NOMEM;
				break;
			}
			rc = add_buffer(it, q, &ev.auxtrace,
					rec.offset + rec.size,
					rec.flags & PD_RECF_STABLE);
			if (rc < 0)
				break;
		}
	}
	pd_reader_free(rd);
	if (rc == PD_ERR_NOMEM)
		return failed(it, rc, "out of memory", UINT64_MAX);
	return rc < 0 ? rc : 0;
}

static void stop_threads(struct pda_itrace *it);
static int alloc_rings(struct pda_itrace *it);

static const struct pd_evsel *spe_evsel(struct pd_file *f)
{
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++) {
		const struct pd_evsel *e = pd_file_evsel(f, i);

		if (!strncmp(e->name, "arm_spe", 7))
			return e;
	}
	return NULL;
}

int pda_itrace_new(struct pda_session *s, struct pd_file *f,
		   const struct pda_itrace_opts *o, struct pda_itrace **out,
		   char *errbuf, size_t errbuf_size)
{
	struct pda_itrace *it;
	const struct pd_env *env;
	bool has_spe;
	int rc;

	*out = NULL;
	/* no SPE event, no trace to read: most captures (a pipe's events
	 * come with its records: read to know) */
	if (!spe_evsel(f) && pd_file_header(f)->kind != PD_KIND_PIPE)
		return 0;
	it = pda_malloc(s, sizeof(*it));
	if (!it)
		return PD_ERR_NOMEM;
	memset(it, 0, sizeof(*it));
	it->s = s;
	it->f = f;
	it->o = *o;
	it->err = errbuf;
	it->err_size = errbuf_size;
	it->swap = pd_file_header(f)->swap != 0;
	rc = read_trace(it, &has_spe);
	it->spe = spe_evsel(f);
	if (rc == 0 && (!has_spe || !it->spe)) {
		pda_itrace_free(it);
		return 0;
	}
	/* perf 6.1 decodes timeless when the SPE event has no time */
	it->timeless = rc == 0 && !(it->spe->attr.sample_type & PD_SAMPLE_TIME);
	if (rc == 0) {
		/* the CPUID decides the data sources: no memory to read it
		 * is an error, not a capture without one */
		const int erc = pd_file_env(f, &env);

		if (erc == PD_ERR_NOMEM)
			rc = erc;
		else if (erc == 0 && env->cpuid)
			it->midr = strtoull(env->cpuid, NULL, 16);
	}
	if (rc == 0)
		rc = add_events(it);
	if (rc == 0)
		rc = alloc_rings(it);
	if (it->nr_sw)
		qsort(it->sw, it->nr_sw, sizeof(*it->sw), cmp_sw);
	if (it->nr_tp)
		qsort(it->tp, it->nr_tp, sizeof(*it->tp), cmp_tp);
	if (rc < 0) {
		if (rc == PD_ERR_NOMEM && errbuf && errbuf_size)
			snprintf(errbuf, errbuf_size, "out of memory");
		pda_itrace_free(it);
		return rc;
	}
	*out = it;
	return 0;
}

void pda_itrace_free(struct pda_itrace *it)
{
	if (!it)
		return;
	stop_threads(it);
	if (it->sync_init) {
		pthread_mutex_destroy(&it->mu);
		pthread_cond_destroy(&it->made_cv);
		for (unsigned i = 0; i < it->jobs; i++)
			pthread_cond_destroy(&it->thread_args[i].taken_cv);
	}
	pda_free(it->s, it->threads);
	pda_free(it->s, it->thread_args);
	for (size_t i = 0; i < it->nr_q; i++) {
		if (it->q[i].ring)
			for (unsigned d = 0; d < CHUNK_DEPTH; d++)
				pda_free(it->s, it->q[i].ring[d]);
		pda_free(it->s, it->q[i].ring);
		for (size_t b = 0; b < it->q[i].nr_bufs; b++)
			if (it->q[i].bufs[b].owned)
				pda_free(it->s,
					 (void *)(uintptr_t)it->q[i].bufs[b].data);
		pda_free(it->s, it->q[i].bufs);
	}
	pda_free(it->s, it->q);
	pda_free(it->s, it->sw);
	pda_free(it->s, it->tp);
	pda_free(it->s, it->cpu_midr);
	pda_free(it->s, it);
}

/* Make q's next chunk into ch: decode q's records until the next one's
 * samples might not fit, or q has none left (then ch is its last).  Only
 * q and what pda_itrace_new() read are used: any thread may do it. */
static void fill(const struct pda_itrace *it, struct queue *q,
		 struct chunk *ch)
{
	struct pd_spe_record r;
	uint64_t nth;

	memset(&ch->st, 0, sizeof(ch->st));
	ch->n = 0;
	ch->end = false;
	q->wr = ch;
	if (it->grouping)
		memset(q->gslot, 0, sizeof(q->gslot));
	/* the buffer whose records make the samples (a timeless queue's
	 * empty first record: the first) */
	q->order = q->bufs[q->cur < q->nr_bufs ? q->cur : q->nr_bufs - 1].order;
	while (ch->n + PDA_ITRACE_NR_KINDS <= CHUNK_OUTS && !q->done &&
	       (!it->grouping || ch->st.nr_records < CHUNK_RECORDS)) {
		nth = 0;
		if (it->timeless && !q->started) {
			/* perf synthesizes each record when it decodes the
			 * next, and a timeless queue starts undecoded: its
			 * first "record" is an empty one, which only the
			 * instructions count */
			memset(&r, 0, sizeof(r));
			q->started = true;
			if (synth_record(it, q, &r, &nth) < 0)
				q->done = true; /* cannot be: a record's
						 * samples fit */
			continue;
		}
		if (!q->open) {
			const struct qbuf *b;

			if (q->cur == q->nr_bufs) {
				q->done = true;
				break;
			}
			b = &q->bufs[q->cur];
			q->order = b->order;
			/* alignment is measured from the payload's offset
			 * in the file, as perf maps it */
			pd_spe_cursor_init(&q->c, b->data, b->size,
					   b->data_off);
			q->open = true;
			q->rec = 0;
			ch->st.nr_buffers++;
		}
		/* the details synth_record() reads: the op flags for perf
		 * 7's branch flags, never the addresses' level bits */
		if (pd_spe_next_record_lean(&q->c, &r,
					    it->o.perf7 ? PD_SPE_NEED_OP_FLAGS
							: 0) > 0) {
			q->rec++;
			ch->st.nr_records++;
			if (synth_record(it, q, &r, &nth) < 0)
				q->done = true;
		} else {
			ch->st.nr_bad += q->c.nr_bad;
			ch->st.nr_dropped += q->c.nr_dropped;
			q->open = false;
			q->cur++;
		}
	}
	ch->end = q->done;
}

/* A decoding thread: the chunks of its queues, each as soon as the
 * queue's ring has room, until every queue is done or stop. */
static void *decode_thread(void *arg)
{
	struct thread_arg *me = arg;
	struct pda_itrace *it = me->it;
	const unsigned self = me->self;

	pthread_mutex_lock(&it->mu);
	for (;;) {
		bool left = false, did = false;

		for (size_t i = self; i < it->nr_q && !it->stop;
		     i += it->nr_threads) {
			struct queue *q = &it->q[i];
			struct chunk *ch;

			if (q->done)
				continue;
			left = true;
			if (q->made - q->taken >= it->depth - 1)
				continue; /* the one handed out, and ahead */
			ch = q->ring[q->made % it->depth];
			pthread_mutex_unlock(&it->mu);
			fill(it, q, ch);
			pthread_mutex_lock(&it->mu);
			q->made++;
			did = true;
			if (it->consumer_waits == q)
				pthread_cond_signal(&it->made_cv);
		}
		if (it->stop || !left)
			break;
		if (!did) {
			me->waits = true;
			pthread_cond_wait(&me->taken_cv, &it->mu);
			me->waits = false;
		}
	}
	pthread_mutex_unlock(&it->mu);
	return NULL;
}

/* Stop the decoding threads (accepts none running). */
static void stop_threads(struct pda_itrace *it)
{
	if (!it->running)
		return;
	pthread_mutex_lock(&it->mu);
	it->stop = true;
	for (unsigned i = 0; i < it->nr_threads; i++)
		pthread_cond_signal(&it->thread_args[i].taken_cv);
	pthread_mutex_unlock(&it->mu);
	for (unsigned i = 0; i < it->nr_threads; i++)
		pthread_join(it->threads[i], NULL);
	it->running = false;
	it->stop = false;
	it->nr_threads = 0;
}

/* Each queue's ring of chunks (and its CPU model): 0 or PD_ERR_NOMEM. */
static int alloc_rings(struct pda_itrace *it)
{
	for (size_t i = 0; i < it->nr_q; i++) {
		struct queue *q = &it->q[i];

		q->model = ds_model_of(queue_midr(it, q));
		q->ring = pda_malloc(it->s, CHUNK_DEPTH * sizeof(*q->ring));
		if (!q->ring)
			return PD_ERR_NOMEM;
		memset(q->ring, 0, CHUNK_DEPTH * sizeof(*q->ring));
		for (unsigned d = 0; d < CHUNK_DEPTH; d++)
			if (!(q->ring[d] = pda_malloc(it->s,
						      sizeof(struct chunk))))
				return PD_ERR_NOMEM;
	}
	return 0;
}

/* The decoding threads, where jobs allow and they start; else the
 * chunks are made on the caller's thread as they are needed (the same
 * chunks). */
static void start(struct pda_itrace *it)
{
	const unsigned want = it->threads ? it->jobs : 0;

	it->depth = 1;
	if (!want)
		return;
	if (!it->sync_init) {
		pthread_mutex_init(&it->mu, NULL);
		pthread_cond_init(&it->made_cv, NULL);
		for (unsigned i = 0; i < it->jobs; i++)
			pthread_cond_init(&it->thread_args[i].taken_cv, NULL);
		it->sync_init = true;
	}
	it->depth = CHUNK_DEPTH;
	it->nr_threads = want;
	it->running = true;
	for (unsigned i = 0; i < want; i++) {
		it->thread_args[i].it = it;
		it->thread_args[i].self = i;
		it->thread_args[i].waits = false;
		if (pthread_create(&it->threads[i], NULL, decode_thread,
				   &it->thread_args[i]) == 0)
			continue;
		/* the ones started stop first */
		it->nr_threads = i;
		stop_threads(it);
		it->depth = 1;
		break;
	}
}

/* The chunk q hands out from, its next made if the last one is out: 0,
 * or 1 when q has no sample left. */
static int next_chunk(struct pda_itrace *it, struct queue *q)
{
	struct chunk *ch;

	if (q->finished)
		return 1;
	if (q->taken) {
		ch = q->ring[(q->taken - 1) % it->depth];
		if (q->pos < ch->n)
			return 0;
		if (ch->end) {
			q->finished = true;
			return 1;
		}
	}
	if (it->running) {
		struct thread_arg *owner =
			&it->thread_args[(size_t)(q - it->q) % it->nr_threads];

		pthread_mutex_lock(&it->mu);
		while (q->made == q->taken) {
			it->consumer_waits = q;
			pthread_cond_wait(&it->made_cv, &it->mu);
			it->consumer_waits = NULL;
		}
		q->taken++;
		if (owner->waits && q->made - q->taken <= CHUNK_DEPTH / 2)
			pthread_cond_signal(&owner->taken_cv);
		pthread_mutex_unlock(&it->mu);
	} else {
		fill(it, q, q->ring[q->made % it->depth]);
		q->made++;
		q->taken++;
	}
	ch = q->ring[(q->taken - 1) % it->depth];
	q->out_ch = ch;
	q->pos = 0;
	/* what decoding counted, as the chunk is handed out */
	it->st.nr_buffers += ch->st.nr_buffers;
	it->st.nr_records += ch->st.nr_records;
	it->st.nr_bad += ch->st.nr_bad;
	it->st.nr_dropped += ch->st.nr_dropped;
	it->st.nr_samples += ch->st.nr_samples;
	for (int k = 0; k < PDA_ITRACE_NR_KINDS; k++)
		it->st.by_kind[k] += ch->st.by_kind[k];
	return next_chunk(it, q);
}

static bool out_before(const struct out *a, const struct out *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->major != b->major)
		return a->major < b->major;
	if (a->order != b->order)
		return a->order < b->order;
	if (a->rec != b->rec)
		return a->rec < b->rec;
	return a->nth < b->nth;
}

int pda_itrace_set_jobs(struct pda_itrace *it, unsigned jobs)
{
	long cpus;

	if (!it)
		return 0;
	if (it->depth || it->threads)
		return PD_ERR_API;
	if (!jobs) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = cpus > 0 ? (unsigned)cpus : 1;
	}
	if (jobs > PDA_PIPE_MAX_JOBS)
		jobs = PDA_PIPE_MAX_JOBS;
	/* a thread per queue at most; one queue: on the caller's */
	if (jobs > it->nr_q)
		jobs = (unsigned)it->nr_q;
	if (jobs < 2)
		return 0;
	it->threads = pda_malloc(it->s, jobs * sizeof(*it->threads));
	it->thread_args = pda_malloc(it->s, jobs * sizeof(*it->thread_args));
	if (!it->threads || !it->thread_args) {
		pda_free(it->s, it->threads);
		pda_free(it->s, it->thread_args);
		it->threads = NULL;
		it->thread_args = NULL;
		return PD_ERR_NOMEM;
	}
	it->jobs = jobs;
	return 0;
}

/* The next sample in the queues' merged order when before it (NULL:
 * none), handed out. */
static struct out *next_out(struct pda_itrace *it, uint64_t before)
{
	struct queue *best = it->last;
	struct out *o = NULL, *second = NULL;

	/* most samples: the last queue's chunk has more, still first */
	if (best && best->pos < best->out_ch->n &&
	    (!it->rival ||
	     out_before(&best->out_ch->out[best->pos], it->rival))) {
		o = &best->out_ch->out[best->pos];
		goto found;
	}
	best = NULL;
	if (!it->depth)
		start(it);
	/* the queues merged by their next sample, as perf's heap of
	 * queues by time (each queue's samples come in time order) */
	for (size_t i = 0; i < it->nr_q; i++) {
		struct queue *q = &it->q[i];
		struct out *h;

		if ((!q->out_ch || q->pos >= q->out_ch->n) &&
		    next_chunk(it, q))
			continue;
		h = &q->out_ch->out[q->pos];
		if (!best || out_before(h, o)) {
			second = o;
			best = q;
			o = h;
		} else if (!second || out_before(h, second)) {
			second = h;
		}
	}
	it->last = best;
	it->rival = second;
found:
	if (!best || (before != UINT64_MAX && o->time >= before))
		return NULL;
	/* handed out in place: the chunk is not made again before the
	 * next call takes the one after it */
	best->pos++;
	return o;
}

/* o as a SAMPLE record, encoded into buf */
static void out_rec(const struct pda_itrace *it, const struct out *o,
		    unsigned char buf[SYNTH_MAX], struct pd_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = PD_REC_SAMPLE;
	rec->size = encode(it, o, buf);
	rec->data = buf;
	rec->misc = o->s.misc;
}

int pda_itrace_next(struct pda_itrace *it, uint64_t before,
		    struct pd_rec *rec, uint64_t *time)
{
	const struct out *o = it ? next_out(it, before) : NULL;

	if (!o)
		return 0;
	out_rec(it, o, it->rec_buf, rec);
	*time = o->time;
	return 1;
}

int pda_itrace_set_groups(struct pda_itrace *it, const uint64_t *bounds,
			  size_t nr_bounds, uint64_t ungroupable)
{
	if (!it)
		return 0;
	if (it->depth)
		return PD_ERR_API;
	it->grouping = true;
	it->bounds = bounds;
	it->nr_bounds = nr_bounds;
	for (int k = 0; k < PDA_ITRACE_NR_KINDS; k++)
		it->group_kind[k] =
			it->ev[k] && !(it->ev[k]->attr.sample_type & ungroupable);
	/* a record whose one sample is its memory sample: no instructions
	 * sample, perf 7's per record */
	it->mem_groups = it->group_kind[PDA_ITRACE_MEMORY] && !it->o.perf7 &&
			 !it->ev[PDA_ITRACE_INSTRUCTIONS];
	return 0;
}

int pda_itrace_next_decoded(struct pda_itrace *it, uint64_t before,
			    struct pd_sample **sample, uint64_t *time,
			    uint32_t *n)
{
	struct out *o = it ? next_out(it, before) : NULL;

	if (!o)
		return 0;
	if (n)
		*n = o->n;
	if (it->swap) {
		/* the reader takes a synthesized record's fields in the
		 * file's order: what it makes of them, as before */
		struct pd_rec rec;

		out_rec(it, o, it->rec_buf, &rec);
		if (pd_sample_decode(it->f, &rec, &it->swapped) < 0)
			return pda_set_err(it->s, PD_ERR_FORMAT,
					   "a synthesized sample: %s",
					   pd_file_errmsg(it->f));
		*sample = &it->swapped;
	} else {
		*sample = &o->s; /* made with it (out_sample) */
	}
	*time = o->time;
	return 1;
}

int pda_itrace_next_sample(struct pda_itrace *it, uint64_t before,
			   struct pd_sample *sample, uint64_t *time)
{
	struct pd_sample *s;
	const int rc = pda_itrace_next_decoded(it, before, &s, time, NULL);

	if (rc > 0)
		*sample = *s;
	return rc;
}

/*
 * Each kind's first sample in q's order, into first[] (where none was
 * before: found), decoding q only until every kind in want has come;
 * false when q's times went back before that (then the merged order is
 * not the samples' order, and only merging tells which comes first).
 */
static bool queue_firsts(const struct pda_itrace *it, struct queue *q,
			 struct chunk *scratch, unsigned want,
			 struct out *first, unsigned *found)
{
	unsigned seen = 0;
	bool any = false;
	struct out last;

	while (seen != want) {
		fill(it, q, scratch);
		for (unsigned i = 0; i < scratch->n && seen != want; i++) {
			const struct out *o = &scratch->out[i];

			if (any && out_before(o, &last))
				return false;
			last = *o;
			any = true;
			if (seen & 1u << o->kind)
				continue;
			seen |= 1u << o->kind;
			if (!(*found & 1u << o->kind) ||
			    out_before(o, &first[o->kind])) {
				first[o->kind] = *o;
				*found |= 1u << o->kind;
			}
		}
		if (scratch->end)
			break;
	}
	return true;
}

int pda_itrace_firsts(struct pda_itrace *it,
		      int (*fn)(void *arg, const struct pd_rec *rec,
				uint64_t time),
		      void *arg)
{
	struct out *first;
	struct chunk *scratch;
	unsigned want = 0, found = 0;
	bool sorted = true;
	int nr = 0, rc = 0;
	int order[PDA_ITRACE_NR_KINDS];

	if (!it)
		return 0;
	first = pda_malloc(it->s, PDA_ITRACE_NR_KINDS * sizeof(*first));
	scratch = pda_malloc(it->s, sizeof(*scratch));
	if (!first || !scratch) {
		pda_free(it->s, first);
		pda_free(it->s, scratch);
		return PD_ERR_NOMEM;
	}
	for (int k = 0; k < PDA_ITRACE_NR_KINDS; k++)
		if (it->ev[k])
			want |= 1u << k;
	pda_itrace_rewind(it);
	/* a queue whose times go forward hands its samples out in its
	 * order, so the first of a kind overall is the earliest of the
	 * queues' firsts: most of the trace need not be decoded */
	for (size_t i = 0; i < it->nr_q && sorted; i++)
		sorted = queue_firsts(it, &it->q[i], scratch, want, first,
				      &found);
	pda_itrace_rewind(it);
	if (!sorted) {
		const struct out *o;

		found = 0;
		while (found != want && (o = next_out(it, UINT64_MAX)))
			if (!(found & 1u << o->kind)) {
				first[o->kind] = *o;
				found |= 1u << o->kind;
				order[nr++] = o->kind;
			}
		pda_itrace_rewind(it);
	}
	for (int k = 0; k < PDA_ITRACE_NR_KINDS && sorted; k++) {
		int j = nr++;

		if (!(found & 1u << k)) {
			nr--;
			continue;
		}
		/* in merged order: by out_before (insertion) */
		while (j > 0 && out_before(&first[k], &first[order[j - 1]])) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = k;
	}
	for (int j = 0; j < nr && rc == 0; j++) {
		struct pd_rec rec;

		out_rec(it, &first[order[j]], it->rec_buf, &rec);
		rc = fn(arg, &rec, first[order[j]].time);
	}
	pda_free(it->s, first);
	pda_free(it->s, scratch);
	return rc;
}

void pda_itrace_rewind(struct pda_itrace *it)
{
	if (!it)
		return;
	stop_threads(it);
	for (size_t i = 0; i < it->nr_q; i++) {
		struct queue *q = &it->q[i];

		q->cur_tid = -1;
		q->insns = 0;
		q->started = q->open = q->done = false;
		q->cur = 0;
		q->rec = 0;
		q->made = q->taken = 0;
		q->pos = 0;
		q->out_ch = NULL;
		q->finished = false;
		q->last_tid = q->last_pid = UINT32_MAX;
	}
	it->last = NULL;
	it->rival = NULL;
	it->depth = 0; /* started again by the next pda_itrace_next() */
	/* what the decoding counts, counted again */
	memset(&it->st, 0, sizeof(it->st));
}

const struct pd_evsel *pda_itrace_evsel(const struct pda_itrace *it,
					enum pda_itrace_kind kind)
{
	return kind < PDA_ITRACE_NR_KINDS ? it->ev[kind] : NULL;
}

const struct pda_itrace_stats *pda_itrace_stats(const struct pda_itrace *it)
{
	return &it->st;
}
