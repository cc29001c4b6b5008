/*
 * cmd_fold.c - `pdtool fold`: a capture's samples as folded stacks
 * ("comm;outer;...;leaf count"), the input of flamegraph.pl, speedscope
 * and inferno.  By default the output is what `perf script report
 * stackcollapse` prints for the capture; with --from-script the input is
 * `perf script` text and the output is what stackcollapse-perf.pl prints.
 */
#include "pdtool.h"
#include "pdc_alloc.h"
#include "pda_branch.h"
#include "pda_capture.h"
#include "pda_fold.h"
#include "pda_offcpu.h"
#include "pda_parallel.h"
#include "pda_session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char cmd_fold_usage[] =
	"pdtool fold [OPTIONS] [FILE | -i FILE | --from-script FILE]";
const char cmd_fold_summary[] =
	"fold a capture's stacks into lines for flame graphs";
const char cmd_fold_options[] =
	"  -i, --input FILE      the capture ('-': a pipe-mode stream on\n"
	"                        stdin); the same as FILE\n"
	"      --from-script     the input is `perf script` text ('-':\n"
	"                        stdin), folded as stackcollapse-perf.pl does\n"
	"  -o, --output FILE     write there instead of stdout\n"
	"      --pid             root frames \"comm-PID\"\n"
	"      --tid             root frames \"comm-PID/TID\" (\"comm-TID\"\n"
	"                        without --pid, as perf's script)\n"
	"      --no-comm         no root frame for the comm\n"
	"      --kernel          \"_[k]\" after kernel frames\n"
	"      --jit             \"_[j]\" after perf-PID.map frames\n"
	"                        (--from-script)\n"
	"      --all             --kernel and --jit (--from-script)\n"
	"      --addrs           frames without a symbol as dso+0xOFFSET\n"
	"                        (--from-script: \"[dso <ip>]\")\n"
	"      --srcline         frames as func:file:line where known\n"
	"                        (--from-script: the text is perf script\n"
	"                        -F+srcline's, as stackcollapse-perf.pl\n"
	"                        --srcline reads it)\n"
	"      --no-ip-frame     a sample without a callchain folds to its\n"
	"                        comm alone, as perf's stackcollapse.py\n"
	"                        (default: its sampled ip is its one frame,\n"
	"                        as perf report shows it)\n"
	"      --event NAME      only samples of event NAME (\"cycles\" or\n"
	"                        \"cycles:u\"); default: all events "
	"(capture),\n"
	"                        the first one seen (--from-script)\n"
	"      --all-events      every event (--from-script)\n"
	"      --weight KIND     samples or period; default: samples\n"
	"                        (capture), period (--from-script, as\n"
	"                        stackcollapse-perf.pl); latency: each\n"
	"                        sample's period divided by how many of\n"
	"                        the workload's threads ran then, as perf\n"
	"                        >= 6.15's --latency (needs switch records)\n"
	"      --off-cpu         time off CPU instead of samples: for each\n"
	"                        thread, each wait from a switch-out to its\n"
	"                        next switch-in, in nanoseconds, charged to\n"
	"                        the stack of the thread's last sample\n"
	"                        before it (needs switch records: perf\n"
	"                        record --switch-events), or to the stack\n"
	"                        of its sched:sched_switch sample (perf\n"
	"                        record -e sched:sched_switch -g); waits\n"
	"                        for a CPU (preempted) left out, as perf's\n"
	"                        --off-cpu\n"
	"      --wall-clock      on-CPU samples and off-CPU time together, in\n"
	"                        nanoseconds (a cpu-clock or task-clock\n"
	"                        capture): each wait's stack ends in a\n"
	"                        frame [off-cpu], or [runnable] when it\n"
	"                        waited for a CPU\n"
	"      --comm RE         only samples whose comm matches RE\n"
	"      --pid-filter LIST only samples of these pids (comma-separated)\n"
	"      --dso RE          only stacks with a frame in a DSO matching "
	"RE\n"
	"      --symbol RE       only stacks with a frame named to match RE\n"
	"                        (RE: POSIX extended, unanchored)\n"
	CMD_TIME_HELP
	"      --max-stack N     frames kept from the leaf (default 127, as\n"
	"                        perf script)\n"
	"      --branch-history  under each sample's callchain, the path of\n"
	"                        its branch stack (perf record -b) that led\n"
	"                        to it, as perf report --branch-history;\n"
	"                        frames named \"func file:line\"\n"
	"      --mispredicted-only  with --branch-history, only samples whose\n"
	"                        path has a mispredicted branch\n"
	CMD_ITRACE_HELP
	CMD_FIND_HELP
	CMD_SYMBOL_HELP
	"      --inline          inlined functions as frames of their own on\n"
	"                        every stack (by default only DWARF-unwound\n"
	"                        user stacks get them, as perf 6.1 shows\n"
	"                        them)\n"
	"      --no-inline       no inlined frames on any stack\n"
	CMD_UNWINDER_HELP
	"      --stats           after the coverage line, how the DWARF\n"
	"                        unwinding of user stacks ended, by reason\n"
	"                        and by binary\n"
	CMD_JOBS_HELP
	"      --strict          exit 1 when anything was unresolved, lost or\n"
	"                        skipped, or a DWARF unwind stopped early\n"
	"  -v, --verbose         a coverage block instead of a line; more\n"
	"                        library messages (repeatable)\n"
	"  -h, --help            this help\n";

/* getopt_long vals: fold's own options, then its sample options (below
 * 0x1000, where the symbol options' CMD_OPT_* start) */
enum {
	OPT_FROM_SCRIPT = 256,
	OPT_KERNEL,
	OPT_JIT,
	OPT_ALL,
	OPT_ALL_EVENTS,
	OPT_STATS,
	OPT_PID,
	OPT_TID,
	OPT_NO_COMM,
	OPT_ADDRS,
	OPT_SRCLINE,
	OPT_EVENT,
	OPT_WEIGHT,
	OPT_OFF_CPU,
	OPT_WALL_CLOCK,
	OPT_COMM,
	OPT_PID_FILTER,
	OPT_DSO,
	OPT_SYMBOL,
	OPT_TIME,
	OPT_MAX_STACK,
	OPT_NO_INLINE,
	OPT_INLINE,
	OPT_NO_IP_FRAME,
	OPT_BRANCH_HISTORY,
	OPT_MISPREDICTED_ONLY,
};

const struct option cmd_fold_sample_options[] = {
	{"pid", no_argument, NULL, OPT_PID},
	{"tid", no_argument, NULL, OPT_TID},
	{"no-comm", no_argument, NULL, OPT_NO_COMM},
	{"addrs", no_argument, NULL, OPT_ADDRS},
	{"srcline", no_argument, NULL, OPT_SRCLINE},
	{"no-ip-frame", no_argument, NULL, OPT_NO_IP_FRAME},
	{"event", required_argument, NULL, OPT_EVENT},
	{"all-events", no_argument, NULL, OPT_ALL_EVENTS},
	{"weight", required_argument, NULL, OPT_WEIGHT},
	{"off-cpu", no_argument, NULL, OPT_OFF_CPU},
	{"wall-clock", no_argument, NULL, OPT_WALL_CLOCK},
	{"comm", required_argument, NULL, OPT_COMM},
	{"pid-filter", required_argument, NULL, OPT_PID_FILTER},
	{"dso", required_argument, NULL, OPT_DSO},
	{"symbol", required_argument, NULL, OPT_SYMBOL},
	{"time", required_argument, NULL, OPT_TIME},
	{"max-stack", required_argument, NULL, OPT_MAX_STACK},
	{"branch-history", no_argument, NULL, OPT_BRANCH_HISTORY},
	{"mispredicted-only", no_argument, NULL, OPT_MISPREDICTED_ONLY},
	CMD_SYMBOL_LONGOPTS,
	{"inline", no_argument, NULL, OPT_INLINE},
	{"no-inline", no_argument, NULL, OPT_NO_INLINE},
	CMD_UNWINDER_LONGOPT,
	CMD_JOBS_LONGOPT,
	CMD_ITRACE_LONGOPT,
	{NULL, 0, NULL, 0},
};

#define MAX_PIDS 1024

struct fold_opts {
	const char *path;
	const char *output;
	bool from_script;
	bool pid, tid, no_comm, kernel, jit, addrs, srcline, all_events;
	bool no_ip_frame;
	bool branch_history, mispredicted_only;
	bool first_event;	/* no --event: the first sampled event only */
	bool period, weight_given;
	bool latency;		/* --weight latency: period * 1000 /
				 * parallelism (pda_parallel.h) */
	bool off_cpu;		/* --off-cpu: waits only (pda_offcpu.h) */
	bool wall_clock;	/* --wall-clock: samples and waits */
	const char *event;
	const char *comm_re, *dso_re, *sym_re;
	uint32_t pids[MAX_PIDS];
	size_t nr_pids;
	struct cmd_time_range time;
	unsigned max_stack;
	struct cmd_symopts sym;
	bool inline_frames, no_inline;
	bool stats;
	const char *unwinder;
	unsigned jobs;
	/* cmd_fold_profile(): the profile goes here, and nothing to the
	 * output */
	struct pda_profile **profile;
	struct pda_itrace_opts itrace; /* --itrace (zeroed: perf's default) */
};

/* One of fold's options (c as getopt_long gives it, arg its value). */
static void fold_option(struct pd_ctx *ctx, struct fold_opts *o, int c,
			const char *arg)
{
	switch (c) {
	case 'o':
		o->output = arg;
		break;
	case OPT_FROM_SCRIPT:
		o->from_script = true;
		break;
	case OPT_PID:
		o->pid = true;
		break;
	case OPT_TID:
		o->tid = true;
		break;
	case OPT_NO_COMM:
		o->no_comm = true;
		break;
	case OPT_KERNEL:
		o->kernel = true;
		break;
	case OPT_JIT:
		o->jit = true;
		break;
	case OPT_ALL:
		o->kernel = o->jit = true;
		break;
	case OPT_ADDRS:
		o->addrs = true;
		break;
	case OPT_SRCLINE:
		o->srcline = true;
		break;
	case OPT_NO_IP_FRAME:
		o->no_ip_frame = true;
		break;
	case OPT_BRANCH_HISTORY:
		o->branch_history = true;
		break;
	case OPT_MISPREDICTED_ONLY:
		o->mispredicted_only = true;
		break;
	case OPT_EVENT:
		o->event = arg;
		break;
	case OPT_ALL_EVENTS:
		o->all_events = true;
		break;
	case OPT_WEIGHT:
		o->weight_given = true;
		o->latency = strcmp(arg, "latency") == 0;
		if (strcmp(arg, "period") == 0 || o->latency)
			o->period = true;
		else if (strcmp(arg, "samples") == 0)
			o->period = false;
		else
			usage_error(ctx,
				    "--weight '%s': samples, period or latency",
				    arg);
		break;
	case OPT_OFF_CPU:
		o->off_cpu = true;
		break;
	case OPT_WALL_CLOCK:
		o->wall_clock = true;
		break;
	case OPT_COMM:
		o->comm_re = arg;
		break;
	case OPT_PID_FILTER:
		o->nr_pids = cmd_parse_u32_list(ctx, "--pid-filter", "pids",
						 arg, o->pids, o->nr_pids,
						 MAX_PIDS, false);
		break;
	case OPT_DSO:
		o->dso_re = arg;
		break;
	case OPT_SYMBOL:
		o->sym_re = arg;
		break;
	case OPT_TIME:
		cmd_parse_time(ctx, "--time", arg, &o->time);
		break;
	case OPT_MAX_STACK:
		o->max_stack = cmd_max_stack(ctx, arg);
		break;
	case CMD_OPT_UNWINDER:
		o->unwinder = cmd_unwinder(ctx, arg);
		break;
	case OPT_NO_INLINE:
		o->inline_frames = false;
		o->no_inline = true;
		break;
	case OPT_INLINE:
		o->inline_frames = true;
		o->no_inline = false;
		break;
	case OPT_STATS:
		o->stats = true;
		break;
	case 'j':
	case CMD_OPT_JOBS:
		o->jobs = cmd_jobs(ctx, arg);
		break;
	case CMD_OPT_ITRACE:
	case CMD_OPT_SPE_EVENTS:
		cmd_itrace(ctx, c, arg, &o->itrace);
		break;
	default:
		/* the only vals left are the symbol options' */
		cmd_symopt(ctx, &o->sym, c, arg);
		break;
	}
}

/* What no option can say alone. */
static void check_args(struct pd_ctx *ctx, const struct fold_opts *o)
{
	if (o->no_comm && (o->pid || o->tid))
		usage_error(ctx, "--pid and --tid need the comm (--no-comm)");
	if (!o->from_script && o->jit)
		usage_error(ctx, "--jit and --all go with --from-script");
	if (o->event && o->all_events)
		usage_error(ctx, "--event and --all-events contradict each "
				 "other: give one");
	if (o->mispredicted_only && !o->branch_history)
		usage_error(ctx, "--mispredicted-only goes with "
				 "--branch-history");
	if (o->latency && o->branch_history)
		usage_error(ctx, "--weight latency and --branch-history: not "
				 "together yet");
	if (o->from_script && o->time.pct)
		usage_error(ctx, "--time %s: percentages are of a capture's "
				 "first to last sample; perf script text "
				 "does not say them", o->time.pct);
	if (o->from_script && o->latency)
		usage_error(ctx, "--weight latency needs the capture's switch "
				 "records: not perf script's text");
	if (o->off_cpu && o->wall_clock)
		usage_error(ctx, "--off-cpu and --wall-clock: give one");
	if ((o->off_cpu || o->wall_clock) &&
	    (o->from_script || o->weight_given || o->branch_history))
		usage_error(ctx, "--off-cpu and --wall-clock weigh in "
				 "nanoseconds, from a capture's switch "
				 "records: not with --from-script, --weight or "
				 "--branch-history");
	if (o->from_script &&
	    (o->branch_history || o->max_stack || cmd_symopts_given(&o->sym) ||
	     o->inline_frames || o->no_inline || o->stats || o->unwinder ||
	     o->jobs || o->no_ip_frame))
		usage_error(ctx, "--from-script reads the names perf script "
				 "printed: --branch-history, --max-stack, "
				 "--inline, --no-inline, "
				 "--no-ip-frame, --stats, --unwinder, --jobs "
				 "and the symbol options apply to a capture "
				 "only");
}

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct fold_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"from-script", no_argument, NULL, OPT_FROM_SCRIPT},
		{"kernel", no_argument, NULL, OPT_KERNEL},
		{"jit", no_argument, NULL, OPT_JIT},
		{"all", no_argument, NULL, OPT_ALL},
		{"stats", no_argument, NULL, OPT_STATS},
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
			     .own_shortopts = "o:j:",
			     .own_longopts = longopts,
			     .more_longopts = cmd_fold_sample_options};
	int c;

	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1)
		fold_option(ctx, o, c, optarg);
	/* perf script's text is no perf.data */
	p.no_default = o->from_script;
	o->path = cmd_opts_input(&p);
	check_args(ctx, o);
}


/* A table, its tree on a thread of its own where threaded, its sort
 * where sort_thread (and -j lets them). */
static struct pda_fold *new_fold_sorted(struct pd_ctx *ctx,
					const struct fold_opts *o,
					bool threaded, bool sort_thread)
{
	char err[256] = "";
	/* a branch path adds two frames an entry, at most max_stack
	 * entries, under the max_stack frames of the callchain */
	const unsigned max = o->max_stack ? o->max_stack : PDA_FOLD_MAX_STACK;
	PDA_FOLD_OPTS(fo, .max_stack = o->branch_history ? 3 * max : max,
		      .comm_re = o->comm_re,
		      .dso_re = o->dso_re, .sym_re = o->sym_re, .errbuf = err,
		      .errbuf_size = sizeof(err));
	struct pda_fold *fd;
	int rc;

	fo.flags = (o->no_comm ? PDA_FOLD_NO_COMM : 0) |
		   (o->pid ? PDA_FOLD_PID : 0) | (o->tid ? PDA_FOLD_TID : 0) |
		   (o->kernel ? PDA_FOLD_KERNEL : 0) |
		   (o->addrs ? PDA_FOLD_ADDRS : 0) |
		   (o->srcline ? PDA_FOLD_SRCLINE : 0) |
		   (o->period || o->off_cpu || o->wall_clock ? PDA_FOLD_PERIOD : 0) |
		   (o->branch_history ? PDA_FOLD_SRCLINE_CG : 0);
	fo.threaded = threaded && cmd_jobs_fold_thread(o->jobs);
	fo.sort_thread = sort_thread && cmd_jobs_fold_thread(o->jobs);
	rc = pda_fold_new(&fo, &fd);
	if (rc == PD_ERR_API)
		usage_error(ctx, "%s", err[0] ? err : "bad filter");
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	return fd;
}

/* A table, its tree on a thread of its own where threaded (and -j
 * lets it). */
static struct pda_fold *new_fold_on(struct pd_ctx *ctx,
				    const struct fold_opts *o, bool threaded)
{
	return new_fold_sorted(ctx, o, threaded, false);
}

static struct pda_fold *new_fold(struct pd_ctx *ctx, const struct fold_opts *o)
{
	return new_fold_on(ctx, o, true);
}

static void write_output(struct pd_ctx *ctx, const struct fold_opts *o,
			 FILE *out, struct pda_fold *fd)
{
	struct pda_profile *p;
	int rc = pda_fold_finish(fd);

	if (rc == 0)
		rc = pda_fold_profile(fd, &p);
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	if (o->profile) {
		*o->profile = p;
		return;
	}
	ctx_check_write(ctx,
			pde_folded_write_jobs(out, p, PDA_FOLD_COL_WEIGHT,
					      cmd_jobs_fold_thread(o->jobs)
						      ? 2
						      : 1),
			o->output);
	pda_profile_free(p);
	ctx_close_output(ctx, out, o->output);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- perf script text ---------------------------------------------- */

static int fold_script(struct pd_ctx *ctx, const struct fold_opts *o)
{
	struct pda_fold *fd = new_fold(ctx, o);
	PDA_SCRIPT_OPTS(so, .event = o->event, .pids = o->pids,
			.nr_pids = o->nr_pids,
			.time_ranges = o->time.nr ? o->time.r : NULL,
			.nr_time_ranges = o->time.nr);
	const struct pda_script_stats *st;
	const struct pda_fold_totals *t;
	struct pda_script *ps;
	struct cmd_progress prog;
	FILE *in = stdin, *out;
	static char buf[1 << 16];
	uint64_t done = 0;
	size_t n;
	int rc;

	so.flags = (o->pid ? PDA_SCRIPT_PID : 0) |
		   (o->tid ? PDA_SCRIPT_PID | PDA_SCRIPT_TID : 0) |
		   (o->no_comm ? PDA_SCRIPT_NO_COMM : 0) |
		   (o->kernel ? PDA_SCRIPT_KERNEL : 0) |
		   (o->jit ? PDA_SCRIPT_JIT : 0) |
		   (o->addrs ? PDA_SCRIPT_ADDRS : 0) |
		   (o->all_events ? PDA_SCRIPT_ALL_EVENTS : 0) |
		   (o->srcline ? PDA_SCRIPT_SRCLINE : 0) |
		   (o->period ? PDA_SCRIPT_PERIOD : 0);
	rc = pda_script_new(&so, fd, &ps);
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	ctx_note_input(ctx, o->path);
	if (strcmp(o->path, "-") != 0) {
		struct stat st_in;

		if (stat(o->path, &st_in) == 0 && S_ISDIR(st_in.st_mode))
			usage_error(ctx,
				    "'%s' is a directory (perf record "
				    "--threads?): --from-script reads `perf "
				    "script` text; fold a capture without it",
				    o->path);
		in = fopen(o->path, "r");
		if (!in)
			die(ctx, "cannot open '%s': %s", o->path,
			    strerror(errno));
	}
	/* the text's first bytes tell a capture given by mistake, before
	 * any output is created */
	n = fread(buf, 1, sizeof(buf), in);
	if (ctx_is_capture((const unsigned char *)buf, n))
		usage_error(ctx,
			    "'%s' is a perf.data capture, not `perf script` "
			    "text: fold it without --from-script",
			    o->path);
	out = ctx_open_output(ctx, o->output);
	cmd_progress_init(&prog, ctx);
	for (; n > 0; n = fread(buf, 1, sizeof(buf), in)) {
		rc = pda_script_feed(ps, buf, n);
		if (rc < 0)
			die(ctx, "'%s': %s", o->path, pd_strerror(rc));
		done += n;
		cmd_progress_show(&prog, done, 0,
				  pda_script_stats(ps)->nr_samples);
	}
	if (ferror(in))
		die(ctx, "cannot read '%s': %s", o->path, strerror(errno));
	rc = pda_script_finish(ps);
	if (rc < 0)
		die(ctx, "'%s': %s", o->path, pd_strerror(rc));
	cmd_progress_end(&prog);
	if (in != stdin)
		fclose(in);
	write_output(ctx, o, out, fd);

	st = pda_script_stats(ps);
	t = pda_fold_totals(fd);
	eprintf("pdtool %s: %" PRIu64 " sample%s folded into %zu stack%s; "
		"%.1f%% of weight with unresolved frames",
		ctx->cmd, t->nr_samples, PLURAL(t->nr_samples), t->nr_stacks,
		PLURAL(t->nr_stacks), pct(t->weight_unresolved, t->weight));
	if (st->event && st->nr_events > 1)
		eprintf("; event '%s' only (%" PRIu64
			" sample%s of %zu other event%s skipped)",
			st->event, st->nr_event_skipped,
			PLURAL(st->nr_event_skipped), st->nr_events - 1,
			PLURAL(st->nr_events - 1));
	if (st->nr_filtered || t->nr_filtered)
		eprintf("; %" PRIu64 " filtered out",
			st->nr_filtered + t->nr_filtered);
	if (st->nr_unrecognized)
		eprintf("; %" PRIu64
			" unrecognized line%s (the first: line %" PRIu64 ")",
			st->nr_unrecognized, PLURAL(st->nr_unrecognized),
			st->first_unrecognized);
	fputc('\n', stderr);
	rc = ctx->strict && (t->weight_unresolved || st->nr_unrecognized)
		     ? EXIT_UNRESOLVED
		     : 0;
	pda_script_free(ps);
	pda_fold_free(fd);
	return rc;
}

/* ---- a capture ----------------------------------------------------- */

/*
 * Which samples: --event (without it every event but tracepoints, as
 * perf's stackcollapse.py), --time, --pid-filter.  --comm, --dso and
 * --symbol are pda_fold's: they match the names folded.
 */
static void set_filter(struct pd_ctx *ctx, const struct fold_opts *o,
		       struct pda_filter *flt)
{
	/* off CPU, sched:sched_switch samples are switches to pair
	 * (pda_offcpu_tracepoints()), folded as no other sample is */
	PDA_FILTER_OPTS(fo, .event = o->event,
			.flags = (o->first_event ? PDA_FILTER_FIRST_EVENT : 0) |
				 (o->off_cpu || o->wall_clock
					  ? PDA_FILTER_TRACEPOINTS
					  : 0),
			.pids = o->nr_pids ? o->pids : NULL,
			.nr_pids = o->nr_pids,
			.time_ranges = o->time.nr ? o->time.r : NULL,
			.nr_time_ranges = o->time.nr);

	/* parse_args checked the range */
	if (pda_filter_init(flt, &fo) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_API));
}

/* The share of DWARF unwinds that stopped early: of samples, or of
 * their periods with --weight period. */
static double stopped_share(const struct pda_unwind_stats *u, bool period)
{
	return period ? pct(u->period_stopped, u->period)
		      : pct(u->nr_stopped, u->nr_samples);
}

/* Which events were folded, when the capture has samples of several:
 * "; " and what, or "" for one. */
static void events_folded(const struct fold_opts *o,
			  const struct pda_filter *flt, char *buf, size_t size)
{
	const struct pda_filter_stats *fs = pda_filter_stats(flt);
	const struct pd_evsel *first = pda_filter_first(flt);

	buf[0] = '\0';
	if (o->event || fs->nr_events < 2)
		return;
	if (!first) {
		snprintf(buf, size, "%zu events folded together (--event "
			 "picks one)", fs->nr_events);
		return;
	}
	snprintf(buf, size,
		 "event '%s' only: %" PRIu64 " samples of %zu other events "
		 "left out (--event picks another, --all-events adds them)",
		 first->name, fs->by_reason[PDA_FILTER_OUT_EVENT],
		 fs->nr_events - 1);
}

static void coverage(struct pd_ctx *ctx, const struct pda_capture_stats *c,
		     const struct pda_filter *flt, const struct fold_opts *o,
		     const struct pda_fold_totals *t,
		     const struct pda_stats *ps)
{
	const struct pda_filter_stats *fs = pda_filter_stats(flt);
	const bool period = o->period;
	char events[512];
	/* the other events' samples are said with the event folded */
	const uint64_t filtered =
		fs->nr_left_out + t->nr_filtered -
		(pda_filter_first(flt) ? fs->by_reason[PDA_FILTER_OUT_EVENT]
				       : 0);
	const uint64_t lost = c->lost;
	const struct pda_unwind_stats *u = ps ? &ps->unwind : NULL;

	events_folded(o, flt, events, sizeof(events));
	if (ctx->verbose) {
		eprintf("pdtool %s: samples folded: %" PRIu64 " of %" PRIu64
			" (%" PRIu64 " filtered out, %" PRIu64
			" undecodable)\n",
			ctx->cmd, t->nr_samples, c->nr_samples, filtered,
			c->nr_bad_samples);
		eprintf("pdtool %s: distinct stacks: %zu\n", ctx->cmd,
			t->nr_stacks);
		eprintf("pdtool %s: weight with unresolved frames: %.1f%% "
			"(%" PRIu64 " of %" PRIu64 ")\n",
			ctx->cmd, pct(t->weight_unresolved, t->weight),
			t->weight_unresolved, t->weight);
		eprintf("pdtool %s: lost samples: %" PRIu64 "\n", ctx->cmd,
			lost);
		if (c->reader.bytes_missing)
			eprintf("pdtool %s: data missing (the capture is cut "
				"short): %.1f%% (%" PRIu64 " of %" PRIu64
				" bytes)\n",
				ctx->cmd,
				pct(c->reader.bytes_missing,
				    c->reader.data_declared),
				c->reader.bytes_missing,
				c->reader.data_declared);
		if (u && u->nr_samples)
			eprintf("pdtool %s: DWARF unwinds stopped early: "
				"%.1f%% (%" PRIu64 " of %" PRIu64
				" samples; --stats says why)\n",
				ctx->cmd, stopped_share(u, period),
				u->nr_stopped, u->nr_samples);
		if (t->nr_truncated)
			eprintf("pdtool %s: stacks cut at --max-stack: "
				"%" PRIu64 "\n",
				ctx->cmd, t->nr_truncated);
		for (size_t i = 0; i < fs->nr_events && i < 8; i++)
			eprintf("pdtool %s: event: %s\n", ctx->cmd,
				fs->events[i].evsel->name);
		if (events[0])
			eprintf("pdtool %s: %s\n", ctx->cmd, events);
		cmd_unresolved_block(ctx, ps, ps ? ps->nr_samples : 0, NULL);
		return;
	}
	/* --off-cpu folds waits, --wall-clock samples and waits */
	eprintf("pdtool %s: %" PRIu64 " %s%s folded into %zu stack%s; "
		"%.1f%% of weight with unresolved frames; %" PRIu64 " lost",
		ctx->cmd, t->nr_samples,
		o->off_cpu ? "wait" : o->wall_clock ? "samples and wait" :
		"sample", PLURAL(t->nr_samples), t->nr_stacks,
		PLURAL(t->nr_stacks), pct(t->weight_unresolved, t->weight),
		lost);
	if (filtered)
		eprintf("; %" PRIu64 " filtered out", filtered);
	if (u && u->nr_samples)
		eprintf("; %.1f%% of DWARF unwinds stopped early",
			stopped_share(u, period));
	if (events[0])
		eprintf("; %s", events);
	if (c->reader.bytes_missing)
		eprintf("; the capture is cut short: %.1f%% of its data is "
			"missing",
			pct(c->reader.bytes_missing, c->reader.data_declared));
	if (ps && ps->nr_missing)
		eprintf("; %zu binar%s not found", ps->nr_missing,
			ps->nr_missing == 1 ? "y" : "ies");
	fputc('\n', stderr);
	cmd_unresolved_block(ctx, ps, ps ? ps->nr_samples : 0, NULL);
}

/* --stats: how the DWARF unwinds ended, by reason, then the early stops
 * by binary. */
static void unwind_stats(struct pd_ctx *ctx, const struct pda_unwind_stats *u)
{
	if (!u->nr_samples) {
		eprintf("pdtool %s: no DWARF unwinding: no sample "
			"carries user registers and stack\n",
			ctx->cmd);
		return;
	}
	eprintf("pdtool %s: DWARF unwinding (%s, %s): %" PRIu64
		" samples, %" PRIu64 " user frames, %" PRIu64
		" stopped early (%.1f%%; %.1f%% of period)\n",
		ctx->cmd, u->unwinder, u->arch ? u->arch : "unknown arch",
		u->nr_samples, u->nr_frames, u->nr_stopped,
		stopped_share(u, false), stopped_share(u, true));
	eprintf("pdtool %s: %10s %20s  %s\n", ctx->cmd, "samples", "period",
		"ended by");
	for (unsigned i = 0; i < PDA_UNWIND_NR_STOPS; i++)
		if (u->by_stop[i])
			eprintf("pdtool %s: %10" PRIu64 " %20" PRIu64
				"  %s%s\n",
				ctx->cmd, u->by_stop[i], u->period_by_stop[i],
				pda_unwind_stop_name(i),
				i == PDA_UNWIND_END ||
						i == PDA_UNWIND_MAX_FRAMES
					? ""
					: " (early)");
	if (!u->nr_stopped_dsos)
		return;
	eprintf("pdtool %s: %10s %20s  %s\n", ctx->cmd, "samples", "period",
		"stopped early in");
	for (size_t i = 0; i < u->nr_stopped_dsos; i++) {
		const struct pda_unwind_stopped *d = &u->stopped_dsos[i];

		eprintf("pdtool %s: %10" PRIu64 " %20" PRIu64 "  %s: %s\n",
			ctx->cmd, d->nr_samples, d->period,
			d->dso ? d->dso : "(no map)",
			pda_unwind_stop_name(d->why));
	}
}

/* What the capture's callbacks see. */
struct fold_run {
	struct pd_ctx *ctx;
	const struct fold_opts *o;
	struct pda_fold *fd;
	struct pda_filter flt;
	struct pda_capture c;
	struct pda_branch_hist *bh;	/* --branch-history */
	uint64_t nr_predicted;		/* left out by --mispredicted-only */
	uint64_t nr_branch_stacks;	/* samples with entries */
	uint64_t nr_pred_known;		/* of them, saying mispred or
					 * predicted */
	struct pda_parallel *par;	/* --weight latency */
	struct pda_offcpu *oc;		/* --off-cpu, --wall-clock */
	struct pd_file *f;
	/* the first shard's table, the ones before fd's added to it
	 * (fold_shard); NULL: one table */
	struct pda_fold *first;
	/* shards on threads: the table holding the stacks every shard's
	 * table adds to (pda_fold_share), until the shards are merged */
	struct pda_fold *owner;
};

/* --weight latency, --off-cpu, --wall-clock: a record of the first pass,
 * the switches and exits noted in time order. */
static int fold_order(void *arg, const struct pd_rec *rec,
		      const struct pda_pipe_when *when)
{
	struct fold_run *fr = arg;

	return cmd_switch_note(fr->par, fr->oc, fr->f, rec, when);
}

/* --branch-history: the sample's branch path under its stack (the
 * callchain cut at --max-stack as perf cuts it). */
static int fold_branches(struct fold_run *fr, const struct pda_pipe_item *it)
{
	const unsigned max =
		fr->o->max_stack ? fr->o->max_stack : PDA_FOLD_MAX_STACK;
	struct pda_stack chain = {0};
	const struct pda_stack *st;
	struct pda_branch_hist_info info;
	int rc;

	if (it->stack) {
		chain = *it->stack;
		chain.nr = pda_stack_kept(it->stack, max);
	}
	rc = pda_branch_hist_stack(fr->bh, it->sample, it->comm,
				   it->stack ? &chain : NULL, max, &st, &info);
	if (rc < 0)
		return rc;
	if (info.nr_entries)
		fr->nr_branch_stacks++;
	if (info.pred_known)
		fr->nr_pred_known++;
	if (fr->o->mispredicted_only && !info.mispred) {
		fr->nr_predicted++;
		return 0;
	}
	if (!st->nr && !it->stack)
		st = NULL; /* --no-ip-frame: the comm alone */
	rc = pda_fold_add(fr->fd, it->sample, st, it->comm);
	return rc < 0 ? rc : 0;
}

static int fold_one(void *arg, const struct pda_pipe_item *it)
{
	struct fold_run *fr = arg;
	const struct pd_sample *sample = it->sample;
	struct pd_sample lat;
	int rc;

	/* the pipeline's memo holds no sample with a branch stack
	 * (pda_pipe.c, memo_ok): a hit has none, and no mispredicted entry;
	 * the others fold keyed, as without --branch-history */
	if (fr->bh && (it->sample->mask & PD_SAMPLE_BRANCH_STACK) &&
	    !it->hit)
		return fold_branches(fr, it);
	if (fr->bh && fr->o->mispredicted_only) {
		fr->nr_predicted++;
		return 0;
	}
	if (fr->oc) {
		/* the candidate stack for the thread's next wait; --off-cpu
		 * folds nothing else */
		rc = pda_offcpu_sample(fr->oc, it);
		/* a sched_switch sample is a switch, not time on CPU; the
		 * other tracepoints' samples (let through for it) are not
		 * folded, as without --off-cpu */
		if (rc < 0 || rc == 1 || fr->o->off_cpu ||
		    (sample->evsel && sample->evsel->attr.type == 2))
			return rc < 0 ? rc : 0;
	}
	if (fr->par) {
		/* the fold weighs periods then */
		rc = cmd_latency_sample(&fr->c, fr->par, it, &lat);
		if (rc < 0)
			return rc;
		sample = &lat;
	}
	if (it->hit) /* a stack it folded before, in the same maps */
		rc = pda_fold_add_again(fr->fd, sample, *it->cookie);
	else /* stack NULL: no callchain and --no-ip-frame: the comm */
		rc = pda_fold_add_keyed(fr->fd, sample, it->stack, it->comm,
					it->cookie);
	/* the rest of a group of samples alike (pda_capture_opts.counted)
	 * as they would have come: hits of the memo entry the first made,
	 * or each folded where the memo kept none */
	for (uint64_t i = 1; rc >= 0 && i < it->count; i++)
		rc = it->cookie && *it->cookie
			     ? pda_fold_add_again(fr->fd, sample, *it->cookie)
			     : pda_fold_add_keyed(fr->fd, sample, it->stack,
						  it->comm, it->cookie);
	return rc < 0 ? rc : 0;
}

/* The first sample that does not decode and the first stack that does
 * not resolve get a warning; the rest are counted. */
static int fold_skip(void *arg, enum pda_capture_skip what, const char *why)
{
	struct fold_run *fr = arg;

	cmd_capture_skip_warn(fr->ctx, &fr->c, fr->o->path, what, why);
	return 0;
}

/* A shard of the second pass begins (pda_capture_opts.shard_fn): its
 * samples fold into a table of their own, the memo's cookies being the
 * table's; the shard before's is added to the first shard's now (in the
 * file's order: each name keeps the file's first frame), so that two
 * tables are held at most.  @return 0 or a negative pd_err. */
static int fold_shard(void *arg, unsigned shard)
{
	struct fold_run *fr = arg;
	int rc = 0;

	(void)shard;
	if (!fr->first) {
		fr->first = fr->fd;
	} else {
		rc = pda_fold_merge(fr->first, fr->fd);
		pda_fold_free(fr->fd);
	}
	fr->fd = rc < 0 ? NULL : new_fold(fr->ctx, fr->o);
	return rc;
}

/*
 * Shard n of the second pass begins on a thread of its own
 * (pda_capture_opts.shard_begin): its samples fold into a table of its
 * own, through a copy of fr (*shard_arg).  Each shard's thread adds to
 * its table itself: the first shard's table, made for a run in one,
 * is made again without its adder's thread (it holds nothing yet).
 * The shards' tables share one tree of stacks (fr->owner's): each
 * holding every stack its range meets, two shards of a capture whose
 * halves meet the same stacks held them twice (fold10.perf.data -j2:
 * 59 MB peak, 34 MB at -j1).  @return 0 or a negative pd_err.
 */
static int fold_shard_begin(void *arg, unsigned shard, void **shard_arg)
{
	struct fold_run *fr = arg;
	struct fold_run *x = malloc(sizeof(*x));
	int rc = 0;

	*shard_arg = NULL;
	if (!x)
		return PD_ERR_NOMEM;
	if (shard == 1) {
		pda_fold_free(fr->fd);
		/* the table they all end in: sorted on a thread of its
		 * own while the output takes its first lines */
		fr->owner = new_fold_sorted(fr->ctx, fr->o, false, true);
		fr->fd = new_fold_on(fr->ctx, fr->o, false);
		rc = pda_fold_share(fr->fd, fr->owner);
	}
	*x = *fr;
	x->fd = new_fold_on(fr->ctx, fr->o, false);
	if (rc == 0)
		rc = pda_fold_share(x->fd, fr->owner);
	if (rc < 0) {
		pda_fold_free(x->fd);
		free(x);
		return rc;
	}
	*shard_arg = x;
	return 0;
}

/* After the shards' threads, in order: shard n's table added to the
 * tree's owner (each name keeps the file's first frame), the first
 * shard's before the second's, then freed. */
static int fold_shard_end(void *arg, unsigned shard, void *shard_arg)
{
	struct fold_run *fr = arg;
	struct fold_run *x = shard_arg;
	int rc = 0;

	(void)shard;
	if (fr->owner) {
		rc = pda_fold_merge(fr->owner, fr->fd);
		pda_fold_free(fr->fd);
		fr->fd = fr->owner;
		fr->owner = NULL;
	}
	if (rc == 0)
		rc = pda_fold_merge(fr->fd, x->fd);
	pda_fold_free(x->fd);
	free(x);
	return rc;
}

/* After the run: the last shard's table added to the first's. */
static void fold_merge(struct pd_ctx *ctx, struct fold_run *fr)
{
	int rc;

	if (!fr->first)
		return;
	rc = pda_fold_merge(fr->first, fr->fd);
	pda_fold_free(fr->fd);
	fr->fd = fr->first;
	fr->first = NULL;
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
}

/* Whether every event of f counts time in nanoseconds (cpu-clock,
 * task-clock), which --wall-clock adds waits to. */
static bool clock_events(const struct pd_file *f)
{
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++) {
		const struct pd_evsel *e = pd_file_evsel(f, i);

		/* PERF_TYPE_SOFTWARE: PERF_COUNT_SW_CPU_CLOCK (0),
		 * PERF_COUNT_SW_TASK_CLOCK (1) */
		if (e->attr.type != 1 || e->attr.config > 1)
			return false;
	}
	return true;
}

/* --off-cpu, --wall-clock: after the run, each wait folded with its
 * length in nanoseconds under its thread's last sampled stack (with a
 * frame saying which wait it was, on the wall clock). */
static void fold_waits(struct pd_ctx *ctx, struct fold_run *fr,
		       struct pda_session *ses)
{
	static const char off[] = "[off-cpu]", runnable[] = "[runnable]";
	const struct fold_opts *o = fr->o;
	struct pda_stack st = PDA_STACK_INIT;
	int rc = pda_offcpu_finish(fr->oc);

	if (rc == 0)
		cmd_offcpu_warn(ctx, o->path, fr->oc);

	for (size_t i = 0; rc == 0 && i < pda_offcpu_nr(fr->oc); i++) {
		const struct pda_offcpu_span *sp = pda_offcpu_span(fr->oc, i);
		const size_t nr = sp->stack ? sp->stack->nr : 0;
		struct pd_sample s = {.pid = sp->pid, .tid = sp->tid};
		const struct pda_stack *use = sp->stack;

		if ((o->off_cpu && sp->preempted) || !cmd_u32_wanted(o->pids, o->nr_pids, sp->pid))
			continue;
		s.period = cmd_time_overlap(&o->time, sp->out, sp->in);
		if (!s.period)
			continue;
		if (o->wall_clock) {
			/* the wait's frame under the sampled leaf */
			if (PDC_GROW(NULL, st.frames, st.alloc, nr + 1,
				     (size_t)PDA_MAX_STACK * 64) < 0) {
				rc = PD_ERR_NOMEM;
				break;
			}
			memset(st.frames, 0, sizeof(*st.frames));
			st.frames[0].sym = sp->preempted ? runnable : off;
			if (nr)
				memcpy(st.frames + 1, sp->stack->frames,
				       nr * sizeof(*st.frames));
			st.nr = nr + 1;
			use = &st;
		}
		/* a thread never sampled: its comm at the end */
		rc = pda_fold_add(fr->fd, &s, use,
				  sp->comm ? sp->comm
					   : pda_thread_comm(ses, sp->pid,
							     sp->tid));
		if (rc > 0) /* added (0: the comm filter left it out) */
			rc = 0;
	}
	free(st.frames);
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
}

static int fold_capture(struct pd_ctx *ctx, struct fold_opts *o)
{
	struct pd_file *f = ctx_open_twice(ctx, o->path);
	struct fold_run fr = {.ctx = ctx, .o = o, .fd = new_fold(ctx, o),
			      .f = f};
	char err[512] = "";
	PDA_OPTS(po, .no_inline = o->no_inline,
		 .inline_callchain = o->inline_frames,
		 .srcline = o->srcline || o->branch_history,
		 .unwinder = o->unwinder, .names_only = true,
		 .errbuf = err, .errbuf_size = sizeof(err));
	struct cmd_progress prog;
	/* a sample without a callchain has its ip as its stack, as perf
	 * report and perf script show it; perf's stackcollapse.py folds it
	 * to the comm alone only because perf hands its scripts an empty
	 * callchain, which --no-ip-frame keeps for comparing with it */
	PDA_CAPTURE_OPTS(co, .filter = &fr.flt, .jobs = o->jobs,
			 .ip_stacks = !o->no_ip_frame, .memo = true,
			 .memo_tid = o->tid, .itrace = &o->itrace,
			 .sample_fn = fold_one, .skip_fn = fold_skip,
			 .progress = cmd_progress_fn, .progress_arg = &prog,
			 .arg = &fr);
	const struct pda_capture_stats *cs;
	const struct pda_stats *ps;
	struct pda_session *s;
	FILE *out;
	int rc;

	cmd_time_resolve(ctx, o->path, f, &o->time);
	cmd_pda_opts(ctx, &o->sym, &po);
	rc = pda_session_new(f, &po, &s);
	if (rc < 0)
		die(ctx, "'%s': %s", o->path, err[0] ? err : pd_strerror(rc));
	set_filter(ctx, o, &fr.flt);
	if (o->branch_history && (rc = pda_branch_hist_new(s, &fr.bh)) < 0)
		die(ctx, "%s", pd_strerror(rc));
	if (o->latency) {
		fr.par = cmd_parallel_new(ctx, o->path, f, o->pids, o->nr_pids);
		co.order_fn = fold_order;
	}
	if (o->off_cpu || o->wall_clock) {
		fr.oc = cmd_offcpu_new(ctx, o->path, f);
		if (o->wall_clock && !clock_events(f))
			die(ctx, "'%s': --wall-clock adds waits in "
			    "nanoseconds to sample periods, which are "
			    "nanoseconds only for cpu-clock and task-clock: "
			    "record one of them", o->path);
		co.order_fn = fold_order;
		/* each sample's stack is a candidate: no memo hits, which
		 * come without one */
		co.memo = false;
		co.ip_stacks = true;
	}
	/* fold_one and fold_skip touch the session only for branch
	 * stacks (which the resolver hands back alone), the latency's and
	 * off-CPU's candidates do */
	co.resolve_apart = !fr.par && !fr.oc;
	/* a trace's samples alike come as one, with their count, where
	 * fold_one reads nothing else of each: resolved once */
	co.counted = !fr.bh && !fr.par && !fr.oc;
	/* a table per shard, but where samples share state across the
	 * file (--branch-history's, --weight latency's, the waits') */
	if (!fr.bh && !fr.par && !fr.oc) {
		co.shard_fn = fold_shard;
		co.shard_begin = fold_shard_begin;
		co.shard_end = fold_shard_end;
	}
	rc = pda_capture_init(&fr.c, f, s, &co);
	if (rc < 0)
		cmd_capture_die(ctx, o->path, &fr.c, rc);
	if (fr.par || fr.oc)
		cmd_parallel_two_pass(ctx, o->path, &fr.c);
	out = ctx_open_output(ctx, o->output);
	cmd_progress_init(&prog, ctx);
	rc = pda_capture_run(&fr.c);
	cmd_progress_end(&prog);
	if (rc < 0)
		cmd_capture_die(ctx, o->path, &fr.c, rc);
	fold_merge(ctx, &fr);
	cmd_check_kind_synth(ctx, o->path, f,
			     &pda_capture_stats(&fr.c)->reader,
			     pda_capture_stats(&fr.c)->nr_samples,
			     pda_capture_itrace(&fr.c));
	if (o->event && !pda_filter_stats(&fr.flt)->nr_event_ok) {
		eprintf("pdtool %s: no samples of event '%s'; the "
			"capture's events:",
			ctx->cmd, o->event);
		for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
			eprintf(" %s", pd_file_evsel(f, i)->name);
		fputc('\n', stderr);
	}
	/* the pipeline's memo and the reader's queue go before the output
	 * is built (the stats stay) */
	pda_capture_release(&fr.c);
	if (fr.oc)
		fold_waits(ctx, &fr, s);
	write_output(ctx, o, out, fr.fd);

	cs = pda_capture_stats(&fr.c);
	ps = pda_session_stats(s);
	coverage(ctx, cs, &fr.flt, o, pda_fold_totals(fr.fd), ps);
	if (o->branch_history && !fr.nr_branch_stacks)
		warning(ctx, "'%s': no sample has a branch stack (perf record "
			     "-b): --branch-history has no path to add",
			o->path);
	else if (o->mispredicted_only && !fr.nr_pred_known)
		warning(ctx, "'%s': no branch entry says whether it was "
			     "predicted (mispred = predicted = 0, as AMD BRS "
			     "records them): --mispredicted-only keeps "
			     "nothing",
			o->path);
	if (o->mispredicted_only)
		eprintf("pdtool %s: %" PRIu64 " sample%s without a "
			"mispredicted branch on its path left out "
			"(--mispredicted-only)\n",
			ctx->cmd, fr.nr_predicted, PLURAL(fr.nr_predicted));
	cmd_fetch_add(ctx, &ps->debuginfod);
	cmd_fetch_summary(ctx);
	if (o->stats)
		unwind_stats(ctx, &ps->unwind);
	if (ps && ps->unwind.unwinder && ps->unwind.arch &&
	    !strcmp(ps->unwind.unwinder, "libunwind") &&
	    ps->unwind.by_stop[PDA_UNWIND_NO_ARCH])
		warning(ctx,
			"'%s': libunwind unwinds x86_64 only: %" PRIu64
			" samples (%s) kept their leaf; --unwinder libdw "
			"unwinds them",
			o->path, ps->unwind.by_stop[PDA_UNWIND_NO_ARCH],
			ps->unwind.arch);
	rc = 0;
	if (ctx->strict &&
	    (pda_fold_totals(fr.fd)->weight_unresolved || cs->lost ||
	     cs->nr_bad_samples ||
	     cs->nr_stack_errors || cs->reader.damaged ||
	     (ps && (ps->nr_missing || ps->unwind.nr_stopped)) ||
	     ctx->nr_warnings))
		rc = EXIT_UNRESOLVED;
	pda_fold_free(fr.fd);
	pda_branch_hist_free(fr.bh);
	pda_parallel_free(fr.par);
	pda_offcpu_free(fr.oc);
	pda_session_free(s);
	pd_file_close(f);
	return rc;
}

int cmd_fold(int argc, char **argv, struct pd_ctx *ctx)
{
	struct fold_opts o;

	memset(&o, 0, sizeof(o));
	parse_args(argc, argv, ctx, &o);
	/* stackcollapse-perf.pl weighs a sample by the period perf script
	 * prints (1 when it prints none) */
	if (o.from_script && !o.weight_given)
		o.period = true;
	if (o.from_script)
		return fold_script(ctx, &o);
	return fold_capture(ctx, &o);
}

struct fold_opts *cmd_fold_opts_new(const struct pd_ctx *ctx)
{
	struct fold_opts *o = calloc(1, sizeof(*o));

	if (!o)
		die(ctx, "out of memory");
	return o;
}

void cmd_fold_opts_free(struct fold_opts *o)
{
	free(o);
}

void cmd_fold_opt(struct pd_ctx *ctx, struct fold_opts *o, int c,
		  const char *arg)
{
	fold_option(ctx, o, c, arg);
}

int cmd_fold_profile(struct pd_ctx *ctx, struct fold_opts *o,
		     const char *path, struct pda_profile **out)
{
	o->path = path;
	o->profile = out;
	/* flame's palette tells kernel frames by their "_[k]" */
	o->kernel = true;
	/* a flame graph adds up one event's samples unless told */
	o->first_event = !o->event && !o->all_events;
	check_args(ctx, o);
	return fold_capture(ctx, o);
}
