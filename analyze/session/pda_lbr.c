/*
 * pda_lbr.c - the stack of a sample recorded with `perf record
 * --call-graph lbr`: its kernel part from the callchain, its user part
 * from the branch stack, which the CPU's LBR filled in call-stack mode
 * (attr.branch_sample_type has PERF_SAMPLE_BRANCH_CALL_STACK).
 *
 * In that mode the branch stack holds the calls that have not returned
 * yet, most recent first: entry i's `from` is a call site, its `to` the
 * callee's entry.  perf 6.1 builds the callchain of such a sample in
 * thread__resolve_callchain_sample (tools/perf/util/machine.c,
 * resolve_lbr_callchain_sample and the lbr_callchain_add_* helpers),
 * leaf first:
 *
 *   1. the callchain up to and including its first PERF_CONTEXT_USER
 *      marker, markers switching the space the addresses are looked up
 *      in, as for any callchain; the entries after that marker (the
 *      frame-pointer walk of the user stack) are not used;
 *   2. entry 0's `to`, then every entry's `from`, in order, each looked
 *      up in user space.
 *
 * So the leaf is the entry of the function the sample is in, not the
 * sample's ip, and a call stack of n entries gives n + 1 user frames.
 * perf takes this path only when the marker is among the first
 * max_stack (perf script: 127) entries; otherwise, and when a marker it
 * does not know comes first (it drops what it had and starts again), it
 * walks the callchain as usual.  The caller does the same on a false
 * pda_lbr_begin().
 *
 * An empty call stack (nr 0, as in samples taken in the kernel before
 * the process ran user code) is where this differs from perf 6.1: perf
 * reads entry 0 all the same, from the bytes past the record (in a file,
 * those of the next record, so the frame it shows names whatever
 * address sits there).  Here the frame is the user-mode ip the kernel put
 * first after the marker, the one address of the user stack that is not
 * a guess; none when the callchain has no user part.
 *
 * perf's `--stitch-lbr` (off by default; joining a thread's successive
 * call stacks where the LBR ran out) is not done.
 */
#include "pda_stack_int.h"

/* PERF_SAMPLE_BRANCH_CALL_STACK in perf_event_attr.branch_sample_type */
#define BRANCH_CALL_STACK (1ull << 11)
/* perf script's max_stack, within which perf looks for the user marker */
#define LBR_MARKER_WITHIN 127

bool pda_lbr_begin(const struct pd_sample *sample, struct pda_lbr_walk *lw)
{
	const struct pd_u64s *cc = &sample->callchain;
	const uint64_t need = PD_SAMPLE_CALLCHAIN | PD_SAMPLE_BRANCH_STACK;
	const uint64_t within =
		cc->nr < LBR_MARKER_WITHIN ? cc->nr : LBR_MARKER_WITHIN;
	uint64_t i;

	if ((sample->mask & need) != need || !sample->evsel ||
	    !(sample->evsel->attr.branch_sample_type & BRANCH_CALL_STACK))
		return false;
	for (i = 0; i < within; i++) {
		const uint64_t ip = pd_u64s_get(cc, i);

		if (ip == PD_CONTEXT_USER)
			break;
		if (ip >= PD_CONTEXT_MAX && ip != PD_CONTEXT_HV &&
		    ip != PD_CONTEXT_KERNEL)
			return false;
	}
	if (i == within)
		return false;
	lw->sample = sample;
	lw->user_marker = i;
	lw->pos = 0;
	lw->cpumode = PD_MISC_USER;
	return true;
}

bool pda_lbr_next(struct pda_lbr_walk *lw, uint64_t *ip, unsigned *cpumode)
{
	const struct pd_sample *sample = lw->sample;
	const struct pd_u64s *cc = &sample->callchain;
	const uint64_t nr = sample->branch.nr;
	struct pd_branch b;

	/* the kernel part; pda_lbr_begin() let only these markers through */
	while (lw->pos < lw->user_marker) {
		const uint64_t v = pd_u64s_get(cc, lw->pos++);

		if (v == PD_CONTEXT_HV) {
			lw->cpumode = PD_MISC_HYPERVISOR;
		} else if (v == PD_CONTEXT_KERNEL) {
			lw->cpumode = PD_MISC_KERNEL;
		} else {
			*ip = v;
			*cpumode = lw->cpumode;
			return true;
		}
	}
	*cpumode = PD_MISC_USER;
	/* pos - user_marker: 0 the leaf, k >= 1 entry k - 1's call site */
	if (nr == 0) {
		if (lw->pos++ != lw->user_marker ||
		    lw->user_marker + 1 >= cc->nr)
			return false;
		*ip = pd_u64s_get(cc, lw->user_marker + 1);
		return *ip < PD_CONTEXT_MAX;
	}
	if (lw->pos - lw->user_marker > nr)
		return false;
	if (lw->pos == lw->user_marker) {
		pd_sample_branch(sample, 0, &b);
		*ip = b.to;
	} else {
		pd_sample_branch(sample, lw->pos - lw->user_marker - 1, &b);
		*ip = b.from;
	}
	lw->pos++;
	return true;
}
