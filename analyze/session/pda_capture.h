/*
 * pda_capture.h - the capture loop: one run over a capture's records,
 * the loop every command that reads records shares.
 *
 * With a session, the run reads the records in time order and feeds them
 * to a sample pipeline (pda_pipe.h): the filter picks the samples, their
 * stacks are resolved (unless no_stack) and each kept one is handed to
 * sample_fn, in record order, on the caller's thread.  Without one, every
 * record is handed to rec_fn as the reader delivers it (per-record mode:
 * `pdtool dump`, `pdtool info`).  Either way the run counts the records,
 * the samples, what LOST and LOST_SAMPLES records say was lost, samples
 * that did not decode and stacks that did not resolve, and reports its
 * progress.
 *
 *	struct pda_capture c;
 *	PDA_CAPTURE_OPTS(co, .filter = &flt, .sample_fn = fold_one,
 *			 .progress = show, .progress_arg = line, .arg = x);
 *
 *	rc = pda_capture_init(&c, f, s, &co);	// the reader and pipeline
 *	if (rc == 0)
 *		rc = pda_capture_run(&c);	// the callbacks run in here
 *	if (rc < 0)
 *		(pda_capture_errmsg(&c) says why, pda_capture_failed_in(&c)
 *		 where)
 *	pda_capture_stats(&c)->nr_lost;
 *	pda_capture_release(&c);
 *
 * Callbacks never stop the run by other means than their return value:
 * a negative pd_err stops it (the pipeline's threads stopped) and comes
 * back from pda_capture_run().  A callback may say why with
 * pda_capture_set_err() first; otherwise the message is pd_strerror()'s.
 */
#ifndef PDA_CAPTURE_H
#define PDA_CAPTURE_H

#include "pda_filter.h"
#include "pda_itrace.h"
#include "pda_pipe.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pda_capture;

/* Per-record mode: every record as delivered.  @return 0, or a negative
 * pd_err that stops the run. */
typedef int (*pda_capture_rec_fn)(void *arg, const struct pd_rec *rec);

/*
 * Sample mode, a two-pass run: a record that is not a sample (a context
 * switch, an EXIT, ...), as the first pass reads it (the file's order),
 * with its place in time order (epoch not set), the order samples'
 * pda_pipe_item.when is in.  Valid during the call.  @return 0, or a
 * negative pd_err that stops the run.
 */
typedef int (*pda_capture_order_fn)(void *arg, const struct pd_rec *rec,
				    const struct pda_pipe_when *when);

/* What the run left out and goes on without. */
enum pda_capture_skip {
	PDA_CAPTURE_BAD_SAMPLE,	 /* did not decode: pd_file_errmsg() */
	PDA_CAPTURE_STACK_ERROR, /* its stack did not resolve:
				  * pda_session_errmsg() (sample mode) */
	PDA_CAPTURE_UNKNOWN_ID,	 /* a read value (PERF_SAMPLE_READ) whose
				  * id names no event (sample mode) */
};

/*
 * Called as each is skipped, with its reason in words (valid during the
 * call), before the statistics count it.  @return 0, or a negative
 * pd_err that stops the run.
 */
typedef int (*pda_capture_skip_fn)(void *arg, enum pda_capture_skip what,
				   const char *why);

/* Where a run is: its pass, and that pass's reading. */
struct pda_capture_progress {
	uint64_t done, total;	 /* bytes of the data section read and its
				  * size (0 when unknown, as in a pipe) */
	uint64_t nr_samples;	 /* samples this pass read so far */
	unsigned pass, nr_passes; /* 1..nr_passes (nr_passes may grow once
				   * the first pass knows the events) */
	const char *what;	 /* what the pass does: "sideband",
				  * "unwinding", "samples" */
};

/*
 * Progress, every PDA_CAPTURE_PROGRESS_EVERY samples (or 16 times as
 * many records in a pass that skips samples).  @return 0 or a negative
 * pd_err (stops).
 */
typedef int (*pda_capture_progress_fn)(void *arg,
				       const struct pda_capture_progress *p);

#define PDA_CAPTURE_PROGRESS_EVERY 4096

struct pda_capture_opts {
	size_t sz;		/* by PDA_CAPTURE_OPTS */
	/* sample mode (with a session) */
	struct pda_filter *filter;	/* NULL: every sample */
	unsigned jobs;		/* as pda_pipe_opts */
	bool no_stack;		/* as pda_pipe_opts */
	bool ip_stacks;		/* as pda_pipe_opts */
	bool leaf_only;		/* as pda_pipe_opts */
	bool ip_leaf;		/* as pda_pipe_opts */
	bool memo, memo_tid;	/* as pda_pipe_opts */
	size_t memo_max;	/* as pda_pipe_opts, shared out among the
				 * shards at work at once */
	unsigned batch;		/* as pda_pipe_opts */
	bool resolve_apart;	/* as pda_pipe_opts: sample_fn and skip_fn
				 * touch no session state */
	pda_pipe_fn sample_fn;	/* each kept sample; item->err is never
				 * set: those go to skip_fn */
	/* hand samples back in time order, reading once and holding each
	 * round (perf's ordered events); else in the file's order, each
	 * resolved in the state of its own time (two passes, below) */
	bool time_order;
	/*
	 * with time_order: every record that is not a sample, at its place
	 * in time, the samples before it handed back first: after the
	 * session applied it, but an EXIT before (perf script prints a
	 * side-band record so: --show-task-events and the like); NULL: none
	 */
	pda_capture_rec_fn side_fn;
	/* with two passes: every other record, placed in time (above);
	 * NULL: none.  pda_capture_two_pass() says whether it is called. */
	pda_capture_order_fn order_fn;
	/*
	 * Samples synthesized from the capture's hardware trace (Arm SPE:
	 * pda_itrace.h), as --itrace selects them; NULL: none.  They come
	 * to sample_fn (and the filter) as the recorded ones do, each in
	 * the state of its own time; in time order with time_order, else
	 * after the recorded ones.
	 */
	const struct pda_itrace_opts *itrace;
	/*
	 * sample_fn counts item->count samples as one (its rows and totals
	 * follow from a sample's event, period, pid, tid, ip and state
	 * alone, whatever their order: pda_report_takes_counts): with two
	 * passes and no time rules in filter, the synthesized samples
	 * alike in those (and cpu, mode, flags) between two records come
	 * as one item of their first's time and count (pda_capture.c
	 * "Groups"), resolved and filtered once; so do the recorded
	 * samples alike of a run without a trace (with no_stack, such a
	 * sample comes without its callchain and user stack).
	 */
	bool counted;
	/* per-record mode (no session) */
	pda_capture_rec_fn rec_fn;
	bool ordered;		/* time order (always with a session) */
	/* a second reading of a capture: its damage logged by the first */
	bool quiet;
	/* both */
	pda_capture_skip_fn skip_fn;	 /* NULL: skipped quietly */
	pda_capture_progress_fn progress; /* NULL: none */
	void *progress_arg;	/* progress's (a command's progress line) */
	void *arg;		/* the other callbacks' */
	/*
	 * Where the second pass is read in shards (byte ranges of the data
	 * section, pda_capture.c "Shards"; at -j >= 2): each shard's samples
	 * go through a pipeline of their own (its memo: a cookie stored in
	 * one shard never comes back in another), and shard_fn is called
	 * before shard n (from 1) is read, on the caller's thread, every
	 * sample of the shards before it handed back: a caller that keeps
	 * per-memo state (fold's table) starts anew and merges at the end.
	 * NULL, or where samples are unwound from DWARF (user registers
	 * and stack): one pipeline for every shard.  @return 0 or a negative
	 * pd_err (stops the run).
	 */
	int (*shard_fn)(void *arg, unsigned shard);
	/*
	 * With shard_fn's conditions, shard_begin and shard_end: the shards
	 * are read at once, each on a thread of its own (the first on the
	 * caller's).  shard_begin is called for each shard n from 1 on the
	 * caller's thread before they start, *shard_arg then being the arg
	 * sample_fn gets for that shard's samples (on its thread, beside
	 * the other shards': what it touches must be that shard's), and
	 * shard_end in order once they all ended (the shards before handed
	 * back) to merge.  skip_fn is called with arg: for a later
	 * shard's skips on its thread, once the shards before it are done
	 * (where a run in one says them), the first of each kind only (the
	 * statistics then the first shard's, counting none of that kind).
	 * progress counts the first shard.  shard_fn is then not called.  @return 0 or a
	 * negative pd_err (stops the run).
	 */
	int (*shard_begin)(void *arg, unsigned shard, void **shard_arg);
	int (*shard_end)(void *arg, unsigned shard, void *shard_arg);
};

#define PDA_CAPTURE_OPTS(name, ...)                                         \
	struct pda_capture_opts name = {                                    \
		.sz = sizeof(struct pda_capture_opts), __VA_ARGS__ }

struct pda_capture_stats {
	uint64_t nr_records;	  /* delivered by the reader */
	uint64_t nr_samples;	  /* SAMPLE records among them */
	uint64_t nr_bad_samples;  /* that did not decode (sample mode) */
	uint64_t nr_stack_errors; /* kept samples whose stack did not
				   * resolve */
	uint64_t nr_lost;	  /* events lost, as LOST records say */
	uint64_t nr_lost_samples; /* samples lost, as LOST_SAMPLES say
				   * (without the BPF-filter flag) */
	uint64_t nr_dropped_samples; /* left out by a `perf record
				      * --filter` BPF program, as flagged
				      * LOST_SAMPLES say: not lost */
	/* samples lost, counted as perf counts them: pda_capture_lost() */
	uint64_t lost;
	uint64_t nr_bad_lost;	  /* LOST records too short to say */
	uint64_t nr_synth;	  /* samples synthesized from a trace
				   * (among nr_samples) */
	uint64_t nr_unknown_id;	  /* read values whose id names no event,
				   * left out (perf 6.1's "samples with id
				   * not present in the header") */
	/* the reader's, when the run ended (damage, compressed chunks) */
	struct pd_reader_stats reader;
};

/* Where a run failed. */
enum pda_capture_stage {
	PDA_CAPTURE_OK,
	PDA_CAPTURE_READER,	/* reading records: the file's message */
	PDA_CAPTURE_SESSION,	/* the session or the pipeline: its message */
	PDA_CAPTURE_CALLBACK,	/* a callback returned an error */
};

struct pda_sb_key;
struct pda_readgroup;
struct pda_capture_cut;
struct pda_capture_shard;
struct pda_view;

/* Embedded; the fields are private: use the functions below. */
struct pda_capture {
	struct pd_file *f;
	struct pda_session *s;
	struct pda_capture_opts o;
	struct pd_reader *r;
	bool two_pass;		/* sideband first, then the samples */
	bool unwinding;		/* in the unwind pass (pda_capture.c) */
	struct pda_capture_progress prog;
	struct pda_sb_key *keys; /* the sideband's, in time order */
	size_t nr_keys;
	size_t last_epoch;	/* the last sample's */
	struct pda_sb_key *first; /* by event: its first sample's */
	size_t nr_first, first_alloc;
	const struct pd_evsel **order; /* events by first sample */
	struct pda_pipe *pipe;
	struct pda_itrace *itrace; /* the synthesized samples, or NULL */
	struct pda_readgroup *rg; /* leader sampling's counts, or NULL */
	uint64_t synth_seq;	/* their keys' order after the records' */
	struct pda_synth_groups *groups; /* counted: the open groups */
	/* the second pass's recorded samples join them: 0 none, 1 all
	 * events', 2 some (pda_capture.c rec_groups) */
	unsigned rec_groups;
	/* the second pass's shards: where each begins, found by the first
	 * pass (pda_capture.c "Shards"); none: one reading */
	struct pda_capture_cut *cuts;
	size_t nr_cuts;
	struct pd_reader_stats shard_stats; /* their readers', summed */
	/* the first pass's walk on two threads (pda_capture.c "the first
	 * pass's walk on two threads"): 0 not tried, 1 the halves joined,
	 * -1 the run's walk read on alone (a wrong guess, a second walk
	 * that stopped) */
	int split_walk;
	/* the records the unwind pass kept for the second pass
	 * (pda_capture.c "Record spool"), NULL when none */
	struct pda_rspool *rspool;
	/* a shard on a thread of its own: its pipeline's view, and its
	 * own state (this is its copy of the capture); NULL: none */
	struct pda_view *view;
	struct pda_capture_shard *shard;
	struct pda_capture_stats st;
	enum pda_capture_stage failed_in;
	bool ran;		/* pda_capture_run() was called */
	bool msg_set;		/* a callback set errmsg */
	char errmsg[512];
};

/*
 * Set up a run over f: its reader and, with session s, the pipeline.
 *
 * With a session, unless time_order is asked or f is a stream (which
 * cannot be read twice), the run reads f twice.  The first pass applies
 * the sideband records (COMM, FORK, EXIT, MMAP, KSYMBOL, ...) to the
 * session in time order, keeping their history (pda_machine_history);
 * the second hands the samples to the pipeline as the file holds them,
 * each resolved in the state of its own time: that of the sideband
 * records before it in the order perf's ordered events deliver (by
 * timestamp, then the file's order; a record without a timestamp where
 * the flushes before it left it).  So nothing is held for ordering: a
 * sample that arrives after records newer than itself still sees its
 * own time's maps and comms.  Samples come back in the file's order,
 * which folding and counting do not see.  f (and s) must outlive c; while c runs, s must
 * not be used otherwise.  @return 0, or a negative pd_err with the
 * reason in pda_capture_errmsg() (PD_ERR_API: bad options, sample_fn
 * missing with a session or rec_fn without); c is released either way
 * only by pda_capture_release().
 */
int pda_capture_init(struct pda_capture *c, struct pd_file *f,
		     struct pda_session *s, const struct pda_capture_opts *opts);

/*
 * Read every record.  @return 0 at the end of the capture; a negative
 * pd_err when reading, the session or a callback failed (the run stops
 * there, the pipeline's threads stopped; pda_capture_failed_in() says
 * which and pda_capture_errmsg() why).  Once only: PD_ERR_API after.
 */
int pda_capture_run(struct pda_capture *c);

/* Whether the run reads the capture twice (sideband first), so that
 * order_fn is called and samples come with their place in time. */
bool pda_capture_two_pass(const struct pda_capture *c);

/* Stops what runs and frees the reader and pipeline.  Accepts a c whose
 * init failed, or one zeroed. */
void pda_capture_release(struct pda_capture *c);

/*
 * The samples lost, counted as perf counts them, from what LOST and
 * LOST_SAMPLES records say (lost, lost_samples) and the events of f:
 * perf >= 6.0 reads each event's lost count (PERF_FORMAT_LOST in its
 * read_format) at the end of a recording and writes it as LOST_SAMPLES,
 * the same samples its LOST records counted during the recording, so
 * with PERF_FORMAT_LOST the LOST_SAMPLES sum is the count (perf report's
 * "Total Lost Samples"; the LOST records' sum is no smaller only when
 * the end-of-run read failed, so the larger of the two is taken); without
 * it, LOST_SAMPLES are the kernel's discarded precise samples and LOST
 * records the ring buffer's overflows: different samples, added.
 */
uint64_t pda_capture_lost_count(const struct pd_file *f, uint64_t lost,
				uint64_t lost_samples);

/* The run's synthesized samples (pda_itrace.h), NULL without; valid as
 * long as c.  Set once pda_capture_run() began. */
const struct pda_itrace *pda_capture_itrace(const struct pda_capture *c);

/* Valid as long as c, pda_capture_release() included; stats->lost is set
 * once the run ends. */
const struct pda_capture_stats *pda_capture_stats(const struct pda_capture *c);

/* Why the last call failed; "" if nothing did.  Valid as stats. */
const char *pda_capture_errmsg(const struct pda_capture *c);
enum pda_capture_stage pda_capture_failed_in(const struct pda_capture *c);

/* For a callback about to fail the run: its reason.  @return err. */
int pda_capture_set_err(struct pda_capture *c, int err, const char *fmt, ...)
	PD_PRINTF(3, 4);

#ifdef __cplusplus
}
#endif

#endif /* PDA_CAPTURE_H */
