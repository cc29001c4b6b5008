/*
 * pda_got.c - what a GOT slot of a binary holds once the dynamic linker
 * has filled it: the address of a global variable that position-
 * independent code loads before it accesses the variable (x86_64's mov
 * foo@GOTPCREL(%rip), aarch64's adrp + ldr :got_lo12:, ppc64's ld from
 * the TOC, s390x's lgrl foo@GOTENT), for data-type attribution.
 *
 * The file says it without running the loader: the dynamic relocation
 * that fills the slot (GLOB_DAT or an absolute word against a symbol:
 * the symbol's value plus the addend; RELATIVE: the addend) or, with no
 * relocation, the word the static linker left in .got (an executable
 * that is not position-independent).  A symbol the binary does not
 * define (a PIE's extern variable of a shared library) is given by its
 * name.  Built once per binary, on the first lookup.
 */
#include "pda_elf_int.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* A slot a dynamic relocation fills. */
struct gotent {
	uint64_t slot;
	uint64_t addr;	   /* defined: the variable's vaddr */
	const char *name;  /* not defined here: its symbol's, interned */
};

struct pda_got {
	struct gotent *ents; /* sorted by slot */
	size_t nr, alloc;
	uint64_t got_lo, got_hi; /* .got: static words */
	bool built;
};

/* Caps a binary's table (O5). */
#define MAX_GOT_ENTS ((size_t)1 << 22)

void pda_got_free(struct pda_session *s, struct pda_got *g)
{
	if (!g)
		return;
	pda_free(s, g->ents);
	pda_free(s, g);
}

/* How a relocation of type on machine fills a slot. */
enum fill { FILL_NONE, FILL_SYM, FILL_RELATIVE };

/* Each machine's relocation types that fill GOT slots: GLOB_DAT, the
 * absolute word against a symbol (ld fills ppc64's GOT and TOC words
 * with ADDR64) and RELATIVE. */
static const struct {
	uint16_t machine;
	unsigned glob_dat, abs, relative;
} fills[] = {
	{EM_X86_64, R_X86_64_GLOB_DAT, R_X86_64_64, R_X86_64_RELATIVE},
	{EM_386, R_386_GLOB_DAT, R_386_32, R_386_RELATIVE},
	{EM_AARCH64, R_AARCH64_GLOB_DAT, R_AARCH64_ABS64, R_AARCH64_RELATIVE},
	{EM_ARM, R_ARM_GLOB_DAT, R_ARM_ABS32, R_ARM_RELATIVE},
	{EM_PPC64, R_PPC64_GLOB_DAT, R_PPC64_ADDR64, R_PPC64_RELATIVE},
	{EM_S390, R_390_GLOB_DAT, R_390_64, R_390_RELATIVE},
};

static enum fill fill_of(uint16_t machine, unsigned type)
{
	for (size_t i = 0; i < sizeof(fills) / sizeof(*fills); i++) {
		if (fills[i].machine != machine)
			continue;
		return type == fills[i].glob_dat || type == fills[i].abs
			       ? FILL_SYM
		       : type == fills[i].relative ? FILL_RELATIVE
						   : FILL_NONE;
	}
	return FILL_NONE;
}

/* The word of the file at vaddr (e's class and byte order), or false. */
static bool word_at(struct pda_elf *e, uint64_t vaddr, uint64_t *out)
{
	const unsigned char *p;
	size_t len;
	const size_t size = e->is64 ? 8 : 4;
	const bool msb = elf_getident(e->elf, NULL)[EI_DATA] == ELFDATA2MSB;

	if (pda_elf_code(e, vaddr, size, &p, &len) || len < size)
		return false;
	*out = 0;
	for (size_t i = 0; i < size; i++)
		*out |= (uint64_t)p[msb ? i : size - 1 - i] << 8 * (size - 1 - i);
	return true;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct gotent *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* One relocation r of a table whose symbols are syms (string table
 * strndx): its slot into g when it fills one. */
static int add_rel(struct pda_session *s, struct pda_elf *e,
		   struct pda_got *g, const GElf_Rela *r, bool rela,
		   Elf_Data *syms, size_t strndx)
{
	/* gelf_getrel(a) gives a 32-bit file's r_info in GElf's (64-bit)
	 * layout: ELF32_R_SYM() of it would be the index shifted by 24 */
	const enum fill f = fill_of(e->machine, (unsigned)GELF_R_TYPE(r->r_info));
	const uint32_t symidx = (uint32_t)GELF_R_SYM(r->r_info);
	uint64_t addend = (uint64_t)r->r_addend;
	struct gotent ent = {.slot = r->r_offset};
	GElf_Sym sym;

	if (f == FILL_NONE)
		return 0;
	/* REL: the addend is the word in place */
	if (!rela && !word_at(e, r->r_offset, &addend))
		return 0;
	if (f == FILL_RELATIVE) {
		ent.addr = addend;
	} else {
		const char *name;

		if (!syms || !gelf_getsym(syms, (int)symidx, &sym) ||
		    GELF_ST_TYPE(sym.st_info) == STT_FUNC ||
		    GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC)
			return 0;
		if (sym.st_shndx != SHN_UNDEF) {
			ent.addr = sym.st_value + addend;
		} else {
			name = elf_strptr(e->elf, strndx, sym.st_name);
			if (!name || !*name || addend)
				return 0;
			ent.name = pda_intern(s, name, strlen(name));
			if (!ent.name)
				return PD_ERR_NOMEM;
		}
	}
	if (PDC_GROW(pda_session_alloc(s), g->ents, g->alloc, g->nr + 1,
		     MAX_GOT_ENTS) < 0)
		return PD_ERR_NOMEM;
	g->ents[g->nr++] = ent;
	return 0;
}

/* Every allocated (dynamic) relocation section's slots into g. */
static int build(struct pda_session *s, struct pda_elf *e, struct pda_got *g)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, got;
	int rc;

	g->built = true;
	if (pda_elf_section(e, ".got", &got) && got.sh_type != SHT_NOBITS) {
		g->got_lo = got.sh_addr;
		g->got_hi = got.sh_addr + got.sh_size;
	}
	while ((scn = elf_nextscn(e->elf, scn))) {
		Elf_Data *data, *syms = NULL;
		GElf_Shdr symsh;
		Elf_Scn *symscn;
		size_t nr;
		bool rela;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) ||
		    !(sh.sh_flags & SHF_ALLOC) || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		rela = sh.sh_type == SHT_RELA;
		symscn = elf_getscn(e->elf, sh.sh_link);
		if (symscn && gelf_getshdr(symscn, &symsh) &&
		    symsh.sh_type == SHT_DYNSYM)
			syms = elf_getdata(symscn, NULL);
		nr = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < nr; i++) {
			GElf_Rela r;
			GElf_Rel rl;

			if (rela) {
				if (!gelf_getrela(data, (int)i, &r))
					break;
			} else {
				if (!gelf_getrel(data, (int)i, &rl))
					break;
				r.r_offset = rl.r_offset;
				r.r_info = rl.r_info;
				r.r_addend = 0;
			}
			rc = add_rel(s, e, g, &r, rela, syms,
				     syms ? symsh.sh_link : 0);
			if (rc)
				return rc;
		}
	}
	if (g->nr > 1)
		qsort(g->ents, g->nr, sizeof(*g->ents), cmp_ent);
	return 0;
}

int pda_elf_got_slot(struct pda_session *s, struct pda_elf *e, uint64_t slot,
		     uint64_t *addr, const char **name)
{
	struct pda_got *g = e->got;
	size_t lo = 0, hi;
	int rc;

	*addr = 0;
	*name = NULL;
	if (!g) {
		g = e->got = pda_zalloc(s, sizeof(*g));
		if (!g)
			return PD_ERR_NOMEM;
	}
	if (!g->built && (rc = build(s, e, g)) < 0) {
		g->nr = 0;
		g->built = false;
		return rc;
	}
	hi = g->nr;
	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;

		if (g->ents[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->nr && g->ents[lo].slot == slot) {
		*addr = g->ents[lo].addr;
		*name = g->ents[lo].name;
		return 0;
	}
	/* no relocation: the static linker's word, in .got */
	if (slot >= g->got_lo && slot < g->got_hi && word_at(e, slot, addr) &&
	    *addr && pda_elf_seg_of_vaddr(e, *addr))
		return 0;
	*addr = 0;
	return PD_ERR_NOTFOUND;
}
