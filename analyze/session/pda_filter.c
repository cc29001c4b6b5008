/*
 * pda_filter.c - which samples a command looks at (pda_filter.h): the
 * event, pid, tid and time rules, and what each left out.
 */
#include "pda_base_int.h"
#include "pda_filter.h"

#include <string.h>

#define PERF_TYPE_TRACEPOINT 2 /* perf_event.h */

bool pda_event_matches(const char *want, const char *name)
{
	const size_t n = strlen(want);

	if (strcmp(want, name) == 0)
		return true;
	return !strpbrk(want, ":/") && strncmp(name, want, n) == 0 &&
	       (name[n] == ':' || name[n] == '/');
}

int pda_filter_init(struct pda_filter *flt, const struct pda_filter_opts *opts)
{
	struct pda_filter_opts o;

	if (!flt || !opts || pdc_opts_copy(&o, sizeof(o), opts) < 0)
		return PD_ERR_API;
	if (!o.pids != !o.nr_pids || !o.tids != !o.nr_tids ||
	    !o.time_ranges != !o.nr_time_ranges ||
	    (o.nr_time_ranges && (o.has_time_start || o.has_time_end)) ||
	    (o.has_time_start && o.has_time_end && o.time_end < o.time_start))
		return PD_ERR_API;
	for (size_t i = 0; i < o.nr_time_ranges; i++)
		if (o.time_ranges[i].end &&
		    o.time_ranges[i].end < o.time_ranges[i].start)
			return PD_ERR_API;
	memset(flt, 0, sizeof(*flt));
	flt->o = o;
	return 0;
}

void pda_filter_order(struct pda_filter *flt,
		      const struct pd_evsel *const *order, size_t nr)
{
	flt->order = order;
	flt->nr_order = nr;
}

/* Whether e passes the rules that do not pick the first event. */
static bool event_kept(const struct pda_filter_opts *o,
		       const struct pd_evsel *e)
{
	if (o->event)
		return e && pda_event_matches(o->event, e->name);
	return !e || (o->flags & PDA_FILTER_TRACEPOINTS) ||
	       e->attr.type != PERF_TYPE_TRACEPOINT;
}

/* The event rules, once per run of samples of one event. */
static bool event_ok(struct pda_filter *flt, const struct pd_evsel *e)
{
	const struct pda_filter_opts *o = &flt->o;

	if (!event_kept(o, e))
		return false;
	/* a sample of no known event is of the only one there is */
	if (o->event || !e || !(o->flags & PDA_FILTER_FIRST_EVENT))
		return true;
	/* the first in time, where the samples come in another order */
	for (size_t i = 0; !flt->first && i < flt->nr_order; i++)
		if (event_kept(o, flt->order[i]))
			flt->first = flt->order[i];
	if (!flt->first)
		flt->first = e;
	return e == flt->first;
}

/* e's place in flt->order (SIZE_MAX: not in it). */
static size_t rank(const struct pda_filter *flt, const struct pd_evsel *e)
{
	for (size_t i = 0; i < flt->nr_order; i++)
		if (flt->order[i] == e)
			return i;
	return SIZE_MAX;
}

/* e's entry in the statistics, added on its first sample (in the order
 * of flt->order, if any); NULL for no event, or for one past
 * PDA_FILTER_MAX_EVENTS (then counted once). */
static struct pda_filter_event *event_entry(struct pda_filter *flt,
					    const struct pd_evsel *e)
{
	struct pda_filter_stats *st = &flt->st;
	size_t i, at;

	if (!e)
		return NULL;
	for (i = 0; i < st->nr_events && i < PDA_FILTER_MAX_EVENTS; i++)
		if (st->events[i].evsel == e)
			return &st->events[i];
	if (st->nr_events >= PDA_FILTER_MAX_EVENTS) {
		/* more than can be told apart: one more says so */
		st->nr_events = PDA_FILTER_MAX_EVENTS + 1;
		return NULL;
	}
	at = i;
	if (flt->nr_order) {
		const size_t r = rank(flt, e);

		while (at && rank(flt, st->events[at - 1].evsel) > r)
			at--;
		memmove(&st->events[at + 1], &st->events[at],
			(i - at) * sizeof(st->events[0]));
	}
	memset(&st->events[at], 0, sizeof(st->events[at]));
	st->events[at].evsel = e;
	st->nr_events++;
	return &st->events[at];
}

static bool in_list(const uint32_t *v, size_t nr, uint32_t x)
{
	if (!nr)
		return true;
	for (size_t i = 0; i < nr; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Whether time t is out of the time rules: the one range, or perf's
 * list of them. */
static bool time_out(const struct pda_filter_opts *o, uint64_t t)
{
	if (o->nr_time_ranges)
		return !pda_time_in_ranges(o->time_ranges, o->nr_time_ranges,
					   t);
	/* perf's --time: inclusive at both ends */
	return (o->has_time_start && t < o->time_start) ||
	       (o->has_time_end && t > o->time_end);
}

/* The first rule sample fails, or PDA_FILTER_NR_REASONS for none. */
static enum pda_filter_reason check_n(struct pda_filter *flt,
				      const struct pd_sample *sample, uint64_t n)
{
	const struct pda_filter_opts *o = &flt->o;

	if (!sample->evsel && (o->flags & PDA_FILTER_NEED_EVENT))
		return PDA_FILTER_OUT_NO_EVENT;
	if (!flt->last_ok)
		return PDA_FILTER_OUT_EVENT;
	flt->st.nr_event_ok += n;
	if (time_out(o, sample->time))
		return PDA_FILTER_OUT_TIME;
	if (!in_list(o->pids, o->nr_pids, sample->pid))
		return PDA_FILTER_OUT_PID;
	if (!in_list(o->tids, o->nr_tids, sample->tid))
		return PDA_FILTER_OUT_TID;
	return PDA_FILTER_NR_REASONS;
}

bool pda_filter_sample(struct pda_filter *flt, const struct pd_sample *sample)
{
	return pda_filter_sample_n(flt, sample, 1);
}

bool pda_filter_sample_n(struct pda_filter *flt, const struct pd_sample *sample,
			 uint64_t n)
{
	struct pda_filter_stats *st = &flt->st;
	enum pda_filter_reason why;

	/* samples come in runs of one event: decide once per run */
	if (sample->evsel != flt->last || !st->nr_samples) {
		flt->last = sample->evsel;
		flt->last_ok = event_ok(flt, sample->evsel);
		flt->last_ev = event_entry(flt, sample->evsel);
	}
	st->nr_samples += n;
	if (flt->last_ev)
		flt->last_ev->nr_samples += n;
	why = check_n(flt, sample, n);
	if (why != PDA_FILTER_NR_REASONS) {
		st->by_reason[why] += n;
		st->nr_left_out += n;
		return false;
	}
	st->nr_kept += n;
	if (flt->last_ev)
		flt->last_ev->nr_kept += n;
	return true;
}

bool pda_filter_timed(const struct pda_filter *flt)
{
	const struct pda_filter_opts *o = &flt->o;

	return o->nr_time_ranges || o->has_time_start || o->has_time_end;
}

bool pda_filter_peek(struct pda_filter *flt, const struct pd_sample *sample)
{
	const struct pda_filter_opts *o = &flt->o;

	if (!sample->evsel && (o->flags & PDA_FILTER_NEED_EVENT))
		return false;
	return event_ok(flt, sample->evsel) &&
	       !time_out(o, sample->time) &&
	       in_list(o->pids, o->nr_pids, sample->pid) &&
	       in_list(o->tids, o->nr_tids, sample->tid);
}

void pda_filter_fork(const struct pda_filter *flt, struct pda_filter *out)
{
	*out = *flt;
	memset(&out->st, 0, sizeof(out->st));
	out->last = NULL;
	out->last_ok = false;
	out->last_ev = NULL;
}

void pda_filter_add(struct pda_filter *to, const struct pda_filter *from)
{
	const struct pda_filter_stats *f = &from->st;
	struct pda_filter_stats *t = &to->st;

	t->nr_samples += f->nr_samples;
	t->nr_kept += f->nr_kept;
	t->nr_left_out += f->nr_left_out;
	t->nr_event_ok += f->nr_event_ok;
	for (size_t i = 0; i < PDA_FILTER_NR_REASONS; i++)
		t->by_reason[i] += f->by_reason[i];
	/* each event where its first sample would have put it */
	for (size_t i = 0; i < f->nr_events && i < PDA_FILTER_MAX_EVENTS;
	     i++) {
		struct pda_filter_event *e =
			event_entry(to, f->events[i].evsel);

		if (e) {
			e->nr_samples += f->events[i].nr_samples;
			e->nr_kept += f->events[i].nr_kept;
		}
	}
	if (f->nr_events > PDA_FILTER_MAX_EVENTS)
		t->nr_events = PDA_FILTER_MAX_EVENTS + 1;
	if (!to->first)
		to->first = from->first;
	/* the cached run's entry may have moved */
	to->last = NULL;
	to->last_ev = NULL;
}

const struct pda_filter_stats *pda_filter_stats(const struct pda_filter *flt)
{
	return &flt->st;
}

const struct pd_evsel *pda_filter_first(const struct pda_filter *flt)
{
	return flt->first;
}
