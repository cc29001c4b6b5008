/*
 * cmd_report.c - `pdtool report`: perf report's tables (overhead per
 * comm, DSO, symbol, ...) of a capture, as `perf report --stdio` 6.1
 * prints them.  The histogram is analyze/profile's pda_report, the text
 * emit's pde_report; this file reads options, runs the capture and
 * hands one to the other.
 */
#include "pdtool.h"
#include "pdc_hash.h"
#include "pda_branch.h"
#include "pda_capture.h"
#include "pda_datatype.h"
#include "pda_mem.h"
#include "pda_offcpu.h"
#include "pda_parallel.h"
#include "pda_metrics.h"
#include "pda_report.h"
#include "pda_session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char cmd_report_usage[] =
	"pdtool report [OPTIONS] [FILE | -i FILE]\n"
	"       pdtool report --format md|json [--stat STAT.DATA]... -o DIR "
	"[FILE]";
const char cmd_report_summary[] =
	"perf report's tables: overhead per command, DSO, symbol, ...";
const char cmd_report_options[] =
	"  -i, --input FILE      the capture ('-': standard input); the same\n"
	"                        as FILE\n"
	"  -o, --output FILE     write there instead of stdout (with --format\n"
	"                        md or json: the directory the profile\n"
	"                        report goes into: its environment, topdown\n"
	"                        summary, hotspots, cache hierarchy, branch\n"
	"                        hotspots, coverage and validation sections\n"
	"                        in DIR/report.md or DIR/report.json, its\n"
	"                        flame graph in DIR/flame.svg)\n"
	"      --stat FILE       md, json: a perf stat record capture of the\n"
	"                        same command, for the topdown and cache\n"
	"                        sections (repeatable: the runs of one\n"
	"                        command, as pdtool stat FILE...)\n"
	"      --top N           md, json: functions and branches per table\n"
	"                        (default 20)\n"
	"  -s, --sort KEYS       comma-separated: comm, pid, dso, sym\n"
	"                        (symbol), symoff, srcline, srcfile, cpu,\n"
	"                        parent, type, typeoff, typecln,\n"
	"                        parallelism (default comm,dso,sym, as\n"
	"                        perf; trace when every event is a\n"
	"                        tracepoint); symoff: the symbol and the\n"
	"                        offset of the sampled instruction (a\n"
	"                        caller's: its call site), as perf >= 6.10;\n"
	"                        parallelism: how many of the workload's\n"
	"                        threads ran at the sample, as perf >= 6.15\n"
	"                        (needs switch records); type, typeoff and\n"
	"                        typecln: the data type and member (or\n"
	"                        64-byte cache line) the sampled\n"
	"                        instruction loads or stores, from DWARF,\n"
	"                        as perf >= 6.8 (x86_64, i386, aarch64, arm,\n"
	"                        ppc64, s390x; without children);\n"
	"                        local_weight, weight, local_ins_lat,\n"
	"                        ins_lat: the sample's latency (weight:\n"
	"                        times the row's samples); time: the\n"
	"                        sample's time in --time-quantum steps;\n"
	"                        addr: the sampled (a caller's: the call\n"
	"                        site's) address, as perf 6.1; socket: the\n"
	"                        socket of the sample's CPU; transaction,\n"
	"                        code_page_size: the samples' TSX flags\n"
	"                        and code page sizes; symbol_size,\n"
	"                        dso_size: the size of the row's symbol\n"
	"                        and of its map; cgroup: the sample's\n"
	"                        cgroup (perf record --all-cgroups);\n"
	"                        cgroup_id: the thread's cgroup namespace\n"
	"                        (perf record --namespaces);\n"
	"                        trace: a tracepoint sample's fields as\n"
	"                        its print format gives them\n"
	"      --mem-mode        perf's memory mode, on samples with data\n"
	"                        sources (perf mem record, Arm SPE): shares\n"
	"                        of the weight (latency), and the keys mem,\n"
	"                        snoop, tlb, locked, blocked (data_src),\n"
	"                        symbol_daddr, dso_daddr, phys_daddr (the\n"
	"                        data address), dcacheline (its cache\n"
	"                        line), symbol_iaddr (the instruction),\n"
	"                        data_page_size;\n"
	"                        default --sort local_weight,mem,sym,dso,\n"
	"                        symbol_daddr,dso_daddr,snoop,tlb,locked,\n"
	"                        blocked,local_ins_lat, as perf 6.1\n"
	"      --children        add each sample to its callers' rows too\n"
	"                        (Children and Self columns); the default\n"
	"                        when the capture has callchains, as perf\n"
	"      --no-children     only the rows of the sampled functions\n"
	"  -n, --show-nr-samples a Samples column\n"
	"      --show-total-period\n"
	"                        a Period column\n"
	"      --percent-limit PCT\n"
	"                        leave out rows under PCT percent (of the\n"
	"                        Children column with it)\n"
	"      --max-stack N     callchain frames used (default 127, as perf)\n"
	"      --time-quantum T  the time key's unit: T ns, or with s, ms,\n"
	"                        us, ns after it (default 100ms, as perf)\n"
	"      --ns              the time key in nanoseconds\n"
	"  -g, --call-graph MODE[,THRESHOLD[,LIMIT]][,ORDER]\n"
	"                        the call graph under each row, as perf's -g:\n"
	"                        MODE graph (shares of the event), fractal\n"
	"                        (of the caller's), flat, folded or none;\n"
	"                        parts under THRESHOLD percent left out\n"
	"                        (default 0.5); LIMIT chains a level; ORDER\n"
	"                        caller or callee (default: caller with\n"
	"                        children, else callee).  Default graph when\n"
	"                        the capture has callchains\n"
	"  -G, --inverted        caller order (-g caller)\n"
	"      --callers SYM     who calls function SYM: its rows, each with\n"
	"                        the chains from SYM to the root merged,\n"
	"                        shares of SYM's period (--children --symbols\n"
	"                        SYM -g fractal,0.5,callee)\n"
	"      --callees SYM     what SYM calls: the chains from SYM to the\n"
	"                        sampled functions (-g fractal,0.5,caller)\n"
	"  -b, --branch-stack    perf's branch mode: a row per taken branch of\n"
	"                        the branch stacks (perf record -b), shares\n"
	"                        of all their entries; --sort keys comm, dso,\n"
	"                        symbol (the target's), dso_from, dso_to,\n"
	"                        symbol_from, symbol_to, mispredict, in_tx,\n"
	"                        abort, cycles, srcline_from, srcline_to\n"
	"                        (default comm,dso_from,symbol_from,\n"
	"                        symbol_to,cycles, as perf 6.1); a symbol\n"
	"                        key adds perf's IPC [IPC Coverage] of the\n"
	"                        target's function.  With -o, --sort,\n"
	"                        --percent-limit, --format (text, md,\n"
	"                        json, csv), --group and --no-group (a\n"
	"                        recorded group's members' shares side by\n"
	"                        side by default), the sample filters (--comms,\n"
	"                        --dsos, --symbols, --pid, --tid, --cpu,\n"
	"                        --time, as perf applies them) and the\n"
	"                        symbol options.\n"
	"                        The default, as perf's, when the capture's\n"
	"                        header says its events sample branch\n"
	"                        stacks (perf record -b or -j) and none the\n"
	"                        user stack, unless an option branch mode\n"
	"                        does not take is given\n"
	"      --no-branch-stack the samples' own rows (the default\n"
	"                        otherwise)\n"
	"      --total-cycles    branch mode's block view, as perf's: each\n"
	"                        basic block the branches with cycles ended,\n"
	"                        its share of all their cycles, its cycles,\n"
	"                        its average's share and average, its\n"
	"                        [Program Block Range] and DSO, Intel's\n"
	"                        branch counters as perf 7.2 (text, md,\n"
	"                        json)\n"
	"  -p, --parent RE       the parent key's pattern (default\n"
	"                        \"^sys_|^do_page_fault\", as perf)\n"
	"      --latency         a Latency column first, rows ordered by it:\n"
	"                        each sample's period divided by how many\n"
	"                        threads of the workload ran then, from the\n"
	"                        capture's context-switch records, as perf\n"
	"                        >= 6.15; with children, a children's\n"
	"                        Latency column first too\n"
	"      --off-cpu         a table of event 'offcpu-time' after the\n"
	"                        samples', as perf reports its --off-cpu\n"
	"                        captures: each thread's waits (switch-out\n"
	"                        to switch-in, nanoseconds, preempted ones\n"
	"                        left out) under the stack of its last\n"
	"                        sample before (needs switch records)\n"
	"      --parallelism LIST\n"
	"                        only the rows of samples taken while this\n"
	"                        many threads ran (\"1\", \"1-2,4\"; the others\n"
	"                        still in the totals; needs switch records)\n"
	"      --group           every event side by side in one table, as\n"
	"                        perf report --group (a capture that recorded\n"
	"                        groups {a,b}: a table per group, by default;\n"
	"                        also in branch mode and --total-cycles)\n"
	"      --no-group        a table per event, recorded groups too\n"
	"      --ratios          text: a column per counter ratio the\n"
	"                        capture's events allow, of each row's\n"
	"                        samples (with children, its callees' too):\n"
	"                        IPC (instructions / cycles), branch\n"
	"                        and cache miss rates (generic events, Arm\n"
	"                        PMUv3's by number); on by default in md,\n"
	"                        json and csv\n"
	"      --no-ratios       md, json, csv: leave them out\n"
	"      --comms LIST      only samples of these commands (names,\n"
	"                        comma-separated, as perf's)\n"
	"      --symbols LIST    only samples in these functions\n"
	"      --dsos LIST       only samples in these DSOs (file names or\n"
	"                        paths; as perf, a row first reached by a\n"
	"                        sample elsewhere stays hidden)\n"
	"      --pid LIST        only samples of these processes\n"
	"      --tid LIST        only samples of these threads\n"
	"      --cpu LIST        only samples on these CPUs (\"0-3,7\")\n"
	CMD_TIME_HELP
	"      --format FMT      text (default: perf report --stdio's, its\n"
	"                        percentages coloured on a terminal unless\n"
	"                        NO_COLOR is set), md (a Markdown table an\n"
	"                        event), json (a row object each, with every\n"
	"                        key and value) or csv; call graphs are text's\n"
	"      --stdio           accepted for perf's command lines\n"
	"  -T, --threads         after the report, each thread's counts of\n"
	"                        every event, as perf's table: from the\n"
	"                        counts the kernel wrote as the threads\n"
	"                        exited (perf record -s), summed over CPUs\n"
	"      --pretty STYLE    -T's table: normal, or raw (a row per thread\n"
	"                        and event, as perf 6.1 prints it)\n"
	CMD_SYMFILES_HELP
	CMD_ITRACE_HELP
	CMD_UNWINDER_HELP
	CMD_JOBS_HELP
	"      --strict          exit 1 when anything was unresolved, lost or\n"
	"                        skipped\n"
	"  -v, --verbose         more library messages (repeatable); the\n"
	"                        Branch Counter cell by numbers and C++\n"
	"                        names with their parameters (perf -v)\n"
	"  -h, --help            this help\n";

/* perf 6.1's --mem-mode sort order (its title names it whole; the
 * p_stage_cyc keys are powerpc's, which perf shows no column of
 * elsewhere) */
#define MEM_SORT                                                             \
	"local_weight,mem,sym,dso,symbol_daddr,dso_daddr,snoop,tlb,locked,"   \
	"blocked,local_ins_lat,local_p_stage_cyc"

enum {
	OPT_CHILDREN = 256,
	OPT_MEM_MODE,
	OPT_NO_CHILDREN,
	OPT_TOTAL_PERIOD,
	OPT_PERCENT_LIMIT,
	OPT_TIME_QUANTUM,
	OPT_NS,
	OPT_MAX_STACK,
	OPT_GROUP,
	OPT_NO_GROUP,
	OPT_COMMS,
	OPT_SYMBOLS,
	OPT_DSOS,
	OPT_PID,
	OPT_TID,
	OPT_CPU,
	OPT_TIME,
	OPT_STDIO,
	OPT_LATENCY,
	OPT_PARALLELISM,
	OPT_OFF_CPU,
	OPT_STAT,
	OPT_TOP,
	OPT_CALL_GRAPH,
	OPT_CALLERS,
	OPT_CALLEES,
	OPT_FORMAT,
	OPT_RATIOS,
	OPT_NO_RATIOS,
	OPT_BRANCH_STACK,
	OPT_NO_BRANCH_STACK,
	OPT_TOTAL_CYCLES,
	OPT_PRETTY,
};

enum report_format { FMT_TEXT, FMT_MD, FMT_JSON, FMT_CSV };

#define MAX_IDS 1024
#define MAX_CPUS 4096
#define MAX_NAMES 256
#define MAX_STATS 256
#define MAX_STACK_ARGS 64

struct report_opts {
	const char *path, *output;
	enum pda_report_key keys[PDA_REPORT_MAX_KEYS];
	unsigned nr_keys;
	int children;		/* 1 --children, -1 --no-children, 0 */
	bool nr_samples, total_period, group, no_group;
	bool sort_sym_first;	/* --sort's text starts with "sym" */
	const char *sort_arg;	/* --sort's text */
	bool mem_mode;		/* --mem-mode: weights as periods */
	char mem_title[512];	/* its title's sort order */
	bool sort_default;	/* sort_arg is --mem-mode's default */
	bool branch_stack;	/* perf's branch mode */
	bool branch_set;	/* --branch-stack or --no-branch-stack given:
				 * else the capture decides, as perf's */
	bool plain_opts;	/* an option branch mode does not take */
	bool total_cycles;	/* --total-cycles: perf's block view */
	float percent_limit;
	unsigned max_stack;
	const char *parent;
	/* -g: mode (-1 not given), threshold, limit, order (1 caller, -1
	 * callee, 0 perf's default) */
	int graph;
	double graph_min;
	unsigned graph_limit;
	int order;
	enum report_format format;
	const char *view;	/* --callers or --callees SYM */
	bool callers;
	char *names_buf[3];	/* the lists' copies, split in place */
	const char *comms[MAX_NAMES + 1], *symbols[MAX_NAMES + 1];
	const char *dsos[MAX_NAMES + 1];
	uint32_t pids[MAX_IDS], tids[MAX_IDS];
	size_t nr_pids, nr_tids;
	uint32_t cpus[MAX_CPUS];
	size_t nr_cpus;
	bool latency;
	int ratios;		/* 1 --ratios, -1 --no-ratios, 0 */
	bool off_cpu;		/* --off-cpu: an offcpu-time table */
	uint32_t levels[MAX_CPUS];	/* --parallelism */
	size_t nr_levels;
	struct cmd_time_range time;
	const char *time_arg;	/* --time's text */
	struct cmd_symopts sym;
	const char *unwinder;
	unsigned jobs;
	/* --format md|json -o DIR: the profile report */
	const char *stats[MAX_STATS];
	size_t nr_stats;
	unsigned top;
	struct cmd_report_doc_arg stack_args[MAX_STACK_ARGS];
	size_t nr_stack_args;
	struct pda_itrace_opts itrace; /* --itrace (zeroed: perf's default) */
	uint64_t time_quantum;	/* --time-quantum (ns); 0: perf's 100 ms */
	bool time_ns;		/* --ns: the time key in nanoseconds */
	bool threads;		/* -T: the per-thread counts after */
	bool threads_raw;	/* --pretty raw: in perf's raw style */
};

/* perf 6.1's parse_time_quantum(): a number (strtoul's bases) with s,
 * ms, us or ns after it (blanks between), ns without; not 0. */
static uint64_t parse_time_quantum(struct pd_ctx *ctx, const char *arg)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"", 1}, {"s", 1000000000}, {"ms", 1000000},
		     {"us", 1000}, {"ns", 1}};
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (end == arg || errno || *arg == '-')
		usage_error(ctx, "--time-quantum '%s': not a time (N, Ns, "
				 "Nms, Nus, Nns)", arg);
	if (!v)
		usage_error(ctx, "--time-quantum: the quantum cannot be 0");
	while (*end == ' ' || *end == '\t')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v > UINT64_MAX / units[i].ns)
				break;
			return v * units[i].ns;
		}
	usage_error(ctx, "--time-quantum '%s': not a time (N, Ns, Nms, "
			 "Nus, Nns)", arg);
	return 0;
}

static void parse_sort(struct pd_ctx *ctx, struct report_opts *o,
		       const char *arg)
{
	/* perf 6.1's sort keys pdtool report has not, and why: a key perf
	 * takes is refused with its reason, not as unknown */
	static const struct {
		const char *names, *why;
	} lacking[] = {
		{" overhead overhead_sys overhead_us overhead_guest_sys "
		 "overhead_guest_us overhead_children sample period ",
		 "perf's output columns (-F), which pdtool report does not "
		 "take as keys; rows are ordered by overhead already"},
		{" dso_from dso_to symbol_from symbol_to mispredict abort "
		 "in_tx cycles srcline_from srcline_to ipc_lbr addr_from "
		 "addr_to ",
		 "a branch-mode key: give --branch-stack (perf report -b)"},
		{" ipc_null ", "not a key pdtool report takes: it adds perf's "
			       "IPC [IPC Coverage] column of \"-\" itself "
			       "after a --sort naming \"symbol\", with "
			       "perf's split of the rows by symbol"},
	};
	const char *p = arg;

	o->nr_keys = 0;
	while (*p) {
		const size_t len = strcspn(p, ",");
		char name[32];
		enum pda_report_key k;

		if (len == 0 || len >= sizeof(name))
			usage_error(ctx, "--sort '%s': not a list of keys", arg);
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		if (*p)
			p++;
		/* powerpc's pipeline stage cycles: perf 6.1 takes the key
		 * and shows no column on other hosts (arch_support_sort_key) */
		if (!strcmp(name, "local_p_stage_cyc") ||
		    !strcmp(name, "p_stage_cyc"))
			continue;
		for (size_t i = 0; i < sizeof(lacking) / sizeof(lacking[0]);
		     i++) {
			const char *at = strstr(lacking[i].names, name);

			if (at && !strchr(name, ' ') && at[-1] == ' ' &&
			    at[len] == ' ')
				usage_error(ctx, "--sort: key '%s': %s", name,
					    lacking[i].why);
		}
		if (pda_report_key_by_name(name, &k) < 0)
			usage_error(ctx,
				    "--sort: unknown key '%s' (comm, pid, dso, "
				    "sym, symoff, srcline, srcfile, cpu, parent, "
				    "type, typeoff, typecln, parallelism, "
				    "local_weight, weight, local_ins_lat, "
				    "ins_lat, time, socket, addr, transaction, "
				    "code_page_size, symbol_size, dso_size, cgroup, "
				    "cgroup_id, trace; with --mem-mode mem, "
				    "snoop, tlb, "
				    "locked, blocked, symbol_daddr, dso_daddr, "
				    "phys_daddr, dcacheline, symbol_iaddr, "
				    "data_page_size)",
				    name);
		if (((k >= PDA_REPORT_MEM && k <= PDA_REPORT_PHYS_DADDR) ||
		     k == PDA_REPORT_DCACHELINE || k == PDA_REPORT_IADDR ||
		     k == PDA_REPORT_DATA_PAGE) &&
		    !o->mem_mode)
			usage_error(ctx, "--sort: key '%s' needs --mem-mode",
				    name);
		for (unsigned i = 0; i < o->nr_keys; i++)
			if (o->keys[i] == k)
				usage_error(ctx, "--sort: key '%s' given twice",
					    name);
		if (o->nr_keys == PDA_REPORT_MAX_KEYS)
			usage_error(ctx, "--sort: more than %d keys",
				    PDA_REPORT_MAX_KEYS);
		o->keys[o->nr_keys++] = k;
	}
	if (!o->nr_keys)
		usage_error(ctx, "--sort needs at least one key (the "
				 "p_stage_cyc keys are powerpc's: no column "
				 "here)");
}

static unsigned parse_count(struct pd_ctx *ctx, const char *opt,
			    const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*end || end == arg || errno || v == 0 || v > 1u << 20)
		usage_error(ctx, "%s '%s': a count from 1", opt, arg);
	return (unsigned)v;
}

/* Whether word is a prefix of name, as perf's strncmp(word, name,
 * strlen(word)) matches its -g words. */
static bool word_is(const char *word, const char *name)
{
	return *word && !strncmp(word, name, strlen(word));
}

/*
 * perf's -g (__parse_callchain_report_opt): comma-separated words, each
 * a mode, an order, a key or a value kind (a prefix of one), else the
 * threshold and then the print limit.  "none" ends it.
 */
static void parse_call_graph(struct pd_ctx *ctx, struct report_opts *o,
			     const char *arg)
{
	static const struct {
		const char *name;
		int mode;
	} modes[] = {
		{"graph", PDE_GRAPH_ABS},
		{"flat", PDE_GRAPH_FLAT},
		{"fractal", PDE_GRAPH_REL},
		{"folded", PDE_GRAPH_FOLDED},
	};
	bool have_min = false;
	const char *p = arg;

	while (*p) {
		const size_t len = strcspn(p, ",");
		char w[64], *end;
		bool done = false;

		if (len >= sizeof(w))
			usage_error(ctx, "-g '%s': '%.*s' is not a -g word", arg,
				    (int)len, p);
		memcpy(w, p, len);
		w[len] = '\0';
		p += len + (p[len] == ',');
		if (!len)
			continue;
		if (word_is(w, "none")) {
			o->graph = PDE_GRAPH_NONE;
			return;
		}
		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (word_is(w, modes[i].name)) {
				o->graph = modes[i].mode;
				done = true;
				break;
			}
		if (done)
			continue;
		if (word_is(w, "caller") || word_is(w, "callee")) {
			/* "calle": perf takes the first that matches */
			o->order = word_is(w, "caller") ? 1 : -1;
			continue;
		}
		if (word_is(w, "function") || word_is(w, "percent"))
			continue;
		if (word_is(w, "address") || word_is(w, "srcline") ||
		    word_is(w, "branch") || word_is(w, "period") ||
		    word_is(w, "count"))
			usage_error(ctx,
				    "-g '%s': '%s' is not supported (the key is "
				    "the function, the value a percentage)",
				    arg, w);
		errno = 0;
		if (!have_min) {
			o->graph_min = strtod(w, &end);
			if (*end || errno || !(o->graph_min >= 0) ||
			    o->graph_min > 100)
				usage_error(ctx,
					    "-g '%s': '%s' is neither a mode, an "
					    "order nor a threshold",
					    arg, w);
			have_min = true;
		} else {
			const unsigned long v = strtoul(w, &end, 0);

			if (*end || errno || v > UINT32_MAX)
				usage_error(ctx, "-g '%s': '%s' is not a limit",
					    arg, w);
			o->graph_limit = (unsigned)v;
		}
	}
	if (o->graph < 0)
		o->graph = PDE_GRAPH_ABS;
}

static void report_option(struct pd_ctx *ctx, struct report_opts *o, int c,
			  const char *arg)
{
	switch (c) {
	case 'g':
		parse_call_graph(ctx, o, arg);
		break;
	case 'G':
		o->order = 1;
		break;
	case OPT_RATIOS:
	case OPT_NO_RATIOS:
		o->ratios = c == OPT_RATIOS ? 1 : -1;
		break;
	case OPT_FORMAT: {
		static const char *const names[] = {"text", "md", "json",
						    "csv"};
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(arg, names[i]))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			usage_error(ctx, "--format '%s': give text, md, json or "
					 "csv",
				    arg);
		o->format = (enum report_format)i;
		break;
	}
	case OPT_CALLERS:
	case OPT_CALLEES:
		if (o->view)
			usage_error(ctx, "--callers and --callees: one of "
					 "them, once");
		if (!*arg)
			usage_error(ctx, "--%s: no function given",
				    c == OPT_CALLERS ? "callers" : "callees");
		o->view = arg;
		o->callers = c == OPT_CALLERS;
		break;
	case 'o':
		o->output = arg;
		break;
	case 's':
		/* its keys depend on the mode, which the capture may
		 * decide: parsed then (the last --sort counts) */
		o->sort_arg = arg;
		break;
	case 'n':
		o->nr_samples = true;
		break;
	case OPT_MEM_MODE:
		o->mem_mode = true;
		break;
	case 'p':
		o->parent = arg;
		break;
	case OPT_CHILDREN:
		o->children = 1;
		break;
	case OPT_NO_CHILDREN:
		o->children = -1;
		break;
	case OPT_TOTAL_PERIOD:
		o->total_period = true;
		break;
	case OPT_TIME_QUANTUM:
		o->time_quantum = parse_time_quantum(ctx, arg);
		break;
	case OPT_NS:
		o->time_ns = true;
		break;
	case OPT_PERCENT_LIMIT: {
		char *end;

		errno = 0;
		/* perf reads it with strtof */
		o->percent_limit = strtof(arg, &end);
		if (*end == '%')
			end++;
		if (*end || end == arg || errno || !(o->percent_limit >= 0) ||
		    o->percent_limit > 100)
			usage_error(ctx,
				    "--percent-limit '%s': a percentage, 0 to "
				    "100",
				    arg);
		/* perf's parse_percent_limit() sets the call graphs'
		 * threshold too */
		o->graph_min = o->percent_limit;
		break;
	}
	case OPT_MAX_STACK:
		o->max_stack = parse_count(ctx, "--max-stack", arg);
		break;
	case OPT_GROUP:
		o->group = true;
		o->no_group = false;
		break;
	case OPT_NO_GROUP:
		o->no_group = true;
		o->group = false;
		break;
	case OPT_COMMS:
		cmd_parse_names(ctx, "--comms", arg, &o->names_buf[0], o->comms,
				MAX_NAMES);
		break;
	case OPT_DSOS:
		cmd_parse_names(ctx, "--dsos", arg, &o->names_buf[2], o->dsos,
				MAX_NAMES);
		break;
	case OPT_SYMBOLS:
		cmd_parse_names(ctx, "--symbols", arg, &o->names_buf[1],
				o->symbols, MAX_NAMES);
		break;
	case OPT_PID:
		o->nr_pids = cmd_parse_u32_list(ctx, "--pid", "pids", arg,
						o->pids, o->nr_pids, MAX_IDS,
						false);
		break;
	case OPT_TID:
		o->nr_tids = cmd_parse_u32_list(ctx, "--tid", "tids", arg,
						o->tids, o->nr_tids, MAX_IDS,
						false);
		break;
	case OPT_CPU:
		o->nr_cpus = cmd_parse_u32_list(ctx, "--cpu", "cpus", arg,
						o->cpus, o->nr_cpus, MAX_CPUS,
						true);
		break;
	case OPT_TIME:
		cmd_parse_time(ctx, "--time", arg, &o->time);
		o->time_arg = arg;
		break;
	case OPT_STDIO:
		break;
	case 'T':
		o->threads = true;
		break;
	case OPT_PRETTY:
		/* perf takes any other key for normal */
		if (strcmp(arg, "normal") && strcmp(arg, "raw"))
			usage_error(ctx, "--pretty '%s': normal or raw", arg);
		o->threads_raw = !strcmp(arg, "raw");
		break;
	case OPT_OFF_CPU:
		o->off_cpu = true;
		break;
	case OPT_LATENCY:
		o->latency = true;
		break;
	case OPT_PARALLELISM:
		o->nr_levels = cmd_parse_u32_list(ctx, "--parallelism",
						  "parallelism levels", arg,
						  o->levels, o->nr_levels,
						  MAX_CPUS, true);
		for (size_t i = 0; i < o->nr_levels; i++)
			if (o->levels[i] == 0)
				usage_error(ctx, "--parallelism '%s': levels "
					    "from 1", arg);
		break;
	case OPT_STAT:
		if (o->nr_stats == MAX_STATS)
			usage_error(ctx, "--stat: more than %d captures",
				    MAX_STATS);
		o->stats[o->nr_stats++] = arg;
		break;
	case OPT_TOP:
		o->top = parse_count(ctx, "--top", arg);
		break;
	default:
		if (c == CMD_OPT_ITRACE || c == CMD_OPT_SPE_EVENTS)
			cmd_itrace(ctx, c, arg, &o->itrace);
		else
			cmd_stack_opt(ctx, c, arg, &o->sym, &o->unwinder,
				      &o->jobs);
		/* the report's flame graph folds with the same options */
		if (o->nr_stack_args == MAX_STACK_ARGS)
			usage_error(ctx, "more than %d symbol options",
				    MAX_STACK_ARGS);
		o->stack_args[o->nr_stack_args++] =
			(struct cmd_report_doc_arg){c, arg};
		break;
	}
}

/*
 * --callers SYM and --callees SYM: SYM's rows with children (every
 * sample with SYM on its stack) and their graphs from SYM's frame on,
 * toward the root (callee order: who calls it) or the leaf (caller
 * order: what it calls), each branch's share of its caller's (fractal),
 * unless -g says otherwise.
 */
static void set_view(struct pd_ctx *ctx, struct report_opts *o)
{
	const char *name = o->callers ? "--callers" : "--callees";

	if (o->children < 0)
		usage_error(ctx, "%s needs the Children rows: not with "
				 "--no-children",
			    name);
	if (o->symbols[0])
		usage_error(ctx, "%s and --symbols: one of them", name);
	if (o->graph == PDE_GRAPH_NONE)
		usage_error(ctx, "%s shows call graphs: not with -g none",
			    name);
	if (o->order && (o->order > 0) == o->callers)
		usage_error(ctx, "%s orders the chains %s first: not with "
				 "-g %s",
			    name, o->callers ? "callee" : "caller",
			    o->callers ? "caller" : "callee");
	o->children = 1;
	o->order = o->callers ? -1 : 1;
	if (o->graph < 0)
		o->graph = PDE_GRAPH_REL;
	o->symbols[0] = o->view;
	o->symbols[1] = NULL;
}

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct report_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"sort", required_argument, NULL, 's'},
		{"mem-mode", no_argument, NULL, OPT_MEM_MODE},
		{"children", no_argument, NULL, OPT_CHILDREN},
		{"no-children", no_argument, NULL, OPT_NO_CHILDREN},
		{"show-nr-samples", no_argument, NULL, 'n'},
		{"show-total-period", no_argument, NULL, OPT_TOTAL_PERIOD},
		{"percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT},
		{"time-quantum", required_argument, NULL, OPT_TIME_QUANTUM},
		{"ns", no_argument, NULL, OPT_NS},
		{"max-stack", required_argument, NULL, OPT_MAX_STACK},
		{"parent", required_argument, NULL, 'p'},
		{"group", no_argument, NULL, OPT_GROUP},
		{"no-group", no_argument, NULL, OPT_NO_GROUP},
		{"comms", required_argument, NULL, OPT_COMMS},
		{"symbols", required_argument, NULL, OPT_SYMBOLS},
		{"dsos", required_argument, NULL, OPT_DSOS},
		{"pid", required_argument, NULL, OPT_PID},
		{"tid", required_argument, NULL, OPT_TID},
		{"cpu", required_argument, NULL, OPT_CPU},
		{"time", required_argument, NULL, OPT_TIME},
		{"stdio", no_argument, NULL, OPT_STDIO},
		{"threads", no_argument, NULL, 'T'},
		{"pretty", required_argument, NULL, OPT_PRETTY},
		{"latency", no_argument, NULL, OPT_LATENCY},
		{"parallelism", required_argument, NULL, OPT_PARALLELISM},
		{"off-cpu", no_argument, NULL, OPT_OFF_CPU},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"ratios", no_argument, NULL, OPT_RATIOS},
		{"no-ratios", no_argument, NULL, OPT_NO_RATIOS},
		{"stat", required_argument, NULL, OPT_STAT},
		{"top", required_argument, NULL, OPT_TOP},
		{"call-graph", required_argument, NULL, 'g'},
		{"inverted", no_argument, NULL, 'G'},
		{"callers", required_argument, NULL, OPT_CALLERS},
		{"callees", required_argument, NULL, OPT_CALLEES},
		{"branch-stack", no_argument, NULL, OPT_BRANCH_STACK},
		{"no-branch-stack", no_argument, NULL, OPT_NO_BRANCH_STACK},
		{"total-cycles", no_argument, NULL, OPT_TOTAL_CYCLES},
		CMD_UNWINDER_LONGOPT,
		CMD_JOBS_LONGOPT,
		CMD_ITRACE_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	static const struct option symopts[] = {
		CMD_SYMBOL_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
			     .own_shortopts = "o:s:np:j:g:GbT",
			     .own_longopts = longopts,
			     .more_longopts = symopts};
	int c;

	cmd_opts_start(&p, ctx, argc, argv);
	/* --branch-stack changes what --sort's keys are: seen first */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--branch-stack") ||
		    !strcmp(argv[i], "-b"))
			o->branch_stack = o->branch_set = true;
		else if (!strcmp(argv[i], "--no-branch-stack")) {
			o->branch_stack = false;
			o->branch_set = true;
		}
	while ((c = cmd_getopt(&p)) != -1) {
		if (c == OPT_BRANCH_STACK || c == OPT_NO_BRANCH_STACK ||
		    c == 'b')
			continue;
		if (c == OPT_TOTAL_CYCLES) {
			o->total_cycles = true;
			continue;
		}
		/* branch mode takes --sort, -o, --percent-limit, --stdio,
		 * --format, --group, --no-group, -T, --pretty, the sample
		 * filters and the symbol options (the common ones are
		 * getopt's) */
		if ((c != 's' && c != 'o' && c != OPT_PERCENT_LIMIT &&
		     c != OPT_STDIO && c != OPT_FORMAT && c != OPT_GROUP &&
		     c != 'T' && c != OPT_PRETTY &&
		     c != OPT_NO_GROUP && c != OPT_COMMS &&
		     c != OPT_DSOS && c != OPT_SYMBOLS && c != OPT_PID &&
		     c != OPT_TID && c != OPT_CPU && c != OPT_TIME &&
		     c != OPT_TOTAL_CYCLES && c < CMD_OPT_SYMFS) ||
		    c == CMD_OPT_UNWINDER || c == CMD_OPT_JOBS ||
		    c == CMD_OPT_ITRACE || c == CMD_OPT_SPE_EVENTS)
			o->plain_opts = true;
		report_option(ctx, o, c, optarg);
	}
	o->path = cmd_opts_input(&p);
	if (o->branch_stack && o->plain_opts)
		usage_error(ctx, "--branch-stack takes --sort, -o, "
				 "--percent-limit, --stdio, --format, "
				 "--group, --no-group, -T, --pretty, the "
				 "sample filters and the symbol options; not "
				 "the others yet");
	if (o->threads && o->format != FMT_TEXT)
		usage_error(ctx, "-T: the per-thread counts are a table of "
				 "the text report (--format text)");
	if (o->view)
		set_view(ctx, o);
}

/* Whether the samples need their parallelism: --latency,
 * --parallelism or the parallelism key. */
static bool needs_parallelism(const struct report_opts *o)
{
	if (o->latency || o->nr_levels)
		return true;
	for (unsigned i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == PDA_REPORT_PARALLELISM)
			return true;
	return false;
}

static bool report_needs_srcline(const struct report_opts *o)
{
	for (unsigned i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == PDA_REPORT_SRCLINE ||
		    o->keys[i] == PDA_REPORT_SRCFILE)
			return true;
	return false;
}

/* What the capture's callbacks see. */
struct report_run {
	struct pd_ctx *ctx;
	const struct report_opts *o;
	struct pda_report *rep;
	struct pda_filter flt;
	struct pda_capture c;
	struct pda_parallel *par;	/* --latency, --parallelism */
	struct pda_offcpu *oc;		/* --off-cpu */
	struct pd_evsel off_ev;		/* its event, which the report keeps */
	struct pd_file *f;
	struct pda_datatype *dt;	/* the type keys */
	struct pda_mem *mem;		/* symbol_daddr, dso_daddr */
	const struct pda_datatype_res *cur; /* the sample's, for them */
	struct pdc_hash dt_memo;	/* struct dt_hit by memo cookie */
	uint64_t nr_cpu_filtered;
	uint64_t nr_other_level;	/* --parallelism: in the totals only */
	uint64_t nr_at;		/* any order, samples read in time order:
				 * their places */
	struct cmd_trace trace;		/* the trace key's texts */
	struct pda_branch *trace_br;	/* their %ps names' */
};

/* The data type of a pipeline memo slot's samples (one stack, one ip),
 * by the cookie the report left in it. */
struct dt_hit {
	uint64_t cookie;
	const struct pda_datatype_res *res;
};

static bool dt_hit_eq(const void *item, const void *key)
{
	return ((const struct dt_hit *)item)->cookie == *(const uint64_t *)key;
}

/* The sample's data type into rr->cur: a memo hit's from its first
 * sample, counted again. */
static int sample_type(struct report_run *rr, const struct pda_pipe_item *it)
{
	struct dt_hit *d;

	if (it->hit) {
		d = pdc_hash_find(&rr->dt_memo, pdc_hash_u64(*it->cookie),
				  dt_hit_eq, it->cookie);
		if (d) {
			rr->cur = d->res;
			pda_datatype_count(rr->dt, it->sample, d->res);
			return 0;
		}
	}
	return pda_datatype_sample(rr->dt, it->sample, it->stack, &rr->cur);
}

/* Note the data type of a memo slot the report just filled. */
static int note_type(struct report_run *rr, const struct pda_pipe_item *it)
{
	struct dt_hit *d;

	if (it->hit || !it->cookie || !*it->cookie)
		return 0;
	d = malloc(sizeof(*d));
	if (!d)
		return PD_ERR_NOMEM;
	d->cookie = *it->cookie;
	d->res = rr->cur;
	if (pdc_hash_add(NULL, &rr->dt_memo, pdc_hash_u64(d->cookie), d) < 0) {
		free(d);
		return PD_ERR_NOMEM;
	}
	return 0;
}

static bool cpu_wanted(const struct report_opts *o, const struct pd_sample *s)
{
	if (!o->nr_cpus)
		return true;
	for (size_t i = 0; i < o->nr_cpus; i++)
		if (o->cpus[i] == s->cpu)
			return true;
	return false;
}


/* A record of the first pass: the switches and exits counted. */
static int report_order(void *arg, const struct pd_rec *rec,
			const struct pda_pipe_when *when)
{
	struct report_run *rr = arg;

	return cmd_switch_note(rr->par, rr->oc, rr->f, rec, when);
}

static int report_one(void *arg, const struct pda_pipe_item *it)
{
	struct report_run *rr = arg;
	const struct pd_sample *sample = it->sample;
	struct pd_sample s;
	uint64_t latency = 0;
	unsigned level = 0;
	int rc;

	/* any sample's stack is a candidate for its thread's next wait */
	if (rr->oc && (rc = pda_offcpu_sample(rr->oc, it)) < 0)
		return rc;
	if (!cpu_wanted(rr->o, it->sample)) {
		rr->nr_cpu_filtered++;
		return 0;
	}
	if (rr->par) {
		rc = cmd_parallel_level(&rr->c, rr->par, it->when, &level);
		if (rc < 0)
			return rc;
		latency = pda_parallel_latency(it->sample->period, level);
		/* perf >= 6.15: another level's sample is in no row, and
		 * in the totals the percentages are of */
		if (!cmd_u32_wanted(rr->o->levels, rr->o->nr_levels, level)) {
			rr->nr_other_level++;
			return pda_report_add_total(rr->rep, it->sample,
						    latency);
		}
	}
	/* every sample counts in the data types' coverage, memo hit or
	 * not: each distinct instruction is decoded once */
	if (rr->dt && (rc = sample_type(rr, it)) < 0)
		return rc;
	if (rr->o->mem_mode) {
		/* perf's iter_add_single_mem_entry(): the period is the
		 * weight, 1 without one */
		s = *it->sample;
		s.period = s.mask & PD_SAMPLE_WEIGHT_STRUCT ? s.weight_var1
			   : s.mask & PD_SAMPLE_WEIGHT	    ? s.weight
							    : 0;
		if (!s.period)
			s.period = 1;
		sample = &s;
	}
	/* read in the file's order, each row keeps its earliest sample by
	 * its place in time (one pass reads in time order) */
	if (pda_report_any_order(rr->rep))
		pda_report_at(rr->rep, it->when ? it->when->time : 0,
			      it->when ? it->when->seq : rr->nr_at++);
	pda_report_cgroup_ns(rr->rep, it->cgroup_ns);
	pda_report_ip_leaf(rr->rep, it->ip_leaf);
	if (it->count > 1)
		pda_report_count(rr->rep, it->count);
	if (it->hit)
		rc = pda_report_add_again_latency(rr->rep, sample,
						  *it->cookie, latency, level);
	else
		/* perf's report renames a thread's ":TID" comm in place at
		 * its first COMM: the rows made before show that name */
		rc = pda_report_add_latency(rr->rep, sample, it->stack,
					    it->comm_later ? it->comm_later
							   : it->comm,
					    it->cookie, latency, level);
	if (rc >= 0 && rr->dt)
		rc = note_type(rr, it);
	return rc < 0 ? rc : 0;
}

/* --off-cpu: each wait for an event (preempted ones left out, as perf's
 * --off-cpu counts sleeping tasks) added as a sample of an event
 * 'offcpu-time' after the capture's, its period the wait's nanoseconds,
 * as perf synthesizes them, under the thread's last sampled stack. */
static void add_waits(struct pd_ctx *ctx, struct report_run *rr,
		      struct pda_session *ses)
{
	struct pd_evsel *ev = &rr->off_ev;
	int rc = pda_offcpu_finish(rr->oc);

	if (rc == 0)
		cmd_offcpu_warn(ctx, rr->o->path, rr->oc);
	ev->idx = (unsigned)pd_file_nr_evsels(rr->f);
	ev->name = "offcpu-time";
	/* perf's offcpu-time samples always carry a callchain */
	ev->attr.sample_type = PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME |
			       PD_SAMPLE_PERIOD | PD_SAMPLE_CALLCHAIN;
	for (size_t i = 0; rc >= 0 && i < pda_offcpu_nr(rr->oc); i++) {
		const struct pda_offcpu_span *sp = pda_offcpu_span(rr->oc, i);
		struct pd_sample s = {.evsel = ev, .pid = sp->pid,
				      .tid = sp->tid, .time = sp->out,
				      .period = sp->in - sp->out};

		if (sp->preempted || !s.period)
			continue;
		s.mask = ev->attr.sample_type;
		if (sp->stack && sp->stack->nr)
			s.ip = sp->stack->frames[0].ip;
		/* the thread's namespace at the end, not at the wait */
		pda_report_cgroup_ns(rr->rep, pda_thread_cgroup_ns(ses, sp->pid,
								   sp->tid));
		rc = pda_report_add(rr->rep, &s, sp->stack,
				    sp->comm ? sp->comm
					     : pda_thread_comm(ses, sp->pid,
							       sp->tid),
				    NULL);
	}
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
}

static int report_skip(void *arg, enum pda_capture_skip what, const char *why)
{
	struct report_run *rr = arg;

	cmd_capture_skip_warn(rr->ctx, &rr->c, rr->o->path, what, why);
	return 0;
}

/* perf's default: Children and Self when any event samples callchains. */
static bool has_callchains(const struct pd_file *f)
{
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
		if (pd_file_evsel(f, i)->attr.sample_type & PD_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

/* The type keys' answer: the sample's, found in report_one(). */
static int data_type(void *arg, const struct pd_sample *sample,
		     const char **type, int64_t *offset, const char **member)
{
	const struct report_run *rr = arg;

	(void)sample;
	if (!rr->cur)
		return PD_ERR_API;
	*type = rr->cur->type;
	*offset = rr->cur->offset;
	*member = rr->cur->member;
	return 0;
}

static bool has_type_key(const struct report_opts *o)
{
	for (unsigned i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == PDA_REPORT_TYPE ||
		    o->keys[i] == PDA_REPORT_TYPEOFF ||
		    o->keys[i] == PDA_REPORT_TYPECLN)
			return true;
	return false;
}

/* Whether the rows have Children: a data type is the sampled
 * instruction's, not its callers'; --mem-mode's are perf's
 * hist_iter_mem's, which has none; perf ignores --children without
 * callchains, silently (and a pipe's events, whose callchains it learns
 * too late). */
static bool report_children(const struct report_opts *o,
			    const struct pd_file *f)
{
	return !has_type_key(o) && o->children >= 0 && !o->mem_mode &&
	       has_callchains(f);
}

/*
 * Whether every row is its sampled ip's alone (perf's hist entry is
 * sample->ip's): no call graph, no Children (as new_report() decides),
 * no parent, no callers' or callees' view, no off-CPU stacks.  Then the
 * pipeline resolves the ip only: no callchain walked, no user stack
 * unwound, and a memo key of the ip (issue 14's flat report).
 */
static bool leaf_rows(const struct report_opts *o, const struct pd_file *f)
{
	if (o->graph != PDE_GRAPH_NONE || report_children(o, f) || o->parent || o->view ||
	    o->off_cpu)
		return false;
	for (unsigned i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == PDA_REPORT_PARENT)
			return false;
	return true;
}

/* The thread's comm at the end of the capture, from the session. */
/* The trace key's text: script's trace field. */
static int report_trace(void *arg, const struct pd_sample *sample,
			const char **text, size_t *len)
{
	struct report_run *rr = arg;

	/* the kernel's symbols (%ps) do not depend on the comm */
	return cmd_trace_text(&rr->trace, sample, "", text, len);
}

static const char *cgroup_path(void *arg, uint64_t id)
{
	return pda_session_cgroup(arg, id);
}

static const char *thread_comm(void *arg, uint32_t pid, uint32_t tid)
{
	return pda_thread_comm(arg, pid, tid);
}

/* Whether an event samples data sources (after the run: a trace's
 * synthesized events too), perf's check of --mem-mode. */
static bool has_data_src(const struct pd_file *f)
{
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
		if (pd_file_evsel(f, i)->attr.sample_type & PD_SAMPLE_DATA_SRC)
			return true;
	return false;
}

/* --mem-mode's title's sort order: perf's text, with ",ipc_null"
 * when --sort names "symbol" (report.c appends it to the option). */
static const char *mem_title(struct report_opts *o)
{
	if (o->sort_default || !strstr(o->sort_arg, "symbol"))
		return o->sort_arg;
	snprintf(o->mem_title, sizeof(o->mem_title), "%s,ipc_null",
		 o->sort_arg);
	return o->mem_title;
}

/* report.c: a --sort naming "symbol" gets ",ipc_null" (no branch
 * stacks here), a column and a sort key. */
static bool ipc_null(const struct report_opts *o)
{
	return o->sort_arg && !o->sort_default && strstr(o->sort_arg, "symbol");
}

/* The symbol_daddr, dso_daddr and dcacheline keys' resolution:
 * analyze/mem's. */
static int report_daddr(void *arg, const struct pd_sample *sample,
			struct pda_daddr *out)
{
	struct report_run *rr = arg;

	return pda_mem_daddr(rr->mem, sample, out);
}

static struct pda_report *new_report(struct pd_ctx *ctx,
				     const struct report_opts *o,
				     struct pd_file *f,
				     struct pda_session *s,
				     struct report_run *rr)
{
	char err[256] = "";
	PDA_REPORT_OPTS(ro, .keys = o->nr_keys ? o->keys : NULL,
			.nr_keys = o->nr_keys, .max_stack = o->max_stack,
			.parent = o->parent, .errbuf = err,
			.errbuf_size = sizeof(err));
	const bool children = report_children(o, f);
	struct pda_report *rep;
	int rc;

	if (pd_file_env(f, &ro.env) < 0)
		ro.env = NULL; /* the groups unnamed, as --group makes them */
	if (o->mem_mode) {
		if (pda_mem_new(s, &rr->mem) < 0)
			die(ctx, "out of memory");
		pda_mem_views(rr->mem, 0);
		ro.data_addr = report_daddr;
		ro.data_addr_arg = rr;
	}
	ro.flags = (children ? PDA_REPORT_CHILDREN : 0) |
		   (o->group ? PDA_REPORT_GROUP : 0) |
		   (o->no_group ? PDA_REPORT_NO_GROUP : 0) |
		   (o->nr_samples ? PDA_REPORT_NR_SAMPLES : 0) |
		   (o->total_period ? PDA_REPORT_PERIOD : 0) |
		   (o->latency ? PDA_REPORT_LATENCY : 0) |
		   (o->graph != PDE_GRAPH_NONE ? PDA_REPORT_CALLCHAIN : 0) |
		   (o->graph == PDE_GRAPH_REL ? PDA_REPORT_GRAPH_REL : 0) |
		   /* the waits and latency read switches in the file's
		    * order, as the samples */
		   (rr->par || rr->oc ? 0 : PDA_REPORT_ANY_ORDER);
	/* the graphs are built as far as they are printed */
	ro.graph_min_percent = o->graph_min;
	/* perf orders callchains caller first when --children is on as
	 * its options are read (report.c), before it knows whether the
	 * capture has callchains: a pipe's, whose events come later, gets
	 * no Children column and caller order */
	if (o->order > 0 || (o->order == 0 && o->children >= 0))
		ro.flags |= PDA_REPORT_CALLER;
	else
		ro.flags |= PDA_REPORT_CALLEE;
	ro.comms = o->comms[0] ? o->comms : NULL;
	ro.dsos = o->dsos[0] ? o->dsos : NULL;
	ro.symbols = o->symbols[0] ? o->symbols : NULL;
	if (o->view)
		ro.flags |= PDA_REPORT_SYM_ROWS;
	/* perf hides the rows of other threads and counts their samples
	 * in the totals (thread__is_filtered), unlike --time's and
	 * --cpu's */
	ro.pids = o->nr_pids ? o->pids : NULL;
	ro.nr_pids = o->nr_pids;
	ro.tids = o->nr_tids ? o->tids : NULL;
	ro.nr_tids = o->nr_tids;
	ro.thread_comm = thread_comm;
	ro.thread_comm_arg = s;
	ro.cgroup_path = cgroup_path;
	ro.cgroup_path_arg = s;
	rr->trace.ctx = ctx;
	rr->trace.f = f;
	rr->trace.path = o->path;
	rr->trace.session = s;
	rr->trace.br = &rr->trace_br;
	ro.trace_text = report_trace;
	ro.trace_text_arg = rr;
	ro.time_quantum = o->time_quantum;
	ro.time_ns = o->time_ns;
	ro.ipc_null = ipc_null(o);
	ro.file = f;
	if (has_type_key(o)) {
		ro.data_type = data_type;
		ro.data_type_arg = rr;
	}
	rc = pda_report_new(&ro, &rep);
	if (rc == PD_ERR_API)
		usage_error(ctx, "%s", err[0] ? err : "bad report options");
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	return rep;
}

static void coverage(struct pd_ctx *ctx, const struct report_run *rr,
		     const struct pda_stats *ps)
{
	const struct pda_capture_stats *cs = pda_capture_stats(&rr->c);
	const struct pda_report_stats *st = pda_report_stats(rr->rep);
	const uint64_t filtered = pda_filter_stats(&rr->flt)->nr_left_out +
				  rr->nr_cpu_filtered;

	eprintf("pdtool %s: %" PRIu64 " sample%s in %" PRIu64 " entr%s; %" PRIu64
		" lost",
		ctx->cmd, st->nr_samples, PLURAL(st->nr_samples),
		st->nr_entries, st->nr_entries == 1 ? "y" : "ies", cs->lost);
	if (filtered)
		eprintf("; %" PRIu64 " filtered out", filtered);
	if (rr->nr_other_level)
		eprintf("; %" PRIu64 " of other parallelism levels in no row",
			rr->nr_other_level);
	if (st->nr_hidden && !rr->o->view)
		eprintf("; %" PRIu64 " row%s hidden by --comms, --dsos, --symbols, "
			"--pid or --tid",
			st->nr_hidden, PLURAL(st->nr_hidden));
	if (cs->reader.bytes_missing)
		eprintf("; the capture is cut short");
	if (ps && ps->nr_missing)
		eprintf("; %zu binar%s not found", ps->nr_missing,
			ps->nr_missing == 1 ? "y" : "ies");
	fputc('\n', stderr);
	if (rr->dt)
		cmd_type_coverage(ctx, rr->dt);
	cmd_unresolved_block(ctx, ps, ps ? ps->nr_samples : 0, NULL);
}

/* The counter ratios the capture's events allow (PMU and config told
 * apart as pdtool stat's metrics are): indexes of events are their
 * pd_evsel.idx, the report's members.  Events with no sample count, nor
 * the ones synthesized from a trace. */
size_t cmd_capture_ratios(struct pd_file *f, const struct pda_report *rep,
			  struct pda_ratio *out)
{
	struct pda_metrics_event ev[64];
	const struct pd_env *env = NULL;
	size_t nr = pd_file_nr_evsels(f);

	if (nr > sizeof(ev) / sizeof(ev[0]))
		nr = sizeof(ev) / sizeof(ev[0]);
	if (pd_file_env(f, &env) < 0)
		env = NULL;
	for (size_t i = 0; i < nr; i++) {
		const struct pd_evsel *e = pd_file_evsel(f, i);
		uint64_t nr_samples, period;

		pda_report_event_totals(rep, e->idx, &nr_samples, &period);
		ev[i].name = e->name;
		ev[i].attr = &e->attr;
		ev[i].count = (double)period;
		/* a synthesized event's attr names no counter: an SPE
		 * trace's l1d-miss is no "cycles" to take an IPC of */
		ev[i].counted = nr_samples > 0 && e->idx == i && !e->synth;
	}
	return pda_metrics_ratios(ev, nr, env, out, PDA_RATIOS_MAX);
}

/* --format md|json: the profile report (cmd_report_doc.c). */
/* md and json: the tables on standard output, or with -o DIR the
 * profile report (issue 16's), which --stat and --top are for */
static bool is_doc(const struct report_opts *o)
{
	return (o->format == FMT_MD || o->format == FMT_JSON) &&
	       (o->output || o->nr_stats || o->top);
}

static int report_doc(struct pd_ctx *ctx, struct report_opts *o)
{
	const struct cmd_report_doc a = {
		.path = o->path,
		.dir = o->output,
		.stat_paths = o->stats,
		.nr_stat = o->nr_stats,
		.top = o->top ? o->top : 20,
		.json = o->format == FMT_JSON,
		.sym = &o->sym,
		.unwinder = o->unwinder,
		.jobs = o->jobs,
		.itrace = &o->itrace,
		.stack_args = o->stack_args,
		.nr_stack_args = o->nr_stack_args,
	};
	int rc;

	const char *fmt = o->format == FMT_JSON ? "json" : "md";

	if (!o->output || strcmp(o->output, "-") == 0)
		usage_error(ctx, "--format %s with --stat or --top writes the "
				 "profile report into a directory: give it "
				 "with -o DIR",
			    fmt);
	if (o->nr_keys || o->children || o->nr_samples || o->total_period ||
	    o->group || o->percent_limit > 0 || o->comms[0] || o->symbols[0] ||
	    o->dsos[0] ||
	    o->nr_pids || o->nr_tids || o->nr_cpus || o->time.nr || o->parent || o->max_stack || o->view ||
	    o->graph >= 0 || o->latency || o->nr_levels || o->off_cpu)
		usage_error(ctx, "--format %s -o DIR takes no table options "
				 "(-s, --children, -n, -g, filters, ...): the "
				 "profile report's tables are fixed",
			    fmt);
	rc = cmd_report_doc(ctx, &a);
	for (size_t i = 0; i < 3; i++)
		free(o->names_buf[i]);
	free(o);
	return rc;
}

/*
 * perf 6.1's default mode (builtin-report.c): branch mode when the
 * capture's header has the BRANCH_STACK feature (perf record -b or -j
 * set it; --call-graph lbr does not), unless an event samples the user
 * stack (DWARF unwinding).  A pipe-mode stream has no header features
 * yet when perf decides: never.
 */
static bool default_branch_mode(const struct pd_file *f)
{
	const void *data;
	size_t size;

	if (pd_file_feature(f, PD_FEAT_BRANCH_STACK, &data, &size) != 1)
		return false;
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
		if (pd_file_evsel(f, i)->attr.sample_type &
		    PD_SAMPLE_STACK_USER)
			return false;
	return true;
}

/*
 * perf's get_default_sort_order(): when every event of the header is a
 * tracepoint, the rows are by "trace" (SORT_MODE__TRACEPOINT); a pipe's
 * events come in its stream, after perf has decided: never.
 */
static bool all_tracepoints(const struct pd_file *f)
{
	const size_t n = pd_file_nr_evsels(f);

	for (size_t i = 0; i < n; i++)
		if (pd_file_evsel(f, i)->attr.type != 2 /* TRACEPOINT */)
			return false;
	return n > 0;
}

int cmd_report(int argc, char **argv, struct pd_ctx *ctx)
{
	struct report_opts *o = calloc(1, sizeof(*o));
	struct report_run rr = {.ctx = ctx};
	char err[512] = "";
	struct cmd_progress prog;
	const struct pda_capture_stats *cs;
	const struct pda_stats *ps;
	struct pda_session *s;
	struct pd_file *f;
	FILE *out;
	int rc;

	if (!o)
		die(ctx, "out of memory");
	o->graph = -1;
	o->graph_min = 0.5;
	parse_args(argc, argv, ctx, o);
	f = NULL;
	if (!o->branch_set && !is_doc(o)) {
		f = ctx_open_twice(ctx, o->path);
		if (default_branch_mode(f) && o->plain_opts)
			eprintf("pdtool %s: '%s' has branch stacks, but an "
				"option branch mode does not take was given: "
				"the samples' rows (--no-branch-stack says "
				"so)\n",
				ctx->cmd, o->path);
		else if (default_branch_mode(f))
			o->branch_stack = true;
	}
	if (o->time.pct && !is_doc(o)) {
		if (!f)
			f = ctx_open_twice(ctx, o->path);
		cmd_time_resolve(ctx, o->path, f, &o->time);
	}
	if (o->branch_stack) {
		const struct cmd_report_branch a = {
			.f = f,
			.path = o->path,
			.output = o->output,
			.sort = o->sort_arg,
			.percent_limit = o->percent_limit,
			.sym = &o->sym,
			.format = (int)o->format,
			.comms = o->comms[0] ? o->comms : NULL,
			.dsos = o->dsos[0] ? o->dsos : NULL,
			.symbols = o->symbols[0] ? o->symbols : NULL,
			.pids = o->pids,
			.nr_pids = o->nr_pids,
			.tids = o->tids,
			.nr_tids = o->nr_tids,
			.cpus = o->cpus,
			.nr_cpus = o->nr_cpus,
			.time = &o->time,
			.time_arg = o->time_arg,
			.total_cycles = o->total_cycles,
			.group = o->group,
			.no_group = o->no_group,
			.threads = o->threads,
			.threads_raw = o->threads_raw,
		};

		rc = cmd_report_branch(ctx, &a);
		for (size_t i = 0; i < 3; i++)
			free(o->names_buf[i]);
		free(o);
		return rc;
	}
	/* perf leaves --total-cycles out of its other modes */
	if (o->total_cycles)
		eprintf("pdtool %s: --total-cycles is a view of branch mode: "
			"the samples' rows\n",
			ctx->cmd);
	if (!o->sort_arg && !is_doc(o)) {
		if (!f)
			f = ctx_open_twice(ctx, o->path);
		if (all_tracepoints(f))
			o->sort_arg = "trace";
	}
	if (o->mem_mode && !o->sort_arg) {
		o->sort_arg = MEM_SORT;
		o->sort_default = true;
	}
	if (o->sort_arg) {
		parse_sort(ctx, o, o->sort_arg);
		/* perf's sort_order is the option's text */
		o->sort_sym_first = !strncmp(o->sort_arg, "sym", 3);
	}
	if (is_doc(o))
		return report_doc(ctx, o);
	if (o->nr_stats || o->top)
		usage_error(ctx, "--stat and --top go with --format md or json "
				 "-o DIR");
	rr.o = o;
	if (!f)
		f = ctx_open_twice(ctx, o->path);
	rr.f = f;
	if (o->off_cpu && (needs_parallelism(o) || o->group))
		usage_error(ctx, "--off-cpu adds a table of waits, which have "
				 "no latency, parallelism or group: not with "
				 "--latency, --parallelism, -s parallelism or "
				 "--group");
	if (has_type_key(o) && o->children > 0)
		usage_error(ctx, "--sort type, typeoff or typecln with --children: "
			    "the "
			    "data type is the sampled instruction's alone");
	if (needs_parallelism(o))
		rr.par = cmd_parallel_new(ctx, o->path, f, o->pids, o->nr_pids);
	{
		PDA_OPTS(po, .unwinder = o->unwinder, .max_stack = o->max_stack,
			 .errbuf = err, .errbuf_size = sizeof(err));
		PDA_FILTER_OPTS(fo, .flags = PDA_FILTER_TRACEPOINTS,
				.time_ranges = o->time.nr ? o->time.r : NULL,
				.nr_time_ranges = o->time.nr);
		PDA_CAPTURE_OPTS(co, .filter = &rr.flt, .jobs = o->jobs,
				 .ip_stacks = true, .memo = true,
				 .leaf_only = leaf_rows(o, f), .ip_leaf = true,
				 .itrace = &o->itrace,
				 .sample_fn = report_one, .skip_fn = report_skip,
				 .progress = cmd_progress_fn,
				 .progress_arg = &prog, .arg = &rr);

		if (o->off_cpu) {
			rr.oc = cmd_offcpu_new(ctx, o->path, f);
			/* a memo hit has no stack to offer */
			co.memo = false;
		}
		if (rr.par || rr.oc)
			co.order_fn = report_order;
		cmd_pda_opts(ctx, &o->sym, &po);
		/* perf -v demangles C++ names with their parameters */
		po.demangle_params = ctx->verbose > 0;
		/* srcline as the keys ask: known before the report is */
		po.srcline = report_needs_srcline(o);
		rc = pda_session_new(f, &po, &s);
		if (rc < 0)
			die(ctx, "'%s': %s", o->path,
			    err[0] ? err : pd_strerror(rc));
		rr.rep = new_report(ctx, o, f, s, &rr);
		/* perf merges samples into rows in time order (its ordered
		 * events), and a row keeps what its first sample said:
		 * whether it shows under --pid, --tid, --comms, --dsos and
		 * --symbols (he->thread, he->ms, he->filtered), and the
		 * level of an address without a map.  A report that keeps
		 * each row's earliest sample by time reads in the file's
		 * order (two passes, every job); the others in time order. */
		co.time_order = !rr.par && !rr.oc &&
				!pda_report_any_order(rr.rep);
		if (has_type_key(o) && pda_datatype_new(s, &rr.dt) < 0)
			die(ctx, "out of memory");
		co.memo_tid = pda_report_needs_tid(rr.rep);
		/* a trace's samples alike come as one, counted, where
		 * report_one reads nothing else of each */
		co.counted = pda_report_takes_counts(rr.rep) && !rr.par &&
			     !rr.oc && !rr.dt && !o->mem_mode && !o->nr_cpus;
		if (pda_filter_init(&rr.flt, &fo) < 0)
			die(ctx, "%s", pd_strerror(PD_ERR_API));
		rc = pda_capture_init(&rr.c, f, s, &co);
	}
	if (rc < 0)
		cmd_capture_die(ctx, o->path, &rr.c, rc);
	if (rr.par || rr.oc)
		cmd_parallel_two_pass(ctx, o->path, &rr.c);
	out = ctx_open_output(ctx, o->output);
	cmd_progress_init(&prog, ctx);
	rc = pda_capture_run(&rr.c);
	cmd_progress_end(&prog);
	if (rc < 0)
		cmd_capture_die(ctx, o->path, &rr.c, rc);
	cs = pda_capture_stats(&rr.c);
	cmd_check_kind_synth(ctx, o->path, f, &cs->reader, cs->nr_samples,
			     pda_capture_itrace(&rr.c));
	/* after the run: a trace's synthesized events, and a pipe's, are
	 * known then */
	if (o->mem_mode && !has_data_src(f))
		die(ctx, "'%s': --mem-mode: no memory samples (no event samples "
			 "PERF_SAMPLE_DATA_SRC: perf record -d, perf mem "
			 "record, or an Arm SPE trace)",
		    o->path);
	pda_capture_release(&rr.c);
	/* a pipe's groups (GROUP_DESC), known now: shown as a file's */
	{
		const struct pd_env *env;

		if (pd_file_env(f, &env) == 0)
			pda_report_set_env(rr.rep, env);
	}
	if (rr.oc)
		add_waits(ctx, &rr, s);
	rc = pda_report_finish(rr.rep);
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	/* perf's default: a graph when the capture has callchains (known
	 * now: a pipe's events come in its stream); asked for without
	 * them, an error */
	if (o->graph < 0)
		o->graph = has_callchains(f) ? PDE_GRAPH_ABS : PDE_GRAPH_NONE;
	else if (o->graph != PDE_GRAPH_NONE && !has_callchains(f))
		die(ctx, "'%s': -g asks for call graphs, but the capture has "
			 "no callchains (recorded without -g)",
		    o->path);
	{
		struct pda_ratio ratios[PDA_RATIOS_MAX];
		const bool want_ratios = o->format == FMT_TEXT
						 ? o->ratios > 0
						 : o->ratios >= 0;
		const size_t nr_ratios =
			want_ratios ? cmd_capture_ratios(f, rr.rep, ratios) : 0;

		const struct pde_report_opts eo = {
			.dso_list = o->dsos[0] != NULL,
			.mem_sort = o->mem_mode ? mem_title(o) : NULL,
			/* report.c: a --sort naming "symbol" gets
			 * ",ipc_null" (no branch stacks here) */
			.ipc_null = ipc_null(o),
			.ratios = nr_ratios ? ratios : NULL,
			.nr_ratios = nr_ratios,
			.lost = cs->lost,
			.percent_limit = o->percent_limit,
			.graph = (enum pde_report_graph)o->graph,
			.graph_min_percent = o->graph_min,
			.graph_limit = o->graph_limit,
			.graph_skip_first = o->sort_sym_first,
			.time_slices = o->time_arg,
			/* perf colours --stdio on a terminal */
			.color = (!o->output || !strcmp(o->output, "-")) &&
				 ctx_use_color(),
		};

		if (o->ratios > 0 && !nr_ratios)
			warning(ctx, "'%s': --ratios: no two sampled events "
				"give a ratio (cycles and instructions, a miss "
				"event and its references)", o->path);
		switch (o->format) {
		case FMT_TEXT:
			rc = pde_report_text(out, rr.rep, &eo);
			break;
		case FMT_MD:
			rc = pde_report_md(out, rr.rep, &eo);
			break;
		case FMT_JSON:
			rc = pde_report_json(out, rr.rep, &eo);
			break;
		case FMT_CSV:
			rc = pde_report_csv(out, rr.rep, &eo);
			break;
		}
		ctx_check_write(ctx, rc, o->output);
	}
	if (o->threads)
		cmd_report_threads(ctx, o->path, f, out, o->threads_raw);
	ctx_close_output(ctx, out, o->output);
	ps = pda_session_stats(s);
	coverage(ctx, &rr, ps);
	if (o->view && pda_report_nr_tables(rr.rep) &&
	    !pda_report_table(rr.rep, 0)->nr_rows)
		warning(ctx, "'%s': no sample has function '%s' on its stack",
			o->path, o->view);
	cmd_fetch_add(ctx, &ps->debuginfod);
	cmd_fetch_summary(ctx);
	rc = cmd_strict_status(ctx, cs, ps);
	pda_report_free(rr.rep);
	{
		size_t pos = 0;
		void *d;

		while ((d = pdc_hash_next(&rr.dt_memo, &pos)))
			free(d);
		pdc_hash_release(NULL, &rr.dt_memo);
	}
	pda_datatype_free(rr.dt);
	pda_mem_free(rr.mem);
	cmd_trace_release(&rr.trace);
	pda_branch_free(rr.trace_br);
	pda_parallel_free(rr.par);
	pda_offcpu_free(rr.oc);
	pda_session_free(s);
	pd_file_close(f);
	for (size_t i = 0; i < 3; i++)
		free(o->names_buf[i]);
	free(o);
	return rc;
}
