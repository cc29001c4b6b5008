/*
 * cmd_annotate.c - `pdtool annotate`: the hot functions of a capture,
 * instruction by instruction, with their source.  Samples are counted as
 * perf annotate counts them (analyze/annotate/pda_annotate.c), functions are
 * disassembled with capstone in their binary's own architecture
 * (analyze/annotate/pda_annotate_func.c), and the writers of emit/pde_annotate*.c
 * print them.
 */
#include "pdtool.h"
#include "pda_annotate.h"
#include "pda_branch.h"
#include "pda_capture.h"
#include "pda_datatype.h"
#include "pda_session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cmd_annotate_usage[] =
	"pdtool annotate [OPTIONS] [--symbol NAME] [--dso NAME] "
	"[FILE | -i FILE]";
const char cmd_annotate_summary[] =
	"show hot functions instruction by instruction, with their source";
const char cmd_annotate_options[] =
	"  -i, --input FILE      the capture ('-': a pipe-mode stream on\n"
	"                        stdin); the same as FILE\n"
	"  -o, --output FILE     write there instead of stdout\n"
	"  -s, --symbol NAME     only the function NAME, as perf names it\n"
	"                        (repeatable)\n"
	"  -d, --dso NAME        only functions of the DSO NAME: its path as\n"
	"                        recorded or its file name (repeatable)\n"
	"      --percent-limit P only functions with at least P% of an\n"
	"                        event's samples (default 0: all)\n"
	"      --top N           only the N hottest functions\n"
	"      --percent-type T  local-period (the default), global-period,\n"
	"                        local-hits or global-hits, as perf: periods\n"
	"                        or samples; both the function's (local) and\n"
	"                        the event's (global) share are shown\n"
	"      --event NAME      only samples of event NAME (\"cycles\" or\n"
	"                        \"cycles:u\"); default: every event, a\n"
	"                        column each\n"
	"      --stdio           plain text, no colours (the default on a\n"
	"                        terminal colours hot lines, unless\n"
	"                        NO_COLOR is set)\n"
	"      --no-pager        on a terminal, print instead of going\n"
	"                        through $PAGER (default less)\n"
	"      --format FMT      text, md, html (one standalone page, source\n"
	"                        and assembly side by side) or json\n"
	"  -M, --disassembler-style STYLE\n"
	"                        x86 syntax: att (the default, as objdump) or\n"
	"                        intel\n"
	CMD_SOURCE_HELP
	"      --no-source       no source text, file:line only\n"
	"      --hot-lines N     hottest source lines listed per function\n"
	"                        (default 10)\n"
	"      --no-branch-stack without the branch columns a capture\n"
	"                        with branch stacks (perf record -b) gets:\n"
	"                        per instruction the entries taken from it,\n"
	"                        their mispredict rate, the average cycles\n"
	"                        of the blocks ending there and their IPC\n"
	"      --code-with-type  mark each instruction that loads or stores a\n"
	"                        data type found in DWARF with it, as perf\n"
	"                        >= 6.15: \"# data-type: struct foo +0x8\n"
	"                        (bar)\" (text, html, json)\n"
	CMD_ITRACE_HELP
	"      --data-type[=NAME]\n"
	"                        instead of functions, the data types the\n"
	"                        samples' instructions access (or only\n"
	"                        NAME: \"foo\" or \"struct foo\"): per type its\n"
	"                        members, each with its share of the\n"
	"                        type's samples, as perf >= 6.8; with --dso\n"
	"                        and --event, not --symbol, --top or\n"
	"                        --percent-limit; text, md or json\n"
	"      --cacheline       with --data-type: each type's 64-byte cache\n"
	"                        lines with samples too (from the type's\n"
	"                        start), their share and the fields in\n"
	"                        each: which fields share a line; and the\n"
	"                        lines memory samples' data addresses hit\n"
	"      --symfs DIR       look for binaries under DIR\n"
	CMD_BUILDID_HELP
	"      --kallsyms FILE   kernel symbols: /proc/kallsyms of the\n"
	"                        recording host\n"
	"      --vmlinux FILE    the kernel image, for kernel functions'\n"
	"                        code\n"
	"      --jit-dir DIR     where perf-PID.map and jit-PID.dump files\n"
	"                        are (default /tmp)\n"
	"      --search-path DIR binaries anywhere under DIR, by basename\n"
	"                        and build-id (repeatable)\n"
	"      --no-demangle     C++, Rust and D names as they are\n"
	CMD_SYMBOL_HELP
	"      --strict          exit 1 when a function could not be\n"
	"                        disassembled, a --symbol had no samples, or\n"
	"                        samples were lost or unresolved\n"
	"  -v, --verbose         more library messages (repeatable); the\n"
	"                        Branch Counter cells by numbers and C++\n"
	"                        names with their parameters (perf -v)\n"
	"  -h, --help            this help\n";

enum {
	OPT_PERCENT_LIMIT = 256,
	OPT_TOP,
	OPT_PERCENT_TYPE,
	OPT_EVENT,
	OPT_STDIO,
	OPT_FORMAT,
	OPT_NO_SOURCE,
	OPT_HOT_LINES,
	OPT_NO_PAGER,
	OPT_DATA_TYPE,
	OPT_CODE_WITH_TYPE,
	OPT_NO_BRANCH_STACK,
	OPT_CACHELINE,
};

#define MAX_LIST 256 /* --symbol, --dso each */

struct list {
	const char *v[MAX_LIST];
	size_t nr;
};

struct annotate_opts {
	const char *path;
	const char *output;
	struct list symbols, dsos;
	double percent_limit;
	size_t top;
	bool hits;
	const char *event;
	bool stdio, no_pager;
	enum pde_annot_format format;
	bool intel;
	bool no_source;
	struct cmd_srcopts src;
	size_t hot_lines;
	bool data_type;		/* --data-type */
	bool code_with_type;	/* --code-with-type */
	const char *type_name;	/* its NAME, or NULL */
	bool cacheline;		/* --cacheline */
	bool no_branch_stack;	/* --no-branch-stack */
	struct pda_itrace_opts itrace; /* --itrace (zeroed: perf's default) */
	struct cmd_symopts sym;
};

static void add(struct pd_ctx *ctx, struct list *l, const char *opt,
		const char *v)
{
	if (l->nr == MAX_LIST)
		usage_error(ctx, "more than %d %s options", MAX_LIST, opt);
	l->v[l->nr++] = v;
}

static size_t parse_count(struct pd_ctx *ctx, const char *opt, const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v == 0 ||
	    v > 1000000)
		usage_error(ctx, "%s '%s': a count from 1", opt, arg);
	return v;
}

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct annotate_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"symbol", required_argument, NULL, 's'},
		{"dso", required_argument, NULL, 'd'},
		{"percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT},
		{"top", required_argument, NULL, OPT_TOP},
		{"percent-type", required_argument, NULL, OPT_PERCENT_TYPE},
		{"event", required_argument, NULL, OPT_EVENT},
		{"stdio", no_argument, NULL, OPT_STDIO},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"disassembler-style", required_argument, NULL, 'M'},
		{"no-source", no_argument, NULL, OPT_NO_SOURCE},
		CMD_SOURCE_LONGOPTS,
		{"hot-lines", required_argument, NULL, OPT_HOT_LINES},
		{"no-pager", no_argument, NULL, OPT_NO_PAGER},
		{"data-type", optional_argument, NULL, OPT_DATA_TYPE},
		{"code-with-type", no_argument, NULL, OPT_CODE_WITH_TYPE},
		{"no-branch-stack", no_argument, NULL, OPT_NO_BRANCH_STACK},
		{"cacheline", no_argument, NULL, OPT_CACHELINE},
		CMD_ITRACE_LONGOPT,
		CMD_SYMBOL_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
			     .own_shortopts = "o:s:d:M:",
			     .own_longopts = longopts};
	int c;

	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 's':
			add(ctx, &o->symbols, "--symbol", optarg);
			break;
		case 'd':
			add(ctx, &o->dsos, "--dso", optarg);
			break;
		case OPT_PERCENT_LIMIT: {
			char *end;

			errno = 0;
			o->percent_limit = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(o->percent_limit >= 0 &&
			      o->percent_limit <= 100))
				usage_error(ctx,
					    "--percent-limit '%s': a percentage "
					    "from 0 to 100",
					    optarg);
			break;
		}
		case OPT_TOP:
			o->top = parse_count(ctx, "--top", optarg);
			break;
		case OPT_PERCENT_TYPE:
			if (!strcmp(optarg, "local-period") ||
			    !strcmp(optarg, "global-period"))
				o->hits = false;
			else if (!strcmp(optarg, "local-hits") ||
				 !strcmp(optarg, "global-hits"))
				o->hits = true;
			else
				usage_error(ctx,
					    "--percent-type '%s': local-period, "
					    "global-period, local-hits or "
					    "global-hits",
					    optarg);
			break;
		case OPT_EVENT:
			o->event = optarg;
			break;
		case OPT_STDIO:
			o->stdio = true;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				o->format = PDE_ANNOT_TEXT;
			else if (!strcmp(optarg, "md"))
				o->format = PDE_ANNOT_MD;
			else if (!strcmp(optarg, "html"))
				o->format = PDE_ANNOT_HTML;
			else if (!strcmp(optarg, "json"))
				o->format = PDE_ANNOT_JSON;
			else
				usage_error(ctx,
					    "--format '%s': text, md, html or "
					    "json",
					    optarg);
			break;
		case 'M':
			if (!strcmp(optarg, "intel"))
				o->intel = true;
			else if (!strcmp(optarg, "att"))
				o->intel = false;
			else
				usage_error(ctx,
					    "--disassembler-style '%s': att or "
					    "intel",
					    optarg);
			break;
		case OPT_NO_SOURCE:
			o->no_source = true;
			break;
		case OPT_HOT_LINES:
			o->hot_lines = parse_count(ctx, "--hot-lines", optarg);
			break;
		case OPT_NO_PAGER:
			o->no_pager = true;
			break;
		case OPT_CODE_WITH_TYPE:
			o->code_with_type = true;
			break;
		case OPT_NO_BRANCH_STACK:
			o->no_branch_stack = true;
			break;
		case CMD_OPT_ITRACE:
		case CMD_OPT_SPE_EVENTS:
			cmd_itrace(ctx, c, optarg, &o->itrace);
			break;
		case OPT_DATA_TYPE:
			o->data_type = true;
			o->type_name = optarg && *optarg ? optarg : NULL;
			break;
		case OPT_CACHELINE:
			o->cacheline = true;
			break;
		default:
			/* the only vals left are the source and symbol
			 * options' */
			if (!cmd_source_opt(ctx, &o->src, c, optarg))
				cmd_symopt(ctx, &o->sym, c, optarg);
			break;
		}
	}
	o->path = cmd_opts_input(&p);
	if (o->stdio && o->format != PDE_ANNOT_TEXT)
		usage_error(ctx, "--stdio is the text format: not with "
				 "--format");
	/* a type's accesses come from many functions: the function
	 * filters do not select types */
	if (o->data_type && (o->symbols.nr || o->top || o->percent_limit > 0))
		usage_error(ctx, "--data-type: not with --symbol, --top or "
				 "--percent-limit");
	if (o->data_type && o->code_with_type)
		usage_error(ctx, "--data-type and --code-with-type: one view "
				 "at a time");
	if (o->code_with_type && o->format == PDE_ANNOT_MD)
		usage_error(ctx, "--code-with-type: text, html or json (md "
				 "lists no instructions)");
	if (o->data_type && o->format == PDE_ANNOT_HTML)
		usage_error(ctx, "--data-type: text, md or json");
	if (o->cacheline && !o->data_type)
		usage_error(ctx, "--cacheline: the data types' view: give "
				 "--data-type");
}

/* --dso NAME: the recorded path or its last component. */
static bool dso_wanted(const struct annotate_opts *o, const char *dso)
{
	const char *base;

	if (!o->dsos.nr)
		return true;
	if (!dso)
		return false;
	base = strrchr(dso, '/');
	base = base ? base + 1 : dso;
	for (size_t i = 0; i < o->dsos.nr; i++)
		if (!strcmp(o->dsos.v[i], dso) || !strcmp(o->dsos.v[i], base))
			return true;
	return false;
}

/* --symbol NAME: the name as shown; which names were met in *met. */
static bool symbol_wanted(const struct annotate_opts *o, const char *name,
			  bool *met)
{
	bool any = false;

	if (!o->symbols.nr)
		return true;
	for (size_t i = 0; i < o->symbols.nr; i++)
		if (!strcmp(o->symbols.v[i], name)) {
			met[i] = true;
			any = true;
		}
	return any;
}

/*
 * The annotation, made once the capture's events are known: a pipe-mode
 * stream names them in HEADER_ATTR records ahead of its first sample.
 * @return 0 or a negative pd_err.
 */
static int new_annot(const struct annotate_opts *o, struct pd_file *f,
		     struct pda_session *s, struct pda_annot **out,
		     size_t *nr_events)
{
	size_t nr = pd_file_nr_evsels(f);
	PDA_ANNOT_OPTS(ao, .nr_events = nr ? nr : 1,
		       .syntax = o->intel ? PDA_SYNTAX_INTEL : PDA_SYNTAX_ATT,
		       .no_source = o->no_source);

	cmd_source_annot_opts(&o->src, &ao);
	*nr_events = ao.nr_events;
	return pda_annot_new(s, &ao, out);
}

/* What the capture's callbacks see. */
struct annot_run {
	struct pd_ctx *ctx;
	const struct annotate_opts *o;
	struct pd_file *f;
	struct pda_session *s;
	struct pda_annot *a;
	size_t nr_events;	/* the annotation's */
	uint64_t no_event;	/* samples of no event it knows */
	uint64_t other_events;	/* of others than --event's */
	bool new_failed;	/* new_annot() failed */
	struct pda_capture c;
	struct pda_branch_annot *br;	/* branch counts, unless
					 * --no-branch-stack */
	bool synth;	/* samples were synthesized from an AUX trace
			 * (--itrace), as pda_capture_itrace() said
			 * before the capture's release */
};

/* rc, a sample's failure, stops the capture with its message. */
static int sample_err(struct annot_run *ar, int rc)
{
	return pda_capture_set_err(&ar->c, rc, "%s",
				   pda_session_failure(ar->s, rc));
}

static int annotate_one(void *arg, const struct pda_pipe_item *it)
{
	struct annot_run *ar = arg;
	const struct pd_sample *sample = it->sample;
	int rc;

	if (!ar->a) {
		rc = new_annot(ar->o, ar->f, ar->s, &ar->a, &ar->nr_events);
		if (rc < 0) {
			ar->new_failed = true;
			return rc;
		}
	}
	if (sample->evsel->idx >= ar->nr_events) {
		/* an event announced after the first sample */
		ar->no_event += it->count;
		return 0;
	}
	rc = pda_annot_add_n(ar->a, sample, sample->evsel->idx, it->count);
	if (rc >= 0 && ar->br)
		rc = pda_branch_annot_add(ar->br, sample, it->comm);
	return rc < 0 ? sample_err(ar, rc) : 0;
}

/* The first sample that does not decode gets a warning. */
static int annotate_skip(void *arg, enum pda_capture_skip what,
			 const char *why)
{
	struct annot_run *ar = arg;

	if (what == PDA_CAPTURE_BAD_SAMPLE &&
	    !pda_capture_stats(&ar->c)->nr_bad_samples)
		warning(ar->ctx, "'%s': %s", ar->o->path, why);
	return 0;
}

/*
 * The samples through the capture loop, in time order; only their
 * leaves matter, so their stacks are not resolved.  Samples of no known
 * event are left out (counted), and of other events than --event's.
 */
static void read_samples(struct pd_ctx *ctx, struct annot_run *ar)
{
	const struct annotate_opts *o = ar->o;
	struct cmd_progress prog;
	struct pda_filter flt;
	PDA_FILTER_OPTS(fo, .event = o->event,
			.flags = PDA_FILTER_TRACEPOINTS | PDA_FILTER_NEED_EVENT);
	/* counted: samples alike (an address's, a thread's) come as one
	 * item with their count, resolved once (a branch stack's never
	 * do: its cycles are counted sample by sample) */
	PDA_CAPTURE_OPTS(co, .filter = &flt, .no_stack = true,
			 .counted = true,
			 .itrace = &o->itrace, .sample_fn = annotate_one,
			 .skip_fn = annotate_skip, .progress = cmd_progress_fn, .progress_arg = &prog,
			 .arg = ar);
	const struct pda_filter_stats *fs;
	int rc;

	if (pda_filter_init(&flt, &fo) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_API));
	rc = pda_capture_init(&ar->c, ar->f, ar->s, &co);
	if (rc < 0 && pda_capture_failed_in(&ar->c) == PDA_CAPTURE_READER)
		die(ctx, "'%s': %s", o->path, pda_capture_errmsg(&ar->c));
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	cmd_progress_init(&prog, ctx);
	rc = pda_capture_run(&ar->c);
	cmd_progress_end(&prog);
	ar->synth = pda_capture_itrace(&ar->c) != NULL;
	/* the threads and the reader go before the annotation's work */
	pda_capture_release(&ar->c);
	if (rc < 0 && ar->new_failed)
		die(ctx, "%s", pd_strerror(rc));
	if (rc < 0)
		die(ctx, "'%s': %s", o->path,
		    rc == PD_ERR_NOMEM && pda_capture_failed_in(&ar->c) !=
						  PDA_CAPTURE_READER
			    ? pd_strerror(rc)
			    : pda_capture_errmsg(&ar->c));
	if (!ar->a) {
		rc = new_annot(o, ar->f, ar->s, &ar->a, &ar->nr_events);
		if (rc < 0)
			die(ctx, "%s", pd_strerror(rc));
	}
	fs = pda_filter_stats(&flt);
	ar->no_event += fs->by_reason[PDA_FILTER_OUT_NO_EVENT];
	ar->other_events = fs->by_reason[PDA_FILTER_OUT_EVENT];
}

/* The names of nr events, "?" past the capture's (freed by the
 * caller). */
static const char **event_names(struct pd_ctx *ctx, const struct pd_file *f,
				size_t nr)
{
	const char **events = calloc(nr ? nr : 1, sizeof(*events));

	if (!events)
		die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
	for (size_t ev = 0; ev < nr; ev++)
		events[ev] = ev < pd_file_nr_evsels(f) ? pd_file_evsel(f, ev)->name
						       : "?";
	return events;
}

/* The length of a --code-with-type note: a type and a member path. */
#define NOTE_MAX 512

/*
 * --code-with-type: the notes of fn's instructions into *notes (each
 * NULL or a string of *buf; both grown as needed), as perf 7.2 writes
 * them: "TYPE +OFF" and " (MEMBER)" with a member; only types found in
 * DWARF, not (unknown) or the pseudo types.  @return 0 or a negative
 * pd_err.
 */
static int type_notes(struct pda_datatype *dt, const struct pda_annot_func *fn,
		      const char ***notes, char **buf)
{
	const char **n;
	char *b;

	free(*notes);
	free(*buf);
	*notes = n = calloc(fn->nr_insns ? fn->nr_insns : 1, sizeof(*n));
	*buf = b = malloc((fn->nr_insns ? fn->nr_insns : 1) * NOTE_MAX);
	if (!n || !b)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < fn->nr_insns; i++) {
		struct pda_datatype_res res;
		char *p = b + i * NOTE_MAX;
		int len;
		const int rc = pda_datatype_insn(dt, fn, i, &res);

		if (rc < 0)
			return rc;
		if (res.kind != PDA_DATATYPE_TYPE)
			continue;
		len = res.offset ? snprintf(p, NOTE_MAX, "%s +%#" PRIx64,
					    res.type, (uint64_t)res.offset)
				 : snprintf(p, NOTE_MAX, "%s +0", res.type);
		if (res.member && len >= 0 && len < NOTE_MAX)
			snprintf(p + len, NOTE_MAX - (size_t)len, " (%s)",
				 res.member);
		n[i] = p;
	}
	return 0;
}

/* Whether an event of f samples branch stacks (perf record -b). */
static bool has_branch_stack(struct pd_file *f)
{
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
		if (pd_file_evsel(f, i)->attr.sample_type &
		    PD_SAMPLE_BRANCH_STACK)
			return true;
	return false;
}

/* The functions of a with samples (the others are there for their
 * branch entries). */
static size_t nr_sampled(const struct pda_annot *a, size_t nr_events)
{
	size_t n = 0;

	for (size_t i = 0; i < pda_annot_nr_syms(a); i++) {
		const struct pda_annot_sym *sym = pda_annot_sym(a, i);

		for (size_t ev = 0; ev < nr_events; ev++)
			if (sym->counts[ev].hits) {
				n++;
				break;
			}
	}
	return n;
}

/* pda_branch_annot_each(): a function an entry left, annotated. */
static int add_func(void *arg, struct pda_dso *dso, const char *dso_name,
		    const char *name, uint64_t start, bool kernel)
{
	return pda_annot_add_func(arg, dso, dso_name, name, start, kernel);
}

/*
 * The branch counts of fn's instructions into *brs (*addrs their
 * addresses; both grown as needed).  @return 1, 0 when no branch left
 * fn, or a negative pd_err.
 */
static int branch_counts(const struct pda_branch_annot *br,
			 const struct pda_annot_func *fn, uint64_t **addrs,
			 struct pda_branch_insn **brs)
{
	const size_t n = fn->nr_insns ? fn->nr_insns : 1;

	free(*addrs);
	free(*brs);
	*addrs = malloc(n * sizeof(**addrs));
	*brs = malloc(n * sizeof(**brs));
	if (!*addrs || !*brs)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < fn->nr_insns; i++)
		(*addrs)[i] = fn->insns[i].addr;
	return pda_branch_annot_func(br, fn->sym->dso, fn->sym->start, *addrs,
				     fn->nr_insns, *brs);
}

/* --data-type: pdtool types's view, with annotate's options. */
static int data_types(struct pd_ctx *ctx, const struct annotate_opts *o)
{
	const char *dsos[MAX_LIST + 1] = {NULL};
	struct cmd_types_opts to = {
		.path = o->path,
		.output = o->output,
		.type_name = o->type_name,
		.event = o->event,
		.format = o->format,
		.stdio = o->stdio,
		.no_pager = o->no_pager,
		.cacheline = o->cacheline,
		.dsos = o->dsos.nr ? dsos : NULL,
		.sym = &o->sym,
		.itrace = &o->itrace,
	};

	memcpy(dsos, o->dsos.v, o->dsos.nr * sizeof(*dsos));
	return cmd_types_run(ctx, &to);
}

int cmd_annotate(int argc, char **argv, struct pd_ctx *ctx)
{
	struct annotate_opts o;
	struct pd_file *f;
	struct pda_session *s;
	struct pda_annot *a;
	struct pde_annot w;
	struct annot_run ar = {.ctx = ctx, .o = &o};
	const struct pda_capture_stats *cs;
	const struct pda_stats *ps;
	uint64_t lost;
	const char **events;
	bool met[MAX_LIST] = {false};
	char err[512] = "";
	size_t nr_events, nr_shown = 0, nr_failed = 0;
	struct pda_datatype *cwt = NULL; /* --code-with-type */
	const char **notes = NULL;
	char *notes_buf = NULL;
	uint64_t *addrs = NULL;		/* branch_counts()'s */
	struct pda_branch_insn *brs = NULL;
	struct pda_brcntr brcntr = {0}; /* the branch counters' columns */
	const struct pd_env *env = NULL;
	FILE *out;
	bool color;
	int rc;

	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, ctx, &o);
	if (o.data_type)
		return data_types(ctx, &o);
	f = ctx_open_twice(ctx, o.path);
	/* an unwritable -o fails here, not after the work */
	out = ctx_open_output(ctx, o.output);
	{
		PDA_OPTS(po, .no_inline = true, .errbuf = err,
			 .errbuf_size = sizeof(err));

		cmd_pda_opts(ctx, &o.sym, &po);
		/* perf -v demangles C++ names with their parameters */
		po.demangle_params = ctx->verbose > 0;
		rc = pda_session_new(f, &po, &s);
		if (rc < 0)
			die(ctx, "'%s': %s", o.path,
			    err[0] ? err : pd_strerror(rc));
	}
	ar.f = f;
	ar.s = s;
	if (o.code_with_type && pda_datatype_new(s, &cwt) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
	/* a pipe's events and counter width are records of its stream:
	 * read them first */
	if (!o.no_branch_stack)
		cmd_pipe_prologue(ctx, o.path, f);
	if (!o.no_branch_stack && has_branch_stack(f) &&
	    pda_branch_annot_new(s, &ar.br) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_NOMEM));
	if (ar.br && pda_brcntr_init(f, &brcntr) == 0 && brcntr.nr &&
	    pd_file_env(f, &env) == 0) {
		brcntr.exact = ctx->verbose > 0; /* -v: perf's numbers */
		pda_branch_annot_counters(ar.br, &brcntr, env);
	}
	else
		brcntr.nr = 0;
	read_samples(ctx, &ar);
	a = ar.a;
	nr_events = ar.nr_events;
	if (ar.br) {
		rc = pda_branch_annot_each(ar.br, add_func, a);
		if (rc < 0)
			die(ctx, "%s", pd_strerror(rc));
	}
	cs = pda_capture_stats(&ar.c);
	if (!ar.synth)
		cmd_check_kind(ctx, o.path, f, &cs->reader, cs->nr_samples);
	lost = cs->lost;
	rc = pda_annot_finish(a);
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));

	events = event_names(ctx, f, nr_events);
	ps = pda_session_stats(s);
	color = o.format == PDE_ANNOT_TEXT && !o.stdio && out == ctx->out &&
		ctx_use_color();
	if (out == ctx->out && !o.no_pager)
		ctx_start_pager(ctx);
	{
		struct pde_annot_opts wo = {
			.format = o.format,
			.color = color,
			.hits = o.hits,
			.events = events,
			.nr_events = nr_events,
			.input = o.path,
			.nr_hot_lines = o.hot_lines,
			.unresolved = ps->unresolved_dsos,
			.nr_unresolved = ps->nr_unresolved_dsos,
			.brcntr = brcntr.nr ? &brcntr : NULL,
		};

		ctx_check_write(ctx, pde_annot_begin(&w, out, a, &wo),
				o.output);
	}
	for (size_t i = 0; i < pda_annot_nr_syms(a); i++) {
		const struct pda_annot_sym *sym = pda_annot_sym(a, i);
		struct pda_annot_func *fn;

		if (o.top && nr_shown == o.top)
			break;
		if (!symbol_wanted(&o, sym->name, met) ||
		    !dso_wanted(&o, sym->dso) ||
		    100.0 * sym->share < o.percent_limit)
			continue;
		rc = pda_annot_func_new(a, i, &fn);
		/* one function's model not fitting in memory loses only it */
		if (rc == PD_ERR_NOMEM) {
			nr_failed++;
			warning(ctx, "%s (%s): skipped: out of memory", sym->name,
				sym->dso ? sym->dso : "?");
			continue;
		}
		if (rc < 0)
			die(ctx, "%s", pd_strerror(rc));
		if (fn->error) {
			nr_failed++;
			if (ctx->verbose)
				warning(ctx, "%s (%s): %s", sym->name,
					sym->dso ? sym->dso : "?", fn->error);
		}
		if (cwt) {
			rc = type_notes(cwt, fn, &notes, &notes_buf);
			if (rc < 0)
				die(ctx, "%s", pd_strerror(rc));
			w.notes = notes;
		}
		if (ar.br) {
			rc = branch_counts(ar.br, fn, &addrs, &brs);
			if (rc < 0)
				die(ctx, "%s", pd_strerror(rc));
			w.branches = rc ? brs : NULL;
		}
		ctx_check_write(ctx, pde_annot_func(&w, fn), o.output);
		pda_annot_func_free(a, fn);
		nr_shown++;
	}
	ctx_check_write(ctx, pde_annot_end(&w), o.output);
	ctx_close_output(ctx, out, o.output);
	/* through a pager, stderr shares the pipe: the text first */
	fflush(ctx->out);

	eprintf("pdtool %s: %" PRIu64 " sample%s, %zu function%s with "
		"samples",
		ctx->cmd, cs->nr_samples, PLURAL(cs->nr_samples),
		nr_sampled(a, nr_events), PLURAL(nr_sampled(a, nr_events)));
	if (ar.br)
		eprintf(" (%zu with branch entries only)",
			pda_annot_nr_syms(a) - nr_sampled(a, nr_events));
	eprintf(", %zu annotated", nr_shown);
	if (nr_failed)
		eprintf(" (%zu without disassembly%s)", nr_failed,
			ctx->verbose ? "" : ": -v says why");
	eprintf("; %" PRIu64 " sample%s without a symbol; %" PRIu64 " lost",
		pda_annot_nr_unresolved(a), PLURAL(pda_annot_nr_unresolved(a)),
		lost);
	if (ar.other_events)
		eprintf("; %" PRIu64 " of other events", ar.other_events);
	if (ar.no_event)
		eprintf("; %" PRIu64 " of no known event", ar.no_event);
	fputc('\n', stderr);
	cmd_unresolved_block(ctx, ps, cs->nr_samples, NULL);
	cmd_source_withheld(ctx, &o.src, &o.sym, pda_annot_nr_withheld(a));
	cmd_fetch_add(ctx, &ps->debuginfod);
	cmd_fetch_summary(ctx);
	rc = 0;
	for (size_t i = 0; i < o.symbols.nr; i++) {
		if (met[i])
			continue;
		/* a function of a binary not resolved has its samples
		 * among those without a symbol: say so, not "none" */
		if (pda_annot_nr_unresolved(a))
			eprintf("pdtool %s: no samples in '%s' among those "
				"with a symbol; %" PRIu64 " samples have none "
				"(above: by binary, why)\n",
				ctx->cmd, o.symbols.v[i],
				pda_annot_nr_unresolved(a));
		else
			eprintf("pdtool %s: no samples in '%s'\n", ctx->cmd,
				o.symbols.v[i]);
		if (ctx->strict)
			rc = EXIT_UNRESOLVED;
	}
	if (ctx->strict && (nr_failed || lost || cs->nr_bad_samples ||
			    pda_annot_nr_unresolved(a) || ctx->nr_warnings))
		rc = EXIT_UNRESOLVED;
	free(events);
	free(notes);
	free(notes_buf);
	free(addrs);
	free(brs);
	pda_branch_annot_free(ar.br);
	pda_datatype_free(cwt);
	pda_annot_free(a);
	pda_session_free(s);
	pd_file_close(f);
	return rc;
}
