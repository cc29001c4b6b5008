/*
 * pda_fold.h - folded stacks: aggregating resolved stacks into
 * "comm;outer;...;leaf weight" lines, and reading perf script text.
 */
#ifndef PDA_FOLD_H
#define PDA_FOLD_H

#include "pda_profile.h"
#include "pda_session.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An aggregator of stacks into folded lines, "comm;outer;...;leaf
 * weight", the input of flamegraph tools.  It needs no session: frame
 * names are copied into its own intern table, so it outlives the session
 * that resolved them.  The distinct stacks are a prefix tree (a stack is
 * its caller's stack and a frame), which pda_fold_profile() turns into
 * the profile's stack table as it is.  The per-sample path allocates
 * only for a stack, a name or a comm not seen before.  Not thread-safe.
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
 *	pda_fold_profile(fd, &profile);		// the same, structured
 *	pda_fold_free(fd);
 *
 * The folded output, the flame graph and diff's runs are made from
 * pda_fold_profile()'s profile (pda_profile.h), not from the lines.
 *
 * Frame names follow perf's `perf script report stackcollapse`: the
 * symbol, "[unknown]" where there is none, ';' replaced by ':'; the comm
 * (spaces replaced by '_') is the root, ":TID" when the thread's comm is
 * unknown, as perf names such threads.  In every name, the caller's
 * (pda_fold_add_names()) included, a byte that is not printable text (a
 * control character, DEL, a C1 control, a byte that is not UTF-8) is
 * written as \xNN (common/pdc_text.h), so that no name can start a
 * folded line of its own or reach a terminal raw; the filters match the
 * names so written.
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
	PDA_FOLD_SRCLINE_CG = 1u << 7,	/* "func file:line" where known, as
					 * perf's call graphs name frames by
					 * address (--branch-history) */
};

#define PDA_FOLD_MAX_STACK PDA_MAX_STACK

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
	const struct pd_alloc *alloc;	/* called from two threads with
					 * threaded, and from every shard's
					 * thread on an owner's (pda_fold_share)
					 * without a lock: must be thread-safe */
	char *errbuf;		/* why pda_fold_new failed (a bad regex) */
	/* Stacks go into the table on a thread of their own, while the
	 * caller's names the next ones: the same result, sooner where a
	 * second CPU is free. */
	bool threaded;
	size_t errbuf_size;
	/* The sort of pda_fold_finish() on a thread of its own, while
	 * pda_fold_profile() takes its first lines (implied by threaded):
	 * for a table made without an adder (one that shared tables are
	 * merged into), the same result, sooner where a CPU is free. */
	bool sort_thread;
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

/*
 * pda_fold_add(), and in *cookie (not 0) what the sample became: its
 * line, or that the filters left it out, for pda_fold_add_again() to
 * count a sample of the same stack, pid and comm (and tid with
 * PDA_FOLD_TID) without its frames (the pipeline's memo,
 * pda_pipe_item.cookie).  *cookie is left alone on an error.
 */
int pda_fold_add_keyed(struct pda_fold *fd, const struct pd_sample *sample,
		       const struct pda_stack *st, const char *comm,
		       uint64_t *cookie);

/*
 * Count sample as the one whose pda_fold_add_keyed() gave cookie was
 * counted, with its own period.  @return as pda_fold_add(): 1 added, 0
 * filtered out, PD_ERR_API after pda_fold_finish().
 */
int pda_fold_add_again(struct pda_fold *fd, const struct pd_sample *sample,
		       uint64_t cookie);

/* One sample whose frames are named already, for pda_fold_add_names(). */
struct pda_fold_names {
	const char *root;		/* the root frame ("comm-PID"), NULL:
					 * none */
	const char *comm;		/* what comm_re matches; NULL: root */
	const char *const *names;	/* nr frame names, leaf first, used
					 * as they are (but for \xNN) */
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
 * Add what from counted into fd, as if from's samples had been added to
 * fd after fd's own (a capture read in shards, each folded into a table
 * of its own, merged in the file's order): each name keeps the first
 * frame that had it, fd's where fd had one (the locations of
 * pda_fold_profile()), and the totals add up.  Both must have the same
 * options and be unfinished; from's stacks stay in it, to be freed.
 * Either's adder thread (threaded) is stopped first.
 * @return 0, PD_ERR_API (finished) or PD_ERR_NOMEM (then fd can only be
 * freed).
 */
int pda_fold_merge(struct pda_fold *fd, struct pda_fold *from);

/*
 * Let fd (new, nothing added, not threaded) add its stacks to owner's
 * tree, so that tables filled at once on threads of their own (a
 * capture's shards) hold each distinct stack once, not once a table.
 * fd keeps its own names, first frames and counts; a new stack takes
 * owner's lock (memo hits touch fd alone).  owner (same options, not
 * threaded) adds nothing itself while shared: each sharing table is
 * pda_fold_merge()d into it once all are done, in the file's order,
 * and then freed; fd cannot be finished.  Stack and name ids in owner
 * come in the order the threads met them, which no output shows (the
 * lines are sorted by name), except that lines rendering alike (a
 * name holding ';') keep that order.  @return 0 or PD_ERR_API (fd or
 * owner unfit), PD_ERR_NOMEM.
 */
int pda_fold_share(struct pda_fold *fd, struct pda_fold *owner);

/*
 * Sort the stacks (by byte value, as Python's sorted() sorts perf's
 * lines) and merge any that render alike.  Adding is over after it.
 * @return 0 or PD_ERR_NOMEM (then the aggregator can only be freed).
 */
int pda_fold_finish(struct pda_fold *fd);

/* A frame of a folded line. */
struct pda_fold_frame {
	const char *name;	/* as written, NUL-terminated, no ';' and
				 * nothing but printable text */
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
	uint64_t samples;	/* samples added */
	uint64_t period;	/* their periods' sum (pda_fold_add_names():
				 * the weight with PDA_FOLD_PERIOD, else 0) */
};

/* After pda_fold_finish(): the number of lines, and line i (NULL when
 * out of range, or out of memory for the lines, made from the stack
 * table on the first call, or for its text, rendered on the first call
 * for line i), in sorted order.  The outputs need no lines: they take
 * pda_fold_profile()'s profile. */
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
	size_t nr_stacks;		/* distinct lines, once finished */
};

/* Valid until the next call on fd. */
const struct pda_fold_totals *pda_fold_totals(const struct pda_fold *fd);

/* The columns of pda_fold_profile()'s profile. */
enum {
	PDA_FOLD_COL_WEIGHT = 0,	/* the lines' weight: what folded text
					 * writes (samples, or periods with
					 * PDA_FOLD_PERIOD) */
	PDA_FOLD_COL_SAMPLES,		/* samples */
	PDA_FOLD_COL_PERIOD,		/* periods' sum */
	PDA_FOLD_NR_COLUMNS,
};

/*
 * After pda_fold_finish(): the lines as a structured profile
 * (pda_profile.h), one sample row per line, in the lines' order, with
 * the three columns above.  Each distinct frame name is one location
 * whose label is the name (fold's naming rules applied) and whose
 * function, mapping, address (a DSO offset when there is a map), source
 * line and flags are those of the first frame that folded to that name;
 * without --no-comm (PDA_FOLD_NO_COMM) the first frame of every line is
 * a PDA_LOC_ROOT location.  The profile does not refer to fd: free it
 * with pda_profile_free(), before or after fd.
 * @return 0 and *out, or PD_ERR_NOMEM, or PD_ERR_API (before finish),
 * with *out = NULL.
 */
int pda_fold_profile(struct pda_fold *fd, struct pda_profile **out);

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
	PDA_SCRIPT_JIT = 1u << 4,	/* "_[j]" on perf-PID.map frames
					 * (PDA_FRAME_JIT marks jitted-*.so
					 * too) */
	PDA_SCRIPT_ADDRS = 1u << 5,	/* "[dso <ip>]" for unknown frames */
	PDA_SCRIPT_ALL_EVENTS = 1u << 6, /* keep every event */
	PDA_SCRIPT_PERIOD = 1u << 7,	/* weigh by the period field (1
					 * where there is none), as the pl */
	PDA_SCRIPT_SRCLINE = 1u << 8,	/* the text is perf script
					 * -F+srcline's: the line after each
					 * frame's name is its source line,
					 * appended "name:file.c:12" (the
					 * pl's --srcline) */
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
	/* or perf's list of --time ranges (pda_time_in_ranges()), with
	 * has_time_start and has_time_end false; NULL or 0: none */
	const struct pda_time_range *time_ranges;
	size_t nr_time_ranges;
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

#ifdef __cplusplus
}
#endif

#endif /* PDA_FOLD_H */
