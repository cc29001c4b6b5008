/*
 * pda_statdiff.c - two sets of perf stat record runs compared
 * (pda_statdiff.h): each event's mean and spread of the mean as pda_stat
 * gives them (perf stat -r's), each derived metric with the noise its
 * events' spreads give it, and the change against twice the noise of
 * the difference.
 */
#include "pda_statdiff.h"
#include "pda_base_int.h"
#include "pda_stat.h"

#include <math.h>
#include <string.h>

/* One event's whole-run value and its spread of the mean, summed over
 * its aggregates and the rounds an -I capture has (their spreads in
 * quadrature, as independent). */
static void event_total(const struct pda_stat_report *rep, uint32_t ev,
			double *val, double *sd, bool *counted)
{
	const size_t from = rep->interval_ms ? 0 : rep->nr_rounds - 1;
	double var = 0;

	*val = 0;
	*counted = true;
	for (size_t k = from; k < rep->nr_rounds; k++) {
		const struct pda_stat_round *rd = &rep->rounds[k];

		for (size_t r = 0; r < rd->nr; r++) {
			const struct pda_stat_row *row =
				&rep->rows[rd->first + r];
			double s;

			if (row->event != ev)
				continue;
			if (!row->counted)
				*counted = false;
			*val += row->uval;
			s = row->noise / 100.0 * row->uval;
			var += s * s;
		}
	}
	*sd = sqrt(var);
}

static int find_event(const struct pda_stat_report *rep, const char *name)
{
	for (size_t i = 0; i < rep->nr_events; i++)
		if (strcmp(rep->events[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* A metric's spread of the mean: its events' relative spreads added in
 * quadrature (a ratio's first-order error, ignoring their correlation). */
static double metric_sd(const struct pda_stat_report *rep,
			const struct pda_metric_val *v)
{
	double rel = 0;

	for (unsigned k = 0; k < v->nr_ops; k++) {
		const int ev = find_event(rep, v->op_name[k]);
		double val, sd;
		bool counted;

		if (ev < 0)
			continue; /* the slots-per-cycle constant */
		event_total(rep, (uint32_t)ev, &val, &sd, &counted);
		if (val != 0)
			rel += (sd / val) * (sd / val);
	}
	return sqrt(rel) * fabs(v->value);
}

static void finish(struct pda_statdiff_val *v, bool runs)
{
	const double sd = sqrt(v->a_sd * v->a_sd + v->b_sd * v->b_sd);
	const double d = v->b - v->a;

	v->change = v->in_a && v->in_b && v->a != 0 ? d / fabs(v->a) : NAN;
	v->noise = runs && v->in_a && v->in_b && v->a != 0
			   ? 2.0 * sd / fabs(v->a)
			   : NAN;
	v->significant = runs && v->in_a && v->in_b && sd > 0 &&
			 fabs(d) > 2.0 * sd;
}

static int add_events(const struct pda_stat_report *a,
		      const struct pda_stat_report *b,
		      const struct pd_alloc *alloc, struct pda_statdiff *out)
{
	out->events = pdc_zalloc(alloc, (a->nr_events + b->nr_events + 1) *
						sizeof(*out->events));
	if (!out->events)
		return PD_ERR_NOMEM;
	for (int side = 0; side < 2; side++) {
		const struct pda_stat_report *rep = side ? b : a;

		for (size_t i = 0; i < rep->nr_events; i++) {
			const struct pda_stat_event *e = &rep->events[i];
			struct pda_statdiff_val *v = NULL;
			double val, sd;
			bool counted;

			for (size_t k = 0; k < out->nr_events; k++)
				if (strcmp(out->events[k].name, e->name) == 0)
					v = &out->events[k];
			if (!v) {
				v = &out->events[out->nr_events++];
				v->name = e->name;
				v->unit = e->unit;
			}
			event_total(rep, (uint32_t)i, &val, &sd, &counted);
			if (!counted)
				continue;
			if (side) {
				v->in_b = true;
				v->b = val;
				v->b_sd = sd;
			} else {
				v->in_a = true;
				v->a = val;
				v->a_sd = sd;
			}
		}
	}
	return 0;
}

static void add_metrics(const struct pda_stat_report *rep,
			const struct pda_metrics *m, int side,
			struct pda_statdiff *out)
{
	for (size_t i = 0; i < m->nr; i++) {
		const struct pda_metric_val *mv = &m->v[i];
		struct pda_statdiff_val *v = NULL;

		for (size_t k = 0; k < out->nr_metrics; k++)
			if (strcmp(out->metrics[k].key, mv->key) == 0 &&
			    strcmp(out->metrics[k].group, mv->group) == 0)
				v = &out->metrics[k];
		if (!v) {
			v = &out->metrics[out->nr_metrics++];
			v->key = mv->key;
			v->group = mv->group;
			v->name = mv->label;
			v->unit = mv->percent ? "%" : "";
		}
		if (side) {
			v->in_b = true;
			v->b = mv->value;
			v->b_sd = metric_sd(rep, mv);
		} else {
			v->in_a = true;
			v->a = mv->value;
			v->a_sd = metric_sd(rep, mv);
		}
	}
}

int pda_statdiff_compute(const struct pda_stat_report *a,
			 const struct pd_env *env_a,
			 const struct pda_stat_report *b,
			 const struct pd_env *env_b,
			 const struct pd_alloc *alloc,
			 struct pda_statdiff *out)
{
	struct pda_metrics *m;
	bool runs;
	int rc;

	memset(out, 0, sizeof(*out));
	out->runs_a = a->nr_runs;
	out->runs_b = b->nr_runs;
	runs = a->nr_runs > 1 || b->nr_runs > 1;
	m = pdc_zalloc(alloc, 2 * sizeof(*m));
	out->metrics = pdc_zalloc(alloc, 2 * PDA_METRICS_MAX *
						 sizeof(*out->metrics));
	if (!m || !out->metrics || add_events(a, b, alloc, out) < 0) {
		rc = PD_ERR_NOMEM;
		goto fail;
	}
	if (a->nr_rounds &&
	    (rc = pda_metrics_from_stat(a, env_a, false, alloc, &m[0])) < 0)
		goto fail;
	if (b->nr_rounds &&
	    (rc = pda_metrics_from_stat(b, env_b, false, alloc, &m[1])) < 0)
		goto fail;
	add_metrics(a, &m[0], 0, out);
	add_metrics(b, &m[1], 1, out);
	for (size_t i = 0; i < out->nr_events; i++)
		finish(&out->events[i], runs);
	for (size_t i = 0; i < out->nr_metrics; i++)
		finish(&out->metrics[i], runs);
	pdc_free(alloc, m);
	return 0;
fail:
	pdc_free(alloc, m);
	pda_statdiff_release(out, alloc);
	return rc;
}

void pda_statdiff_release(struct pda_statdiff *sd,
			  const struct pd_alloc *alloc)
{
	pdc_free(alloc, sd->events);
	pdc_free(alloc, sd->metrics);
	memset(sd, 0, sizeof(*sd));
}
