/*
 * pda_collect.h - a capture's samples straight into a structured profile
 * (pda_profile.h) at full detail: one location per frame address, one
 * pair of columns (samples, period) per event.  What `pdtool report`
 * and the exporters (pprof, Firefox Profiler) build on; fold's profile
 * (pda_fold_profile()) is the folded view of the same samples, one
 * location per folded name with all events merged.
 */
#ifndef PDA_COLLECT_H
#define PDA_COLLECT_H

#include "pda_profile.h"
#include "pda_session.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A collector turns resolved samples into a profile as they come:
 *
 *   locations  one per distinct frame: its symbol, DSO, address (an
 *              offset in the DSO's file, PDA_LOC_DSO_OFFSET, or the ip
 *              without a map), source file and line and flags, so two
 *              samples at different instructions of one function are two
 *              locations of one function, and an inlined frame is a
 *              location of the inlined function at its call site's
 *              address.  The label is the frame's name as `pdtool fold`
 *              writes it by default: the symbol with ';' as ':' and
 *              bytes that are not printable text as \xNN, or
 *              "[unknown]".
 *   functions  by (symbol, source file); mappings by DSO path.
 *   roots      unless PDA_COLLECT_NO_COMM, every stack starts at a
 *              PDA_LOC_ROOT location naming the thread: its comm (spaces
 *              as '_', ":TID" when unknown, as fold names it), "-PID" and
 *              "/TID" after it as the flags ask.
 *   columns    two per event, in the order of each event's first sample:
 *              2e counts samples, 2e + 1 sums their periods; each column
 *              is named by the event (pd_evsel.name) and its unit
 *              ("samples", "period").
 *
 * A sample adds to one row: the row of its stack, in its event's two
 * columns.  The per-sample path allocates only for a location, stack or
 * event not seen before.  The collector keys frames by the session's
 * interned strings, so it must not outlive the session; the profile it
 * hands over does not refer to either.  Not thread-safe.
 *
 *	struct pda_collect *col;
 *	PDA_COLLECT_OPTS(co, .flags = PDA_COLLECT_PID);
 *	pda_collect_new(&co, &col);
 *	(for each sample: a pda_pipe_item's sample, stack and comm)
 *		pda_collect_add(col, it->sample, it->stack, it->comm);
 *	pda_collect_profile(col, &p);	// p is the caller's now
 *	pda_collect_free(col);
 *	...
 *	pda_profile_free(p);
 */
struct pda_collect;

enum pda_collect_flags {
	PDA_COLLECT_NO_COMM = 1u << 0,	/* no root frame */
	PDA_COLLECT_PID = 1u << 1,	/* root "comm-PID" */
	PDA_COLLECT_TID = 1u << 2,	/* root "comm-TID", "comm-PID/TID"
					 * with PDA_COLLECT_PID */
};

/* Events a collector tells apart: a column pair each. */
#define PDA_COLLECT_MAX_EVENTS (PDA_PROFILE_MAX_COLUMNS / 2)

struct pda_collect_opts {
	size_t sz;		/* by PDA_COLLECT_OPTS */
	unsigned flags;		/* pda_collect_flags */
	unsigned max_stack;	/* frames kept from the leaf, inlined ones
				 * not counted (perf's --max-stack);
				 * 0: PDA_MAX_STACK */
	const struct pd_alloc *alloc;
};

#define PDA_COLLECT_OPTS(name, ...)                                         \
	struct pda_collect_opts name = {                                    \
		.sz = sizeof(struct pda_collect_opts), __VA_ARGS__ }

/* @return 0 and *out, or PD_ERR_API (bad opts) or PD_ERR_NOMEM with
 * *out = NULL.  Free with pda_collect_free(). */
int pda_collect_new(const struct pda_collect_opts *opts,
		    struct pda_collect **out);
/* Accepts NULL; frees the profile too unless it was handed over. */
void pda_collect_free(struct pda_collect *col);

/*
 * Add one sample: sample gives its event (evsel), pid, tid and period;
 * st its resolved stack, leaf first (NULL or empty: the sample has only
 * its root); comm the thread's (NULL or "": unknown).  Nothing is kept
 * past the call but interned copies.
 * @return 0; PD_ERR_NOMEM (nothing added); PD_ERR_FORMAT (a column's
 * total would pass 64 bits; nothing added); PD_ERR_UNSUPPORTED (more
 * than PDA_COLLECT_MAX_EVENTS events); PD_ERR_API after
 * pda_collect_profile().
 */
int pda_collect_add(struct pda_collect *col, const struct pd_sample *sample,
		    const struct pda_stack *st, const char *comm);

/*
 * The same, and *stack_out the stack the sample was added to (0: the
 * empty stack), set only on success: what a timed exporter (the Firefox
 * Profiler's per-thread sample tables) keeps per sample, since the
 * profile itself only sums.
 */
int pda_collect_add_stack(struct pda_collect *col,
			  const struct pd_sample *sample,
			  const struct pda_stack *st, const char *comm,
			  uint32_t *stack_out);

struct pda_collect_stats {
	uint64_t nr_samples;		/* added */
	uint64_t nr_truncated;		/* stacks cut at max_stack */
	uint64_t nr_unresolved;		/* with a frame without a symbol
					 * or a map */
	unsigned nr_events;		/* column pairs */
};

/* Valid until the next call on col. */
const struct pda_collect_stats *
pda_collect_stats(const struct pda_collect *col);

/*
 * Hand the profile over: *out is the caller's to pda_profile_free(), and
 * adding is over.  @return 0, or PD_ERR_API (already handed over, *out
 * NULL).
 */
int pda_collect_profile(struct pda_collect *col, struct pda_profile **out);

/* The column pair of evsel (2e, 2e + 1): e, or -1 if no sample of it
 * was added. */
int pda_collect_event(const struct pda_collect *col,
		      const struct pd_evsel *evsel);

#ifdef __cplusplus
}
#endif

#endif /* PDA_COLLECT_H */
