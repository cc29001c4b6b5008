/*
 * pda_filter.h - which of a capture's samples a command looks at: its
 * event, pids, tids and time range, the rules `pdtool fold`, `diff` and
 * `annotate` share, with what each rule left out counted.
 *
 *	struct pda_filter flt;
 *	PDA_FILTER_OPTS(fo, .event = "cycles", .has_time_end = true,
 *			.time_end = 1000000000);
 *
 *	pda_filter_init(&flt, &fo);
 *	(for each decoded sample)
 *		if (!pda_filter_sample(&flt, &sample))
 *			continue;
 *	pda_filter_stats(&flt)->by_reason[PDA_FILTER_OUT_EVENT];
 *
 * The rules that look at names a stack resolves to (--comm, --dso,
 * --symbol) are pda_fold's: they match the folded frame names.  A
 * filter allocates nothing (no release); it borrows opts' arrays, which
 * must outlive it.  Not thread-safe: the pipeline calls it on the
 * caller's thread.
 */
#ifndef PDA_FILTER_H
#define PDA_FILTER_H

#include "pd.h"
#include "pda_session.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pda_filter_flags {
	/*
	 * Without .event, keep tracepoint samples too.  By default they
	 * are left out, as perf's stackcollapse.py never sees them: perf's
	 * Python engine hands them to a handler named after the event.
	 */
	PDA_FILTER_TRACEPOINTS = 1u << 0,
	/* Leave out samples whose event cannot be told (reason NO_EVENT,
	 * before the event rule); by default they pass unless .event. */
	PDA_FILTER_NEED_EVENT = 1u << 1,
	/*
	 * Without .event, keep only the event of the first sample that
	 * passes the event rules (pda_filter_first()): the
	 * samples of two events, cpu-clock ticks and page faults say, do
	 * not add up to anything, so a flame graph or a diff draws one
	 * unless told otherwise, as stackcollapse-perf.pl does.
	 */
	PDA_FILTER_FIRST_EVENT = 1u << 2,
};

struct pda_filter_opts {
	size_t sz;		/* sizeof(struct pda_filter_opts), by
				 * PDA_FILTER_OPTS */
	unsigned flags;		/* pda_filter_flags */
	/* Keep only this event, as pda_event_matches() matches it; NULL:
	 * every event (tracepoints as flags say). */
	const char *event;
	const uint32_t *pids;	/* keep only these pids; NULL or 0: all */
	size_t nr_pids;
	const uint32_t *tids;	/* keep only these tids; NULL or 0: all */
	size_t nr_tids;
	/* perf's --time: ns, inclusive at both ends, an end not given is
	 * open */
	bool has_time_start, has_time_end;
	uint64_t time_start, time_end;
	/* perf's list of --time ranges (perf_time__ranges_skip_sample()):
	 * a sample passes in any of them, and one without a time (0)
	 * passes (pda_time_in_ranges()); with them, has_time_start and
	 * has_time_end must be false.  NULL or 0: none. */
	const struct pda_time_range *time_ranges;
	size_t nr_time_ranges;
};

#define PDA_FILTER_OPTS(name, ...)                                          \
	struct pda_filter_opts name = { .sz = sizeof(struct pda_filter_opts), \
					__VA_ARGS__ }

/* Why a sample was left out: the first rule it failed, in this order. */
enum pda_filter_reason {
	PDA_FILTER_OUT_NO_EVENT, /* no event known (NEED_EVENT) */
	PDA_FILTER_OUT_EVENT,	 /* another event, or a tracepoint */
	PDA_FILTER_OUT_TIME,	 /* outside the time range */
	PDA_FILTER_OUT_PID,
	PDA_FILTER_OUT_TID,
	PDA_FILTER_NR_REASONS
};

/* Events a filter tells apart in its statistics, at most. */
#define PDA_FILTER_MAX_EVENTS 64

/* One event that had samples. */
struct pda_filter_event {
	const struct pd_evsel *evsel;	/* the capture's; lives with it */
	uint64_t nr_samples;		/* samples it had */
	uint64_t nr_kept;		/* of them, kept */
};

struct pda_filter_stats {
	uint64_t nr_samples;	/* samples asked about */
	uint64_t nr_kept;
	uint64_t nr_left_out;	/* nr_samples - nr_kept */
	uint64_t by_reason[PDA_FILTER_NR_REASONS];
	/* samples that passed the event rules (kept or left out later) */
	uint64_t nr_event_ok;
	/* the distinct events with samples, in the order of their first
	 * sample: events[0..min(nr_events, PDA_FILTER_MAX_EVENTS)); a
	 * nr_events of PDA_FILTER_MAX_EVENTS + 1 means more */
	size_t nr_events;
	struct pda_filter_event events[PDA_FILTER_MAX_EVENTS];
};

/* Embedded; the fields are private but for pda_filter_stats(). */
struct pda_filter {
	struct pda_filter_opts o;
	struct pda_filter_stats st;
	const struct pd_evsel *last;	/* the last sample's event */
	const struct pd_evsel *first;	/* FIRST_EVENT's, once seen */
	bool last_ok;			/* and whether it passed */
	struct pda_filter_event *last_ev;
	const struct pd_evsel *const *order; /* pda_filter_order()'s */
	size_t nr_order;
};

/*
 * Set flt up from opts (copied; its arrays are borrowed).  @return 0, or
 * PD_ERR_API (flt keeps nothing) for a bad sz or unknown non-zero option
 * bytes, an array without its count or the reverse, or a time range
 * that ends before it starts.
 */
int pda_filter_init(struct pda_filter *flt, const struct pda_filter_opts *opts);

/*
 * For a run that asks about samples in another order than time's
 * (pda_capture.c's two passes): the events in the order of their first
 * samples in time (borrowed until the run ends), which the first event
 * (PDA_FILTER_FIRST_EVENT) and the statistics' events then follow, as
 * if the samples came in time order.
 */
void pda_filter_order(struct pda_filter *flt,
		      const struct pd_evsel *const *order, size_t nr);

/* Whether to keep sample (its evsel, pid, tid, time), counted either
 * way. */
/* The same, not counted: for a pass that reads the samples again. */
bool pda_filter_peek(struct pda_filter *flt, const struct pd_sample *sample);

bool pda_filter_sample(struct pda_filter *flt, const struct pd_sample *sample);
/* pda_filter_sample() for n samples alike in all it reads but their time
 * (a group, pda_capture_opts.counted): only without time rules. */
bool pda_filter_sample_n(struct pda_filter *flt, const struct pd_sample *sample,
			 uint64_t n);
/* Whether flt has time rules (--time): a sample's time decides then. */
bool pda_filter_timed(const struct pda_filter *flt);

/* FIRST_EVENT's event, once a sample chose it; else NULL. */
const struct pd_evsel *pda_filter_first(const struct pda_filter *flt);

/*
 * A copy of flt for a shard of the run read on another thread: its rules
 * (and FIRST_EVENT's choice, if made), no counts.  pda_filter_add()
 * adds what a copy counted to flt, the shards in the file's order: the
 * counts and events' order then are one reading's.
 */
void pda_filter_fork(const struct pda_filter *flt, struct pda_filter *out);
void pda_filter_add(struct pda_filter *to, const struct pda_filter *from);

/* The counts so far.  Valid while flt is. */
const struct pda_filter_stats *pda_filter_stats(const struct pda_filter *flt);

/*
 * Whether want names the event name as perf prints it, with or without
 * its modifiers: "cycles" matches "cycles" and "cycles:u", "page-faults"
 * matches "page-faults/period=1/"; a want with ':' or '/' in it must be
 * the whole name.
 */
bool pda_event_matches(const char *want, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* PDA_FILTER_H */
