/*
 * pda.h - the analysis library (libpda): what a capture's samples mean.
 *
 * libpda follows a capture's processes, threads and memory maps over time
 * (COMM, FORK, EXIT, MMAP, MMAP2, KSYMBOL), finds the binaries the maps
 * name (--symfs, build-id caches, debug directories, debuginfod, the
 * recorded path), and turns sample addresses into functions, inlined
 * frames and source lines.  It builds on libpd (reader/pd.h) and, like
 * it, never prints and keeps no global state.
 *
 *	struct pda_session *s;
 *	PDA_OPTS(o, .symfs = "/sysroot");
 *	pda_session_new(f, &o, &s);
 *	(read records with PD_READ_ORDERED)
 *		pda_session_feed(s, &rec);		// every record
 *		if (rec.type == PD_REC_SAMPLE) {
 *			pd_sample_decode(f, &rec, &sample);
 *			pda_sample_stack(s, &sample, &stack);
 *		}
 *	pda_session_free(s);
 *
 * A session and everything it hands out may be used by one thread at a
 * time.
 */
#ifndef PDA_H
#define PDA_H

#include "pd.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pda_session;

struct pda_opts {
	size_t sz;		   /* sizeof(struct pda_opts), by PDA_OPTS */
	const char *symfs;	   /* --symfs: a sysroot of the recording host */
	const char *buildid_dir;   /* --buildid-dir; NULL: $HOME/.debug */
	const char *kallsyms;	   /* --kallsyms: /proc/kallsyms of the host */
	const char *vmlinux;	   /* --vmlinux */
	const char *jit_dir;	   /* where perf-PID.map files are; NULL: /tmp */
	bool no_demangle;	   /* --no-demangle */
	bool no_inline;		   /* --no-inline: no inlined frames at all */
	bool srcline;		   /* resolve file:line for each frame */
	bool no_debuginfod;	   /* never ask debuginfod */
	bool use_host_kernel;	   /* this host's /proc/kallsyms and vdso
				    * stand for the recording kernel's when
				    * its build-id is this host's (or, with
				    * none recorded, its host and release) */
	pd_log_fn log;
	void *log_arg;
	enum pd_log_level log_level;
	const struct pd_alloc *alloc;
	char *errbuf;		   /* where a failed pda_session_new says why */
	size_t errbuf_size;
	/* Inlined frames on callchain stacks (frame pointers, kernel) too.
	 * perf 6.1 expands them only on DWARF-unwound user stacks, so by
	 * default only those get them; no_inline turns both off. */
	bool inline_callchain;
	/* The DWARF unwinder (pda_sample_stack on samples with REGS_USER and
	 * STACK_USER): "libdw" (any arch libebl knows) or "libunwind"
	 * (x86_64 only: others keep their leaf, stopped NO_ARCH); NULL:
	 * the default, libdw.  An unknown name fails pda_session_new with
	 * PD_ERR_UNSUPPORTED. */
	const char *unwinder;
	/* User frames the unwinder produces at most, the leaf included; 0:
	 * PDA_FOLD_MAX_STACK, perf script's default. */
	unsigned max_stack;
};

#define PDA_OPTS(name, ...)                                                 \
	struct pda_opts name = { .sz = sizeof(struct pda_opts), __VA_ARGS__ }

/*
 * A session over an open capture; f must outlive it.  @return 0 and *out,
 * or a negative pd_err with *out = NULL and the reason in opts->errbuf.
 */
int pda_session_new(struct pd_file *f, const struct pda_opts *opts,
		    struct pda_session **out);
/* Accepts NULL. */
void pda_session_free(struct pda_session *s);
/* The last error's detail.  Never NULL. */
const char *pda_session_errmsg(const struct pda_session *s);

/*
 * Apply a record to the machine state: threads, comms and maps.  Feed
 * every record, in time order (PD_READ_ORDERED), samples included (they
 * are ignored here).  @return 0 or a negative pd_err (NOMEM).
 */
int pda_session_feed(struct pda_session *s, const struct pd_rec *rec);

/* The comm of a thread at the time of the last record fed. "" unknown.
 * Valid until the session is freed. */
const char *pda_thread_comm(struct pda_session *s, uint32_t pid,
			    uint32_t tid);

enum pda_frame_flags {
	PDA_FRAME_KERNEL = 1u << 0,	/* kernel address */
	PDA_FRAME_INLINED = 1u << 1,	/* an inlined call, from DWARF */
	PDA_FRAME_NO_SYMBOL = 1u << 2,	/* no symbol covers ip */
	PDA_FRAME_NO_MAP = 1u << 3,	/* no map covers ip */
	PDA_FRAME_JIT = 1u << 4,	/* from a perf-PID.map */
	PDA_FRAME_GUEST = 1u << 5,
};

/*
 * One frame of a resolved stack.  Strings are interned: valid until the
 * session is freed, and equal strings are the same pointer.
 */
struct pda_frame {
	uint64_t ip;
	const char *sym;	/* demangled unless no_demangle; NULL none */
	const char *dso;	/* the map's name as recorded, e.g.
				 * "/usr/lib/x86_64-linux-gnu/libc.so.6",
				 * "[kernel.kallsyms]"; NULL: no map */
	uint64_t dso_addr;	/* ip in the DSO's own address space */
	uint64_t sym_off;	/* ip - symbol start */
	const char *srcfile;	/* with opts.srcline; NULL unknown */
	unsigned line;
	unsigned flags;		/* pda_frame_flags */
};

/* A stack, leaf first.  Reused across calls: init once, release once. */
struct pda_stack {
	struct pda_frame *frames;
	size_t nr, alloc;
};

#define PDA_STACK_INIT { NULL, 0, 0 }
void pda_stack_release(struct pda_session *s, struct pda_stack *st);

/*
 * Resolve a decoded sample's stack, leaf first: its callchain (PERF_CONTEXT
 * markers consumed, as perf does) or, without one, its ip.  A sample that
 * carries user registers and a user stack dump (`--call-graph dwarf`)
 * gets its user frames from the DWARF unwinder after the callchain's (the
 * kernel part), as perf merges them; those frames are return addresses
 * less 1 where perf subtracts it, with their inlined frames expanded
 * unless no_inline (callchain frames only with inline_callchain).
 * @return 0 or a negative pd_err.
 */
int pda_sample_stack(struct pda_session *s, const struct pd_sample *sample,
		     struct pda_stack *st);

/* What could not be resolved, for the coverage line. */
struct pda_missing_dso {
	const char *dso;	/* as recorded */
	uint64_t nr_samples;	/* samples with a frame in it */
	const char *const *tried; /* paths looked at, NULL-terminated;
				   * "PATH (why)" when PATH was there but
				   * not used ("build-id mismatch",
				   * "outside --symfs", "not ELF"...) */
	const char *why;	/* "not found", "build-id mismatch", ... */
};

/*
 * Why the DWARF unwinding of a sample's user stack stopped.  END and
 * MAX_FRAMES are how complete stacks end; every other reason means the
 * stack lacks its outer frames (stopped early).
 */
#define PDA_UNWIND_STOPS(X)                                                 \
	X(END, "end of stack")          /* CFI or a zero return address */  \
	X(MAX_FRAMES, "max-stack reached")                                  \
	X(NO_CFI, "no CFI for the pc")  /* no .eh_frame/.debug_frame entry  \
					 * covers it (JIT code too) */      \
	X(BAD_CFI, "CFI did not unwind") /* there, but no caller came of it */\
	X(STACK_SHORT, "stack dump too small") /* CFI read past the dump */ \
	X(BAD_ADDR, "read outside the stack dump and files")                \
	X(NO_MAP, "pc outside any map")                                     \
	X(NO_BINARY, "binary not found")                                    \
	X(NO_STACK, "no stack dump")    /* registers but 0 stack bytes */   \
	X(NO_REGS, "no pc or sp in the registers")                          \
	X(NO_ARCH, "architecture not supported")

enum pda_unwind_stop {
#define PDA_UNWIND_STOP_ENUM(name, text) PDA_UNWIND_##name,
	PDA_UNWIND_STOPS(PDA_UNWIND_STOP_ENUM)
#undef PDA_UNWIND_STOP_ENUM
	PDA_UNWIND_NR_STOPS
};

/* A stop reason as words ("stack dump too small"); "?" when unknown. */
const char *pda_unwind_stop_name(unsigned stop);

/* Unwinds that stopped early for one reason in one DSO. */
struct pda_unwind_stopped {
	const char *dso;	/* the map the last pc is in; NULL: none */
	unsigned why;		/* enum pda_unwind_stop */
	uint64_t nr_samples;
	uint64_t period;
};

struct pda_unwind_stats {
	const char *unwinder;		/* "libdw", "libunwind"; NULL: nothing
					 * unwound */
	const char *arch;		/* as unwound: "x86_64", "aarch64" */
	uint64_t nr_samples;		/* user stacks unwound */
	uint64_t period;		/* their periods summed */
	uint64_t nr_frames;		/* user frames they gave */
	uint64_t nr_stopped;		/* stopped early (not END, MAX_FRAMES) */
	uint64_t period_stopped;
	uint64_t by_stop[PDA_UNWIND_NR_STOPS];	/* samples per reason */
	uint64_t period_by_stop[PDA_UNWIND_NR_STOPS];
	size_t nr_stopped_dsos;
	const struct pda_unwind_stopped *stopped_dsos; /* the early stops by
							* (DSO, reason),
							* most samples first */
};

struct pda_stats {
	uint64_t nr_samples;		/* stacks resolved */
	uint64_t nr_frames;
	uint64_t nr_frames_unresolved;	/* no symbol or no map */
	uint64_t nr_samples_unresolved;	/* with >= 1 such frame */
	size_t nr_missing;
	const struct pda_missing_dso *missing;
	struct pda_unwind_stats unwind;	/* DWARF unwinding */
};

/* Valid until the next call on s. */
const struct pda_stats *pda_session_stats(struct pda_session *s);

/* ---- the sample pipeline (pda_pipe.c) ------------------------------ */

/*
 * The record loop the commands share: feed it every record in time order
 * (PD_READ_ORDERED) instead of pda_session_feed(); it applies them to the
 * session, decodes the samples, asks the caller which it wants, resolves
 * their stacks (pda_sample_stack) and hands each back, in record order,
 * with its thread's comm at the time of the sample, to the caller's
 * callback, always on the caller's thread.
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

/* A sample handed back: everything valid during the callback only. */
struct pda_pipe_item {
	const struct pd_sample *sample;
	/* Its stack, leaf first; NULL for a sample without a callchain
	 * (perf folds those to the comm), with no_stack, or on err. */
	const struct pda_stack *stack;
	const char *comm;	/* pda_thread_comm() at the sample; "" unknown */
	int err;		/* < 0: pda_sample_stack failed (not NOMEM);
				 * pda_session_errmsg() says why */
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
	unsigned batch;		/* samples a batch holds at most; 0: 512
				 * (tests make many small ones) */
	pda_pipe_want_fn want;	/* NULL: every sample */
	pda_pipe_fn fn;
	void *arg;
};

#define PDA_PIPE_OPTS(name, ...)                                            \
	struct pda_pipe_opts name = { .sz = sizeof(struct pda_pipe_opts),   \
				      __VA_ARGS__ }

/* Threads a pipeline runs at most. */
#define PDA_PIPE_MAX_JOBS 64

/* @return 0 and *out; PD_ERR_API (no fn, bad options) or PD_ERR_NOMEM.
 * Threads start when the first sample needs them. */
int pda_pipe_new(struct pda_session *s, const struct pda_pipe_opts *opts,
		 struct pda_pipe **out);
/* Stops the threads.  Accepts NULL. */
void pda_pipe_free(struct pda_pipe *p);

/*
 * Feed one record.  @return 0; 1 when it is a sample that did not decode
 * (pd_file_errmsg() of the session's file says why; skipped); a negative
 * pd_err when the session could not apply a record or resolve a stack
 * (pda_session_errmsg() says why) or the callback failed.
 */
int pda_pipe_feed(struct pda_pipe *p, const struct pd_rec *rec);
/* End of input: the samples still under way are handed back, and the
 * batches' memory freed; pda_pipe_feed() after it fails (PD_ERR_API).
 * @return 0 or a negative pd_err as pda_pipe_feed(). */
int pda_pipe_finish(struct pda_pipe *p);
/* The threads the pipeline unwinds on (jobs resolved), 1 without. */
unsigned pda_pipe_jobs(const struct pda_pipe *p);

/* ---- folded stacks (pda_fold.c, pda_script.c) ---------------------- */

/*
 * An aggregator of stacks into folded lines, "comm;outer;...;leaf
 * weight", the input of flamegraph tools.  It needs no session: frame
 * names are copied into its own intern table, so it outlives the session
 * that resolved them.  The per-sample path allocates only for a stack,
 * a name or a comm not seen before.  Not thread-safe.
 *
 *	struct pda_fold *fd;
 *	PDA_FOLD_OPTS(fo, .flags = PDA_FOLD_KERNEL);
 *	pda_fold_new(&fo, &fd);
 *	(for each sample)
 *		pda_sample_stack(s, &sample, &st);
 *		pda_fold_add(fd, &sample, &st,
 *			     pda_thread_comm(s, sample.pid, sample.tid));
 *	pda_fold_finish(fd);
 *	for (size_t i = 0; i < pda_fold_nr_lines(fd); i++)
 *		line = pda_fold_line(fd, i);	// sorted as perf sorts
 *	pda_fold_free(fd);
 *
 * Frame names follow perf's `perf script report stackcollapse`: the
 * symbol, "[unknown]" where there is none, ';' replaced by ':'; the comm
 * (spaces replaced by '_') is the root, ":TID" when the thread's comm is
 * unknown, as perf names such threads.
 */
struct pda_fold;

enum pda_fold_flags {
	PDA_FOLD_NO_COMM = 1u << 0,	/* no comm frame at the root */
	PDA_FOLD_PID = 1u << 1,		/* root "comm-PID" */
	PDA_FOLD_TID = 1u << 2,		/* root "comm-TID", "comm-PID/TID"
					 * with PDA_FOLD_PID */
	PDA_FOLD_KERNEL = 1u << 3,	/* "_[k]" after kernel frames */
	PDA_FOLD_ADDRS = 1u << 4,	/* frames without a symbol as
					 * "dso+0xOFF" ("0xIP" without a map) */
	PDA_FOLD_SRCLINE = 1u << 5,	/* "func:file:line" where known */
	PDA_FOLD_PERIOD = 1u << 6,	/* weigh samples by period, not 1 */
};

#define PDA_FOLD_MAX_STACK 127	/* perf script's default --max-stack */

struct pda_fold_opts {
	size_t sz;		/* sizeof(struct pda_fold_opts), by
				 * PDA_FOLD_OPTS */
	unsigned flags;		/* pda_fold_flags */
	unsigned max_stack;	/* frames kept from the leaf, inlined ones
				 * not counted; 0: PDA_FOLD_MAX_STACK */
	/* Filters, POSIX extended regexes matched anywhere in the string
	 * (anchor with ^...$ for an exact name); NULL: no filter.  A sample
	 * is kept when its comm matches comm_re, and when one of its
	 * frames' DSO paths matches dso_re, and when one of its folded
	 * frame names matches sym_re. */
	const char *comm_re;
	const char *dso_re;
	const char *sym_re;
	const struct pd_alloc *alloc;
	char *errbuf;		/* why pda_fold_new failed (a bad regex) */
	size_t errbuf_size;
};

#define PDA_FOLD_OPTS(name, ...)                                            \
	struct pda_fold_opts name = { .sz = sizeof(struct pda_fold_opts),   \
				      __VA_ARGS__ }

/*
 * @return 0 and *out; PD_ERR_API (a bad regex or unknown option bytes,
 * reason in opts->errbuf) or PD_ERR_NOMEM with *out = NULL.
 */
int pda_fold_new(const struct pda_fold_opts *opts, struct pda_fold **out);
/* Accepts NULL. */
void pda_fold_free(struct pda_fold *fd);

/*
 * Add one sample.  sample gives pid, tid and period; st is its stack,
 * leaf first, as pda_sample_stack() resolves it, or NULL for a sample
 * without a callchain: perf folds those to the comm alone.  comm is the
 * thread's ("" or NULL: unknown).  Nothing here is kept past the call.
 * @return 1 added, 0 filtered out, or PD_ERR_NOMEM (nothing added) or
 * PD_ERR_API (after pda_fold_finish()).
 */
int pda_fold_add(struct pda_fold *fd, const struct pd_sample *sample,
		 const struct pda_stack *st, const char *comm);

/* One sample whose frames are named already, for pda_fold_add_names(). */
struct pda_fold_names {
	const char *root;		/* the root frame ("comm-PID"), NULL:
					 * none */
	const char *comm;		/* what comm_re matches; NULL: root */
	const char *const *names;	/* nr frame names, leaf first, used
					 * as they are */
	const char *const *dsos;	/* each frame's DSO for dso_re (an
					 * entry may be NULL), or NULL */
	const unsigned *flags;		/* each frame's pda_frame_flags, or
					 * NULL: all 0 */
	size_t nr;
	uint64_t weight;
	bool unresolved;		/* counts in weight_unresolved */
};

/* Add a sample named by the caller (perf script text).  Same returns. */
int pda_fold_add_names(struct pda_fold *fd, const struct pda_fold_names *n);

/*
 * Sort the stacks (by byte value, as Python's sorted() sorts perf's
 * lines) and merge any that render alike.  Adding is over after it.
 * @return 0 or PD_ERR_NOMEM (then the aggregator can only be freed).
 */
int pda_fold_finish(struct pda_fold *fd);

/* A frame of a folded line. */
struct pda_fold_frame {
	const char *name;	/* as written, NUL-terminated, no ';' */
	size_t len;
	unsigned flags;		/* pda_frame_flags of the first frame that
				 * had this name; 0 for the root */
};

/* A folded line.  Valid until pda_fold_free(). */
struct pda_fold_line {
	const char *stack;	/* "comm;outer;...;leaf", NUL-terminated */
	size_t len;		/* of stack */
	uint64_t weight;	/* samples, or periods with PDA_FOLD_PERIOD */
	size_t nr_frames;
	const struct pda_fold_frame *const *frames; /* root first */
};

/* After pda_fold_finish(): the number of lines, and line i (NULL when
 * out of range), in sorted order. */
size_t pda_fold_nr_lines(const struct pda_fold *fd);
const struct pda_fold_line *pda_fold_line(const struct pda_fold *fd,
					  size_t i);

struct pda_fold_totals {
	uint64_t nr_samples;		/* added (after the filters) */
	uint64_t nr_filtered;		/* left out by the filters */
	uint64_t weight;		/* sum of the lines' weights */
	uint64_t weight_unresolved;	/* of samples with a frame without a
					 * symbol or a map */
	uint64_t nr_truncated;		/* stacks cut at max_stack */
	size_t nr_stacks;		/* distinct lines */
};

/* Valid until the next call on fd. */
const struct pda_fold_totals *pda_fold_totals(const struct pda_fold *fd);

/*
 * perf script text to folded stacks, following stackcollapse-perf.pl's
 * rules: samples are headed by a "comm pid[/tid] ... event:" line and
 * followed by their frames ("ip sym+off (dso)"), leaf first; frame names
 * are tidied (';' to ':', from the first '(' on dropped except in "(anonymous
 * namespace)" and Go method names, quotes dropped), "[unknown]" becomes
 * "[dso]", and by default only the first event seen is kept.
 */
struct pda_script;

enum pda_script_flags {
	PDA_SCRIPT_PID = 1u << 0,	/* root "comm-PID" ("?" unknown) */
	PDA_SCRIPT_TID = 1u << 1,	/* root "comm-PID/TID" */
	PDA_SCRIPT_NO_COMM = 1u << 2,	/* no root frame */
	PDA_SCRIPT_KERNEL = 1u << 3,	/* "_[k]" on kernel frames */
	PDA_SCRIPT_JIT = 1u << 4,	/* "_[j]" on perf-PID.map and
					 * jitted-*.so frames */
	PDA_SCRIPT_ADDRS = 1u << 5,	/* "[dso <ip>]" for unknown frames */
	PDA_SCRIPT_ALL_EVENTS = 1u << 6, /* keep every event */
	PDA_SCRIPT_PERIOD = 1u << 7,	/* weigh by the period field */
};

struct pda_script_opts {
	size_t sz;		/* by PDA_SCRIPT_OPTS */
	unsigned flags;		/* pda_script_flags */
	const char *event;	/* keep only this event ("cycles", or with
				 * its ':' modifiers as printed); NULL: the
				 * first one seen, unless ALL_EVENTS */
	const uint32_t *pids;	/* keep only these pids (or tids when the
				 * header has one number); NULL: all */
	size_t nr_pids;
	bool has_time_start, has_time_end;
	uint64_t time_start, time_end;	/* ns, inclusive */
	const struct pd_alloc *alloc;
};

#define PDA_SCRIPT_OPTS(name, ...)                                          \
	struct pda_script_opts name = { .sz = sizeof(struct pda_script_opts), \
					__VA_ARGS__ }

/* Parses into fd, which stays the caller's.  @return 0, PD_ERR_API,
 * PD_ERR_NOMEM. */
int pda_script_new(const struct pda_script_opts *opts, struct pda_fold *fd,
		   struct pda_script **out);
void pda_script_free(struct pda_script *ps);

/*
 * Feed the next bytes of the text, in any pieces (a line may span
 * calls).  @return 0 or a negative pd_err from pda_fold_add_names().
 */
int pda_script_feed(struct pda_script *ps, const char *buf, size_t len);
/* End of input: the last sample is added.  @return as pda_script_feed. */
int pda_script_finish(struct pda_script *ps);

struct pda_script_stats {
	uint64_t nr_lines;
	uint64_t nr_samples;		/* sample headers read */
	uint64_t nr_event_skipped;	/* samples of other events */
	uint64_t nr_filtered;		/* left out by pid or time */
	uint64_t nr_unrecognized;	/* lines that are none of the above */
	uint64_t first_unrecognized;	/* its line number, 1-based */
	const char *event;		/* the event kept, NULL: all */
	size_t nr_events;		/* distinct events seen */
};

/* Valid until the next call on ps. */
const struct pda_script_stats *pda_script_stats(const struct pda_script *ps);

/* ---- flame graph tree (pda_flame.c; helper I, `pdtool flame`) -------- */

/*
 * The merged frame tree of a flame graph, built from stacks given root
 * first (folded stacks: `comm;outer;...;leaf count`).  It needs no
 * session.  Not thread-safe; one tree per thread.
 *
 *	struct pda_flame *fl;
 *	PDA_FLAME_OPTS(o, .reverse = false);
 *	pda_flame_new(&o, &fl);
 *	while (getline(&line, &cap, in) > 0)
 *		pda_flame_add_folded(fl, line, strlen(line));
 *	pda_flame_finish(fl);
 *	nodes = pda_flame_nodes(fl, &nr);
 *	pda_flame_free(fl);
 */
struct pda_flame;

struct pda_flame_opts {
	size_t sz;		/* sizeof(struct pda_flame_opts) */
	bool reverse;		/* reverse each stack before merging it */
	const struct pd_alloc *alloc;
};

#define PDA_FLAME_OPTS(name, ...)                                           \
	struct pda_flame_opts name = { .sz = sizeof(struct pda_flame_opts), \
				       __VA_ARGS__ }

/*
 * One frame of the finished tree.  Nodes come depth first, each node's
 * children sorted by name (bytewise), so the same stacks in any order
 * give the same array.  Node 0 is the root, "all".
 */
struct pda_flame_node {
	const char *name;	/* NUL-terminated; equal names, same pointer */
	uint32_t name_id;	/* 0.. pda_flame_nr_names()-1, by first use */
	uint32_t depth;		/* 0: the root */
	uint32_t parent;	/* index of the parent (the root: 0) */
	uint32_t nr_children;
	uint64_t start;		/* samples left of it at its depth: its x */
	uint64_t total;		/* samples in it and its callees: its width */
	uint64_t self;		/* samples with it as the leaf */
	uint64_t other;		/* the second count of pda_flame_add_pair()
				 * in it and its callees; 0 otherwise */
};

/* @return 0 and *out, or PD_ERR_NOMEM, PD_ERR_API (bad opts). */
int pda_flame_new(const struct pda_flame_opts *opts, struct pda_flame **out);
/* Accepts NULL. */
void pda_flame_free(struct pda_flame *fl);
/* The last error's detail.  Never NULL. */
const char *pda_flame_errmsg(const struct pda_flame *fl);

/*
 * Add count samples of one stack, frames[0] the outermost, each
 * lens[i] bytes (a NUL byte ends a name early).  A zero count adds
 * nothing.  @return 0, PD_ERR_NOMEM, PD_ERR_FORMAT (the total would
 * overflow 64 bits) or PD_ERR_API (after pda_flame_finish()); on error
 * the counts are unchanged.
 */
int pda_flame_add(struct pda_flame *fl, const char *const *frames,
		  const size_t *lens, size_t nr_frames, uint64_t count);

/*
 * The same with a second count, other, summed into each node's other
 * (a differential flame graph: count draws the frames, other is the
 * profile they are compared with).  Only count makes frames: a stack
 * with count 0 adds its other to the nodes it shares with stacks that
 * have a count (the root at least), and no frame of its own.  Same
 * returns.
 */
int pda_flame_add_pair(struct pda_flame *fl, const char *const *frames,
		       const size_t *lens, size_t nr_frames, uint64_t count,
		       uint64_t other);

/*
 * Add one folded line, "frame;frame;... COUNT", a trailing newline
 * allowed; the count is the last blank-separated field (a decimal
 * integer).  @return 0 (added), 1 (blank or not a folded line: nothing
 * added) or a negative pd_err as pda_flame_add().
 */
int pda_flame_add_folded(struct pda_flame *fl, const char *line,
			 size_t len);

/* Sort and lay out the tree; no stacks can be added after it, and after
 * a failure the tree can only be freed.  @return 0 or PD_ERR_NOMEM. */
int pda_flame_finish(struct pda_flame *fl);

/* The nodes, after pda_flame_finish() (else NULL, *nr = 0).  Valid until
 * pda_flame_free(). */
const struct pda_flame_node *pda_flame_nodes(const struct pda_flame *fl,
					     size_t *nr);
/* Distinct names among the nodes, after pda_flame_finish(). */
size_t pda_flame_nr_names(const struct pda_flame *fl);
/* The deepest node's depth, after pda_flame_finish(). */
uint32_t pda_flame_max_depth(const struct pda_flame *fl);

/* ---- profile differences (pda_diff.c; `pdtool diff`) --------------- */

/*
 * What changed between two profiles, A (before) and B (after), each of
 * one run (capture) or more.  Stacks are matched by their frames' names,
 * not addresses, after normalisation (pda_diff_normalize_name()) unless
 * no_normalize, so that two builds of one program line up.
 * pda_diff_finish() compares, per symbol (self and inclusive) and per
 * DSO, each side's value under the chosen scaling, and tests each change
 * against sampling noise and, with two runs or more on each side,
 * against the spread between runs (pda_diff_stats.c).  It needs no
 * session.  Not thread-safe.
 *
 *	struct pda_diff *d;
 *	PDA_DIFF_OPTS(o, .nr_runs = {1, 1}, .root_is_comm = true);
 *	pda_diff_new(&o, &d);
 *	pda_diff_add_folded(d, PDA_DIFF_A, 0, line, len);  (every line)
 *	pda_diff_add_folded(d, PDA_DIFF_B, 0, line, len);
 *	pda_diff_finish(d);
 *	rows = pda_diff_rows(d, PDA_DIFF_SELF, &nr);
 *	pda_diff_free(d);
 */
struct pda_diff;

enum pda_diff_side { PDA_DIFF_A = 0, PDA_DIFF_B = 1 };

enum pda_diff_scale {
	PDA_DIFF_SCALE_TOTAL = 0, /* a count over its run's samples: a
				   * longer run does not look slower */
	PDA_DIFF_SCALE_NONE,	  /* counts as they are (a side's mean per
				   * run) */
	PDA_DIFF_SCALE_SYMBOL,	  /* a count over the samples of a symbol
				   * (inclusive): per unit of work */
};

#define PDA_DIFF_MAX_RUNS 1024 /* a side's runs */

struct pda_diff_opts {
	size_t sz;		/* sizeof(struct pda_diff_opts) */
	unsigned nr_runs[2];	/* runs of A and of B: 1..PDA_DIFF_MAX_RUNS */
	enum pda_diff_scale scale;
	const char *scale_symbol; /* SCALE_SYMBOL: the symbol, normalised
				   * as frame names are */
	double alpha;		/* significance level in (0, 1); 0: 0.05 */
	bool no_normalize;	/* match names exactly as they are */
	bool root_is_comm;	/* each stack's first frame names the
				 * process (as pdtool fold writes them):
				 * left out of the symbol tables */
	bool dsos;		/* pda_diff_add_dsos() gets every sample of
				 * every run: the DSO tables are made */
	const struct pd_alloc *alloc;
	char *errbuf;		/* why pda_diff_new() failed */
	size_t errbuf_size;
};

#define PDA_DIFF_OPTS(name, ...)                                            \
	struct pda_diff_opts name = { .sz = sizeof(struct pda_diff_opts),   \
				      __VA_ARGS__ }

/* @return 0 and *out; PD_ERR_API (bad options, reason in opts->errbuf)
 * or PD_ERR_NOMEM with *out = NULL. */
int pda_diff_new(const struct pda_diff_opts *opts, struct pda_diff **out);
/* Accepts NULL. */
void pda_diff_free(struct pda_diff *d);
/* The last error's detail.  Never NULL. */
const char *pda_diff_errmsg(const struct pda_diff *d);

/*
 * Add weight samples of one stack, frames root first, each lens[i]
 * bytes, to run `run` (0-based) of side.  Nothing here is kept past the
 * call.  @return 0, PD_ERR_NOMEM, PD_ERR_FORMAT (a run's total would
 * overflow 64 bits) or PD_ERR_API (bad side or run, or after finish); on
 * error nothing is counted.
 */
int pda_diff_add(struct pda_diff *d, enum pda_diff_side side, unsigned run,
		 const char *const *frames, const size_t *lens, size_t nr,
		 uint64_t weight);

/*
 * Add every line of a finished fold (pda_fold_finish()) to run `run` of
 * side, as pda_diff_add() would, looking each distinct frame's name up
 * once.  fd is not kept.  Same returns; on error, the lines before the
 * failing one are counted.
 */
int pda_diff_add_fold(struct pda_diff *d, enum pda_diff_side side,
		      unsigned run, const struct pda_fold *fd);

/*
 * Add one folded line, "frame;frame;... COUNT" (a trailing newline
 * allowed; the count a whole number after the last blank).  @return 0
 * (added), 1 (blank or not a folded line: nothing added) or a negative
 * pd_err as pda_diff_add().
 */
int pda_diff_add_folded(struct pda_diff *d, enum pda_diff_side side,
			unsigned run, const char *line, size_t len);

/*
 * Count a sample's DSOs (by file name, so that two builds in different
 * directories line up): its leaf's for self, each one in the stack once
 * for inclusive.  st is its stack as pda_sample_stack() resolved it and
 * weight what it was folded with; NULL or no frames: nothing.  Only with
 * opts.dsos, for every sample pda_diff_add() counts through its folded
 * line; dso pointers must stay valid during a run (a session's).
 * @return 0, PD_ERR_NOMEM or PD_ERR_API.
 */
int pda_diff_add_dsos(struct pda_diff *d, enum pda_diff_side side,
		      unsigned run, const struct pda_stack *st,
		      uint64_t weight);

/*
 * Compare: tables, tests, the stacks' order.  Adding is over after it.
 * @return 0, PD_ERR_NOMEM, or PD_ERR_NOTFOUND: a run has no samples, or
 * no samples of the scale symbol (pda_diff_summary() names the run).
 * After a failure the diff can only be freed.
 */
int pda_diff_finish(struct pda_diff *d);

enum pda_diff_table {
	PDA_DIFF_SELF = 0,	/* symbols, as the leaf */
	PDA_DIFF_INCL,		/* symbols, anywhere in a stack (once) */
	PDA_DIFF_DSO_SELF,	/* the leaf's DSO (opts.dsos) */
	PDA_DIFF_DSO_INCL,	/* any frame's DSO (opts.dsos) */
	PDA_DIFF_NR_TABLES,
};

enum pda_diff_verdict {
	PDA_DIFF_NOISE = 0,	/* within sampling noise */
	PDA_DIFF_SAMPLING,	/* beyond sampling noise only: run-to-run
				 * variation is not tested (one run on a
				 * side) or explains it */
	PDA_DIFF_REAL,		/* beyond sampling noise and beyond the
				 * spread between runs */
};

/* One symbol's or DSO's change.  name is valid until pda_diff_free(). */
struct pda_diff_row {
	const char *name;
	uint64_t count[2];	/* samples of A and of B, all runs */
	double value[2];	/* A's and B's value, in the summary's unit */
	double delta;		/* value[B] - value[A] */
	double p_sampling;	/* the sampling test's p, Holm-adjusted over
				 * the table */
	double p_runs;		/* Welch's t-test's p, Holm-adjusted over
				 * the table's changes beyond sampling
				 * noise, the only ones it can make
				 * significant; NaN for the others and
				 * with one run on a side */
	double t, df;		/* Welch's t (B - A) and degrees of freedom;
				 * NaN likewise, and df when both spreads
				 * are 0 */
	enum pda_diff_verdict verdict;
};

/*
 * After finish: table t's rows, largest |delta| first (then by name), or
 * NULL and *nr = 0 (a DSO table without opts.dsos).  Valid until
 * pda_diff_free().
 */
const struct pda_diff_row *pda_diff_rows(const struct pda_diff *d,
					 enum pda_diff_table t, size_t *nr);

struct pda_diff_summary {
	unsigned nr_runs[2];
	uint64_t weight[2];	/* samples of A and of B, all runs */
	double denom[2];	/* what a side's counts are divided by: its
				 * samples, its number of runs, or the
				 * scale symbol's samples */
	double unit;		/* 100: values are percentages; 1: samples */
	double factor;		/* denom[B] / denom[A]: A's counts at B's
				 * scale */
	enum pda_diff_scale scale;
	const char *scale_symbol; /* as normalised; NULL unless SYMBOL */
	double alpha;
	bool runs_tested;	/* two runs or more on each side */
	size_t nr_stacks;	/* distinct stacks after normalisation */
	size_t nr_renamed;	/* distinct names normalisation changed */
	/* after finish's PD_ERR_NOTFOUND: the run it is about, and whether
	 * it lacks samples of the scale symbol (else any samples) */
	enum pda_diff_side bad_side;
	unsigned bad_run;
	bool bad_symbol;
};

/* Valid until the next call on d. */
const struct pda_diff_summary *pda_diff_summary(const struct pda_diff *d);

/* A distinct stack, after finish. */
struct pda_diff_stack {
	const char *const *frames; /* root first, normalised; NUL-terminated,
				    * no ';' unless the input had one */
	size_t nr;
	uint64_t count[2];	/* samples of A and of B, all runs */
};

/*
 * After finish: the stacks, in the order they were first added, or
 * after pda_diff_sort_stacks() as their lines "a;b;c" compare bytewise
 * (a sort that only the folded output needs); NULL when i is out of
 * range.  Valid until pda_diff_free().
 */
void pda_diff_sort_stacks(struct pda_diff *d);
size_t pda_diff_nr_stacks(const struct pda_diff *d);
const struct pda_diff_stack *pda_diff_stack(const struct pda_diff *d,
					    size_t i);

/*
 * A differential flame graph's tree, after finish: shaped like B (like
 * A with negate): each node's total is that side's samples, its other
 * the other side's (raw counts; multiply A's by the summary's factor to
 * compare at B's scale).  Frames only the other side has are not in it.
 * @return 0 and *out, which the caller frees, or PD_ERR_NOMEM,
 * PD_ERR_FORMAT (counts past 64 bits) or PD_ERR_API (before finish).
 */
int pda_diff_flame(const struct pda_diff *d, bool negate,
		   struct pda_flame **out);

/*
 * A frame name without the suffixes that compilers and toolchains add to
 * one function's name, so that builds line up: GCC's clones and splits
 * (".cold", ".cold.N", ".isra.N", ".constprop.N", ".part.N",
 * ".lto_priv.N", and their C++ demangled forms " [clone .isra.N]"...),
 * any chain of them, and Rust's legacy hash "::h" + 16 hex digits.  A
 * fold annotation ("_[k]", "_[j]", "_[i]") is kept at the end.  A name
 * that is nothing but suffixes stays as it is.  Writes the name (not
 * NUL-terminated) to out, which has room for len bytes, and @return its
 * length.
 */
size_t pda_diff_normalize_name(const char *name, size_t len, char *out);

/* ---- statistics (pda_diff_stats.c) --------------------------------- */

/*
 * The regularized incomplete beta function I_x(a, b), for a, b > 0 and
 * 0 <= x <= 1 (NaN otherwise), by its continued fraction; about 1e-14
 * relative accuracy.
 */
double pda_stat_betainc(double a, double b, double x);
/* Student's t distribution's CDF P(T <= t), df > 0 (need not be whole;
 * +inf: the normal's); NaN for df <= 0 or NaN. */
double pda_stat_t_cdf(double t, double df);
/* Two-sided p of Student's t: P(|T| >= |t|), accurate in the tail. */
double pda_stat_t_p2(double t, double df);
/* Two-sided p of a standard normal: P(|Z| >= |z|). */
double pda_stat_normal_p2(double z);

struct pda_stat_test {
	double stat;	/* t or z, of B - A */
	double df;	/* degrees of freedom (Welch); NaN for z */
	double p;	/* two-sided */
};

/*
 * Welch's unequal-variances t-test of mean(b) - mean(a), df by the
 * Welch-Satterthwaite equation.  With both sample variances 0: t = 0 and
 * p = 1 when the means are equal, else t = +-inf and p = 0, df NaN.
 * @return 0, or PD_ERR_API with fewer than two values on a side.
 */
int pda_stat_welch(const double *a, size_t na, const double *b, size_t nb,
		   struct pda_stat_test *out);

/*
 * The sampling-noise test of a change in x / denominator between A (xa
 * of da) and B (xb of db), a z-test with the pooled variance under "no
 * change": SCALE_TOTAL, two proportions (x of d samples); SCALE_NONE,
 * Poisson counts (x samples in d runs); SCALE_SYMBOL, a ratio of Poisson
 * counts (x samples per d samples of the symbol; the delta method's
 * variance rho (1 + rho) / d, conservative when x is part of d).  No
 * variance (no samples): z = 0, p = 1.
 */
void pda_stat_sampling(enum pda_diff_scale scale, double xa, double da,
		       double xb, double db, struct pda_stat_test *out);

/*
 * Holm's step-down adjustment of n p-values for multiple comparisons
 * (a NaN counts as 1): adj[i] for p[i]; order is scratch for n indices.
 * p and adj may be the same array.
 */
void pda_stat_holm(const double *p, size_t n, size_t *order, double *adj);
/* ---- annotation (pda_annotate*.c; `pdtool annotate`) ---------------- */

/*
 * Samples counted by the instruction they hit, grouped by function, and
 * each function's disassembly (capstone, in the ELF's own architecture),
 * source lines, inline boundaries, branch targets and loop back-edges.
 * As `perf annotate` counts, a sample counts at its own address (the
 * leaf, never its callers) in the function that holds it, once per
 * event, with its period.
 *
 *	struct pda_annot *a;
 *	PDA_ANNOT_OPTS(ao, .nr_events = pd_file_nr_evsels(f));
 *	pda_annot_new(s, &ao, &a);
 *	(for each sample, after pda_session_feed)
 *		pda_annot_add(a, &sample, sample.evsel->idx);
 *	pda_annot_finish(a);
 *	for (size_t i = 0; i < pda_annot_nr_syms(a); i++) {
 *		pda_annot_func_new(a, i, &fn);	// disassembled here
 *		(write fn)
 *		pda_annot_func_free(a, fn);
 *	}
 *	pda_annot_free(a);
 *
 * Not thread-safe; it uses the session, which must outlive it.
 */
struct pda_annot;

enum pda_annot_syntax {
	PDA_SYNTAX_ATT = 0,	/* x86: AT&T, as objdump and perf (default) */
	PDA_SYNTAX_INTEL,	/* x86: Intel */
};

struct pda_annot_opts {
	size_t sz;			/* by PDA_ANNOT_OPTS */
	size_t nr_events;		/* event indexes 0..nr_events-1 */
	enum pda_annot_syntax syntax;
	/* "OLD=NEW": a DWARF path starting with OLD is read at NEW... */
	const char *const *prefix_maps;
	size_t nr_prefix_maps;
	/* ...and, when not there, under each DIR (DIR/path, DIR/basename) */
	const char *const *source_dirs;
	size_t nr_source_dirs;
	bool no_source;			/* never read source files */
};

#define PDA_ANNOT_OPTS(name, ...)                                           \
	struct pda_annot_opts name = { .sz = sizeof(struct pda_annot_opts), \
				       __VA_ARGS__ }

/* Samples and the sum of their periods. */
struct pda_annot_count {
	uint64_t hits;
	uint64_t period;
};

/* @return 0 and *out, PD_ERR_API (bad options) or PD_ERR_NOMEM. */
int pda_annot_new(struct pda_session *s, const struct pda_annot_opts *opts,
		  struct pda_annot **out);
/* Accepts NULL. */
void pda_annot_free(struct pda_annot *a);

/*
 * Count one decoded sample of event index event.  @return 1 counted in a
 * function, 0 not (no map, no symbol; still in the event's total), or a
 * negative pd_err (PD_ERR_API: event out of range or after finish).
 */
int pda_annot_add(struct pda_annot *a, const struct pd_sample *sample,
		  size_t event);

/* Sort the functions, most samples first.  @return 0 or PD_ERR_NOMEM. */
int pda_annot_finish(struct pda_annot *a);

/* A function that has samples.  Valid until pda_annot_free(). */
struct pda_annot_sym {
	const char *name;	/* demangled unless the session's no_demangle */
	const char *dso;	/* the map's name as recorded */
	const char *path;	/* the file it was found in, NULL: none */
	uint64_t start;		/* its address in the DSO (ELF vaddr) */
	bool kernel;
	const struct pda_annot_count *counts; /* [nr_events]: its samples */
	double share;		/* max over events of its share of the
				 * event's period: how it is ranked */
};

size_t pda_annot_nr_syms(const struct pda_annot *a);
/* After pda_annot_finish(): function i, most samples first (NULL past
 * the end). */
const struct pda_annot_sym *pda_annot_sym(const struct pda_annot *a,
					  size_t i);
/* Every sample added, per event ([nr_events]): the global total. */
const struct pda_annot_count *pda_annot_totals(const struct pda_annot *a);
/* Samples added that no function took (no map or no symbol). */
uint64_t pda_annot_nr_unresolved(const struct pda_annot *a);

enum pda_insn_flags {
	PDA_INSN_JUMP = 1u << 0,	/* a branch, conditional or not */
	PDA_INSN_CALL = 1u << 1,
	PDA_INSN_RET = 1u << 2,
	PDA_INSN_BACK_EDGE = 1u << 3,	/* a jump to itself or an earlier
					 * instruction of the function */
	PDA_INSN_LOOP_HEAD = 1u << 4,	/* the target of a back-edge */
	PDA_INSN_INLINE_START = 1u << 5,/* the inline chain differs from
					 * the instruction before's */
	PDA_INSN_LINE_START = 1u << 6,	/* the source line differs */
	PDA_INSN_BAD = 1u << 7,		/* bytes capstone cannot decode
					 * (".byte"), skipped one unit */
};

/* One instruction.  Strings live as long as the function. */
struct pda_annot_insn {
	uint64_t addr;		/* ELF vaddr */
	unsigned size;		/* bytes */
	const char *mnemonic;	/* as capstone prints it */
	const char *operands;
	const struct pda_annot_count *counts; /* [nr_events]: samples in
					       * [addr, addr + size) */
	const char *srcfile;	/* line table's row, NULL unknown */
	unsigned line;
	unsigned flags;		/* pda_insn_flags */
	uint64_t target;	/* with JUMP or CALL: the address, when the
				 * operand is one */
	const char *target_name;/* "sym+0xOFF" (demangled), NULL unknown */
	unsigned inline_depth;	/* inlined functions around it, 0 none */
	const char *inline_func;/* the innermost, NULL with depth 0 */
	const char *call_file;	/* where it was inlined, NULL unknown */
	unsigned call_line;
};

/* One source line's sum over the instructions of the function. */
struct pda_annot_line {
	const char *file;	/* as DWARF names it */
	unsigned line;
	const struct pda_annot_count *counts; /* [nr_events] */
	size_t nr_insns;
};

struct pda_annot_func {
	const struct pda_annot_sym *sym;
	uint64_t size;		/* of the symbol, bytes */
	const char *arch;	/* "x86_64", "aarch64", ... */
	const char *error;	/* why there is no disassembly (no binary,
				 * a debug file without code, an
				 * architecture capstone lacks); NULL:
				 * insns are there */
	size_t nr_insns;
	const struct pda_annot_insn *insns;
	size_t nr_lines;	/* source lines with instructions, hottest
				 * first */
	const struct pda_annot_line *lines;
	size_t nr_events;
};

/*
 * Disassemble function i and place its samples.  A function that cannot
 * be disassembled comes back with error set and no instructions.
 * @return 0 and *out, PD_ERR_API (i out of range) or PD_ERR_NOMEM.
 */
int pda_annot_func_new(struct pda_annot *a, size_t i,
		       struct pda_annot_func **out);
/* Accepts NULL. */
void pda_annot_func_free(struct pda_annot *a, struct pda_annot_func *fn);

/*
 * The text of line (1-based) of source file (as DWARF names it), after
 * --prefix-map and --source-dir, without its newline: *len bytes, valid
 * until pda_annot_free().  NULL when the file or the line is not there.
 */
const char *pda_annot_source(struct pda_annot *a, const char *file,
			     unsigned line, size_t *len);
/* Where the source file was read, NULL when it was not found. */
const char *pda_annot_source_path(struct pda_annot *a, const char *file);

#ifdef __cplusplus
}
#endif

#endif /* PDA_H */
