/*
 * pde_stat.c - `pdtool stat`'s writers: the text perf stat report (perf
 * 6.1) prints, byte for byte (util/stat-display.c: its column widths,
 * the metric column of METRIC_LEN, the interval prefix and headers),
 * and the same numbers as JSON and as Markdown.
 */
#include "pde.h"
#include "pda_metrics.h"
#include "pda_sampled.h"
#include "pda_stat.h"
#include "pdc_text.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define METRIC_LEN 35 /* perf's metric column */
#define UNIT_WIDTH 4  /* perf's stat_config.unit_width: strlen("unit") */

/* The width text shows s in (an escaped byte is 4 wide). */
static size_t text_width(const char *s)
{
	size_t n = strlen(s), w = 0;

	while (n) {
		size_t plain = pdc_text_plain(s, n);

		w += plain;
		s += plain;
		n -= plain;
		if (n) {
			w += PDC_TEXT_ESC_LEN;
			s++;
			n--;
		}
	}
	return w;
}

/* s through the text rule, padded with spaces to width on the right
 * (left: on the left), as printf's %-*s (%*s) pads it. */
static void pad(FILE *out, const char *s, size_t width, bool left)
{
	size_t w = text_width(s);

	if (left)
		for (; w < width; w++)
			fputc(' ', out);
	pde_text_puts(out, s);
	if (!left)
		for (; w < width; w++)
			fputc(' ', out);
}

/* perf's aggr_printout() for the std output */
static void aggr_prefix(FILE *out, enum pda_stat_aggr aggr,
			const struct pda_stat_row *r)
{
	switch (aggr) {
	case PDA_STAT_AGGR_CORE:
		fprintf(out, "S%" PRId32 "-D%" PRId32 "-C%-8" PRId32 " %4" PRIu32
			     " ",
			r->socket, r->die, r->core, r->nr);
		break;
	case PDA_STAT_AGGR_DIE:
		fprintf(out, "S%" PRId32 "-D%-8" PRId32 " %4" PRIu32 " ",
			r->socket, r->die, r->nr);
		break;
	case PDA_STAT_AGGR_SOCKET:
		fprintf(out, "S%-5" PRId32 " %4" PRIu32 " ", r->socket, r->nr);
		break;
	case PDA_STAT_AGGR_NODE:
		fprintf(out, "N%-5" PRId32 " %4" PRIu32 " ", r->node, r->nr);
		break;
	case PDA_STAT_AGGR_NONE:
		if (r->cpu > -1)
			fprintf(out, "CPU%-7" PRId32 " ", r->cpu);
		break;
	case PDA_STAT_AGGR_THREAD:
		pad(out, r->comm, 16, true);
		fprintf(out, "-%-8" PRId64 " ", r->pid);
		break;
	case PDA_STAT_AGGR_AS_RECORDED:
	case PDA_STAT_AGGR_GLOBAL:
	case PDA_STAT_AGGR_CLUSTER:
	case PDA_STAT_AGGR_CACHE:
		break;
	}
}

/* A metric's value as perf's format prints it; @return its length. */
static int metric_value(char *buf, size_t size, const struct pda_stat_metric *m)
{
	switch (m->fmt) {
	case PDA_STAT_MF_8_3F:
		return snprintf(buf, size, "%8.3f", m->val);
	case PDA_STAT_MF_7_2F_SP:
		return snprintf(buf, size, "%7.2f ", m->val);
	case PDA_STAT_MF_7_2F_PCT:
		return snprintf(buf, size, "%7.2f%%", m->val);
	case PDA_STAT_MF_8_3F_PCT:
		return snprintf(buf, size, "%8.3f %%", m->val);
	case PDA_STAT_MF_8_1F_PCT:
		return snprintf(buf, size, "%8.1f%%", m->val);
	case PDA_STAT_MF_NONE:
		break;
	}
	buf[0] = 0;
	return 0;
}

struct line {
	FILE *out;
	const char *prefix;
	enum pda_stat_aggr aggr;
};

/* perf's print_metric_std(), with do_new_line_std() before a metric
 * perf puts on a line of its own */
static void text_metric(const struct line *l, const struct pda_stat_row *r,
			const struct pda_stat_metric *m)
{
	char buf[64];
	int n;

	if (m->fmt == PDA_STAT_MF_NONE) {
		fprintf(l->out, "%-*s", METRIC_LEN, "");
		return;
	}
	if (m->newline) {
		fputc('\n', l->out);
		fputs(l->prefix, l->out);
		aggr_prefix(l->out, l->aggr, r);
		if (l->aggr == PDA_STAT_AGGR_NONE)
			fputs("        ", l->out);
		fprintf(l->out, "%49s", "");
	}
	n = 3 + metric_value(buf, sizeof(buf), m);
	fprintf(l->out, " # %s %-*s", buf, METRIC_LEN - n - 1, m->unit);
}

static void text_row(const struct line *l, const struct pda_stat_report *rep,
		     const struct pda_stat_row *r)
{
	const struct pda_stat_event *ev = &rep->events[r->event];
	FILE *out = l->out;

	fputs(l->prefix, out);
	aggr_prefix(out, l->aggr, r);
	if (!r->counted) {
		fprintf(out, "%18s ", "<not counted>");
		pad(out, ev->unit, UNIT_WIDTH, false);
		fputc(' ', out);
		pad(out, ev->name, 25, false);
		fprintf(out, "%-*s", METRIC_LEN, "");
	} else {
		fprintf(out, floor(ev->scale) != ev->scale ? "%18.2f " : "%18.0f ",
			r->uval);
		pad(out, ev->unit, UNIT_WIDTH, false);
		fputc(' ', out);
		pad(out, ev->name, 32, false);
		for (unsigned i = 0; i < r->nr_metrics; i++)
			text_metric(l, r, &r->metric[i]);
		if (r->nr_metrics == 0)
			fprintf(out, "%-*s", METRIC_LEN, "");
	}
	if (rep->nr_runs > 1 && r->noise != 0)
		fprintf(out, "  ( +-%6.2f%% )", r->noise);
	if (rep->sampled && r->counted)
		fprintf(out, "  (%" PRIu64 " sample%s)", r->samples,
			r->samples == 1 ? "" : "s");
	if (r->run != r->ena)
		fprintf(out, "  (%.2f%%)", 100.0 * (double)r->run / (double)r->ena);
	fputc('\n', out);
}

/* perf's print_interval() headers: what comes after "#           time" */
static void interval_header(FILE *out, enum pda_stat_aggr aggr)
{
	const char *cols = "             counts ";

	if (aggr == PDA_STAT_AGGR_NODE)
		cols = " node   cpus             counts ";
	else if (aggr == PDA_STAT_AGGR_SOCKET)
		cols = " socket cpus             counts ";
	else if (aggr == PDA_STAT_AGGR_DIE)
		cols = " die          cpus             counts ";
	else if (aggr == PDA_STAT_AGGR_CORE)
		cols = " core            cpus             counts ";
	else if (aggr == PDA_STAT_AGGR_NONE)
		cols = " CPU                    counts ";
	else if (aggr == PDA_STAT_AGGR_THREAD)
		cols = "             comm-pid                  counts ";
	fprintf(out, "#           time%s%*s events\n", cols, UNIT_WIDTH, "unit");
}

static void text_header(FILE *out, const struct pda_stat_report *rep)
{
	fputs(rep->sampled ? "\n Counter totals estimated from the samples of '"
			   : "\n Performance counter stats for '",
	      out);
	if (!rep->cmdline || rep->nr_cmdline == 0)
		fputs("pipe", out);
	for (uint32_t i = 0; rep->cmdline && i < rep->nr_cmdline; i++) {
		if (i)
			fputc(' ', out);
		pde_text_puts(out, rep->cmdline[i]);
	}
	fputc('\'', out);
	if (rep->nr_runs > 1)
		fprintf(out, " (%u runs)", rep->nr_runs);
	fputs(":\n\n", out);
}

/* perf's get_precision(): 2 more digits than the spread's first */
static int precision(double sd)
{
	if (sd > 1)
		return 0;
	return (int)lround(ceil(-log10(sd)));
}

static void text_footer(FILE *out, const struct pda_stat_report *rep)
{
	double avg = rep->walltime_ns / 1e9;
	const char *what = rep->sampled ? "seconds from the first sample to "
					  "the last"
					: "seconds time elapsed";

	fputc('\n', out);
	if (rep->nr_runs <= 1) {
		fprintf(out, " %17.9f %s", avg, what);
	} else {
		double sd = rep->walltime_sd_ns / 1e9;
		int p = precision(sd) + 2;
		double pct = avg ? 100.0 * sd / avg : 0.0;

		fprintf(out, " %17.*f +- %.*f %s", p, avg, p, sd, what);
		if (pct)
			fprintf(out, "  ( +-%6.2f%% )", pct);
	}
	fputs("\n\n", out);
}

int pde_stat_text(FILE *out, const struct pda_stat_report *rep)
{
	for (size_t k = 0; k < rep->nr_rounds; k++) {
		const struct pda_stat_round *rd = &rep->rounds[k];
		char prefix[64] = "";
		struct line l = {out, prefix, rep->aggr};

		if (rep->interval_ms) {
			snprintf(prefix, sizeof(prefix), "%6" PRIu64 ".%09" PRIu64 " ",
				 rd->time / 1000000000u, rd->time % 1000000000u);
			if (k % 25 == 0)
				interval_header(out, rep->aggr);
		} else {
			text_header(out, rep);
		}
		for (size_t i = 0; i < rd->nr; i++)
			text_row(&l, rep, &rep->rows[rd->first + i]);
		if (!rep->interval_ms)
			text_footer(out, rep);
	}
	return ferror(out) ? PD_ERR_IO : 0;
}

/* ---- derived metrics -------------------------------------------------- */

/* A metric's value as the text and Markdown show it: a fraction in %. */
static void metric_str(char *buf, size_t size, bool percent, double v)
{
	if (percent)
		snprintf(buf, size, "%.2f%%", v * 100.0);
	else
		snprintf(buf, size, "%.3f", v);
}

/* "healthy > 2, investigate < 1" */
static void threshold_str(char *buf, size_t size, const struct pda_metric_val *v)
{
	const struct pda_metric_threshold *t = v->threshold;
	const char *better = t->higher_is_better ? ">" : "<";
	const char *worse = t->higher_is_better ? "<" : ">";
	const char *pct = v->percent ? "%" : "";
	double k = v->percent ? 100.0 : 1.0;

	if (isnan(t->investigate))
		snprintf(buf, size, "near peak %s %g%s", better,
			 t->healthy * k, pct);
	else if (isnan(t->healthy))
		snprintf(buf, size, "investigate %s %g%s", worse,
			 t->investigate * k, pct);
	else
		snprintf(buf, size, "healthy %s %g%s, investigate %s %g%s",
			 better, t->healthy * k, pct, worse,
			 t->investigate * k, pct);
}

int pde_stat_metrics_text(FILE *out, const struct pda_metrics *m,
			  bool verbose)
{
	const char *group = NULL;

	if (m->nr == 0 && !m->note)
		return 0;
	fprintf(out, " pdtool metrics%s (thresholds: man pdtool-stat, METRICS):\n",
		m->estimated ? ", estimated from samples" : "");
	for (size_t i = 0; i < m->nr; i++) {
		const struct pda_metric_val *v = &m->v[i];
		char val[32], thr[96] = "";

		if (!group || strcmp(group, v->group) != 0) {
			group = v->group;
			fprintf(out, "\n   %s", group);
			if (m->slots_from && strcmp(group, "Core") != 0 &&
			    strstr(v->formula, "slots"))
				fprintf(out, " (%g slots a cycle: %s)",
					m->slots_per_cycle, m->slots_from);
			fputc('\n', out);
		}
		metric_str(val, sizeof(val), v->percent, v->value);
		if (v->threshold)
			threshold_str(thr, sizeof(thr), v);
		fprintf(out, "     %-30s %10s  %-11s", v->label, val,
			pda_assess_name(v->assess));
		if (thr[0])
			fprintf(out, "  (%s)", thr);
		fputc('\n', out);
		if (verbose) {
			fprintf(out, "       = %s\n        ", v->formula);
			for (unsigned k = 0; k < v->nr_ops; k++) {
				fputs(k ? ", " : " ", out);
				pde_text_puts(out, v->op_name[k]);
				fprintf(out, " %.0f", v->op_value[k]);
			}
			fputc('\n', out);
		}
	}
	if (m->note)
		fprintf(out, "\n   not computed: %s\n", m->note);
	fputc('\n', out);
	return ferror(out) ? PD_ERR_IO : 0;
}

/* ---- JSON ------------------------------------------------------------ */

static void json_cmdline(struct pde_json *j, uint32_t nr,
			 const char *const *cmdline)
{
	pde_json_begin_array(j, "command_line");
	for (uint32_t i = 0; i < nr; i++)
		pde_json_str(j, NULL, cmdline[i]);
	pde_json_end_array(j);
}

/* The derived metrics m (NULL: none) and the end of the object. */
static void json_derived(struct pde_json *j, const struct pda_metrics *m);
static int json_end(struct pde_json *j, FILE *out, const struct pda_metrics *m)
{
	if (m)
		json_derived(j, m);
	pde_json_end_object(j);
	pde_json_newline(j);
	return ferror(out) ? PD_ERR_IO : 0;
}

/* An event's object, opened, with its name, type and config. */
static void json_event(struct pde_json *j, const char *name,
		       const struct pd_attr *attr)
{
	pde_json_begin_object(j, NULL);
	pde_json_str(j, "name", name);
	pde_json_u64(j, "type", attr->type);
	pde_json_hex(j, "config", attr->config);
}

static void json_derived(struct pde_json *j, const struct pda_metrics *m)
{
	pde_json_begin_object(j, "derived_metrics");
	if (m->estimated)	/* absent: counted, as before it existed */
		pde_json_bool(j, "estimated_from_samples", true);
	if (m->slots_from) {
		pde_json_double(j, "slots_per_cycle", m->slots_per_cycle);
		pde_json_str(j, "slots_from", m->slots_from);
	}
	if (m->note)
		pde_json_str(j, "not_computed", m->note);
	pde_json_begin_array(j, "metrics");
	for (size_t i = 0; i < m->nr; i++) {
		const struct pda_metric_val *v = &m->v[i];

		pde_json_begin_object(j, NULL);
		pde_json_str(j, "key", v->key);
		pde_json_str(j, "label", v->label);
		pde_json_str(j, "group", v->group);
		pde_json_double(j, "value", v->value);
		pde_json_str(j, "unit", v->percent ? "fraction" : "ratio");
		pde_json_str(j, "assessment", pda_assess_name(v->assess));
		if (v->threshold) {
			const struct pda_metric_threshold *t = v->threshold;

			pde_json_begin_object(j, "threshold");
			pde_json_bool(j, "higher_is_better",
				      t->higher_is_better);
			if (isnan(t->healthy))
				pde_json_null(j, "healthy");
			else
				pde_json_double(j, "healthy", t->healthy);
			if (isnan(t->investigate))
				pde_json_null(j, "investigate");
			else
				pde_json_double(j, "investigate",
						t->investigate);
			pde_json_end_object(j);
		}
		pde_json_str(j, "formula", v->formula);
		pde_json_begin_array(j, "inputs");
		for (unsigned k = 0; k < v->nr_ops; k++) {
			pde_json_begin_object(j, NULL);
			pde_json_str(j, "name", v->op_name[k]);
			pde_json_double(j, "value", v->op_value[k]);
			pde_json_end_object(j);
		}
		pde_json_end_array(j);
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
	pde_json_end_object(j);
}

static void json_metric(struct pde_json *j, const struct pda_stat_metric *m)
{
	pde_json_begin_object(j, NULL);
	pde_json_str(j, "unit", m->unit);
	if (m->fmt == PDA_STAT_MF_NONE)
		pde_json_null(j, "value");
	else
		pde_json_double(j, "value", m->val);
	pde_json_end_object(j);
}

/* The aggregate a row counts, as fields of its object. */
static void json_aggr(struct pde_json *j, enum pda_stat_aggr aggr,
		      const struct pda_stat_row *r)
{
	switch (aggr) {
	case PDA_STAT_AGGR_NONE:
		pde_json_i64(j, "cpu", r->cpu);
		break;
	case PDA_STAT_AGGR_THREAD:
		pde_json_str(j, "comm", r->comm);
		pde_json_i64(j, "pid", r->pid);
		break;
	case PDA_STAT_AGGR_NODE:
		pde_json_i64(j, "node", r->node);
		pde_json_u64(j, "cpus", r->nr);
		break;
	case PDA_STAT_AGGR_CORE:
		pde_json_i64(j, "core", r->core);
		/* fall through */
	case PDA_STAT_AGGR_DIE:
		pde_json_i64(j, "die", r->die);
		/* fall through */
	case PDA_STAT_AGGR_SOCKET:
		pde_json_i64(j, "socket", r->socket);
		pde_json_u64(j, "cpus", r->nr);
		break;
	case PDA_STAT_AGGR_AS_RECORDED:
	case PDA_STAT_AGGR_GLOBAL:
	case PDA_STAT_AGGR_CLUSTER:
	case PDA_STAT_AGGR_CACHE:
		break;
	}
}

static void json_row(struct pde_json *j, const struct pda_stat_report *rep,
		     const struct pda_stat_row *r)
{
	const struct pda_stat_event *ev = &rep->events[r->event];

	pde_json_begin_object(j, NULL);
	pde_json_str(j, "event", ev->name);
	json_aggr(j, rep->aggr, r);
	pde_json_bool(j, "counted", r->counted);
	pde_json_u64(j, "count", r->raw);
	pde_json_u64(j, "scaled_count", r->val);
	pde_json_double(j, "value", r->uval);
	pde_json_str(j, "unit", ev->unit);
	pde_json_u64(j, "enabled_ns", r->ena);
	pde_json_u64(j, "running_ns", r->run);
	pde_json_double(j, "running_pct",
			r->ena ? 100.0 * (double)r->run / (double)r->ena : 0.0);
	if (rep->nr_runs > 1)
		pde_json_double(j, "noise_pct", r->noise);
	if (rep->sampled)
		pde_json_u64(j, "samples", r->samples);
	pde_json_begin_array(j, "metrics");
	for (unsigned i = 0; i < r->nr_metrics; i++)
		json_metric(j, &r->metric[i]);
	pde_json_end_array(j);
	pde_json_end_object(j);
}


/* ---- derived metrics per round and aggregate ----------------------- */

/* Whether row i of round rd is the first of its aggregate there: the
 * aggregates in the order perf prints them, each once. */
static bool first_of_aggr(const struct pda_stat_report *rep,
			  const struct pda_stat_round *rd, size_t i)
{
	const struct pda_stat_row *r = &rep->rows[rd->first + i];

	for (size_t k = 0; k < i; k++)
		if (pda_stat_same_aggregate(&rep->rows[rd->first + k], r))
			return false;
	return true;
}

/* The interval's time as perf prefixes its lines ("" without -I). */
static void time_prefix(char *buf, size_t size,
			const struct pda_stat_report *rep,
			const struct pda_stat_round *rd)
{
	buf[0] = '\0';
	if (rep->interval_ms)
		snprintf(buf, size, "%6" PRIu64 ".%09" PRIu64 " ",
			 rd->time / 1000000000u, rd->time % 1000000000u);
}

bool pde_stat_by_wanted(const struct pda_stat_report *rep)
{
	return rep->interval_ms || (rep->aggr != PDA_STAT_AGGR_GLOBAL &&
				    rep->aggr != PDA_STAT_AGGR_AS_RECORDED);
}

/* One metric of an aggregate of a round, for a writer; first: the
 * first metric written (a header goes before it). */
typedef void (*by_line_fn)(FILE *out, const struct pda_stat_report *rep,
			   const struct pda_stat_round *rd,
			   const struct pda_stat_row *agg,
			   const struct pda_metric_val *v, bool first);

/* The metrics of one aggregate (agg's) of round rd, for a writer. */
typedef void (*by_aggr_fn)(void *w, const struct pda_stat_report *rep,
			   const struct pda_stat_round *rd,
			   const struct pda_stat_row *agg,
			   const struct pda_metrics *m);

/* Each aggregate of rounds [from, to), in perf's order, to fn(); @return
 * 0 or a negative pd_err of by. */
static int walk_aggrs(void *w, const struct pda_stat_report *rep,
		      const struct pde_stat_by *by, size_t from, size_t to,
		      by_aggr_fn fn)
{
	int rc;

	for (size_t k = from; k < to; k++) {
		const struct pda_stat_round *rd = &rep->rounds[k];

		for (size_t i = 0; i < rd->nr; i++) {
			const struct pda_stat_row *r = &rep->rows[rd->first + i];
			struct pda_metrics m;

			if (!first_of_aggr(rep, rd, i))
				continue;
			if ((rc = by->fn(by->arg, k, r, &m)) < 0)
				return rc;
			fn(w, rep, rd, r, &m);
		}
	}
	return 0;
}

/* walk_aggrs()'s state for a writer of a line per metric */
struct by_lines {
	FILE *out;
	by_line_fn line;
	bool any;
};

static void lines_of(void *w, const struct pda_stat_report *rep,
		     const struct pda_stat_round *rd,
		     const struct pda_stat_row *agg, const struct pda_metrics *m)
{
	struct by_lines *bl = w;

	for (size_t v = 0; v < m->nr; v++, bl->any = true)
		bl->line(bl->out, rep, rd, agg, &m->v[v], !bl->any);
}

/* Each metric of each aggregate of each round to line(); @return
 * whether any was, or a negative pd_err of by. */
static int walk_by(FILE *out, const struct pda_stat_report *rep,
		   const struct pde_stat_by *by, by_line_fn line)
{
	struct by_lines bl = {out, line, false};
	int rc = walk_aggrs(&bl, rep, by, 0, rep->nr_rounds, lines_of);

	return rc < 0 ? rc : bl.any;
}

static void text_by_line(FILE *out, const struct pda_stat_report *rep,
			 const struct pda_stat_round *rd,
			 const struct pda_stat_row *agg,
			 const struct pda_metric_val *v, bool first)
{
	char prefix[64], val[32];

	if (first)
		fprintf(out, " pdtool metrics per %s:\n\n",
			rep->interval_ms && rep->aggr != PDA_STAT_AGGR_GLOBAL
				? "interval and aggregate"
			: rep->interval_ms ? "interval"
					   : "aggregate");
	time_prefix(prefix, sizeof(prefix), rep, rd);
	metric_str(val, sizeof(val), v->percent, v->value);
	fputs(prefix, out);
	aggr_prefix(out, rep->aggr, agg);
	fprintf(out, "%-30s %10s", v->label, val);
	if (v->assess != PDA_ASSESS_NONE)
		fprintf(out, "  %s", pda_assess_name(v->assess));
	fputc('\n', out);
}

int pde_stat_by_text(FILE *out, const struct pda_stat_report *rep,
		     const struct pde_stat_by *by)
{
	int rc = walk_by(out, rep, by, text_by_line);

	if (rc < 0)
		return rc;
	if (rc)
		fputc('\n', out);
	return ferror(out) ? PD_ERR_IO : 0;
}

/* One aggregate's object in a round's "derived_metrics": its fields and
 * each metric's key, value and assessment. */
static void json_by_aggr(void *w, const struct pda_stat_report *rep,
			 const struct pda_stat_round *rd,
			 const struct pda_stat_row *agg,
			 const struct pda_metrics *m)
{
	struct pde_json *j = w;

	(void)rd;
	pde_json_begin_object(j, NULL);
	json_aggr(j, rep->aggr, agg);
	pde_json_begin_array(j, "metrics");
	for (size_t v = 0; v < m->nr; v++) {
		pde_json_begin_object(j, NULL);
		pde_json_str(j, "key", m->v[v].key);
		pde_json_double(j, "value", m->v[v].value);
		pde_json_str(j, "assessment", pda_assess_name(m->v[v].assess));
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
	pde_json_end_object(j);
}

/* "derived_metrics" of each aggregate of round k */
static int json_by(struct pde_json *j, const struct pda_stat_report *rep,
		   size_t k, const struct pde_stat_by *by)
{
	int rc;

	pde_json_begin_array(j, "derived_metrics");
	rc = walk_aggrs(j, rep, by, k, k + 1, json_by_aggr);
	pde_json_end_array(j);
	return rc;
}

/* What a sampling capture's event (smp: its totals) was estimated from,
 * as fields of its object. */
static void json_sampled_event(struct pde_json *j,
			       const struct pda_sampled_event *ev);

/* pde_stat_json(), and with smp (not NULL) each event's sampled totals */
static int json_stat(FILE *out, const struct pda_stat_report *rep,
		     const struct pda_sampled_report *smp,
		     const struct pda_metrics *m, const struct pde_stat_by *by)
{
	struct pde_json j;
	int rc;

	pde_json_init(&j, out, false);
	pde_json_begin_object(&j, NULL);
	if (rep->sampled) {
		pde_json_str(&j, "source", "samples");
		if (smp)
			pde_json_u64(&j, "samples", smp->nr_samples);
		/* kept from before the runs: the first to last sample */
		if (rep->walltime_ns != 0)
			pde_json_u64(&j, "sampled_ns",
				     (uint64_t)llround(rep->walltime_ns));
	}
	pde_json_str(&j, "aggregation", pda_stat_aggr_name(rep->aggr));
	pde_json_u64(&j, "interval_ms", rep->interval_ms);
	pde_json_bool(&j, "scaled", rep->scale);
	pde_json_u64(&j, "runs", rep->nr_runs);
	pde_json_double(&j, "elapsed_ns", rep->walltime_ns);
	if (rep->nr_runs > 1)
		pde_json_double(&j, "elapsed_sd_ns", rep->walltime_sd_ns);
	json_cmdline(&j, rep->cmdline ? rep->nr_cmdline : 0, rep->cmdline);
	pde_json_begin_array(&j, "events");
	for (size_t i = 0; i < rep->nr_events; i++) {
		const struct pda_stat_event *ev = &rep->events[i];

		json_event(&j, ev->name, &ev->attr);
		pde_json_str(&j, "unit", ev->unit);
		pde_json_double(&j, "scale", ev->scale);
		if (smp && i < smp->nr_events)
			json_sampled_event(&j, &smp->events[i]);
		pde_json_end_object(&j);
	}
	pde_json_end_array(&j);
	pde_json_begin_array(&j, "rounds");
	for (size_t k = 0; k < rep->nr_rounds; k++) {
		const struct pda_stat_round *rd = &rep->rounds[k];

		pde_json_begin_object(&j, NULL);
		pde_json_u64(&j, "time_ns", rd->time);
		pde_json_bool(&j, "final", rd->final);
		pde_json_begin_array(&j, "counts");
		for (size_t i = 0; i < rd->nr; i++)
			json_row(&j, rep, &rep->rows[rd->first + i]);
		pde_json_end_array(&j);
		if (by && (rc = json_by(&j, rep, k, by)) < 0)
			return rc;
		pde_json_end_object(&j);
	}
	pde_json_end_array(&j);
	return json_end(&j, out, m);
}

int pde_stat_json(FILE *out, const struct pda_stat_report *rep,
		  const struct pda_metrics *m, const struct pde_stat_by *by)
{
	return json_stat(out, rep, NULL, m, by);
}

/* ---- Markdown -------------------------------------------------------- */

static void md_aggr_cell(FILE *out, enum pda_stat_aggr aggr,
			 const struct pda_stat_row *r)
{
	switch (aggr) {
	case PDA_STAT_AGGR_NONE:
		fprintf(out, " CPU%" PRId32 " |", r->cpu);
		break;
	case PDA_STAT_AGGR_THREAD:
		fputc(' ', out);
		pde_md_text(out, r->comm, strlen(r->comm));
		fprintf(out, "-%" PRId64 " |", r->pid);
		break;
	case PDA_STAT_AGGR_SOCKET:
		fprintf(out, " S%" PRId32 " (%" PRIu32 " CPUs) |", r->socket,
			r->nr);
		break;
	case PDA_STAT_AGGR_DIE:
		fprintf(out, " S%" PRId32 "-D%" PRId32 " (%" PRIu32 " CPUs) |",
			r->socket, r->die, r->nr);
		break;
	case PDA_STAT_AGGR_CORE:
		fprintf(out,
			" S%" PRId32 "-D%" PRId32 "-C%" PRId32 " (%" PRIu32
			" CPUs) |",
			r->socket, r->die, r->core, r->nr);
		break;
	case PDA_STAT_AGGR_NODE:
		fprintf(out, " N%" PRId32 " (%" PRIu32 " CPUs) |", r->node, r->nr);
		break;
	case PDA_STAT_AGGR_AS_RECORDED:
	case PDA_STAT_AGGR_GLOBAL:
	case PDA_STAT_AGGR_CLUSTER:
	case PDA_STAT_AGGR_CACHE:
		break;
	}
}

static void md_row(FILE *out, const struct pda_stat_report *rep,
		   const struct pda_stat_row *r)
{
	const struct pda_stat_event *ev = &rep->events[r->event];
	char buf[64];

	fputc('|', out);
	md_aggr_cell(out, rep->aggr, r);
	fputc(' ', out);
	pde_md_code(out, ev->name, strlen(ev->name), true);
	if (!r->counted)
		fputs(" | not counted |", out);
	else
		fprintf(out, floor(ev->scale) != ev->scale ? " | %.2f |" : " | %.0f |",
			r->uval);
	fputc(' ', out);
	pde_md_text(out, ev->unit, strlen(ev->unit));
	fputs(" |", out);
	for (unsigned i = 0; i < r->nr_metrics; i++) {
		const struct pda_stat_metric *m = &r->metric[i];

		if (m->fmt == PDA_STAT_MF_NONE)
			continue;
		metric_value(buf, sizeof(buf), m);
		fprintf(out, "%s %s", i ? ";" : "", buf + strspn(buf, " "));
		fputc(' ', out);
		pde_md_text(out, m->unit, strlen(m->unit));
	}
	if (rep->sampled)
		fprintf(out, " | %" PRIu64 " |", r->samples);
	else if (r->ena && r->run != r->ena)
		fprintf(out, " | %.2f%% |", 100.0 * (double)r->run / (double)r->ena);
	else
		fputs(" | 100% |", out);
	if (rep->nr_runs > 1)
		fprintf(out, " ±%.2f%% |", r->noise);
	fputc('\n', out);
}

/* The command line as one code span (cut at 4 KiB, as no reader of a
 * report wants more). */
static void md_cmdline(FILE *out, uint32_t nr_cmdline,
		       const char *const *cmdline)
{
	char buf[4096];
	size_t n = 0;

	for (uint32_t i = 0; i < nr_cmdline && n < sizeof(buf) - 1; i++) {
		int w = snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "",
				 cmdline[i]);

		if (w < 0)
			break;
		n += (size_t)w < sizeof(buf) - n ? (size_t)w : sizeof(buf) - 1 - n;
	}
	pde_md_code(out, buf, n, false);
}

static void md_derived(FILE *out, const struct pda_metrics *m)
{
	if (m->nr == 0 && !m->note)
		return;
	fprintf(out, "\n## Derived metrics%s\n\n",
		m->estimated ? ", estimated from samples" : "");
	if (m->slots_from)
		fprintf(out, "Slot-based metrics: %g slots a cycle, from %s.\n\n",
			m->slots_per_cycle, m->slots_from);
	if (m->nr)
		fputs("| group | metric | value | assessment | thresholds | "
		      "formula |\n|---|---|---:|---|---|---|\n",
		      out);
	for (size_t i = 0; i < m->nr; i++) {
		const struct pda_metric_val *v = &m->v[i];
		char val[32], thr[96] = "";

		metric_str(val, sizeof(val), v->percent, v->value);
		if (v->threshold)
			threshold_str(thr, sizeof(thr), v);
		fputs("| ", out);
		pde_md_text(out, v->group, strlen(v->group));
		fputs(" | ", out);
		pde_md_text(out, v->label, strlen(v->label));
		fprintf(out, " | %s | %s | ", val, pda_assess_name(v->assess));
		pde_md_text(out, thr, strlen(thr));
		fputs(" | ", out);
		pde_md_code(out, v->formula, strlen(v->formula), true);
		fputs(" |\n", out);
	}
	if (m->note) {
		fputs("\nNot computed: ", out);
		pde_md_text(out, m->note, strlen(m->note));
		fputs("\n", out);
	}
}

/* A row of the "Derived metrics per ..." table: a row per round,
 * aggregate and metric. */
static void md_by_line(FILE *out, const struct pda_stat_report *rep,
		       const struct pda_stat_round *rd,
		       const struct pda_stat_row *agg,
		       const struct pda_metric_val *v, bool first)
{
	const bool aggr_col = rep->aggr != PDA_STAT_AGGR_GLOBAL;
	char val[32];

	if (first)
		fprintf(out, "\n## Derived metrics per %s\n\n|%s%s metric | "
			     "value | assessment |\n|%s%s---|---:|---|\n",
			rep->interval_ms ? "interval" : "aggregate",
			rep->interval_ms ? " time |" : "",
			aggr_col ? " aggregate |" : "",
			rep->interval_ms ? "---:|" : "", aggr_col ? "---|" : "");
	metric_str(val, sizeof(val), v->percent, v->value);
	fputc('|', out);
	if (rep->interval_ms)
		fprintf(out, " %" PRIu64 ".%09" PRIu64 " |",
			rd->time / 1000000000u, rd->time % 1000000000u);
	if (aggr_col)
		md_aggr_cell(out, rep->aggr, agg);
	fputc(' ', out);
	pde_md_text(out, v->label, strlen(v->label));
	fprintf(out, " | %s | %s |\n", val, pda_assess_name(v->assess));
}

int pde_stat_md(FILE *out, const struct pda_stat_report *rep,
		const struct pda_metrics *m, const struct pde_stat_by *by)
{
	int rc;

	static const char *const sep[] = {"", "---|"};

	fputs(rep->sampled ? "## Counters, estimated from samples\n\n"
			   : "## Counters\n\n",
	      out);
	fputs("Command: ", out);
	if (!rep->cmdline || rep->nr_cmdline == 0)
		fputs("(not recorded)", out);
	else
		md_cmdline(out, rep->nr_cmdline, rep->cmdline);
	fprintf(out, "  \nAggregation: %s", pda_stat_aggr_name(rep->aggr));
	if (rep->nr_runs > 1)
		fprintf(out, "; %u runs: mean and the spread of the mean",
			rep->nr_runs);
	if (rep->walltime_ns != 0)
		fprintf(out, rep->sampled ? "  \nFirst sample to last: %.9f s"
					  : "  \nTime elapsed: %.9f s",
			rep->walltime_ns / 1e9);
	fputs("\n", out);
	for (size_t k = 0; k < rep->nr_rounds; k++) {
		const struct pda_stat_round *rd = &rep->rounds[k];
		bool aggr_col = rep->aggr != PDA_STAT_AGGR_GLOBAL;

		if (rep->interval_ms)
			fprintf(out, "\n### %" PRIu64 ".%09" PRIu64 " s\n",
				rd->time / 1000000000u, rd->time % 1000000000u);
		fprintf(out, "\n|%s event | count | unit | metrics | %s |%s\n",
			aggr_col ? " aggregate |" : "",
			rep->sampled ? "samples" : "running",
			rep->nr_runs > 1 ? " spread |" : "");
		fprintf(out, "|%s---|---:|---|---|---:|%s\n", sep[aggr_col],
			rep->nr_runs > 1 ? "---:|" : "");
		for (size_t i = 0; i < rd->nr; i++)
			md_row(out, rep, &rep->rows[rd->first + i]);
	}
	if (m)
		md_derived(out, m);
	if (by && (rc = walk_by(out, rep, by, md_by_line)) < 0)
		return rc;
	return ferror(out) ? PD_ERR_IO : 0;
}

/* ---- sampling captures (pda_sampled.h) ------------------------------ */

/* What an event's estimate comes from. */
static const char *sampled_source(const struct pda_sampled_event *ev)
{
	if (ev->from_reads)
		return "group reads";
	return ev->nr_samples ? "period sum" : "not sampled";
}

static void json_sampled_event(struct pde_json *j,
			       const struct pda_sampled_event *ev)
{
	pde_json_u64(j, "samples", ev->nr_samples);
	pde_json_u64(j, "period_sum", ev->period);
	pde_json_u64(j, "reads", ev->nr_reads);
	pde_json_u64(j, "read_total", ev->read_total);
	pde_json_u64(j, "count", ev->count);
	pde_json_bool(j, "counted", ev->nr_samples || ev->nr_reads);
	pde_json_str(j, "from", sampled_source(ev));
}

int pde_sampled_json(FILE *out, const struct pda_stat_report *rep,
		     const struct pda_sampled_report *smp,
		     const struct pda_metrics *m, const struct pde_stat_by *by)
{
	return json_stat(out, rep, smp, m, by);
}
