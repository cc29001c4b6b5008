/*
 * pda_elf_int.h - what pda_elf.c, pda_symtab.c, pda_dwarf.c and
 * pda_a2lsym.c share about an open ELF file.  Nothing outside those files
 * includes it:
 * the rest of libpda sees struct pda_elf only through pda_symbols_int.h.
 */
#ifndef PDA_ELF_INT_H
#define PDA_ELF_INT_H

#include "pda_symbols_int.h"

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

/* A PT_LOAD segment: file bytes [offset, offset + filesz) are mapped at
 * [vaddr, vaddr + memsz). */
struct pda_elf_seg {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t filesz;
	uint64_t memsz;
};

struct pda_symtab; /* pda_symtab.c */
struct pda_a2l;	   /* pda_a2lsym.c */
struct pda_dwarf;  /* pda_dwarf.c */
struct pda_dwtype; /* pda_dwtype.c */
struct pda_got;    /* pda_got.c */

/*
 * Invariants: elf is a valid ELF_K_ELF handle over the mapped file (fd
 * already closed); segs[0..nr_segs) are the PT_LOAD headers in file
 * order; the symbol table and DWARF are built at most once
 * (syms_state/dwarf_state leave 0 for good).
 */
struct pda_elf {
	Elf *elf;
	const char *path; /* interned */
	uint16_t type;	  /* e_type */
	uint16_t machine; /* e_machine */
	bool is64;
	size_t shstrndx;
	struct pda_elf_seg *segs;
	size_t nr_segs;
	/* read at open, so that unwinding threads never call libelf on
	 * this handle (pda_elf_image, pda_elf_load_span) */
	const unsigned char *image;
	size_t image_size;
	bool has_debug_frame; /* a .debug_frame (or .zdebug_frame) */
	/* a .symtab or .dynsym: pda_elf_has_symbols() is asked for each
	 * address without a symbol (a stripped binary's, most of them),
	 * and walking the section headers took ~2k instructions each */
	bool has_tables;
	bool compressed;      /* a section is SHF_COMPRESSED */
	bool from_file;	      /* opened from path (pda_elf_open) */
	bool has_span;
	uint64_t span_lo, span_hi;
	unsigned char build_id[PDA_BUILD_ID_MAX];
	unsigned build_id_size;
	const char *debuglink; /* interned, or NULL */
	uint32_t debuglink_crc;
	struct pda_elf *debug; /* pda_elf_set_debug, not owned */
	const char *altlink;   /* .gnu_debugaltlink's name, or NULL */
	unsigned char altlink_id[PDA_BUILD_ID_MAX];
	unsigned altlink_id_size;
	struct pda_elf *alt; /* pda_elf_set_alt, not owned */

	int syms_state; /* 0 untried, 1 built, <0 error */
	bool syms_ahead_failed; /* pda_elf_symtab_ahead gave up: not again */
	struct pda_symtab *syms;
	int dwarf_state; /* 0 untried, 1 open, <0 none */
	struct pda_dwarf *dwarf;
	struct pda_a2l *a2l; /* pda_a2lsym.c's index, made on first use */
	struct pda_dwtype *dwtype; /* pda_dwtype.c's globals and CFI */
	struct pda_got *got;	   /* pda_got.c's slots, made on first use */
};

/* The section named name (its header in *shdr), or NULL. */
Elf_Scn *pda_elf_section(const struct pda_elf *e, const char *name,
			 GElf_Shdr *shdr);
/* The first section of type (SHT_SYMTAB, SHT_DYNSYM) in elf, its index
 * in *idx when idx is not NULL; or NULL. */
Elf_Scn *pda_elf_find_table(Elf *elf, Elf64_Word type, GElf_Shdr *sh,
			    size_t *idx);
/* A section's name, or "" (never NULL). */
const char *pda_elf_scn_name(const struct pda_elf *e, const GElf_Shdr *shdr);
/*
 * The PT_LOAD segment holding vaddr in memory ([vaddr, vaddr +
 * max(memsz, filesz))), the first in header order as perf takes it, or
 * NULL.
 */
const struct pda_elf_seg *pda_elf_seg_of_vaddr(const struct pda_elf *e,
					       uint64_t vaddr);

/*
 * vaddr to a file offset, pda_elf_offset_to_vaddr's inverse (page slack
 * included): the address space perf keys symbols by.  0 or NOTFOUND.
 */
int pda_elf_vaddr_to_offset(const struct pda_elf *e, uint64_t vaddr,
			    uint64_t *off);

/*
 * pda_elf_symbol as perf 6.1 itself answers, PLT included (its PLT
 * symbols, which the tree holds, instead of the current rules): for tests
 * that compare with perf 6.1 address by address.
 */
int pda_elf_symbol_perf61(struct pda_session *s, struct pda_elf *e,
			  uint64_t vaddr, const char **name, uint64_t *start,
			  uint64_t *size);

void pda_symtab_free(struct pda_session *s, struct pda_symtab *t);
void pda_a2l_free(struct pda_session *s, struct pda_a2l *a);
void pda_dwarf_free(struct pda_session *s, struct pda_dwarf *d);
void pda_dwtype_free(struct pda_session *s, struct pda_dwtype *t);
void pda_got_free(struct pda_session *s, struct pda_got *g);

/*
 * The compilation unit holding vaddr in e's DWARF (its own or its debug
 * file's), loaded on first use.  @return 1 and *cudie, 0 none (no DWARF
 * or no unit there), or PD_ERR_NOMEM.
 */
int pda_dwarf_unit(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		   Dwarf_Die *cudie);
/* e's DWARF handle (loaded on first use), or NULL: none.  Valid while
 * e is open. */
Dwarf *pda_dwarf_handle(struct pda_session *s, struct pda_elf *e);

/*
 * Load ahead, on any thread that owns e for the while (pda_dwahead.c),
 * what the first DWARF lookup at vaddr would: e's DWARF opened (its
 * compressed sections inflated), the unit at vaddr found (aranges) and
 * indexed, its line table read.  Nothing that would warn: that is left
 * for the lookup on the session's thread.  Answers do not change.
 * @return 0 or NOMEM (e stays consistent).
 */
int pda_elf_dwarf_ahead(struct pda_session *s, struct pda_elf *e,
			uint64_t vaddr);
/* e's table of addr2line's symbols (pda_a2lsym.c), read ahead of its
 * first lookup in the same way.  0 or NOMEM. */
int pda_elf_a2l_ahead(struct pda_session *s, struct pda_elf *e);
/* e's symbol table (pda_symtab.c), built ahead of its first lookup in
 * the same way; the names it interns and demangles take pda_intern's
 * lock.  0 or NOMEM. */
int pda_elf_symtab_ahead(struct pda_session *s, struct pda_elf *e);

#endif /* PDA_ELF_INT_H */
