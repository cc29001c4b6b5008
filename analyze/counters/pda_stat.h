/*
 * pda_stat.h - the counters of `perf stat record` captures, totalled as
 * `perf stat report` (perf 6.1) totals them: per event, in the
 * aggregation the capture was recorded with (or another one asked for),
 * scaled by enabled/running time when counters were multiplexed, each
 * interval of an `-I` capture on its own, and the metrics perf prints
 * beside the counts (CPUs utilized, GHz, insn per cycle, ...).  Several
 * captures of one command given together are taken as the runs of
 * `perf stat -r`: their mean and the spread between them.
 *
 * The records come from the caller's capture loop (pda_capture's rec_fn,
 * in file order); nothing here reads a file or needs a session.  Not
 * thread-safe.
 *
 *	struct pda_stat *s;
 *	PDA_STAT_OPTS(o, .aggr = PDA_STAT_AGGR_AS_RECORDED);
 *	pda_stat_new(&o, &s);
 *	for each capture f:
 *		pda_stat_begin(s, f);
 *		pda_stat_rec(s, rec);		(every record, in file order)
 *		pda_stat_end(s);
 *	pda_stat_finish(s);
 *	r = pda_stat_report(s);		(valid until pda_stat_free)
 *	pda_stat_free(s);
 */
#ifndef PDA_STAT_H
#define PDA_STAT_H

#include "pd.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * How counts are aggregated: perf's AGGR_* modes, in this library's own
 * numbering (perf's saved numbering changed over versions:
 * pda_stat_aggr_from_file()).
 */
enum pda_stat_aggr {
	PDA_STAT_AGGR_AS_RECORDED = 0, /* opts only: the capture's mode */
	PDA_STAT_AGGR_GLOBAL,	       /* one total per event */
	PDA_STAT_AGGR_NONE,	       /* per CPU: -A, --no-aggr */
	PDA_STAT_AGGR_SOCKET,	       /* --per-socket */
	PDA_STAT_AGGR_DIE,	       /* --per-die */
	PDA_STAT_AGGR_CLUSTER,	       /* --per-cluster (perf 6.8+) */
	PDA_STAT_AGGR_CACHE,	       /* --per-cache (perf 6.5+) */
	PDA_STAT_AGGR_CORE,	       /* --per-core */
	PDA_STAT_AGGR_THREAD,	       /* --per-thread */
	PDA_STAT_AGGR_NODE,	       /* --per-node */
};

/* The name of a mode as perf's option says it ("per-socket"). */
const char *pda_stat_aggr_name(enum pda_stat_aggr a);

/*
 * A saved STAT_CONFIG aggregation mode in the numbering of the perf that
 * wrote it: perf up to 6.4 (no AGGR_LEVEL term in STAT_CONFIG), 6.5 to
 * 6.7 (AGGR_CACHE after AGGR_DIE) and 6.8 on (AGGR_CLUSTER before it);
 * has_level says whether the record held the AGGR_LEVEL term, major and
 * minor are the VERSION feature's (0 when absent: the newest numbering
 * of its generation).  @return the mode, or -1 for a value no
 * generation gives.
 */
int pda_stat_aggr_from_file(uint64_t saved, bool has_level, unsigned major,
			    unsigned minor);

struct pda_stat_opts {
	size_t sz;		  /* sizeof(struct pda_stat_opts) */
	enum pda_stat_aggr aggr;  /* AS_RECORDED: the capture's */
	bool cumulative;	  /* -I: each interval's counts since the
				   * start (perf 7.x), not its own (6.1) */
	const struct pd_alloc *alloc;
};

#define PDA_STAT_OPTS(name, ...)                                            \
	struct pda_stat_opts name = { .sz = sizeof(struct pda_stat_opts),   \
				      __VA_ARGS__ }

/* How a metric's value is written, as perf's format strings say. */
enum pda_stat_mfmt {
	PDA_STAT_MF_NONE = 0,	/* no value: the column left blank */
	PDA_STAT_MF_8_3F,	/* "%8.3f" */
	PDA_STAT_MF_7_2F_SP,	/* "%7.2f " */
	PDA_STAT_MF_7_2F_PCT,	/* "%7.2f%%" */
	PDA_STAT_MF_8_3F_PCT,	/* "%8.3f %%" */
	PDA_STAT_MF_8_1F_PCT,	/* "%8.1f%%" */
};

/* A metric perf prints after '#'. */
struct pda_stat_metric {
	enum pda_stat_mfmt fmt;
	double val;
	const char *unit;	/* "CPUs utilized", "K/sec"; static */
	bool newline;		/* on a line of its own, as perf puts it */
};

#define PDA_STAT_MAX_METRICS 2

/*
 * One line of the output: an event's count in one aggregate (the whole
 * run, a CPU, a socket ...), in the order perf prints them.
 */
struct pda_stat_row {
	uint32_t event;		/* index into the report's events */
	int32_t cpu;		/* AGGR_NONE; else -1 */
	int32_t socket, die, cluster, cache, core, node; /* the aggregate's
				 * ids, -1 where they do not apply */
	int32_t thread;		/* AGGR_THREAD: index in the thread map */
	int64_t pid;		/* AGGR_THREAD: its pid */
	const char *comm;	/* AGGR_THREAD: its comm (maybe "") */
	uint32_t nr;		/* CPUs the aggregate counts */
	uint64_t raw;		/* count before scaling */
	uint64_t val;		/* count scaled by ena/run (perf's) */
	uint64_t ena, run;	/* ns enabled and running */
	double uval;		/* val * the event's scale, in its unit */
	double noise;		/* several runs: stddev of the mean, % of
				 * the mean; else 0 */
	uint64_t samples;	/* a sampling capture's: the samples (or
				 * group reads) the count is estimated
				 * from; else 0 */
	bool counted;		/* false: perf's "<not counted>" */
	unsigned nr_metrics;
	struct pda_stat_metric metric[PDA_STAT_MAX_METRICS];
};

/* One round: the whole run, or one interval of an -I capture. */
struct pda_stat_round {
	uint64_t time;		/* ns since the start (STAT_ROUND's) */
	bool final;		/* FINAL, not INTERVAL */
	size_t first, nr;	/* its rows */
};

struct pda_stat_event {
	const char *name;
	const char *unit;	/* "msec", or "" */
	double scale;		/* 1e-6 for msec clocks, else 1 */
	struct pd_attr attr;
	uint64_t ctx;		/* perf's context: the exclude_* bits */
};

struct pda_stat_report {
	enum pda_stat_aggr aggr;
	uint64_t interval_ms;	/* -I's; 0 none */
	bool scale;		/* counts scaled (perf stat without -c) */
	unsigned nr_runs;	/* captures read */
	double walltime_ns;	/* mean FINAL round time; 0 none */
	double walltime_sd_ns;	/* its stddev of the mean (several runs) */
	size_t nr_events;
	const struct pda_stat_event *events;
	size_t nr_rounds;
	const struct pda_stat_round *rounds;
	size_t nr_rows;
	const struct pda_stat_row *rows;
	/* the counts are estimated from sampling captures' samples
	 * (pda_stat_add_sampled()): "time" is then from the first sample
	 * to the last */
	bool sampled;
	uint32_t nr_cmdline;	/* the first capture's command line */
	const char *const *cmdline;
};

struct pda_stat;

/*
 * @return 0 and *out; PD_ERR_API (unknown option bytes) or PD_ERR_NOMEM
 * with *out = NULL.
 */
int pda_stat_new(const struct pda_stat_opts *opts, struct pda_stat **out);
/* Accepts NULL. */
void pda_stat_free(struct pda_stat *s);

/*
 * Start reading capture f (which must outlive pda_stat_end()): its CPU
 * and thread maps, events and counts start empty; a second capture is
 * a second run of the first one's command, and must count the same
 * events (else PD_ERR_FORMAT, why in pda_stat_errmsg()).
 */
int pda_stat_begin(struct pda_stat *s, struct pd_file *f);
/*
 * One record of f: THREAD_MAP, CPU_MAP, STAT_CONFIG, STAT, STAT_ROUND,
 * EVENT_UPDATE are read, others skipped.  @return 0; PD_ERR_FORMAT for
 * a record that does not decode or does not fit the maps (a STAT of a
 * CPU or thread they do not hold, of an unknown event id), naming the
 * record's offset in pda_stat_errmsg(); PD_ERR_NOMEM.
 */
int pda_stat_rec(struct pda_stat *s, const struct pd_rec *rec);
/* The capture is read: PD_ERR_FORMAT when it held no STAT_ROUND (no
 * counts), or when one of several captures has intervals. */
int pda_stat_end(struct pda_stat *s);
struct pda_sampled_report;
/*
 * A sampling capture f (pda_sampled.h; its totals in sr) as one run:
 * its events' estimated counts as counters that ran for the time from
 * the first sample to the last, aggregated as the options ask (global;
 * per CPU, socket, die, core or node from the samples' CPUs; per thread
 * from their threads), with the metrics perf prints.  Instead of
 * pda_stat_begin(), _rec() and _end(); the other captures must be
 * sampling ones too.  @return 0; PD_ERR_FORMAT when the samples do not
 * say what the aggregation needs (why in pda_stat_errmsg());
 * PD_ERR_NOMEM.
 */
int pda_stat_add_sampled(struct pda_stat *s, struct pd_file *f,
			 const struct pda_sampled_report *sr);
/* After the last capture: the report (several runs: one round of their
 * means).  @return 0, PD_ERR_NOMEM. */
int pda_stat_finish(struct pda_stat *s);

/* Whether two rows count the same aggregate (CPU, socket, die, cluster,
 * cache, core, node, thread), of any event. */
bool pda_stat_same_aggregate(const struct pda_stat_row *a,
			     const struct pda_stat_row *b);

/* Valid after pda_stat_finish(), until pda_stat_free(). */
const struct pda_stat_report *pda_stat_report(const struct pda_stat *s);

/* Why the last call failed; "" when none did. */
const char *pda_stat_errmsg(const struct pda_stat *s);

/* Warnings the reading gave (an aggregation asked of a capture without
 * CPUs, an unknown STAT_CONFIG term): how many, and the first. */
unsigned pda_stat_nr_warnings(const struct pda_stat *s);
const char *pda_stat_warning(const struct pda_stat *s);

#ifdef __cplusplus
}
#endif

#endif /* PDA_STAT_H */
