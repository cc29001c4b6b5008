/*
 * pda_a2lsym.c - the ELF symbol binutils' addr2line names an address
 * after where DWARF does not name it (bfd's elf_find_function and
 * better_fit in elf.c), which perf 6.1 shows on DWARF-unwound frames: it
 * runs addr2line on every such frame for its inlined functions, and takes
 * the name addr2line prints.  Aliases are where it differs from perf's own
 * symbol choice: of the symbols at one address, bfd keeps the first in
 * table order ("sinf64" where perf picks "sinf32x").
 *
 * The table is .symtab, else .dynsym (addr2line reads the dynamic one
 * when the static one is empty); a symbol counts when it is no object,
 * section, file or TLS symbol, lies in the section holding the address
 * and starts at or below it.
 */
#include "pda_elf_int.h"

#include <string.h>

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

struct fit {
	uint64_t off, size; /* the best so far: start and extent */
	int type;	    /* its STT_ */
	const char *name;
};

/* bfd's better_fit: whether a symbol at off, size, type beats best. */
static bool better(const struct fit *best, uint64_t off, uint64_t size,
		   int type, uint64_t vaddr)
{
	bool fn, best_fn;

	if (!best->name || off > best->off)
		return true;
	if (off < best->off)
		return false;
	if (best->off + best->size <= vaddr)
		return size > best->size;
	if (off + size <= vaddr)
		return false;
	fn = type == STT_FUNC || type == STT_GNU_IFUNC;
	best_fn = best->type == STT_FUNC || best->type == STT_GNU_IFUNC;
	if (fn != best_fn)
		return fn;
	if ((best->type == STT_NOTYPE) != (type == STT_NOTYPE))
		return best->type == STT_NOTYPE;
	return size < best->size;
}

/* The best symbol of table scn for vaddr in section shndx into *f. */
static void scan(const struct pda_elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
		 size_t shndx, uint64_t vaddr, struct fit *f)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 1; data && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		uint64_t size;
		int type;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx != shndx ||
		    sym.st_value > vaddr)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_OBJECT || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		/* annobin's markers: hidden local untyped, size 0 */
		if (!sym.st_size && GELF_ST_BIND(sym.st_info) == STB_LOCAL &&
		    type == STT_NOTYPE &&
		    GELF_ST_VISIBILITY(sym.st_other) == STV_HIDDEN)
			continue;
		size = sym.st_size ? sym.st_size : 1;
		if (!better(f, sym.st_value, size, type, vaddr))
			continue;
		name = elf_strptr(e->elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		f->off = sym.st_value;
		f->size = size;
		f->type = type;
		f->name = name;
	}
}

int pda_elf_symbol_a2l(struct pda_session *s, struct pda_elf *e,
		       uint64_t vaddr, const char **name, uint64_t *start)
{
	struct fit f = {0, 0, 0, NULL};
	Elf_Scn *scn = NULL, *tab;
	GElf_Shdr sh, tsh;
	size_t shndx = 0;

	while ((scn = elf_nextscn(e->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    sh.sh_type != SHT_NOBITS && sh.sh_addr <= vaddr &&
		    vaddr - sh.sh_addr < sh.sh_size) {
			shndx = elf_ndxscn(scn);
			break;
		}
	if (!shndx)
		return PD_ERR_NOTFOUND;
	tab = pda_elf_find_table(e->elf, SHT_SYMTAB, &tsh, NULL);
	if (!tab || tsh.sh_size <= tsh.sh_entsize)
		tab = pda_elf_find_table(e->elf, SHT_DYNSYM, &tsh, NULL);
	if (tab)
		scan(e, tab, &tsh, shndx, vaddr, &f);
	if (!f.name)
		return PD_ERR_NOTFOUND;
	*name = pda_intern(s, f.name, strlen(f.name));
	*start = f.off;
	return *name ? 0 : PD_ERR_NOMEM;
}
