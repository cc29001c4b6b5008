/*
 * pde_doc.c - the profile report (`pdtool report --format md|json`):
 * one function per section, each fed by an analysis (the capture's
 * header, pda_report's histogram, pda_metrics, pda_stat, pda_branch, the
 * session's statistics), each written only when its data is there and
 * saying which capture and events it comes from.  A later analysis
 * (Memory, Data types) is a function of its own added to sections[].
 * The writer (pde_docw.c) makes the same sections Markdown or JSON.
 */
#include "pde_doc_int.h"
#include "pda_branch.h"
#include "pda_dthist.h"
#include "pda_mem.h"
#include "pda_metrics.h"
#include "pda_report.h"
#include "pda_session.h"
#include "pda_stat.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define LINE_MAX_LEN 4096

/* ---- helpers ----------------------------------------------------------- */

/* The capture's events, comma-separated, into buf. */
static const char *event_list(const struct pd_file *f, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; f && i < pd_file_nr_evsels(f) && n < size; i++) {
		int w = snprintf(buf + n, size - n, "%s%s", i ? ", " : "",
				 pd_file_evsel(f, i)->name);

		if (w < 0)
			break;
		n += (size_t)w;
	}
	return buf;
}

static bool is_cache_metric(const char *key)
{
	static const char *const keys[] = {
		"l1d_miss_rate",  "l1d_to_l2_rate", "l2_miss_rate",
		"l2_to_llc_rate", "dtlb_walk_rate", "itlb_walk_rate",
		"llc_miss_rate",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

static void stat_source(struct docw *w, const struct pde_doc *d,
			const char *what)
{
	char paths[1024] = "";
	char events[LINE_MAX_LEN] = "";
	size_t n = 0;

	for (size_t i = 0; i < d->nr_stat_paths && n < sizeof(paths); i++) {
		int k = snprintf(paths + n, sizeof(paths) - n, "%s%s",
				 i ? ", " : "", d->stat_paths[i]);

		if (k < 0)
			break;
		n += (size_t)k;
	}
	n = 0;
	for (size_t i = 0; i < d->stat->nr_events && n < sizeof(events); i++) {
		int k = snprintf(events + n, sizeof(events) - n, "%s%s",
				 i ? ", " : "", d->stat->events[i].name);

		if (k < 0)
			break;
		n += (size_t)k;
	}
	docw_source(w,
		    "%s of %s (perf stat record, %u run%s; the whole run's "
		    "counts of %s).",
		    what, paths, d->stat->nr_runs, d->stat->nr_runs == 1 ? "" : "s",
		    events);
}

static void sampled_source(struct docw *w, const struct pde_doc *d,
			   const char *what)
{
	char events[LINE_MAX_LEN];
	bool reads = false;

	for (size_t i = 0; i < pd_file_nr_evsels(d->file); i++)
		reads |= (pd_file_evsel(d->file, i)->attr.sample_type &
			  PD_SAMPLE_READ) != 0;
	docw_source(w, "%s of %s: each event's sampled periods summed%s (%s).",
		    what, d->capture,
		    reads ? ", or what its counter grew by over the samples' "
			    "group reads"
			  : "",
		    event_list(d->file, events, sizeof(events)));
}

/* ---- Environment --------------------------------------------------------- */

static void sampling_mode(const struct pd_evsel *ev, char *buf, size_t size)
{
	const struct pd_attr *a = &ev->attr;
	const uint64_t st = a->sample_type;
	int n;

	if (PD_ATTR_HAS(a, freq))
		n = snprintf(buf, size, "%" PRIu64 " Hz", a->sample_period);
	else
		n = snprintf(buf, size, "every %" PRIu64 " events",
			     a->sample_period);
	if (n < 0 || (size_t)n >= size)
		return;
	if ((st & PD_SAMPLE_REGS_USER) && (st & PD_SAMPLE_STACK_USER) &&
	    a->sample_stack_user)
		snprintf(buf + n, size - (size_t)n,
			 "; call graph: DWARF, %" PRIu32 "-byte stacks",
			 a->sample_stack_user);
	else if (st & PD_SAMPLE_CALLCHAIN)
		snprintf(buf + n, size - (size_t)n, "; call graph: %s",
			 (st & PD_SAMPLE_BRANCH_STACK) ? "callchain, LBR"
						       : "frame pointers");
	n = (int)strlen(buf);
	if ((st & PD_SAMPLE_BRANCH_STACK) && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "; branch stacks");
}

static void cmdline_text(const struct pd_env *env, struct pdc_strbuf *b)
{
	for (uint32_t i = 0; i < env->nr_cmdline; i++) {
		if (i)
			pdc_strbuf_add(b, " ", 1);
		docw_shell_arg(b, env->cmdline[i]);
	}
}

static void sec_environment(struct docw *w, const struct pde_doc *d)
{
	const struct pd_env *env = d->env;
	char buf[LINE_MAX_LEN];

	if (!env && !d->file)
		return;
	docw_section(w, "environment", "Environment");
	docw_source(w, "From the header of %s (perf's feature sections) and "
		       "its records.",
		    d->capture);
	if (env) {
		if (pda_cpu_model(env, buf, sizeof(buf)))
			docw_field(w, "cpu", "CPU", buf);
		if (env->cpuid)
			docw_field(w, "cpuid", "CPUID", env->cpuid);
		if (env->arch)
			docw_field(w, "arch", "Architecture", env->arch);
		if (env->status[PD_FEAT_NRCPUS] == PD_ENV_OK) {
			snprintf(buf, sizeof(buf), "%" PRIu32 " online of %" PRIu32,
				 env->nr_cpus_online, env->nr_cpus_avail);
			docw_field(w, "cores", "Cores", buf);
		}
		if (env->total_mem_kb) {
			snprintf(buf, sizeof(buf), "%.1f GiB",
				 (double)env->total_mem_kb / (1024.0 * 1024.0));
			docw_field(w, "memory", "Memory", buf);
		}
		if (env->os_release)
			docw_field(w, "kernel", "Kernel", env->os_release);
		if (env->version)
			docw_field(w, "perf_version", "perf version",
				   env->version);
		if (env->nr_cmdline) {
			struct pdc_strbuf b;

			pdc_strbuf_init(&b, NULL, buf, sizeof(buf));
			cmdline_text(env, &b);
			docw_field(w, "command_line", "Command line",
				   pdc_strbuf_str(&b));
			pdc_strbuf_release(&b);
		}
	}
	if (d->capture_bytes)
		docw_field_u64(w, "capture_bytes", "Capture size",
			       d->capture_bytes, "bytes");
	if (env && env->status[PD_FEAT_SAMPLE_TIME] == PD_ENV_OK &&
	    env->last_sample_time >= env->first_sample_time) {
		snprintf(buf, sizeof(buf), "%.3f s",
			 (double)(env->last_sample_time -
				  env->first_sample_time) / 1e9);
		docw_field(w, "duration", "Duration (first to last sample)",
			   buf);
	}
	if (d->has_counts) {
		docw_field_u64(w, "samples", "Samples", d->counts.nr_samples,
			       NULL);
		docw_field_u64(w, "lost_samples", "Lost samples",
			       d->counts.lost, NULL);
	}
	if (d->file && pd_file_nr_evsels(d->file)) {
		static const char *const heads[] = {"Event", "Sampling"};
		static const char *const keys[] = {"event", "sampling"};

		docw_table(w, "events", 2, heads, keys, "ll");
		for (size_t i = 0; i < pd_file_nr_evsels(d->file); i++) {
			const struct pd_evsel *ev = pd_file_evsel(d->file, i);

			sampling_mode(ev, buf, sizeof(buf));
			docw_row(w);
			docw_cell_code(w, ev->name);
			docw_cell_text(w, buf);
			docw_row_end(w);
		}
		docw_table_end(w);
	}
	docw_section_end(w);
}

/* ---- Topdown summary and Cache hierarchy --------------------------------- */

static void threshold_text(const struct pda_metric_val *v, char *buf,
			   size_t size)
{
	const struct pda_metric_threshold *t = v->threshold;
	const double k = v->percent ? 100.0 : 1.0;
	const char *pct = v->percent ? "%" : "";
	const char *better = t && t->higher_is_better ? ">" : "<";
	const char *worse = t && t->higher_is_better ? "<" : ">";
	int n = 0;

	buf[0] = '\0';
	if (!t)
		return;
	if (!isnan(t->healthy))
		n = snprintf(buf, size, "healthy %s %g%s", better,
			     t->healthy * k, pct);
	if (n >= 0 && (size_t)n < size && !isnan(t->investigate))
		snprintf(buf + n, size - (size_t)n, "%sinvestigate %s %g%s",
			 n ? "; " : "", worse, t->investigate * k, pct);
}

static void metrics_table(struct docw *w, const char *key,
			  const struct pda_metrics *m)
{
	static const char *const heads[] = {"Group", "Metric", "Value",
					    "Assessment", "Thresholds",
					    "Formula"};
	static const char *const keys[] = {"group",	 "metric",
					   "value",	 "assessment",
					   "thresholds", "formula"};
	char thr[128];

	docw_table(w, key, 6, heads, keys, "llrlll");
	for (size_t i = 0; i < m->nr; i++) {
		const struct pda_metric_val *v = &m->v[i];

		if (is_cache_metric(v->key))
			continue;
		threshold_text(v, thr, sizeof(thr));
		docw_row(w);
		docw_cell_text(w, v->group);
		docw_cell_text(w, v->label);
		docw_cell_scaled(w, v->value, v->percent ? 100.0 : 1.0, 2,
				 v->percent ? "%" : "");
		docw_cell_text(w, pda_assess_name(v->assess));
		docw_cell_text(w, thr);
		docw_cell_code(w, v->formula);
		docw_row_end(w);
	}
	docw_table_end(w);
}

static size_t count_metrics(const struct pda_metrics *m, bool cache)
{
	size_t n = 0;

	for (size_t i = 0; m && i < m->nr; i++)
		n += is_cache_metric(m->v[i].key) == cache;
	return n;
}

/* The metrics worth a look, as one sentence. */
static void findings(struct docw *w, const struct pda_metrics *m, bool cache)
{
	char buf[LINE_MAX_LEN];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < m->nr && n < sizeof(buf); i++) {
		const struct pda_metric_val *v = &m->v[i];
		int k;

		if (is_cache_metric(v->key) != cache ||
		    v->assess != PDA_ASSESS_INVESTIGATE)
			continue;
		k = snprintf(buf + n, sizeof(buf) - n, "%s%s (%s) %.2f%s",
			     n ? ", " : "", v->label, v->group,
			     v->value * (v->percent ? 100.0 : 1.0),
			     v->percent ? "%" : "");
		if (k < 0)
			break;
		n += (size_t)k;
	}
	if (n)
		docw_note(w, "Worth a look: %s.", buf);
	else
		docw_note(w, "No metric is past its investigate threshold.");
}

static void cache_table(struct docw *w, const char *key,
			const struct pda_metrics *m)
{
	static const char *const heads[] = {"Level",  "Accesses", "Misses",
					    "Miss rate", "Assessment",
					    "Events"};
	static const char *const keys[] = {"level",    "accesses",
					   "misses",   "miss_rate",
					   "assessment", "events"};
	char ev[256];

	docw_table(w, key, 6, heads, keys, "lrrrll");
	for (size_t i = 0; i < m->nr; i++) {
		const struct pda_metric_val *v = &m->v[i];

		if (!is_cache_metric(v->key) || v->nr_ops < 2)
			continue;
		snprintf(ev, sizeof(ev), "%s / %s", v->op_name[0],
			 v->op_name[1]);
		docw_row(w);
		docw_cell_text(w, v->label);
		docw_cell_num(w, v->op_value[1], 0, NULL);
		docw_cell_num(w, v->op_value[0], 0, NULL);
		docw_cell_scaled(w, v->value, 100.0, 2, "%");
		docw_cell_text(w, pda_assess_name(v->assess));
		docw_cell_code(w, ev);
		docw_row_end(w);
	}
	docw_table_end(w);
}

/* The metrics of one kind (cache or not) of the stat captures and of
 * the sampled periods, each source with its table and findings. */
static void metrics_section(struct docw *w, const struct pde_doc *d,
			    bool cache)
{
	const struct pda_metrics *const from[3] = {d->stat_metrics,
						   d->sampled, d->spe_cache};
	static const char *const keys[2][3] = {
		{"stat_metrics", "sampled_metrics", "spe_metrics"},
		{"stat_levels", "sampled_levels", "spe_levels"}};
	const char *what = cache ? "Cache and TLB counters" : "Counters";
	bool any = false;

	for (size_t i = 0; i < 3; i++)
		any |= count_metrics(from[i], cache) > 0;
	if (!any)
		return;
	if (cache)
		docw_section(w, "cache", "Cache hierarchy");
	else
		docw_section(w, "topdown", "Topdown summary");
	for (size_t i = 0; i < 3; i++) {
		const struct pda_metrics *m = from[i];

		if (!count_metrics(m, cache))
			continue;
		if (i == 0)
			stat_source(w, d, what);
		else if (i == 2)
			docw_source(w,
				    "The Arm SPE trace of %s: of its sampled "
				    "operations, those each level served or "
				    "missed, from the events synthesized "
				    "from it (each operation counts once in "
				    "every event it is in); rates of sampled "
				    "operations, not of every access.",
				    d->capture);
		else
			sampled_source(w, d, cache ? "Cache and TLB events"
						   : "Sampled events");
		if (!cache && m->slots_from)
			docw_note(w, "Slot-based metrics: %g slots a cycle, from %s.",
				  m->slots_per_cycle, m->slots_from);
		if (!cache && m->note)
			docw_note(w, "%s", m->note);
		if (cache)
			cache_table(w, keys[1][i], m);
		else
			metrics_table(w, keys[0][i], m);
		findings(w, m, cache);
	}
	docw_section_end(w);
}

static void sec_topdown(struct docw *w, const struct pde_doc *d)
{
	metrics_section(w, d, false);
}

static void sec_cache(struct docw *w, const struct pde_doc *d)
{
	metrics_section(w, d, true);
}

/* ---- Hotspots ---------------------------------------------------------- */

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* "file.c:LINE": a srcline with a line, not perf's "sym+OFF" or "??:0" */
static bool has_line(const char *s)
{
	const char *colon = s ? strrchr(s, ':') : NULL;

	return colon && colon[1] && strncmp(s, "??", 2) != 0 &&
	       strspn(colon + 1, "0123456789") == strlen(colon + 1);
}

/* The hottest source line of function (dso, sym) in table t of the
 * report by dso,sym,srcline: its rows are sorted by period. */
static const char *hottest_line(const struct pda_report *lines, size_t t,
				const struct pda_report_entry *fn)
{
	const struct pda_report_table *tab;

	if (!lines || t >= pda_report_nr_tables(lines))
		return NULL;
	tab = pda_report_table(lines, t);
	for (size_t i = 0; i < tab->nr_rows; i++) {
		const struct pda_report_entry *e =
			pda_report_entry(lines, tab->rows[i]);

		if (e->level == fn->level && same(e->dso, fn->dso) &&
		    same(e->sym, fn->sym) && (e->sym || e->addr == fn->addr))
			return has_line(e->srcline) ? e->srcline : NULL;
	}
	return NULL;
}

/* The Hotspots' ratio columns, after the six fixed ones: as many as a
 * table holds. */
#define HOT_COLS 6
#define HOT_RATIOS (DOCW_MAX_COLS - HOT_COLS)

/* Ratio r of row id, as report --ratios computes it; in JSON a percent
 * ratio is a fraction, as the shares are. */
static void ratio_cell(struct docw *w, const struct pda_report *rep,
		       const struct pda_ratio *r, uint32_t id)
{
	const double v = pde_report_ratio(rep, r, id);

	if (isnan(v)) {
		docw_cell_none(w);
		return;
	}
	docw_cell_scaled(w, r->percent ? v / 100.0 : v,
			 r->percent ? 100.0 : 1.0, 2, r->percent ? "%" : "");
}

/* A row's function (its address without a symbol) and module cells, as
 * the Hotspots and Latency tables show them. */
static void fn_cell(struct docw *w, const struct pda_report_entry *e)
{
	char name[64];

	if (e->sym) {
		docw_cell_code(w, e->sym);
	} else {
		snprintf(name, sizeof(name), "%#" PRIx64, e->addr);
		docw_cell_code(w, name);
	}
	docw_cell_code(w, e->dso ? e->dso : "[unknown]");
}

static void sec_hotspots(struct docw *w, const struct pde_doc *d)
{
	const char *heads[DOCW_MAX_COLS] = {"#",	"Self",	  "Samples",
					    "Function", "Module", "Hottest line"};
	const char *keys[DOCW_MAX_COLS] = {"rank",     "self_share",
					   "samples",  "function",
					   "module",   "hottest_line"};
	char align[DOCW_MAX_COLS + 1] = "rrrlll";
	const size_t nr_ratios = d->nr_ratios < HOT_RATIOS ? d->nr_ratios
							    : HOT_RATIOS;
	size_t nr;

	nr = d->hot ? pda_report_nr_tables(d->hot) : 0;
	if (!nr)
		return;
	for (size_t r = 0; r < nr_ratios; r++) {
		heads[HOT_COLS + r] = d->ratios[r].label;
		keys[HOT_COLS + r] = d->ratios[r].key;
		align[HOT_COLS + r] = 'r';
	}
	docw_section(w, "hotspots", "Hotspots");
	for (size_t t = 0; t < nr; t++) {
		const struct pda_report_table *tab = pda_report_table(d->hot, t);
		const size_t rows = tab->nr_rows < d->top ? tab->nr_rows : d->top;

		docw_source(w,
			    "Event %s of %s: %" PRIu64 " samples, period %" PRIu64
			    "; the top %zu functions by self share (perf "
			    "report --no-children -s dso,sym)%s.",
			    tab->event, d->capture, tab->nr_samples,
			    tab->total_period, rows,
			    nr_ratios ? "; each function's counter ratios "
					"from its sampled periods (pdtool "
					"report --ratios)"
				      : "");
		if (w->json) {
			/* the source's numbers, for scripts */
			docw_field(w, "event", "Event", tab->event);
			docw_field_u64(w, "samples", "Samples", tab->nr_samples,
				       NULL);
			docw_field_u64(w, "period", "Period", tab->total_period,
				       NULL);
		}
		docw_table(w, "functions", (unsigned)(HOT_COLS + nr_ratios),
			   heads, keys, align);
		for (size_t i = 0; i < rows; i++) {
			const uint32_t id = tab->rows[i];
			const struct pda_report_entry *e =
				pda_report_entry(d->hot, id);
			const struct pda_report_val *v =
				pda_report_val(d->hot, tab->members[0], id);
			const char *line = hottest_line(d->hot_lines, t, e);

			docw_row(w);
			docw_cell_u64(w, i + 1);
			docw_cell_scaled(w,
					 tab->total_period
						 ? (double)v->period /
							   (double)tab->total_period
						 : 0.0,
					 100.0, 2, "%");
			docw_cell_u64(w, v->samples);
			fn_cell(w, e);
			if (line)
				docw_cell_code(w, line);
			else
				docw_cell_none(w);
			for (size_t r = 0; r < nr_ratios; r++)
				ratio_cell(w, d->hot, &d->ratios[r], id);
			docw_row_end(w);
		}
		docw_table_end(w);
	}
	docw_section_end(w);
}

/* ---- Branch hotspots --------------------------------------------------- */

/* "sym+0xOFF (dso)", the DSO by its file name as perf report shows it */
static void branch_end(char *buf, size_t size, const struct pda_branch_loc *l)
{
	const char *slash = l->dso ? strrchr(l->dso, '/') : NULL;
	const char *dso = slash ? slash + 1 : l->dso ? l->dso : "[unknown]";

	if (l->missing) /* a BRBE half record's missing end */
		snprintf(buf, size, "(not recorded)");
	else if (l->sym)
		snprintf(buf, size, "%s+%#" PRIx64 " (%s)", l->sym, l->sym_off,
			 dso);
	else
		snprintf(buf, size, "%#" PRIx64 " (%s)", l->addr, dso);
}

/* "demo.c:55": a branch end's source line, the file by its last
 * component; "" when it has none */
static void branch_line(char *buf, size_t size, const struct pda_branch_loc *l)
{
	const char *slash = l->srcfile ? strrchr(l->srcfile, '/') : NULL;

	if (l->srcfile && l->line)
		snprintf(buf, size, "%s:%u", slash ? slash + 1 : l->srcfile,
			 l->line);
	else
		buf[0] = '\0';
}

static void sec_branches(struct docw *w, const struct pde_doc *d)
{
	static const char *const heads[] = {"#",	"From",
					    "To",	"Count",
					    "Share",	"Mispredicted",
					    "Type",	"Cycles",
					    "Source lines"};
	static const char *const keys[] = {"rank",	     "from",
					   "to",	     "count",
					   "share",	     "mispredict_rate",
					   "type",	     "cycles_avg",
					   "source_lines"};
	const struct pda_branch_totals *t =
		d->branches ? pda_branch_totals(d->branches) : NULL;
	size_t rows;
	char from[1024], to[1024], lfrom[512], lto[512], lines[1100];

	if (!t || !t->nr_entries)
		return;
	rows = pda_branch_nr_rows(d->branches);
	if (rows > d->top)
		rows = d->top;
	docw_section(w, "branches", "Branch hotspots");
	if (d->branches_event)
		docw_source(w,
			    "The %s samples synthesized from the Arm SPE "
			    "trace of %s: %" PRIu64 " sampled branches (the "
			    "sampled operation's PC to its target), by "
			    "symbol, most first (pdtool script --itrace=b).",
			    d->branches_event, d->capture, t->nr_entries);
	else
		docw_source(w,
			    "The branch stacks of %s: %" PRIu64 " taken branches "
			    "in %" PRIu64 " stacks, by symbol, most mispredicted "
			    "first (pdtool branches); cycles are the average of "
			    "the basic blocks ending at the branch, where the "
			    "hardware counts them.",
			    d->capture, t->nr_entries, t->nr_stacks);
	if (d->branches_event && t->mispred == t->nr_entries)
		docw_note(w, "Every one was mispredicted: SPE samples a "
			     "branch as branch-miss only then, so the rows "
			     "rank the mispredictions, not their rate.");
	else if (d->branches_event)
		docw_note(w, "Every sampled branch, mispredicted or not (perf "
			     "7's branch event, whose samples do not say "
			     "which): the rows are by count.");
	else if (t->with_pred)
		docw_note(w, "Mispredicted: %.2f%% of the %" PRIu64
			     " branches whose prediction the hardware "
			     "recorded.",
			  100.0 * (double)t->mispred / (double)t->with_pred,
			  t->with_pred);
	else
		docw_note(w, "The hardware recorded no prediction outcome: "
			     "the rows are by count.");
	if (!t->with_cycles && !d->branches_event)
		docw_note(w, "The hardware recorded no cycles (AMD's LBR and "
			     "BRS, Haswell's LBR count none).");
	docw_table(w, "branches", 9, heads, keys, "rllrrrlrl");
	for (size_t i = 0; i < rows; i++) {
		const struct pda_branch_row *r = pda_branch_row(d->branches, i);

		branch_end(from, sizeof(from), &r->from);
		branch_end(to, sizeof(to), &r->to);
		branch_line(lfrom, sizeof(lfrom), &r->from);
		branch_line(lto, sizeof(lto), &r->to);
		snprintf(lines, sizeof(lines), "%s -> %s",
			 lfrom[0] ? lfrom : "?", lto[0] ? lto : "?");
		docw_row(w);
		docw_cell_u64(w, i + 1);
		docw_cell_code(w, from);
		docw_cell_code(w, to);
		docw_cell_u64(w, r->count);
		docw_cell_scaled(w, (double)r->count / (double)t->nr_entries,
				 100.0, 2, "%");
		if (r->with_pred)
			docw_cell_scaled(w,
					 (double)r->mispred / (double)r->with_pred,
					 100.0, 2, "%");
		else
			docw_cell_none(w);
		docw_cell_text(w, r->type ? pda_branch_type_name(r->type) : "");
		if (r->with_cycles)
			docw_cell_num(w,
				      (double)r->cycles / (double)r->with_cycles,
				      1, "");
		else
			docw_cell_none(w);
		if (lfrom[0] || lto[0])
			docw_cell_code(w, lines);
		else
			docw_cell_none(w);
		docw_row_end(w);
	}
	docw_table_end(w);
	docw_section_end(w);
}

/* ---- Data types -------------------------------------------------------- */

/* The hottest member of t (the deepest row with most period, the type's
 * own row left out), or NULL. */
static const struct pda_dthist_row *hottest(const struct pda_dthist_type *t)
{
	const struct pda_dthist_row *best = NULL;

	for (size_t i = 1; i < t->nr_rows; i++) {
		const struct pda_dthist_row *r = &t->rows[i];

		/* a nested member's samples are its parent's too: the
		 * later (deeper) row wins a tie */
		if (r->period && (!best || r->period >= best->period))
			best = r;
	}
	return best;
}

static void sec_types(struct docw *w, const struct pde_doc *d)
{
	static const char *const heads[] = {"Type",	"Binary",
					    "Event",	"Samples",
					    "Share",	"Hottest member",
					    "Member share"};
	static const char *const keys[] = {"type",    "dso",	  "event",
					   "samples", "share",	  "member",
					   "member_share"};
	const size_t nr = d->types ? pda_dthist_nr(d->types) : 0;
	uint64_t total = 0;
	size_t rows = nr < d->top ? nr : d->top;

	if (!nr || !d->type_coverage)
		return;
	for (size_t k = 0; k < d->nr_type_why; k++)
		total += d->type_coverage[k];
	docw_section(w, "data_types", "Data types");
	docw_source(w,
		    "The data types the sampled instructions of %s load or "
		    "store, by binary and type, most period first; a share "
		    "is of the period of the event's samples attributed to a "
		    "type; a member's, of its type's (pdtool annotate "
		    "--data-type).",
		    d->capture);
	docw_note(w, "%" PRIu64 " of %" PRIu64 " samples attributed to a type.",
		  d->type_coverage[0], total);
	docw_table(w, "types", 7, heads, keys, "lllrrlr");
	for (size_t i = 0; i < rows; i++) {
		const struct pda_dthist_type *t = pda_dthist_type(d->types, i);
		const struct pda_dthist_row *m = hottest(t);
		uint64_t ev_period = 0;
		char name[1024];

		for (size_t k = 0; k < nr; k++) {
			const struct pda_dthist_type *o =
				pda_dthist_type(d->types, k);

			if (o->event == t->event)
				ev_period += o->period;
		}
		docw_row(w);
		docw_cell_code(w, t->type);
		docw_cell_code(w, t->dso);
		docw_cell_text(w, t->event < pd_file_nr_evsels(d->file)
					  ? pd_file_evsel(d->file, t->event)->name
					  : "?");
		docw_cell_u64(w, t->samples);
		docw_cell_scaled(w,
				 ev_period ? (double)t->period / (double)ev_period
					   : 0.0,
				 100.0, 2, "%");
		if (m) {
			snprintf(name, sizeof(name), "+%#" PRIx64 " %s",
				 (uint64_t)m->offset, m->name ? m->name : "");
			docw_cell_code(w, name);
			docw_cell_scaled(w,
					 t->period ? (double)m->period /
							     (double)t->period
						   : 0.0,
					 100.0, 2, "%");
		} else {
			docw_cell_none(w);
			docw_cell_none(w);
		}
		docw_row_end(w);
	}
	docw_table_end(w);
	docw_section_end(w);
}

/* ---- Memory ------------------------------------------------------------ */

/* The memory samples (data_src) by the level that served them, as pdtool
 * mem's level view ranks them: most latency first. */
static void sec_memory(struct docw *w, const struct pde_doc *d)
{
	static const char *const heads[] = {"Level",	"Samples", "Loads",
					    "Stores",	"Latency share",
					    "Average latency", "p90"};
	static const char *const keys[] = {"level",   "samples", "loads",
					   "stores",  "weight_share",
					   "avg_latency", "p90"};
	const struct pda_mem_totals *t = d->mem ? pda_mem_totals(d->mem) : NULL;
	const size_t nr = d->mem ? pda_mem_nr_rows(d->mem, PDA_MEM_LEVEL) : 0;

	if (!t || !t->nr_samples || !nr)
		return;
	docw_section(w, "memory", "Memory");
	if (d->mem_event)
		docw_source(w,
			    "The samples of event %s synthesized from the Arm "
			    "SPE trace of %s (each sampled load and store "
			    "once), by the level that served each access, "
			    "most latency (perf's weight) first (pdtool mem "
			    "--view level).",
			    d->mem_event, d->capture);
	else
		docw_source(w,
			    "The samples of %s that carry a data source "
			    "(PERF_SAMPLE_DATA_SRC: PEBS, IBS, Arm SPE's "
			    "synthesized ones), by the level that served "
			    "each access, most latency (perf's weight) first "
			    "(pdtool mem --view level).",
			    d->capture);
	docw_note(w,
		  "%" PRIu64 " memory samples: %" PRIu64 " loads, %" PRIu64
		  " stores, %" PRIu64 " with a data address.",
		  t->nr_samples, t->loads, t->stores, t->with_addr);
	docw_table(w, "levels", 7, heads, keys, "lrrrrrr");
	for (size_t i = 0; i < nr && i < d->top; i++) {
		const struct pda_mem_row *r =
			pda_mem_row(d->mem, PDA_MEM_LEVEL, i);
		char level[256];

		pde_data_src_field(r->key, "LVL", level, sizeof(level));
		docw_row(w);
		docw_cell_text(w, level[0] ? level : "N/A");
		docw_cell_u64(w, r->samples);
		docw_cell_u64(w, r->loads);
		docw_cell_u64(w, r->stores);
		docw_cell_scaled(w,
				 t->weight ? (double)r->weight /
						     (double)t->weight
					   : 0.0,
				 100.0, 2, "%");
		if (r->with_weight) {
			docw_cell_num(w,
				      (double)r->weight /
					      (double)r->with_weight,
				      1, "");
			docw_cell_u64(w, r->p90);
		} else {
			docw_cell_none(w);
			docw_cell_none(w);
		}
		docw_row_end(w);
	}
	docw_table_end(w);
	docw_section_end(w);
}

/* ---- Latency ----------------------------------------------------------- */

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

/* Where wall-clock time went: the functions by latency beside their CPU
 * share, and the time at each parallelism level (perf >= 6.15's report
 * --latency and -s parallelism). */
static void sec_latency(struct docw *w, const struct pde_doc *d)
{
	static const char *const fheads[] = {"#", "Latency", "CPU",
					     "Samples", "Function", "Module"};
	static const char *const fkeys[] = {"rank",	"latency_share",
					    "cpu_share", "samples",
					    "function", "module"};
	static const char *const lheads[] = {"Parallelism", "Samples", "CPU",
					     "Latency"};
	static const char *const lkeys[] = {"parallelism", "samples",
					    "cpu_share", "latency_share"};
	const struct pda_report_table *tab;
	uint64_t nr, period, latency, lat_sum = 0;
	size_t rows;

	if (!d->latency || !pda_report_nr_tables(d->latency))
		return;
	tab = pda_report_table(d->latency, 0);
	pda_report_event_totals(d->latency, tab->members[0], &nr, &period);
	latency = pda_report_event_latency(d->latency, tab->members[0]);
	rows = tab->nr_rows < d->top ? tab->nr_rows : d->top;
	docw_section(w, "latency", "Latency");
	docw_source(w,
		    "Event %s of %s, each sample's period divided by how many "
		    "of the workload's threads ran when it was taken (from "
		    "the context-switch records), as perf >= 6.15's report "
		    "--latency weighs it: serial phases, which decide "
		    "wall-clock time, weigh more than parallel ones.  The top "
		    "%zu functions by latency (pdtool report --latency "
		    "--no-children -s dso,sym) beside their CPU share, and "
		    "the time at each parallelism level (-s parallelism).",
		    tab->event, d->capture, rows);
	docw_table(w, "functions", 6, fheads, fkeys, "rrrrll");
	for (size_t i = 0; i < rows; i++) {
		const uint32_t id = tab->rows[i];
		const struct pda_report_entry *e =
			pda_report_entry(d->latency, id);
		const struct pda_report_val *v =
			pda_report_val(d->latency, tab->members[0], id);

		docw_row(w);
		docw_cell_u64(w, i + 1);
		docw_cell_scaled(w, share(v->latency, latency), 100.0, 2, "%");
		docw_cell_scaled(w, share(v->period, period), 100.0, 2, "%");
		docw_cell_u64(w, v->samples);
		fn_cell(w, e);
		docw_row_end(w);
	}
	docw_table_end(w);
	for (unsigned l = 1; l <= d->nr_levels; l++)
		lat_sum += d->level_latency[l];
	docw_table(w, "parallelism", 4, lheads, lkeys, "rrrr");
	for (unsigned l = 1; l <= d->nr_levels; l++) {
		if (!d->level_samples[l])
			continue;
		docw_row(w);
		docw_cell_u64(w, l);
		docw_cell_u64(w, d->level_samples[l]);
		docw_cell_scaled(w, share(d->level_period[l], period), 100.0,
				 2, "%");
		docw_cell_scaled(w,
				 share(d->level_latency[l], lat_sum),
				 100.0, 2, "%");
		docw_row_end(w);
	}
	docw_table_end(w);
	docw_section_end(w);
}

/* ---- the report -------------------------------------------------------- */

static void sec_flame(struct docw *w, const struct pde_doc *d)
{
	if (!d->flame)
		return;
	docw_section(w, "flame_graph", "Flame graph");
	docw_source(w, "The stacks of %s's first event, folded as pdtool "
		       "flame folds them.",
		    d->capture);
	docw_link(w, "file", "File", d->flame);
	docw_section_end(w);
}

typedef void (*section_fn)(struct docw *w, const struct pde_doc *d);

static const section_fn sections[] = {
	sec_environment,  sec_topdown,	     sec_hotspots,
	sec_latency,	  sec_cache,	     sec_branches,	sec_memory,
	sec_types,	  pde_doc_coverage,
	pde_doc_validation, sec_flame,
};

static int write_doc(FILE *out, const struct pde_doc *d, bool json, bool html)
{
	struct docw w;

	if (html)
		docw_init_html(&w, out, "Profile report");
	else
		docw_init(&w, out, json, "Profile report");
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		sections[i](&w, d);
	return docw_finish(&w);
}

int pde_doc_md(FILE *out, const struct pde_doc *d)
{
	return write_doc(out, d, false, false);
}

int pde_doc_json(FILE *out, const struct pde_doc *d)
{
	return write_doc(out, d, true, false);
}

int pde_doc_html(FILE *out, const struct pde_doc *d)
{
	return write_doc(out, d, false, true);
}
