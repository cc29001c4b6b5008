/*
 * cmd_stat.c - `pdtool stat`: the counters of `perf stat record`
 * captures as `perf stat report` prints them (analyze/counters), as
 * text, JSON or Markdown (emit/pde_stat.c); several captures of one
 * command as the runs of `perf stat -r`.  Sampling captures (`perf
 * record`) give their totals estimated from the samples' periods and
 * group reads instead (per CPU and thread from the samples'), read into
 * the same report (pda_stat_add_sampled()) so that perf stat's metrics,
 * the aggregations and the runs' spread are the same code's.
 */
#include "pdtool.h"
#include "pda_capture.h"
#include "pda_metrics.h"
#include "pda_sampled.h"
#include "pda_stat.h"

#include <string.h>

const char cmd_stat_usage[] =
	"pdtool stat [-A | --per-socket | --per-die | --per-core | "
	"--per-node | --per-thread] [--cumulative] [--no-metrics] [--format text|json|md] "
	"[-o FILE] "
	"[--strict] [-v] [FILE... | -i FILE]";
const char cmd_stat_summary[] =
	"counter totals of perf stat record captures, as perf stat report";
const char cmd_stat_options[] =
	"  -i, --input FILE  the capture (as a FILE operand); '-' reads\n"
	"                    standard input\n"
	"  FILE...           several captures of one command: the runs of\n"
	"                    'perf stat -r', printed as their mean and the\n"
	"                    spread of the mean ('+- x%')\n"
	"                    Sampling captures (perf record): each event's\n"
	"                    count estimated from its samples' periods (or\n"
	"                    its group reads, -e '{..}:S') as a counter that\n"
	"                    ran from the first sample to the last, with\n"
	"                    perf stat's metrics and the derived ones;\n"
	"                    several are runs as perf stat record captures\n"
	"  -A, --no-aggr     a count per CPU\n"
	"      --per-socket  a count per socket\n"
	"      --per-die     a count per die\n"
	"      --per-core    a count per core\n"
	"      --per-node    a count per NUMA node (a sampling capture's\n"
	"                    per CPU from its samples' CPUs)\n"
	"      --per-thread  a count per thread (a sampling capture's from\n"
	"                    its samples' threads; a perf stat record\n"
	"                    capture's when recorded so)\n"
	"                    (default: the aggregation the capture was\n"
	"                    recorded with)\n"
	"      --cumulative  -I captures: each interval's counts since the\n"
	"                    start, as perf 7.x prints them (default: what\n"
	"                    each interval counted, as perf 6.1)\n"
	"      --no-metrics  only what perf stat report prints: no derived\n"
	"                    metrics (IPC, topdown, cache and TLB ratios\n"
	"                    with their assessment) after it\n"
	"      --format FMT  text (default: perf stat report's, then the\n"
	"                    derived metrics), json or md\n"
	"  -o, --output FILE write there instead of standard output\n"
	"      --strict      exit 1 when anything was skipped or damaged\n"
	"  -v, --verbose     each derived metric's formula and counts; more\n"
	"                    messages from the reader (repeatable)\n"
	"  -h, --help        show this help\n";

enum {
	OPT_PER_SOCKET = 256,
	OPT_PER_DIE,
	OPT_PER_CORE,
	OPT_PER_NODE,
	OPT_PER_THREAD,
	OPT_CUMULATIVE,
	OPT_NO_METRICS,
	OPT_FORMAT,
};

enum stat_format { FMT_TEXT, FMT_JSON, FMT_MD };

#define MAX_FILES 1024

struct stat_opts {
	const char *paths[MAX_FILES];
	size_t nr_paths;
	enum pda_stat_aggr aggr;
	bool cumulative;
	bool no_metrics;
	enum stat_format format;
	const char *output;
};

static void set_aggr(struct pd_ctx *ctx, struct stat_opts *o,
		     enum pda_stat_aggr a)
{
	if (o->aggr != PDA_STAT_AGGR_AS_RECORDED && o->aggr != a)
		usage_error(ctx, "--%s and --%s cannot be given together",
			    pda_stat_aggr_name(o->aggr), pda_stat_aggr_name(a));
	o->aggr = a;
}

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct stat_opts *o)
{
	static const struct option longopts[] = {
		{"no-aggr", no_argument, NULL, 'A'},
		{"per-socket", no_argument, NULL, OPT_PER_SOCKET},
		{"per-die", no_argument, NULL, OPT_PER_DIE},
		{"per-core", no_argument, NULL, OPT_PER_CORE},
		{"per-node", no_argument, NULL, OPT_PER_NODE},
		{"per-thread", no_argument, NULL, OPT_PER_THREAD},
		{"cumulative", no_argument, NULL, OPT_CUMULATIVE},
		{"no-metrics", no_argument, NULL, OPT_NO_METRICS},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
			     .own_shortopts = "Ao:",
			     .own_longopts = longopts};
	int c;

	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1) {
		switch (c) {
		case 'A':
			set_aggr(ctx, o, PDA_STAT_AGGR_NONE);
			break;
		case OPT_PER_SOCKET:
			set_aggr(ctx, o, PDA_STAT_AGGR_SOCKET);
			break;
		case OPT_PER_DIE:
			set_aggr(ctx, o, PDA_STAT_AGGR_DIE);
			break;
		case OPT_PER_CORE:
			set_aggr(ctx, o, PDA_STAT_AGGR_CORE);
			break;
		case OPT_PER_NODE:
			set_aggr(ctx, o, PDA_STAT_AGGR_NODE);
			break;
		case OPT_PER_THREAD:
			set_aggr(ctx, o, PDA_STAT_AGGR_THREAD);
			break;
		case OPT_CUMULATIVE:
			o->cumulative = true;
			break;
		case OPT_NO_METRICS:
			o->no_metrics = true;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") == 0)
				o->format = FMT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				o->format = FMT_JSON;
			else if (strcmp(optarg, "md") == 0)
				o->format = FMT_MD;
			else
				usage_error(ctx,
					    "--format '%s': give text, json "
					    "or md",
					    optarg);
			break;
		case 'o':
			o->output = optarg;
			break;
		default:
			break;
		}
	}
	/* several operands are several runs; one (or -i) is cmd_opts_input's */
	if (optind + 1 < argc) {
		if (p.input)
			usage_error(ctx, "more than one input file");
		for (int i = optind; i < argc; i++) {
			if (o->nr_paths == MAX_FILES)
				usage_error(ctx, "more than %d input files",
					    MAX_FILES);
			o->paths[o->nr_paths++] = argv[i];
		}
		return;
	}
	o->paths[o->nr_paths++] = cmd_opts_input(&p);
}

struct stat_run {
	struct pda_stat *s;
};

static int stat_rec(void *arg, const struct pd_rec *rec)
{
	struct stat_run *sr = arg;

	return pda_stat_rec(sr->s, rec);
}

bool cmd_stat_read(struct pd_ctx *ctx, struct pda_stat *s, struct pd_file *f,
		   const char *path)
{
	struct stat_run sr = {s};
	PDA_CAPTURE_OPTS(co, .rec_fn = stat_rec, .arg = &sr);
	struct pda_capture cap;
	bool damaged;
	int rc;

	memset(&cap, 0, sizeof(cap));
	if ((rc = pda_stat_begin(s, f)) < 0)
		die(ctx, "%s", pda_stat_errmsg(s));
	rc = pda_capture_init(&cap, f, NULL, &co);
	if (rc == 0)
		rc = pda_capture_run(&cap);
	if (rc < 0) {
		if (pda_capture_failed_in(&cap) == PDA_CAPTURE_CALLBACK)
			die(ctx, "'%s': %s", path, pda_stat_errmsg(s));
		cmd_capture_die(ctx, path, &cap, rc);
	}
	damaged = pda_capture_stats(&cap)->reader.damaged != 0;
	pda_capture_release(&cap);
	if ((rc = pda_stat_end(s)) < 0)
		die(ctx, "%s", pda_stat_errmsg(s));
	return damaged;
}

struct pda_stat *cmd_stat_read_runs(struct pd_ctx *ctx,
				    const char *const *paths, size_t nr,
				    struct pd_file **first)
{
	PDA_STAT_OPTS(so, .aggr = PDA_STAT_AGGR_AS_RECORDED);
	struct pda_stat *st;

	if (pda_stat_new(&so, &st) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
	for (size_t i = 0; i < nr; i++) {
		struct pd_file *f;

		ctx_note_input(ctx, paths[i]);
		f = ctx_open(ctx, paths[i]);
		cmd_stat_read(ctx, st, f, paths[i]);
		if (i == 0)
			*first = f;
		else
			pd_file_close(f);
	}
	if (pda_stat_finish(st) < 0)
		die(ctx, "%s", pda_stat_errmsg(st));
	if (pda_stat_nr_warnings(st))
		warning(ctx, "%s", pda_stat_warning(st));
	return st;
}

struct by_arg {
	const struct pda_stat_report *rep;
	const struct pd_env *env;
};

/* pde_stat_by's: an interval's or an aggregate's metrics */
static int by_metrics(void *arg, size_t round, const struct pda_stat_row *agg,
		      struct pda_metrics *out)
{
	const struct by_arg *b = arg;
	int rc = pda_metrics_from_stat_aggr(b->rep, round, agg, b->env, NULL,
					    out);

	out->estimated = b->rep->sampled;
	return rc;
}

static int sampled_rec(void *arg, const struct pd_rec *rec)
{
	return pda_sampled_rec(arg, rec);
}

/*
 * A sampling capture as one run of s: its samples' totals (periods and
 * group reads), per CPU or thread as s aggregates.  *keep (when not
 * NULL) gets the totals, for the caller to free; else they are freed.
 * @return whether the capture was damaged.
 */
static bool read_sampled(struct pd_ctx *ctx, struct pda_stat *s,
			 struct pd_file *f, const char *path,
			 struct pda_sampled **keep)
{
	struct pda_sampled *sm;
	PDA_CAPTURE_OPTS(co, .rec_fn = sampled_rec);
	struct pda_capture cap;
	bool damaged;
	int rc;

	if (pda_sampled_new(f, NULL, &sm) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
	co.arg = sm;
	memset(&cap, 0, sizeof(cap));
	rc = pda_capture_init(&cap, f, NULL, &co);
	if (rc == 0)
		rc = pda_capture_run(&cap);
	if (rc < 0) {
		if (pda_capture_failed_in(&cap) == PDA_CAPTURE_CALLBACK)
			die(ctx, "'%s': %s", path, pda_sampled_errmsg(sm));
		cmd_capture_die(ctx, path, &cap, rc);
	}
	damaged = pda_capture_stats(&cap)->reader.damaged != 0;
	pda_capture_release(&cap);
	if (pda_sampled_report(sm)->nr_samples == 0)
		die(ctx, "'%s' holds no samples: no counts to estimate", path);
	if (pda_stat_add_sampled(s, f, pda_sampled_report(sm)) < 0)
		die(ctx, "%s", pda_stat_errmsg(s));
	if (keep)
		*keep = sm;
	else
		pda_sampled_free(sm);
	return damaged;
}

int cmd_stat(int argc, char **argv, struct pd_ctx *ctx)
{
	struct stat_opts o = {.aggr = PDA_STAT_AGGR_AS_RECORDED};
	PDA_STAT_OPTS(so, .aggr = PDA_STAT_AGGR_AS_RECORDED);
	struct pd_file *files[MAX_FILES];
	struct pda_stat *s;
	const struct pda_stat_report *rep;
	const struct pd_env *env = NULL;
	struct pda_metrics metrics;
	const struct pda_metrics *m = NULL;
	struct by_arg ba;
	struct pde_stat_by by_cb = {by_metrics, &ba};
	const struct pde_stat_by *by = NULL;
	bool problems = false, sampled_runs = false;
	struct pda_sampled *sm = NULL;
	FILE *out;
	int rc;

	parse_args(argc, argv, ctx, &o);
	so.aggr = o.aggr;
	so.cumulative = o.cumulative;
	if (pda_stat_new(&so, &s) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
	for (size_t i = 0; i < o.nr_paths; i++) {
		bool sampling;

		ctx_note_input(ctx, o.paths[i]);
		files[i] = ctx_open(ctx, o.paths[i]);
		sampling = pda_sampled_is_sampling(files[i]);
		if (i == 0 && sampling && o.cumulative)
			usage_error(ctx, "'%s' is a sampling capture: it has "
				    "no intervals (no --cumulative)",
				    o.paths[0]);
		if (i > 0 && sampling != sampled_runs)
			die(ctx, "'%s' is %s capture, not a run of '%s' (%s "
			    "capture)", o.paths[i],
			    sampling ? "a sampling" : "a perf stat record",
			    o.paths[0],
			    sampling ? "a perf stat record" : "a sampling");
		if (sampling) {
			/* one capture's totals go to JSON as they are */
			problems |= read_sampled(ctx, s, files[i], o.paths[i],
						 o.nr_paths == 1 ? &sm : NULL);
			sampled_runs = true;
		} else {
			problems |= cmd_stat_read(ctx, s, files[i],
						  o.paths[i]);
		}
		/* the report keeps the first capture's command line */
		if (i > 0)
			pd_file_close(files[i]);
	}
	if (pda_stat_finish(s) < 0)
		die(ctx, "%s", pda_stat_errmsg(s));
	if (pda_stat_nr_warnings(s)) {
		warning(ctx, "%s", pda_stat_warning(s));
		problems = true;
	}
	rep = pda_stat_report(s);
	if (!o.no_metrics) {
		/* the first capture's host: runs of one command on one */
		if (pd_file_env(files[0], &env) < 0)
			env = NULL;
		if (pda_metrics_from_stat(rep, env, o.cumulative, NULL,
					  &metrics) < 0)
			die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
		metrics.estimated = rep->sampled;
		m = &metrics;
		ba = (struct by_arg){rep, env};
		if (pde_stat_by_wanted(rep))
			by = &by_cb;
	}
	out = ctx_open_output(ctx, o.output);
	switch (o.format) {
	case FMT_JSON:
		rc = rep->sampled ? pde_sampled_json(out, rep,
						     sm ? pda_sampled_report(sm)
							: NULL,
						     m, by)
				  : pde_stat_json(out, rep, m, by);
		break;
	case FMT_MD:
		rc = pde_stat_md(out, rep, m, by);
		break;
	case FMT_TEXT:
	default:
		rc = pde_stat_text(out, rep);
		if (rc == 0 && by)
			rc = pde_stat_by_text(out, rep, by);
		if (rc == 0 && m)
			rc = pde_stat_metrics_text(out, m, ctx->verbose > 0);
		break;
	}
	ctx_check_write(ctx, rc, o.output);
	ctx_close_output(ctx, out, o.output);
	pda_stat_free(s);
	pda_sampled_free(sm);
	pd_file_close(files[0]);
	problems |= ctx->nr_warnings > 0;
	return ctx->strict && problems ? EXIT_UNRESOLVED : 0;
}
