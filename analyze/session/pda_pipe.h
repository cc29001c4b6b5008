/*
 * pda_pipe.h - the sample pipeline: the engine of the capture loop
 * (pda_capture.h), which the commands use instead of feeding it.
 */
#ifndef PDA_PIPE_H
#define PDA_PIPE_H

#include "pda_session.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The sample pipeline under pda_capture_run(): feed it every record in
 * time order (PD_READ_ORDERED) instead of pda_session_feed(); it applies
 * them to the session, decodes the samples, asks the caller which it
 * wants, resolves their stacks (pda_sample_stack) and hands each back, in
 * record order, with its thread's comm at the time of the sample, to the
 * caller's callback, always on the caller's thread.
 *
 *	struct pda_pipe *p;
 *	PDA_PIPE_OPTS(po, .jobs = 0, .want = want, .fn = fold_one, .arg = x);
 *	pda_pipe_new(s, &po, &p);
 *	while (pd_reader_next(r, &rec) > 0)
 *		pda_pipe_feed(p, &rec);		// the callback runs in here
 *	pda_pipe_finish(p);			// and here, for the rest
 *	pda_pipe_free(p);
 *
 * Samples whose user stack is unwound from DWARF (`--call-graph dwarf`)
 * are unwound on jobs threads, the caller's included: the pipeline puts
 * such samples into batches, each with its process's maps frozen as they
 * were (a record that changes threads or comms waits until the batches
 * before it are delivered), unwinds the batch on every thread, then
 * resolves the stacks and calls back in order on the caller's thread.  The output (stacks, comms, order, the session's statistics
 * and the binaries it loads, in which order) is the same for any jobs.
 * While a pipeline runs, the session must not be used otherwise.
 */
struct pda_pipe;
struct pda_view;

/* Where a sample of a two-pass run comes in time (pda_capture.c). */
struct pda_pipe_when {
	uint32_t epoch;	    /* the sideband records before it in time */
	uint64_t time, seq; /* its place in time order */
};

/* A sample handed back: everything valid during the callback only. */
struct pda_pipe_item {
	const struct pd_sample *sample;
	/* Its stack, leaf first; NULL for a sample without a callchain
	 * (perf folds those to the comm) unless ip_stacks, with no_stack,
	 * or on err. */
	const struct pda_stack *stack;
	const char *comm;	/* pda_thread_comm() at the sample; "" unknown */
	int err;		/* < 0: pda_sample_stack failed (not NOMEM);
				 * pda_session_errmsg() says why */
	/*
	 * With memo (pda_pipe_opts): the memo slot of a sample whose stack
	 * follows from its callchain (or ip) and its process's maps alone
	 * (no DWARF unwinding, no branch stack, no user registers), shared
	 * by every sample with the same callchain, pid, comm and comm_later
	 * (and tid with memo_tid, or when the thread has no comm: it is
	 * named ":TID") in the same state of those maps and the kernel's.
	 * The callback may store a non-zero cookie there: what it made of the
	 * stack.  Each later such sample then comes with hit set, stack
	 * NULL and *cookie that value, not resolved again; the session's
	 * statistics count it as its first was counted.  NULL: no slot.
	 */
	uint64_t *cookie;
	bool hit;
	/* Its place in time order in a two-pass run (the one
	 * pda_capture_opts.order_fn's records are placed in), so that state
	 * kept apart from the session (parallelism from switch records) is
	 * read at the sample's moment whatever order samples come back in;
	 * NULL when fed by pda_pipe_feed() (records already in time order). */
	const struct pda_pipe_when *when;
	/* pda_thread_cgroup_ns() at the sample: its thread's cgroup
	 * namespace, 0/0 unknown */
	struct pda_nsid cgroup_ns;
	/* With ip_leaf (pda_pipe_opts): for a sample whose callchain gave
	 * no frame (none, or an invalid context), or whose leaf function
	 * bears DWARF's name where the symbol table has another, its ip's
	 * one frame as the symbol table names it (perf's addr_location),
	 * apart from its stack; else NULL. */
	const struct pda_stack *ip_leaf;
	/* In a two-pass run, for a sample whose thread has no comm yet:
	 * the comm perf's report names it by (the thread's first one
	 * later, see pda_at.comm_later); else NULL. */
	const char *comm_later;
	/* The samples this item stands for: 1, or with
	 * pda_pipe_feed_decoded_n() that many alike (see there). */
	uint64_t count;
};

/* Whether the caller wants sample (its event, time, pid): only those are
 * resolved and handed back. */
typedef bool (*pda_pipe_want_fn)(void *arg, const struct pd_sample *sample);
/* A wanted sample: @return 0, or a negative pd_err that stops the
 * pipeline and comes back from pda_pipe_feed() or pda_pipe_finish(). */
typedef int (*pda_pipe_fn)(void *arg, const struct pda_pipe_item *item);

struct pda_pipe_opts {
	size_t sz;		/* by PDA_PIPE_OPTS */
	/* Threads that unwind, the caller's included; 0: the online CPUs;
	 * 1: everything on the caller's thread, sample by sample. */
	unsigned jobs;
	bool no_stack;		/* hand samples back unresolved (annotate:
				 * only the leaf matters) */
	bool ip_stacks;		/* a sample without a callchain gets its
				 * ip as its stack's one frame, as perf
				 * report shows it; else its stack is NULL
				 * (perf's stackcollapse.py folds it to the
				 * comm) */
	bool leaf_only;		/* ip_stacks too: every sample's stack is
				 * its ip alone, as if it had no callchain
				 * (a report without call graphs or
				 * children: perf's row is the ip's); never
				 * unwound; the sample's mask has no
				 * callchain and no user stack */
	bool ip_leaf;		/* items' ip_leaf (above): perf report
				 * makes a sample's own entry from its
				 * ip (in no call graph) */
	unsigned batch;		/* samples a batch holds at most; 0: 512
				 * (tests make many small ones) */
	bool memo;		/* memo slots for the callback (above) */
	bool memo_tid;		/* the callback's result depends on the tid
				 * too, not only the pid */
	size_t memo_max;	/* the memo's entries at most (rounded up
				 * to a power of two), its memory the same
				 * for any capture (pda_pipe.c); 0:
				 * PDA_PIPE_MEMO_MAX */
	/* the callback touches no session state and may run while another
	 * thread resolves the samples after its own: with jobs > 1, the
	 * second pass of a run that unwound first (pda_pipe_unwind_pass)
	 * resolves its samples on a worker, in order, and hands them back
	 * on the caller's thread (pda_pipe.c, "The resolver") */
	bool resolve_apart;
	pda_pipe_want_fn want;	/* NULL: every sample */
	pda_pipe_fn fn;
	void *arg;
	/* what its resolving changes (pda_view_new: a shard's, on a thread
	 * of its own); NULL: the session's */
	struct pda_view *view;
};

#define PDA_PIPE_OPTS(name, ...)                                            \
	struct pda_pipe_opts name = { .sz = sizeof(struct pda_pipe_opts),   \
				      __VA_ARGS__ }

/*
 * The memo's entries at most by default (8 MB): with the bench's fold
 * capture (137,702 keys) and fold10 (ten times the samples, the same
 * keys), fold -j1 counts 0.03% and 0.15% fewer samples from its memo
 * than from one without a bound, -j2 0.04% and 3.1% (pda_pipe.c, the
 * memo).  Pipelines at work at once share it out (pda_capture.c, shards
 * on threads), so that the memory is the same for any capture and -j.
 */
#define PDA_PIPE_MEMO_MAX ((size_t)1 << 18)

/* Threads a pipeline runs at most. */
#define PDA_PIPE_MAX_JOBS 64

/* @return 0 and *out; PD_ERR_API (no fn, bad options) or PD_ERR_NOMEM.
 * Threads start when the first sample needs them. */
int pda_pipe_new(struct pda_session *s, const struct pda_pipe_opts *opts,
		 struct pda_pipe **out);
/* Stops the threads.  Accepts NULL. */
void pda_pipe_free(struct pda_pipe *p);

/* The memo's bound from now on, as opts.memo_max (0: PDA_PIPE_MEMO_MAX),
 * for a pipeline made before its caller knew it (a capture's first
 * shard): none once it resolved a sample through its memo. */
void pda_pipe_memo_max(struct pda_pipe *p, size_t max);

/*
 * Feed one record.  @return 0; 1 when it is a sample that did not decode
 * (pd_file_errmsg() of the session's file says why; skipped); a negative
 * pd_err when the session could not apply a record or resolve a stack
 * (pda_session_errmsg() says why) or the callback failed.
 */
int pda_pipe_feed(struct pda_pipe *p, const struct pd_rec *rec);
/*
 * The same for a sample of a run whose sideband records were applied
 * first, with history (pda_capture.c's two passes): it is resolved in
 * the state of its epoch.  Any other record is ignored.
 */
int pda_pipe_feed_sample(struct pda_pipe *p, const struct pd_rec *rec,
			 const struct pda_pipe_when *when);
/*
 * A sample that has no record in the file, handed over decoded (a
 * synthesized one: pda_itrace_next_sample): as pda_pipe_feed() (when
 * NULL) or pda_pipe_feed_sample() (when given) would feed its record,
 * without decoding it again.  Not being in the file, it is neither held
 * back nor queued (the samples under way are delivered first), and it
 * cannot be unwound (PD_ERR_API).  sample is the pipeline's until this
 * returns (leaf_only drops its callchain there).  0 or a negative pd_err.
 */
int pda_pipe_feed_decoded(struct pda_pipe *p, struct pd_sample *sample,
			  const struct pda_pipe_when *when);
/*
 * n samples alike in all the pipeline and its callback read but their
 * time (a group of synthesized samples: pda_capture_opts.counted), fed as
 * pda_pipe_feed_decoded() feeds sample at when (the first one's), handed
 * back once with item->count n where the memo resolves them (or no stack
 * is resolved), each counted in the statistics; else n times, count 1.
 * 0 or a negative pd_err.
 */
int pda_pipe_feed_decoded_n(struct pda_pipe *p, struct pd_sample *sample,
			    const struct pda_pipe_when *when, uint64_t n);
/* The samples the one being fed stands for (1 but in a group fed at once
 * by pda_pipe_feed_decoded_n): for the want callback's counts. */
uint64_t pda_pipe_count(const struct pda_pipe *p);

/*
 * The unwind pass of a two-pass run whose names depend on the order
 * addresses are first resolved in (pda_stack_int.h, pda_first_note):
 * after pda_pipe_unwind_pass(), the samples fed are only unwound (on the
 * threads), their user ips kept in a temporary file and their
 * addresses' first uses in time noted; nothing is handed back.
 * pda_pipe_unwind_done() resolves those addresses in time order, and the
 * same samples fed again then take their unwinds from the file, in the
 * same order.  0 or a negative pd_err.
 */
int pda_pipe_unwind_pass(struct pda_pipe *p);

/*
 * An unlinked temporary file named STEM.XXXXXX in TMPDIR (else /tmp) for a
 * spool; *dir says where.  @return its descriptor, or -1 with errno
 * (ENAMETOOLONG: TMPDIR too long a path).
 */
int pda_pipe_tmp_fd(const char *stem, const char **dir);
int pda_pipe_unwind_done(struct pda_pipe *p);
/* Hand back every sample fed so far (held, queued or being unwound),
 * in order, before what comes next: a record the caller shows between
 * samples (perf script's --show-*-events).  0 or a negative pd_err as
 * pda_pipe_feed(). */
int pda_pipe_flush(struct pda_pipe *p);
/* End of input: the samples still under way are handed back, and the
 * batches' memory freed; pda_pipe_feed() after it fails (PD_ERR_API).
 * @return 0 or a negative pd_err as pda_pipe_feed(). */
int pda_pipe_finish(struct pda_pipe *p);
/* The threads the pipeline unwinds on (jobs resolved), 1 without. */
unsigned pda_pipe_jobs(const struct pda_pipe *p);

#ifdef __cplusplus
}
#endif

#endif /* PDA_PIPE_H */
