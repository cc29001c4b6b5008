/*
 * cmd_diff.c - `pdtool diff`: what changed between two builds (or runs),
 * and whether it is real: a report of the largest changes per symbol and
 * per DSO with their significance, difffolded.pl's folded lines, and a
 * differential flame graph.
 *
 * Each input is a capture, folded here as `pdtool fold` folds it (through
 * the capture loop of libpda, pda_capture.h), or folded stacks; its
 * first bytes tell, as for `pdtool flame`.  The stacks go into a
 * pda_diff (analyze/profile/pda_diff.c), which normalises names, compares and
 * tests; emit/pde_diff.c and emit/pde_flame.c write the results.
 */
#include "pdtool.h"
#include "pdc_alloc.h"
#include "pda_capture.h"
#include "pda_diff.h"
#include "pda_flame.h"
#include "pda_fold.h"
#include "pda_parallel.h"
#include "pda_session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cmd_diff_usage[] =
	"pdtool diff [OPTIONS] [A B | A1 A2... -- B1 B2...]";
const char cmd_diff_summary[] =
	"compare two profiles: what changed, and whether it is real";
const char cmd_diff_options[] =
	"  A, B                  the profiles before (A) and after (B): perf.data\n"
	"                        captures or folded stacks, mixed as needed;\n"
	"                        several captures a side go before and after\n"
	"                        '--'.  perf stat record captures compare\n"
	"                        counter by counter: each event and derived\n"
	"                        metric, its change, and (several runs a\n"
	"                        side) its noise; -o writes that table\n"
	"      --folded          print difffolded.pl's format, \"stack\n"
	"                        countA countB\" (A at B's scale), not the\n"
	"                        report\n"
	"  -o, --output FILE     also write a differential flame graph (SVG)\n"
	"      --negate          the flame graph shaped like A (default: B)\n"
	"      --title TEXT      its title (default \"Differential Flame "
	"Graph\")\n"
	"      --width PX        its width (default 1200)\n"
	"      --minwidth PX     leave out frames narrower (default 0.1)\n"
	"      --scale HOW       total (default): each side over its samples;\n"
	"                        none: samples as they are; SYMBOL: per sample\n"
	"                        of SYMBOL (inclusive), a unit of work\n"
	"      --no-normalize-names  match names exactly (default: strip\n"
	"                        .cold, .isra.N, .constprop.N, .part.N,\n"
	"                        .lto_priv.N and Rust's ::h<hash>)\n"
	"      --format FMT      the report as text (default) or markdown;\n"
	"                        perf stat record captures: text or json\n"
	"      --top N           changes a table (default 20; 0: all)\n"
	"      --min-delta X     leave out changes smaller than X (the\n"
	"                        report's unit: points of a percentage, or\n"
	"                        samples with --scale none)\n"
	"      --significant     only changes beyond every test made\n"
	"      --alpha P         significance level (default 0.05)\n"
	"      --no-comm         captures folded without the comm root, and\n"
	"                        folded inputs' first frame is a symbol\n"
	"      --event NAME      only samples of event NAME (captures;\n"
	"                        default: the first event sampled)\n"
	"      --all-events      every event's samples together\n"
	"      --comms LIST      only the samples of the processes a COMM\n"
	"                        record names so (each capture's own pids);\n"
	"                        with --weight latency on a system-wide\n"
	"                        capture (-a), one process: its threads'\n"
	"                        parallelism\n"
	"      --weight WHAT     what a capture's sample weighs: samples\n"
	"                        (default), period, or latency: its period\n"
	"                        divided by how many of the workload's\n"
	"                        threads ran then, as perf >= 6.15's\n"
	"                        --latency (needs switch records): a\n"
	"                        latency diff.  Brought to each capture's\n"
	"                        samples, which the tests count (folded\n"
	"                        inputs keep their counts)\n"
	"      --symfs DIR       look for binaries under DIR\n"
	CMD_BUILDID_HELP
	"      --kallsyms FILE   kernel symbols of the recording host\n"
	"      --vmlinux FILE    kernel symbols from a vmlinux\n"
	"      --jit-dir DIR     where perf-PID.map and jit-PID.dump files\n"
	"                        are (default /tmp)\n"
	"      --search-path DIR binaries anywhere under DIR, by basename\n"
	"                        and build-id (repeatable)\n"
	"      --no-demangle     C++, Rust and D names as they are\n"
	CMD_SYMBOL_HELP
	CMD_UNWINDER_HELP
	CMD_JOBS_HELP
	"      --strict          exit 1 when anything was unresolved, lost or\n"
	"                        ignored\n"
	"  -v, --verbose         a line per input; more library messages\n"
	"  -h, --help            this help\n";

enum {
	OPT_FOLDED = 256,
	OPT_NEGATE,
	OPT_TITLE,
	OPT_WIDTH,
	OPT_MINWIDTH,
	OPT_SCALE,
	OPT_NO_NORMALIZE,
	OPT_FORMAT,
	OPT_TOP,
	OPT_MIN_DELTA,
	OPT_SIGNIFICANT,
	OPT_ALPHA,
	OPT_NO_COMM,
	OPT_EVENT,
	OPT_ALL_EVENTS,
	OPT_WEIGHT,
	OPT_COMMS,
};

/* --comms: names a list holds, and the pids a capture has of them */
#define MAX_COMMS 64
#define MAX_COMM_PIDS 256

/* What a capture's sample weighs (--weight). */
enum diff_weight { W_SAMPLES, W_PERIOD, W_LATENCY };

struct diff_opts {
	const char *const *paths[2]; /* each side's inputs */
	unsigned nr_paths[2];
	bool folded, negate, no_normalize, significant, no_comm, markdown;
	bool json;		/* --format json: stat captures only */
	bool all_events;
	enum diff_weight weight;
	const char *output;
	struct pde_flame_opts svg;
	enum pda_diff_scale scale;
	const char *scale_symbol;
	size_t top;
	double min_delta, alpha;
	const char *event;
	struct cmd_symopts sym;
	const char *unwinder;
	unsigned jobs;
	bool all_captures;	/* no folded input: DSOs are compared */
	const char *comms[MAX_COMMS + 1]; /* --comms; comms[0] NULL: all */
	char *comms_buf;
};

/* What reading the inputs of a side found, for the summary line. */
struct side_stats {
	uint64_t samples;	/* folded */
	uint64_t unresolved;	/* of them, with an unresolved frame */
	uint64_t lost, bad, ignored_lines;
	unsigned missing_dsos;
	unsigned nr_folded;	/* inputs that are folded text */
	/* captures of several events: the one diffed (the first sampled)
	 * and the other events' samples left out */
	char event[128];
	uint64_t other_events;
};

/* ---- options ------------------------------------------------------- */

static double parse_number(const struct pd_ctx *ctx, const char *opt,
			   const char *arg, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < min || v > max)
		usage_error(ctx, "%s wants a number from %g to %g, not '%s'",
			    opt, min, max, arg);
	return v;
}

static void set_scale(const struct pd_ctx *ctx, struct diff_opts *o,
		      const char *arg)
{
	if (strcmp(arg, "total") == 0) {
		o->scale = PDA_DIFF_SCALE_TOTAL;
	} else if (strcmp(arg, "none") == 0) {
		o->scale = PDA_DIFF_SCALE_NONE;
	} else if (arg[0] && !strchr(arg, ';')) {
		o->scale = PDA_DIFF_SCALE_SYMBOL;
		o->scale_symbol = arg;
	} else {
		usage_error(ctx, "--scale wants none, total or a symbol, not "
				 "'%s'",
			    arg);
	}
}

static void handle_option(int c, const struct pd_ctx *ctx,
			  struct diff_opts *o)
{
	switch (c) {
	case OPT_FOLDED:
		o->folded = true;
		break;
	case 'o':
		o->output = optarg;
		break;
	case OPT_NEGATE:
		o->negate = true;
		break;
	case OPT_TITLE:
		o->svg.title = optarg;
		break;
	case OPT_WIDTH:
		o->svg.width = (unsigned)parse_number(ctx, "--width", optarg,
						      100, 1000000);
		break;
	case OPT_MINWIDTH:
		o->svg.min_width =
			parse_number(ctx, "--minwidth", optarg, 0, 1e6);
		break;
	case OPT_SCALE:
		set_scale(ctx, o, optarg);
		break;
	case OPT_NO_NORMALIZE:
		o->no_normalize = true;
		break;
	case OPT_FORMAT:
		o->markdown = strcmp(optarg, "markdown") == 0;
		o->json = strcmp(optarg, "json") == 0;
		if (!o->markdown && !o->json && strcmp(optarg, "text") != 0)
			usage_error(ctx, "unknown format '%s' (text, markdown, "
				    "json)", optarg);
		break;
	case OPT_TOP:
		o->top = (size_t)parse_number(ctx, "--top", optarg, 0, 1e9);
		break;
	case OPT_MIN_DELTA:
		o->min_delta = parse_number(ctx, "--min-delta", optarg, 0, 1e18);
		break;
	case OPT_SIGNIFICANT:
		o->significant = true;
		break;
	case OPT_ALPHA:
		o->alpha = parse_number(ctx, "--alpha", optarg, 1e-300, 0.5);
		break;
	case OPT_NO_COMM:
		o->no_comm = true;
		break;
	case OPT_EVENT:
		o->event = optarg;
		break;
	case OPT_ALL_EVENTS:
		o->all_events = true;
		break;
	case OPT_COMMS:
		cmd_parse_names(ctx, "--comms", optarg, &o->comms_buf, o->comms,
				MAX_COMMS);
		break;
	case OPT_WEIGHT:
		if (strcmp(optarg, "samples") == 0)
			o->weight = W_SAMPLES;
		else if (strcmp(optarg, "period") == 0)
			o->weight = W_PERIOD;
		else if (strcmp(optarg, "latency") == 0)
			o->weight = W_LATENCY;
		else
			usage_error(ctx, "--weight '%s': samples, period or "
					 "latency",
				    optarg);
		break;
	case CMD_OPT_UNWINDER:
		o->unwinder = cmd_unwinder(ctx, optarg);
		break;
	case 'j':
	case CMD_OPT_JOBS:
		o->jobs = cmd_jobs(ctx, optarg);
		break;
	default:
		/* the only vals left are the symbol options' */
		cmd_symopt(ctx, &o->sym, c, optarg);
		break;
	}
}

/*
 * Options anywhere before a lone "--"; what comes after it is B's inputs,
 * all of them (as "--" ends options anywhere).  Without "--", the inputs
 * are exactly A and B.
 */
static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct diff_opts *o)
{
	static const struct option longopts[] = {
		{"folded", no_argument, NULL, OPT_FOLDED},
		{"output", required_argument, NULL, 'o'},
		{"negate", no_argument, NULL, OPT_NEGATE},
		{"title", required_argument, NULL, OPT_TITLE},
		{"width", required_argument, NULL, OPT_WIDTH},
		{"minwidth", required_argument, NULL, OPT_MINWIDTH},
		{"scale", required_argument, NULL, OPT_SCALE},
		{"no-normalize-names", no_argument, NULL, OPT_NO_NORMALIZE},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"top", required_argument, NULL, OPT_TOP},
		{"min-delta", required_argument, NULL, OPT_MIN_DELTA},
		{"significant", no_argument, NULL, OPT_SIGNIFICANT},
		{"alpha", required_argument, NULL, OPT_ALPHA},
		{"no-comm", no_argument, NULL, OPT_NO_COMM},
		{"comms", required_argument, NULL, OPT_COMMS},
		{"event", required_argument, NULL, OPT_EVENT},
		{"all-events", no_argument, NULL, OPT_ALL_EVENTS},
		{"weight", required_argument, NULL, OPT_WEIGHT},
		CMD_SYMBOL_LONGOPTS,
		CMD_UNWINDER_LONGOPT,
		CMD_JOBS_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_STRICT | CMD_OPT_VERBOSE,
			     .own_shortopts = "o:j:",
			     .own_longopts = longopts};
	/* perf diff's: the capture before the last, and the last */
	static const char *const defaults[2] = {"perf.data.old",
						CMD_DEFAULT_INPUT};
	bool svg_option = false, report_option = false;
	int split = argc, c;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			split = i;
			break;
		}
	}
	o->svg.min_width = 0.1;
	o->top = 20;
	/* main() answers --help; the operands are argv[optind..split) */
	cmd_opts_start(&p, ctx, split, argv);
	while ((c = cmd_getopt(&p)) != -1) {
		svg_option |= c == OPT_NEGATE || c == OPT_TITLE ||
			      c == OPT_WIDTH || c == OPT_MINWIDTH;
		report_option |= c == OPT_TOP || c == OPT_MIN_DELTA ||
				 c == OPT_SIGNIFICANT;
		handle_option(c, ctx, o);
	}
	/* "--" ends the options: one after it would be read as B's input */
	for (int i = split + 1; i < argc; i++)
		if (!strncmp(argv[i], "--", 2) && argv[i][2] &&
		    access(argv[i], F_OK) != 0)
			usage_error(ctx,
				    "'%s' comes after '--', where only B's "
				    "inputs go: put options before '--'",
				    argv[i]);
	if (svg_option && !o->output)
		usage_error(ctx, "--negate, --title, --width and --minwidth "
				 "shape the flame graph of -o: give -o");
	o->paths[0] = (const char *const *)(argv + optind);
	o->nr_paths[0] = (unsigned)(split - optind);
	if (split < argc) {
		o->paths[1] = (const char *const *)(argv + split + 1);
		o->nr_paths[1] = (unsigned)(argc - split - 1);
	} else if (o->nr_paths[0] == 2) {
		o->paths[1] = o->paths[0] + 1;
		o->nr_paths[0] = o->nr_paths[1] = 1;
	} else if (o->nr_paths[0] == 0) {
		o->paths[0] = defaults;
		o->paths[1] = defaults + 1;
		o->nr_paths[0] = o->nr_paths[1] = 1;
	} else if (o->nr_paths[0] > 2) {
		usage_error(ctx, "%u inputs: several inputs a side go "
				 "before and after '--'",
			    o->nr_paths[0]);
	}
	if (!o->nr_paths[0] || !o->nr_paths[1])
		usage_error(ctx, "two sides needed: A and B, or A1 A2... -- "
				 "B1 B2...");
	if (o->nr_paths[0] > PDA_DIFF_MAX_RUNS ||
	    o->nr_paths[1] > PDA_DIFF_MAX_RUNS)
		usage_error(ctx, "at most %d inputs a side", PDA_DIFF_MAX_RUNS);
	if (o->folded && report_option)
		usage_error(ctx, "--top, --min-delta and --significant choose "
				 "what the report shows: not with --folded");
	if (o->folded && (o->markdown || o->json))
		usage_error(ctx, "--format applies to the report, not to "
				 "--folded");
	if (o->event && o->all_events)
		usage_error(ctx, "--event and --all-events: one or the other");
}

/* ---- inputs -------------------------------------------------------- */

/* Whether path is a capture: a directory, or perf.data's magic or a zstd
 * frame in its first bytes; dies when it cannot be folded text either. */
static bool input_is_capture(struct pd_ctx *ctx, const char *path)
{
	unsigned char head[8];
	const char *why;
	struct stat sb;
	ssize_t n;
	int fd;

	if (strcmp(path, "-") == 0)
		usage_error(ctx, "'-': diff reads files, not standard input");
	ctx_note_input(ctx, path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(ctx, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		close(fd);
		return true;
	}
	do
		n = read(fd, head, sizeof(head));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		die(ctx, "cannot read '%s': %s", path, strerror(errno));
	close(fd);
	if (ctx_is_capture(head, (size_t)n))
		return true;
	why = ctx_not_text(head, (size_t)n);
	if (why)
		die(ctx, "'%s': %s", path, why);
	return false;
}

static void read_folded(struct pd_ctx *ctx, const char *path,
			enum pda_diff_side side, unsigned run,
			struct pda_diff *d, struct side_stats *ss)
{
	FILE *in = fopen(path, "r");
	/* fractions read, to be refused by name below */
	PDA_PROFILE_OPTS(po, .nr_columns = 1, .max_decimals = 6);
	struct pda_profile *p;
	char *line = NULL;
	size_t cap = 0;
	uint64_t nr = 0, ignored = 0, first_ignored = 0, added = 0;
	ssize_t len;
	int rc;

	if (!in)
		die(ctx, "cannot open '%s': %s", path, strerror(errno));
	if (pda_profile_new(&po, &p) < 0)
		die(ctx, "out of memory");
	while ((len = getline(&line, &cap, in)) > 0) {
		nr++;
		/* folded text holds no NUL: a file of another kind */
		ctx_check_folded_line(ctx, path, line, (size_t)len, nr);
		rc = pda_profile_add_folded(p, line, (size_t)len, 0);
		added += rc == 0;
		/* the file is one run: its total is the run's */
		if (rc == PD_ERR_FORMAT)
			die(ctx, "'%s': line %" PRIu64 ": a run's samples do "
				 "not fit in 64 bits",
			    path, nr);
		if (rc < 0)
			die(ctx, "'%s': line %" PRIu64 ": %s", path, nr,
			    pda_profile_errmsg(p));
		/* a blank line is not worth a warning */
		if (rc == 1 && strspn(line, " \t\r\n") < (size_t)len &&
		    ignored++ == 0)
			first_ignored = nr;
	}
	if (ferror(in))
		die(ctx, "cannot read '%s': %s", path, strerror(errno));
	if (!added && ignored)
		die(ctx,
		    "'%s': neither a perf.data capture nor folded stacks: no "
		    "line is 'frame;...;frame COUNT' (line %" PRIu64
		    " is the first that is not blank)",
		    path, first_ignored);
	fclose(in);
	free(line);
	/* its tests take counts of samples: a fraction is none */
	if (pda_profile_decimals(p))
		die(ctx,
		    "'%s': counts with decimals (flamegraph.pl's \"a;b 1.5\"): "
		    "diff compares whole sample counts; pdtool flame draws "
		    "them",
		    path);
	rc = pda_diff_add_profile(d, side, run, p, 0);
	if (rc < 0)
		die(ctx, "'%s': %s", path, pda_diff_errmsg(d));
	pda_profile_free(p);
	if (ignored)
		warning(ctx,
			"'%s': %" PRIu64 " line%s not 'stack count'; "
			"ignored (the first: line %" PRIu64 ")",
			path, ignored, ignored == 1 ? " is" : "s are",
			first_ignored);
	ss->ignored_lines += ignored;
	ss->nr_folded++;
}

/* What the capture's callbacks see. */
struct diff_run {
	struct pd_ctx *ctx;
	const char *path;
	struct pda_fold *fd;
	struct pda_diff *d;
	enum pda_diff_side side;
	unsigned run;
	struct side_stats *ss;
	bool dsos;		/* count the DSOs (pda_diff_opts.dsos) */
	bool by_period;		/* --weight period or latency */
	struct pda_parallel *par; /* --weight latency */
	struct pda_capture c;
	/* the pipeline's memo: a slot's cookie is 1 + an index here, of
	 * the fold's cookie and (dsos) the stack's DSOs, pool[at[i],
	 * at[i + 1]) */
	uint64_t *fc;
	size_t *at;
	size_t nr_fc, alloc_fc, alloc_at;
	const char **pool;
	size_t nr_pool, alloc_pool;
};

/* --weight latency: a record of the first pass, the switches and exits
 * counted in time order. */
static int diff_order(void *arg, const struct pd_rec *rec,
		      const struct pda_pipe_when *when)
{
	struct diff_run *dr = arg;

	return pda_parallel_note(dr->par, rec, when);
}

/* A memo slot the fold just filled with fold cookie fc: what a hit of
 * it counts (the fold's cookie, the stack's DSOs) kept, the slot's
 * cookie its index.  @return 0 or PD_ERR_NOMEM. */
static int memo_note(struct diff_run *dr, const struct pda_pipe_item *it,
		     uint64_t fc)
{
	const size_t nr = dr->dsos && it->stack ? it->stack->nr : 0;

	if (PDC_GROW(NULL, dr->fc, dr->alloc_fc, dr->nr_fc + 1, SIZE_MAX / 16) <
		    0 ||
	    PDC_GROW(NULL, dr->at, dr->alloc_at, dr->nr_fc + 2,
		     SIZE_MAX / 16) < 0 ||
	    PDC_GROW(NULL, dr->pool, dr->alloc_pool, dr->nr_pool + nr,
		     SIZE_MAX / 16) < 0)
		return PD_ERR_NOMEM;
	if (!dr->nr_fc)
		dr->at[0] = 0;
	dr->fc[dr->nr_fc] = fc;
	dr->nr_pool +=
		nr ? pda_diff_stack_dsos(it->stack, dr->pool + dr->nr_pool) : 0;
	dr->at[++dr->nr_fc] = dr->nr_pool;
	*it->cookie = dr->nr_fc;
	return 0;
}

/* A sample of memo slot i's stack: counted as its first was. */
static int diff_again(struct diff_run *dr, const struct pd_sample *sample,
		      size_t i)
{
	int rc = pda_fold_add_again(dr->fd, sample, dr->fc[i]);

	if (rc == 1 && dr->dsos &&
	    (rc = pda_diff_add_dso_list(dr->d, dr->side, dr->run,
					dr->pool + dr->at[i],
					dr->at[i + 1] - dr->at[i],
					dr->by_period ? sample->period : 1)) <
		    0)
		return pda_capture_set_err(&dr->c, rc, "%s",
					   pda_diff_errmsg(dr->d));
	return rc < 0 ? rc : 0;
}

static int diff_one(void *arg, const struct pda_pipe_item *it)
{
	struct diff_run *dr = arg;
	const struct pd_sample *sample = it->sample;
	struct pd_sample lat;
	uint64_t fc = 0;
	int rc;

	if (dr->par) {
		/* the fold weighs periods then */
		rc = cmd_latency_sample(&dr->c, dr->par, it, &lat);
		if (rc < 0)
			return rc;
		sample = &lat;
	}
	if (it->hit) /* a stack folded before, in the same maps */
		return diff_again(dr, sample, (size_t)(*it->cookie - 1));
	rc = pda_fold_add_keyed(dr->fd, sample, it->stack, it->comm,
				it->cookie ? &fc : NULL);
	if (rc < 0)
		return rc;
	if (it->cookie && fc && memo_note(dr, it, fc) < 0)
		return PD_ERR_NOMEM;
	if (rc == 1 && it->stack && dr->dsos &&
	    (rc = pda_diff_add_dsos(dr->d, dr->side, dr->run, it->stack,
				    dr->by_period ? sample->period : 1)) < 0)
		return pda_capture_set_err(&dr->c, rc, "%s",
					   pda_diff_errmsg(dr->d));
	return 0;
}

/* A bad sample or a stack that did not resolve: the side's first gets a
 * warning. */
static int diff_skip(void *arg, enum pda_capture_skip what, const char *why)
{
	struct diff_run *dr = arg;

	(void)what;
	if (dr->ss->bad++ == 0)
		warning(dr->ctx, "'%s': %s", dr->path, why);
	return 0;
}

/* Events with samples diffed, at most 8: two events' samples together
 * are seldom what is meant. */
static size_t nr_events_diffed(const struct pda_filter_stats *fs)
{
	size_t nr = 0;

	for (size_t i = 0; i < fs->nr_events && i < PDA_FILTER_MAX_EVENTS &&
			   nr < 8;
	     i++)
		nr += fs->events[i].nr_kept > 0;
	return nr;
}

/* A capture of several events had its first sampled event diffed: say
 * which, and warn when another capture's was another. */
static void note_event(struct pd_ctx *ctx, const char *path,
		       const struct pda_filter *flt, struct side_stats *ss)
{
	const struct pd_evsel *e = pda_filter_first(flt);
	const struct pda_filter_stats *fs = pda_filter_stats(flt);

	if (!e)
		return;
	if (ss->event[0] && strcmp(ss->event, e->name) != 0)
		warning(ctx,
			"'%s': its first event is '%s', another input's "
			"'%s': --event picks the one to compare",
			path, e->name, ss->event);
	if (!ss->event[0])
		snprintf(ss->event, sizeof(ss->event), "%s", e->name);
	ss->other_events += fs->by_reason[PDA_FILTER_OUT_EVENT];
}

/*
 * Fold a capture as `pdtool fold` does (samples, not periods; comm roots
 * unless --no-comm; without --event every event but tracepoints), counting
 * each sample's DSOs as it goes, then hand the folded stacks to d as run
 * `run` of side.
 */
static void read_capture(struct pd_ctx *ctx, const struct diff_opts *o,
			 const char *path, enum pda_diff_side side,
			 unsigned run, struct pda_diff *d,
			 struct side_stats *ss)
{
	struct pd_file *f = ctx_open_twice(ctx, path);
	char err[512] = "";
	/* fold's defaults: inlined frames on DWARF-unwound stacks only */
	PDA_OPTS(po, .errbuf = err, .errbuf_size = sizeof(err));
	PDA_FOLD_OPTS(fo, .flags = (o->no_comm ? PDA_FOLD_NO_COMM : 0) |
				   (o->weight != W_SAMPLES ? PDA_FOLD_PERIOD
							   : 0));
	/* one event's samples unless told: two events' do not add up */
	PDA_FILTER_OPTS(flo, .event = o->event,
			.flags = o->event || o->all_events
					 ? 0
					 : PDA_FILTER_FIRST_EVENT);
	struct diff_run dr = {.ctx = ctx, .path = path, .d = d, .side = side,
			      .run = run, .ss = ss, .dsos = o->all_captures,
			      .by_period = o->weight != W_SAMPLES};
	struct pda_filter flt;
	struct cmd_progress prog;
	/* a sample without a callchain: its ip is its stack, as in fold */
	PDA_CAPTURE_OPTS(co, .filter = &flt, .jobs = o->jobs,
			 .ip_stacks = true, .sample_fn = diff_one,
			 .skip_fn = diff_skip,
			 .progress = cmd_progress_fn, .progress_arg = &prog,
			 .arg = &dr);
	const struct pda_capture_stats *cs;
	const struct pda_fold_totals *t;
	const struct pda_stats *ps;
	struct pda_session *s;
	uint64_t unresolved;
	size_t nr_events, nr_pids = 0;
	uint32_t pids[MAX_COMM_PIDS];
	int rc;

	cmd_pda_opts(ctx, &o->sym, &po);
	po.unwinder = o->unwinder;
	rc = pda_session_new(f, &po, &s);
	if (rc < 0)
		die(ctx, "'%s': %s", path, err[0] ? err : pd_strerror(rc));
	fo.threaded = cmd_jobs_fold_thread(o->jobs);
	if (pda_fold_new(&fo, &dr.fd) < 0)
		die(ctx, "out of memory");
	if (o->comms[0]) {
		/* the pids are each capture's: the same program runs
		 * under another pid in B */
		nr_pids = cmd_comm_pids(ctx, path, f, o->comms, pids,
					MAX_COMM_PIDS);
		if (!nr_pids)
			die(ctx, "'%s': no process named %s%s (--comms): the "
				 "capture's COMM records name none", path,
			    o->comms[0], o->comms[1] ? ", ..." : "");
		flo.pids = pids;
		flo.nr_pids = nr_pids;
	}
	if (pda_filter_init(&flt, &flo) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_API));
	if (o->weight == W_LATENCY) {
		/* one process of a system-wide capture: its parallelism */
		dr.par = cmd_parallel_new(ctx, path, f, pids, nr_pids);
		co.order_fn = diff_order;
	}
	/* each distinct stack resolved and folded once, as fold does (a
	 * hit's DSOs kept with it: memo_note) */
	co.memo = true;
	rc = pda_capture_init(&dr.c, f, s, &co);
	if (rc < 0)
		cmd_capture_die(ctx, path, &dr.c, rc);
	if (dr.par)
		cmd_parallel_two_pass(ctx, path, &dr.c);
	cmd_progress_init(&prog, ctx);
	rc = pda_capture_run(&dr.c);
	cmd_progress_end(&prog);
	if (rc < 0)
		cmd_capture_die(ctx, path, &dr.c, rc);
	nr_events = nr_events_diffed(pda_filter_stats(&flt));
	if (nr_events > 1)
		warning(ctx,
			"'%s': samples of %zu%s events diffed together "
			"(--event picks one)",
			path, nr_events, nr_events == 8 ? " or more" : "");
	note_event(ctx, path, &flt, ss);
	/* the pipeline's memo and the reader's queue go before the fold is
	 * finished (the stats stay) */
	pda_capture_release(&dr.c);
	if (pda_fold_finish(dr.fd) < 0)
		die(ctx, "out of memory");
	if (pda_diff_add_fold(d, side, run, dr.fd) < 0)
		die(ctx, "'%s': %s", path, pda_diff_errmsg(d));
	t = pda_fold_totals(dr.fd);
	/* periods or latencies, brought to samples: what the tests count */
	if (dr.by_period && pda_diff_scale_run(d, side, run, t->nr_samples) < 0)
		die(ctx, "'%s': %s", path, pda_diff_errmsg(d));
	cs = pda_capture_stats(&dr.c);
	cmd_check_kind(ctx, path, f, &cs->reader, cs->nr_samples);
	ps = pda_session_stats(s);
	ss->lost += cs->lost;
	ss->samples += t->nr_samples;
	/* in samples, as the summary counts them (periods or latencies
	 * with --weight: the same share) */
	unresolved = dr.by_period && t->weight
		? (uint64_t)((double)t->weight_unresolved /
			     (double)t->weight * (double)t->nr_samples + 0.5)
		: t->weight_unresolved;
	ss->unresolved += unresolved;
	ss->missing_dsos += ps ? (unsigned)ps->nr_missing : 0;
	if (ctx->verbose)
		eprintf("pdtool %s: %c: '%s': %" PRIu64
			" sample%s into %zu stack%s, %" PRIu64
			" with unresolved frames, %zu binar%s not found\n",
			ctx->cmd, side == PDA_DIFF_A ? 'A' : 'B', path,
			t->nr_samples, PLURAL(t->nr_samples), t->nr_stacks,
			PLURAL(t->nr_stacks), unresolved,
			ps ? ps->nr_missing : 0,
			ps && ps->nr_missing == 1 ? "y" : "ies");
	if (ps) {
		char label[4200]; /* a path, quoted */

		snprintf(label, sizeof(label), "%c: '%s'",
			 side == PDA_DIFF_A ? 'A' : 'B', path);
		cmd_unresolved_block(ctx, ps, ps->nr_samples, label);
		cmd_fetch_add(ctx, &ps->debuginfod);
	}
	pda_fold_free(dr.fd);
	free(dr.fc);
	free(dr.at);
	free(dr.pool);
	pda_parallel_free(dr.par);
	pda_session_free(s);
	pd_file_close(f);
}

/* ---- output -------------------------------------------------------- */

static void write_svg(struct pd_ctx *ctx, const struct diff_opts *o,
		      const struct pda_diff *d, FILE *out)
{
	const struct pda_diff_summary *sum = pda_diff_summary(d);
	struct pde_flame_diff df = {
		.denom = {sum->denom[0], sum->denom[1]},
		.unit = sum->unit,
		.of = sum->scale_symbol,
		.negate = o->negate,
	};
	struct pde_flame_opts svg = o->svg;
	const struct pda_flame_node *nodes;
	struct pda_flame *fl;
	char subtitle[512];
	size_t nr;
	int rc;

	rc = pda_diff_flame(d, o->negate, &fl);
	if (rc < 0)
		die(ctx, "the flame graph: %s", pd_strerror(rc));
	/* short enough for the default width */
	snprintf(subtitle, sizeof(subtitle),
		 "widths: %s's samples; red grew, blue shrank from A to B, "
		 "%s%s",
		 o->negate ? "A" : "B",
		 sum->scale == PDA_DIFF_SCALE_TOTAL  ? "as shares of each side"
		 : sum->scale == PDA_DIFF_SCALE_NONE ? "in samples"
						     : "per sample of ",
		 sum->scale == PDA_DIFF_SCALE_SYMBOL ? sum->scale_symbol : "");
	svg.diff = &df;
	svg.subtitle = subtitle;
	nodes = pda_flame_nodes(fl, &nr);
	ctx_check_write(ctx, pde_flame_svg(out, nodes, nr, &svg, NULL),
			o->output);
	ctx_close_output(ctx, out, o->output);
	pda_flame_free(fl);
}

/* The line on standard error: what was compared, and how. */
static void summary_line(struct pd_ctx *ctx, const struct pda_diff *d,
			 const struct side_stats *ss)
{
	const struct pda_diff_summary *s = pda_diff_summary(d);
	char scaling[256];

	for (int side = 0; side < 2; side++) {
		const unsigned nr = s->nr_runs[side];
		const unsigned nr_folded = ss[side].nr_folded;

		/* what the inputs are: captures, folded files or both */
		eprintf("%s%s%s%c %u %s%s, %" PRIu64 " sample%s",
			side ? "; " : "pdtool ", side ? "" : ctx->cmd,
			side ? "" : ": ", side ? 'B' : 'A', nr,
			!nr_folded	    ? "capture"
			: nr_folded == nr ? "folded file"
					  : "input",
			PLURAL(nr), s->weight[side], PLURAL(s->weight[side]));
		if (ss[side].unresolved)
			eprintf(" (%.1f%% with unresolved frames)",
				ss[side].samples
					? 100.0 * (double)ss[side].unresolved /
						  (double)ss[side].samples
					: 0.0);
		if (ss[side].lost)
			eprintf(" (%" PRIu64 " lost)", ss[side].lost);
		if (ss[side].other_events)
			eprintf(" of event '%s' (%" PRIu64
				" of other events left out: --event, "
				"--all-events)",
				ss[side].event, ss[side].other_events);
	}
	eprintf("; scaling: %s; %s",
		pde_diff_scaling_text(d, scaling, sizeof(scaling)),
		pde_diff_tests_text(d));
	if (!s->runs_tested)
		fputs("; run-to-run variation is not covered (one input on "
		      "a side)",
		      stderr);
	fputc('\n', stderr);
	cmd_fetch_summary(ctx);
}

/* Whether the inputs are perf stat record captures, all of them (a mix
 * with profiles is a usage error): they compare counter by counter. */
static bool stat_inputs(struct pd_ctx *ctx, const struct diff_opts *o)
{
	unsigned nr_stat = 0, nr = 0;

	for (int side = 0; side < 2; side++)
		for (unsigned i = 0; i < o->nr_paths[side]; i++, nr++)
			if (input_is_capture(ctx, o->paths[side][i]) &&
			    cmd_is_stat_capture(ctx, o->paths[side][i]))
				nr_stat++;
	if (nr_stat && nr_stat != nr)
		usage_error(ctx, "perf stat record captures compare only with "
				 "each other, not with profiles");
	if (nr_stat && (o->folded || o->markdown))
		usage_error(ctx, "perf stat record captures: --folded and "
				 "--markdown apply to profiles");
	if (!nr_stat && o->json)
		usage_error(ctx, "--format json compares perf stat record "
				 "captures; profiles: text or markdown");
	return nr_stat != 0;
}

int cmd_diff(int argc, char **argv, struct pd_ctx *ctx)
{
	struct diff_opts o;
	struct side_stats ss[2];
	struct pda_diff *d;
	char err[256] = "";
	bool *capture[2];
	FILE *svg_out = NULL;
	int rc;

	memset(&o, 0, sizeof(o));
	memset(ss, 0, sizeof(ss));
	parse_args(argc, argv, ctx, &o);
	o.all_captures = true;
	if (stat_inputs(ctx, &o))
		return cmd_diff_stat(ctx, o.paths, o.nr_paths, o.output,
				     o.json);
	for (int side = 0; side < 2; side++) {
		capture[side] = calloc(o.nr_paths[side], sizeof(bool));
		if (!capture[side])
			die(ctx, "out of memory");
		for (unsigned i = 0; i < o.nr_paths[side]; i++) {
			capture[side][i] =
				input_is_capture(ctx, o.paths[side][i]);
			o.all_captures &= capture[side][i];
		}
	}
	/* an unwritable -o fails here, not after the work */
	if (o.output)
		svg_out = ctx_open_output(ctx, o.output);
	{
		PDA_DIFF_OPTS(dop, .nr_runs = {o.nr_paths[0], o.nr_paths[1]},
			      .scale = o.scale,
			      .scale_symbol = o.scale_symbol,
			      .alpha = o.alpha,
			      .no_normalize = o.no_normalize,
			      .root_is_comm = !o.no_comm,
			      .dsos = o.all_captures, .errbuf = err,
			      .errbuf_size = sizeof(err));

		rc = pda_diff_new(&dop, &d);
	}
	if (rc == PD_ERR_API)
		usage_error(ctx, "%s", err);
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	for (int side = 0; side < 2; side++) {
		for (unsigned i = 0; i < o.nr_paths[side]; i++) {
			if (capture[side][i])
				read_capture(ctx, &o, o.paths[side][i], side,
					     i, d, &ss[side]);
			else
				read_folded(ctx, o.paths[side][i], side, i, d,
					    &ss[side]);
		}
		free(capture[side]);
	}
	if (ss[0].event[0] && ss[1].event[0] &&
	    strcmp(ss[0].event, ss[1].event) != 0)
		warning(ctx,
			"A's samples are of event '%s', B's of '%s': "
			"--event picks one both have",
			ss[0].event, ss[1].event);
	rc = pda_diff_finish(d);
	if (rc == PD_ERR_NOTFOUND) {
		const struct pda_diff_summary *s = pda_diff_summary(d);

		if (s->bad_symbol)
			die(ctx, "'%s': no samples of '%s' (--scale)",
			    o.paths[s->bad_side][s->bad_run], s->scale_symbol);
		die(ctx, "'%s': no samples%s%s%s",
		    o.paths[s->bad_side][s->bad_run],
		    o.event ? " of event '" : "", o.event ? o.event : "",
		    o.event ? "'" : "");
	}
	if (rc < 0)
		die(ctx, "%s", pda_diff_errmsg(d));
	if (o.folded) {
		pda_diff_sort_stacks(d);
		ctx_check_write(ctx, pde_diff_folded(ctx->out, d), NULL);
	} else {
		struct pde_diff_opts ro = {
			.format = o.markdown ? PDE_DIFF_MARKDOWN
					     : PDE_DIFF_TEXT,
			.top = o.top,
			.min_delta = o.min_delta,
			.significant = o.significant,
			.paths = {o.paths[0], o.paths[1]},
		};

		ctx_check_write(ctx, pde_diff_report(ctx->out, d, &ro), NULL);
	}
	if (o.output)
		write_svg(ctx, &o, d, svg_out);
	summary_line(ctx, d, ss);
	rc = 0;
	if (ctx->strict &&
	    (ss[0].unresolved || ss[1].unresolved || ss[0].lost ||
	     ss[1].lost || ss[0].bad || ss[1].bad || ss[0].ignored_lines ||
	     ss[1].ignored_lines || ss[0].missing_dsos ||
	     ss[1].missing_dsos || ctx->nr_warnings))
		rc = EXIT_UNRESOLVED;
	pda_diff_free(d);
	free(o.comms_buf);
	return rc;
}
