/*
 * pda_offcpu.c - off-CPU intervals from switch records (pda_offcpu.h):
 * the switches noted in the first pass are sorted by thread and time and
 * paired, out then in; each sample of the second pass offers its stack
 * to its thread's first interval after it, which keeps the latest.
 *
 * With sched:sched_switch tracepoint samples (pda_offcpu_tracepoints()),
 * those are the switch-outs, each with the stack the thread had when it
 * switched, and a switch-in of next_pid; the SWITCH IN records (when the
 * capture has them too) the other switch-ins.  The samples come in the
 * second pass, so the pairing waits for pda_offcpu_finish().
 */
#include "pda_offcpu.h"
#include "pda_parallel.h"
#include "pdc_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Switches or spans at most: a switch record is 48 bytes or more. */
#define SWITCHES_MAX ((size_t)1 << 31)

struct sw {
	uint64_t time, seq;	/* place in time order */
	uint32_t pid, tid;
	bool out, preempt;
	size_t tp;		/* a tracepoint's switch-out: 1 + its index
				 * in pda_offcpu.tps; 0 none */
};

/* A sched_switch sample's stack and comm. */
struct tp_out {
	struct pda_stack st;
	bool has_stack;
	const char *comm;
};

struct span {
	struct pda_offcpu_span pub;
	uint64_t out_seq;	/* with pub.out: the switch-out's place */
	bool has_best;
	uint64_t best_time, best_seq; /* the candidate sample's place */
	struct pda_stack st;	/* its stack (frames owned here) */
	bool has_stack;
	size_t tp;		/* as sw.tp */
};

struct pda_offcpu {
	struct pd_alloc mem;
	struct sw *sw;
	size_t nr_sw, alloc_sw;
	struct span *spans;
	size_t nr_spans;
	bool paired, finished;
	struct pda_offcpu_stats st;
	/* sched:sched_switch samples (pda_offcpu_tracepoints()) */
	struct pd_tracing *tracing;
	const struct pd_evsel *tp_evsel;
	const struct pd_tp_field *prev_pid, *prev_state, *next_pid;
	struct tp_out *tps;
	size_t nr_tps, alloc_tps;
};

int pda_offcpu_new(const struct pd_alloc *alloc, struct pda_offcpu **out)
{
	struct pd_alloc mem = {0};
	struct pda_offcpu *oc;

	if (alloc)
		mem = *alloc;
	*out = NULL;
	oc = pdc_zalloc(&mem, sizeof(*oc));
	if (!oc)
		return PD_ERR_NOMEM;
	oc->mem = mem;
	*out = oc;
	return 0;
}

void pda_offcpu_free(struct pda_offcpu *oc)
{
	if (!oc)
		return;
	for (size_t i = 0; i < oc->nr_spans; i++)
		pdc_free(&oc->mem, oc->spans[i].st.frames);
	for (size_t i = 0; i < oc->nr_tps; i++)
		pdc_free(&oc->mem, oc->tps[i].st.frames);
	pdc_free(&oc->mem, oc->tps);
	pd_tracing_free(oc->tracing);
	pdc_free(&oc->mem, oc->spans);
	pdc_free(&oc->mem, oc->sw);
	pdc_free(&oc->mem, oc);
}

/* src's frames into dst (reusing its array).  @return 0 or
 * PD_ERR_NOMEM. */
static int copy_stack(struct pda_offcpu *oc, struct pda_stack *dst,
		      const struct pda_stack *src)
{
	/* the frames' strings are the session's: copied shallow */
	if (PDC_GROW(&oc->mem, dst->frames, dst->alloc, src->nr ? src->nr : 1,
		     (size_t)PDA_MAX_STACK * 64) < 0)
		return PD_ERR_NOMEM;
	memcpy(dst->frames, src->frames, src->nr * sizeof(*dst->frames));
	dst->nr = src->nr;
	return 0;
}

/* A switch at place (time, seq): @return its index, or PD_ERR_NOMEM. */
static long add_switch(struct pda_offcpu *oc, uint64_t time, uint64_t seq,
		       uint32_t pid, uint32_t tid, bool out, bool preempt)
{
	struct sw *s;

	if (PDC_GROW(&oc->mem, oc->sw, oc->alloc_sw, oc->nr_sw + 1,
		     SWITCHES_MAX) < 0)
		return PD_ERR_NOMEM;
	s = &oc->sw[oc->nr_sw];
	*s = (struct sw){.time = time, .seq = seq, .pid = pid, .tid = tid,
			 .out = out, .preempt = out && preempt};
	if (out)
		oc->st.nr_out++;
	else
		oc->st.nr_in++;
	return (long)oc->nr_sw++;
}

int pda_offcpu_tracepoints(struct pda_offcpu *oc, struct pd_file *f,
			   char *errbuf, size_t errsize)
{
	const struct pd_tp_format *fmt = NULL;
	const void *data;
	size_t size;
	int rc;

	if (oc->paired || oc->tracing)
		return PD_ERR_API;
	if (!pd_file_feature(f, PD_FEAT_TRACING_DATA, &data, &size))
		return 0;
	rc = pd_tracing_parse(data, size, &oc->mem, &oc->tracing, errbuf,
			      errsize);
	if (rc == PD_ERR_NOMEM)
		return rc;
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++) {
		const struct pd_evsel *ev = pd_file_evsel(f, i);

		if (ev->attr.type != 2 /* PERF_TYPE_TRACEPOINT */ ||
		    !(ev->attr.sample_type & PD_SAMPLE_RAW))
			continue;
		fmt = pd_tracing_format(oc->tracing, ev->attr.config);
		if (fmt && strcmp(fmt->system, "sched") == 0 &&
		    strcmp(fmt->name, "sched_switch") == 0) {
			oc->tp_evsel = ev;
			break;
		}
	}
	if (!oc->tp_evsel)
		return rc < 0 ? rc : 0;
	oc->prev_pid = pd_tp_field(fmt, "prev_pid");
	oc->prev_state = pd_tp_field(fmt, "prev_state");
	oc->next_pid = pd_tp_field(fmt, "next_pid");
	if (!oc->prev_pid || !oc->prev_state || !oc->next_pid) {
		if (errbuf && errsize)
			snprintf(errbuf, errsize,
				 "HEADER_TRACING_DATA: sched:sched_switch's "
				 "format has no prev_pid, prev_state or "
				 "next_pid field");
		oc->tp_evsel = NULL;
		return PD_ERR_FORMAT;
	}
	return 1;
}

/* A sched_switch sample: the switch-out of prev_pid with the sample's
 * stack, and the switch-in of next_pid (0: the idle task, not ours). */
static int tp_sample(struct pda_offcpu *oc, const struct pda_pipe_item *it)
{
	const struct pd_sample *s = it->sample;
	const struct pda_pipe_when *w = it->when;
	int64_t prev, state, next;
	struct tp_out *tp;
	long k;

	if (pd_tp_field_int(oc->tracing, oc->prev_pid, s->raw.data,
			    s->raw.size, &prev) < 0 ||
	    pd_tp_field_int(oc->tracing, oc->prev_state, s->raw.data,
			    s->raw.size, &state) < 0 ||
	    pd_tp_field_int(oc->tracing, oc->next_pid, s->raw.data,
			    s->raw.size, &next) < 0) {
		oc->st.nr_bad_tp++;
		return 1;
	}
	if (PDC_GROW(&oc->mem, oc->tps, oc->alloc_tps, oc->nr_tps + 1,
		     SWITCHES_MAX) < 0)
		return PD_ERR_NOMEM;
	/* runnable (no sleeping state bit: R or R+), as perf prints it,
	 * is what a switch record's PREEMPT flag says */
	k = add_switch(oc, w->time, w->seq, s->pid, (uint32_t)prev, true,
		       (state & 0xff) == 0);
	if (k < 0)
		return (int)k;
	tp = &oc->tps[oc->nr_tps];
	*tp = (struct tp_out){.comm = it->comm, .has_stack = it->stack != NULL};
	if (it->stack && copy_stack(oc, &tp->st, it->stack) < 0)
		return PD_ERR_NOMEM;
	oc->sw[k].tp = ++oc->nr_tps;
	if (next > 0 && add_switch(oc, w->time, w->seq, 0, (uint32_t)next,
				   false, false) < 0)
		return PD_ERR_NOMEM;
	return 1;
}

int pda_offcpu_note(struct pda_offcpu *oc, struct pd_file *f,
		    const struct pd_rec *rec, const struct pda_pipe_when *when)
{
	struct pd_sample_id id;
	int rc;

	if (oc->paired)
		return PD_ERR_API;
	if (rec->type != PD_REC_SWITCH && rec->type != PD_REC_SWITCH_CPU_WIDE)
		return 0;
	rc = pd_rec_sample_id(f, rec, &id);
	if (rc < 0)
		return rc;
	if (!(id.mask & PD_SAMPLE_TID)) {
		oc->st.nr_no_thread++;
		return 0;
	}
	/* the tracepoint's samples are the switch-outs then */
	if (oc->tp_evsel && (rec->misc & PD_MISC_SWITCH_OUT))
		return 0;
	rc = add_switch(oc, when->time, when->seq, id.pid, id.tid,
			rec->misc & PD_MISC_SWITCH_OUT,
			rec->misc & PD_MISC_SWITCH_OUT_PREEMPT);
	return rc < 0 ? rc : 0;
}

static int cmp_sw(const void *a, const void *b)
{
	const struct sw *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return pda_place_cmp(x->time, x->seq, y->time, y->seq);
}

/* Sort the switches by thread and time, and pair each out with the
 * thread's next in. */
static int pair(struct pda_offcpu *oc)
{
	const struct sw *pending = NULL;

	if (oc->paired)
		return 0;
	if (oc->nr_sw) {
		qsort(oc->sw, oc->nr_sw, sizeof(*oc->sw), cmp_sw);
		/* at most one span for each out */
		oc->spans = pdc_zalloc(&oc->mem, oc->st.nr_out ?
					oc->st.nr_out * sizeof(*oc->spans) : 1);
		if (!oc->spans)
			return PD_ERR_NOMEM;
	}
	for (size_t i = 0; i < oc->nr_sw; i++) {
		const struct sw *s = &oc->sw[i];

		if (pending && pending->tid != s->tid) {
			oc->st.nr_unpaired++;
			pending = NULL;
		}
		if (s->out) {
			oc->st.nr_unpaired += pending != NULL;
			pending = s;
		} else if (pending) {
			struct span *sp = &oc->spans[oc->nr_spans++];

			sp->pub.pid = pending->pid;
			sp->pub.tid = pending->tid;
			sp->pub.out = pending->time;
			sp->out_seq = pending->seq;
			sp->pub.in = s->time;
			sp->pub.preempted = pending->preempt;
			sp->tp = pending->tp;
			oc->st.nr_preempted += pending->preempt;
			pending = NULL;
		}
	}
	oc->st.nr_unpaired += pending != NULL;
	oc->st.nr_spans = oc->nr_spans;
	oc->paired = true;
	return 0;
}

/* The first span of tid whose switch-out comes after place (t, q), or
 * NULL. */
static struct span *span_after(struct pda_offcpu *oc, uint32_t tid,
			       uint64_t t, uint64_t q)
{
	size_t lo = 0, hi = oc->nr_spans;

	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;
		const struct span *sp = &oc->spans[mid];

		if (sp->pub.tid < tid ||
		    (sp->pub.tid == tid &&
		     pda_place_cmp(sp->pub.out, sp->out_seq, t, q) <= 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < oc->nr_spans && oc->spans[lo].pub.tid == tid
		       ? &oc->spans[lo]
		       : NULL;
}

int pda_offcpu_sample(struct pda_offcpu *oc, const struct pda_pipe_item *it)
{
	const struct pda_pipe_when *w = it->when;
	struct span *sp;
	int rc;

	if (!w || oc->finished)
		return PD_ERR_API;
	if (oc->tp_evsel)
		return it->sample->evsel == oc->tp_evsel ? tp_sample(oc, it)
							 : 0;
	if ((rc = pair(oc)) < 0)
		return rc;
	sp = span_after(oc, it->sample->tid, w->time, w->seq);
	if (!sp || (sp->has_best && pda_place_cmp(w->time, w->seq, sp->best_time,
					      sp->best_seq) <= 0))
		return 0;
	sp->has_best = true;
	sp->best_time = w->time;
	sp->best_seq = w->seq;
	sp->pub.pid = it->sample->pid;
	sp->pub.comm = it->comm;
	sp->has_stack = it->stack != NULL;
	sp->st.nr = 0;
	return it->stack ? copy_stack(oc, &sp->st, it->stack) : 0;
}

int pda_offcpu_finish(struct pda_offcpu *oc)
{
	int rc = pair(oc);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < oc->nr_spans; i++) {
		struct span *sp = &oc->spans[i];
		const struct span *prev = i ? &oc->spans[i - 1] : NULL;

		if (sp->tp) {
			/* the switch's own stack */
			const struct tp_out *tp = &oc->tps[sp->tp - 1];

			sp->pub.stack = tp->has_stack ? &tp->st : NULL;
			sp->pub.comm = tp->comm;
			continue;
		}
		if (!sp->has_best && prev && prev->pub.tid == sp->pub.tid &&
		    (prev->has_best || prev->pub.stack)) {
			/* no sample since: the previous span's is the last */
			sp->pub.stack = prev->pub.stack;
			sp->pub.comm = prev->pub.comm;
			sp->pub.pid = prev->pub.pid;
			sp->has_best = true;
			continue;
		}
		if (sp->has_best)
			sp->pub.stack = sp->has_stack ? &sp->st : NULL;
		else
			oc->st.nr_no_sample++;
	}
	oc->finished = true;
	return 0;
}

size_t pda_offcpu_nr(const struct pda_offcpu *oc)
{
	return oc->finished ? oc->nr_spans : 0;
}

const struct pda_offcpu_span *pda_offcpu_span(const struct pda_offcpu *oc,
					      size_t i)
{
	return oc->finished && i < oc->nr_spans ? &oc->spans[i].pub : NULL;
}

const struct pda_offcpu_stats *pda_offcpu_stats(const struct pda_offcpu *oc)
{
	return &oc->st;
}
