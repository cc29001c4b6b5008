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
 * The compilation unit of an address comes from .debug_aranges
 * (dwarf_addrdie) or, where a producer left that out (clang by default),
 * from a table of every unit's address ranges built once.
 */
#include "pda_elf_int.h"

#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A unit's address range, for files without .debug_aranges. */
struct cu_range {
	uint64_t low, high; /* [low, high) */
	Dwarf_Die cudie;
};

struct pda_dwarf {
	Dwarf *dw;
	struct cu_range *ranges; /* sorted by low; built on first need */
	size_t nr_ranges, ranges_alloc;
	bool ranges_built;
};

/* Caps on what one file may make us hold (O5). */
#define MAX_CU_RANGES ((size_t)1 << 24)

void pda_dwarf_free(struct pda_session *s, struct pda_dwarf *d)
{
	if (!d)
		return;
	if (d->dw)
		dwarf_end(d->dw);
	pda_free(s, d->ranges);
	pda_free(s, d);
}

static bool has_debug_info(const struct pda_elf *e)
{
	GElf_Shdr sh;

	return pda_elf_section(e, ".debug_info", &sh) &&
	       sh.sh_type != SHT_NOBITS && sh.sh_size;
}

static int load(struct pda_session *s, struct pda_elf *e)
{
	const struct pda_elf *src = NULL;
	struct pda_dwarf *d;

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
	d->dw = dwarf_begin_elf(src->elf, DWARF_C_READ, NULL);
	if (!d->dw) {
		pda_logf(s, PD_LOG_WARN, "%s: DWARF not read: %s", src->path,
			 dwarf_errmsg(-1));
		pda_free(s, d);
		e->dwarf_state = -1;
		return 0;
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
		err = load(s, e);
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

/* A function's name as addr2line gives it: linkage name, else name. */
static const char *die_func_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	return name ? name : "??";
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

/*
 * gas describes each function symbol of an assembler unit as its own
 * subprogram, so aliases (memcpy and memmove variants in glibc) come as
 * subprograms with the same extent.  addr2line takes the last of them,
 * libdw the first: take the last, as perf's addr2line does.
 */
static void last_alias(Dwarf_Die *cudie, Dwarf_Die *sub)
{
	Dwarf_Addr low, high, l2, h2;
	Dwarf_Die child;

	if (dwarf_srclang(cudie) != DW_LANG_Mips_Assembler ||
	    dwarf_lowpc(sub, &low) != 0 || dwarf_highpc(sub, &high) != 0 ||
	    dwarf_child(cudie, &child) != 0)
		return;
	do {
		if (dwarf_tag(&child) == DW_TAG_subprogram &&
		    dwarf_lowpc(&child, &l2) == 0 &&
		    dwarf_highpc(&child, &h2) == 0 && l2 == low && h2 == high)
			*sub = child;
	} while (dwarf_siblingof(&child, &child) == 0);
}

int pda_elf_inlines(struct pda_session *s, struct pda_elf *e, uint64_t vaddr,
		    struct pda_inline *out, size_t max, size_t *nr)
{
	struct pda_dwarf *d;
	Dwarf_Die cudie, *scopes = NULL;
	int nr_scopes, err, found;
	size_t n = 0;

	*nr = 0;
	err = get(s, e, &d);
	if (err || !d || !max)
		return err;
	found = find_cu(s, d, vaddr, &cudie);
	if (found <= 0)
		return found;
	/*
	 * dwarf_getscopes continues past an inlined instance into its
	 * abstract origin's scopes; the callers are the physical parents of
	 * the innermost scope, as eu-addr2line walks them.
	 */
	nr_scopes = dwarf_getscopes(&cudie, vaddr, &scopes);
	if (nr_scopes > 0) {
		Dwarf_Die inner = scopes[0];

		free(scopes);
		scopes = NULL;
		nr_scopes = dwarf_getscopes_die(&inner, &scopes);
	}
	for (int i = 0; i < nr_scopes && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		const char *name;

		if (tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_subprogram)
			continue;
		if (tag == DW_TAG_subprogram)
			last_alias(&cudie, &scopes[i]);
		name = die_func_name(&scopes[i]);
		out[n].func = pda_intern(s, name, strlen(name));
		if (!out[n].func) {
			err = PD_ERR_NOMEM;
			break;
		}
		/* the line in this function: the row, or the call below it */
		if (!n) {
			err = line_of(s, &cudie, vaddr, &out[n].file,
				      &out[n].line);
			if (err == PD_ERR_NOTFOUND)
				err = 0;
		}
		if (err)
			break;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
		if (n < max) {
			err = call_site(s, &cudie, &scopes[i], &out[n].file,
					&out[n].line);
			if (err)
				break;
		}
	}
	free(scopes);
	if (err)
		return err;
	*nr = n;
	return 0;
}
