/*
 * cmd_mem.c - `pdtool mem`: the memory samples of a capture (those with
 * PERF_SAMPLE_DATA_SRC: `perf mem record` on x86, AMD IBS, Arm SPE's
 * synthesized samples) by data source level, snoop, TLB, lock, function,
 * data symbol, cache line and data type, with latency distributions
 * (analyze/mem/pda_mem.c aggregates, emit/pde_mem.c writes; the data
 * types are analyze/datatype's, from the sampled instruction).
 */
#include "pdtool.h"
#include "pda_capture.h"
#include "pda_datatype.h"
#include "pda_itrace.h"
#include "pda_mem.h"
#include "pda_session.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char cmd_mem_usage[] = "pdtool mem [OPTIONS] [FILE | -i FILE]";
const char cmd_mem_summary[] =
	"show memory samples by data source, TLB, symbol and cache line";
const char cmd_mem_options[] =
	"  -i, --input FILE      the capture ('-': a pipe-mode stream on\n"
	"                        stdin); the same as FILE\n"
	"  -o, --output FILE     write there instead of stdout\n"
	"      --view LIST       the tables, comma-separated: level (the\n"
	"                        data source, perf's mem key), snoop, tlb,\n"
	"                        lock, sym (the functions), dsym (the data\n"
	"                        symbols; unresolved addresses by object),\n"
	"                        line (64-byte cache lines, the lines\n"
	"                        several CPUs touched with HITM or peer\n"
	"                        snoops first), hist (latency histogram per\n"
	"                        level), type (the data type and member\n"
	"                        each instruction accesses, by data source\n"
	"                        level, as perf >= 6.8's mem report -T,\n"
	"                        with the object's cache lines the data\n"
	"                        addresses hit); default: all but type\n"
	"  -T, --type-profile    the type table too, as perf mem report's\n"
	"                        -T\n"
	"  -t, --type TYPE       load, store or all (the default), as perf\n"
	"                        mem's -t\n"
	"      --top N           at most N rows per table (default: all)\n"
	"      --format FMT      text (the default), md, json or csv\n"
	"      --event NAME      only samples of event NAME; default: every\n"
	"                        event with data sources\n"
	CMD_ITRACE_HELP
	"                        (here the default is M, every load and\n"
	"                        store once; with --event, perf's set)\n"
	CMD_SYMFILES_HELP
	"      --strict          exit 1 when anything was lost or skipped\n"
	"  -v, --verbose         more library messages (repeatable)\n"
	"  -h, --help            this help\n";

enum {
	OPT_VIEW = 256,
	OPT_TOP,
	OPT_FORMAT,
	OPT_EVENT,
	OPT_TYPE_PROFILE,
};

/* perf's union perf_mem_data_src op bits */
#define DS_OP_LOAD 2u
#define DS_OP_STORE 4u

struct mem_opts {
	const char *path, *output, *event;
	unsigned op;	/* DS_OP_* to keep; 0: all */
	struct pde_mem_opts emit;
	struct pda_itrace_opts itrace;
	struct cmd_symopts sym;
};

static unsigned parse_views(const struct pd_ctx *ctx, const char *arg)
{
	unsigned views = 0;
	const char *p = arg;

	while (*p) {
		const size_t n = strcspn(p, ",");
		unsigned v;

		for (v = 0; v < PDA_MEM_NR_VIEWS; v++) {
			const char *name = pda_mem_view_name(v);

			if (strlen(name) == n && !strncmp(p, name, n))
				break;
		}
		if (v < PDA_MEM_NR_VIEWS)
			views |= 1u << v;
		else if (n == 4 && !strncmp(p, "hist", 4))
			views |= PDE_MEM_HIST_VIEW;
		else
			usage_error(ctx,
				    "--view '%s': level, snoop, tlb, lock, "
				    "sym, dsym, line, type or hist, "
				    "comma-separated",
				    arg);
		p += n;
		if (*p)
			p++;
	}
	if (!views)
		usage_error(ctx, "--view '%s': no table named", arg);
	return views;
}

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct mem_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"type", required_argument, NULL, 't'},
		{"view", required_argument, NULL, OPT_VIEW},
		{"top", required_argument, NULL, OPT_TOP},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"event", required_argument, NULL, OPT_EVENT},
		{"type-profile", no_argument, NULL, 'T'},
		CMD_ITRACE_LONGOPT,
		CMD_SYMBOL_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
			     .own_shortopts = "o:t:T",
			     .own_longopts = longopts};
	bool itrace = false, type_profile = false;
	int c;

	o->emit.views = (((1u << PDA_MEM_NR_VIEWS) - 1) &
			 ~(1u << PDA_MEM_TYPE)) |
			PDE_MEM_HIST_VIEW;
	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1) {
		const char *arg = optarg;
		char *end;

		switch (c) {
		case 'o':
			o->output = arg;
			break;
		case 't':
			if (!strcmp(arg, "load"))
				o->op = DS_OP_LOAD;
			else if (!strcmp(arg, "store"))
				o->op = DS_OP_STORE;
			else if (!strcmp(arg, "all"))
				o->op = 0;
			else
				usage_error(ctx, "--type '%s': load, store "
						 "or all", arg);
			break;
		case OPT_VIEW:
			o->emit.views = parse_views(ctx, arg);
			break;
		case OPT_TOP:
			o->emit.top = strtoul(arg, &end, 10);
			if (*end || !*arg || arg[0] == '-' || !o->emit.top)
				usage_error(ctx, "--top '%s': a number > 0",
					    arg);
			break;
		case OPT_FORMAT:
			if (!strcmp(arg, "text"))
				o->emit.format = PDE_MEM_TEXT;
			else if (!strcmp(arg, "md"))
				o->emit.format = PDE_MEM_MD;
			else if (!strcmp(arg, "json"))
				o->emit.format = PDE_MEM_JSON;
			else if (!strcmp(arg, "csv"))
				o->emit.format = PDE_MEM_CSV;
			else
				usage_error(ctx, "--format '%s': text, md, "
						 "json or csv", arg);
			break;
		case OPT_EVENT:
			o->event = arg;
			break;
		case 'T':
			type_profile = true;
			break;
		case CMD_OPT_ITRACE:
			itrace = true;
			cmd_itrace(ctx, c, arg, &o->itrace);
			break;
		case CMD_OPT_SPE_EVENTS:
			cmd_itrace(ctx, c, arg, &o->itrace);
			break;
		default:
			cmd_symopt(ctx, &o->sym, c, arg);
			break;
		}
	}
	if (type_profile)
		o->emit.views |= 1u << PDA_MEM_TYPE;
	o->path = cmd_opts_input(&p);
	/* an SPE record is a sample of several events (l1d-miss, memory,
	 * ...): each access counted once unless asked otherwise; --event
	 * picks one of perf's default set (--event l1d-miss) */
	if (!itrace)
		cmd_itrace(ctx, CMD_OPT_ITRACE, o->event ? NULL : "M",
			   &o->itrace);
}

struct mem_run {
	struct pd_ctx *ctx;
	const struct mem_opts *o;
	struct pda_mem *m;
	struct pda_datatype *dt; /* the type view's, or NULL */
	struct pda_capture c;
	uint64_t nr_other_op;
};

static int mem_one(void *arg, const struct pda_pipe_item *it)
{
	struct mem_run *mr = arg;
	const struct pd_sample *s = it->sample;

	if (mr->o->op && (s->mask & PD_SAMPLE_DATA_SRC) &&
	    !(s->data_src & mr->o->op)) {
		mr->nr_other_op++;
		return 0;
	}
	if (mr->dt && (s->mask & PD_SAMPLE_DATA_SRC)) {
		const struct pda_datatype_res *res;
		const char *typeoff;
		int rc = pda_datatype_sample(mr->dt, s, NULL, &res);

		if (rc < 0)
			return rc;
		typeoff = pda_datatype_typeoff(mr->dt, res);
		if (!typeoff)
			return PD_ERR_NOMEM;
		/* a type's offset places the access in the object's lines
		 * (a pseudo type has no layout) */
		return pda_mem_add_type(mr->m, s, typeoff, res->dso,
					res->global ? res->var : NULL,
					res->kind == PDA_DATATYPE_TYPE
						? res->offset
						: -1);
	}
	return pda_mem_add(mr->m, s);
}

static int mem_skip(void *arg, enum pda_capture_skip what, const char *why)
{
	struct mem_run *mr = arg;

	if (what != PDA_CAPTURE_STACK_ERROR)
		cmd_capture_skip_warn(mr->ctx, &mr->c, mr->o->path, what, why);
	return 0;
}

int cmd_mem(int argc, char **argv, struct pd_ctx *ctx)
{
	struct mem_opts o;
	struct mem_run mr = {.ctx = ctx, .o = &o};
	struct pda_filter flt;
	struct cmd_progress prog;
	char err[512] = "";
	const struct pda_mem_totals *t;
	const struct pda_capture_stats *cs;
	struct pda_session *s;
	struct pd_file *f;
	unsigned views;
	FILE *out;
	int rc;

	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, ctx, &o);
	{
		PDA_OPTS(po, .errbuf = err, .errbuf_size = sizeof(err));
		PDA_FILTER_OPTS(fo, .event = o.event,
				.flags = PDA_FILTER_TRACEPOINTS);
		PDA_CAPTURE_OPTS(co, .filter = &flt, .no_stack = true,
				 .itrace = &o.itrace, .sample_fn = mem_one,
				 .skip_fn = mem_skip,
				 .progress = cmd_progress_fn,
				 .progress_arg = &prog, .arg = &mr);

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
		if (pda_mem_new(s, &mr.m) < 0)
			die(ctx, "out of memory");
		/* the histogram is the level rows' */
		views = o.emit.views | (o.emit.views & PDE_MEM_HIST_VIEW
						? 1u << PDA_MEM_LEVEL
						: 0);
		pda_mem_views(mr.m, views);
		if ((o.emit.views & (1u << PDA_MEM_TYPE)) &&
		    pda_datatype_new(s, &mr.dt) < 0)
			die(ctx, "out of memory");
		rc = pda_capture_init(&mr.c, f, s, &co);
		if (rc < 0)
			cmd_capture_die(ctx, o.path, &mr.c, rc);
	}
	cmd_progress_init(&prog, ctx);
	rc = pda_capture_run(&mr.c);
	cmd_progress_end(&prog);
	if (rc < 0)
		cmd_capture_die(ctx, o.path, &mr.c, rc);
	cs = pda_capture_stats(&mr.c);
	cmd_check_kind_synth(ctx, o.path, f, &cs->reader, cs->nr_samples,
			     pda_capture_itrace(&mr.c));
	o.emit.spe = pda_capture_itrace(&mr.c) != NULL;
	if (o.event && !pda_filter_stats(&flt)->nr_event_ok)
		die(ctx, "'%s': no samples of event '%s'", o.path, o.event);
	pda_capture_release(&mr.c);
	if (pda_mem_finish(mr.m, views) < 0)
		die(ctx, "out of memory");
	t = pda_mem_totals(mr.m);
	if (!t->nr_samples && !mr.nr_other_op)
		die(ctx,
		    "'%s': no memory samples: none has a data source (perf "
		    "mem record, perf record --data-src, or an Arm SPE "
		    "trace, has them)",
		    o.path);
	out = ctx_open_output(ctx, o.output);
	ctx_check_write(ctx, pde_mem(out, &o.emit, mr.m), o.output);
	ctx_close_output(ctx, out, o.output);

	eprintf("pdtool %s: %" PRIu64 " memory sample%s (%" PRIu64
		" load%s, %" PRIu64 " store%s); %" PRIu64 " lost",
		ctx->cmd, t->nr_samples, PLURAL(t->nr_samples), t->loads,
		PLURAL(t->loads), t->stores, PLURAL(t->stores), cs->lost);
	if (t->nr_no_data_src)
		eprintf("; %" PRIu64 " sample%s without a data source left "
			"out",
			t->nr_no_data_src, PLURAL(t->nr_no_data_src));
	if (mr.nr_other_op)
		eprintf("; %" PRIu64 " of another type left out",
			mr.nr_other_op);
	fputc('\n', stderr);
	if (mr.dt)
		cmd_type_coverage(ctx, mr.dt);
	cmd_fetch_add(ctx, &pda_session_stats(s)->debuginfod);
	cmd_fetch_summary(ctx);
	rc = 0;
	if (ctx->strict && (cs->lost || cs->nr_bad_samples ||
			    cs->reader.damaged || ctx->nr_warnings))
		rc = EXIT_UNRESOLVED;
	pda_datatype_free(mr.dt);
	pda_mem_free(mr.m);
	pda_session_free(s);
	pd_file_close(f);
	return rc;
}
