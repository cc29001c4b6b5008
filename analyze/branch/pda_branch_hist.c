/*
 * pda_branch_hist.c - a sample's branch stack as the frames under its
 * callchain, as perf report --branch-history puts it in the call graph
 * (util/machine.c, thread__resolve_callchain_sample): each entry, newest
 * first, gives its `to` then its `from`, leaf side first, after perf's
 * remove_loops() has dropped the repeats of a loop.  The ends are
 * resolved as pda_branch does it, through its cache.
 */
#include "pda_branch_int.h"

#include <string.h>

#define HIST_MAX ((size_t)1 << 20)

struct pda_branch_hist {
	struct pda_branch *b;	/* the resolved addresses' cache */
	struct pd_branch *be;	/* the entries of the sample at hand */
	size_t alloc_be;
	struct pda_frame *frames;
	size_t alloc_frames;
	struct pda_dso **dsos;	/* each path frame's binary, NULL: none */
	size_t alloc_dsos;
	struct pda_stack out;
};

int pda_branch_hist_new(struct pda_session *s, struct pda_branch_hist **out)
{
	PDA_BRANCH_OPTS(bo, .by = PDA_BRANCH_BY_SRCLINE);
	struct pda_branch_hist *h;
	int rc;

	*out = NULL;
	h = pda_zalloc(s, sizeof(*h));
	if (!h)
		return PD_ERR_NOMEM;
	rc = pda_branch_new(s, &bo, &h->b);
	if (rc < 0) {
		pda_free(s, h);
		return rc;
	}
	*out = h;
	return 0;
}

void pda_branch_hist_free(struct pda_branch_hist *h)
{
	struct pda_session *s;

	if (!h)
		return;
	s = h->b->s;
	pda_free(s, h->be);
	pda_free(s, h->frames);
	pda_free(s, h->dsos);
	pda_branch_free(h->b);
	pda_free(s, h);
}

/* perf 6.1's hash_64(from, 7) % 127 (CHASHBITS, CHASHSZ), the slot
 * remove_loops() keeps an entry's index in (perf 6.15 hashes to 8 bits
 * for 256-entry stacks: other collisions, and paths that differ where
 * one is lost) */
static unsigned loop_slot(uint64_t from)
{
	return (unsigned)((from * 0x61C8864680B583EBull) >> 57) % 127;
}

/*
 * perf's remove_loops(), step for step: an entry whose `from` was seen
 * (in the one slot of its hash: perf handles no collision, and a
 * colliding `from` is never looked for) starts a repeat when the entries
 * from there match the ones from the first, by `from`; the repeat is
 * dropped.  The same slots, the same drops, the same path as perf.
 */
static size_t remove_loops(struct pd_branch *l, size_t nr)
{
	unsigned char slot[127];

	memset(slot, 0xff, sizeof(slot));
	for (size_t i = 0; i < nr; i++) {
		const unsigned h = loop_slot(l[i].from);
		size_t j, off = 0;
		bool is_loop = true;

		if (slot[h] == 0xff) {
			slot[h] = (unsigned char)i;
			continue;
		}
		if (l[slot[h]].from != l[i].from)
			continue;
		for (j = slot[h]; j < i && i + off < nr; j++, off++)
			if (l[j].from != l[i + off].from) {
				is_loop = false;
				break;
			}
		if (!is_loop)
			continue;
		if (nr > i + off)
			memmove(l + i, l + i + off,
				(nr - i - off) * sizeof(*l));
		nr -= off;
	}
	return nr;
}

static void loc_frame(const struct loc_ent *e, struct pda_frame *fr)
{
	memset(fr, 0, sizeof(*fr));
	fr->ip = e->addr;
	fr->sym = e->loc.sym;
	fr->dso = e->loc.dso;
	fr->dso_addr = e->dso_addr;
	fr->map_ip = e->dso_addr;
	fr->sym_off = e->loc.sym_off;
	fr->srcfile = e->loc.srcfile;
	fr->line = e->loc.line;
	if (e->loc.kernel)
		fr->flags |= PDA_FRAME_KERNEL;
	if (!e->loc.sym)
		fr->flags |= PDA_FRAME_NO_SYMBOL;
	if (!e->loc.dso)
		fr->flags |= PDA_FRAME_NO_MAP;
}

/* Whether st's first nr frames have one in binary dso (unresolved only
 * with unres). */
static bool has_dso(const struct pda_frame *fr, size_t nr, const char *dso,
		    bool unres)
{
	for (size_t i = 0; i < nr; i++)
		if (fr[i].dso == dso &&
		    (!unres || (fr[i].flags & PDA_FRAME_NO_SYMBOL)))
			return true;
	return false;
}

/*
 * The path's binaries in the session's "unresolved frames by binary"
 * shares, as the folded stack has them: a binary once per sample, with
 * an unresolved frame once, where the callchain did not count it
 * already (pda_addr_leaf counted none of them).  A map's name is
 * interned: one binary, one pointer.
 */
static void count_path(struct pda_branch_hist *h, size_t nr, size_t chain)
{
	const struct pda_frame *path = h->frames, *cc = h->frames + nr;

	for (size_t i = 0; i < nr; i++) {
		const char *name = path[i].dso;
		struct pda_dso *d = h->dsos[i];
		bool unres = false;

		/* no map, or seen at a frame before (mostly the last) */
		if (!d || (i && path[i - 1].dso == name) ||
		    has_dso(path, i, name, false))
			continue;
		for (size_t j = i; j < nr; j++)
			if (path[j].dso == name &&
			    (path[j].flags & PDA_FRAME_NO_SYMBOL))
				unres = true;
		if (!has_dso(cc, chain, name, false))
			d->nr_samples++;
		if (unres && !has_dso(cc, chain, name, true))
			d->nr_unresolved++;
	}
}

/* addr's frame (and its binary) at *n of the path, n advanced.
 * @return 0 or a negative pd_err. */
static int add_frame(struct pda_branch_hist *h, const struct pd_sample *sample,
		     const char *comm, uint64_t addr, size_t *n)
{
	int rc = 0;
	const struct loc_ent *e = pda_branch_resolve(h->b, sample, comm, addr,
						     &rc);

	if (!e)
		return rc;
	loc_frame(e, &h->frames[*n]);
	h->dsos[(*n)++] = e->dso;
	return 0;
}

int pda_branch_hist_stack(struct pda_branch_hist *h,
			  const struct pd_sample *sample, const char *comm,
			  const struct pda_stack *st, unsigned max,
			  const struct pda_stack **out,
			  struct pda_branch_hist_info *info)
{
	struct pda_session *s = h->b->s;
	size_t nr = sample->branch.nr, chain = st ? st->nr : 0, n = 0;
	int rc = 0;

	*out = NULL;
	memset(info, 0, sizeof(*info));
	if (nr > max)
		nr = max;
	/* a record of 64 KiB holds fewer entries and frames than the cap */
	if (PDC_GROW(pda_session_alloc(s), h->be, h->alloc_be, nr, HIST_MAX) <
		    0 ||
	    PDC_GROW(pda_session_alloc(s), h->frames, h->alloc_frames,
		     2 * nr + chain, HIST_MAX) < 0 ||
	    PDC_GROW(pda_session_alloc(s), h->dsos, h->alloc_dsos, 2 * nr,
		     HIST_MAX) < 0)
		return PD_ERR_NOMEM;
	/* a mispredicted entry counts where a loop's repeat is dropped too:
	 * the path keeps its site, the first time round */
	for (size_t i = 0; i < nr; i++) {
		pd_sample_branch(sample, i, &h->be[i]);
		if (h->be[i].mispred)
			info->mispred = true;
		/* mispred = predicted = 0: the hardware does not say */
		if (h->be[i].mispred || h->be[i].predicted)
			info->pred_known = true;
	}
	info->nr_entries = nr;
	nr = remove_loops(h->be, nr);
	info->nr_kept = nr;
	for (size_t i = 0; i < nr; i++) {
		const enum pda_branch_half half =
			pda_branch_half(&h->be[i], h->b->brbe);

		/* a BRBE half record's missing end makes no frame (perf
		 * 7.2's is a frame at address 0) */
		if (half != PDA_BRANCH_SOURCE_ONLY &&
		    (rc = add_frame(h, sample, comm, h->be[i].to, &n)) < 0)
			return rc;
		if (half != PDA_BRANCH_TARGET_ONLY &&
		    (rc = add_frame(h, sample, comm, h->be[i].from, &n)) < 0)
			return rc;
	}
	if (chain)
		memcpy(h->frames + n, st->frames, chain * sizeof(*h->frames));
	count_path(h, n, chain);
	h->out.frames = h->frames;
	h->out.nr = n + chain;
	h->out.alloc = h->alloc_frames;
	*out = &h->out;
	return 0;
}
