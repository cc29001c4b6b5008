/*
 * pda_statdiff.h - two sets of perf stat record runs compared, the
 * "compare two builds at the counter level" step: each event's count and
 * each derived metric before (A) and after (B), the change, and a noise
 * estimate from the runs of each side (perf stat -r's spread of the
 * mean).  Nothing here reads a file.
 *
 *	struct pda_statdiff sd;
 *	pda_statdiff_compute(repA, envA, repB, envB, alloc, &sd);
 *	... sd.events[i], sd.metrics[i] ...
 *	pda_statdiff_release(&sd, alloc);
 */
#ifndef PDA_STATDIFF_H
#define PDA_STATDIFF_H

#include "pda_metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pda_stat_report;

/* One value on both sides. */
struct pda_statdiff_val {
	const char *name;	/* the event's, or the metric's label */
	const char *key;	/* a metric's key; NULL for an event */
	const char *group;	/* a metric's group; NULL for an event */
	const char *unit;	/* an event's ("msec", ""); a metric: "%"
				 * when its value is a fraction shown so */
	bool in_a, in_b;	/* counted on that side */
	double a, b;		/* the mean of the runs */
	/* each side's standard deviation of the mean, in the value's
	 * units: from its runs' spread (an event), propagated from its
	 * events' (a metric: their relative noises added in quadrature,
	 * which ignores their correlation, so errs large); 0 with one run */
	double a_sd, b_sd;
	double change;		/* (b - a) / a; NAN when a is 0 or a side
				 * lacks it */
	/* the change's noise: two standard deviations of b - a, relative
	 * to a; NAN without runs to tell (one run a side) */
	double noise;
	bool significant;	/* |b - a| above two standard deviations */
};

struct pda_statdiff {
	unsigned runs_a, runs_b;
	size_t nr_events, nr_metrics;
	struct pda_statdiff_val *events, *metrics;
};

/*
 * Compare a's and b's runs (pda_stat reports; each event's aggregates
 * added up, and an -I capture's intervals, as pda_metrics_from_stat()
 * adds them), env each side's
 * recording host (NULL: generic metrics only).  An event is matched by
 * its name, a metric by its key and group; those of one side only are kept, with
 * in_a or in_b false.  A metric is matched by its key and group (Intel's
 * and AMD's topdown share keys).  @return 0 or PD_ERR_NOMEM (*out emptied).
 */
int pda_statdiff_compute(const struct pda_stat_report *a,
			 const struct pd_env *env_a,
			 const struct pda_stat_report *b,
			 const struct pd_env *env_b,
			 const struct pd_alloc *alloc,
			 struct pda_statdiff *out);
/* Free what compute allocated; sd is then empty. */
void pda_statdiff_release(struct pda_statdiff *sd,
			  const struct pd_alloc *alloc);

#ifdef __cplusplus
}
#endif

#endif /* PDA_STATDIFF_H */
