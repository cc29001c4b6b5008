/*
 * pde_statdiff.c - `pdtool diff A.stat B.stat`'s table: each event's and
 * each derived metric's value before and after, the change and its
 * noise (twice the standard deviation of the difference, from the runs
 * of each side), and whether the change is past the noise.
 */
#include "pde.h"
#include "pda_statdiff.h"

#include <math.h>
#include <string.h>

/* v in a 16-wide column: a count as an integer, a fraction as %, else
 * with 3 decimals; "-" when the side lacks it. */
static void value(FILE *out, const struct pda_statdiff_val *v, bool in,
		  double x, bool metric)
{
	if (!in)
		fprintf(out, " %16s", "-");
	else if (metric && strcmp(v->unit, "%") == 0)
		fprintf(out, " %15.2f%%", x * 100.0);
	else if (metric || strcmp(v->unit, "msec") == 0)
		fprintf(out, " %16.3f", x);
	else
		fprintf(out, " %16.0f", x);
}

static void rows(FILE *out, const struct pda_statdiff_val *vals, size_t nr,
		 bool metric)
{
	for (size_t i = 0; i < nr; i++) {
		const struct pda_statdiff_val *v = &vals[i];

		value(out, v, v->in_a, v->a, metric);
		value(out, v, v->in_b, v->b, metric);
		if (isnan(v->change))
			fprintf(out, " %9s", "-");
		else
			fprintf(out, " %+8.2f%%", v->change * 100.0);
		if (isnan(v->noise))
			fprintf(out, " %9s", "-");
		else
			fprintf(out, " %8.2f%%", v->noise * 100.0);
		fprintf(out, " %-5s  ",
			isnan(v->noise)	 ? ""
			: v->significant ? "yes"
					 : "no");
		pde_text_puts(out, v->name);
		if (metric && v->group)
			fprintf(out, " [%s]", v->group);
		if (!metric && v->unit[0])
			fprintf(out, " (%s)", v->unit);
		fputc('\n', out);
	}
}

int pde_statdiff_text(FILE *out, const struct pda_statdiff *sd,
		      const char *label_a, const char *label_b)
{
	fputs("# A: ", out);
	pde_text_puts(out, label_a);
	fprintf(out, " (%u run%s)\n# B: ", sd->runs_a, sd->runs_a == 1 ? "" : "s");
	pde_text_puts(out, label_b);
	fprintf(out, " (%u run%s)\n", sd->runs_b, sd->runs_b == 1 ? "" : "s");
	if (sd->runs_a < 2 && sd->runs_b < 2)
		fputs("# one run a side: no noise estimate (give several "
		      "runs a side: A1 A2 -- B1 B2)\n",
		      out);
	else
		fputs("# noise: twice the standard deviation of B - A, from "
		      "each side's spread of the mean; real: the change is "
		      "past it\n",
		      out);
	fprintf(out, "#\n# %15s %16s %9s %9s %-5s  %s\n", "A", "B", "change",
		"noise", "real", "event");
	rows(out, sd->events, sd->nr_events, false);
	if (sd->nr_metrics) {
		fprintf(out, "#\n# %15s %16s %9s %9s %-5s  %s\n", "A", "B",
			"change", "noise", "real", "metric");
		rows(out, sd->metrics, sd->nr_metrics, true);
	}
	return ferror(out) ? PD_ERR_IO : 0;
}

/* ---- JSON ------------------------------------------------------------ */

static void json_num(struct pde_json *j, const char *key, bool in, double v)
{
	if (!in || isnan(v))
		pde_json_null(j, key);
	else
		pde_json_double(j, key, v);
}

static void json_vals(struct pde_json *j, const char *key,
		      const struct pda_statdiff_val *vals, size_t nr)
{
	pde_json_begin_array(j, key);
	for (size_t i = 0; i < nr; i++) {
		const struct pda_statdiff_val *v = &vals[i];

		pde_json_begin_object(j, NULL);
		pde_json_str(j, "name", v->name);
		if (v->key)
			pde_json_str(j, "key", v->key);
		if (v->group)
			pde_json_str(j, "group", v->group);
		pde_json_str(j, "unit", v->unit);
		pde_json_bool(j, "in_a", v->in_a);
		pde_json_bool(j, "in_b", v->in_b);
		json_num(j, "a", v->in_a, v->a);
		json_num(j, "b", v->in_b, v->b);
		json_num(j, "a_sd", v->in_a, v->a_sd);
		json_num(j, "b_sd", v->in_b, v->b_sd);
		json_num(j, "change", true, v->change);
		json_num(j, "noise", true, v->noise);
		if (isnan(v->noise))
			pde_json_null(j, "significant");
		else
			pde_json_bool(j, "significant", v->significant);
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
}

int pde_statdiff_json(FILE *out, const struct pda_statdiff *sd,
		      const char *label_a, const char *label_b)
{
	struct pde_json j;

	pde_json_init(&j, out, false);
	pde_json_begin_object(&j, NULL);
	pde_json_begin_object(&j, "a");
	pde_json_str(&j, "label", label_a);
	pde_json_u64(&j, "runs", sd->runs_a);
	pde_json_end_object(&j);
	pde_json_begin_object(&j, "b");
	pde_json_str(&j, "label", label_b);
	pde_json_u64(&j, "runs", sd->runs_b);
	pde_json_end_object(&j);
	json_vals(&j, "events", sd->events, sd->nr_events);
	json_vals(&j, "metrics", sd->metrics, sd->nr_metrics);
	pde_json_end_object(&j);
	pde_json_newline(&j);
	return ferror(out) ? PD_ERR_IO : 0;
}
