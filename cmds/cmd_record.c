/*
 * cmd_record.c - `pdtool record`: a capture as `perf record` writes it,
 * where perf is missing or the wrong version.  Options in, the recorder
 * (analyze/record) runs, a summary line as perf prints it.
 */
#include "pdtool.h"
#include "pda_record.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char cmd_record_usage[] =
	"pdtool record [-e EVENTS] [-F HZ | -c PERIOD] [-g] [--call-graph "
	"fp|dwarf[,SIZE]|lbr]\n"
	"                     [-b | -j FILTER]"
	"\n"
	"                     [-o FILE] [-z[N]] [-m PAGES] [-d] "
	"[--switch-events]\n"
	"                     [-s] [--latency] [-k CLOCK] [--duration SEC] "
	"[-q] [-v]\n"
	"                     "
	"(-- CMD [ARGS] | -p PID | -t TID | -a | -C CPUS)\n"
	"   or: pdtool record --stat [-e EVENTS] [-I MS | -r N] "
	"[-A | --per-thread] [-o FILE]\n"
	"                     [--duration SEC] "
	"(-- CMD [ARGS] | -p PID | -t TID | -a | -C CPUS)";
const char cmd_record_summary[] =
	"record a capture as perf record does (software events here)";
const char cmd_record_options[] =
	"  -e, --event EVENTS    events, comma-separated, as perf names them:\n"
	"                        cpu-clock, task-clock, page-faults, ...;\n"
	"                        cycles, instructions, ... and the hardware\n"
	"                        cache events where the host has counters;\n"
	"                        rNNN (a raw event of the CPU's PMU, NNN its\n"
	"                        config in hex: r3c, r01c2:u); PMU/TERM=VAL,.../\n"
	"                        and event names from\n"
	"                        /sys/bus/event_source/devices; SYS:NAME\n"
	"                        tracepoints; modifiers :u :k :h :p (default:\n"
	"                        cycles, else cpu-clock); groups {A,B}[:MODS]\n"
	"                        opened together, {A,B}:S sampling on A and\n"
	"                        reading every member with it; repeatable\n"
	"  -F, --freq HZ         samples a second (default 4000)\n"
	"  -c, --count PERIOD    a sample every PERIOD events instead\n"
	"  -g                    callchains by frame pointers (--call-graph fp)\n"
	"      --call-graph MODE fp, or dwarf[,SIZE]: user registers and SIZE\n"
	"                        bytes of stack (default 8192) per sample, or\n"
	"                        lbr: the user part from the LBR call stack\n"
	"                        (Intel; frame pointers with -b, -j or :k)\n"
	"  -b, --branch-any      sample the taken branches (a branch stack per\n"
	"                        sample: LBR, BRBE; perf report -b reads it)\n"
	"  -j, --branch-filter FILTER\n"
	"                        a branch stack of these branches: any,\n"
	"                        any_call, any_ret, ind_call, ind_jmp, call,\n"
	"                        cond, abort_tx, in_tx, no_tx; at levels u, k,\n"
	"                        hv; and save_type, stack, priv, no_flags,\n"
	"                        no_cycles, hw_index (comma-separated)\n"
	"  -p, --pid PID[,PID]   record these running processes, all their\n"
	"                        threads, until they exit or Ctrl-C\n"
	"  -t, --tid TID[,TID]   record these threads only\n"
	"  -a, --all-cpus        record every CPU (with a command: while it\n"
	"                        runs; else until Ctrl-C or --duration)\n"
	"  -C, --cpu CPUS        record these CPUs only (0,2-3)\n"
	"  -o, --output FILE     the capture (default perf.data; an existing\n"
	"                        one becomes FILE.old); '-': a pipe-mode\n"
	"                        stream on standard output\n"
	"  -z, --compression-level[=N]\n"
	"                        pack the data in zstd COMPRESSED records,\n"
	"                        level N (default 1), as perf record -z\n"
	"  -m, --mmap-pages PAGES  data pages per ring buffer, a power of\n"
	"                        two (default 512 KiB); too few at a high\n"
	"                        rate lose samples (LOST, LOST_SAMPLES\n"
	"                        written, in a file or a pipe; the count\n"
	"                        said)\n"
	"  -d, --data            record sample data addresses\n"
	"      --switch-events   record context switches\n"
	"  -s                    per-thread counts (perf record -s): each\n"
	"                        thread's count as it exits, for perf\n"
	"                        report -T (perf's long name, --stat, is\n"
	"                        perf stat record's capture here)\n"
	"      --latency         record what perf report --latency needs\n"
	"                        (context switches; not with -a), as perf\n"
	"                        6.15 does\n"
	"  -k, --clockid CLOCK   sample times on CLOCK: monotonic,\n"
	"                        monotonic_raw, realtime, boottime, tai, or\n"
	"                        its number (CLOCKID and CLOCK_DATA written)\n"
	"      --duration SEC    stop after SEC seconds (a command still\n"
	"                        running is ended)\n"
	"      --stat            count instead of sampling, as perf stat record:\n"
	"                        the capture pdtool stat and perf stat report\n"
	"                        read (events default to task-clock,\n"
	"                        context-switches, cpu-migrations, page-faults)\n"
	"  -I, --interval-print MS\n"
	"                        --stat: a round of counts every MS ms\n"
	"  -r, --repeat N        --stat: run the command N times, a round per\n"
	"                        run (pdtool stat prints their mean and spread)\n"
	"  -A, --no-aggr         --stat: counts per CPU (with -a or -C)\n"
	"      --per-thread      --stat: counts per thread\n"
	"  -q, --quiet           no summary line\n"
	"  -v, --verbose         more messages (repeatable; -vv: each\n"
	"                        event's perf_event_attr as perf -vv shows it)\n"
	"  -h, --help            show this help\n";

enum {
	OPT_CALL_GRAPH = 256,
	OPT_SWITCH_EVENTS,
	OPT_DURATION,
	OPT_STAT,
	OPT_PER_THREAD,
	OPT_LATENCY,
};

/* -b and -j are one setting, given once (perf's parse_branch_stack) */
static void branch_filter(const struct pd_ctx *ctx, const char *arg,
			  struct pda_record_opts *o)
{
	char err[512];

	if (o->branch_sample_type)
		usage_error(ctx, "Can't use --branch-any (-b) with "
				 "--branch-filter (-j), as perf says: give one");
	if (pda_record_branch_filter(arg, &o->branch_sample_type, err,
				     sizeof(err)) < 0)
		usage_error(ctx, "%s", err);
}

/* Set by the signal handler: the one piece of state a signal may touch. */
static volatile sig_atomic_t record_stop;

static void on_signal(int sig)
{
	(void)sig;
	record_stop = 1;
}

static uint64_t parse_num(const struct pd_ctx *ctx, const char *opt,
			  const char *arg, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || v == 0 || v > max || arg[0] == '-')
		usage_error(ctx, "%s: '%s' is not a number from 1 to %llu", opt,
			    arg, (unsigned long long)max);
	return v;
}

static void call_graph(const struct pd_ctx *ctx, const char *arg,
		       struct pda_record_opts *o)
{
	if (strcmp(arg, "fp") == 0) {
		o->call_graph = PDA_REC_CG_FP;
	} else if (strncmp(arg, "dwarf", 5) == 0 &&
		   (arg[5] == '\0' || arg[5] == ',')) {
		o->call_graph = PDA_REC_CG_DWARF;
		if (arg[5] == ',') {
			uint64_t v = parse_num(ctx, "--call-graph dwarf",
					       arg + 6, 65528);

			/* the kernel takes multiples of 8 */
			o->stack_size = (uint32_t)((v + 7) & ~7ull);
		}
	} else if (strcmp(arg, "lbr") == 0) {
		o->call_graph = PDA_REC_CG_LBR;
	} else {
		usage_error(ctx, "--call-graph: '%s' is not fp, "
				 "dwarf[,SIZE] or lbr",
			    arg);
	}
}

/* -k: a clock by perf's names (CLOCK_ prefix and case optional, its
 * short forms too) or its number. */
static int parse_clockid(const struct pd_ctx *ctx, const char *arg)
{
	static const struct {
		const char *name;
		int id;
	} clocks[] = {
		{"monotonic", CLOCK_MONOTONIC},
		{"monotonic_raw", CLOCK_MONOTONIC_RAW},
		{"realtime", CLOCK_REALTIME},
		{"boottime", CLOCK_BOOTTIME},
		{"tai", CLOCK_TAI},
		{"mono", CLOCK_MONOTONIC},
		{"raw", CLOCK_MONOTONIC_RAW},
		{"real", CLOCK_REALTIME},
		{"boot", CLOCK_BOOTTIME},
	};
	const char *name = arg;
	char *end;
	long v;

	if (strncasecmp(name, "CLOCK_", 6) == 0)
		name += 6;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (strcasecmp(name, clocks[i].name) == 0)
			return clocks[i].id;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > 64)
		usage_error(ctx, "-k: '%s' is not a clock (monotonic, "
				 "monotonic_raw, realtime, boottime, tai, or "
				 "a number)",
			    arg);
	return (int)v;
}

/* -m PAGES, or a size with B, K, M or G as perf takes it. */
static unsigned mmap_pages(const struct pd_ctx *ctx, const char *arg)
{
	char *end;
	unsigned long long v;
	long page = sysconf(_SC_PAGESIZE);

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || arg[0] == '-')
		usage_error(ctx, "-m: '%s' is not a page count", arg);
	switch (*end) {
	case 'B': case 'b':
		break;
	case 'K': case 'k':
		v <<= 10;
		break;
	case 'M': case 'm':
		v <<= 20;
		break;
	case 'G': case 'g':
		v <<= 30;
		break;
	case '\0':
		v *= (unsigned long long)page;
		break;
	default:
		usage_error(ctx, "-m: '%s' is not a page count", arg);
	}
	v /= (unsigned long long)page;
	if (v == 0 || v > (1u << 20) || (v & (v - 1)))
		usage_error(ctx, "-m: %s is not a power of two of pages", arg);
	return (unsigned)v;
}

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct pda_record_opts *o, const char **out,
		       char **events, bool *quiet)
{
	static const struct option longopts[] = {
		{"event", required_argument, NULL, 'e'},
		{"freq", required_argument, NULL, 'F'},
		{"count", required_argument, NULL, 'c'},
		{"call-graph", required_argument, NULL, OPT_CALL_GRAPH},
		{"pid", required_argument, NULL, 'p'},
		{"tid", required_argument, NULL, 't'},
		{"all-cpus", no_argument, NULL, 'a'},
		{"cpu", required_argument, NULL, 'C'},
		{"output", required_argument, NULL, 'o'},
		{"compression-level", optional_argument, NULL, 'z'},
		{"mmap-pages", required_argument, NULL, 'm'},
		{"data", no_argument, NULL, 'd'},
		{"switch-events", no_argument, NULL, OPT_SWITCH_EVENTS},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"stat", no_argument, NULL, OPT_STAT},
		{"interval-print", required_argument, NULL, 'I'},
		{"repeat", required_argument, NULL, 'r'},
		{"no-aggr", no_argument, NULL, 'A'},
		{"per-thread", no_argument, NULL, OPT_PER_THREAD},
		{"clockid", required_argument, NULL, 'k'},
		{"latency", no_argument, NULL, OPT_LATENCY},
		{"branch-any", no_argument, NULL, 'b'},
		{"branch-filter", required_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_VERBOSE | CMD_OPT_STOP_AT_OPERAND,
			     .own_shortopts = "e:F:c:gp:t:aC:o:z::m:dsqhI:r:Ak:bj:",
			     .own_longopts = longopts};
	size_t ev_len = 0;
	int c;

	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1) {
		switch (c) {
		case 'e': {
			size_t len = strlen(optarg);
			char *n = realloc(*events, ev_len + len + 2);

			if (!n)
				die(ctx, "out of memory");
			if (ev_len)
				n[ev_len++] = ',';
			memcpy(n + ev_len, optarg, len + 1);
			ev_len += len;
			*events = n;
			break;
		}
		case 'F':
			o->freq = parse_num(ctx, "-F", optarg, 1000000);
			break;
		case 'c':
			o->period = parse_num(ctx, "-c", optarg, UINT64_MAX / 2);
			break;
		case 'g':
			o->call_graph = PDA_REC_CG_FP;
			break;
		case OPT_CALL_GRAPH:
			call_graph(ctx, optarg, o);
			break;
		case 'p':
			o->pids = optarg;
			break;
		case 't':
			o->tids = optarg;
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'C':
			o->cpus = optarg;
			break;
		case 'o':
			*out = optarg;
			break;
		case 'z':
			o->zstd_level = optarg ? (int)parse_num(ctx, "-z",
								optarg, 22)
					       : 1;
			break;
		case 'm':
			o->mmap_pages = mmap_pages(ctx, optarg);
			break;
		case 'd':
			o->data_addr = true;
			break;
		case OPT_SWITCH_EVENTS:
			o->switch_events = true;
			break;
		case 's':
			o->inherit_stat = true;
			break;
		case OPT_DURATION: {
			char *end;

			o->duration = strtod(optarg, &end);
			if (end == optarg || *end || !(o->duration > 0))
				usage_error(ctx, "--duration: '%s' is not a "
						 "number of seconds",
					    optarg);
			break;
		}
		case OPT_STAT:
			o->stat = true;
			break;
		case 'I':
			o->interval_ms = (unsigned)parse_num(ctx, "-I", optarg,
							     3600000);
			if (o->interval_ms < 10)
				usage_error(ctx, "-I %s: the interval is 10 ms "
						 "at least",
					    optarg);
			break;
		case 'r':
			o->runs = (unsigned)parse_num(ctx, "-r", optarg, 100000);
			break;
		case 'A':
			o->stat_aggr = PDA_REC_STAT_PER_CPU;
			break;
		case OPT_PER_THREAD:
			o->stat_aggr = PDA_REC_STAT_PER_THREAD;
			break;
		case 'k':
			o->use_clockid = true;
			o->clockid = parse_clockid(ctx, optarg);
			break;
		case OPT_LATENCY:
			o->latency = true;
			break;
		case 'b':
			branch_filter(ctx, NULL, o);
			break;
		case 'j':
			branch_filter(ctx, optarg, o);
			break;
		case 'q':
			*quiet = true;
			break;
		case 'h':
			exit(cmd_help_for(ctx, stdout) ||
			     fflush(stdout) != 0);
		default:
			break;
		}
	}
	if (o->freq && o->period)
		usage_error(ctx, "-F and -c contradict each other: give one");
	if (!o->stat && (o->interval_ms || o->runs ||
			 o->stat_aggr != PDA_REC_STAT_GLOBAL))
		usage_error(ctx, "-I, -r, -A and --per-thread count: give "
				 "--stat");
	if (o->stat && (o->freq || o->period || o->call_graph ||
			o->zstd_level || o->mmap_pages || o->data_addr ||
			o->switch_events || o->branch_sample_type ||
			o->inherit_stat))
		usage_error(ctx, "--stat counts: -F, -c, -g, --call-graph, -z, "
				 "-m, -d, --switch-events, -b, -j and -s "
				 "sample");
	if ((o->pids || o->tids) && (o->system_wide || o->cpus))
		usage_error(ctx, "-p and -t do not go with -a or -C");
	if (o->latency && o->system_wide)
		usage_error(ctx, "--latency: latency profiling is not "
				 "supported with system-wide collection (-a), "
				 "as perf says");
	if (o->stat && (o->latency || o->use_clockid))
		usage_error(ctx, "--stat counts: --latency and -k sample");
	if (o->pids && o->tids)
		usage_error(ctx, "-p and -t contradict each other: give one");
	if (optind < argc)
		o->argv = &argv[optind];
	if (o->argv && (o->pids || o->tids))
		usage_error(ctx, "a command and -p or -t: give one");
	if (!o->argv && !o->pids && !o->tids && !o->system_wide && !o->cpus)
		usage_error(ctx, "nothing to record: give a command, -p, -t, "
				 "-a or -C");
}

/* -vv: perf record -vv's attr and perf_event_open lines, as they are */
static void dump_fn(void *arg, const char *text)
{
	(void)arg;
	/* as it is: eprintf would escape the newlines */
	fputs(text, stderr);
}

static void log_fn(void *arg, enum pd_log_level level, const char *msg)
{
	ctx_log(arg, level, msg);
}

/* perf's: an existing capture at the path becomes PATH.old. */
static void keep_old(const struct pd_ctx *ctx, const char *path)
{
	struct stat sb;
	char old[4096];

	if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0)
		return;
	if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old))
		die(ctx, "'%s': path too long", path);
	if (rename(path, old) < 0)
		die(ctx, "cannot rename '%s' to '%s': %s", path, old,
		    strerror(errno));
}

struct output {
	struct pd_ctx *ctx;
	const char *path;
	int fd;
};

/* The capture's file, opened once the events are: a run that cannot
 * start leaves what was at the path as it was. */
static int open_output(void *arg)
{
	struct output *out = arg;

	keep_old(out->ctx, out->path);
	out->fd = open(out->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		       0600);
	if (out->fd < 0)
		die(out->ctx, "cannot open '%s': %s", out->path,
		    strerror(errno));
	return out->fd;
}

int cmd_record(int argc, char **argv, struct pd_ctx *ctx)
{
	PDA_RECORD_OPTS(o, .log = log_fn, .log_arg = ctx);
	struct pda_record_stats st;
	struct sigaction sa;
	const char *out = "perf.data";
	char *events = NULL, err[1024];
	bool quiet = false, to_stdout;
	struct output output = {ctx, NULL, -1};
	int rc;

	parse_args(argc, argv, ctx, &o, &out, &events, &quiet);
	o.events = events;
	o.log_level = ctx->verbose >= 2   ? PD_LOG_DEBUG
		      : ctx->verbose == 1 ? PD_LOG_INFO
					  : PD_LOG_WARN;
	if (ctx->verbose >= 2)
		o.dump = dump_fn;
	o.nr_cmdline = argc;
	o.cmdline = argv;
	o.version = "pdtool " PD_VERSION_STRING;
	to_stdout = strcmp(out, "-") == 0;
	if (o.stat && to_stdout)
		usage_error(ctx, "--stat writes a file: give -o FILE");
	o.pipe = to_stdout;
	if (to_stdout) {
		if (isatty(STDOUT_FILENO))
			die(ctx, "-o -: standard output is a terminal; "
				 "redirect it to a file or a pipe");
		o.out_fd = STDOUT_FILENO;
	} else {
		output.path = out;
		o.open_out = open_output;
		o.open_out_arg = &output;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: poll returns at once and the loop sees the flag */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* a file size limit is a full disk: the write fails, and the
	 * capture is finished where it stops */
	signal(SIGXFSZ, SIG_IGN);
	o.stop = &record_stop;
	rc = pda_record_run(&o, &st, err, sizeof(err));
	free(events);
	if (output.fd >= 0 && close(output.fd) < 0 && rc == 0)
		die(ctx, "cannot write '%s': %s", out, strerror(errno));
	if (rc < 0 && st.write_failed)
		error(ctx, "'%s': %s: the capture stops there, and is valid",
		      out, err);
	else if (rc < 0)
		die(ctx, "%s", err);
	if (st.workload && WIFEXITED(st.workload_status) &&
	    WEXITSTATUS(st.workload_status))
		warning(ctx, "'%s' exited with status %d", o.argv[0],
			WEXITSTATUS(st.workload_status));
	if (st.nr_lost)
		warning(ctx, "%llu of %llu samples lost (%.2f%%): give more "
			     "buffer pages (-m) or a lower frequency (-F)",
			(unsigned long long)st.nr_lost,
			(unsigned long long)(st.nr_samples + st.nr_lost),
			100.0 * (double)st.nr_lost /
				(double)(st.nr_samples + st.nr_lost));
	if (!quiet && o.stat) {
		eprintf("[ pdtool record: Counted and wrote %.3f MB %s (%llu "
			"counts in %llu rounds) ]\n",
			st.bytes / 1048576.0, out,
			(unsigned long long)st.nr_stat,
			(unsigned long long)st.nr_rounds);
	} else if (!quiet) {
		eprintf("[ pdtool record: Woken up %llu times to write data "
			"]\n",
			(unsigned long long)st.nr_wakeups);
		if (o.zstd_level && st.bytes)
			eprintf("[ pdtool record: Compressed %.3f MB to %.3f "
				"MB, ratio is %.3f ]\n",
				st.bytes_raw / 1048576.0, st.bytes / 1048576.0,
				(double)st.bytes_raw / (double)st.bytes);
		eprintf("[ pdtool record: Captured and wrote %.3f MB %s (%llu "
			"samples) ]\n",
			st.bytes / 1048576.0, to_stdout ? "<stdout>" : out,
			(unsigned long long)st.nr_samples);
	}
	return rc < 0 ? EXIT_FATAL : 0;
}
