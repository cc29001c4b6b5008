/*
 * pda_diff.h - profile differences (`pdtool diff`) and the statistical
 * tests that judge them against sampling noise (pda_sigtest_int.h).
 */
#ifndef PDA_DIFF_H
#define PDA_DIFF_H

#include "pda_flame.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What changed between two profiles, A (before) and B (after), each of
 * one run (capture) or more.  Stacks are matched by their frames' names,
 * not addresses, after normalisation (pda_diff_normalize_name()) unless
 * no_normalize, so that two builds of one program line up.
 * pda_diff_finish() compares, per symbol (self and inclusive) and per
 * DSO, each side's value under the chosen scaling, and tests each change
 * against sampling noise and, with two runs or more on each side,
 * against the spread between runs (pda_sigtest.c).  It needs no
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
 * Add every sample row of a profile (pda_profile.h) with its value in
 * column col to run `run` of side, as pda_diff_add() would with the
 * locations' labels as frames, looking each location's name up once.  p
 * is not kept.  Same returns; on error, the rows before the failing one
 * are counted.
 */
int pda_diff_add_profile(struct pda_diff *d, enum pda_diff_side side,
			 unsigned run, const struct pda_profile *p,
			 unsigned col);

/*
 * Add every line of a finished fold (pda_fold_finish()) to run `run` of
 * side: pda_diff_add_profile() on pda_fold_profile()'s profile, column
 * PDA_FOLD_COL_WEIGHT.  fd is not kept.  Same returns.
 */
int pda_diff_add_fold(struct pda_diff *d, enum pda_diff_side side,
		      unsigned run, struct pda_fold *fd);

/*
 * A run added in weights other than samples (periods, latencies): its
 * counts, stacks' and DSOs', each times to / the run's weight, to the
 * nearest whole count (to: the run's samples), so that the tests, which
 * take counts for samples, see as many as were taken; a stack then
 * under half a sample counts 0.  Before finish, after the run's last
 * add.  @return 0 or PD_ERR_API.
 */
int pda_diff_scale_run(struct pda_diff *d, enum pda_diff_side side,
		       unsigned run, uint64_t to);

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

/* st's DSOs, leaf first, each run of frames in one DSO once, into dsos
 * (room for st->nr): what pda_diff_add_dsos() counts of it.  @return
 * how many. */
size_t pda_diff_stack_dsos(const struct pda_stack *st, const char **dsos);

/* pda_diff_add_dsos() of a stack whose pda_diff_stack_dsos() gave the
 * nr dsos: a sample of a stack seen before, counted without it. */
int pda_diff_add_dso_list(struct pda_diff *d, enum pda_diff_side side,
			  unsigned run, const char *const *dsos, size_t nr,
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

#ifdef __cplusplus
}
#endif

#endif /* PDA_DIFF_H */
