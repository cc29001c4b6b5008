/*
 * pda_mem.h - memory samples (PERF_SAMPLE_DATA_SRC: x86 PEBS `perf mem
 * record`, AMD IBS, Arm SPE's synthesized samples) aggregated as `perf
 * mem report` views them: by the level that served each access, its
 * snoop, TLB and lock outcome, by function and by data symbol, with the
 * sample count, the loads and stores, the latency summed (perf's weight,
 * its Overhead) and its distribution; by cache line, the lines several
 * CPUs touched with snoops that hit another core's modified line (HITM)
 * or a peer's copy, in the spirit of `perf c2c`.
 *
 *	struct pda_mem *m;
 *	pda_mem_new(s, &m);
 *	pda_mem_views(m, 1u << PDA_MEM_LEVEL);	(optional: all views)
 *	(every sample, on the session's thread)
 *		pda_mem_add(m, item->sample);
 *	pda_mem_finish(m, 1u << PDA_MEM_LEVEL);
 *	for (size_t i = 0; i < pda_mem_nr_rows(m, PDA_MEM_LEVEL); i++)
 *		row = pda_mem_row(m, PDA_MEM_LEVEL, i);
 *	pda_mem_free(m);
 *
 * Not thread-safe: one thread at a time, the session's.
 */
#ifndef PDA_MEM_H
#define PDA_MEM_H

#include "pda_session.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pda_mem;

/* What a row aggregates. */
enum pda_mem_view {
	PDA_MEM_LEVEL,	/* the data source level (perf's "mem" key) */
	PDA_MEM_SNOOP,	/* the snoop outcome (perf's "snoop") */
	PDA_MEM_TLB,	/* the TLB outcome (perf's "tlb") */
	PDA_MEM_LOCK,	/* locked or not (perf's "locked") */
	PDA_MEM_SYM,	/* the function at ip (perf's "sym", "dso") */
	PDA_MEM_DSYM,	/* the data symbol at addr (perf's "symbol_daddr",
			 * "dso_daddr"; unresolved addresses by object) */
	PDA_MEM_LINE,	/* the 64-byte cache line of addr */
	PDA_MEM_TYPE,	/* the data source level and the data type and
			 * member the instruction accesses (perf mem
			 * report -T's mem and type keys): only samples
			 * added with pda_mem_add_type() */
	PDA_MEM_NR_VIEWS,
};

/* data_src bits each of the first four views keys on (perf's
 * union perf_mem_data_src): level (lvl, lvl_num, remote, hops), snoop
 * (snoop, snoopx), TLB, lock */
#define PDA_MEM_LEVEL_BITS                                                   \
	((0x3fffull << 5) | (0xfull << 33) | (1ull << 37) | (7ull << 43))
#define PDA_MEM_SNOOP_BITS ((0x1full << 19) | (3ull << 38))
#define PDA_MEM_TLB_BITS (0x7full << 26)
#define PDA_MEM_LOCK_BITS (3ull << 24)

/* latency buckets: [0] 0, [i] 2^(i-1) .. 2^i - 1, the last open */
#define PDA_MEM_HIST 24

/* The type view's cache lines from data addresses: the object a sample
 * accessed starts at the address less the offset of the member in the
 * type, so align bytes into its 64-byte line, and the access is in the
 * object's line (align + offset) / 64, counted from the line its first
 * byte is in (annotate --data-type --cacheline's address lines). */
struct pda_mem_tline {
	uint64_t line, align, samples;
};

struct pda_mem_row {
	/* level, snoop, TLB, lock, type: the data_src with only the view's
	 * (the level's) bits (and the op bits cleared); line: the line's
	 * address; sym, dsym without a symbol: the address (sym: ip as perf
	 * names it, in its map's file; dsym: 0) */
	uint64_t key;
	const char *sym, *dso;	/* sym, dsym, line's hottest function;
				 * type: the type and member as perf's
				 * typeoff key writes it, and the binary;
				 * NULL: none */
	/* type: samples with a data address whose data symbol is the
	 * global variable DWARF found (agree) or another one (differ);
	 * a stack or heap address has no symbol and counts in neither */
	uint64_t var_agree, var_differ;
	/* type: the object's lines its samples with a data address hit,
	 * most samples first (then line, then align); at most 64 (one
	 * member's offset, one per align) */
	const struct pda_mem_tline *tlines;
	size_t nr_tlines;
	uint64_t samples, loads, stores;
	uint64_t weight;	/* the latencies summed (perf's weight) */
	uint64_t with_weight;	/* samples with a latency */
	uint64_t lat_min, lat_max, p50, p90, p99; /* of those */
	/* a WEIGHT_STRUCT's var2 and var3 summed: x86's instruction
	 * latency (perf's ins_lat); Arm SPE's issue and translation
	 * latencies */
	uint64_t issue, xlat;
	uint64_t hitm, peer;	/* snoops HitM, Peer (another core's copy) */
	uint32_t nr_cpus;	/* distinct CPUs (line) */
	uint32_t nr_offsets;	/* distinct offsets in the line (line) */
	uint64_t hist[PDA_MEM_HIST];
};

struct pda_mem_totals {
	uint64_t nr_samples;	/* added with a data_src */
	uint64_t nr_no_data_src; /* added without: not counted */
	uint64_t loads, stores, weight;
	uint64_t with_addr;	/* samples with a data address */
	bool has_var2, has_var3; /* a WEIGHT_STRUCT's var2 or var3 seen */
};

int pda_mem_new(struct pda_session *s, struct pda_mem **out);
void pda_mem_free(struct pda_mem *m); /* accepts NULL */

/* Sum only the views in views (bit 1 << view each; default: all), before
 * the first sample: each sample costs a hash lookup per view, and each
 * view's rows take memory (the rows, never the samples, are kept). */
void pda_mem_views(struct pda_mem *m, unsigned views);

/* One sample: resolves its ip and its data address (addr) in its
 * process.  @return 0 or PD_ERR_NOMEM. */
int pda_mem_add(struct pda_mem *m, const struct pd_sample *sample);

/* The same, with the data type the instruction accesses, for the type
 * view: typeoff as perf's typeoff key writes it ("struct foo +0x8
 * (bar)", "(unknown)"), dso the binary it is from (or NULL), var the
 * variable DWARF found it through (or NULL): a global's name is checked
 * against the data symbol at the sample's address; offset the access's
 * offset in the type (negative: none, as for the pseudo types), which
 * with the data address gives the row's lines (pda_mem_tline).  The
 * strings must outlive m (the session's interned names). */
int pda_mem_add_type(struct pda_mem *m, const struct pd_sample *sample,
		     const char *typeoff, const char *dso, const char *var,
		     int64_t offset);

/* The data address (addr) of sample as perf's memory keys take it
 * (symbol_daddr, dso_daddr, dcacheline): its symbol and the offset in
 * it, its object (NULL: no map), perf's map__map_ip() of it and the
 * holding map's id, in the maps of the sample's cpumode (perf 6.1's
 * ip__resolve_data(): unlike the dsym view, a kernel sample's user
 * address is unknown); no view is summed.  All zero without an
 * address.  Strings as the session's.  @return 0 or PD_ERR_NOMEM. */
int pda_mem_daddr(struct pda_mem *m, const struct pd_sample *sample,
		  struct pda_daddr *out);

/* Build the views asked for (bit 1 << view each; the others have no
 * rows): rows by weight, then samples, descending, then key (line: by
 * HITM + peer snoops, CPUs, then as the others).  @return 0,
 * PD_ERR_NOMEM, or PD_ERR_API for a view pda_mem_views() left out. */
int pda_mem_finish(struct pda_mem *m, unsigned views);

size_t pda_mem_nr_rows(const struct pda_mem *m, enum pda_mem_view v);
const struct pda_mem_row *pda_mem_row(const struct pda_mem *m,
				      enum pda_mem_view v, size_t i);
const struct pda_mem_totals *pda_mem_totals(const struct pda_mem *m);

/* The view's name ("level", "snoop", "tlb", "lock", "sym", "dsym",
 * "line", "type"). */
const char *pda_mem_view_name(enum pda_mem_view v);

#endif /* PDA_MEM_H */
