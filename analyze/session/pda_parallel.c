/*
 * pda_parallel.c - the parallelism counter of perf's latency profile
 * (perf >= 6.15: machine.c machine__process_switch_event() and
 * machine__process_exit_event(), event.c machine__resolve()), kept as
 * a list of changes in time order so that a sample looks its level up
 * by its place instead of waiting for the records before it.
 *
 * A system-wide capture's CPU-wide switch records count every task on
 * the host, which perf refuses; with one process chosen
 * (pda_parallel_set_pid()), only its threads' switches and exits count:
 * the parallelism of that process.  Each change keeps its pid for that,
 * and the choice is applied when the changes are sorted, once it is
 * known whether the capture is system-wide.
 */
#include "pda_parallel.h"
#include "pdc_alloc.h"

#include <stdlib.h>
#include <string.h>

/* Changes noted at most: a switch record is 48 bytes or more, so this
 * is far beyond what a capture the data section can hold has. */
#define CHANGES_MAX ((size_t)1 << 31)

struct change {
	uint64_t time, seq;	/* place in time order */
	int64_t delta;		/* +1 in, -1 out or exit */
	uint32_t pid;		/* whose; UINT32_MAX unknown */
};

struct pda_parallel {
	struct pd_alloc mem;
	struct change *ch;
	size_t nr, alloc;
	int64_t *level;		/* after change i, raw (perf's counter) */
	bool sorted;
	struct pd_file *f;	/* to tell whose a record is */
	bool has_pid;
	uint32_t pid;		/* pda_parallel_set_pid() */
	struct pda_parallel_stats st;
};

bool pda_parallel_recorded(const struct pd_file *f)
{
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
		if (PD_ATTR_HAS(&pd_file_evsel(f, i)->attr, context_switch))
			return true;
	return false;
}

int pda_parallel_new(struct pd_file *f, const struct pd_alloc *alloc,
		     struct pda_parallel **out)
{
	const struct pd_env *env = NULL;
	struct pd_alloc mem = {0};
	struct pda_parallel *par;

	if (alloc)
		mem = *alloc;
	*out = NULL;
	par = pdc_zalloc(&mem, sizeof(*par));
	if (!par)
		return PD_ERR_NOMEM;
	par->mem = mem;
	par->f = f;
	/* perf's machine__nr_cpus_avail(): 0 without the feature, and
	 * max(1, min(level, 0)) is then 1 */
	if (pd_file_env(f, &env) == 0 && env &&
	    env->status[PD_FEAT_NRCPUS] == PD_ENV_OK)
		par->st.nr_cpus = env->nr_cpus_avail;
	*out = par;
	return 0;
}

void pda_parallel_free(struct pda_parallel *par)
{
	if (!par)
		return;
	pdc_free(&par->mem, par->ch);
	pdc_free(&par->mem, par->level);
	pdc_free(&par->mem, par);
}

int pda_parallel_set_pid(struct pda_parallel *par, uint32_t pid)
{
	if (par->sorted || par->nr)
		return PD_ERR_API;
	par->has_pid = true;
	par->pid = pid;
	par->st.pid_only = true;
	return 0;
}

/* Whose rec is (its thread's process), or UINT32_MAX unknown. */
static uint32_t rec_pid(struct pd_file *f, const struct pd_rec *rec)
{
	struct pd_sample_id id;
	struct pd_event ev;

	if (rec->type == PD_REC_EXIT)
		return pd_event_decode(f, rec, &ev) == 0 ? ev.fork.pid
							 : UINT32_MAX;
	return pd_rec_sample_id(f, rec, &id) == 0 &&
			       (id.mask & PD_SAMPLE_TID)
		       ? id.pid
		       : UINT32_MAX;
}

int pda_parallel_note(struct pda_parallel *par, const struct pd_rec *rec,
		      const struct pda_pipe_when *when)
{
	int64_t delta;

	if (par->sorted)
		return PD_ERR_API;
	switch (rec->type) {
	case PD_REC_SWITCH_CPU_WIDE:
	case PD_REC_SWITCH:
		/* perf counts both kinds alike */
		par->st.nr_cpu_wide += rec->type == PD_REC_SWITCH_CPU_WIDE;
		delta = rec->misc & PD_MISC_SWITCH_OUT ? -1 : 1;
		if (delta > 0)
			par->st.nr_switch_in++;
		else
			par->st.nr_switch_out++;
		break;
	case PD_REC_EXIT:
		delta = -1;
		par->st.nr_exit++;
		break;
	default:
		return 0;
	}
	if (PDC_GROW(&par->mem, par->ch, par->alloc, par->nr + 1,
		     CHANGES_MAX) < 0)
		return PD_ERR_NOMEM;
	par->ch[par->nr].time = when->time;
	par->ch[par->nr].seq = when->seq;
	par->ch[par->nr].delta = delta;
	par->ch[par->nr].pid = par->has_pid ? rec_pid(par->f, rec) : UINT32_MAX;
	par->nr++;
	return 0;
}

static int cmp_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	return pda_place_cmp(x->time, x->seq, y->time, y->seq);
}

static int sort_changes(struct pda_parallel *par)
{
	int64_t level = 1; /* no switch-in is seen for what runs at start */

	/* system-wide, one process: only its changes */
	if (par->has_pid && par->st.nr_cpu_wide) {
		size_t n = 0;

		for (size_t i = 0; i < par->nr; i++)
			if (par->ch[i].pid == par->pid)
				par->ch[n++] = par->ch[i];
		par->nr = n;
	}
	if (par->nr) {
		qsort(par->ch, par->nr, sizeof(*par->ch), cmp_change);
		par->level = pdc_malloc(&par->mem,
					par->nr * sizeof(*par->level));
		if (!par->level)
			return PD_ERR_NOMEM;
	}
	for (size_t i = 0; i < par->nr; i++) {
		level += par->ch[i].delta;
		par->level[i] = level;
	}
	par->sorted = true;
	return 0;
}

int pda_parallel_at(struct pda_parallel *par, const struct pda_pipe_when *when,
		    unsigned *level)
{
	size_t lo = 0, hi;
	int64_t raw = 1;
	int rc;

	if (!par->sorted && (rc = sort_changes(par)) < 0)
		return rc;
	hi = par->nr;
	/* the changes placed before the sample */
	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;
		const struct change *c = &par->ch[mid];

		if (pda_place_cmp(c->time, c->seq, when->time, when->seq) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		raw = par->level[lo - 1];
	/* perf: max(1, min(parallelism, nr_cpus_avail)), for switch
	 * records that are out of order or lost */
	if (raw > (int64_t)par->st.nr_cpus)
		raw = par->st.nr_cpus;
	*level = raw < 1 ? 1 : (unsigned)raw;
	return 0;
}

uint64_t pda_parallel_latency(uint64_t period, unsigned level)
{
	return period * 1000 / (level ? level : 1);
}

const struct pda_parallel_stats *
pda_parallel_stats(const struct pda_parallel *par)
{
	return &par->st;
}
