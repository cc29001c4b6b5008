/*
 * pda_annotate.c - samples counted by the address they hit, grouped by
 * function: the counting half of `pdtool annotate`.
 *
 * perf annotate 6.1 counts as builtin-annotate.c's process_sample_event
 * does: the sample's own ip (machine__resolve, never a callchain entry)
 * is placed in its map and symbol, and symbol__inc_addr_samples adds one
 * hit and the sample's period to that address, per event.  Its default
 * percentage (--percent-type local-period) is an instruction's period
 * over the symbol's; global-period divides by every sample of the event,
 * symbol or not.  The same counts are kept here, so both come out.
 */
#include "pda_annotate_int.h"

#include <stdlib.h>
#include <string.h>

#define ANNOT_EVENTS_MAX 4096 /* events one annotation counts */

int pda_annot_new(struct pda_session *s, const struct pda_annot_opts *opts,
		  struct pda_annot **out)
{
	struct pda_annot_opts o;
	struct pda_annot *a;

	*out = NULL;
	if (!s || !opts || pdc_opts_copy(&o, sizeof(o), opts) < 0 ||
	    !o.nr_events || o.nr_events > ANNOT_EVENTS_MAX ||
	    (unsigned)o.host_sources > PDA_HOST_SRC_ALWAYS)
		return PD_ERR_API;
	a = pda_zalloc(s, sizeof(*a));
	if (!a)
		return PD_ERR_NOMEM;
	a->s = s;
	a->opts = o;
	pda_annot_src_init(a);
	a->totals = pda_zalloc(s, o.nr_events * sizeof(*a->totals));
	if (!a->totals) {
		pda_free(s, a);
		return PD_ERR_NOMEM;
	}
	*out = a;
	return 0;
}

void pda_annot_free(struct pda_annot *a)
{
	struct pda_session *s;

	if (!a)
		return;
	s = a->s;
	while (a->all_addrs) {
		struct annot_addr *next = a->all_addrs->next_all;

		pda_free(s, a->all_addrs);
		a->all_addrs = next;
	}
	while (a->all_syms) {
		struct annot_sym *next = a->all_syms->next_all;

		pda_free(s, a->all_syms);
		a->all_syms = next;
	}
	pda_annot_src_release(a);
	pdc_hash_release(pda_session_alloc(s), &a->addrs);
	pdc_hash_release(pda_session_alloc(s), &a->syms);
	pda_stack_release(s, &a->st);
	pda_free(s, a->sorted);
	pda_free(s, a->totals);
	pda_free(s, a);
}

struct key {
	const struct pda_dso *dso;
	uint64_t vaddr;
};

static uint64_t key_hash(const struct key *k)
{
	return pdc_hash_u64(k->vaddr ^ pdc_hash_u64((uintptr_t)k->dso));
}

static bool addr_eq(const void *item, const void *key)
{
	const struct annot_addr *e = item;
	const struct key *k = key;

	return e->dso == k->dso && e->vaddr == k->vaddr;
}

static bool sym_eq(const void *item, const void *key)
{
	const struct annot_sym *e = item;
	const struct key *k = key;

	return e->dso == k->dso && e->pub.start == k->vaddr;
}

static struct annot_sym *find_sym(struct pda_annot *a, struct pda_dso *dso,
				  const struct pda_frame *fr)
{
	const size_t nr = a->opts.nr_events;
	struct key k = {dso, fr->dso_addr - fr->sym_off};
	uint64_t h = key_hash(&k);
	struct annot_sym *sym = pdc_hash_find(&a->syms, h, sym_eq, &k);

	if (sym)
		return sym;
	sym = pda_zalloc(a->s, sizeof(*sym) + nr * sizeof(sym->counts[0]));
	if (!sym)
		return NULL;
	sym->dso = dso;
	sym->pub.name = fr->sym;
	sym->pub.dso = fr->dso;
	sym->pub.path = dso->state == PDA_DSO_FOUND && dso->elf
				? pda_elf_path(dso->elf)
				: NULL;
	sym->pub.start = k.vaddr;
	sym->size = fr->sym_size;
	sym->pub.kernel = fr->flags & PDA_FRAME_KERNEL;
	sym->pub.counts = sym->counts;
	if (pdc_hash_add(pda_session_alloc(a->s), &a->syms, h, sym) < 0) {
		pda_free(a->s, sym);
		return NULL;
	}
	sym->next_all = a->all_syms;
	a->all_syms = sym;
	a->nr_syms++;
	return sym;
}

static struct annot_addr *find_addr(struct pda_annot *a, struct pda_dso *dso,
				    const struct pda_frame *fr)
{
	const size_t nr = a->opts.nr_events;
	struct key k = {dso, fr->dso_addr};
	uint64_t h = key_hash(&k);
	struct annot_addr *e = pdc_hash_find(&a->addrs, h, addr_eq, &k);
	struct annot_sym *sym;

	if (e)
		return e;
	sym = find_sym(a, dso, fr);
	if (!sym)
		return NULL;
	e = pda_zalloc(a->s, sizeof(*e) + nr * sizeof(e->counts[0]));
	if (!e)
		return NULL;
	e->dso = dso;
	e->vaddr = k.vaddr;
	e->sym = sym;
	if (pdc_hash_add(pda_session_alloc(a->s), &a->addrs, h, e) < 0) {
		pda_free(a->s, e);
		return NULL;
	}
	e->next_in_sym = sym->addrs;
	sym->addrs = e;
	sym->nr_addrs++;
	e->next_all = a->all_addrs;
	a->all_addrs = e;
	return e;
}

int pda_annot_add(struct pda_annot *a, const struct pd_sample *sample,
		  size_t event)
{
	return pda_annot_add_n(a, sample, event, 1);
}

int pda_annot_add_n(struct pda_annot *a, const struct pd_sample *sample,
		    size_t event, uint64_t n)
{
	const struct pda_frame *fr;
	struct annot_addr *e;
	struct pda_dso *dso;
	uint64_t period;
	int rc;

	if (a->finished || event >= a->opts.nr_events)
		return PD_ERR_API;
	n = n ? n : 1;
	period = sample->period * n;
	a->totals[event].hits += n;
	a->totals[event].period += period;
	rc = pda_sample_leaf_n(a->s, sample, &a->st, &dso, n);
	if (rc < 0)
		return rc;
	/* the out-of-line function is the last frame of the address */
	fr = a->st.nr ? &a->st.frames[a->st.nr - 1] : NULL;
	if (!fr || !dso || !fr->sym || (fr->flags & PDA_FRAME_NO_SYMBOL)) {
		a->nr_unresolved += n;
		return 0;
	}
	e = find_addr(a, dso, fr);
	if (!e)
		return PD_ERR_NOMEM;
	e->counts[event].hits += n;
	e->counts[event].period += period;
	e->sym->counts[event].hits += n;
	e->sym->counts[event].period += period;
	return 1;
}

int pda_annot_add_func(struct pda_annot *a, struct pda_dso *dso,
		       const char *dso_name, const char *name, uint64_t start,
		       bool kernel)
{
	struct pda_frame fr = {.ip = start, .sym = name, .dso = dso_name,
			       .dso_addr = start,
			       .flags = kernel ? PDA_FRAME_KERNEL : 0};

	if (a->finished)
		return PD_ERR_API;
	return find_sym(a, dso, &fr) ? 0 : PD_ERR_NOMEM;
}

static int cmp_sym(const void *x, const void *y)
{
	const struct annot_sym *a = *(const struct annot_sym *const *)x;
	const struct annot_sym *b = *(const struct annot_sym *const *)y;
	int c;

	if (a->pub.share != b->pub.share)
		return a->pub.share > b->pub.share ? -1 : 1;
	c = strcmp(a->pub.name, b->pub.name);
	if (c)
		return c;
	c = strcmp(a->pub.dso ? a->pub.dso : "", b->pub.dso ? b->pub.dso : "");
	if (c)
		return c;
	return a->pub.start < b->pub.start ? -1 : a->pub.start > b->pub.start;
}

int pda_annot_finish(struct pda_annot *a)
{
	struct annot_sym *sym;
	size_t i = 0;

	if (a->finished)
		return 0;
	a->sorted = pda_malloc(a->s, (a->nr_syms ? a->nr_syms : 1) *
					     sizeof(*a->sorted));
	if (!a->sorted)
		return PD_ERR_NOMEM;
	for (sym = a->all_syms; sym; sym = sym->next_all) {
		double best = 0;

		for (size_t ev = 0; ev < a->opts.nr_events; ev++) {
			const struct pda_annot_count *t = &a->totals[ev];
			double share;

			if (!t->period && !t->hits)
				continue;
			/* periods, unless the event has none (all zero) */
			share = t->period ? (double)sym->counts[ev].period /
						    (double)t->period
					  : (double)sym->counts[ev].hits /
						    (double)t->hits;
			if (share > best)
				best = share;
		}
		sym->pub.share = best;
		a->sorted[i++] = sym;
	}
	if (i > 1)
		qsort(a->sorted, i, sizeof(*a->sorted), cmp_sym);
	a->finished = true;
	return 0;
}

size_t pda_annot_nr_syms(const struct pda_annot *a)
{
	return a->nr_syms;
}

const struct pda_annot_sym *pda_annot_sym(const struct pda_annot *a, size_t i)
{
	if (!a->finished || i >= a->nr_syms)
		return NULL;
	return &a->sorted[i]->pub;
}

struct pda_dso *pda_annot_sym_dso(const struct pda_annot_sym *sym)
{
	/* pub is an annot_sym's first member */
	return ((const struct annot_sym *)(const void *)sym)->dso;
}

const struct pda_annot_count *pda_annot_totals(const struct pda_annot *a)
{
	return a->totals;
}

uint64_t pda_annot_nr_unresolved(const struct pda_annot *a)
{
	return a->nr_unresolved;
}
