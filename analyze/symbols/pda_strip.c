/*
 * pda_strip.c - an ELF file cut down to what symbolization, unwinding
 * and annotation of a capture's samples read (pda_strip.h).
 *
 * The file's layout stays where anything may address it by file offset:
 * the ELF and program headers, and every allocated section, keep their
 * offsets, since a capture's maps give file offsets (pgoff) that
 * PT_LOAD turns into addresses, and libdw finds .eh_frame_hdr through
 * PT_GNU_EH_FRAME.  A dropped allocated section (.rodata, .data, code
 * no sample hit) is zeros there, which the bundle's zstd stream and a
 * sparse extraction store in almost nothing.  The non-allocated
 * sections kept (.symtab, .debug_*) follow packed, then the section
 * headers; the dropped ones (.debug_loc, .comment, ...) are gone.  A
 * dropped section becomes SHT_NOBITS so that readers see it absent,
 * not zero (objcopy --only-keep-debug marks sections the same way).
 */
#include "pda_elf_int.h"
#include "pda_strip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes kept around an address no function symbol bounds. */
#define LOOSE_SPAN 256
#define MAX_FUNCS ((size_t)1 << 26)

#ifndef SHT_ARM_EXIDX
#define SHT_ARM_EXIDX 0x70000001
#endif

/* Sections kept by name (".zdebug_" reads as ".debug_"). */
static const char *const kept_names[] = {
	".eh_frame",	     ".eh_frame_hdr",	 ".debug_frame",
	".gnu_debuglink",    ".gnu_debugdata",	 ".gnu_debugaltlink",
	".debug_line",	     ".debug_line_str",	 ".debug_info",
	".debug_abbrev",     ".debug_str",	 ".debug_str_offsets",
	".debug_addr",	     ".debug_rnglists",	 ".debug_ranges",
	".debug_aranges",    ".plt",		 ".plt.sec",
	".plt.got",	     ".got",		 ".got.plt",
	".ARM.extab",	     ".ARM.exidx",
};

enum fate { KEEP, CODE, DROP, ASIS };

struct range {
	uint64_t lo, hi;
};

struct sec {
	size_t idx;
	uint64_t off, size, align, addr;
	enum fate fate;
	bool alloc;
	uint64_t new_off;
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

static int cmp_sec_off(const void *a, const void *b)
{
	const struct sec *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The function symbols of elf's .symtab and .dynsym into *v. */
static int add_funcs(struct pda_session *s, Elf *elf, uint16_t machine,
		     struct range **v, size_t *nr, size_t *alloc)
{
	static const Elf64_Word types[] = {SHT_SYMTAB, SHT_DYNSYM};

	for (size_t t = 0; t < 2; t++) {
		GElf_Shdr sh;
		Elf_Scn *scn = pda_elf_find_table(elf, types[t], &sh, NULL);
		Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
		const size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize
						     : 0;

		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			uint64_t lo;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC) ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			lo = sym.st_value;
			if (machine == EM_ARM)
				lo &= ~(uint64_t)1; /* the Thumb bit */
			if (PDA_GROW(s, *v, *alloc, *nr + 1, MAX_FUNCS) < 0)
				return PD_ERR_NOMEM;
			/* size 0 (assembly): up to the next symbol, below */
			(*v)[(*nr)++] = (struct range){lo, lo + sym.st_size};
		}
	}
	return 0;
}

/*
 * The byte ranges of code to keep: each function holding one of addrs
 * (sorted), else LOOSE_SPAN bytes around it.  Sorted, not merged.
 */
static int code_ranges(struct pda_session *s, struct pda_elf *e,
		       struct pda_elf *sym, const uint64_t *addrs, size_t nr,
		       struct range **out, size_t *nr_out)
{
	struct range *f = NULL, *keep = NULL;
	size_t nr_f = 0, alloc_f = 0, alloc_k = 0, n = 0;
	int rc;

	*out = NULL;
	*nr_out = 0;
	rc = add_funcs(s, e->elf, e->machine, &f, &nr_f, &alloc_f);
	if (!rc && sym)
		rc = add_funcs(s, sym->elf, e->machine, &f, &nr_f, &alloc_f);
	if (rc < 0)
		goto out;
	if (nr_f > 1)
		qsort(f, nr_f, sizeof(*f), cmp_range);
	for (size_t i = 0; i < nr_f; i++)
		if (f[i].hi == f[i].lo) {
			size_t j = i + 1;

			while (j < nr_f && f[j].lo == f[i].lo)
				j++;
			f[i].hi = j < nr_f ? f[j].lo : f[i].lo;
		}
	for (size_t a = 0; a < nr; a++) {
		size_t lo = 0, hi = nr_f;
		struct range r;
		bool found = false;

		if (a && addrs[a] == addrs[a - 1])
			continue;
		/* the last function starting at or below the address, and
		 * earlier ones, which may be longer */
		while (lo < hi) {
			const size_t mid = lo + (hi - lo) / 2;

			if (f[mid].lo <= addrs[a])
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo; i > 0 && lo - i < 16; i--)
			if (addrs[a] < f[i - 1].hi) {
				r = f[i - 1];
				found = true;
				break;
			}
		if (!found) {
			r.lo = addrs[a] > LOOSE_SPAN / 2 ? addrs[a] - LOOSE_SPAN / 2
							 : 0;
			r.hi = addrs[a] + LOOSE_SPAN / 2;
		}
		if (n && keep[n - 1].lo == r.lo && keep[n - 1].hi == r.hi)
			continue;
		if (PDA_GROW(s, keep, alloc_k, n + 1, MAX_FUNCS) < 0) {
			rc = PD_ERR_NOMEM;
			goto out;
		}
		keep[n++] = r;
	}
	if (n > 1)
		qsort(keep, n, sizeof(*keep), cmp_range);
	*out = keep;
	*nr_out = n;
	keep = NULL;
out:
	pda_free(s, f);
	pda_free(s, keep);
	return rc;
}

static bool kept_name(const char *name)
{
	char buf[64];

	if (!strncmp(name, ".zdebug_", 8) && strlen(name) < sizeof(buf) - 1) {
		snprintf(buf, sizeof(buf), ".debug_%s", name + 8);
		name = buf;
	}
	for (size_t i = 0; i < sizeof(kept_names) / sizeof(*kept_names); i++)
		if (!strcmp(name, kept_names[i]))
			return true;
	return false;
}

static enum fate fate_of(const struct pda_elf *e, const GElf_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_type == SHT_NULL)
		return ASIS;
	if (kept_name(pda_elf_scn_name(e, sh)))
		return KEEP;
	switch (sh->sh_type) {
	case SHT_SYMTAB:
	case SHT_DYNSYM:
	case SHT_STRTAB:
	case SHT_NOTE:
	case SHT_HASH:
	case SHT_GNU_HASH:
	case SHT_GNU_versym:
	case SHT_GNU_verdef:
	case SHT_GNU_verneed:
	case SHT_SYMTAB_SHNDX:
	case SHT_DYNAMIC:
		return KEEP;
	case SHT_REL:
	case SHT_RELA:
		/* the dynamic relocations name PLT entries */
		return sh->sh_flags & SHF_ALLOC ? KEEP : DROP;
	default:
		break;
	}
	if (e->machine == EM_ARM && sh->sh_type == SHT_ARM_EXIDX)
		return KEEP;
	if ((sh->sh_flags & SHF_EXECINSTR) && (sh->sh_flags & SHF_ALLOC))
		return CODE;
	return DROP;
}

/* v (width bytes, the file's byte order) at p. */
static void put(unsigned char *p, uint64_t v, unsigned width, bool msb)
{
	for (unsigned i = 0; i < width; i++) {
		const unsigned shift = 8 * (msb ? width - 1 - i : i);

		p[i] = (unsigned char)(v >> shift);
	}
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* The functions' bytes of code section c, from img into out. */
static uint64_t copy_code(const struct sec *c, const unsigned char *img,
			  unsigned char *out, const struct range *keep,
			  size_t nr_keep)
{
	uint64_t done = c->addr, kept = 0;

	for (size_t i = 0; i < nr_keep; i++) {
		uint64_t lo = keep[i].lo > done ? keep[i].lo : done;
		const uint64_t hi = keep[i].hi < c->addr + c->size
					    ? keep[i].hi
					    : c->addr + c->size;

		if (lo >= hi)
			continue;
		memcpy(out + c->off + (lo - c->addr),
		       img + c->off + (lo - c->addr), hi - lo);
		kept += hi - lo;
		done = hi;
	}
	return kept;
}

static int strip(struct pda_session *s, struct pda_elf *e,
		 const struct range *keep, size_t nr_keep,
		 struct pda_strip *out)
{
	size_t size, shnum;
	const unsigned char *img = pda_elf_image(e, &size);
	GElf_Ehdr eh;
	struct sec *secs;
	uint64_t end, in_place, shoff, table, phdrs;
	unsigned char *buf;
	size_t ehsize;
	bool msb, is64;

	if (!gelf_getehdr(e->elf, &eh) || elf_getshdrnum(e->elf, &shnum) ||
	    !img)
		return pda_set_err(s, PD_ERR_FORMAT, "%s: %s", e->path,
				   elf_errmsg(-1));
	if (!shnum || !eh.e_shoff)
		return pda_set_err(s, PD_ERR_UNSUPPORTED,
				   "%s: no section headers", e->path);
	is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	ehsize = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	phdrs = (uint64_t)eh.e_phnum * eh.e_phentsize;
	table = (uint64_t)shnum * eh.e_shentsize;
	if (eh.e_shentsize != (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
		return pda_set_err(s, PD_ERR_FORMAT,
				   "%s: section headers of %u bytes", e->path,
				   eh.e_shentsize);
	if (eh.e_shoff > size || table > size - eh.e_shoff)
		return pda_set_err(s, PD_ERR_FORMAT,
				   "%s: section headers past the file's end",
				   e->path);
	if (size < ehsize || eh.e_phoff > size || phdrs > size - eh.e_phoff)
		return pda_set_err(s, PD_ERR_FORMAT,
				   "%s: program headers past the file's end",
				   e->path);
	msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	secs = pda_zalloc(s, shnum * sizeof(*secs));
	if (!secs)
		return PD_ERR_NOMEM;
	/* what stays in place: the headers, allocated sections (their
	 * offsets are addresses) and whatever lies among them */
	end = ehsize;
	if (eh.e_phoff + phdrs > end)
		end = eh.e_phoff + phdrs;
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(e->elf, i);
		GElf_Shdr sh;
		struct sec *c = &secs[i];

		c->idx = i;
		c->fate = ASIS;
		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		c->fate = fate_of(e, &sh);
		c->off = sh.sh_offset;
		c->size = sh.sh_size;
		c->addr = sh.sh_addr;
		c->align = sh.sh_addralign;
		c->alloc = (sh.sh_flags & SHF_ALLOC) != 0;
		if (c->fate != ASIS &&
		    (c->off > size || c->size > size - c->off)) {
			pda_free(s, secs);
			return pda_set_err(s, PD_ERR_FORMAT,
					   "%s: section %zu past the file's end",
					   e->path, i);
		}
		if (c->alloc && c->fate != ASIS && c->fate != DROP &&
		    c->off + c->size > end)
			end = c->off + c->size;
	}
	qsort(secs + 1, shnum - 1, sizeof(*secs), cmp_sec_off);
	/* kept non-allocated sections: in place when they start among the
	 * bytes kept in place (in offset order, so that end only grows),
	 * else packed after them */
	for (size_t i = 1; i < shnum; i++) {
		struct sec *c = &secs[i];

		c->new_off = c->off;
		if (c->fate == KEEP && !c->alloc && c->off < end &&
		    c->off + c->size > end)
			end = c->off + c->size;
	}
	in_place = end;
	for (size_t i = 1; i < shnum; i++) {
		struct sec *c = &secs[i];

		if ((c->fate == KEEP && !c->alloc && c->off >= in_place) ||
		    (c->fate == DROP && !c->alloc)) {
			/* a dropped one: NOBITS where the packing is */
			c->new_off = align_up(end, c->fate == KEEP ? c->align : 1);
			if (c->fate == KEEP)
				end = c->new_off + c->size;
		}
	}
	shoff = align_up(end, 8);
	out->size = shoff + table;
	out->orig_size = size;
	buf = pda_zalloc(s, out->size);
	if (!buf) {
		pda_free(s, secs);
		return PD_ERR_NOMEM;
	}
	memcpy(buf, img, ehsize);
	memcpy(buf + eh.e_phoff, img + eh.e_phoff, phdrs);
	memcpy(buf + shoff, img + eh.e_shoff, table);
	put(buf + (is64 ? 40 : 32), shoff, is64 ? 8 : 4, msb);
	for (size_t i = 1; i < shnum; i++) {
		struct sec *c = &secs[i];
		unsigned char *h = buf + shoff + c->idx * eh.e_shentsize;

		switch (c->fate) {
		case KEEP:
			memcpy(buf + c->new_off, img + c->off, c->size);
			break;
		case CODE:
			out->code_kept +=
				copy_code(c, img, buf, keep, nr_keep);
			break;
		case DROP:
			/* no bytes: NOBITS, at its place or the end */
			put(h + 4, SHT_NOBITS, 4, msb);
			out->nr_dropped++;
			break;
		case ASIS:
			continue;
		}
		put(h + (is64 ? 24 : 16), c->new_off, is64 ? 8 : 4, msb);
	}
	pda_free(s, secs);
	out->data = buf;
	return 0;
}

int pda_strip_elf(struct pda_session *s, const char *path,
		  const char *sym_path, const uint64_t *addrs,
		  size_t nr_addrs, struct pda_strip *out)
{
	struct pda_elf *e = NULL, *sym = NULL;
	struct range *keep = NULL;
	size_t nr_keep = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = pda_elf_open(s, path, &e);
	if (rc < 0)
		return rc;
	if (elf_kind(e->elf) != ELF_K_ELF) {
		pda_elf_close(s, e);
		return pda_set_err(s, PD_ERR_UNSUPPORTED, "%s: not an ELF file",
				   path);
	}
	/* the debug file's symbols bound functions the binary's do not;
	 * without it, the binary's alone */
	if (sym_path && pda_elf_open(s, sym_path, &sym) < 0)
		sym = NULL;
	rc = code_ranges(s, e, sym, addrs, nr_addrs, &keep, &nr_keep);
	if (!rc)
		rc = strip(s, e, keep, nr_keep, out);
	pda_free(s, keep);
	pda_elf_close(s, sym);
	pda_elf_close(s, e);
	return rc;
}

void pda_strip_free(struct pda_session *s, struct pda_strip *st)
{
	pda_free(s, st->data);
	memset(st, 0, sizeof(*st));
}
