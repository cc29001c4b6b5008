/*
 * pda_spsym.c - symbols a simpleperf capture carries for the files it
 * sampled (its FILE feature, decoded by the reader into
 * pd_env.simpleperf_files): the symbol source for a DSO whose binary is
 * not found here, as simpleperf's own report uses them on a host without
 * the device's files.  Never used over a binary that was found.
 *
 * simpleperf's rules (dso.cpp, carried as facts): the symbols are sorted
 * by address and one of length 0 reaches to the next; an address is in a
 * symbol when start <= vaddr < start + len.  The address in the file of a
 * mapped address is, for a dex file (.jar, .vdex, .odex code read as
 * dex), the file offset (ip - map start + pgoff); for an ELF file,
 * offset - file_offset_of_min_vaddr + min_vaddr.
 */
#include "pda_machine_int.h"

#include <stdlib.h>
#include <string.h>

static int cmp_sym(const void *a, const void *b)
{
	const struct pda_spsym *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The FILE entry recorded under path, or NULL. */
static const struct pd_sp_file *find_file(struct pda_session *s,
					  const char *path)
{
	const struct pd_env *env;

	if (pd_file_env(s->f, &env) < 0 || !env->simpleperf_files)
		return NULL;
	for (uint32_t i = 0; i < env->nr_simpleperf_files; i++) {
		const struct pd_sp_file *f = &env->simpleperf_files[i];

		if (f->path && strcmp(f->path, path) == 0)
			return f;
	}
	return NULL;
}

int pda_spsyms_get(struct pda_session *s, struct pda_dso_ent *d,
		   const struct pda_spsyms **out)
{
	const struct pd_sp_file *f;
	struct pda_spsyms *t;
	size_t n = 0;

	*out = d->sp;
	if (d->sp_tried)
		return 0;
	d->sp_tried = true;
	f = find_file(s, d->d.name);
	if (!f || (f->type != PD_SP_DSO_ELF_FILE &&
		   f->type != PD_SP_DSO_DEX_FILE))
		return 0;
	t = pda_arena_alloc(s, sizeof(*t));
	if (!t)
		return PD_ERR_NOMEM;
	t->file = f;
	t->syms = pda_arena_alloc(s, (f->nr_symbols + 1) * sizeof(*t->syms));
	if (!t->syms)
		return PD_ERR_NOMEM;
	for (uint32_t i = 0; i < f->nr_symbols; i++) {
		t->syms[n].start = f->symbols[i].vaddr;
		t->syms[n].end = f->symbols[i].vaddr + f->symbols[i].len;
		t->syms[n].name = f->symbols[i].name;
		n++;
	}
	qsort(t->syms, n, sizeof(*t->syms), cmp_sym);
	for (size_t i = 0; i + 1 < n; i++)
		if (t->syms[i].end == t->syms[i].start)
			t->syms[i].end = t->syms[i + 1].start;
	t->nr = n;
	d->sp = t;
	*out = t;
	return 0;
}

uint64_t pda_spsyms_vaddr(const struct pda_spsyms *t, uint64_t off)
{
	const struct pd_sp_file *f = t->file;

	if (f->type == PD_SP_DSO_DEX_FILE)
		return off;
	/*
	 * An entry of an older simpleperf has no file offset: simpleperf
	 * then counts from the map's start (ip - start + min_vaddr), which
	 * the offset alone cannot give; take the segment to sit at the
	 * offset equal to its address, as Android's libraries are linked.
	 */
	if (f->file_offset_of_min_vaddr == UINT64_MAX)
		return off;
	return off - f->file_offset_of_min_vaddr + f->min_vaddr;
}

const struct pda_spsym *pda_spsyms_find(const struct pda_spsyms *t,
					uint64_t vaddr)
{
	size_t lo = 0, hi = t->nr;

	/* the last symbol starting at or below vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || vaddr >= t->syms[lo - 1].end)
		return NULL;
	return &t->syms[lo - 1];
}
