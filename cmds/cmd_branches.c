/*
 * cmd_branches.c - `pdtool branches`: the taken branches of a capture's
 * branch stacks (perf record -b), by (from, to), most mispredicted first
 * (analyze/branch/pda_branch.c aggregates, emit/pde_branches.c writes).
 */
#include "pdtool.h"
#include "pda_branch.h"
#include "pda_capture.h"
#include "pda_session.h"

#include <inttypes.h>
#include <string.h>

const char cmd_branches_usage[] = "pdtool branches [OPTIONS] [FILE | -i FILE]";
const char cmd_branches_summary[] =
	"show the taken branches of branch stacks, most mispredicted first";
const char cmd_branches_options[] =
	"  -i, --input FILE      the capture ('-': a pipe-mode stream on\n"
	"                        stdin); the same as FILE\n"
	"  -o, --output FILE     write there instead of stdout\n"
	"      --by LEVEL        what a row is: sym (the functions, as perf\n"
	"                        report --sort symbol_from,symbol_to; the\n"
	"                        default), addr (the instructions) or\n"
	"                        srcline (the source lines)\n"
	"      --sort KEY        mispredicts (the default), count or cycles\n"
	"                        (with --blocks: cycles, the default, or\n"
	"                        count)\n"
	"      --blocks          the basic blocks between consecutive entries\n"
	"                        instead: executions, instructions, cycles\n"
	"                        and IPC per block (--by addr, the default\n"
	"                        here), function (sym) or source line\n"
	"      --format FMT      text (the default), md, json or csv\n"
	"      --event NAME      only samples of event NAME; default: all\n"
	CMD_SYMFILES_HELP
	"      --strict          exit 1 when anything was lost or skipped, or\n"
	"                        a branch's end did not resolve\n"
	"  -j, --jobs N          count the entries on a thread of their own\n"
	"                        while this one reads, when N > 1 (default:\n"
	"                        the online CPUs; 1: no other thread); the\n"
	"                        output is the same for any N\n"
	"  -v, --verbose         more library messages (repeatable); the\n"
	"                        Branch Counter cells by numbers (perf -v)\n"
	"  -h, --help            this help\n";

enum {
	OPT_BY = 256,
	OPT_SORT,
	OPT_FORMAT,
	OPT_EVENT,
	OPT_BLOCKS,
};

struct branches_opts {
	const char *path, *output, *event;
	enum pda_branch_by by;
	bool by_set, sort_set, blocks;
	unsigned jobs;
	enum pda_branch_sort sort;
	enum pde_branches_format format;
	struct cmd_symopts sym;
};

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct branches_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"by", required_argument, NULL, OPT_BY},
		{"sort", required_argument, NULL, OPT_SORT},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"event", required_argument, NULL, OPT_EVENT},
		{"blocks", no_argument, NULL, OPT_BLOCKS},
		CMD_JOBS_LONGOPT,
		CMD_SYMBOL_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
			     .own_shortopts = "o:j:",
			     .own_longopts = longopts};
	int c;

	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1) {
		const char *arg = optarg;

		switch (c) {
		case 'o':
			o->output = arg;
			break;
		case OPT_BY:
			o->by_set = true;
			if (!strcmp(arg, "sym"))
				o->by = PDA_BRANCH_BY_SYM;
			else if (!strcmp(arg, "addr"))
				o->by = PDA_BRANCH_BY_ADDR;
			else if (!strcmp(arg, "srcline"))
				o->by = PDA_BRANCH_BY_SRCLINE;
			else
				usage_error(ctx, "--by '%s': sym, addr or "
						 "srcline", arg);
			break;
		case OPT_SORT:
			o->sort_set = true;
			if (!strcmp(arg, "mispredicts") ||
			    !strcmp(arg, "mispredict"))
				o->sort = PDA_BRANCH_SORT_MISPRED;
			else if (!strcmp(arg, "count"))
				o->sort = PDA_BRANCH_SORT_COUNT;
			else if (!strcmp(arg, "cycles"))
				o->sort = PDA_BRANCH_SORT_CYCLES;
			else
				usage_error(ctx, "--sort '%s': mispredicts, "
						 "count or cycles", arg);
			break;
		case OPT_FORMAT:
			if (!strcmp(arg, "text"))
				o->format = PDE_BRANCHES_TEXT;
			else if (!strcmp(arg, "md"))
				o->format = PDE_BRANCHES_MD;
			else if (!strcmp(arg, "json"))
				o->format = PDE_BRANCHES_JSON;
			else if (!strcmp(arg, "csv"))
				o->format = PDE_BRANCHES_CSV;
			else
				usage_error(ctx, "--format '%s': text, md, "
						 "json or csv", arg);
			break;
		case OPT_EVENT:
			o->event = arg;
			break;
		case OPT_BLOCKS:
			o->blocks = true;
			break;
		case 'j':
		case CMD_OPT_JOBS:
			o->jobs = cmd_jobs(ctx, arg);
			break;
		default:
			/* the only vals left are the symbol options' */
			cmd_symopt(ctx, &o->sym, c, arg);
			break;
		}
	}
	o->path = cmd_opts_input(&p);
	if (o->blocks) {
		/* blocks have no mispredictions: the hot ones take cycles */
		if (o->sort_set && o->sort == PDA_BRANCH_SORT_MISPRED)
			usage_error(ctx, "--sort mispredicts: with --blocks, "
					 "cycles or count");
		if (!o->sort_set)
			o->sort = PDA_BRANCH_SORT_CYCLES;
		if (!o->by_set)
			o->by = PDA_BRANCH_BY_ADDR;
	}
}

struct branches_run {
	struct pd_ctx *ctx;
	const struct branches_opts *o;
	struct pda_branch *b;
	struct pda_capture c;
};

static int branches_one(void *arg, const struct pda_pipe_item *it)
{
	struct branches_run *br = arg;

	return pda_branch_add(br->b, it->sample, it->comm);
}

static int branches_skip(void *arg, enum pda_capture_skip what,
			 const char *why)
{
	struct branches_run *br = arg;

	if (what == PDA_CAPTURE_BAD_SAMPLE &&
	    !pda_capture_stats(&br->c)->nr_bad_samples)
		warning(br->ctx, "'%s': %s", br->o->path, why);
	return 0;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

int cmd_branches(int argc, char **argv, struct pd_ctx *ctx)
{
	struct branches_opts o;
	struct branches_run br = {.ctx = ctx, .o = &o};
	struct pda_filter flt;
	struct cmd_progress prog;
	char err[512] = "";
	const struct pda_branch_totals *t;
	const struct pda_capture_stats *cs;
	struct pda_session *s;
	struct pda_brcntr cntr; /* the branch counters' columns */
	const struct pd_env *env;
	struct pd_file *f;
	FILE *out;
	int rc;

	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, ctx, &o);
	{
		PDA_OPTS(po, .srcline = o.by == PDA_BRANCH_BY_SRCLINE,
			 .errbuf = err, .errbuf_size = sizeof(err));
		PDA_FILTER_OPTS(fo, .event = o.event,
				.flags = PDA_FILTER_TRACEPOINTS);
		PDA_CAPTURE_OPTS(co, .filter = &flt, .no_stack = true,
				 .sample_fn = branches_one,
				 .skip_fn = branches_skip,
				 .progress = cmd_progress_fn,
				 .progress_arg = &prog, .arg = &br);
		PDA_BRANCH_OPTS(bo, .by = o.by, .blocks = o.blocks,
				.threaded = cmd_jobs_fold_thread(o.jobs));

		f = ctx_open_twice(ctx, o.path);
		/* named in messages as the reader names it */
		o.path = cmd_input_name(o.path);
		cmd_pda_opts(ctx, &o.sym, &po);
		rc = pda_session_new(f, &po, &s);
		if (rc < 0)
			die(ctx, "'%s': %s", o.path,
			    err[0] ? err : pd_strerror(rc));
		if (pda_filter_init(&flt, &fo) < 0)
			die(ctx, "%s", pd_strerror(PD_ERR_API));
		rc = pda_branch_new(s, &bo, &br.b);
		if (rc < 0)
			die(ctx, "%s", pd_strerror(rc));
		/* Intel's branch counters, summed per row (a pipe's width
		 * is a feature record of its stream: read first) */
		cmd_pipe_prologue(ctx, o.path, f);
		if (pda_brcntr_init(f, &cntr) == 0 && cntr.nr &&
		    pd_file_env(f, &env) == 0) {
			cntr.exact = ctx->verbose > 0; /* -v: perf's numbers */
			pda_branch_counters(br.b, &cntr, env);
		}
		rc = pda_capture_init(&br.c, f, s, &co);
		if (rc < 0)
			cmd_capture_die(ctx, o.path, &br.c, rc);
	}
	out = ctx_open_output(ctx, o.output);
	cmd_progress_init(&prog, ctx);
	rc = pda_capture_run(&br.c);
	cmd_progress_end(&prog);
	if (rc < 0)
		cmd_capture_die(ctx, o.path, &br.c, rc);
	cs = pda_capture_stats(&br.c);
	cmd_check_kind(ctx, o.path, f, &cs->reader, cs->nr_samples);
	pda_capture_release(&br.c);
	rc = pda_branch_finish(br.b, o.sort);
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	t = pda_branch_totals(br.b);
	if (o.event && !pda_filter_stats(&flt)->nr_event_ok)
		die(ctx, "'%s': no samples of event '%s'", o.path, o.event);
	if (!t->nr_entries && t->nr_samples == t->nr_no_stack)
		die(ctx,
		    "'%s': no branch stacks: its events do not sample them "
		    "(perf record -b or -j records them)",
		    o.path);
	ctx_check_write(ctx,
			o.blocks ? pde_branch_blocks(out, o.format, br.b,
						     (unsigned)o.by)
				 : pde_branches(out, o.format, br.b,
						(unsigned)o.by),
			o.output);
	ctx_close_output(ctx, out, o.output);

	eprintf("pdtool %s: %" PRIu64 " branch entr%s in %" PRIu64
		" stack%s of %" PRIu64 " sample%s; %zu row%s; %.1f%% with "
		"both ends in a symbol; %" PRIu64 " lost",
		ctx->cmd, t->nr_entries, t->nr_entries == 1 ? "y" : "ies",
		t->nr_stacks, PLURAL(t->nr_stacks), t->nr_samples,
		PLURAL(t->nr_samples), t->nr_rows, PLURAL(t->nr_rows),
		pct(t->nr_resolved, t->nr_entries - t->nr_source_only -
					    t->nr_target_only),
		cs->lost);
	if (t->nr_undecoded)
		eprintf("; %" PRIu64 " type%s unknown (binary not found or "
			"not a branch there)",
			t->nr_undecoded, PLURAL(t->nr_undecoded));
	fputc('\n', stderr);
	cmd_fetch_add(ctx, &pda_session_stats(s)->debuginfod);
	cmd_fetch_summary(ctx);
	rc = 0;
	if (ctx->strict &&
	    (cs->lost || cs->nr_bad_samples || cs->reader.damaged ||
	     t->nr_resolved < t->nr_entries || ctx->nr_warnings))
		rc = EXIT_UNRESOLVED;
	pda_branch_free(br.b);
	pda_session_free(s);
	pd_file_close(f);
	return rc;
}
