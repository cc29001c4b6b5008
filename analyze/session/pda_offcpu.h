/*
 * pda_offcpu.h - off-CPU time from a capture's context-switch records
 * (`perf record --switch-events`): for each thread, each interval from a
 * switch-out to its next switch-in, charged to the stack of the thread's
 * last sample before the switch-out, in the spirit of perf's --off-cpu
 * (its "offcpu-time" event: a sample per stack whose period is the time
 * off CPU in nanoseconds).  perf records the stack at the switch itself
 * (with BPF); a switch record has none, so the last sample's stands in
 * for it: the stack the thread was seen running before it waited.
 *
 *	struct pda_offcpu *oc;
 *	pda_offcpu_new(NULL, &oc);
 *	PDA_CAPTURE_OPTS(co, .order_fn = note_fn, .ip_stacks = true, ...);
 *	// order_fn calls pda_offcpu_note(oc, f, rec, when)
 *	// sample_fn calls pda_offcpu_sample(oc, it)
 *	pda_offcpu_finish(oc);			// after the run
 *	for (size_t i = 0; i < pda_offcpu_nr(oc); i++)
 *		sp = pda_offcpu_span(oc, i);
 *	pda_offcpu_free(oc);
 *
 * As pda_parallel.h, the records come from the first pass of a two-pass
 * run in the file's order, each with its place in time order, and
 * samples are placed by theirs, so the answer is the same whatever order
 * the samples come back in and whatever -j is.  The stacks kept point
 * into the session's interned strings: use the spans before freeing the
 * session.
 */
#ifndef PDA_OFFCPU_H
#define PDA_OFFCPU_H

#include "pda_pipe.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pda_offcpu;

/* @return 0 and *out, or PD_ERR_NOMEM.  Free with pda_offcpu_free(). */
int pda_offcpu_new(const struct pd_alloc *alloc, struct pda_offcpu **out);
/* Accepts NULL. */
void pda_offcpu_free(struct pda_offcpu *oc);

/*
 * Off-CPU time from sched:sched_switch tracepoint samples too (perf
 * record -e sched:sched_switch -g), whose fields are read from the
 * capture's HEADER_TRACING_DATA: each such sample is a switch-out of
 * prev_pid with its own stack (where the thread was when it switched,
 * not its last sample's) and a switch-in of next_pid; the switch
 * records' switch-outs are then left out, their switch-ins kept (a
 * per-thread capture sees only its threads' switch-outs as samples).
 * Call before the run.  @return 1 (the capture has them), 0 (none: the
 * switch records alone), PD_ERR_FORMAT (the tracing data or the format
 * is damaged: errbuf says where; 0 or 1 is not told then, none used), or
 * PD_ERR_NOMEM.
 */
int pda_offcpu_tracepoints(struct pda_offcpu *oc, struct pd_file *f,
			   char *errbuf, size_t errsize);

/* A record at its place in time order (SWITCH and SWITCH_CPU_WIDE count,
 * by their sample_id's thread; any other is ignored), before the first
 * pda_offcpu_sample().  @return 0, PD_ERR_NOMEM, PD_ERR_FORMAT (a switch
 * record whose sample_id does not decode: pd_file_errmsg() says why), or
 * PD_ERR_API after a pda_offcpu_sample(). */
int pda_offcpu_note(struct pda_offcpu *oc, struct pd_file *f,
		    const struct pd_rec *rec, const struct pda_pipe_when *when);

/* A sample of a two-pass run (it->when set): the candidate for its
 * thread's next switch-out.  The first call pairs what was noted (with
 * tracepoints: pda_offcpu_finish() does).  The stack must be given: a
 * run with pda_offcpu needs the pipeline's memo off.  @return 0, 1 (a
 * sched_switch sample: a switch, not time on CPU), PD_ERR_NOMEM, or
 * PD_ERR_API without it->when. */
int pda_offcpu_sample(struct pda_offcpu *oc, const struct pda_pipe_item *it);

/* One interval off CPU, after the run. */
struct pda_offcpu_span {
	uint32_t pid, tid;
	uint64_t out, in;	/* the switch records' times (ns) */
	bool preempted;		/* switched out while runnable
				 * (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT):
				 * waiting for a CPU, not for an event */
	/* The stack of the thread's last sample before out (leaf first),
	 * and its comm and pid; stack NULL when the thread had no sample
	 * before (comm then NULL and pid the record's). */
	const struct pda_stack *stack;
	const char *comm;
};

/* After the run: a span with no sample since the thread's previous span
 * gets that span's stack (its last sample is the same).  @return 0 or
 * PD_ERR_NOMEM. */
int pda_offcpu_finish(struct pda_offcpu *oc);

/* After pda_offcpu_finish(): the spans by thread, then time.  Valid
 * until pda_offcpu_free(). */
size_t pda_offcpu_nr(const struct pda_offcpu *oc);
const struct pda_offcpu_span *pda_offcpu_span(const struct pda_offcpu *oc,
					      size_t i);

struct pda_offcpu_stats {
	uint64_t nr_out, nr_in;	/* switch records noted */
	uint64_t nr_spans;	/* out then in of one thread */
	uint64_t nr_preempted;	/* of them, preempted */
	uint64_t nr_unpaired;	/* an out without an in after it (the
				 * thread exited, the capture ended, or a
				 * record was lost) */
	uint64_t nr_no_sample;	/* spans with no sample before them */
	uint64_t nr_no_thread;	/* switch records without a thread (no
				 * sample_id_all TID): left out */
	uint64_t nr_bad_tp;	/* sched_switch samples whose raw data
				 * does not hold the fields: left out */
};

const struct pda_offcpu_stats *pda_offcpu_stats(const struct pda_offcpu *oc);

#ifdef __cplusplus
}
#endif

#endif /* PDA_OFFCPU_H */
