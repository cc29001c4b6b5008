/*
 * pda_branch.h - the taken branches of a capture's branch stacks (perf
 * record -b: Intel LBR, AMD Zen 4 LbrExtV2 and Zen 3 BRS, ARM BRBE),
 * aggregated by (from, to): how often each was taken, how often
 * mispredicted, its type, direction, page crossings, the cycles of the
 * basic block it ends and the privilege it ran at.
 *
 *	struct pda_branch *b;
 *	PDA_BRANCH_OPTS(o, .by = PDA_BRANCH_BY_SYM);
 *	pda_branch_new(s, &o, &b);
 *	(every sample, on the session's thread)
 *		pda_branch_add(b, item->sample, item->comm);
 *	pda_branch_finish(b, PDA_BRANCH_SORT_MISPRED);
 *	for (size_t i = 0; i < pda_branch_nr_rows(b); i++)
 *		row = pda_branch_row(b, i);
 *	pda_branch_free(b);
 *
 * Not thread-safe: one thread at a time, the session's.
 */
#ifndef PDA_BRANCH_H
#define PDA_BRANCH_H

#include "pda_session.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pda_branch;

/* What a row aggregates: perf report's symbol_from,symbol_to;
 * addresses; source lines (srcline_from,srcline_to). */
enum pda_branch_by {
	PDA_BRANCH_BY_SYM,
	PDA_BRANCH_BY_ADDR,
	PDA_BRANCH_BY_SRCLINE,
};

enum pda_branch_sort {
	PDA_BRANCH_SORT_MISPRED, /* mispredictions, then count */
	PDA_BRANCH_SORT_COUNT,
	PDA_BRANCH_SORT_CYCLES,	 /* cycles summed */
};

struct pda_branch_opts {
	size_t sz; /* by PDA_BRANCH_OPTS */
	enum pda_branch_by by;
	/* also the basic blocks between consecutive entries, at the level
	 * `by` says: blocks (addr), functions (sym), source lines */
	bool blocks;
	/* count the entries on a thread of their own (not with blocks):
	 * the caller's thread resolves each (from, to) pair once and hands
	 * the entries over; the same table, sooner where a second CPU is
	 * free */
	bool threaded;
};

#define PDA_BRANCH_OPTS(name, ...)                                          \
	struct pda_branch_opts name = {                                     \
		.sz = sizeof(struct pda_branch_opts), __VA_ARGS__ }

/* perf's branch types (PERF_BR_*), and the name perf prints for each. */
#define PDA_BR_NR_TYPES 16
const char *pda_branch_type_name(unsigned type);
/* An extended type's name (PERF_BR_EXTEND_ABI's new_type, perf 6.1's
 * branch_new_type_name() of its x86 build: "FAULT_ALGN" ... "ARCH_5"),
 * "(null)" past them. */
#define PDA_BR_NR_NEW_TYPES 8
const char *pda_branch_new_type_name(unsigned new_type);

/*
 * Branch counters (Intel, perf >= 6.8's `-j any,counter`,
 * PERF_SAMPLE_BRANCH_COUNTERS; pda_branch_cntr.c): per entry, how often
 * each event of the sample's group that asked for them occurred in the
 * entry's basic block, in `width`-bit fields (2 on today's cores: 3
 * means saturated, perhaps more).  The columns are the events with
 * BRANCH_SAMPLE_COUNTERS in the capture's order, named A, B, ... as perf
 * names them.
 */
#define PDA_BR_CNTR_MAX 8
/* a sum that had a saturated counter (perf's
 * ANNOTATION__BR_CNTR_SATURATED_FLAG) */
#define PDA_BR_CNTR_SATURATED ((uint64_t)1 << 63)
/* the letters a column shows before '+' (perf assumes saturation at 3) */
#define PDA_BR_CNTR_SHOWN 3

struct pd_file;
struct pd_env;

struct pda_brcntr {
	unsigned nr;	/* columns; 0: the capture has no branch counters
			 * (or no branch_counter_width capability) */
	unsigned width; /* bits per event in an entry's value */
	unsigned evsel[PDA_BR_CNTR_MAX];  /* column i's event index */
	unsigned leader[PDA_BR_CNTR_MAX]; /* its group leader's index */
	const char *names[PDA_BR_CNTR_MAX]; /* its name (the file's) */
	bool exact; /* perf -v's form: each column's average as a number
		     * ("A=2+,B=- "), not its letters (the caller sets it) */
};

/* The columns of f's events (file mode: the width is a header
 * feature's).  @return 0 or a negative pd_err. */
int pda_brcntr_init(struct pd_file *f, struct pda_brcntr *c);
/* An entry's counter value of a sample of ev (its group found in env's
 * GROUP_DESC; env NULL: ev alone) split into counts[column]; @return the
 * columns it fills, a bit each. */
unsigned pda_brcntr_split(const struct pda_brcntr *c,
			  const struct pd_evsel *ev, const struct pd_env *env,
			  uint64_t value, uint64_t counts[PDA_BR_CNTR_MAX]);
/* Add split counts to sums[c->nr], marking a saturated field's column
 * with PDA_BR_CNTR_SATURATED, as perf's symbol__account_br_cntr(). */
void pda_brcntr_add(const struct pda_brcntr *c, const uint64_t counts[],
		    unsigned cols, uint64_t *sums);
/* a buffer for any cell of pda_brcntr_entry() */
#define PDA_BR_CNTR_CELL (10 * PDA_BR_CNTR_MAX + 2)
/*
 * perf's Branch Counter cell for sums over n entries: per column "|",
 * then "-" (none), or the column's letter as often as the average
 * (rounded up, at most 3) and "+" when saturated or more, padded to 4;
 * a closing "|".  Unlike perf 7.2, whose "+" once shown repeats on every
 * later column of the cell, a column's "+" is its own.  With c->exact,
 * perf -v's cell: per column its letter, "=" and the average ("-" for
 * none), "+" when saturated, else " ", the columns joined by ",".
 * @return buf.
 */
char *pda_brcntr_entry(const struct pda_brcntr *c, const uint64_t *sums,
		       uint64_t n, char *buf, size_t size);
/* The widest cell pda_brcntr_entry() can give for c. */
int pda_brcntr_cell_width(const struct pda_brcntr *c);
/* perf's legend, each line prefixed by pfx ("#" as perf's header).
 * @return 0 or PD_ERR_IO. */
int pda_brcntr_legend(const struct pda_brcntr *c, FILE *out, const char *pfx);

/* cycles buckets: [0] 1 cycle, [i] 2^i .. 2^(i+1)-1 */
#define PDA_BRANCH_CYC_BUCKETS 16

/* One end of a branch.  Strings are interned: valid until the session is
 * freed. */
struct pda_branch_loc {
	uint64_t addr;	   /* as recorded (the first seen, for a symbol) */
	uint64_t map_ip;   /* addr as perf's map__map_ip() gives it (its
			    * al_addr, what perf shows without a symbol):
			    * the offset in a file's (plus pgoff), a
			    * module's or a KSYMBOL's map; addr in the
			    * kernel's, a JIT's, anonymous memory and
			    * without a map */
	const char *dso;   /* NULL: no map */
	const char *sym;   /* NULL: no symbol */
	uint64_t sym_off;  /* addr - symbol start (by addr) */
	const char *srcfile; /* by srcline; NULL unknown */
	unsigned line;
	bool kernel;
	bool module;	   /* in a kernel module's map (perf: "[name]") */
	uint64_t map_start; /* the start of the map that holds it (0:
			     * none) */
	bool found;	   /* in a user binary that was found and read
			    * (perf: its dso's adjust_symbols, set when its
			    * symbols load) */
	bool missing;	   /* not recorded: the end a BRBE half record
			    * lacks (pda_branch_half()); addr 0, no DSO */
};

/*
 * ARM BRBE's half records (the kernel's driver, perf >= 6.17): a branch
 * whose source or target lay at an exception level the event does not
 * record (a syscall's target, an exception return's source, with -j u)
 * is written with that address 0: source-only records (to 0: prediction
 * and cycles, no privilege) and target-only ones (from 0: privilege and
 * cycles, no prediction).  On an aarch64 capture an entry with one end
 * 0 is such a record, never a branch to or from address 0.
 */
enum pda_branch_half {
	PDA_BRANCH_COMPLETE = 0,
	PDA_BRANCH_SOURCE_ONLY,
	PDA_BRANCH_TARGET_ONLY,
};

/* What br is on a capture of BRBE's architecture (brbe: aarch64). */
static inline enum pda_branch_half pda_branch_half(const struct pd_branch *br,
						   bool brbe)
{
	if (!brbe || (br->from && br->to) || (!br->from && !br->to))
		return PDA_BRANCH_COMPLETE;
	return br->from ? PDA_BRANCH_SOURCE_ONLY : PDA_BRANCH_TARGET_ONLY;
}

struct pda_branch_row {
	/* what every entry updates first, in one cache line */
	uint64_t count;		/* entries */
	uint64_t with_pred;	/* entries that say mispred or predicted */
	uint64_t mispred;
	uint64_t with_cycles;	/* entries with cycles > 0 */
	uint64_t cycles;	/* summed over those */
	uint64_t forward;	/* to > from */
	uint64_t cross_4k, cross_2m; /* from and to on other pages */
	uint64_t user, kernel;	/* by the from address, where not recorded */
	unsigned cyc_min, cyc_max;
	unsigned type;		/* the most common type; 0 unknown */
	bool type_saved;	/* type as recorded (TYPE_SAVE), not decoded */
	enum pda_branch_half half; /* a row of half records: one end is
				    * missing (no direction, no pages) */
	uint64_t by_type[PDA_BR_NR_TYPES]; /* entries per PERF_BR_* type */
	uint64_t cyc_hist[PDA_BRANCH_CYC_BUCKETS];
	uint64_t by_priv[8];	/* PERF_BR_PRIV_*: 0 not recorded */
	uint64_t by_spec[4];	/* PERF_BR_SPEC_*: AMD Zen 4 */
	uint64_t in_tx, abort;
	/* with branch counters (pda_branch_counters): the entries that
	 * carried them, and each column's sum over those
	 * (PDA_BR_CNTR_SATURATED marks one that saturated) */
	uint64_t with_cntr;
	uint64_t cntr[PDA_BR_CNTR_MAX];
	struct pda_branch_loc from, to;
};

/* What the branch stacks held, and what their hardware records. */
struct pda_branch_totals {
	uint64_t nr_samples;	  /* samples added */
	uint64_t nr_stacks;	  /* with a non-empty branch stack */
	uint64_t nr_no_stack;	  /* of an event without BRANCH_STACK */
	uint64_t nr_entries;
	uint64_t with_pred, mispred;
	uint64_t with_cycles, cycles;
	uint64_t nr_resolved;	  /* entries whose ends both have a symbol */
	uint64_t nr_decoded;	  /* types decoded from the instruction */
	uint64_t nr_undecoded;	  /* neither saved nor decodable */
	uint64_t nr_spec;	  /* entries with a speculation outcome */
	uint64_t nr_priv;	  /* entries with a recorded privilege */
	bool type_save;		  /* some event has TYPE_SAVE */
	bool hw_index;		  /* some event has HW_INDEX */
	bool counters;		  /* some event has branch counters */
	uint64_t nr_source_only;  /* BRBE half records (not in nr_resolved's
				   * base: their missing end has no symbol) */
	uint64_t nr_target_only;
	size_t nr_rows;
};

/*
 * Straight-line code that ran: from an entry's `to` to the next newer
 * entry's `from`, both in one binary, which the newer entry's cycles
 * time (Intel LBR_INFO, ARM BRBE), as perf annotate counts them.  A row
 * is one block (by addr), the blocks of a function (by sym: the
 * function of the block's start) or a source line (by srcline: each
 * block's instructions on the line, with its cycles split by
 * instructions).  IPC = cyc_insns / cycles.
 */
struct pda_branch_block {
	struct pda_branch_loc start, end; /* end: by addr only */
	uint64_t count;	      /* executions (of blocks touching the row) */
	uint64_t insns;	      /* instructions of the block (by addr); 0 not
			       * decoded */
	uint64_t executed;    /* instructions run, over all executions */
	uint64_t with_cycles; /* executions timed (cycles > 0) */
	double cycles;	      /* their cycles (a line's share of them) */
	double cyc_insns;     /* instructions run in timed executions */
};

struct pda_branch_block_totals {
	uint64_t nr_ranges;    /* consecutive entry pairs seen */
	uint64_t nr_blocks;    /* those that are a block */
	uint64_t nr_split;     /* ends in different binaries or unmapped */
	uint64_t nr_backward;  /* end before start, or over 64 KiB */
	uint64_t nr_undecoded; /* binary absent, or code not on the ends */
	uint64_t nr_not_any;   /* stacks of an event not sampling every
				* branch (-j any): no ranges told */
	uint64_t nr_half;      /* ranges with an end a BRBE half record
				* did not record */
	uint64_t with_cycles;  /* blocks timed */
	double cycles, cyc_insns; /* of the timed blocks decoded */
	size_t nr_rows;
};

/*
 * An aggregation over session s, which must outlive it.  @return 0 and
 * *out, PD_ERR_API (bad opts) or PD_ERR_NOMEM.
 */
int pda_branch_new(struct pda_session *s, const struct pda_branch_opts *opts,
		   struct pda_branch **out);
/* Accepts NULL. */
void pda_branch_free(struct pda_branch *b);
/* Also sum the entries' branch counters per row by c's columns (group
 * leaders from env), before any pda_branch_add; c and env must outlive
 * b. */
void pda_branch_counters(struct pda_branch *b, const struct pda_brcntr *c,
			 const struct pd_env *env);
/* The columns given to pda_branch_counters, NULL when none. */
const struct pda_brcntr *pda_branch_counters_of(const struct pda_branch *b);

/*
 * Add a decoded sample's branch stack; its ends are resolved in the
 * session's state for the sample (call it from the capture's sample
 * callback, comm the item's).  @return 0 or a negative pd_err.
 */
int pda_branch_add(struct pda_branch *b, const struct pd_sample *sample,
		   const char *comm);

/*
 * Where addr is in sample's process (comm the item's), resolved as a
 * branch end is: the DSO, symbol and offset perf 6.1's
 * thread__find_symbol_fb() finds there, what `perf script -F brstacksym`
 * and brstack's DSOs print.  Resolved once per (pid, comm, addr) and not
 * counted as a branch; *loc is valid until pda_branch_free.  @return 0
 * or a negative pd_err.
 */
int pda_branch_locate(struct pda_branch *b, const struct pd_sample *sample,
		      const char *comm, uint64_t addr,
		      const struct pda_branch_loc **loc);

/*
 * Add a branch sampled on its own, as a one-entry stack: sample's ip the
 * branch, its addr the target (Arm SPE's branch samples, pda_itrace.h).
 * mispred: the hardware said it was mispredicted (perf 6.1's branch-miss
 * samples); else the outcome is unknown, not "predicted".  Counted as a
 * stack of one entry.  @return 0 or a negative pd_err.
 */
int pda_branch_add_sampled(struct pda_branch *b, const struct pd_sample *sample,
			   const char *comm, bool mispred);

/*
 * The length of the instruction at addr in sample's process, as perf
 * 6.1's arch_fetch_insn() decodes it for `perf script -F insnlen`: x86
 * code only (perf has no other decoder), read from the binary; 0 in
 * the kernel (perf reads no kernel code from kallsyms), where the binary
 * is not found or not x86, or where the bytes do not decode.  @return 0
 * and *len, or a negative pd_err.
 */
int pda_branch_insn_len(struct pda_branch *b, const struct pd_sample *sample,
			const char *comm, uint64_t addr, unsigned *len);

/* The same, with the instruction's *len bytes in bytes[0..16) (perf's
 * `perf script -F insn`). */
int pda_branch_insn(struct pda_branch *b, const struct pd_sample *sample,
		    const char *comm, uint64_t addr, unsigned char bytes[16],
		    unsigned *len);

/*
 * The code a branch stack ran, as perf 6.1's perf_sample__fprintf_
 * brstackinsn() walks it for `perf script -F brstackinsn`: the oldest
 * entry's branch alone, then each block from an entry's `to` to the next
 * newer entry's `from` instruction by instruction, then the block from
 * the newest `to` toward the sample's ip.  Instructions are decoded in
 * their binary's architecture (perf decodes with its host's decoder:
 * x86's, also for an aarch64 capture) from the binary's file; kernel
 * code is not read (perf has none from kallsyms), nor a block over 16
 * KiB, one whose ends are in kernel and user space (perf then joins it
 * with the next, as pdtool), or whose binary is not found.
 */
enum pda_bb_kind {
	PDA_BB_SYM,	  /* a function's label: loc (its sym, sym_off) */
	PDA_BB_INSN,	  /* an instruction: addr, bytes */
	PDA_BB_JUMP,	  /* a block's branch: addr, bytes, entry, insns */
	PDA_BB_MISMATCH,  /* the block's code does not end at its branch */
	PDA_BB_NOT_REACHING, /* the last block met a branch before the ip */
};

struct pda_bb_line {
	enum pda_bb_kind kind;
	uint64_t addr;
	const struct pda_branch_loc *loc; /* SYM */
	const unsigned char *bytes;	  /* INSN, JUMP: len bytes (len 0:
					   * the bytes did not decode) */
	unsigned len;
	uint64_t entry;	 /* JUMP: its branch stack entry */
	unsigned insns;	 /* JUMP: instructions of its block, the branch
			  * included; 0 for the oldest entry's (perf
			  * prints no IPC for it) */
};

/*
 * The lines of sample's branch stack (none without one) in *lines,
 * valid until the next call or pda_branch_free.  @return 0 or a
 * negative pd_err.
 */
int pda_branch_insns(struct pda_branch *b, const struct pd_sample *sample,
		     const char *comm, const struct pda_bb_line **lines,
		     size_t *nr);

/* Sort the rows; pda_branch_add may not follow.  @return 0 or NOMEM. */
int pda_branch_finish(struct pda_branch *b, enum pda_branch_sort sort);

/* The rows, in sorted order after pda_branch_finish.  Valid until
 * pda_branch_free. */
size_t pda_branch_nr_rows(const struct pda_branch *b);
const struct pda_branch_row *pda_branch_row(const struct pda_branch *b,
					    size_t i);
const struct pda_branch_totals *pda_branch_totals(const struct pda_branch *b);

/* With opts.blocks: the block rows, sorted by pda_branch_finish's key
 * (count: executions; else cycles), valid until pda_branch_free. */
size_t pda_branch_nr_blocks(const struct pda_branch *b);
const struct pda_branch_block *pda_branch_block(const struct pda_branch *b,
						size_t i);
const struct pda_branch_block_totals *
pda_branch_block_totals(const struct pda_branch *b);

/*
 * Branch history (perf report --branch-history): a sample's branch stack
 * as frames under its callchain.  Each entry, newest first, gives the
 * frame of its `to` then of its `from` (leaf first, so that root first
 * the path reads in the order it ran), after perf's remove_loops() has
 * dropped the repeats of a loop; then st's frames.  Over session s, on
 * its thread, as pda_branch.
 */
struct pda_branch_hist;

int pda_branch_hist_new(struct pda_session *s, struct pda_branch_hist **out);
/* Accepts NULL. */
void pda_branch_hist_free(struct pda_branch_hist *h);

/* What a sample's path held. */
struct pda_branch_hist_info {
	size_t nr_entries;	/* entries read (at most max) */
	size_t nr_kept;		/* on the path, loops' repeats dropped */
	bool mispred;		/* one of the entries read was mispredicted
				 * (also a loop's dropped repeat: the path
				 * keeps its site) */
	bool pred_known;	/* one says mispred or predicted (AMD BRS
				 * says neither) */
};

/*
 * The branch path of sample (its first max entries, as perf takes
 * --max-stack of them) and under it st (the sample's stack, leaf first;
 * NULL: none) in *out, valid until the next call, and *info.  @return 0
 * or a negative pd_err.
 */
int pda_branch_hist_stack(struct pda_branch_hist *h,
			  const struct pd_sample *sample, const char *comm,
			  const struct pda_stack *st, unsigned max,
			  const struct pda_stack **out,
			  struct pda_branch_hist_info *info);

/*
 * Branch counts for annotation (perf annotate with branch stacks): per
 * instruction of a function, the entries taken from it with their
 * prediction, and where entries carry cycles (Intel LBR_INFO, ARM BRBE)
 * the cycles of the blocks that end there and their IPC, as perf
 * annotate's Cycle and IPC columns count them (util/annotate.c
 * symbol__account_cycles(), annotation__compute_ipc() of perf 7.x; perf
 * 6.1 crashes printing them).  Over session s, on its thread, as
 * pda_branch.
 */
struct pda_branch_annot;
struct pda_dso;

int pda_branch_annot_new(struct pda_session *s,
			 struct pda_branch_annot **out);
/* Accepts NULL. */
void pda_branch_annot_free(struct pda_branch_annot *ba);
/* Also sum the entries' branch counters by c's columns (group leaders
 * from env), before any pda_branch_annot_add; c and env must outlive
 * ba. */
void pda_branch_annot_counters(struct pda_branch_annot *ba,
			       const struct pda_brcntr *c,
			       const struct pd_env *env);
/* Account a decoded sample's branch stack (comm the item's).  @return 0
 * or a negative pd_err. */
int pda_branch_annot_add(struct pda_branch_annot *ba,
			 const struct pd_sample *sample, const char *comm);

/*
 * Call fn for each function an entry left (perf's branch mode annotates
 * them, sampled or not): its binary (dso, recorded as dso_name), its name
 * and start (ELF vaddr), whether in the kernel.  Stops at fn's non-zero
 * return and returns it; else 0.
 */
typedef int (*pda_branch_func_fn)(void *arg, struct pda_dso *dso,
				  const char *dso_name, const char *name,
				  uint64_t start, bool kernel);
int pda_branch_annot_each(const struct pda_branch_annot *ba,
			  pda_branch_func_fn fn, void *arg);

struct pda_branch_insn {
	uint64_t taken;		/* entries whose from is this instruction */
	uint64_t with_pred;	/* of them, those that say mispredicted or
				 * predicted */
	uint64_t mispred;
	uint64_t nr_cycles;	/* entries from here with cycles */
	uint64_t cycles_avg;	/* their cycles' average, truncated as
				 * perf's Cycle column; 0: none */
	unsigned cycles_min, cycles_max;
	double ipc;		/* instructions per cycle of the block
				 * ending here, as perf's IPC column; 0:
				 * not known */
	/* with branch counters (pda_branch_annot_counters): each column's
	 * sum over the nr_cycles entries (PDA_BR_CNTR_SATURATED marks a
	 * saturated one), perf's Branch Counter column */
	uint64_t cntr[PDA_BR_CNTR_MAX];
};

/*
 * The counts of the function starting at start (ELF vaddr) in the binary
 * recorded as dso, for its n instructions at addrs (ascending, ELF
 * vaddrs: perf counts a block's instructions among them), into out[n].
 * @return 1 when an entry left the function, 0 none (out zeroed).
 */
int pda_branch_annot_func(const struct pda_branch_annot *ba, const char *dso,
			  uint64_t start, const uint64_t *addrs, size_t n,
			  struct pda_branch_insn *out);

#endif /* PDA_BRANCH_H */
