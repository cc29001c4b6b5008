/*
 * pda_branch_int.h - what pda_branch.c (the (from, to) table) and
 * pda_branch_blocks.c (the basic blocks between entries) share: the
 * aggregation's state, the resolved addresses and the capstone handle.
 */
#ifndef PDA_BRANCH_INT_H
#define PDA_BRANCH_INT_H

#include "pda_branch.h"
#include "pda_annotate_int.h"
#include "pdc_workq.h"

/* A resolved address of a process. */
struct loc_ent {
	uint32_t pid;
	const char *comm;
	uint64_t addr;
	struct pda_branch_loc loc;
	struct pda_dso *dso;
	uint64_t dso_addr;
	int type; /* decoded PERF_BR_*; -1 not tried */
};

struct block_ent; /* pda_branch_blocks.c */
struct row_ent;	  /* pda_branch.c */

/* A (from, to) entry seen lately in a process, with its row and ends:
 * the same branches come again and again, and the row of a pair never
 * changes (its ends are resolved once per (pid, comm, addr)).  What is
 * the same for every entry of the pair (direction, pages, both ends
 * resolved, the decoded type, user or kernel) is counted here, n times,
 * and added to the row and totals once, when the pair leaves the cache
 * or at pda_branch_finish(): per entry only what the entry records is
 * counted (pair_flush in pda_branch.c). */
struct pair_ent {
	uint32_t pid;
	const char *comm;
	uint64_t from, to;
	struct row_ent *row;
	struct loc_ent *f, *t;
	uint64_t n;	   /* entries since the pair was cached */
	uint64_t n_dec;	   /* of those, typed by decoding (no saved type) */
	uint64_t n_nopriv; /* of those, without a recorded privilege */
	int dtype;	   /* the decoded type; -1 not decoded yet */
	uint8_t half;	   /* enum pda_branch_half */
	bool resolved, kernel, fwd, c4k, c2m;
};

/* a function kept out of its caller, so that the caller's frame stays
 * small (GCC, clang); COLD: one off the hot path too */
#define PDA_BRANCH_NOINLINE __attribute__((noinline))
#define PDA_BRANCH_COLD __attribute__((noinline, cold))
/* a hot path's step the compiler would otherwise call */
#define PDA_BRANCH_INLINE inline __attribute__((always_inline))

#define PDA_BRANCH_PAIRS_BITS 12 /* direct-mapped, 4096 slots */
#define PDA_BRANCH_PAIRS (1u << PDA_BRANCH_PAIRS_BITS)

struct pda_branch {
	struct pda_session *s;
	struct pda_branch_opts opts;
	struct pdc_hash locs, rows;
	struct pair_ent *pairs; /* [PDA_BRANCH_PAIRS], allocated on use */
	struct row_ent **sorted;
	size_t nr_rows, alloc_rows;
	struct pda_stack st;
	struct pda_branch_totals t;
	bool finished;
	struct pda_annot_cs cs; /* for the arch and mode last decoded */
	/* pda_branch_blocks.c: the blocks by (dso, start, end), and the
	 * rows they make at the level asked, sorted */
	struct pdc_hash blocks, units;
	struct block_ent *all_blocks;
	struct pda_branch_block **bsorted;
	size_t nr_units, alloc_units;
	struct pda_branch_block_totals bt;
	/* pda_branch_bb.c: one sample's brstackinsn lines */
	struct pda_bb_line *bb;
	size_t nr_bb, alloc_bb;
	/* an aarch64 capture: an entry with one end 0 is a BRBE half
	 * record, whose missing end is `missing` */
	bool brbe;
	struct loc_ent missing;
	/* branch counters summed per row, or NULL (pda_branch_counters) */
	const struct pda_brcntr *cntr;
	const struct pd_env *env;
	const char *last_comm; /* the comm interned last (interned) */
	/* opts.threaded: the entries' counting thread (pda_branch.c).  The
	 * caller's pairs then only name their slot: the counter's wpairs
	 * count, each slot's pair as the caller last defined it */
	struct pdc_workq *wq;
	uint64_t *hw;		     /* the caller's next word to write */
	const struct pd_evsel *hw_ev; /* the event handed over last */
	struct pair_ent *wpairs;     /* the counter's [PDA_BRANCH_PAIRS] */
	const struct pd_evsel *w_ev; /* the counter's event */
};

/* pd_branch.flags_raw's bits: the flags word in the usual layout */
#define PDA_BRANCH_FL_MASK ((UINT64_C(1) << 34) - 1)

/*
 * Entry i of sample: its ends, and its flags word in the usual (little-
 * endian kernel's) layout, pd_branch.flags_raw's.  Read in place where
 * the capture has that layout (no bit fields filled: the branch views'
 * hot path), else through pd_sample_branch().
 */
static PDA_BRANCH_INLINE uint64_t pda_branch_entry(const struct pd_sample *s,
						   uint64_t i, uint64_t *from,
						   uint64_t *to)
{
	const unsigned char *p = s->branch.entries + i * 24;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	const bool usual = s->swap;
#else
	const bool usual = !s->swap;
#endif
	struct pd_branch br;

	if (usual) {
		*from = pd_load_u64(p, s->swap);
		*to = pd_load_u64(p + 8, s->swap);
		return pd_load_u64(p + 16, s->swap) & PDA_BRANCH_FL_MASK;
	}
	pd_sample_branch(s, i, &br);
	*from = br.from;
	*to = br.to;
	return br.flags_raw;
}

/* The address resolved in the sample's process, once per (pid, comm,
 * addr); NULL and *err on failure. */
struct loc_ent *pda_branch_resolve(struct pda_branch *b,
				   const struct pd_sample *sample,
				   const char *comm, uint64_t addr, int *err);

/* The ELF of e's binary, NULL when it was not found. */
static inline struct pda_elf *pda_branch_elf(const struct loc_ent *e)
{
	return e->dso && e->dso->state == PDA_DSO_FOUND ? e->dso->elf : NULL;
}

/* Open b->cs for elf's code at vaddr.  @return 1, 0 (no capstone target
 * for it) or PD_ERR_NOMEM. */
int pda_branch_cs(struct pda_branch *b, struct pda_elf *elf,
		  uint64_t vaddr);

/* The PERF_BR_* type of a decoded instruction (b's open architecture);
 * 0 when it is no branch or one not told. */
unsigned pda_branch_insn_type(const struct pda_branch *b, const cs_insn *in);

/* Account the blocks of a branch stack (pda_branch_add, opts.blocks). */
int pda_branch_blocks_add(struct pda_branch *b,
			  const struct pd_sample *sample, const char *comm,
			  bool any);
int pda_branch_blocks_finish(struct pda_branch *b,
			     enum pda_branch_sort sort);
void pda_branch_blocks_free(struct pda_branch *b);

/* ---- perf's cycle histograms of symbols (pda_branch_cyc.c) ---------- */

/* One byte of a symbol where branches leave it (util/annotate.h's
 * cyc_hist): the block kept for IPC (start, cycles, num) and every
 * entry's cycles (the *_aggr, min and max: the average perf prints). */
struct pda_bcyc_slot {
	uint64_t start, cycles, cycles_aggr;
	uint32_t num, num_aggr;
	unsigned cycles_min, cycles_max;
	uint8_t have_start;
	uint16_t reset;
};

/* The entries leaving a symbol from one byte (annotate's columns). */
struct pda_bcyc_taken {
	uint64_t taken, with_pred, mispred;
};

struct pda_bcyc_sym {
	struct pda_dso *dso;
	const char *dso_name;	  /* as recorded (the map's) */
	const char *name;	  /* as the session names it */
	bool kernel;
	uint64_t start, size;	  /* the symbol's, in the DSO's space */
	struct pda_bcyc_slot *ch; /* [size] once a branch leaves it with
				   * cycles */
	struct pda_bcyc_taken *tk; /* [size] with taken counting */
	uint64_t *cntr;		  /* [size * counters' nr] with branch
				   * counters: their sums per slot */
	bool done;		  /* pda_branch_rep.c: ipc computed */
	double ipc, cover;
};

/* The histograms by (DSO, symbol start), over a pda_branch's resolving. */
struct pda_bcyc {
	struct pda_branch *b;
	struct pdc_hash syms;
	bool taken; /* also count each entry at its from (pda_bcyc_taken) */
	/* branch counters summed per slot, or NULL (pda_bcyc_counters) */
	const struct pda_brcntr *cntr;
	const struct pd_env *env;
};

void pda_bcyc_init(struct pda_bcyc *c, struct pda_branch *b, bool taken);
void pda_bcyc_release(struct pda_bcyc *c);
/* Also sum the entries' branch counters, as c's columns (cntr->nr 0:
 * none); both must outlive c. */
static inline void pda_bcyc_counters(struct pda_bcyc *c,
				     const struct pda_brcntr *cntr,
				     const struct pd_env *env)
{
	c->cntr = cntr && cntr->nr ? cntr : NULL;
	c->env = env;
}
/* The symbol e is in, by the binary's symbol table (its extent is what
 * perf's annotation spans); NULL where e has no symbol or binary, or
 * *err. */
struct pda_bcyc_sym *pda_bcyc_sym_of(struct pda_bcyc *c,
				     const struct loc_ent *e, int *err);
/* The symbol at start of the DSO recorded as dso, NULL if no entry left
 * it. */
const struct pda_bcyc_sym *pda_bcyc_find(const struct pda_bcyc *c,
					 const char *dso, uint64_t start);
/* Account a sample's branch stack.  @return 0 or a negative pd_err. */
int pda_bcyc_add(struct pda_bcyc *c, const struct pd_sample *sample,
		 const char *comm);

#endif /* PDA_BRANCH_INT_H */
