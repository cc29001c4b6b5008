/*
 * pda_dwarf.c - source lines and inlined frames from an ELF file's DWARF
 * (libdw), opened once per file on first use.
 *
 * perf 6.1 asks binutils' addr2line (`addr2line -e FILE -i -f`) for both;
 * this file answers the same questions from the same DWARF: the line
 * table's row for an address, and the chain of DW_TAG_inlined_subroutine
 * scopes around it up to the DW_TAG_subprogram, each named as addr2line
 * names it (the linkage name when there is one, so C++ names come back
 * mangled for the caller to demangle as perf does), with the call site
 * (DW_AT_call_file, DW_AT_call_line) as the line in the caller.
 *
 * The inline chain comes from an index built once per unit: every
 * function and inlined call with code, their address ranges sorted, each
 * range linked to the innermost one holding its start (scopes nest), so
 * that the scopes at an address are a binary search and a short walk up,
 * not a walk of the unit's whole DIE tree (dwarf_getscopes) each time.
 *
 * A file's .gnu_debugaltlink (dwz) file is given to libdw by set_alt():
 * the one pdtool found, or an empty one, never libdw's own lookup.
 *
 * The compilation unit of an address comes from .debug_aranges
 * (dwarf_addrdie) or, where a producer left that out (clang by default),
 * from a table of every unit's address ranges built once.
 */
#include "pda_elf_int.h"

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A unit's address range, for files without .debug_aranges. */
struct cu_range {
	uint64_t low, high; /* [low, high) */
	Dwarf_Die cudie;
};

/* A function or inlined call with code, in its unit's index. */
struct scope {
	Dwarf_Die die;
	uint32_t parent; /* the scope holding it, or NIL */
	bool sub;	 /* a DW_TAG_subprogram: the chain ends here */
	bool a2l_fixed;	 /* a2l_name holds (pda_elf_inlines_a2l) */
	const char *a2l_name;
};

/* One address range of a scope. */
struct srange {
	uint64_t low, high; /* [low, high) */
	uint32_t scope;
	uint32_t up; /* the innermost range holding low, or NIL */
};

/*
 * A unit's scopes, built on first use.  Invariants: ranges are sorted
 * by cmp_srange; scopes nest, so the ranges holding an address are the
 * last range starting at or before it and its chain of ups.
 */
struct cu_index {
	Dwarf_Off off; /* of the unit's DIE; the key in units */
	Dwarf_Die cudie;
	struct scope *scopes;
	size_t nr_scopes, scopes_alloc;
	struct srange *ranges;
	size_t nr_ranges, ranges_alloc;
	struct cu_index *next_all;
};

struct pda_dwarf {
	Dwarf *dw;
	Dwarf *alt_dw;		    /* over the alt file's Elf, or NULL */
	Dwarf *no_alt;		    /* an empty alt, or NULL (no_alt()) */
	Elf *no_alt_elf;
	void *no_alt_image;
	struct pdc_hash units;	    /* cu_index by unit offset */
	struct cu_index *all_units; /* the same, listed for freeing */
	struct cu_range *ranges;    /* sorted by low; built on first need */
	size_t nr_ranges, ranges_alloc;
	bool ranges_built;
};

/* Caps on what one file may make us hold (O5). */
#define MAX_CU_RANGES ((size_t)1 << 24)
#define MAX_SCOPES ((size_t)1 << 24)
/* Deeper DIE nesting than any compiler writes: a corrupt file. */
#define MAX_DEPTH 256
#define NIL UINT32_MAX

static void cu_index_free(struct pda_session *s, struct cu_index *ci);

void pda_dwarf_free(struct pda_session *s, struct pda_dwarf *d)
{
	if (!d)
		return;
	while (d->all_units) {
		struct cu_index *next = d->all_units->next_all;

		cu_index_free(s, d->all_units);
		d->all_units = next;
	}
	pdc_hash_release(pda_session_alloc(s), &d->units);
	if (d->dw)
		dwarf_end(d->dw);
	if (d->alt_dw)
		dwarf_end(d->alt_dw);
	if (d->no_alt)
		dwarf_end(d->no_alt);
	if (d->no_alt_elf)
		elf_end(d->no_alt_elf);
	pda_free(s, d->no_alt_image);
	pda_free(s, d->ranges);
	pda_free(s, d);
}

static bool has_debug_info(const struct pda_elf *e)
{
	GElf_Shdr sh;

	return pda_elf_section(e, ".debug_info", &sh) &&
	       sh.sh_type != SHT_NOBITS && sh.sh_size;
}

/* Sections libdw inflates when it opens a binary's DWARF that a
 * session with names_only never reads (variable locations, macros), and
 * the line tables last, which it reads only with srcline. */
static const char *const unread_sections[] = {
	".debug_loc",	".debug_loclists", ".debug_macinfo",
	".debug_macro", ".debug_line",
};
#define MAX_HIDDEN 8

/*
 * Whether s reads line tables: not with names_only without srcline,
 * whose frames keep no file:line (pda_session.c resolve_file).  Its
 * .debug_line is then neither inflated (libc's debug file's is a sixth
 * of what libdw inflates) nor read: line_of and call_site are skipped,
 * and loading ahead reads no unit's line table.
 */
static bool reads_lines(const struct pda_session *s)
{
	const struct pda_opts *o = pda_session_opts(s);

	return !o->names_only || o->srcline || o->srcline_a2l;
}

/*
 * dwarf_begin_elf() of e's image, with names_only the compressed sections
 * it never reads hidden from libdw (SHT_NOBITS in libelf's copy of their
 * headers, the type put back after): libdw inflates every compressed
 * section it knows as it opens them, and libc's debug file's location
 * lists were a seventh of that work.  Only where e was opened from a file
 * (ELF_C_READ_MMAP: libelf's headers are a copy of the file's).
 */
static Dwarf *begin_dwarf(const struct pda_session *s, const struct pda_elf *e)
{
	/* .debug_line, the last, is read with lines only */
	const size_t nr_unread =
		sizeof(unread_sections) / sizeof(unread_sections[0]) -
		reads_lines(s);
	Elf_Scn *hidden[MAX_HIDDEN];
	Elf64_Word types[MAX_HIDDEN];
	size_t nr = 0, shstrndx;
	Dwarf *dw;

	if (pda_session_opts(s)->names_only && e->from_file &&
	    e->compressed &&
	    elf_getshdrstrndx(e->elf, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL;
		     nr < MAX_HIDDEN && (scn = elf_nextscn(e->elf, scn));) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh) ||
			    !(sh.sh_flags & SHF_COMPRESSED) ||
			    sh.sh_type == SHT_NOBITS ||
			    !(name = elf_strptr(e->elf, shstrndx, sh.sh_name)))
				continue;
			for (size_t i = 0; i < nr_unread; i++) {
				if (strcmp(name, unread_sections[i]) != 0)
					continue;
				types[nr] = sh.sh_type;
				sh.sh_type = SHT_NOBITS;
				if (gelf_update_shdr(scn, &sh))
					hidden[nr++] = scn;
				break;
			}
		}
	}
	dw = dwarf_begin_elf(e->elf, DWARF_C_READ, NULL);
	for (size_t i = 0; i < nr; i++) {
		GElf_Shdr sh;

		if (gelf_getshdr(hidden[i], &sh)) {
			sh.sh_type = types[i];
			gelf_update_shdr(hidden[i], &sh);
		}
	}
	return dw;
}

/*
 * An ELF image with one section of DWARF (.debug_line, 4 bytes nothing
 * reads) and no units: what libdw accepts as a Dwarf and where every alt
 * reference finds nothing.
 */
struct empty_elf {
	Elf64_Ehdr eh;
	char names[24]; /* "", ".shstrtab", ".debug_line" */
	unsigned char line[8];
	Elf64_Shdr sh[3];
};

/* The empty alt of d, made once; NULL on NOMEM or a libelf failure. */
static Dwarf *no_alt(struct pda_session *s, struct pda_dwarf *d)
{
	static const char names[] = "\0.shstrtab\0.debug_line";
	const uint16_t one = 1;
	struct empty_elf *img;

	if (d->no_alt)
		return d->no_alt;
	img = pda_zalloc(s, sizeof(*img));
	if (!img)
		return NULL;
	d->no_alt_image = img;
	memcpy(img->eh.e_ident, ELFMAG, SELFMAG);
	img->eh.e_ident[EI_CLASS] = ELFCLASS64;
	img->eh.e_ident[EI_DATA] =
		*(const unsigned char *)&one ? ELFDATA2LSB : ELFDATA2MSB;
	img->eh.e_ident[EI_VERSION] = EV_CURRENT;
	img->eh.e_type = ET_REL;
	img->eh.e_version = EV_CURRENT;
	img->eh.e_ehsize = sizeof(img->eh);
	img->eh.e_shoff = offsetof(struct empty_elf, sh);
	img->eh.e_shentsize = sizeof(img->sh[0]);
	img->eh.e_shnum = 3;
	img->eh.e_shstrndx = 1;
	memcpy(img->names, names, sizeof(names));
	img->sh[1].sh_name = 1;
	img->sh[1].sh_type = SHT_STRTAB;
	img->sh[1].sh_offset = offsetof(struct empty_elf, names);
	img->sh[1].sh_size = sizeof(names);
	img->sh[1].sh_addralign = 1;
	img->sh[2].sh_name = 11;
	img->sh[2].sh_type = SHT_PROGBITS;
	img->sh[2].sh_offset = offsetof(struct empty_elf, line);
	img->sh[2].sh_size = 4;
	img->sh[2].sh_addralign = 1;
	d->no_alt_elf = elf_memory((char *)img, sizeof(*img));
	if (d->no_alt_elf)
		d->no_alt = dwarf_begin_elf(d->no_alt_elf, DWARF_C_READ, NULL);
	return d->no_alt;
}

/*
 * Give libdw the alt file of src, or an empty one, before anything reads
 * an alt form: left to itself, dwarf_getalt() opens whatever path the
 * .gnu_debugaltlink names (any absolute path, outside --symfs, a FIFO
 * that blocks the open) without checking its build-id (issue 11).  The
 * alt file was found and checked by pdtool's own lookup (pda_dso.c);
 * its own alt references find nothing.  0 or NOMEM.
 */
static int set_alt(struct pda_session *s, struct pda_dwarf *d,
		   const struct pda_elf *src, bool quiet)
{
	const char *name;
	const void *id;
	Dwarf *none;

	/* what libdw itself would look at */
	if (dwelf_dwarf_gnu_debugaltlink(d->dw, &name, &id) == 0)
		return 0;
	none = no_alt(s, d);
	if (!none)
		return PD_ERR_NOMEM;
	if (src->alt) {
		d->alt_dw = begin_dwarf(s, src->alt);
		if (!d->alt_dw && quiet)
			return PD_ERR_FORMAT;
		if (!d->alt_dw)
			pda_logf(s, PD_LOG_WARN, "%s: DWARF not read: %s",
				 src->alt->path, dwarf_errmsg(-1));
	}
	if (d->alt_dw)
		dwarf_setalt(d->alt_dw, none);
	dwarf_setalt(d->dw, d->alt_dw ? d->alt_dw : none);
	return 0;
}

/*
 * Open e's DWARF (its own or its debug file's).  Quiet (loading ahead,
 * off the session's thread: pda_dwahead.c): what would warn leaves e
 * untried, for the session's thread to try again and warn in its order;
 * PD_ERR_FORMAT then.  0 or NOMEM.
 */
static int load(struct pda_session *s, struct pda_elf *e, bool quiet)
{
	const struct pda_elf *src = NULL;
	struct pda_dwarf *d;
	int err;

	/* a relocatable object's DWARF needs relocating first: not here */
	if (e->type != ET_REL) {
		if (has_debug_info(e))
			src = e;
		else if (e->debug && has_debug_info(e->debug))
			src = e->debug;
	}
	if (!src) {
		e->dwarf_state = -1;
		return 0;
	}
	d = pda_zalloc(s, sizeof(*d));
	if (!d)
		return PD_ERR_NOMEM;
	d->dw = begin_dwarf(s, src);
	if (!d->dw && quiet) {
		pda_free(s, d);
		return PD_ERR_FORMAT;
	}
	if (!d->dw) {
		pda_logf(s, PD_LOG_WARN, "%s: DWARF not read: %s", src->path,
			 dwarf_errmsg(-1));
		pda_free(s, d);
		e->dwarf_state = -1;
		return 0;
	}
	err = set_alt(s, d, src, quiet);
	if (err < 0) {
		pda_dwarf_free(s, d);
		return err;
	}
	e->dwarf = d;
	e->dwarf_state = 1;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct cu_range *ra = a, *rb = b;

	if (ra->low != rb->low)
		return ra->low < rb->low ? -1 : 1;
	return ra->high < rb->high ? -1 : ra->high > rb->high;
}

static int add_range(struct pda_session *s, struct pda_dwarf *d, uint64_t low,
		     uint64_t high, const Dwarf_Die *cudie)
{
	if (low >= high)
		return 0;
	if (d->nr_ranges == d->ranges_alloc) {
		size_t want = d->ranges_alloc ? d->ranges_alloc * 2 : 64;
		struct cu_range *v;

		if (d->nr_ranges >= MAX_CU_RANGES)
			return 0;
		v = pda_realloc(s, d->ranges, want * sizeof(*v));
		if (!v)
			return PD_ERR_NOMEM;
		d->ranges = v;
		d->ranges_alloc = want;
	}
	d->ranges[d->nr_ranges].low = low;
	d->ranges[d->nr_ranges].high = high;
	d->ranges[d->nr_ranges].cudie = *cudie;
	d->nr_ranges++;
	return 0;
}

static int build_ranges(struct pda_session *s, struct pda_dwarf *d)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie;
	int err;

	d->ranges_built = true;
	while (dwarf_next_unit(d->dw, off, &next, &hsize, &version, NULL, NULL,
			       NULL, NULL, NULL) == 0) {
		ptrdiff_t pos = 0;
		Dwarf_Addr base, low, high;

		if (dwarf_offdie(d->dw, off + hsize, &cudie) &&
		    dwarf_cu_info(cudie.cu, NULL, &unit_type, NULL, NULL, NULL,
				  NULL, NULL) == 0 &&
		    (unit_type == DW_UT_compile ||
		     unit_type == DW_UT_partial)) {
			while ((pos = dwarf_ranges(&cudie, pos, &base, &low,
						   &high)) > 0) {
				err = add_range(s, d, low, high, &cudie);
				if (err)
					return err;
			}
		}
		off = next;
	}
	if (d->nr_ranges > 1)
		qsort(d->ranges, d->nr_ranges, sizeof(*d->ranges), cmp_range);
	return 0;
}

/* The unit holding vaddr.  @return 1 found, 0 none, or NOMEM. */
static int find_cu(struct pda_session *s, struct pda_dwarf *d, uint64_t vaddr,
		   Dwarf_Die *cudie)
{
	size_t lo = 0, hi;
	int err;

	if (dwarf_addrdie(d->dw, vaddr, cudie))
		return 1;
	if (!d->ranges_built) {
		err = build_ranges(s, d);
		if (err) {
			d->ranges_built = false;
			return err;
		}
	}
	hi = d->nr_ranges;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->ranges[mid].low <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges can nest (a unit inside another's gap): look back */
	while (lo--) {
		if (vaddr < d->ranges[lo].high) {
			*cudie = d->ranges[lo].cudie;
			return 1;
		}
		if (d->nr_ranges - lo > 64)
			break;
	}
	return 0;
}

static int get(struct pda_session *s, struct pda_elf *e, struct pda_dwarf **out)
{
	int err;

	*out = NULL;
	if (!e->dwarf_state) {
		err = load(s, e, false);
		if (err)
			return err;
	}
	*out = e->dwarf;
	return 0;
}

/*
 * Intern a file name from the line table as addr2line prints it: libdw
 * leaves a name relative to a relative directory (DWARF 5 "src" +
 * "inline.cpp"), binutils puts the unit's DW_AT_comp_dir in front.
 */
static const char *intern_path(struct pda_session *s, Dwarf_Die *cudie,
			       const char *src)
{
	Dwarf_Attribute attr;
	const char *dir;
	char buf[4096];
	int len;

	if (src[0] != '/' && dwarf_attr(cudie, DW_AT_comp_dir, &attr) &&
	    (dir = dwarf_formstring(&attr)) != NULL && dir[0]) {
		len = snprintf(buf, sizeof(buf), "%s/%s", dir, src);
		if (len > 0 && (size_t)len < sizeof(buf))
			return pda_intern(s, buf, (size_t)len);
	}
	return pda_intern(s, src, strlen(src));
}

/* The line table's row for vaddr in cudie. */
static int line_of(struct pda_session *s, Dwarf_Die *cudie, uint64_t vaddr,
		   const char **file, unsigned *line)
{
	Dwarf_Line *row = dwarf_getsrc_die(cudie, vaddr);
	const char *src;
	int lineno = 0;

	*file = NULL;
	*line = 0;
	if (!row)
		return PD_ERR_NOTFOUND;
	src = dwarf_linesrc(row, NULL, NULL);
	if (dwarf_lineno(row, &lineno) != 0 || lineno < 0)
		lineno = 0;
	if (src) {
		*file = intern_path(s, cudie, src);
		if (!*file)
			return PD_ERR_NOMEM;
	}
	*line = (unsigned)lineno;
	return 0;
}

int pda_dwarf_unit(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		   Dwarf_Die *cudie)
{
	struct pda_dwarf *d;
	int err = get(s, e, &d);

	if (err || !d)
		return err;
	return find_cu(s, d, vaddr, cudie);
}

Dwarf *pda_dwarf_handle(struct pda_session *s, struct pda_elf *e)
{
	struct pda_dwarf *d;

	if (get(s, e, &d) < 0 || !d)
		return NULL;
	return d->dw;
}

int pda_elf_srcline(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		    const char **file, unsigned *line)
{
	struct pda_dwarf *d;
	Dwarf_Die cudie;
	int err;

	*file = NULL;
	*line = 0;
	err = get(s, e, &d);
	if (err)
		return err;
	if (!d)
		return PD_ERR_NOTFOUND;
	err = find_cu(s, d, vaddr, &cudie);
	if (err <= 0)
		return err ? err : PD_ERR_NOTFOUND;
	err = line_of(s, &cudie, vaddr, file, line);
	if (!err && !*file)
		err = PD_ERR_NOTFOUND;
	return err;
}

/* A function's name in DWARF: linkage name (*linkage), else name. */
static const char *die_name(Dwarf_Die *die, bool *linkage)
{
	Dwarf_Attribute attr;
	const char *name = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	*linkage = name != NULL;
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	return name ? name : "??";
}

/* A function's name as addr2line gives it: linkage name, else name. */
static const char *die_func_name(Dwarf_Die *die)
{
	bool linkage;

	return die_name(die, &linkage);
}

/* An inlined call's call site, in the unit's file table. */
static int call_site(struct pda_session *s, Dwarf_Die *cudie, Dwarf_Die *die,
		     const char **file, unsigned *line)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx, lineno;
	Dwarf_Files *files;
	size_t nr_files;
	const char *src;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(die, DW_AT_call_line, &attr) &&
	    dwarf_formudata(&attr, &lineno) == 0 && lineno <= UINT32_MAX)
		*line = (unsigned)lineno;
	if (!dwarf_attr(die, DW_AT_call_file, &attr) ||
	    dwarf_formudata(&attr, &idx) != 0 ||
	    dwarf_getsrcfiles(cudie, &files, &nr_files) != 0 || idx >= nr_files)
		return 0;
	src = dwarf_filesrc(files, idx, NULL, NULL);
	if (!src)
		return 0;
	*file = intern_path(s, cudie, src);
	return *file ? 0 : PD_ERR_NOMEM;
}

/* ---- the scopes of a unit ---------------------------------------------- */

static bool cu_eq(const void *item, const void *key)
{
	return ((const struct cu_index *)item)->off == *(const Dwarf_Off *)key;
}

static int add_scope(struct pda_session *s, struct cu_index *ci, Dwarf_Die *die,
		     uint32_t parent, bool sub, uint32_t *idx)
{
	ptrdiff_t pos = 0;
	Dwarf_Addr base, low, high;
	size_t first = ci->nr_ranges;

	while ((pos = dwarf_ranges(die, pos, &base, &low, &high)) > 0) {
		if (low >= high)
			continue;
		if (ci->nr_ranges == ci->ranges_alloc) {
			size_t want =
				ci->ranges_alloc ? ci->ranges_alloc * 2 : 64;
			struct srange *v;

			if (ci->nr_ranges >= MAX_SCOPES)
				return PD_ERR_UNSUPPORTED;
			v = pda_realloc(s, ci->ranges, want * sizeof(*v));
			if (!v)
				return PD_ERR_NOMEM;
			ci->ranges = v;
			ci->ranges_alloc = want;
		}
		ci->ranges[ci->nr_ranges].low = low;
		ci->ranges[ci->nr_ranges].high = high;
		ci->ranges[ci->nr_ranges].scope = (uint32_t)ci->nr_scopes;
		ci->ranges[ci->nr_ranges].up = NIL;
		ci->nr_ranges++;
	}
	*idx = parent;
	if (ci->nr_ranges == first)
		return 0; /* no code: a declaration or an abstract instance */
	if (ci->nr_scopes == ci->scopes_alloc) {
		size_t want = ci->scopes_alloc ? ci->scopes_alloc * 2 : 64;
		struct scope *v;

		if (ci->nr_scopes >= MAX_SCOPES)
			return PD_ERR_UNSUPPORTED;
		v = pda_realloc(s, ci->scopes, want * sizeof(*v));
		if (!v)
			return PD_ERR_NOMEM;
		ci->scopes = v;
		ci->scopes_alloc = want;
	}
	ci->scopes[ci->nr_scopes].die = *die;
	ci->scopes[ci->nr_scopes].parent = parent;
	ci->scopes[ci->nr_scopes].sub = sub;
	ci->scopes[ci->nr_scopes].a2l_fixed = false;
	ci->scopes[ci->nr_scopes].a2l_name = NULL;
	*idx = (uint32_t)ci->nr_scopes++;
	return 0;
}

/* Every function and inlined call under die, parent the scope holding it. */
static int walk(struct pda_session *s, struct cu_index *ci, Dwarf_Die *die,
		uint32_t parent, unsigned depth)
{
	Dwarf_Die child;
	int err;

	if (depth > MAX_DEPTH || dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		uint32_t scope = parent;

		if (tag == DW_TAG_subprogram ||
		    tag == DW_TAG_inlined_subroutine) {
			err = add_scope(s, ci, &child, parent,
					tag == DW_TAG_subprogram, &scope);
			if (err)
				return err;
		}
		if (dwarf_haschildren(&child)) {
			err = walk(s, ci, &child, scope, depth + 1);
			if (err)
				return err;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/*
 * By start; of ranges that start together, the longer first and then
 * the later in the unit, so that an inner range always comes after the
 * ones holding it.
 */
static int cmp_srange(const void *a, const void *b)
{
	const struct srange *ra = a, *rb = b;

	if (ra->low != rb->low)
		return ra->low < rb->low ? -1 : 1;
	if (ra->high != rb->high)
		return ra->high > rb->high ? -1 : 1;
	return ra->scope < rb->scope ? -1 : ra->scope > rb->scope;
}

/* ranges sorted; each range's up: the innermost range holding its start */
static int link_ranges(struct pda_session *s, struct cu_index *ci)
{
	uint32_t *stack, depth = 0;

	if (ci->nr_ranges > 1)
		qsort(ci->ranges, ci->nr_ranges, sizeof(*ci->ranges),
		      cmp_srange);
	stack = pda_malloc(s, (ci->nr_ranges + 1) * sizeof(*stack));
	if (!stack)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < ci->nr_ranges; i++) {
		while (depth &&
		       ci->ranges[stack[depth - 1]].high <= ci->ranges[i].low)
			depth--;
		ci->ranges[i].up = depth ? stack[depth - 1] : NIL;
		stack[depth++] = (uint32_t)i;
	}
	pda_free(s, stack);
	return 0;
}

static void cu_index_free(struct pda_session *s, struct cu_index *ci)
{
	pda_free(s, ci->scopes);
	pda_free(s, ci->ranges);
	pda_free(s, ci);
}

/* The scope index of cudie's unit, built on first use. */
static int get_index(struct pda_session *s, struct pda_dwarf *d,
		     Dwarf_Die *cudie, struct cu_index **out, bool quiet)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	struct cu_index *ci;
	int err;

	ci = pdc_hash_find(&d->units, pdc_hash_u64(off), cu_eq, &off);
	if (ci) {
		*out = ci;
		return 0;
	}
	ci = pda_zalloc(s, sizeof(*ci));
	if (!ci)
		return PD_ERR_NOMEM;
	ci->off = off;
	ci->cudie = *cudie;
	err = walk(s, ci, cudie, NIL, 0);
	if (err == PD_ERR_UNSUPPORTED && !quiet) {
		pda_logf(s, PD_LOG_WARN,
			 "DWARF unit at %#llx: over %zu "
			 "scopes, the rest ignored",
			 (unsigned long long)off, MAX_SCOPES);
		err = 0;
	}
	if (!err)
		err = link_ranges(s, ci);
	if (!err)
		err = pdc_hash_add(pda_session_alloc(s), &d->units,
				   pdc_hash_u64(off), ci);
	if (err) {
		cu_index_free(s, ci);
		return err;
	}
	ci->next_all = d->all_units;
	d->all_units = ci;
	*out = ci;
	return 0;
}

/* The innermost scope holding vaddr, or NIL. */
static uint32_t innermost(const struct cu_index *ci, uint64_t vaddr)
{
	size_t lo = 0, hi = ci->nr_ranges;
	uint32_t r;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ci->ranges[mid].low <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NIL;
	/* the ranges holding vaddr all hold the last range starting before */
	for (r = (uint32_t)(lo - 1); r != NIL; r = ci->ranges[r].up)
		if (vaddr < ci->ranges[r].high)
			return ci->ranges[r].scope;
	return NIL;
}

/* A scope's first address, as binutils keeps it (arange.low): its
 * low_pc, else the first of its ranges; 0 when it has neither. */
static uint64_t scope_low(Dwarf_Die *die)
{
	Dwarf_Addr low = 0, base, start, end;

	if (dwarf_lowpc(die, &low) == 0)
		return low;
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0)
		return start;
	return 0;
}

/* Whether binutils takes the unit's language to mangle names
 * (dwarf2.c mangle_style): in C and the like a DW_AT_name is as good as a
 * linkage name. */
static bool mangles(Dwarf_Die *cudie)
{
	switch (dwarf_srclang(cudie)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
	case 0x2c: /* DW_LANG_C17 */
	case DW_LANG_Mips_Assembler:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Fortran90:
	case DW_LANG_Fortran95:
	case DW_LANG_Pascal83:
	case DW_LANG_Modula2:
		return false;
	default:
		return true;
	}
}

/*
 * binutils' naming (dwarf2.c _bfd_dwarf2_find_nearest_line): a function
 * record without a linkage name, the first time it is the innermost at a
 * looked-up address, is named after the ELF symbol covering the address
 * for that lookup, and keeps that symbol's name for good when the symbol
 * starts where the record does (else its DWARF name); callers are named
 * by their records as they are then.
 */
static int a2l_name(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		    Dwarf_Die *cudie, struct scope *sp, bool innermost,
		    const char **name)
{
	const char *sym;
	uint64_t start;
	bool linkage;
	int rc;

	*name = die_name(&sp->die, &linkage);
	if (linkage || !mangles(cudie))
		return 0;
	if (sp->a2l_fixed) {
		*name = sp->a2l_name;
		return 0;
	}
	if (!innermost)
		return 0;
	rc = pda_elf_symbol_a2l(s, e, vaddr, &sym, &start);
	if (rc == PD_ERR_NOMEM)
		return rc;
	sp->a2l_fixed = true;
	sp->a2l_name = *name;
	if (rc == 0) {
		if (start == scope_low(&sp->die))
			sp->a2l_name = sym;
		*name = sym;
	}
	return 0;
}

static int inlines(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		   struct pda_inline *out, size_t max, size_t *nr, bool a2l)
{
	struct pda_dwarf *d;
	struct cu_index *ci;
	Dwarf_Die cudie;
	uint32_t sc;
	int err, found;
	size_t n = 0;
	bool lines;

	*nr = 0;
	err = get(s, e, &d);
	if (err || !d || !max)
		return err;
	found = find_cu(s, d, vaddr, &cudie);
	if (found <= 0)
		return found;
	err = get_index(s, d, &cudie, &ci, false);
	if (err)
		return err;
	lines = reads_lines(s);
	/*
	 * Up from the innermost scope: each inlined call's name with the
	 * line in it, up to the function holding them.  Of scopes with the
	 * same extent the later in the unit counts as inner, as addr2line
	 * takes it: an inlined call covering all of its caller, and gas's
	 * subprograms for the aliases of an assembler function.
	 */
	for (sc = innermost(ci, vaddr); sc != NIL && n < max;
	     sc = ci->scopes[sc].parent) {
		struct scope *sp = &ci->scopes[sc];
		const char *name = die_func_name(&sp->die);

		if (a2l && (err = a2l_name(s, e, vaddr, &cudie, sp, !n,
					   &name)) < 0)
			return err;

		out[n].func = pda_intern(s, name, strlen(name));
		if (!out[n].func)
			return PD_ERR_NOMEM;
		if (!n) {
			out[n].file = NULL;
			out[n].line = 0;
			err = lines ? line_of(s, &cudie, vaddr, &out[n].file,
					      &out[n].line)
				    : 0;
			if (err && err != PD_ERR_NOTFOUND)
				return err;
		}
		n++;
		if (sp->sub)
			break;
		if (n < max) {
			out[n].file = NULL;
			out[n].line = 0;
			err = lines ? call_site(s, &cudie, &sp->die,
						&out[n].file, &out[n].line)
				    : 0;
			if (err)
				return err;
		}
	}
	*nr = n;
	return 0;
}

int pda_elf_inlines(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		    struct pda_inline *out, size_t max, size_t *nr)
{
	return inlines(s, e, vaddr, out, max, nr, false);
}

int pda_elf_inlines_a2l(struct pda_session *s, struct pda_elf *e,
			uint64_t vaddr, struct pda_inline *out, size_t max,
			size_t *nr)
{
	return inlines(s, e, vaddr, out, max, nr, true);
}

int pda_elf_dwarf_ahead(struct pda_session *s, struct pda_elf *e,
			uint64_t vaddr)
{
	struct cu_index *ci;
	Dwarf_Lines *lines;
	Dwarf_Die cudie;
	size_t nr_lines;
	int err;

	if (!e->dwarf_state && (err = load(s, e, true)) < 0)
		return err == PD_ERR_NOMEM ? err : 0;
	if (!e->dwarf)
		return 0;
	err = find_cu(s, e->dwarf, vaddr, &cudie);
	if (err <= 0)
		return err;
	err = get_index(s, e->dwarf, &cudie, &ci, true);
	if (err)
		return err == PD_ERR_NOMEM ? err : 0;
	/* the unit's line table, read once and kept by libdw (line_of) */
	if (reads_lines(s))
		dwarf_getsrclines(&cudie, &lines, &nr_lines);
	return 0;
}
