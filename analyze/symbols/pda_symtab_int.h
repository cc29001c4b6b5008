/*
 * pda_symtab_int.h - the symbol table of one ELF file, shared by
 * pda_symtab.c (building it as perf 6.1 does, and lookups), pda_symtree.c
 * (the red-black tree that replays perf's) and pda_plt.c (PLT entries).
 */
#ifndef PDA_SYMTAB_INT_H
#define PDA_SYMTAB_INT_H

#include "pda_elf_int.h"

#define PDA_SYM_NIL UINT32_MAX
/* The most symbols one file may make us hold (O5). */
#define PDA_SYMS_MAX ((size_t)1 << 26)

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

enum pda_sym_flags {
	PDA_SYM_IFUNC_ALIAS = 1u << 0, /* shares a start with a dropped IFUNC */
	PDA_SYM_INTERNED = 1u << 1,    /* name is interned */
};

/* A node of the replayed tree. */
struct pda_sym {
	uint64_t start, end; /* file offsets, end exclusive */
	uint64_t vaddr;	     /* start as a virtual address */
	const char *name;    /* into the ELF's string table, or interned */
	uint32_t left, right, parent;
	uint8_t red;
	uint8_t binding; /* STB_* */
	uint8_t type;	 /* STT_* */
	uint8_t flags;	 /* pda_sym_flags */
};

/* A PLT entry by perf's current rules: [start, end) in file offsets. */
struct pda_pltent {
	uint64_t start, end;
	uint64_t vaddr;
	const char *name; /* interned */
};

/*
 * Invariants: v[0..nr) holds every node ever inserted, erased ones
 * included (unlinked); root and the links form a red-black tree of the
 * live ones in perf's order; plt[0..nr_plt) is sorted by start and its
 * entries do not overlap.
 */
struct pda_symtab {
	struct pda_sym *v;
	size_t nr, alloc;
	uint32_t root;
	bool demangle; /* names compare demangled, as perf's do */
	bool ahead;    /* built ahead (pda_elf_symtab_ahead): where it would
			* warn it gives up, for the lookup to warn */
	struct pda_pltent *plt;
	size_t nr_plt, plt_alloc;
	struct {
		uint64_t start, end;
	} plt_scn[3]; /* .plt, .plt.got, .plt.sec: plt answers there */
	size_t nr_plt_scn;
	void *minidebug; /* the decompressed .gnu_debugdata */
	Elf *minidebug_elf;
};

/* ---- pda_symtree.c ------------------------------------------------- */

/* Link node n (in v, links unset) in as perf's symbols__insert does. */
void pda_symtree_insert(struct pda_symtab *t, uint32_t n);
/* Unlink node n as rb_erase does. */
void pda_symtree_erase(struct pda_symtab *t, uint32_t n);
/* In-order walk: the first node, the next; PDA_SYM_NIL at the end. */
uint32_t pda_symtree_first(const struct pda_symtab *t);
uint32_t pda_symtree_next(const struct pda_symtab *t, uint32_t n);
/* perf's symbols__find: the node for key, or PDA_SYM_NIL. */
uint32_t pda_symtree_find(const struct pda_symtab *t, uint64_t key);

/* ---- pda_symtab.c -------------------------------------------------- */

/*
 * Append sym to v and insert it into the tree.  @return 0, PD_ERR_NOMEM,
 * or PD_ERR_UNSUPPORTED past PDA_SYMS_MAX.
 */
int pda_symtab_add(struct pda_session *s, struct pda_symtab *t,
		   const struct pda_sym *sym, uint32_t *idx);

/* ---- pda_plt.c ----------------------------------------------------- */

/* perf 6.1's PLT symbols, into the tree. */
int pda_plt_perf61(struct pda_session *s, struct pda_symtab *t,
		   const struct pda_elf *e);
/* The PLT entries by perf's current rules, into plt (sorted). */
int pda_plt_current(struct pda_session *s, struct pda_symtab *t,
		    const struct pda_elf *e);
/*
 * The PLT entry holding key, or NULL; *in_plt tells whether key is in a
 * PLT section at all.
 */
const struct pda_pltent *pda_plt_find(const struct pda_symtab *t, uint64_t key,
				      bool *in_plt);

#endif /* PDA_SYMTAB_INT_H */
