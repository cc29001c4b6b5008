/*
 * pda_annotate_int.h - what the annotation's files share: the sample
 * counts (pda_annotate.c), the disassembly of one function
 * (pda_annotate_func.c) and the source files (pda_annotate_src.c).
 */
#ifndef PDA_ANNOTATE_INT_H
#define PDA_ANNOTATE_INT_H

#include "pda_symbols_int.h"
#include "pda_stack_int.h"
#include "pda_annotate.h"

#include <capstone/capstone.h>

/*
 * capstone's arch and mode for a binary of architecture ar (thumb: ARM
 * code in Thumb state); false when capstone (4.0 has no RISC-V) or we do
 * not know it.  *unit is the step over bytes that do not decode.  Shared
 * with analyze/branch, which decodes branch types in the capture's
 * architecture.
 */
bool pda_annot_cs_target(const struct pda_elf_arch *ar, bool thumb,
			 cs_arch *arch, cs_mode *mode, unsigned *unit);

/*
 * The direct target of branch in (decoded with details in arch), its
 * immediate operand, into *target; false when it has none.  Shared with
 * analyze/datatype, whose walk follows forward branches.
 */
bool pda_annot_branch_target(cs_arch arch, const cs_insn *in,
			     uint64_t *target);

/*
 * A capstone handle kept for the last architecture and mode asked for,
 * with details on and one instruction to decode into (cs_disasm_iter):
 * what analyze/branch and analyze/datatype decode single instructions
 * with.  Zero-initialized is closed.
 */
struct pda_annot_cs {
	bool open;
	csh h;
	cs_arch arch;
	cs_mode mode;
	cs_insn *insn;
};

/* Have c open for arch and mode, reopening it for others.  @return 0,
 * PD_ERR_UNSUPPORTED (capstone refuses them) or PD_ERR_NOMEM. */
int pda_annot_cs_use(struct pda_annot_cs *c, cs_arch arch, cs_mode mode);
void pda_annot_cs_release(struct pda_annot_cs *c);

/* Samples at one address of a function, for every event. */
struct annot_addr {
	const struct pda_dso *dso; /* with vaddr, its key in pda_annot.addrs */
	uint64_t vaddr;
	struct annot_sym *sym;
	struct annot_addr *next_in_sym;
	struct annot_addr *next_all;
	struct pda_annot_count counts[]; /* [nr_events] */
};

/* A function with samples. */
struct annot_sym {
	struct pda_annot_sym pub; /* in pda_annot.syms, by (dso, pub.start) */
	struct pda_dso *dso;
	/* the session's size of it (perf's symbol__size()): a function
	 * without a binary (JIT code of a perf-PID.map) still has one */
	uint64_t size;
	struct annot_addr *addrs; /* its addresses, in no order */
	size_t nr_addrs;
	struct annot_sym *next_all;
	struct pda_annot_count counts[]; /* [nr_events], pub.counts */
};

struct annot_srcfile; /* pda_annotate_src.c */

/*
 * Invariants: every annot_addr is in addrs and on its symbol's list;
 * every annot_sym is in syms and on all_syms; sorted holds them all,
 * ranked, once finished.  Nothing is freed before pda_annot_free().
 */
struct pda_annot {
	struct pda_session *s;
	struct pda_annot_opts opts;
	struct pdc_hash addrs;
	struct pdc_hash syms;
	struct annot_addr *all_addrs;
	struct annot_sym *all_syms;
	size_t nr_syms;
	struct annot_sym **sorted;
	bool finished;
	struct pda_stack st;
	struct pda_annot_count *totals; /* [nr_events] */
	uint64_t nr_unresolved;
	struct pdc_hash srcfiles; /* pda_annotate_src.c */
	struct annot_srcfile *all_srcfiles;
	bool host_src;		  /* opts.host_sources, decided */
	size_t nr_withheld;	  /* pda_annot_nr_withheld() */
	char path[PDA_PATH_MAX];  /* scratch for source paths */
};

/* The binary function sym (an annotation's) is in; NULL: none. */
struct pda_dso *pda_annot_sym_dso(const struct pda_annot_sym *sym);

/* Decide opts.host_sources for the session's capture. */
void pda_annot_src_init(struct pda_annot *a);
void pda_annot_src_release(struct pda_annot *a);

/* ---- Power10's prefixed loads and stores (pda_ppcpfx.c) ---------- */

/* A prefixed load, store or paddi, decoded. */
struct pda_ppc_pfx {
	int rt;		  /* the suffix's RT (RS of a store) */
	int ra;		  /* its RA: the base, 0 none */
	bool pcrel;	  /* R 1: the address is the prefix's plus disp */
	int64_t disp;	  /* 34 bits, sign-extended */
	bool addi;	  /* paddi (pla, pli): RT = RA (or the pc) + disp */
	bool store;
	bool gpr;	  /* RT a general-purpose register */
	unsigned size;	  /* bytes moved */
	unsigned reg;	  /* RT's register file (pda_ppcpfx.c) */
	const char *name; /* objdump's mnemonic (static) */
};

/* Whether word (in the host's order) is a prefix: primary opcode 1. */
bool pda_ppc_is_prefix(uint32_t word);

/* The prefixed instruction prefix, suffix into *out: false when it is
 * no MLS:D or 8LS:D load or store, nor paddi. */
bool pda_ppc_prefixed(uint32_t prefix, uint32_t suffix,
		      struct pda_ppc_pfx *out);

/* pda_ppc_prefixed(), and the operands as objdump prints them (a
 * PC-relative one's address, the prefix's at addr plus disp, as its
 * "# 1ff28" comment) into ops, len bytes, with capstone's ", " between
 * them as the rest of the listing; also true, with out->name and no
 * memory access (size 0, not addi), for pnop and the 8RR:D immediate
 * splats (xxspltidp, xxspltiw, xxsplti32dx). */
bool pda_ppc_prefixed_text(uint32_t prefix, uint32_t suffix, uint64_t addr,
			   struct pda_ppc_pfx *out, char *ops, size_t len);

#endif /* PDA_ANNOTATE_INT_H */
