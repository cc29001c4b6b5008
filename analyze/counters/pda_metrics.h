/*
 * pda_metrics.h - the derived metrics that classify a bottleneck, from
 * the counts of a capture's events: IPC; Arm Neoverse N1/V1 cycle-based
 * (stall, branch, cache and TLB ratios); Arm Neoverse N2/V2/V3 slot-based
 * TopdownL1 with the slots per cycle the capture's PMU capabilities
 * give; Intel TopdownL1 (and level 2 where recorded) from slots and
 * topdown-*; AMD Zen PipelineL1.  Each event is told by its PMU (the
 * capture's PMU_MAPPINGS name of attr.type, and the recording host's
 * CPUID) and its config, never by its name alone, so `-e r11` and
 * `-e armv8_pmuv3_0/cpu_cycles/` are the same cycles.
 *
 * Each metric carries its formula, the counts it was computed from and
 * an assessment against the one threshold table (pda_metric_threshold();
 * pdtool-stat(1) METRICS lists it).  Nothing here allocates or reads a
 * file.  Not thread-safe only in that *out is written.
 *
 *	struct pda_metrics m;
 *	pda_metrics_compute(events, nr, env, &m);
 *	for (size_t i = 0; i < m.nr; i++)
 *		use m.v[i];
 */
#ifndef PDA_METRICS_H
#define PDA_METRICS_H

#include "pd.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pda_stat_report;

/* One event's total over the run, as the caller counted it. */
struct pda_metrics_event {
	const char *name;
	const struct pd_attr *attr;
	double count;		/* scaled for multiplexing; a sampling
				 * capture's sum of periods */
	bool counted;		/* false: not counted, never used */
};

enum pda_assess {
	PDA_ASSESS_NONE = 0,	/* no threshold for this metric */
	PDA_ASSESS_HEALTHY,
	PDA_ASSESS_BORDERLINE,	/* between the healthy and the investigate
				 * bounds */
	PDA_ASSESS_INVESTIGATE,
	PDA_ASSESS_NEAR_PEAK,	/* topdown retiring above its bound */
};

/* "healthy", "borderline", "investigate", "near peak", "" */
const char *pda_assess_name(enum pda_assess a);

/* One row of the threshold table. */
struct pda_metric_threshold {
	const char *key;	/* the metric's pda_metric_val.key */
	bool higher_is_better;	/* IPC, retiring: yes */
	double healthy;		/* beyond this (toward better): healthy;
				 * NAN: no healthy bound */
	double investigate;	/* beyond this (toward worse): investigate */
};

/* The threshold table, in the order the man page lists it; *nr rows.
 * Static. */
const struct pda_metric_threshold *pda_metric_thresholds(size_t *nr);

#define PDA_METRIC_MAX_OPS 6

struct pda_metric_val {
	const char *key;	/* stable: "ipc", "l1d_miss_rate", ... */
	const char *label;	/* "L1d miss rate" */
	const char *group;	/* "Arm cycle-based", "Intel TopdownL1", ... */
	const char *formula;	/* in the events' canonical names */
	bool percent;		/* value is a fraction, shown in % */
	double value;
	enum pda_assess assess;
	const struct pda_metric_threshold *threshold; /* NULL: none */
	unsigned nr_ops;	/* the counts it was computed from */
	const char *op_name[PDA_METRIC_MAX_OPS]; /* the capture's names,
				 * or "slots/cycle" for the constant */
	double op_value[PDA_METRIC_MAX_OPS];
};

#define PDA_METRICS_MAX 48

struct pda_metrics {
	size_t nr;
	struct pda_metric_val v[PDA_METRICS_MAX];
	/* slot-based topdown: slots per cycle and where they came from
	 * ("armv8_pmuv3_0 caps slots", "AMD family 25"); 0 when none */
	double slots_per_cycle;
	const char *slots_from;
	/* why a family of metrics whose events are there was not computed
	 * (one message, static), or NULL */
	const char *note;
	/* the counts were estimated from a sampling capture's periods and
	 * group reads (pda_sampled.h), not counted */
	bool estimated;
};

/*
 * The metrics events allow.  env is the recording host's (PMU_MAPPINGS,
 * CPUID, PMU_CAPS; NULL: generic events only).  Always succeeds; *out
 * points into events' names and static strings, valid while they are.
 */
void pda_metrics_compute(const struct pda_metrics_event *events, size_t nr,
			 const struct pd_env *env, struct pda_metrics *out);

/*
 * A ratio of two events' counts that a sampling capture gives per
 * function (pdtool report's ratio columns): IPC, miss and mispredict
 * rates.  num and den are indexes into the events given.
 */
struct pda_ratio {
	const char *key;	/* stable: "ipc", "cache_miss_rate", ... */
	const char *label;	/* a column header: "IPC", "Cache miss" */
	const char *formula;	/* in the events' canonical names */
	bool percent;		/* a fraction, shown in % */
	size_t num, den;
};

#define PDA_RATIOS_MAX 16

/*
 * The ratios events allow, events told as pda_metrics_compute() tells
 * them (PMU and config; counted false or attr NULL: left out), at most
 * max into out, in the order of pdtool-report(1)'s table.  @return how
 * many.  Strings are static.
 */
size_t pda_metrics_ratios(const struct pda_metrics_event *events, size_t nr,
			  const struct pd_env *env, struct pda_ratio *out,
			  size_t max);

/*
 * The metrics of a stat report: each event's count summed over the
 * aggregates of the whole run (the final round; an -I capture's
 * intervals added up, or its last with --cumulative).  @return 0,
 * PD_ERR_NOMEM.
 */
int pda_metrics_from_stat(const struct pda_stat_report *rep,
			  const struct pd_env *env, bool cumulative,
			  const struct pd_alloc *alloc, struct pda_metrics *out);

struct pda_stat_row;

/*
 * The metrics of one aggregate of one round of a stat report: from the
 * rows of rounds[round] that count agg's aggregate (an -I interval's own
 * counts, or since the start with --cumulative; a CPU's with -A, a
 * socket's ...).  An event with no counted row there gives no metric.
 * @return 0, PD_ERR_NOMEM.
 */
int pda_metrics_from_stat_aggr(const struct pda_stat_report *rep,
			       size_t round, const struct pda_stat_row *agg,
			       const struct pd_env *env,
			       const struct pd_alloc *alloc,
			       struct pda_metrics *out);

/*
 * The recording host's CPU as words: an aarch64 MIDR (CPUID) as the core
 * and its revision, with the parts known to be built on it ("Arm
 * Neoverse V1 r1p1 (as in AWS Graviton3)"); else CPUDESC (the x86 model
 * name).  @return buf, or NULL when the capture says neither.
 */
const char *pda_cpu_model(const struct pd_env *env, char *buf, size_t size);
/* The MIDR of an aarch64 capture's CPUID: 0 and *midr, or -1. */
int pda_cpu_midr(const struct pd_env *env, uint64_t *midr);

#ifdef __cplusplus
}
#endif

#endif /* PDA_METRICS_H */
