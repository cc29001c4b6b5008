/*
 * cmd_report_doc.c - `pdtool report --format md|json -o DIR`: the
 * profile report.  One run of the capture feeds perf report's histogram
 * (by dso,sym for the hotspots, and by dso,sym,srcline for each one's
 * hottest line), the branch aggregation when the capture has branch
 * stacks, the data types the samples access (annotate --data-type's
 * histogram), and each event's sampled periods or group reads (the
 * derived metrics, as pdtool stat estimates them from samples); the
 * --stat captures are read as `pdtool stat` reads them; the flame graph
 * is folded as `pdtool flame` folds it.  emit/pde_doc.c writes the
 * sections.  It is report's format rather than a command of its own
 * because the hotspots are report's tables and its options (symbols,
 * unwinding, -j) apply unchanged.
 */
#include "pdtool.h"
#include "pda_branch.h"
#include "pda_mem.h"
#include "pda_capture.h"
#include "pda_dthist.h"
#include "pda_flame.h"
#include "pda_itrace.h"
#include "pda_metrics.h"
#include "pda_parallel.h"
#include "pda_profile.h"
#include "pda_report.h"
#include "pda_sampled.h"
#include "pda_session.h"
#include "pda_stat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct doc_run {
	struct pd_ctx *ctx;
	const char *path;
	struct pda_session *s;
	struct pda_report *hot, *lines;
	struct pda_branch *br;
	struct pda_mem *mem;		/* the Memory section; NULL: no
					 * event has a data source */
	bool synth_seen;		/* the synthesized events looked at */
	const struct pda_itrace_opts *itrace; /* --itrace; NULL: none */
	const struct pd_evsel *spe_br_ev; /* without branch stacks, an SPE
					   * trace's branch-miss (or perf
					   * 7's branch) event: the Branch
					   * hotspots' samples */
	uint64_t spe_by_kind[PDA_ITRACE_NR_KINDS]; /* samples synthesized
						    * per kind */
	const struct pd_evsel *spe_ev[PDA_ITRACE_NR_KINDS]; /* NULL: none */
	bool spe_br_mispred;		/* its samples are mispredictions
					 * (perf 6.1's set); perf 7's
					 * branch: outcome unknown */
	const struct pd_evsel *mem_ev;	/* an SPE trace's "memory": the
					 * only event mem reads; NULL: all */
	struct pda_datatype *dt;	/* the Data types section */
	struct pda_dthist *types;
	struct pda_capture c;
	struct pda_sampled *sampled; /* each event's periods, group reads */
	/* the Latency section (a capture with switch records): the first
	 * event's samples with their latencies, and per parallelism level */
	struct pda_parallel *par;
	const struct pd_evsel *first;
	struct pda_report *lat;
	uint64_t *lvl_samples, *lvl_period, *lvl_latency; /* [nr_lvl + 1] */
	unsigned nr_lvl;
};

/*
 * The events the capture's Arm SPE trace was synthesized into, known once
 * the run began: their samples carry data sources too, and each load or
 * store is a sample of every event it counts in (l1d-access, llc-miss,
 * ...), so the Memory section reads the "memory" event's (each once, as
 * pdtool mem does by default) when --itrace made it, else every one.
 */
static int synth_events(struct doc_run *r)
{
	const struct pda_itrace *it = pda_capture_itrace(&r->c);

	r->synth_seen = true;
	if (!it)
		return 0;
	r->mem_ev = pda_itrace_evsel(it, PDA_ITRACE_MEMORY);
	if (!r->br &&
	    (r->spe_br_ev = pda_itrace_evsel(it, PDA_ITRACE_BRANCH_MISS))) {
		PDA_BRANCH_OPTS(bo, .by = PDA_BRANCH_BY_SYM);
		int rc = pda_branch_new(r->s, &bo, &r->br);

		if (rc < 0)
			return rc;
		r->spe_br_mispred = !(r->itrace && r->itrace->perf7);
	}
	if (r->mem)
		return 0;
	if (pda_mem_new(r->s, &r->mem) < 0)
		return PD_ERR_NOMEM;
	pda_mem_views(r->mem, 1u << PDA_MEM_LEVEL);
	return 0;
}

/* The first event's sample at its parallelism: into the Latency
 * section's report and level counts.  A system-wide capture (perf
 * refuses its latency) or a run in one pass (a pipe) has none. */
static int doc_latency(struct doc_run *r, const struct pda_pipe_item *it)
{
	unsigned level;
	uint64_t latency;
	int rc;

	if (!it->when || pda_parallel_stats(r->par)->nr_cpu_wide ||
	    it->sample->evsel != r->first)
		return 0;
	if ((rc = pda_parallel_at(r->par, it->when, &level)) < 0)
		return rc;
	latency = pda_parallel_latency(it->sample->period, level);
	if (level <= r->nr_lvl) {
		r->lvl_samples[level]++;
		r->lvl_period[level] += it->sample->period;
		r->lvl_latency[level] += latency;
	}
	return pda_report_add_latency(r->lat, it->sample, it->stack, it->comm,
				      NULL, latency, level);
}

static int doc_order(void *arg, const struct pd_rec *rec,
		     const struct pda_pipe_when *when)
{
	struct doc_run *r = arg;

	return pda_parallel_note(r->par, rec, when);
}

static int doc_one(void *arg, const struct pda_pipe_item *it)
{
	struct doc_run *r = arg;
	int rc;

	rc = pda_sampled_add(r->sampled, it->sample, PDA_SAMPLED_NO_OFFSET);
	if (rc < 0)
		return pda_capture_set_err(&r->c, rc, "'%s': %s", r->path,
					   pda_sampled_errmsg(r->sampled));
	rc = pda_report_add(r->hot, it->sample, it->stack, it->comm, NULL);
	if (rc == 0)
		rc = pda_report_add(r->lines, it->sample, it->stack, it->comm,
				    NULL);
	if (rc == 0 && !r->synth_seen)
		rc = synth_events(r);
	if (rc == 0 && r->spe_br_ev) {
		if (it->sample->evsel == r->spe_br_ev)
			rc = pda_branch_add_sampled(r->br, it->sample, it->comm,
						    r->spe_br_mispred);
	} else if (rc == 0 && r->br) {
		rc = pda_branch_add(r->br, it->sample, it->comm);
	}
	if (rc == 0 && r->mem && (it->sample->mask & PD_SAMPLE_DATA_SRC) &&
	    (!r->mem_ev || it->sample->evsel == r->mem_ev))
		rc = pda_mem_add(r->mem, it->sample);
	if (rc == 0 && r->lat)
		rc = doc_latency(r, it);
	if (rc == 0) {
		const struct pda_datatype_res *res;

		rc = pda_datatype_sample(r->dt, it->sample, it->stack, &res);
		if (rc == 0)
			rc = pda_dthist_add(r->types, it->sample, res);
	}
	return rc < 0 ? rc : 0;
}

static int doc_skip(void *arg, enum pda_capture_skip what, const char *why)
{
	struct doc_run *r = arg;

	cmd_capture_skip_warn(r->ctx, &r->c, r->path, what, why);
	return 0;
}

static struct pda_report *new_hist(struct pd_ctx *ctx, const struct pd_file *f,
				   const enum pda_report_key *keys,
				   unsigned nr_keys, unsigned flags)
{
	PDA_REPORT_OPTS(ro, .keys = keys, .nr_keys = nr_keys, .file = f,
			.flags = flags);
	struct pda_report *rep;
	int rc = pda_report_new(&ro, &rep);

	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	return rep;
}

static bool has_sample_bit(const struct pd_file *f, uint64_t bit)
{
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
		if (pd_file_evsel(f, i)->attr.sample_type & bit)
			return true;
	return false;
}


/* The miss rates an SPE trace's synthesized events give (each a pair of
 * a miss event and its access event, both synthesized), into *m. */
static void spe_cache(const struct doc_run *r, struct pda_metrics *m)
{
	static const struct {
		enum pda_itrace_kind miss, access;
		const char *key, *label, *formula;
	} rates[] = {
		{PDA_ITRACE_L1D_MISS, PDA_ITRACE_L1D_ACCESS, "l1d_miss_rate",
		 "L1d miss rate", "l1d-miss / l1d-access"},
		{PDA_ITRACE_LLC_MISS, PDA_ITRACE_LLC_ACCESS, "llc_miss_rate",
		 "LLC miss rate", "llc-miss / llc-access"},
		{PDA_ITRACE_TLB_MISS, PDA_ITRACE_TLB_ACCESS, "dtlb_walk_rate",
		 "dTLB walk rate", "tlb-miss / tlb-access"},
	};

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		const uint64_t miss = r->spe_by_kind[rates[i].miss];
		const uint64_t access = r->spe_by_kind[rates[i].access];
		struct pda_metric_val *v = &m->v[m->nr];

		if (!r->spe_ev[rates[i].miss] || !r->spe_ev[rates[i].access] ||
		    !access)
			continue;
		v->key = rates[i].key;
		v->label = rates[i].label;
		v->group = "Arm SPE";
		v->formula = rates[i].formula;
		v->percent = true;
		v->value = (double)miss / (double)access;
		v->nr_ops = 2;
		v->op_name[0] = r->spe_ev[rates[i].miss]->name;
		v->op_value[0] = (double)miss;
		v->op_name[1] = r->spe_ev[rates[i].access]->name;
		v->op_value[1] = (double)access;
		m->nr++;
	}
	m->estimated = true;
}

/* The capture's run into r; the session's statistics into *ps. */
static void run_capture(struct pd_ctx *ctx, const struct cmd_report_doc *a,
			struct pd_file *f, struct pda_session *s,
			struct doc_run *r)
{
	static const enum pda_report_key fn_keys[] = {PDA_REPORT_DSO,
						      PDA_REPORT_SYM};
	static const enum pda_report_key line_keys[] = {
		PDA_REPORT_DSO, PDA_REPORT_SYM, PDA_REPORT_SRCLINE};
	struct cmd_progress prog;
	struct pda_filter flt;
	PDA_FILTER_OPTS(fo, .flags = PDA_FILTER_TRACEPOINTS);
	PDA_CAPTURE_OPTS(co, .filter = &flt, .jobs = a->jobs, .ip_stacks = true,
			 .itrace = a->itrace, .sample_fn = doc_one, .skip_fn = doc_skip,
			 .progress = cmd_progress_fn, .progress_arg = &prog,
			 .arg = r);
	int rc;

	r->s = s;
	r->itrace = a->itrace;
	/* a stream's events and tracing data, for the sections they decide */
	cmd_pipe_prologue(ctx, a->path, f);
	r->hot = new_hist(ctx, f, fn_keys, 2, 0);
	if (pda_datatype_new(s, &r->dt) < 0 ||
	    pda_dthist_new(r->dt, &r->types) < 0)
		die(ctx, "out of memory");
	r->lines = new_hist(ctx, f, line_keys, 3, 0);
	if (pda_parallel_recorded(f) && pd_file_nr_evsels(f)) {
		if (pda_parallel_new(f, NULL, &r->par) < 0)
			die(ctx, "out of memory");
		r->nr_lvl = pda_parallel_stats(r->par)->nr_cpus;
		r->nr_lvl = r->nr_lvl ? r->nr_lvl : 1;
		r->lvl_samples = calloc(r->nr_lvl + 1, sizeof(uint64_t));
		r->lvl_period = calloc(r->nr_lvl + 1, sizeof(uint64_t));
		r->lvl_latency = calloc(r->nr_lvl + 1, sizeof(uint64_t));
		if (!r->lvl_samples || !r->lvl_period || !r->lvl_latency)
			die(ctx, "out of memory");
		r->first = pd_file_evsel(f, 0);
		r->lat = new_hist(ctx, f, fn_keys, 2, PDA_REPORT_LATENCY);
		co.order_fn = doc_order;
	}
	if (has_sample_bit(f, PD_SAMPLE_BRANCH_STACK)) {
		PDA_BRANCH_OPTS(bo, .by = PDA_BRANCH_BY_SYM);

		if ((rc = pda_branch_new(s, &bo, &r->br)) < 0)
			die(ctx, "%s", pd_strerror(rc));
	}
	if (has_sample_bit(f, PD_SAMPLE_DATA_SRC)) {
		if (pda_mem_new(s, &r->mem) < 0)
			die(ctx, "out of memory");
		/* the Memory section is the level rows' */
		pda_mem_views(r->mem, 1u << PDA_MEM_LEVEL);
	}
	if (pda_sampled_new(f, NULL, &r->sampled) < 0)
		die(ctx, "out of memory");
	if (pda_filter_init(&flt, &fo) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_API));
	if ((rc = pda_capture_init(&r->c, f, s, &co)) < 0)
		cmd_capture_die(ctx, a->path, &r->c, rc);
	cmd_progress_init(&prog, ctx);
	rc = pda_capture_run(&r->c);
	cmd_progress_end(&prog);
	if (rc < 0)
		cmd_capture_die(ctx, a->path, &r->c, rc);
	cmd_check_kind_synth(ctx, a->path, f, &pda_capture_stats(&r->c)->reader,
			     pda_capture_stats(&r->c)->nr_samples,
			     pda_capture_itrace(&r->c));
	if (pda_capture_itrace(&r->c)) {
		const struct pda_itrace *it = pda_capture_itrace(&r->c);

		for (int k = 0; k < PDA_ITRACE_NR_KINDS; k++) {
			r->spe_by_kind[k] = pda_itrace_stats(it)->by_kind[k];
			r->spe_ev[k] =
				pda_itrace_evsel(it, (enum pda_itrace_kind)k);
		}
	}
	if ((rc = pda_report_finish(r->hot)) < 0 ||
	    (r->lat && (rc = pda_report_finish(r->lat)) < 0) ||
	    (rc = pda_report_finish(r->lines)) < 0 ||
	    (r->br && (rc = pda_branch_finish(r->br,
					      PDA_BRANCH_SORT_MISPRED)) < 0) ||
	    (rc = pda_dthist_finish(r->types)) < 0 ||
	    (r->mem && (rc = pda_mem_finish(r->mem, 1u << PDA_MEM_LEVEL)) < 0))
		die(ctx, "%s", pd_strerror(rc));
}

/* The flame graph of the capture, as pdtool flame draws it. */
static void write_flame(struct pd_ctx *ctx, const struct cmd_report_doc *a,
			const char *path)
{
	struct fold_opts *fo = cmd_fold_opts_new(ctx);
	struct pda_profile *prof = NULL;
	struct pde_flame_opts svg = {0};
	const struct pda_flame_node *nodes;
	struct pda_flame *fl;
	size_t nr;
	FILE *out;
	int rc;

	for (size_t i = 0; i < a->nr_stack_args; i++)
		cmd_fold_opt(ctx, fo, a->stack_args[i].c, a->stack_args[i].arg);
	cmd_fold_profile(ctx, fo, a->path, &prof);
	cmd_fold_opts_free(fo);
	{
		PDA_FLAME_OPTS(flo, .reverse = false);

		rc = pda_flame_new(&flo, &fl);
	}
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	svg.decimals = pda_profile_decimals(prof);
	if (pda_flame_add_profile(fl, prof, 0) < 0)
		die(ctx, "'%s': %s", a->path, pda_flame_errmsg(fl));
	pda_profile_free(prof);
	if (pda_flame_finish(fl) < 0)
		die(ctx, "%s", pda_flame_errmsg(fl));
	nodes = pda_flame_nodes(fl, &nr);
	out = ctx_open_output(ctx, path);
	ctx_check_write(ctx, pde_flame_svg(out, nodes, nr, &svg, NULL), path);
	ctx_close_output(ctx, out, path);
	pda_flame_free(fl);
}

static char *join(struct pd_ctx *ctx, const char *dir, const char *name)
{
	const size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (!p)
		die(ctx, "out of memory");
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

int cmd_report_doc(struct pd_ctx *ctx, const struct cmd_report_doc *a)
{
	struct doc_run r = {.ctx = ctx, .path = a->path};
	struct pde_doc d = {.capture = a->path, .top = a->top};
	struct pda_metrics sampled, stat_m, spe_m;
	struct pda_stat *st = NULL;
	struct pd_file *stat_file = NULL;
	const struct pda_capture_stats *cs;
	struct pda_session *s;
	struct pd_file *f;
	struct stat sb;
	char err[512] = "";
	char *doc_path, *flame_path, *html_path = NULL;
	const char *type_why[PDA_DATATYPE_NR_WHY];
	struct pda_ratio ratios[PDA_RATIOS_MAX];
	FILE *out;
	int rc;

	if (mkdir(a->dir, 0777) < 0 && errno != EEXIST)
		die(ctx, "cannot create '%s': %s", a->dir, strerror(errno));
	doc_path = join(ctx, a->dir, a->json ? "report.json" : "report.md");
	flame_path = join(ctx, a->dir, "flame.svg");
	if (!a->json)
		html_path = join(ctx, a->dir, "report.html");
	ctx_note_input(ctx, a->path);
	if (a->nr_stat) {
		const struct pd_env *senv = NULL;

		st = cmd_stat_read_runs(ctx, a->stat_paths, a->nr_stat,
					&stat_file);
		if (pd_file_env(stat_file, &senv) < 0)
			senv = NULL;
		if (pda_metrics_from_stat(pda_stat_report(st), senv, false,
					  NULL, &stat_m) < 0)
			die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
		d.stat = pda_stat_report(st);
		d.stat_metrics = &stat_m;
		d.stat_paths = a->stat_paths;
		d.nr_stat_paths = a->nr_stat;
	}
	f = ctx_open_twice(ctx, a->path);
	{
		PDA_OPTS(po, .unwinder = a->unwinder, .srcline = true,
			 .errbuf = err, .errbuf_size = sizeof(err));

		cmd_pda_opts(ctx, a->sym, &po);
		/* perf -v demangles C++ names with their parameters */
		po.demangle_params = ctx->verbose > 0;
		if ((rc = pda_session_new(f, &po, &s)) < 0)
			die(ctx, "'%s': %s", a->path,
			    err[0] ? err : pd_strerror(rc));
	}
	run_capture(ctx, a, f, s, &r);
	cs = pda_capture_stats(&r.c);
	d.counts = (struct pde_doc_counts){
		.nr_samples = cs->nr_samples,
		.lost = cs->lost,
		.nr_bad_samples = cs->nr_bad_samples,
		.nr_stack_errors = cs->nr_stack_errors,
		.bytes_missing = cs->reader.bytes_missing,
	};
	d.has_counts = true;
	pda_capture_release(&r.c);
	if (pd_file_env(f, &d.env) < 0)
		d.env = NULL;
	d.file = f;
	if (strcmp(a->path, "-") != 0 && stat(a->path, &sb) == 0 &&
	    S_ISREG(sb.st_mode))
		d.capture_bytes = (uint64_t)sb.st_size;
	d.ps = pda_session_stats(s);
	d.hot = r.hot;
	d.nr_ratios = cmd_capture_ratios(f, r.hot, ratios);
	d.ratios = ratios;
	d.hot_lines = r.lines;
	d.branches = r.br;
	d.mem = r.mem;
	d.mem_event = r.mem_ev ? r.mem_ev->name : NULL;
	d.branches_event = r.spe_br_ev ? r.spe_br_ev->name : NULL;
	/* no sample weighed: a system-wide capture, or a pipe */
	if (r.lat && pda_report_nr_tables(r.lat)) {
		d.latency = r.lat;
		d.level_samples = r.lvl_samples;
		d.level_period = r.lvl_period;
		d.level_latency = r.lvl_latency;
		d.nr_levels = r.nr_lvl;
	}
	/* each event's periods summed, or its group reads: pdtool stat's
	 * estimates from samples */
	if (pda_metrics_from_sampled(pda_sampled_report(r.sampled), d.env,
				     NULL, &sampled) < 0)
		die(ctx, "out of memory");
	d.types = r.types;
	d.type_coverage = pda_datatype_coverage(r.dt, NULL);
	for (unsigned w = 0; w < PDA_DATATYPE_NR_WHY; w++)
		type_why[w] = pda_datatype_why_str((enum pda_datatype_why)w);
	d.type_why = type_why;
	d.nr_type_why = PDA_DATATYPE_NR_WHY;
	d.sampled = &sampled;
	spe_cache(&r, &spe_m);
	d.spe_cache = &spe_m;
	write_flame(ctx, a, flame_path);
	d.flame = "flame.svg";
	out = ctx_open_output(ctx, doc_path);
	ctx_check_write(ctx, a->json ? pde_doc_json(out, &d) : pde_doc_md(out, &d),
			doc_path);
	ctx_close_output(ctx, out, doc_path);
	if (html_path) {
		/* the Markdown rendered, for a browser without a renderer */
		out = ctx_open_output(ctx, html_path);
		ctx_check_write(ctx, pde_doc_html(out, &d), html_path);
		ctx_close_output(ctx, out, html_path);
	}
	eprintf("pdtool %s: %" PRIu64 " sample%s; %" PRIu64 " lost; wrote %s%s%s "
		"and %s\n",
		ctx->cmd, d.counts.nr_samples, PLURAL(d.counts.nr_samples),
		d.counts.lost, doc_path, html_path ? ", " : "",
		html_path ? html_path : "", flame_path);
	rc = 0;
	if (ctx->strict && (d.counts.lost || d.counts.nr_bad_samples ||
			    d.counts.nr_stack_errors || d.counts.bytes_missing ||
			    (d.ps && (d.ps->nr_missing ||
				      d.ps->nr_samples_unresolved)) ||
			    ctx->nr_warnings))
		rc = EXIT_UNRESOLVED;
	pda_branch_free(r.br);
	pda_mem_free(r.mem);
	pda_dthist_free(r.types);
	pda_datatype_free(r.dt);
	pda_report_free(r.hot);
	pda_report_free(r.lines);
	pda_report_free(r.lat);
	pda_parallel_free(r.par);
	free(r.lvl_samples);
	free(r.lvl_period);
	free(r.lvl_latency);
	pda_sampled_free(r.sampled);
	free(html_path);
	pda_session_free(s);
	pd_file_close(f);
	pda_stat_free(st);
	pd_file_close(stat_file);
	free(doc_path);
	free(flame_path);
	return rc;
}
