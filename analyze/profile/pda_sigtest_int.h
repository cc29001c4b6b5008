/*
 * pda_sigtest_int.h - the statistical tests pda_diff judges its changes
 * with (pda_sigtest.c).  Internal to the profile module: pda_diff.c
 * calls them, and tests/unit/check_diff.c checks them against reference
 * values; nothing outside libpda needs them.
 */
#ifndef PDA_SIGTEST_INT_H
#define PDA_SIGTEST_INT_H

#include "pda_diff.h"

/*
 * The regularized incomplete beta function I_x(a, b), for a, b > 0 and
 * 0 <= x <= 1 (NaN otherwise), by its continued fraction; about 1e-14
 * relative accuracy.
 */
double pda_sigtest_betainc(double a, double b, double x);
/* Student's t distribution's CDF P(T <= t), df > 0 (need not be whole;
 * +inf: the normal's); NaN for df <= 0 or NaN. */
double pda_sigtest_t_cdf(double t, double df);
/* Two-sided p of Student's t: P(|T| >= |t|), accurate in the tail. */
double pda_sigtest_t_p2(double t, double df);
/* Two-sided p of a standard normal: P(|Z| >= |z|). */
double pda_sigtest_normal_p2(double z);

struct pda_sigtest {
	double stat; /* t or z, of B - A */
	double df;   /* degrees of freedom (Welch); NaN for z */
	double p;    /* two-sided */
};

/*
 * Welch's unequal-variances t-test of mean(b) - mean(a), df by the
 * Welch-Satterthwaite equation.  With both sample variances 0: t = 0 and
 * p = 1 when the means are equal, else t = +-inf and p = 0, df NaN.
 * @return 0, or PD_ERR_API with fewer than two values on a side.
 */
int pda_sigtest_welch(const double *a, size_t na, const double *b, size_t nb,
		      struct pda_sigtest *out);

/*
 * The sampling-noise test of a change in x / denominator between A (xa
 * of da) and B (xb of db), a z-test with the pooled variance under "no
 * change": SCALE_TOTAL, two proportions (x of d samples); SCALE_NONE,
 * Poisson counts (x samples in d runs); SCALE_SYMBOL, a ratio of Poisson
 * counts (x samples per d samples of the symbol; the delta method's
 * variance rho (1 + rho) / d, conservative when x is part of d).  No
 * variance (no samples): z = 0, p = 1.
 */
void pda_sigtest_sampling(enum pda_diff_scale scale, double xa, double da,
			  double xb, double db, struct pda_sigtest *out);

/*
 * Holm's step-down adjustment of n p-values for multiple comparisons
 * (a NaN counts as 1): adj[i] for p[i]; order is scratch for n indices.
 * p and adj may be the same array.
 */
void pda_sigtest_holm(const double *p, size_t n, size_t *order, double *adj);

#endif /* PDA_SIGTEST_INT_H */
