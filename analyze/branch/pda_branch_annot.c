/*
 * pda_branch_annot.c - branch counts per instruction, for `pdtool
 * annotate`: the cycle histograms of pda_branch_cyc.c (perf's), with
 * every entry also counted where it left, read back per function in the
 * order of the annotation's own instructions.
 */
#include "pda_branch_int.h"

#include <string.h>

struct pda_branch_annot {
	struct pda_session *s;
	struct pda_branch *b; /* the resolving and its caches */
	struct pda_bcyc cyc;
};

int pda_branch_annot_new(struct pda_session *s, struct pda_branch_annot **out)
{
	PDA_BRANCH_OPTS(bo, .by = PDA_BRANCH_BY_SYM);
	struct pda_branch_annot *ba;
	int rc;

	*out = NULL;
	ba = pda_zalloc(s, sizeof(*ba));
	if (!ba)
		return PD_ERR_NOMEM;
	ba->s = s;
	rc = pda_branch_new(s, &bo, &ba->b);
	if (rc < 0) {
		pda_free(s, ba);
		return rc;
	}
	pda_bcyc_init(&ba->cyc, ba->b, true);
	*out = ba;
	return 0;
}

void pda_branch_annot_free(struct pda_branch_annot *ba)
{
	if (!ba)
		return;
	pda_bcyc_release(&ba->cyc);
	pda_branch_free(ba->b);
	pda_free(ba->s, ba);
}

void pda_branch_annot_counters(struct pda_branch_annot *ba,
			       const struct pda_brcntr *c,
			       const struct pd_env *env)
{
	pda_bcyc_counters(&ba->cyc, c, env);
}

int pda_branch_annot_add(struct pda_branch_annot *ba,
			 const struct pd_sample *sample, const char *comm)
{
	return pda_bcyc_add(&ba->cyc, sample, comm ? comm : "");
}

int pda_branch_annot_each(const struct pda_branch_annot *ba,
			  pda_branch_func_fn fn, void *arg)
{
	size_t pos = 0;
	void *it;

	while ((it = pdc_hash_next(&ba->cyc.syms, &pos))) {
		const struct pda_bcyc_sym *si = it;
		int rc;

		if (!si->tk || !si->name)
			continue;
		rc = fn(arg, si->dso, si->dso_name, si->name, si->start,
			si->kernel);
		if (rc)
			return rc;
	}
	return 0;
}

/* annotation__count_insn() as pda_branch_rep.c counts it: the
 * instructions from offset from (none when none starts there) to to,
 * among the n at addrs - start. */
static unsigned count_insns(const uint64_t *addrs, size_t n, uint64_t start,
			    uint64_t from, uint64_t to)
{
	unsigned nr = 0;
	bool first = true;

	for (size_t i = 0; i < n; i++) {
		const uint64_t off = addrs[i] - start;

		if (off < from)
			continue;
		if (off > to)
			break;
		if (first && off != from)
			return 0;
		first = false;
		nr++;
	}
	return nr;
}

/*
 * annotation__compute_ipc() of perf 7.x: from the function's end
 * backward, each instruction whose slot kept cycles gets the average of
 * every entry's cycles, and, where its block's start is known, the
 * block's IPC (perf gives it to the block's lines that have cycles and
 * no IPC yet, but allocates a line's cycles as it walks back: a block
 * covers its own last instruction only).
 */
int pda_branch_annot_func(const struct pda_branch_annot *ba, const char *dso,
			  uint64_t start, const uint64_t *addrs, size_t n,
			  struct pda_branch_insn *out)
{
	const struct pda_bcyc_sym *si = pda_bcyc_find(&ba->cyc, dso, start);
	bool any = false;

	memset(out, 0, n * sizeof(*out));
	if (!si)
		return 0;
	for (size_t i = n; i-- > 0;) {
		const uint64_t off = addrs[i] - start;
		const struct pda_bcyc_slot *ch;
		unsigned nr;

		if (addrs[i] < start || off >= si->size)
			continue;
		if (si->tk && si->tk[off].taken) {
			out[i].taken = si->tk[off].taken;
			out[i].with_pred = si->tk[off].with_pred;
			out[i].mispred = si->tk[off].mispred;
			any = true;
		}
		ch = si->ch ? &si->ch[off] : NULL;
		if (!ch || !ch->cycles)
			continue;
		any = true;
		out[i].nr_cycles = ch->num_aggr;
		out[i].cycles_avg = ch->num_aggr ? ch->cycles_aggr / ch->num_aggr
						 : 0;
		out[i].cycles_min = ch->cycles_min;
		out[i].cycles_max = ch->cycles_max;
		if (si->cntr)
			memcpy(out[i].cntr, &si->cntr[off * ba->cyc.cntr->nr],
			       ba->cyc.cntr->nr * sizeof(*si->cntr));
		if (!ch->have_start || !ch->num || ch->reset >= 0x7fff)
			continue;
		nr = count_insns(addrs, n, start, ch->start, off);
		if (!nr)
			continue;
		/* perf's float; of the block's lines only the last has its
		 * cycles yet */
		out[i].ipc = (float)(nr / ((double)ch->cycles /
					   (double)ch->num));
	}
	return any ? 1 : 0;
}
