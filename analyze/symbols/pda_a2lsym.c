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

#include <stdlib.h>
#include <string.h>

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

struct fit {
	uint64_t off, size; /* the best so far: start and extent */
	int type;	    /* its STT_ */
	const char *name;
	const char *file;   /* its STT_FILE as bfd gives it, or NULL */
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

/*
 * The symbols a lookup may pick, read once per file: by section, then
 * address, table order kept among equal addresses (bfd's tie-break runs
 * in table order).  Invariants: v[0..nr) sorted by (shndx, off, idx).
 */
struct a2l_sym {
	uint64_t off, size; /* st_value; st_size, 1 when 0 */
	size_t idx;	    /* in the table */
	const char *name;   /* in the file's string table */
	const char *file;   /* the STT_FILE bfd names its source after */
	size_t shndx;
	int type;
};

/* A section addresses are looked up in: SHF_ALLOC, with file bytes. */
struct a2l_sec {
	uint64_t addr, size;
	size_t shndx;
};

struct pda_a2l {
	struct a2l_sym *v;
	size_t nr;
	bool built;
	/* the file's sections a lookup picks from, in header order: read
	 * once, not with libelf at each lookup */
	struct a2l_sec *secs;
	size_t nr_secs;
	bool secs_built;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct a2l_sym *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The symbols of table scn that count (see the top).  0 or NOMEM. */
static int build(struct pda_session *s, const struct pda_elf *e,
		 Elf_Scn *scn, const GElf_Shdr *sh, struct pda_a2l *a)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	/* bfd's elf_find_function names a symbol's file after the last
	 * STT_FILE before it, for a global symbol only while no STT_FILE
	 * has followed another symbol (one object's table) */
	const char *file = NULL;
	bool seen = false, file_after = false;

	a->v = n ? pda_malloc(s, n * sizeof(*a->v)) : NULL;
	if (n && !a->v)
		return PD_ERR_NOMEM;

	for (size_t i = 1; data && i < n; i++) {
		struct a2l_sym *y = &a->v[a->nr];
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_FILE) {
			file = elf_strptr(e->elf, sh->sh_link, sym.st_name);
			file_after = seen;
			continue;
		}
		seen = true;
		if (type == STT_OBJECT || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		/* annobin's markers: hidden local untyped, size 0 */
		if (!sym.st_size && GELF_ST_BIND(sym.st_info) == STB_LOCAL &&
		    type == STT_NOTYPE &&
		    GELF_ST_VISIBILITY(sym.st_other) == STV_HIDDEN)
			continue;
		name = elf_strptr(e->elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		y->off = sym.st_value;
		y->size = sym.st_size ? sym.st_size : 1;
		y->idx = i;
		y->name = name;
		y->shndx = sym.st_shndx;
		y->type = type;
		y->file = file && (GELF_ST_BIND(sym.st_info) == STB_LOCAL ||
				   !file_after)
				  ? file
				  : NULL;
		a->nr++;
	}
	if (a->nr)
		qsort(a->v, a->nr, sizeof(*a->v), cmp_sym);
	return 0;
}

void pda_a2l_free(struct pda_session *s, struct pda_a2l *a)
{
	if (!a)
		return;
	pda_free(s, a->v);
	pda_free(s, a->secs);
	pda_free(s, a);
}

/*
 * The best symbol for vaddr in section shndx into *f, as a scan of the
 * table in order would find it: a symbol further on only wins by a
 * larger start (better()), so the winner starts at the largest start at
 * or below vaddr in the section, and is picked among the symbols there
 * in table order.
 */
static void pick(const struct pda_a2l *a, size_t shndx, uint64_t vaddr,
		 struct fit *f)
{
	size_t lo = 0, hi = a->nr, i;
	uint64_t off;

	/* the first symbol past (shndx, vaddr) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct a2l_sym *y = &a->v[mid];

		if (y->shndx < shndx || (y->shndx == shndx && y->off <= vaddr))
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	if (!i || a->v[i - 1].shndx != shndx)
		return;
	off = a->v[i - 1].off;
	while (i > 0 && a->v[i - 1].shndx == shndx && a->v[i - 1].off == off)
		i--;
	for (; i < a->nr && a->v[i].shndx == shndx && a->v[i].off == off;
	     i++) {
		const struct a2l_sym *y = &a->v[i];

		if (!better(f, y->off, y->size, y->type, vaddr))
			continue;
		f->off = y->off;
		f->size = y->size;
		f->type = y->type;
		f->name = y->name;
		f->file = y->file;
	}
}

/* e's struct pda_a2l, made empty on first use.  0 or NOMEM. */
static int a2l_of(struct pda_session *s, struct pda_elf *e)
{
	if (!e->a2l) {
		e->a2l = pda_zalloc(s, sizeof(*e->a2l));
		if (!e->a2l)
			return PD_ERR_NOMEM;
	}
	return 0;
}

/* e's sections a lookup picks from (struct a2l_sec), read once.  0 or
 * NOMEM. */
static int sections(struct pda_session *s, struct pda_elf *e)
{
	struct pda_a2l *a;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t nr = 0;

	if (a2l_of(s, e) < 0)
		return PD_ERR_NOMEM;
	a = e->a2l;
	if (a->secs_built)
		return 0;
	while ((scn = elf_nextscn(e->elf, scn)) != NULL)
		nr++;
	a->secs = nr ? pda_malloc(s, nr * sizeof(*a->secs)) : NULL;
	if (nr && !a->secs)
		return PD_ERR_NOMEM;
	while ((scn = elf_nextscn(e->elf, scn)) != NULL && a->nr_secs < nr)
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    sh.sh_type != SHT_NOBITS) {
			a->secs[a->nr_secs].addr = sh.sh_addr;
			a->secs[a->nr_secs].size = sh.sh_size;
			a->secs[a->nr_secs].shndx = elf_ndxscn(scn);
			a->nr_secs++;
		}
	a->secs_built = true;
	return 0;
}

/* tab_elf's table of symbols (struct pda_a2l), read once.  0 or NOMEM. */
static int table(struct pda_session *s, struct pda_elf *tab_elf)
{
	Elf_Scn *tab;
	GElf_Shdr tsh;
	int rc;

	if (a2l_of(s, tab_elf) < 0)
		return PD_ERR_NOMEM;
	if (tab_elf->a2l->built)
		return 0;
	tab = pda_elf_find_table(tab_elf->elf, SHT_SYMTAB, &tsh, NULL);
	if (!tab || tsh.sh_size <= tsh.sh_entsize)
		tab = pda_elf_find_table(tab_elf->elf, SHT_DYNSYM, &tsh, NULL);
	if (tab && (rc = build(s, tab_elf, tab, &tsh, tab_elf->a2l)) < 0)
		return rc;
	tab_elf->a2l->built = true;
	return 0;
}

/* bfd's pick of a symbol for vaddr of e into *f (f->name NULL: none),
 * from the table of tab (e, or its debug file: same sections).  0 or
 * NOMEM. */
static int lookup(struct pda_session *s, struct pda_elf *e,
		  struct pda_elf *tab_elf, uint64_t vaddr, struct fit *f)
{
	size_t shndx = 0;
	int rc;

	rc = sections(s, e);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < e->a2l->nr_secs; i++) {
		const struct a2l_sec *sec = &e->a2l->secs[i];

		if (sec->addr <= vaddr && vaddr - sec->addr < sec->size) {
			shndx = sec->shndx;
			break;
		}
	}
	if (!shndx)
		return 0;
	rc = table(s, tab_elf);
	if (rc < 0)
		return rc;
	pick(tab_elf->a2l, shndx, vaddr, f);
	return 0;
}

int pda_elf_a2l_ahead(struct pda_session *s, struct pda_elf *e)
{
	int rc = sections(s, e);

	return rc < 0 ? rc : table(s, e);
}

bool pda_elf_lookups_pure(const struct pda_elf *e)
{
	/* the symbol table's names are interned on first use, atomically
	 * (pda_symtab.c lookup): the same pointer from either thread */
	return e->syms_state != 0 && e->dwarf_state < 0 && e->a2l &&
	       e->a2l->secs_built && e->a2l->built;
}

int pda_elf_symbol_a2l(struct pda_session *s, struct pda_elf *e,
		       uint64_t vaddr, const char **name, uint64_t *start)
{
	struct fit f = {0, 0, 0, NULL, NULL};
	int rc = lookup(s, e, e, vaddr, &f);

	if (rc < 0)
		return rc;
	if (!f.name)
		return PD_ERR_NOTFOUND;
	*name = pda_intern(s, f.name, strlen(f.name));
	*start = f.off;
	return *name ? 0 : PD_ERR_NOMEM;
}

int pda_elf_file_a2l(struct pda_session *s, struct pda_elf *e,
		     uint64_t vaddr, const char **file)
{
	struct fit f = {0, 0, 0, NULL, NULL};
	struct pda_elf *tab = e;
	Dwarf_Die cudie;
	int rc;

	/* an address in a unit of a debug file's DWARF bfd names from
	 * that file's symbols (dwarf2.c's stashed symbols), else from the
	 * binary's */
	if (e->debug) {
		rc = pda_dwarf_unit(s, e, vaddr, &cudie);
		if (rc == PD_ERR_NOMEM)
			return rc;
		if (rc > 0)
			tab = e->debug;
	}
	rc = lookup(s, e, tab, vaddr, &f);
	*file = NULL;
	if (rc < 0)
		return rc;
	if (!f.name)
		return PD_ERR_NOTFOUND;
	if (f.file) {
		*file = pda_intern(s, f.file, strlen(f.file));
		if (!*file)
			return PD_ERR_NOMEM;
	}
	return 0;
}
