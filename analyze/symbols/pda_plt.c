/*
 * pda_plt.c - names for PLT entries, which no symbol table lists: perf
 * synthesizes them (dso__synthesize_plt_symbols in util/symbol-elf.c) as
 * "func@plt" from the PLT relocations.
 *
 * Two versions live here.  perf 6.1's goes into the symbol tree, for the
 * tree's shape (pda_symtree.c): it takes .rela.plt in file order, the
 * header and entry sizes by machine (ARM 20/12, AArch64 32/16, SPARCv9
 * 128/32, else .plt's sh_entsize) and nothing else, which misnames
 * entries on x86-64 when IFUNC relocations come last, on i686 and in
 * .plt.sec (IBT) binaries, and leaves .plt.got out.  The table that
 * answers lookups follows perf 6.3 and later: relocations sorted by the
 * GOT slot they fill on x86, x86 entry sizes of 8 or 16, .plt.sec and
 * .plt.got entries (a .plt.got entry named by the .rela.dyn relocation of
 * the slot its jmp reads), ".plt" for the lazy-binding header (none when
 * the PLT has no header), an IRELATIVE entry named by the IFUNC its
 * addend points at, and "offset_0x...@plt" when nothing names one.
 */
#include "pda_symtab_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef R_X86_64_IRELATIVE
#define R_X86_64_IRELATIVE 37
#endif

static int cmp_plt(const void *a, const void *b)
{
	const struct pda_pltent *pa = a, *pb = b;

	return pa->start < pb->start ? -1 : pa->start > pb->start;
}

struct relinfo {
	Elf_Data *data;
	bool rela;
	size_t nr;
	uint32_t *order; /* sorted index, or NULL: file order */
};

static bool rel_get(const struct relinfo *ri, size_t i, uint32_t *symidx,
		    uint64_t *offset, unsigned *type, int64_t *addend)
{
	if (ri->order)
		i = ri->order[i];
	if (ri->rela) {
		GElf_Rela r;

		if (!gelf_getrela(ri->data, (int)i, &r))
			return false;
		*symidx = (uint32_t)GELF_R_SYM(r.r_info);
		*type = (unsigned)GELF_R_TYPE(r.r_info);
		*offset = r.r_offset;
		*addend = r.r_addend;
	} else {
		GElf_Rel r;

		if (!gelf_getrel(ri->data, (int)i, &r))
			return false;
		*symidx = (uint32_t)GELF_R_SYM(r.r_info);
		*type = (unsigned)GELF_R_TYPE(r.r_info);
		*offset = r.r_offset;
		*addend = 0;
	}
	return true;
}

struct relpos {
	uint64_t offset;
	uint32_t idx;
};

static int cmp_relpos(const void *a, const void *b)
{
	const struct relpos *pa = a, *pb = b;

	if (pa->offset != pb->offset)
		return pa->offset < pb->offset ? -1 : 1;
	return pa->idx < pb->idx ? -1 : pa->idx > pb->idx;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct relpos *pa = a, *pb = b;

	return pa->offset < pb->offset ? -1 : pa->offset > pb->offset;
}

/* ri->order: the relocations by the GOT slot they fill. */
static int sort_by_slot(struct pda_session *s, struct relinfo *ri)
{
	struct relpos *pos = pda_malloc(s, ri->nr * sizeof(*pos));

	if (!pos)
		return PD_ERR_NOMEM;
	ri->order = pda_malloc(s, ri->nr * sizeof(*ri->order));
	if (!ri->order) {
		pda_free(s, pos);
		return PD_ERR_NOMEM;
	}
	for (size_t i = 0; i < ri->nr; i++) {
		uint32_t symidx;
		unsigned type;
		int64_t addend;

		pos[i].idx = (uint32_t)i;
		pos[i].offset = 0;
		ri->order[i] = (uint32_t)i;
		rel_get(ri, i, &symidx, &pos[i].offset, &type, &addend);
	}
	qsort(pos, ri->nr, sizeof(*pos), cmp_relpos);
	for (size_t i = 0; i < ri->nr; i++)
		ri->order[i] = pos[i].idx;
	pda_free(s, pos);
	return 0;
}

/* The dynamic symbol's name, "" when there is none. */
static const char *dynsym_name(Elf *elf, Elf_Data *syms, size_t strndx,
			       uint32_t symidx)
{
	GElf_Sym sym;
	const char *name;

	if (!gelf_getsym(syms, (int)symidx, &sym))
		return "";
	name = elf_strptr(elf, strndx, sym.st_name);
	return name ? name : "";
}

static int intern_plt_name(struct pda_session *s, const char *base,
			   uint64_t offset, const char **out)
{
	char buf[1024];
	int len;

	if (*base)
		len = snprintf(buf, sizeof(buf), "%s@plt", base);
	else
		len = snprintf(buf, sizeof(buf), "offset_%#llx@plt",
			       (unsigned long long)offset);
	if (len < 0)
		return PD_ERR_FORMAT;
	if ((size_t)len >= sizeof(buf))
		len = sizeof(buf) - 1;
	*out = pda_intern(s, buf, (size_t)len);
	return *out ? 0 : PD_ERR_NOMEM;
}

/*
 * perf 6.1's dso__synthesize_plt_symbols: .rela.plt (or .rel.plt) of the
 * .dynsym in file order, entries after a header, sizes by machine.  The
 * nodes go into the tree for its shape; their names are 6.1's too.
 */
int pda_plt_perf61(struct pda_session *s, struct pda_symtab *t,
		   const struct pda_elf *e)
{
	GElf_Shdr dynsh, relsh, pltsh;
	size_t dynidx = 0;
	Elf_Scn *dynscn =
		pda_elf_find_table(e->elf, SHT_DYNSYM, &dynsh, &dynidx);
	Elf_Scn *relscn;
	struct relinfo ri;
	Elf_Data *syms;
	uint64_t hdr, entsize, off;
	int err;

	if (!dynscn)
		return 0;
	relscn = pda_elf_section(e, ".rela.plt", &relsh);
	if (!relscn)
		relscn = pda_elf_section(e, ".rel.plt", &relsh);
	if (!relscn || relsh.sh_link != dynidx || !relsh.sh_entsize ||
	    (relsh.sh_type != SHT_RELA && relsh.sh_type != SHT_REL))
		return 0;
	if (!pda_elf_section(e, ".plt", &pltsh) || pltsh.sh_type == SHT_NOBITS)
		return 0;
	ri.data = elf_getdata(relscn, NULL);
	syms = elf_getdata(dynscn, NULL);
	if (!ri.data || !syms)
		return 0;
	ri.rela = relsh.sh_type == SHT_RELA;
	ri.nr = ri.data->d_size / relsh.sh_entsize;
	ri.order = NULL;
	switch (e->machine) {
	case EM_ARM:
		hdr = 20, entsize = 12;
		break;
	case EM_AARCH64:
		hdr = 32, entsize = 16;
		break;
	case EM_SPARCV9:
		hdr = 128, entsize = 32;
		break;
	default:
		hdr = entsize = pltsh.sh_entsize;
		break;
	}
	off = pltsh.sh_offset + hdr;
	for (size_t i = 0; i < ri.nr; i++) {
		uint32_t symidx, idx;
		uint64_t roff;
		unsigned type;
		int64_t addend;
		struct pda_sym p;
		const char *base;

		if (!rel_get(&ri, i, &symidx, &roff, &type, &addend))
			break;
		base = dynsym_name(e->elf, syms, dynsh.sh_link, symidx);
		memset(&p, 0, sizeof(p));
		/* perf 6.1 writes "%s@plt" even for an empty name */
		if (*base) {
			err = intern_plt_name(s, base, 0, &p.name);
		} else {
			p.name = pda_intern(s, "@plt", 4);
			err = p.name ? 0 : PD_ERR_NOMEM;
		}
		if (err)
			return err;
		p.flags = PDA_SYM_INTERNED;
		p.start = off;
		p.end = off + entsize;
		p.vaddr = pltsh.sh_addr + (off - pltsh.sh_offset);
		p.binding = STB_GLOBAL;
		p.type = STT_FUNC;
		err = pda_symtab_add(s, t, &p, &idx);
		if (err == PD_ERR_UNSUPPORTED)
			break;
		if (err)
			return err;
		off += entsize;
	}
	return 0;
}

static int plt_add(struct pda_session *s, struct pda_symtab *t, uint64_t start,
		   uint64_t size, uint64_t vaddr, const char *name)
{
	if (!size)
		return 0;
	if (t->nr_plt == t->plt_alloc) {
		size_t want = t->plt_alloc ? t->plt_alloc * 2 : 64;
		struct pda_pltent *v;

		if (t->nr_plt >= PDA_SYMS_MAX)
			return PD_ERR_UNSUPPORTED;
		v = pda_realloc(s, t->plt, want * sizeof(*v));
		if (!v)
			return PD_ERR_NOMEM;
		t->plt = v;
		t->plt_alloc = want;
	}
	t->plt[t->nr_plt].start = start;
	t->plt[t->nr_plt].end = start + size;
	t->plt[t->nr_plt].vaddr = vaddr;
	t->plt[t->nr_plt].name = name;
	t->nr_plt++;
	return 0;
}

static void plt_scn(struct pda_symtab *t, const GElf_Shdr *sh)
{
	if (t->nr_plt_scn < 3 && sh->sh_size) {
		t->plt_scn[t->nr_plt_scn].start = sh->sh_offset;
		t->plt_scn[t->nr_plt_scn].end = sh->sh_offset + sh->sh_size;
		t->nr_plt_scn++;
	}
}

static bool plt_sizes(const struct pda_elf *e, const GElf_Shdr *sh,
		      uint64_t *hdr, uint64_t *entsize)
{
	switch (e->machine) {
	case EM_ARM:
		*hdr = 20, *entsize = 12;
		return true;
	case EM_AARCH64:
	case 258: /* EM_LOONGARCH */
		*hdr = 32, *entsize = 16;
		return true;
	case EM_SPARC:
		*hdr = 48, *entsize = 12;
		return true;
	case EM_SPARCV9:
		*hdr = 128, *entsize = 32;
		return true;
	case EM_386:
	case EM_X86_64:
		*entsize = sh->sh_entsize;
		if (*entsize != 8 && *entsize != 16)
			*entsize = sh->sh_addralign == 8 ? 8 : 16;
		*hdr = *entsize;
		return true;
	default:
		*hdr = *entsize = sh->sh_entsize;
		return *entsize != 0;
	}
}

/*
 * The target of an x86-64 .plt.got or .plt.sec entry's "jmp *disp(%rip)"
 * (after an optional endbr64 and bnd prefix), as an offset from the
 * entry, or 0.
 */
static uint64_t x86_64_plt_disp(const unsigned char *p, size_t avail)
{
	static const unsigned char endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
	size_t n = 0;
	uint32_t disp;

	if (avail >= 4 && !memcmp(p, endbr64, 4))
		n += 4;
	if (n < avail && p[n] == 0xf2)
		n++;
	if (n + 6 > avail || p[n] != 0xff || p[n + 1] != 0x25)
		return 0;
	disp = (uint32_t)p[n + 2] | (uint32_t)p[n + 3] << 8 |
	       (uint32_t)p[n + 4] << 16 | (uint32_t)p[n + 5] << 24;
	return n + 6 + (uint64_t)disp;
}

/* .rela.dyn's relocations that name a symbol, by the slot they fill. */
static int slots_of(struct pda_session *s, Elf_Data *rel, size_t nr,
		    struct relpos **out, size_t *nr_out)
{
	struct relpos *v = nr ? pda_malloc(s, nr * sizeof(*v)) : NULL;
	size_t n = 0;

	*out = NULL;
	*nr_out = 0;
	if (nr && !v)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < nr; i++) {
		GElf_Rela ra;

		if (!gelf_getrela(rel, (int)i, &ra))
			break;
		if (!GELF_R_SYM(ra.r_info))
			continue;
		v[n].offset = ra.r_offset;
		v[n].idx = (uint32_t)GELF_R_SYM(ra.r_info);
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_relpos);
	*out = v;
	*nr_out = n;
	return 0;
}

/*
 * .plt.got entries, named by the .rela.dyn relocation of the GOT slot
 * their jmp reads.  (perf computes the slot from .plt.got's file offset
 * where it means its address; they are equal in PIEs and shared objects,
 * and here the address is used.)
 */
static int plt_got(struct pda_session *s, struct pda_symtab *t,
		   const struct pda_elf *e)
{
	GElf_Shdr sh, relsh, dynsh;
	Elf_Scn *scn = pda_elf_section(e, ".plt.got", &sh), *relscn, *dynscn;
	Elf_Data *code, *rel = NULL, *syms = NULL;
	struct relpos *slots = NULL;
	size_t nr_slots = 0;
	int err = 0;

	if (!scn || !sh.sh_entsize || sh.sh_type == SHT_NOBITS)
		return 0;
	code = elf_getdata(scn, NULL);
	if (!code || !code->d_buf)
		return 0;
	plt_scn(t, &sh);
	if (e->machine == EM_X86_64) {
		relscn = pda_elf_section(e, ".rela.dyn", &relsh);
		if (relscn && relsh.sh_link && relsh.sh_entsize &&
		    relsh.sh_type == SHT_RELA) {
			dynscn = elf_getscn(e->elf, relsh.sh_link);
			if (dynscn && gelf_getshdr(dynscn, &dynsh) &&
			    dynsh.sh_link) {
				rel = elf_getdata(relscn, NULL);
				syms = elf_getdata(dynscn, NULL);
			}
		}
		if (rel && syms)
			err = slots_of(s, rel, rel->d_size / relsh.sh_entsize,
				       &slots, &nr_slots);
	}
	for (uint64_t i = 0; !err && i < code->d_size; i += sh.sh_entsize) {
		const char *base = "", *name;
		uint64_t disp =
			x86_64_plt_disp((const unsigned char *)code->d_buf + i,
					code->d_size - i);
		struct relpos key, *hit;

		if (disp && nr_slots) {
			key.offset = sh.sh_addr + i + disp;
			key.idx = 0;
			hit = bsearch(&key, slots, nr_slots, sizeof(*slots),
				      cmp_slot);
			if (hit)
				base = dynsym_name(e->elf, syms, dynsh.sh_link,
						   hit->idx);
		}
		err = intern_plt_name(s, base, sh.sh_offset + i, &name);
		if (!err)
			err = plt_add(s, t, sh.sh_offset + i, sh.sh_entsize,
				      sh.sh_addr + i, name);
	}
	pda_free(s, slots);
	return err == PD_ERR_UNSUPPORTED ? 0 : err;
}

/* An IRELATIVE entry's name: the IFUNC its addend (resolver) names. */
static const char *ifunc_name(const struct pda_symtab *t,
			      const struct pda_elf *e, unsigned type, bool rela,
			      int64_t addend)
{
	const struct pda_elf_seg *g;
	uint64_t key;
	uint32_t n;

	if (e->machine != EM_X86_64 || !rela || type != R_X86_64_IRELATIVE)
		return NULL;
	g = pda_elf_seg_of_vaddr(e, (uint64_t)addend);
	if (!g)
		return NULL;
	key = (uint64_t)addend - (g->vaddr - g->offset);
	n = pda_symtree_find(t, key);
	if (n == PDA_SYM_NIL || t->v[n].start != key ||
	    (t->v[n].type != STT_GNU_IFUNC &&
	     !(t->v[n].flags & PDA_SYM_IFUNC_ALIAS)))
		return NULL;
	return t->v[n].name;
}

/* The PLT as perf 6.3 and later name it (dso__synthesize_plt_symbols). */
static int build_current(struct pda_session *s, struct pda_symtab *t,
			 const struct pda_elf *e)
{
	GElf_Shdr pltsh, secsh, relsh, symsh;
	Elf_Scn *relscn, *symscn;
	uint64_t hdr, entsize, off, hdr_start, hdr_size;
	bool x86 = e->machine == EM_386 || e->machine == EM_X86_64;
	bool lazy;
	struct relinfo ri = {0};
	Elf_Data *syms;
	size_t dynidx = 0, symidx = 0, hdr_at;
	const char *plt_name;
	int err;

	if (!pda_elf_section(e, ".plt", &pltsh) || pltsh.sh_type == SHT_NOBITS)
		return 0;
	if (!plt_sizes(e, &pltsh, &hdr, &entsize))
		return 0;
	plt_scn(t, &pltsh);
	hdr_start = pltsh.sh_offset;
	hdr_size = hdr;
	if (x86) {
		err = plt_got(s, t, e);
		if (err)
			return err;
	}
	if (x86 && pda_elf_section(e, ".plt.sec", &secsh) &&
	    secsh.sh_type != SHT_NOBITS) {
		if (!plt_sizes(e, &secsh, &hdr, &entsize))
			return 0;
		plt_scn(t, &secsh);
		hdr_size = pltsh.sh_size;
		off = secsh.sh_offset;
		lazy = false;
	} else {
		off = pltsh.sh_offset;
		lazy = true;
	}
	plt_name = pda_intern(s, ".plt", 4);
	if (!plt_name)
		return PD_ERR_NOMEM;
	hdr_at = t->nr_plt;
	err = plt_add(s, t, hdr_start, hdr_size, pltsh.sh_addr, plt_name);
	if (err)
		return err;
	relscn = pda_elf_section(e, ".rela.plt", &relsh);
	if (!relscn)
		relscn = pda_elf_section(e, ".rel.plt", &relsh);
	if (!relscn || !relsh.sh_link || !relsh.sh_entsize ||
	    (relsh.sh_type != SHT_RELA && relsh.sh_type != SHT_REL))
		return 0;
	pda_elf_find_table(e->elf, SHT_DYNSYM, &symsh, &dynidx);
	pda_elf_find_table(e->elf, SHT_SYMTAB, &symsh, &symidx);
	/* a static executable's IFUNC .plt goes with .symtab */
	if (relsh.sh_link != dynidx && relsh.sh_link != symidx)
		return 0;
	symscn = elf_getscn(e->elf, relsh.sh_link);
	if (!symscn || !gelf_getshdr(symscn, &symsh))
		return 0;
	syms = elf_getdata(symscn, NULL);
	ri.data = elf_getdata(relscn, NULL);
	if (!syms || !ri.data)
		return 0;
	ri.rela = relsh.sh_type == SHT_RELA;
	ri.nr = ri.data->d_size / relsh.sh_entsize;
	if (lazy) {
		/* as many entries as relocations: not lazy, no header */
		if (ri.nr * entsize == pltsh.sh_size) {
			t->nr_plt = hdr_at;
		} else {
			off += hdr;
		}
	}
	/* x86 puts IRELATIVE relocations last, not in PLT order */
	if (x86 && ri.nr) {
		err = sort_by_slot(s, &ri);
		if (err)
			return err;
	}
	err = 0;
	for (size_t i = 0; i < ri.nr && !err; i++) {
		uint32_t sidx;
		uint64_t roff, secoff, secaddr;
		unsigned type;
		int64_t addend;
		const char *base, *name;

		if (!rel_get(&ri, i, &sidx, &roff, &type, &addend))
			break;
		base = dynsym_name(e->elf, syms, symsh.sh_link, sidx);
		if (!*base) {
			base = ifunc_name(t, e, type, ri.rela, addend);
			if (!base)
				base = "";
		}
		err = intern_plt_name(s, base, off, &name);
		if (err)
			break;
		secoff = lazy ? pltsh.sh_offset : secsh.sh_offset;
		secaddr = lazy ? pltsh.sh_addr : secsh.sh_addr;
		err = plt_add(s, t, off, entsize, secaddr + (off - secoff),
			      name);
		off += entsize;
	}
	pda_free(s, ri.order);
	return err;
}

int pda_plt_current(struct pda_session *s, struct pda_symtab *t,
		    const struct pda_elf *e)
{
	int err = build_current(s, t, e);

	/* past PDA_SYMS_MAX entries, the rest are left out */
	if (err == PD_ERR_UNSUPPORTED)
		err = 0;
	if (!err && t->nr_plt > 1)
		qsort(t->plt, t->nr_plt, sizeof(*t->plt), cmp_plt);
	return err;
}

const struct pda_pltent *pda_plt_find(const struct pda_symtab *t, uint64_t key,
				      bool *in_plt)
{
	size_t lo = 0, hi = t->nr_plt;

	*in_plt = false;
	for (size_t i = 0; i < t->nr_plt_scn; i++)
		if (key >= t->plt_scn[i].start && key < t->plt_scn[i].end)
			*in_plt = true;
	if (!*in_plt)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->plt[mid].start <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && key < t->plt[lo - 1].end)
		return &t->plt[lo - 1];
	return NULL;
}
