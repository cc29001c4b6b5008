/*
 * cmd_types.c - `pdtool types`: the data types a capture's samples load
 * and store, per type its samples, its share of the event and a member
 * table, as perf >= 6.8's `perf annotate --data-type` shows them (annotate
 * --data-type is this view too).  The attribution is
 * analyze/datatype/pda_datatype.c's, the sums pda_dthist.c's, the
 * writers emit/pde_dthist.c's; this file takes the options and the
 * sample filters.
 */
#include "pdtool.h"
#include "pda_capture.h"
#include "pda_dthist.h"
#include "pda_session.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char cmd_types_usage[] =
	"pdtool types [OPTIONS] [FILE | -i FILE] [TYPE]";
const char cmd_types_summary[] =
	"show the data types and members the samples access";
const char cmd_types_options[] =
	"  -i, --input FILE      the capture ('-': a pipe-mode stream on\n"
	"                        stdin); the same as FILE\n"
	"  TYPE                  only this type (\"node\" or \"struct node\"),\n"
	"                        as perf annotate --data-type=TYPE\n"
	"  -o, --output FILE     write there instead of stdout\n"
	"      --cacheline       each type's 64-byte cache lines with\n"
	"                        samples too, their share and the fields in\n"
	"                        each (which fields share a line); with data\n"
	"                        addresses (PEBS, SPE, perf mem) the lines\n"
	"                        the samples hit in memory\n"
	"      --format FMT      text (perf annotate --data-type --stdio's\n"
	"                        layout after a summary), md, json or csv\n"
	"      --stdio           plain text, no colours (the default on a\n"
	"                        terminal colours hot members, unless\n"
	"                        NO_COLOR is set)\n"
	"      --no-pager        on a terminal, print instead of going\n"
	"                        through $PAGER (default less)\n"
	"      --event NAME      only samples of event NAME (\"cycles\" or\n"
	"                        \"cycles:u\"); default: every event\n"
	"      --comms NAMES     only samples of these commands (comma-\n"
	"                        separated)\n"
	"      --pid PIDS        only samples of these processes\n"
	"      --tid TIDS        only samples of these threads\n"
	"  -C, --cpu CPUS        only samples on these CPUs (\"0-3,7\")\n"
	CMD_TIME_HELP
	"  -d, --dsos NAMES      only samples in these binaries: recorded\n"
	"                        path or file name\n"
	"      --symbols NAMES   only samples in these functions\n"
	CMD_ITRACE_HELP
	CMD_SYMFILES_HELP
	"      --strict          exit 1 when samples were lost or did\n"
	"                        not decode, the capture was damaged, or\n"
	"                        TYPE had no samples\n"
	"  -v, --verbose         more library messages (repeatable)\n"
	"  -h, --help            this help\n";

enum {
	OPT_CACHELINE = 256,
	OPT_FORMAT,
	OPT_STDIO,
	OPT_NO_PAGER,
	OPT_EVENT,
	OPT_COMMS,
	OPT_PID,
	OPT_TID,
	OPT_TIME,
	OPT_SYMBOLS,
};

#define MAX_NAMES 64	/* --comms, --dsos, --symbols each */
#define MAX_IDS 1024	/* --pid, --tid, --cpu each */

struct types_args {
	struct cmd_types_opts o;
	const char *comms[MAX_NAMES + 1], *dsos[MAX_NAMES + 1],
		*symbols[MAX_NAMES + 1];
	char *names_buf[3];
	uint32_t pids[MAX_IDS], tids[MAX_IDS], cpus[MAX_IDS];
	struct pda_itrace_opts itrace;
	struct cmd_symopts sym;
};

/* --format: text, md and json are annotate's writers', csv a flag. */
static void parse_format(const struct pd_ctx *ctx, const char *arg,
			 struct cmd_types_opts *o)
{
	static const struct {
		const char *name;
		enum pde_annot_format format;
	} formats[] = {
		{"text", PDE_ANNOT_TEXT},
		{"md", PDE_ANNOT_MD},
		{"json", PDE_ANNOT_JSON},
		{"csv", PDE_ANNOT_TEXT},
	};

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(arg, formats[i].name)) {
			o->format = formats[i].format;
			o->csv = !strcmp(arg, "csv");
			return;
		}
	usage_error(ctx, "--format '%s': text, md, json or csv", arg);
}

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct types_args *a)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"cacheline", no_argument, NULL, OPT_CACHELINE},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"stdio", no_argument, NULL, OPT_STDIO},
		{"no-pager", no_argument, NULL, OPT_NO_PAGER},
		{"event", required_argument, NULL, OPT_EVENT},
		{"comms", required_argument, NULL, OPT_COMMS},
		{"pid", required_argument, NULL, OPT_PID},
		{"tid", required_argument, NULL, OPT_TID},
		{"cpu", required_argument, NULL, 'C'},
		{"time", required_argument, NULL, OPT_TIME},
		{"dsos", required_argument, NULL, 'd'},
		{"symbols", required_argument, NULL, OPT_SYMBOLS},
		CMD_ITRACE_LONGOPT,
		CMD_SYMBOL_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
			     .own_shortopts = "o:C:d:",
			     .own_longopts = longopts};
	struct cmd_types_opts *o = &a->o;
	bool stdio = false;
	int c, left;

	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case OPT_CACHELINE:
			o->cacheline = true;
			break;
		case OPT_FORMAT:
			parse_format(ctx, optarg, o);
			break;
		case OPT_STDIO:
			stdio = true;
			break;
		case OPT_NO_PAGER:
			o->no_pager = true;
			break;
		case OPT_EVENT:
			o->event = optarg;
			break;
		case OPT_COMMS:
			cmd_parse_names(ctx, "--comms", optarg, &a->names_buf[0],
					a->comms, MAX_NAMES);
			o->comms = a->comms;
			break;
		case 'd':
			cmd_parse_names(ctx, "--dsos", optarg, &a->names_buf[1],
					a->dsos, MAX_NAMES);
			o->dsos = a->dsos;
			break;
		case OPT_SYMBOLS:
			cmd_parse_names(ctx, "--symbols", optarg,
					&a->names_buf[2], a->symbols, MAX_NAMES);
			o->symbols = a->symbols;
			break;
		case OPT_PID:
			o->nr_pids = cmd_parse_u32_list(ctx, "--pid", "pids",
							optarg, a->pids,
							o->nr_pids, MAX_IDS,
							false);
			break;
		case OPT_TID:
			o->nr_tids = cmd_parse_u32_list(ctx, "--tid", "tids",
							optarg, a->tids,
							o->nr_tids, MAX_IDS,
							false);
			break;
		case 'C':
			o->nr_cpus = cmd_parse_u32_list(ctx, "--cpu", "cpus",
							optarg, a->cpus,
							o->nr_cpus, MAX_IDS,
							true);
			break;
		case OPT_TIME:
			cmd_parse_time(ctx, "--time", optarg, &o->time);
			break;
		case CMD_OPT_ITRACE:
		case CMD_OPT_SPE_EVENTS:
			cmd_itrace(ctx, c, optarg, &a->itrace);
			break;
		default:
			/* the only vals left are the symbol options' */
			cmd_symopt(ctx, &a->sym, c, optarg);
			break;
		}
	}
	/* FILE TYPE, or -i FILE TYPE: the last operand is the type */
	left = argc - optind;
	if (left == 2 || (left == 1 && p.input)) {
		o->type_name = argv[argc - 1];
		p.argc--;
	}
	o->path = cmd_opts_input(&p);
	if (stdio && (o->format != PDE_ANNOT_TEXT || o->csv))
		usage_error(ctx, "--stdio is the text format: not with "
				 "--format");
	o->stdio = stdio;
	o->pids = a->pids;
	o->tids = a->tids;
	o->cpus = a->cpus;
	o->sym = &a->sym;
	o->itrace = &a->itrace;
	o->summary = true;
}

/* name is the recorded path or its file name of one of names. */
static bool in_paths(const char *const *names, const char *path)
{
	const char *base;

	if (!path)
		return false;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (; *names; names++)
		if (!strcmp(*names, path) || !strcmp(*names, base))
			return true;
	return false;
}

static bool in_names(const char *const *names, const char *name)
{
	if (!name)
		return false;
	for (; *names; names++)
		if (!strcmp(*names, name))
			return true;
	return false;
}

/* What the capture's callbacks see. */
struct types_run {
	struct pd_ctx *ctx;
	const struct cmd_types_opts *o;
	struct pda_session *s;
	struct pda_capture c;
	struct pda_datatype *dt;
	struct pda_dthist *types;
	uint64_t *samples, *periods; /* kept, per event */
	size_t nr_events;
	uint64_t nr_filtered;	/* by --comms, --cpu, --dsos, --symbols */
	bool synth;		/* samples synthesized from an AUX trace */
};

/* The sample, if the filters the pipeline does not apply keep it,
 * attributed and counted on its type. */
static int type_one(void *arg, const struct pda_pipe_item *it)
{
	struct types_run *tr = arg;
	const struct cmd_types_opts *o = tr->o;
	const struct pd_sample *sample = it->sample;
	const struct pda_frame *leaf =
		it->stack && it->stack->nr ? &it->stack->frames[0] : NULL;
	const struct pda_datatype_res *res;
	const unsigned ev = sample->evsel->idx;
	int rc;

	if ((o->comms && !in_names(o->comms, it->comm)) ||
	    (o->nr_cpus && !cmd_in_ids(o->cpus, o->nr_cpus, sample->cpu)) ||
	    (o->symbols && !in_names(o->symbols, leaf ? leaf->sym : NULL)) ||
	    (o->dsos && !in_paths(o->dsos, leaf ? leaf->dso : NULL))) {
		tr->nr_filtered++;
		return 0;
	}
	rc = pda_datatype_sample(tr->dt, sample, it->stack, &res);
	if (rc == 0)
		rc = pda_dthist_add(tr->types, sample, res);
	if (rc < 0)
		return pda_capture_set_err(&tr->c, rc, "%s",
					   pda_session_failure(tr->s, rc));
	if (ev < tr->nr_events) {
		tr->samples[ev]++;
		tr->periods[ev] += sample->period;
	}
	return 0;
}

/* The first sample that does not decode gets a warning. */
static int types_skip(void *arg, enum pda_capture_skip what, const char *why)
{
	struct types_run *tr = arg;

	cmd_capture_skip_warn(tr->ctx, &tr->c, tr->o->path, what, why);
	return 0;
}

/* The samples through the capture loop.  Only their leaves matter:
 * stacks are resolved for --dsos and --symbols alone, to their leaf. */
static void read_samples(struct pd_ctx *ctx, struct pd_file *f,
			 struct types_run *tr)
{
	const struct cmd_types_opts *o = tr->o;
	struct cmd_progress prog;
	struct pda_filter flt;
	const bool leaf = o->dsos || o->symbols;
	PDA_FILTER_OPTS(fo, .event = o->event,
			.flags = PDA_FILTER_TRACEPOINTS | PDA_FILTER_NEED_EVENT,
			.pids = o->nr_pids ? o->pids : NULL,
			.nr_pids = o->nr_pids,
			.tids = o->nr_tids ? o->tids : NULL,
			.nr_tids = o->nr_tids,
			.time_ranges = o->time.nr ? o->time.r : NULL,
			.nr_time_ranges = o->time.nr);
	/* the filters look at the sample's own function: its ip alone */
	PDA_CAPTURE_OPTS(co, .filter = &flt, .no_stack = !leaf,
			 .ip_stacks = leaf, .leaf_only = leaf,
			 .itrace = o->itrace,
			 .sample_fn = type_one, .skip_fn = types_skip,
			 .progress = cmd_progress_fn, .progress_arg = &prog,
			 .arg = tr);
	int rc;

	if (pda_filter_init(&flt, &fo) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_API));
	rc = pda_capture_init(&tr->c, f, tr->s, &co);
	if (rc < 0)
		cmd_capture_die(ctx, o->path, &tr->c, rc);
	cmd_progress_init(&prog, ctx);
	rc = pda_capture_run(&tr->c);
	cmd_progress_end(&prog);
	if (rc < 0)
		cmd_capture_die(ctx, o->path, &tr->c, rc);
	tr->synth = pda_capture_itrace(&tr->c) != NULL;
	pda_capture_release(&tr->c);
	tr->nr_filtered += pda_filter_stats(&flt)->nr_left_out;
}

/* The types written to out, then the counts and the coverage line.
 * @return the exit status. */
static int write_types(struct pd_ctx *ctx, struct pd_file *f,
		       struct types_run *tr, FILE *out)
{
	const struct cmd_types_opts *o = tr->o;
	const struct pda_capture_stats *cs = pda_capture_stats(&tr->c);
	const char *why[PDA_DATATYPE_NR_WHY];
	const char **events = calloc(tr->nr_events ? tr->nr_events : 1,
				     sizeof(*events));
	size_t nr_shown;
	bool color;
	int rc = pda_dthist_finish(tr->types);

	if (rc < 0 || !events)
		die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
	for (size_t ev = 0; ev < tr->nr_events; ev++)
		events[ev] = pd_file_evsel(f, ev)->name;
	for (unsigned w = 0; w < PDA_DATATYPE_NR_WHY; w++)
		why[w] = pda_datatype_why_str((enum pda_datatype_why)w);
	/* before the pager: its pipe is no terminal (annotate's order) */
	color = o->format == PDE_ANNOT_TEXT && !o->csv && !o->stdio &&
		out == ctx->out && ctx_use_color();
	if (out == ctx->out && !o->no_pager)
		ctx_start_pager(ctx);
	{
		const struct pde_dthist_opts wo = {
			.format = o->format,
			.csv = o->csv,
			.color = color,
			.events = events,
			.nr_events = tr->nr_events,
			.only = o->type_name,
			.input = o->path,
			.cacheline = o->cacheline,
			.coverage = pda_datatype_coverage(tr->dt, NULL),
			.why = why,
			.nr_why = PDA_DATATYPE_NR_WHY,
			.event_samples = o->summary ? tr->samples : NULL,
			.event_periods = o->summary ? tr->periods : NULL,
		};

		ctx_check_write(ctx, pde_dthist(out, tr->types, &wo, &nr_shown),
				o->output);
	}
	ctx_close_output(ctx, out, o->output);
	fflush(ctx->out);
	free(events);
	eprintf("pdtool %s: %" PRIu64 " sample%s, %zu data type%s shown; "
		"%" PRIu64 " lost",
		ctx->cmd, cs->nr_samples, PLURAL(cs->nr_samples), nr_shown,
		PLURAL(nr_shown), cs->lost);
	if (tr->nr_filtered)
		eprintf("; %" PRIu64 " left out by the filters",
			tr->nr_filtered);
	fputc('\n', stderr);
	cmd_type_coverage(ctx, tr->dt);
	if (o->type_name && !nr_shown)
		eprintf("pdtool %s: no samples access type '%s'\n", ctx->cmd,
			o->type_name);
	cmd_unresolved_block(ctx, pda_session_stats(tr->s), cs->nr_samples,
			     NULL);
	cmd_fetch_add(ctx, &pda_session_stats(tr->s)->debuginfod);
	cmd_fetch_summary(ctx);
	return ctx->strict && (cs->lost || cs->nr_bad_samples ||
			       ctx->nr_warnings || (o->type_name && !nr_shown))
		       ? EXIT_UNRESOLVED
		       : 0;
}

int cmd_types_run(struct pd_ctx *ctx, struct cmd_types_opts *o)
{
	struct types_run tr = {.ctx = ctx, .o = o};
	char err[512] = "";
	struct pd_file *f = ctx_open_twice(ctx, o->path);
	/* an unwritable -o fails here, not after the work */
	FILE *out = ctx_open_output(ctx, o->output);
	const struct pda_capture_stats *cs;
	int rc;

	cmd_time_resolve(ctx, o->path, f, &o->time);
	{
		PDA_OPTS(po, .no_inline = true, .errbuf = err,
			 .errbuf_size = sizeof(err));

		cmd_pda_opts(ctx, o->sym, &po);
		rc = pda_session_new(f, &po, &tr.s);
		if (rc < 0)
			die(ctx, "'%s': %s", o->path,
			    err[0] ? err : pd_strerror(rc));
	}
	if (pda_datatype_new(tr.s, &tr.dt) < 0 ||
	    pda_dthist_new(tr.dt, &tr.types) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
	cmd_pipe_prologue(ctx, o->path, f);
	tr.nr_events = pd_file_nr_evsels(f);
	tr.samples = calloc(tr.nr_events ? tr.nr_events : 1,
			    sizeof(*tr.samples));
	tr.periods = calloc(tr.nr_events ? tr.nr_events : 1,
			    sizeof(*tr.periods));
	if (!tr.samples || !tr.periods)
		die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
	read_samples(ctx, f, &tr);
	cs = pda_capture_stats(&tr.c);
	if (!tr.synth)
		cmd_check_kind(ctx, o->path, f, &cs->reader, cs->nr_samples);
	rc = write_types(ctx, f, &tr, out);
	free(tr.samples);
	free(tr.periods);
	pda_dthist_free(tr.types);
	pda_datatype_free(tr.dt);
	pda_session_free(tr.s);
	pd_file_close(f);
	return rc;
}

int cmd_types(int argc, char **argv, struct pd_ctx *ctx)
{
	struct types_args *a = calloc(1, sizeof(*a));
	int rc;

	if (!a)
		die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
	parse_args(argc, argv, ctx, a);
	rc = cmd_types_run(ctx, &a->o);
	for (size_t i = 0; i < 3; i++)
		free(a->names_buf[i]);
	free(a);
	return rc;
}
