/*
 * pda_itrace.h - samples synthesized from a hardware trace (Arm SPE), as
 * perf 6.1 synthesizes them, for the capture pipeline to hand out with
 * the recorded ones.
 *
 *	struct pda_itrace_opts io = {0};  // parse keeps io.perf7
 *	pda_itrace_parse("bfmtaM", &io, err, sizeof(err));  // --itrace
 *	PDA_CAPTURE_OPTS(co, ..., .itrace = &io);            // pda_capture.h
 *
 * An Arm SPE capture holds no samples of its own: perf decodes the trace
 * of its AUXTRACE records into records (reader/pd_spe.h) and makes
 * samples of them, one event per kind (perf 6.1's arm-spe.c):
 *
 *	l1d-miss, l1d-access   (f)  L1D-REFILL, L1D-ACCESS
 *	llc-miss, llc-access   (m)  LLC-REFILL, LLC-ACCESS
 *	tlb-miss, tlb-access   (t)  TLB-WALK, TLB-ACCESS
 *	branch-miss            (b)  MISPRED (perf 7: "branch", every
 *	                            branch, --spe-events below)
 *	remote-access          (a)  REMOTE-ACCESS
 *	memory                 (M)  every load and store
 *	instructions           (i)  every Nth record, with an instruction
 *	                            period (i1i); other periods make none
 *
 * Each with ip (the PC), time (the timestamp through TIME_CONV), pid and
 * tid (CONTEXT packets; else the CPU's last context switch), cpu, addr
 * (the data address; a branch's target), weight (the total latency),
 * data_src (perf's encoding, from the data source as the CPU model
 * defines it: the common encoding of Neoverse N1, N2, V1, V2 and
 * Cortex-A720, A725, X1C, X3, X925, AmpereOne's own codes mapped onto
 * it, HiSilicon HIP12's by their own table (as perf 7.2), else the
 * events; the model each CPU's own where the per-CPU
 * metadata of perf >= 6.13 gives it, as perf >= 6.13 reads it, else
 * the capture's CPUID), phys_addr, and
 * the issue and translation latencies, which perf drops: the weight is
 * a PERF_SAMPLE_WEIGHT_STRUCT (weight_var1 the total, var2 the issue,
 * var3 the translation latency).  The
 * events are added to the capture (pd_file_add_synth_evsel) with the
 * ids perf gives them, so every analysis reads them as any event.
 */
#ifndef PDA_ITRACE_H
#define PDA_ITRACE_H

#include "pda_session.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds of samples, in the order perf 6.1 makes them. */
enum pda_itrace_kind {
	PDA_ITRACE_L1D_MISS,
	PDA_ITRACE_L1D_ACCESS,
	PDA_ITRACE_LLC_MISS,
	PDA_ITRACE_LLC_ACCESS,
	PDA_ITRACE_TLB_MISS,
	PDA_ITRACE_TLB_ACCESS,
	PDA_ITRACE_BRANCH_MISS,	/* perf 7's set: branch, every branch */
	PDA_ITRACE_REMOTE_ACCESS,
	PDA_ITRACE_MEMORY,
	PDA_ITRACE_INSTRUCTIONS,
	PDA_ITRACE_NR_KINDS,
};

/* What --itrace asks for.  Zeroed: perf's default set (below). */
struct pda_itrace_opts {
	bool set;		/* given; else perf's default */
	/* perf 7's set and semantics (--spe-events 7; as perf 7.2 makes
	 * them): "branch" samples of every branch record (the branch
	 * operation class, mispredicted or not) in place of branch-miss,
	 * an instructions sample's addr its branch target (perf 6.1: the
	 * data address), the default set with instructions every record
	 * (i1i), and an instructions period not in instructions refused
	 * (perf 7 fails; 6.1 makes none) */
	bool perf7;
	bool flc, llc, tlb, branch, remote, mem, instructions;
	bool period_insns;	/* the period counts instructions */
	uint64_t period;	/* of instructions samples; 0: perf's */
	/* l[N]: perf 7 gives branch and instructions samples a branch
	 * stack of at most N (default 64) entries (the record's branch,
	 * then its previous branch target); perf 6.1 takes the letter and
	 * makes none */
	bool last_branch;
	unsigned last_branch_sz;
};

/*
 * Parse perf's --itrace letters for SPE: f, m, t, b, a, M, i with an
 * optional period (i100, i1i, i10us: a number then i, t, ms, us or ns;
 * perf 6.1 synthesizes instructions only for an instruction period),
 * l with an optional size.  The letters of other traces' samples perf
 * takes too (c, r, x, w, p, o, e, d, g, G, L, s, q, Z, T, A) are
 * refused: SPE makes none of them.  *o must be initialized: its perf7 (--spe-events, which may come
 * before or after --itrace) is kept, the rest rewritten.  @return 0, or
 * PD_ERR_API with the reason in err.
 */
int pda_itrace_parse(const char *spec, struct pda_itrace_opts *o, char *err,
		     size_t err_size);

/* --spe-events: "6.1" (perf 6.1's set, the default) or "7" (perf 7's;
 * "7.2" too) into o->perf7, o's letters kept.  @return 0, or PD_ERR_API
 * with the reason in err. */
int pda_itrace_set_events(const char *name, struct pda_itrace_opts *o,
			  char *err, size_t err_size);

/* The kinds o selects, as perf 6.1 selects them (no --itrace: all but
 * instructions, whose default period is in nanoseconds). */
bool pda_itrace_wants(const struct pda_itrace_opts *o,
		      enum pda_itrace_kind kind);

/* The event's name perf 6.1 gives a kind ("l1d-miss"). */
const char *pda_itrace_kind_name(enum pda_itrace_kind kind);
/* ... and the name under o's set (perf 7: "branch"). */
const char *pda_itrace_event_name(const struct pda_itrace_opts *o,
				  enum pda_itrace_kind kind);

struct pda_itrace;

/*
 * Read what f's trace's samples depend on: a pass over f's records
 * (AUXTRACE_INFO, TIME_CONV, COMM, FORK, context switches) that also
 * notes each queue's AUXTRACE buffers (their bytes in the file's
 * mapping, copied only where the reader has them in passing) and
 * whether any has a CONTEXT packet; and add the selected events to f.
 * The records are decoded and synthesized as pda_itrace_next() hands
 * the samples out: the queues merged by their next sample's time, as
 * perf's heap of queues, so neither records nor samples are held.  *out is NULL when f holds no SPE
 * trace (nothing to synthesize).  @return 0, or a negative pd_err with
 * the reason in errbuf (a record that does not decode: its offset).
 */
int pda_itrace_new(struct pda_session *s, struct pd_file *f,
		   const struct pda_itrace_opts *o, struct pda_itrace **out,
		   char *errbuf, size_t errbuf_size);
void pda_itrace_free(struct pda_itrace *it); /* accepts NULL */

/*
 * Decode on up to jobs threads (0: the online CPUs) besides the
 * caller's, each CPU's trace (a queue) on one of them, at most a few
 * chunks of samples ahead of pda_itrace_next(), which merges them as it
 * would have made them: the samples, their order and the statistics are
 * the same for any jobs.  Before the first pda_itrace_next(); without
 * it (or with 1, or a single queue) everything is decoded on the
 * caller's thread as the samples are asked for.  @return 0, or
 * PD_ERR_API once decoding began.
 */
int pda_itrace_set_jobs(struct pda_itrace *it, unsigned jobs);

/*
 * The next synthesized sample in time order when its time is before
 * `before` (UINT64_MAX: any), as a SAMPLE record of its event (its bytes
 * valid until the next call: not PD_RECF_STABLE) and its time.  Ties by
 * the file's order of buffers and records (timeless: a queue's samples
 * after the previous queue's).  @return 1, or 0 when there is none
 * before.
 */
int pda_itrace_next(struct pda_itrace *it, uint64_t before,
		    struct pd_rec *rec, uint64_t *time);

/*
 * The same sample as pda_itrace_next() would hand out, already decoded:
 * *sample as pd_sample_decode() makes it of that record (its branch
 * entries valid until the next call), without encoding and decoding
 * the record.  @return 1, 0 when there is none before, or a negative
 * pd_err with the reason on the session.
 */
int pda_itrace_next_sample(struct pda_itrace *it, uint64_t before,
			   struct pd_sample *sample, uint64_t *time);

/*
 * pda_itrace_next_sample() without the copy: *sample points at the
 * sample where it was made (the caller may change it), valid until the
 * next call.  With groups (pda_itrace_set_groups), the first of a group
 * of *n samples (n may be NULL without).
 */
int pda_itrace_next_decoded(struct pda_itrace *it, uint64_t before,
			    struct pd_sample **sample, uint64_t *time,
			    uint32_t *n);

/*
 * Groups, for a caller that takes samples alike with a count (pda_capture
 * "Groups"): a CPU's samples alike in event, pid, tid, ip, period and
 * flags, and in their epoch (the number of bounds[0..nr_bounds), sorted
 * times, at or before theirs), made close together (a chunk: a few
 * thousand records), are handed out by pda_itrace_next_decoded() as their
 * first with their count, the rest of them never made; the events whose
 * sample_type has a bit of ungroupable are not grouped.  bounds stays
 * the caller's, valid while it is used.  Before the first
 * pda_itrace_next(); @return 0 or PD_ERR_API once decoding began.
 */
int pda_itrace_set_groups(struct pda_itrace *it, const uint64_t *bounds,
			  size_t nr_bounds, uint64_t ungroupable);

/*
 * Each kind's first sample in pda_itrace_next()'s order, to fn in that
 * order (rec as pda_itrace_next() gives it), without decoding more of
 * each CPU's trace than it takes to meet every kind there while its
 * times go forward (else the whole trace merged).  Rewinds before and
 * after.  @return 0, PD_ERR_NOMEM, or fn's first non-zero return.
 */
int pda_itrace_firsts(struct pda_itrace *it,
		      int (*fn)(void *arg, const struct pd_rec *rec,
				uint64_t time),
		      void *arg);

/* The event of kind's samples that pda_itrace_new() added to the
 * capture; NULL when --itrace did not select it. */
const struct pd_evsel *pda_itrace_evsel(const struct pda_itrace *it,
					enum pda_itrace_kind kind);

/* Start again from the first sample (a run's second pass). */
void pda_itrace_rewind(struct pda_itrace *it);

/* What was decoded so far (since the last rewind). */
struct pda_itrace_stats {
	uint64_t nr_buffers;	/* AUXTRACE records */
	uint64_t nr_records;	/* SPE records decoded */
	uint64_t nr_bad;	/* bytes no packet started at */
	uint64_t nr_dropped;	/* records a bad byte cut */
	uint64_t nr_samples;	/* synthesized */
	uint64_t by_kind[PDA_ITRACE_NR_KINDS];
};
const struct pda_itrace_stats *pda_itrace_stats(const struct pda_itrace *it);

/*
 * perf's data_src of an SPE record on a CPU with this MIDR (0: none
 * known): the op, the level and snoop from the data source (the common
 * encoding's CPUs, AmpereOne) or the events (others), the TLB from the
 * events; 0 for a record that is no load or store.  Exposed for the
 * tests.
 */
uint64_t pda_itrace_spe_data_src(const struct pd_spe_record *r,
				 uint64_t midr);
/* ... as perf 7 makes it (--spe-events 7): the model's, then the level,
 * snoop and remote access from the events where it says nothing;
 * reports_snoops: the CPU's metadata event filter has DATA-SNOOPED (no
 * snoop event then means none, else N/A). */
uint64_t pda_itrace_spe_data_src7(const struct pd_spe_record *r,
				  uint64_t midr, bool reports_snoops);

#ifdef __cplusplus
}
#endif

#endif /* PDA_ITRACE_H */
