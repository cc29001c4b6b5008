/*
 * pda_branch_int.h - what pda_branch.c (the (from, to) table) and
 * pda_branch_blocks.c (the basic blocks between entries) share: the
 * aggregation's state, the resolved addresses and the capstone handle.
 */
#ifndef PDA_BRANCH_INT_H
#define PDA_BRANCH_INT_H

#include "pda_branch.h"
#include "pda_annotate_int.h"

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

struct pda_branch {
	struct pda_session *s;
	struct pda_branch_opts opts;
	struct pdc_hash locs, rows;
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
};

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

/* Account the blocks of a branch stack (pda_branch_add, opts.blocks). */
int pda_branch_blocks_add(struct pda_branch *b,
			  const struct pd_sample *sample, const char *comm,
			  bool any);
int pda_branch_blocks_finish(struct pda_branch *b,
			     enum pda_branch_sort sort);
void pda_branch_blocks_free(struct pda_branch *b);

#endif /* PDA_BRANCH_INT_H */
