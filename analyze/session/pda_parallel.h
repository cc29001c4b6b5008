/*
 * pda_parallel.h - a workload's parallelism at each sample, from the
 * context-switch records of a capture (`perf record --switch-events` or
 * perf >= 6.15's `--latency`), as perf >= 6.15 computes it for its
 * latency profile (`perf report --latency`): one counter for the whole
 * session, starting at 1 (no thread is seen switching in at the start),
 * +1 at each switch-in, -1 at each switch-out and at each thread's EXIT
 * (a thread that exits is not switched out first); a sample's
 * parallelism is that counter as its records before it in time order
 * leave it, clamped to [1, the CPUs the capture's host had] (perf's
 * machine__nr_cpus_avail; 1 when the capture does not say), and its
 * latency its period divided by it.
 *
 *	struct pda_parallel *par;
 *	pda_parallel_new(f, alloc, &par);
 *	PDA_CAPTURE_OPTS(co, .order_fn = pda_parallel_note_fn, .arg = x, ...);
 *	// order_fn calls pda_parallel_note(par, rec, when)
 *	// sample_fn: level = pda_parallel_at(par, item->when);
 *	pda_parallel_free(par);
 *
 * The records come from the first pass of a two-pass capture run
 * (pda_capture_opts.order_fn) in the file's order, each with its place
 * in time order; samples are looked up by theirs (pda_pipe_item.when),
 * so the answer is the same whatever order samples are handed back in
 * and whatever -j is.
 */
#ifndef PDA_PARALLEL_H
#define PDA_PARALLEL_H

#include "pda_pipe.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pda_parallel;

/* Whether any event of f records context switches (attr.context_switch):
 * perf's perf_session__has_switch_events(). */
bool pda_parallel_recorded(const struct pd_file *f);

/* @return 0 and *out, or PD_ERR_NOMEM.  The CPUs come from f's NRCPUS
 * feature.  Free with pda_parallel_free(). */
int pda_parallel_new(struct pd_file *f, const struct pd_alloc *alloc,
		     struct pda_parallel **out);
/* Accepts NULL. */
void pda_parallel_free(struct pda_parallel *par);

/* A system-wide capture (CPU-wide switch records: perf record -a or -C),
 * which perf refuses: count only process pid's threads, switching in
 * and out and exiting, so that the parallelism is that process's.  A
 * capture of the workload alone (per-thread switch records) is counted
 * as perf counts it, whatever pid.  Before the first note.  @return 0 or
 * PD_ERR_API. */
int pda_parallel_set_pid(struct pda_parallel *par, uint32_t pid);

/* A record at its place in time order (a SWITCH, SWITCH_CPU_WIDE or EXIT
 * counts; any other is ignored), before the first pda_parallel_at().
 * @return 0, PD_ERR_NOMEM, or PD_ERR_API after a pda_parallel_at(). */
int pda_parallel_note(struct pda_parallel *par, const struct pd_rec *rec,
		      const struct pda_pipe_when *when);

/* The parallelism at a sample's place, in [1, CPUs].  The first call
 * sorts what was noted: @return 0 and *level, or PD_ERR_NOMEM. */
int pda_parallel_at(struct pda_parallel *par, const struct pda_pipe_when *when,
		    unsigned *level);

/* Places in time order (pda_pipe_when's time, then seq): < 0, 0, > 0. */
static inline int pda_place_cmp(uint64_t ta, uint64_t sa, uint64_t tb,
				uint64_t sb)
{
	if (ta != tb)
		return ta < tb ? -1 : 1;
	return sa < sb ? -1 : sa > sb;
}

/* A sample's latency as perf weighs it: period * 1000 / level (integer;
 * perf scales by 1000 to keep precision without floats, and prints only
 * shares of the total). */
uint64_t pda_parallel_latency(uint64_t period, unsigned level);

struct pda_parallel_stats {
	uint64_t nr_switch_in, nr_switch_out, nr_exit;
	uint64_t nr_cpu_wide;	/* SWITCH_CPU_WIDE among them: per-CPU
				 * events (perf record -a or -C) */
	unsigned nr_cpus;	/* the clamp: NRCPUS's available CPUs */
	bool pid_only;		/* pda_parallel_set_pid() */
};

const struct pda_parallel_stats *
pda_parallel_stats(const struct pda_parallel *par);

#ifdef __cplusplus
}
#endif

#endif /* PDA_PARALLEL_H */
