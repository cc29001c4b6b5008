/*
 * pda_branch_cyc.c - perf's cycle histograms of symbols (util/annotate.c
 * symbol__account_cycles(), util/branch.c hist__account_cycles()): a
 * slot per byte of a symbol, where the branches leaving it from there
 * account their cycles and the start of the block they end.  Report's
 * ipc_lbr column (pda_branch_rep.c) and annotate's IPC and cycles
 * columns (pda_branch_annot.c) read the same histograms.
 */
#include "pda_branch_int.h"

#include <string.h>

/* perf caps what an annotation holds: a symbol over 16 MiB is not
 * annotated here (perf's objdump would take it; its histogram is the
 * symbol's size) */
#define CYC_MAX_SIZE ((uint64_t)16 << 20)

/* PERF_SAMPLE_BRANCH_ANY: every taken branch, so that an entry's target
 * starts the block the next entry ends */
#define BR_ANY (1ull << 3)

struct cyc_key {
	const struct pda_dso *dso;
	uint64_t start;
};

static bool sym_eq(const void *item, const void *key)
{
	const struct pda_bcyc_sym *i = item;
	const struct cyc_key *k = key;

	return i->dso == k->dso && i->start == k->start;
}

void pda_bcyc_init(struct pda_bcyc *c, struct pda_branch *b, bool taken)
{
	memset(c, 0, sizeof(*c));
	c->b = b;
	c->taken = taken;
}

void pda_bcyc_release(struct pda_bcyc *c)
{
	struct pda_session *s = c->b->s;
	size_t pos = 0;
	void *it;

	while ((it = pdc_hash_next(&c->syms, &pos))) {
		struct pda_bcyc_sym *si = it;

		pda_free(s, si->ch);
		pda_free(s, si->tk);
		pda_free(s, si->cntr);
		pda_free(s, si);
	}
	pdc_hash_release(pda_session_alloc(s), &c->syms);
}

struct pda_bcyc_sym *pda_bcyc_sym_of(struct pda_bcyc *c,
				     const struct loc_ent *e, int *err)
{
	struct pda_session *s = c->b->s;
	struct pda_elf *elf = pda_branch_elf(e);
	struct cyc_key k;
	struct pda_bcyc_sym *si;
	const char *name;
	uint64_t start, size, h;

	if (!e->loc.sym || !elf)
		return NULL;
	if (pda_elf_symbol(s, elf, e->dso_addr, &name, &start, &size) < 0 ||
	    !size)
		return NULL;
	k.dso = e->dso;
	k.start = start;
	h = pdc_hash_u64((uint64_t)(uintptr_t)e->dso ^ pdc_hash_u64(start));
	si = pdc_hash_find(&c->syms, h, sym_eq, &k);
	if (si)
		return si;
	si = pda_zalloc(s, sizeof(*si));
	if (!si) {
		*err = PD_ERR_NOMEM;
		return NULL;
	}
	si->dso = e->dso;
	si->dso_name = e->loc.dso;
	si->name = e->loc.sym;
	si->kernel = e->loc.kernel;
	si->start = start;
	si->size = size;
	if (pdc_hash_add(pda_session_alloc(s), &c->syms, h, si) < 0) {
		pda_free(s, si);
		*err = PD_ERR_NOMEM;
		return NULL;
	}
	return si;
}

const struct pda_bcyc_sym *pda_bcyc_find(const struct pda_bcyc *c,
					 const char *dso, uint64_t start)
{
	size_t pos = 0;
	void *it;

	/* by the DSO's recorded name: what an annotated function knows */
	while ((it = pdc_hash_next(&c->syms, &pos))) {
		const struct pda_bcyc_sym *si = it;

		if (si->start == start && si->dso_name && dso &&
		    !strcmp(si->dso_name, dso))
			return si;
	}
	return NULL;
}

/* util/annotate.c __symbol__account_cycles(): one histogram slot keeps
 * the longest block ending there (the earliest start); a block with a
 * start replaces one without.  Every entry counts in the average. */
static void account(struct pda_bcyc_slot *ch, uint64_t start,
		    bool have_start, unsigned cycles)
{
	ch->num_aggr++;
	ch->cycles_aggr += cycles;
	if (cycles > ch->cycles_max)
		ch->cycles_max = cycles;
	if (!ch->cycles_min || (cycles && cycles < ch->cycles_min))
		ch->cycles_min = cycles;
	if (!have_start && ch->have_start)
		return;
	if (ch->num) {
		if (have_start && (!ch->have_start || ch->start > start)) {
			ch->have_start = 0;
			ch->cycles = 0;
			ch->num = 0;
			if (ch->reset < 0xffff)
				ch->reset++;
		} else if (have_start && ch->start < start) {
			return;
		}
	}
	ch->have_start = have_start;
	ch->start = start;
	ch->cycles += cycles;
	ch->num++;
}

/* The symbol's slots, allocated on first use; NULL when the symbol is
 * too big to annotate, or *err. */
static struct pda_bcyc_slot *slots(struct pda_bcyc *c,
				   struct pda_bcyc_sym *si, int *err)
{
	if (si->size > CYC_MAX_SIZE)
		return NULL;
	if (!si->ch) {
		si->ch = pda_zalloc(c->b->s, si->size * sizeof(*si->ch));
		if (!si->ch)
			*err = PD_ERR_NOMEM;
	}
	return si->ch;
}

/* util/branch.c addr_map_symbol__account_cycles() and
 * symbol__account_cycles(): the branch from `from` ends a block that
 * started at `start` (the older entry's target; NULL: unknown) when both
 * are in one symbol, or start is the symbol's first byte. */
static int account_cycles(struct pda_bcyc *c, const struct loc_ent *from,
			  const struct loc_ent *start, unsigned cycles,
			  const uint64_t *counts, unsigned cols)
{
	struct pda_bcyc_sym *si;
	struct pda_bcyc_slot *ch;
	uint64_t off, soff = 0;
	bool have_start = false;
	int err = 0;

	if (!cycles)
		return 0;
	si = pda_bcyc_sym_of(c, from, &err);
	if (!si)
		return err;
	off = from->dso_addr - si->start;
	if (off >= si->size)
		return 0;
	if (start && start->dso == from->dso && start->loc.sym) {
		soff = start->dso_addr - si->start;
		/* out of the symbol: perf's -ERANGE drops the branch */
		if (soff >= si->size)
			return 0;
		have_start = soff < off;
		if (!have_start)
			soff = 0;
	}
	ch = slots(c, si, &err);
	if (!ch)
		return err;
	account(&ch[off], soff, have_start, cycles);
	if (!cols)
		return 0;
	/* symbol__account_br_cntr(): the block's counters at its end */
	if (!si->cntr) {
		si->cntr = pda_zalloc(c->b->s, si->size * c->cntr->nr *
						       sizeof(*si->cntr));
		if (!si->cntr)
			return PD_ERR_NOMEM;
	}
	pda_brcntr_add(c->cntr, counts, cols, &si->cntr[off * c->cntr->nr]);
	return 0;
}

/* With c->taken: the entry's from counted where it is. */
static int count_taken(struct pda_bcyc *c, const struct loc_ent *from,
		       const struct pd_branch *br)
{
	struct pda_bcyc_sym *si;
	struct pda_bcyc_taken *tk;
	uint64_t off;
	int err = 0;

	si = pda_bcyc_sym_of(c, from, &err);
	if (!si)
		return err;
	off = from->dso_addr - si->start;
	if (off >= si->size || si->size > CYC_MAX_SIZE)
		return 0;
	if (!si->tk) {
		si->tk = pda_zalloc(c->b->s, si->size * sizeof(*si->tk));
		if (!si->tk)
			return PD_ERR_NOMEM;
	}
	tk = &si->tk[off];
	tk->taken++;
	if (br->mispred || br->predicted)
		tk->with_pred++;
	if (br->mispred)
		tk->mispred++;
	return 0;
}

/* hist__account_cycles(): a stack whose newest entry has cycles, oldest
 * entry first; without -j any the blocks' starts are not known. */
int pda_bcyc_add(struct pda_bcyc *c, const struct pd_sample *sample,
		 const char *comm)
{
	const uint64_t bst =
		sample->evsel ? sample->evsel->attr.branch_sample_type : 0;
	const struct loc_ent *prev = NULL;
	struct pd_branch br;
	bool cycles;
	int err = 0;

	if (!(sample->mask & PD_SAMPLE_BRANCH_STACK) || !sample->branch.nr)
		return 0;
	pd_sample_branch(sample, 0, &br);
	cycles = br.cycles != 0;
	if (!cycles && !c->taken)
		return 0;
	for (uint64_t i = sample->branch.nr; i-- > 0;) {
		const struct loc_ent *f, *t;
		uint64_t counts[PDA_BR_CNTR_MAX];
		unsigned cols = 0;
		int rc = 0;

		pd_sample_branch(sample, i, &br);
		if (c->cntr && i < sample->branch.counters.nr)
			cols = pda_brcntr_split(
				c->cntr, sample->evsel, c->env,
				pd_u64s_get(&sample->branch.counters, i), counts);
		f = pda_branch_resolve(c->b, sample, comm, br.from, &err);
		t = f ? pda_branch_resolve(c->b, sample, comm, br.to, &err)
		      : NULL;
		if (!t)
			return err;
		if (cycles)
			rc = account_cycles(c, f, (bst & BR_ANY) ? prev : NULL,
					    br.cycles, counts, cols);
		if (rc == 0 && c->taken)
			rc = count_taken(c, f, &br);
		if (rc < 0)
			return rc;
		prev = t;
	}
	return 0;
}
