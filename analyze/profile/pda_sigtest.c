/*
 * pda_sigtest.c - the statistics of `pdtool diff`: Student's t
 * distribution through the regularized incomplete beta function, Welch's
 * t-test, the sampling-noise z-tests and Holm's adjustment.  libm only
 * (lgamma_r, erfc); no statistics library.
 *
 * The incomplete beta function is evaluated by its continued fraction
 *
 *	I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) * 1 / (1 + d1 / (1 + d2 /
 *	            (1 + ...)))
 *	d(2m + 1) = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
 *	d(2m)     = m (b - m) x / ((a + 2m - 1)(a + 2m))
 *
 * (Abramowitz and Stegun 26.5.8), which converges quickly for x below
 * (a + 1) / (a + b + 2); above it I_x(a, b) = 1 - I_(1-x)(b, a) is used.
 * The fraction is evaluated from the front by the modified Lentz method.
 * Then, for Student's t with df degrees of freedom (A&S 26.7.1),
 *
 *	P(|T| >= |t|) = I_(df / (df + t^2))(df / 2, 1 / 2).
 */
#include "pd_config.h"
#include "pda_sigtest_int.h"

#include <math.h>

#define CF_MAX_ITER 10000 /* enough for a, b up to about 1e7 */
#define CF_EPS 1e-15
#define CF_TINY 1e-300

/* log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b); a, b > 0.
 * lgamma_r: lgamma sets the global signgam. */
static double log_beta(double a, double b)
{
	int sign;

	return lgamma_r(a, &sign) + lgamma_r(b, &sign) -
	       lgamma_r(a + b, &sign);
}

/* Keep a Lentz term away from 0, where the next division would blow up. */
static double nonzero(double v)
{
	return fabs(v) < CF_TINY ? CF_TINY : v;
}

/* The continued fraction's value 1 / (1 + d1 / (1 + d2 / ...)). */
static double beta_fraction(double a, double b, double x)
{
	double c = 1.0, den = 1.0 / nonzero(1.0 - (a + b) * x / (a + 1.0));
	double f = den;

	for (int m = 1; m <= CF_MAX_ITER; m++) {
		const double m2 = 2.0 * m;
		/* the even step, d(2m) */
		double d = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		double step;

		den = 1.0 / nonzero(1.0 + d * den);
		c = nonzero(1.0 + d / c);
		f *= den * c;
		/* the odd step, d(2m + 1) */
		d = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		den = 1.0 / nonzero(1.0 + d * den);
		c = nonzero(1.0 + d / c);
		step = den * c;
		f *= step;
		if (fabs(step - 1.0) < CF_EPS)
			break;
	}
	return f;
}

double pda_sigtest_betainc(double a, double b, double x)
{
	double front;

	if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1) || isinf(a) ||
	    isinf(b))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	front = exp(a * log(x) + b * log1p(-x) - log_beta(a, b));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_fraction(a, b, x) / a;
	return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double pda_sigtest_normal_p2(double z)
{
	if (isnan(z))
		return NAN;
	return erfc(fabs(z) / sqrt(2.0));
}

double pda_sigtest_t_p2(double t, double df)
{
	if (isnan(t) || isnan(df) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0.0;
	if (isinf(df))
		return pda_sigtest_normal_p2(t);
	/* df / (df + t^2) loses t when t^2 is tiny next to df; 1 - x is
	 * then t^2 / (df + t^2), which I_x's symmetry uses */
	if (t * t < df * 1e-8)
		return 1.0 - pda_sigtest_betainc(0.5, df / 2.0,
					      t * t / (df + t * t));
	return pda_sigtest_betainc(df / 2.0, 0.5, df / (df + t * t));
}

double pda_sigtest_t_cdf(double t, double df)
{
	const double p2 = pda_sigtest_t_p2(t, df);

	if (isnan(p2))
		return NAN;
	return t > 0 ? 1.0 - p2 / 2.0 : p2 / 2.0;
}

/* Mean and sample variance (n - 1) of v[0..n), n >= 2, in two passes. */
static void mean_var(const double *v, size_t n, double *mean, double *var)
{
	double sum = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	*mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*var = ss / (double)(n - 1);
}

int pda_sigtest_welch(const double *a, size_t na, const double *b, size_t nb,
		      struct pda_sigtest *out)
{
	double ma, va, mb, vb, sa, sb, se2;

	if (na < 2 || nb < 2)
		return PD_ERR_API;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / (double)na;
	sb = vb / (double)nb;
	se2 = sa + sb;
	if (!(se2 > 0)) {
		out->df = NAN;
		out->stat = mb == ma ? 0.0 : mb > ma ? INFINITY : -INFINITY;
		out->p = mb == ma ? 1.0 : 0.0;
		return 0;
	}
	out->stat = (mb - ma) / sqrt(se2);
	/* Welch-Satterthwaite */
	out->df = se2 * se2 /
		  (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
	out->p = pda_sigtest_t_p2(out->stat, out->df);
	return 0;
}

void pda_sigtest_sampling(enum pda_diff_scale scale, double xa, double da,
			  double xb, double db, struct pda_sigtest *out)
{
	/* the common rate under "no change" */
	const double r0 = (xa + xb) / (da + db);
	double per_unit = r0; /* the variance of one unit's count */

	switch (scale) {
	case PDA_DIFF_SCALE_TOTAL:
		per_unit = r0 * (1.0 - r0);
		break;
	case PDA_DIFF_SCALE_SYMBOL:
		per_unit = r0 * (1.0 + r0);
		break;
	case PDA_DIFF_SCALE_NONE:
		break;
	}
	out->df = NAN;
	if (!(da > 0) || !(db > 0) || !(per_unit > 0)) {
		out->stat = 0.0;
		out->p = 1.0;
		return;
	}
	out->stat =
		(xb / db - xa / da) / sqrt(per_unit * (1.0 / da + 1.0 / db));
	out->p = pda_sigtest_normal_p2(out->stat);
}

/* p[i] for sorting: a NaN (no test) counts as 1. */
static double pval(const double *p, size_t i)
{
	return isnan(p[i]) ? 1.0 : p[i];
}

/* Whether order entry x sorts before y: by p, then by index. */
static int before(const double *p, size_t x, size_t y)
{
	const double px = pval(p, x), py = pval(p, y);

	return px < py || (px == py && x < y);
}

/* Sift order[root] down the heap order[0..n), largest on top. */
static void sift(const double *p, size_t *order, size_t root, size_t n)
{
	for (;;) {
		size_t big = root, kid = 2 * root + 1;

		if (kid < n && before(p, order[big], order[kid]))
			big = kid;
		if (kid + 1 < n && before(p, order[big], order[kid + 1]))
			big = kid + 1;
		if (big == root)
			return;
		{
			const size_t tmp = order[root];

			order[root] = order[big];
			order[big] = tmp;
		}
		root = big;
	}
}

void pda_sigtest_holm(const double *p, size_t n, size_t *order, double *adj)
{
	double run = 0;

	/* heapsort the indices by p: no allocation, O(n log n) */
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n / 2; i-- > 0;)
		sift(p, order, i, n);
	for (size_t end = n; end-- > 1;) {
		const size_t tmp = order[0];

		order[0] = order[end];
		order[end] = tmp;
		sift(p, order, 0, end);
	}
	/* the k-th smallest is multiplied by n - k, and adjusted values
	 * never decrease along the order; p and adj may alias, so each
	 * p is read before its adj is written (order visits each once) */
	for (size_t k = 0; k < n; k++) {
		double v = pval(p, order[k]) * (double)(n - k);

		if (v > 1.0)
			v = 1.0;
		if (v < run)
			v = run;
		run = v;
		adj[order[k]] = v;
	}
}
