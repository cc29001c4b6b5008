/*
 * cmd_report_branch.c - `pdtool report --branch-stack`: perf report's
 * branch mode, a row per (from, to) at perf 6.1's branch sort keys
 * (analyze/branch/pda_branch_rep.c adds up, emit/pde_report.c writes).
 */
#include "pdtool.h"
#include "pda_branch_rep.h"
#include "pda_capture.h"
#include "pda_session.h"

#include <inttypes.h>
#include <string.h>

struct brep_run {
	struct pd_ctx *ctx;
	const struct cmd_report_branch *a;
	struct pda_brep *r;
	struct pda_capture c;
};

static bool in_names(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

/*
 * perf's al->filtered of the sample (machine__resolve(), thread__is_
 * filtered()): its thread's comm, pid or tid, or its own address's DSO
 * (the file name or the recorded path) or function not among those
 * given.
 */
static bool sample_filtered(const struct cmd_report_branch *a,
			    const struct pda_pipe_item *it)
{
	const struct pd_sample *sample = it->sample;
	const struct pda_frame *leaf =
		it->stack && it->stack->nr ? &it->stack->frames[0] : NULL;

	if (a->comms && !in_names(a->comms, it->comm))
		return true;
	if (a->nr_pids && !cmd_in_ids(a->pids, a->nr_pids, sample->pid))
		return true;
	if (a->nr_tids && !cmd_in_ids(a->tids, a->nr_tids, sample->tid))
		return true;
	if (a->dsos) {
		const char *base;

		if (!leaf || !leaf->dso)
			return true;
		base = strrchr(leaf->dso, '/');
		base = base ? base + 1 : leaf->dso;
		if (!in_names(a->dsos, leaf->dso) && !in_names(a->dsos, base))
			return true;
	}
	return a->symbols &&
	       (!leaf || !leaf->sym || (leaf->flags & PDA_FRAME_NO_SYMBOL) ||
		!in_names(a->symbols, leaf->sym));
}

/* The counters' columns, NULL when the capture has none. */
static const struct pda_brcntr *ro_cntr(const struct pda_brcntr *c)
{
	return c->nr ? c : NULL;
}

/* A filter's one name, NULL for none or several. */
static const char *one_name(const char *const *list)
{
	return list && list[0] && !list[1] ? list[0] : NULL;
}

static int brep_one(void *arg, const struct pda_pipe_item *it)
{
	struct brep_run *br = arg;

	/* perf drops a sample of another CPU before it is counted */
	if (br->a->nr_cpus &&
	    !cmd_in_ids(br->a->cpus, br->a->nr_cpus, it->sample->cpu))
		return 0;
	/* the rows' comm as report's (perf's ":TID" renamed): a thread
	 * named later shows that name; --comms filters by the name at
	 * the sample's time, as perf's machine__resolve() */
	return pda_brep_add_filtered(br->r, it->sample,
				     it->comm_later ? it->comm_later
						    : it->comm,
				     sample_filtered(br->a, it));
}

static int brep_skip(void *arg, enum pda_capture_skip what, const char *why)
{
	struct brep_run *br = arg;

	if (what == PDA_CAPTURE_BAD_SAMPLE &&
	    !pda_capture_stats(&br->c)->nr_bad_samples)
		warning(br->ctx, "'%s': %s", br->a->path, why);
	return 0;
}

/* --sort's keys in branch mode; *ipc: perf appends ipc_lbr when the
 * option's text names a "symbol" key (builtin-report.c: strstr). */
static unsigned parse_keys(struct pd_ctx *ctx, const char *arg,
			   enum pda_brep_key *keys, bool *ipc, bool *srcline)
{
	const char *p = arg;
	unsigned nr = 0;

	*ipc = arg && strstr(arg, "symbol") != NULL;
	*srcline = false;
	if (!arg)
		return 0;
	if (strstr(arg, "ipc"))
		usage_error(ctx, "--sort '%s': perf adds the ipc column itself",
			    arg);
	while (*p) {
		const size_t len = strcspn(p, ",");
		char name[32];
		enum pda_brep_key k;

		if (len == 0 || len >= sizeof(name))
			usage_error(ctx, "--sort '%s': not a list of keys", arg);
		memcpy(name, p, len);
		name[len] = '\0';
		if (pda_brep_key_by_name(name, &k) < 0)
			usage_error(ctx,
				    "--sort: unknown key '%s' with "
				    "--branch-stack (comm, dso, symbol, "
				    "dso_from, dso_to, symbol_from, symbol_to, "
				    "mispredict, in_tx, abort, cycles, "
				    "srcline_from, srcline_to)",
				    name);
		if (nr == PDA_BREP_MAX_KEYS)
			usage_error(ctx, "--sort: more than %d keys",
				    PDA_BREP_MAX_KEYS);
		if (k == PDA_BREP_SRCLINE_FROM || k == PDA_BREP_SRCLINE_TO)
			*srcline = true;
		keys[nr++] = k;
		p += len;
		if (*p)
			p++;
	}
	if (!nr)
		usage_error(ctx, "--sort needs at least one key");
	return nr;
}

/*
 * perf's group view (evlist__force_leader, symbol_conf.event_group): the
 * groups the capture recorded side by side unless --no-group; --group on
 * a capture that recorded none puts every event in one table.
 */
static void set_groups(struct pd_file *f, const struct cmd_report_branch *a,
		       struct pda_brep_opts *ro)
{
	const struct pd_env *env = NULL;

	ro->file = f;
	if (pd_file_env(f, &env) == 0)
		ro->groups = env;
	if (a->no_group)
		ro->group = PDA_BREP_GROUP_NONE;
	else if (a->group && (!env || !env->nr_groups))
		ro->group = PDA_BREP_GROUP_ALL;
	else
		ro->group = PDA_BREP_GROUP_RECORDED;
}

int cmd_report_branch(struct pd_ctx *ctx, const struct cmd_report_branch *a)
{
	struct brep_run br = {.ctx = ctx, .a = a};
	enum pda_brep_key keys[PDA_BREP_MAX_KEYS];
	struct pda_filter flt;
	struct cmd_progress prog;
	char err[512] = "";
	const struct pda_capture_stats *cs;
	const struct pda_stats *ps;
	struct pda_session *s;
	struct pda_brcntr cntr = {0};
	const struct pd_env *env = NULL;
	struct pd_file *f;
	uint64_t resolved, entries;
	bool ipc, srcline;
	unsigned nr_keys;
	FILE *out;
	int rc;

	if (a->total_cycles && a->format == 3)
		die(ctx, "--total-cycles: perf's block view is text, md or "
			 "json (not csv)");
	/* perf's block view sorts by the default keys, whatever --sort */
	nr_keys = parse_keys(ctx, a->total_cycles ? NULL : a->sort, keys,
			     &ipc, &srcline);
	{
		/* --dsos and --symbols look at the sample's own function */
		const bool leaf = a->dsos || a->symbols;
		PDA_OPTS(po, .srcline = srcline, .no_inline = true,
			 .errbuf = err, .errbuf_size = sizeof(err));
		PDA_FILTER_OPTS(fo, .flags = PDA_FILTER_TRACEPOINTS,
				.time_ranges = a->time->nr ? a->time->r : NULL,
				.nr_time_ranges = a->time->nr);
		PDA_CAPTURE_OPTS(co, .filter = &flt, .no_stack = !leaf,
				 .ip_stacks = leaf, .leaf_only = leaf,
				 .sample_fn = brep_one, .skip_fn = brep_skip,
				 .progress = cmd_progress_fn,
				 .progress_arg = &prog, .arg = &br);
		PDA_BREP_OPTS(ro, .keys = nr_keys ? keys : NULL,
			      .nr_keys = nr_keys, .ipc = ipc,
			      .total_cycles = a->total_cycles);

		f = a->f ? a->f : ctx_open_twice(ctx, a->path);
		/* a pipe's groups and counter width are feature records of
		 * its stream: read them first */
		cmd_pipe_prologue(ctx, a->path, f);
		/* the block view's Branch Counter column (perf 7) */
		if (a->total_cycles && pda_brcntr_init(f, &cntr) == 0 &&
		    cntr.nr && pd_file_env(f, &env) == 0) {
			cntr.exact = ctx->verbose > 0; /* -v: perf's numbers */
			ro.cntr = &cntr;
			ro.env = env;
		}
		set_groups(f, a, &ro);
		cmd_pda_opts(ctx, a->sym, &po);
		/* perf -v demangles C++ names with their parameters */
		po.demangle_params = ctx->verbose > 0;
		rc = pda_session_new(f, &po, &s);
		if (rc < 0)
			die(ctx, "'%s': %s", a->path,
			    err[0] ? err : pd_strerror(rc));
		if (pda_filter_init(&flt, &fo) < 0)
			die(ctx, "%s", pd_strerror(PD_ERR_API));
		rc = pda_brep_new(s, &ro, &br.r);
		if (rc < 0)
			die(ctx, "%s", pd_strerror(rc));
		rc = pda_capture_init(&br.c, f, s, &co);
		if (rc < 0)
			cmd_capture_die(ctx, a->path, &br.c, rc);
	}
	out = ctx_open_output(ctx, a->output);
	cmd_progress_init(&prog, ctx);
	rc = pda_capture_run(&br.c);
	cmd_progress_end(&prog);
	if (rc < 0)
		cmd_capture_die(ctx, a->path, &br.c, rc);
	cs = pda_capture_stats(&br.c);
	cmd_check_kind(ctx, a->path, f, &cs->reader, cs->nr_samples);
	pda_capture_release(&br.c);
	rc = pda_brep_finish(br.r);
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	pda_brep_resolved(br.r, &resolved, &entries);
	if (!pda_brep_nr_tables(br.r))
		/* perf: "Selected -b but no branch data.  Did you call perf
		 * record without -b?" */
		die(ctx,
		    "'%s': --branch-stack, but no branch stacks: its events "
		    "do not sample them (perf record -b or -j records them)",
		    a->path);
	{
		const struct pde_report_opts eo = {
			.lost = cs->lost,
			.percent_limit = a->percent_limit,
			.one_comm = one_name(a->comms),
			.one_dso = one_name(a->dsos),
			.one_sym = one_name(a->symbols),
			.time_slices = a->time_arg,
			/* perf prints -T's table before them */
			.branch_stats_apart = a->threads,
			.color = a->format == 0 &&
				 (!a->output || !strcmp(a->output, "-")) &&
				 ctx_use_color(),
		};

		int (*const write[])(FILE *, const struct pda_brep *, bool,
				     const struct pde_report_opts *) = {
			pde_branch_report_text, pde_branch_report_md,
			pde_branch_report_json, pde_branch_report_csv};

		if (a->total_cycles && a->format)
			ctx_check_write(ctx,
					pde_branch_blocks_grid(
						out, br.r, ro_cntr(&cntr), &eo,
						a->format == 2),
					a->output);
		else if (a->total_cycles)
			ctx_check_write(ctx,
					pde_branch_blocks_text(
						out, br.r, ro_cntr(&cntr), &eo),
					a->output);
		else
			ctx_check_write(ctx,
					write[a->format](out, br.r, ipc, &eo),
					a->output);
	}
	if (a->threads && !a->format) {
		cmd_report_threads(ctx, a->path, f, out, a->threads_raw);
		if (!a->total_cycles)
			ctx_check_write(ctx, pde_branch_stats_text(out, br.r),
					a->output);
	}
	ctx_close_output(ctx, out, a->output);
	eprintf("pdtool %s: %" PRIu64 " branch entr%s, %.1f%% with both ends "
		"in a symbol\n",
		ctx->cmd, entries, entries == 1 ? "y" : "ies",
		entries ? 100.0 * (double)resolved / (double)entries : 0.0);
	ps = pda_session_stats(s);
	cmd_fetch_add(ctx, &ps->debuginfod);
	cmd_fetch_summary(ctx);
	rc = cmd_strict_status(ctx, cs, ps);
	pda_brep_free(br.r);
	pda_session_free(s);
	pd_file_close(f);
	return rc;
}
