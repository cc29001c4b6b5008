/*
 * cmd_script.c - `pdtool script`: a capture's samples as `perf script`
 * 6.1 prints them, a line each (comm, tid, time, period, event, ...)
 * with its callchain below, in time order: the text stackcollapse-perf.pl,
 * inferno, speedscope and the Firefox Profiler read.
 *
 * The capture runs in time order (perf script's ordered events: each
 * sample in the maps and comms of its moment, samples in perf's order);
 * a stack's text is made once per distinct stack (the pipeline's memo)
 * and copied for every sample that has it.
 */
#include "pdtool.h"
#include "pda_annotate.h"
#include "pda_branch.h"
#include "pda_capture.h"
#include "pda_session.h"
#include "pdc_arena.h"
#include "pdc_hash.h"
#include "pdc_strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

const char cmd_script_usage[] = "pdtool script [OPTIONS] [FILE | -i FILE]";
const char cmd_script_summary[] =
	"print a capture's samples as perf script does";
const char cmd_script_options[] =
	"  -i, --input FILE      the capture ('-': standard input); the same\n"
	"                        as FILE\n"
	"  -o, --output FILE     write there instead of stdout\n"
	"  -F, --fields LIST     the fields printed, as perf script's -F:\n"
	"                        [TYPE:]FIELD,... replaces the fields of\n"
	"                        TYPE (hw, sw, trace, raw, synth; none: all\n"
	"                        types), +FIELD,... adds, -FIELD,... removes;\n"
	"                        FIELD: comm, tid, pid, time, cpu, event,\n"
	"                        ip, sym, symoff, dso, srcline, period, addr,\n"
	"                        weight, ins_lat, data_src, phys_addr,\n"
	"                        data_page_size, code_page_size, brstack,\n"
	"                        brstacksym, brstackoff, brstackinsn (the\n"
	"                        code between branch entries, decoded from\n"
	"                        the binaries), insnlen, insn, iregs, uregs\n"
	"                        (sampled registers), srccode (the source\n"
	"                        line's text), misc, flags, callindent, tod,\n"
	"                        synth (Intel PT's synthesized events' data),\n"
	"                        bpf-output, trace (a tracepoint's fields,\n"
	"                        from its print fmt), brcntr (Intel's branch\n"
	"                        counters in brstackinsn, as perf 7.2)\n"
	"                        (repeatable)\n"
	"      --ns              times with 9 decimals (nanoseconds)\n"
	"  -G, --hide-call-graph one line a sample: no callchain lines\n"
	"      --max-stack N     callchain entries printed from the leaf\n"
	"                        (default 127, as perf script)\n"
	"  -c, --comms LIST      only samples of these comms\n"
	"                        (comma-separated)\n"
	"      --pid LIST        only samples of these pids\n"
	"      --tid LIST        only samples of these tids\n"
	"  -C, --cpu LIST        only samples taken on these CPUs\n"
	"                        (and side-band records on them)\n"
	CMD_TIME_HELP
	"  -S, --symbols LIST    only samples whose ip is in these functions\n"
	"      --dsos LIST       only samples whose ip is in these binaries\n"
	"                        (full path or file name)\n"
	"      --inline          inlined functions as frames of their own on\n"
	"                        every callchain (by default only on DWARF-\n"
	"                        unwound user stacks, as perf 6.1)\n"
	"      --no-inline       no inlined frames on any stack\n"
	"      --show-task-events, --show-mmap-events, --show-switch-events,\n"
	"      --show-namespace-events, --show-lost-events\n"
	"                        side-band records too, as perf prints them,\n"
	"                        in time order among the samples: COMM, FORK\n"
	"                        and EXIT; MMAP and MMAP2; SWITCH and\n"
	"                        SWITCH_CPU_WIDE; NAMESPACES; LOST\n"
	CMD_ITRACE_HELP
	CMD_FIND_HELP
	CMD_SYMBOL_HELP
	CMD_UNWINDER_HELP
	CMD_JOBS_HELP
	CMD_SOURCE_HELP
	"      --strict          exit 1 when anything was unresolved, lost or\n"
	"                        skipped\n"
	"  -v, --verbose         more library messages (repeatable); brcntr\n"
	"                        by event name and C++ names with their\n"
	"                        parameters, as perf -v prints them\n"
	"  -h, --help            this help\n";

enum {
	OPT_NS = 256,
	OPT_MAX_STACK,
	OPT_PID,
	OPT_TID,
	OPT_TIME,
	OPT_DSOS,
	OPT_INLINE,
	OPT_NO_INLINE,
	OPT_SHOW_TASK,
	OPT_SHOW_MMAP,
	OPT_SHOW_SWITCH,
	OPT_SHOW_NS,
	OPT_SHOW_LOST,
};

/* --show-*-events: the side-band records printed, by type */
#define SHOW_TASK ((1u << PD_REC_COMM) | (1u << PD_REC_FORK) | (1u << PD_REC_EXIT))
#define SHOW_MMAP ((1u << PD_REC_MMAP) | (1u << PD_REC_MMAP2))
#define SHOW_SWITCH ((1u << PD_REC_SWITCH) | (1u << PD_REC_SWITCH_CPU_WIDE))
#define SHOW_NS (1u << PD_REC_NAMESPACES)
#define SHOW_LOST (1u << PD_REC_LOST)

#define MAX_IDS 1024	/* pids, tids, CPUs a list holds */
#define MAX_NAMES 256	/* comms, symbols, DSOs a list holds */

/* A comma-separated list of names, split in place. */
struct name_list {
	char *buf;
	const char *names[MAX_NAMES];
	size_t nr;
};

struct script_opts {
	const char *path, *output;
	struct pde_script_fields f;
	bool ns, no_callchain;
	unsigned max_stack;
	uint32_t pids[MAX_IDS], tids[MAX_IDS], cpus[MAX_IDS];
	size_t nr_pids, nr_tids, nr_cpus;
	struct cmd_time_range time;
	struct name_list comms, syms, dsos;
	bool inline_frames, no_inline;
	uint32_t show;		/* SHOW_*: side-band records printed */
	struct cmd_symopts sym;
	const char *unwinder;
	unsigned jobs;
	struct pda_itrace_opts itrace;
	struct cmd_srcopts src; /* srccode: where sources are read */
	/* iregs, uregs: the recorder's architecture (host: this one's
	 * when the capture does not say) */
	const char *arch;
	struct utsname host;
};

static void parse_names(const struct pd_ctx *ctx, const char *opt,
			const char *arg, struct name_list *l)
{
	char *p;

	free(l->buf);
	l->buf = strdup(arg);
	l->nr = 0;
	if (!l->buf)
		die(ctx, "out of memory");
	for (p = l->buf; p;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (*p) {
			if (l->nr == MAX_NAMES)
				usage_error(ctx, "%s: more than %d names", opt,
					    MAX_NAMES);
			l->names[l->nr++] = p;
		}
		p = comma ? comma + 1 : NULL;
	}
	if (!l->nr)
		usage_error(ctx, "%s needs at least one name", opt);
}

static bool in_names(const struct name_list *l, const char *s)
{
	for (size_t i = 0; i < l->nr; i++)
		if (strcmp(l->names[i], s) == 0)
			return true;
	return false;
}

static void script_option(struct pd_ctx *ctx, struct script_opts *o, int c,
			  const char *arg)
{
	char err[256];

	switch (c) {
	case 'o':
		o->output = arg;
		break;
	case 'F':
		if (pde_script_fields_parse(&o->f, arg, err, sizeof(err)) < 0)
			usage_error(ctx, "%s", err);
		break;
	case OPT_NS:
		o->ns = true;
		break;
	case 'G':
		o->no_callchain = true;
		break;
	case OPT_MAX_STACK:
		o->max_stack = cmd_max_stack(ctx, arg);
		break;
	case 'c':
		parse_names(ctx, "--comms", arg, &o->comms);
		break;
	case OPT_PID:
		o->nr_pids = cmd_parse_u32_list(ctx, "--pid", "pids", arg,
						 o->pids, 0, MAX_IDS, false);
		break;
	case OPT_TID:
		o->nr_tids = cmd_parse_u32_list(ctx, "--tid", "tids", arg,
						 o->tids, 0, MAX_IDS, false);
		break;
	case 'C':
		o->nr_cpus = cmd_parse_u32_list(ctx, "--cpu", "CPUs", arg,
						 o->cpus, 0, MAX_IDS, true);
		break;
	case OPT_TIME:
		cmd_parse_time(ctx, "--time", arg, &o->time);
		break;
	case 'S':
		parse_names(ctx, "--symbols", arg, &o->syms);
		break;
	case OPT_DSOS:
		parse_names(ctx, "--dsos", arg, &o->dsos);
		break;
	case OPT_INLINE:
		o->inline_frames = true;
		break;
	case OPT_NO_INLINE:
		o->no_inline = true;
		break;
	case OPT_SHOW_TASK:
	case OPT_SHOW_MMAP:
	case OPT_SHOW_SWITCH:
	case OPT_SHOW_NS:
	case OPT_SHOW_LOST: {
		/* in the order of the OPT_SHOW_* values */
		static const uint32_t bits[] = {SHOW_TASK, SHOW_MMAP,
						SHOW_SWITCH, SHOW_NS,
						SHOW_LOST};

		o->show |= bits[c - OPT_SHOW_TASK];
		break;
	}
	case CMD_OPT_ITRACE:
	case CMD_OPT_SPE_EVENTS:
		cmd_itrace(ctx, c, arg, &o->itrace);
		break;
	default:
		if (!cmd_source_opt(ctx, &o->src, c, arg))
			cmd_stack_opt(ctx, c, arg, &o->sym, &o->unwinder,
				      &o->jobs);
		break;
	}
}

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct script_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"fields", required_argument, NULL, 'F'},
		{"ns", no_argument, NULL, OPT_NS},
		{"hide-call-graph", no_argument, NULL, 'G'},
		{"max-stack", required_argument, NULL, OPT_MAX_STACK},
		{"comms", required_argument, NULL, 'c'},
		{"pid", required_argument, NULL, OPT_PID},
		{"tid", required_argument, NULL, OPT_TID},
		{"cpu", required_argument, NULL, 'C'},
		{"time", required_argument, NULL, OPT_TIME},
		{"symbols", required_argument, NULL, 'S'},
		{"dsos", required_argument, NULL, OPT_DSOS},
		{"inline", no_argument, NULL, OPT_INLINE},
		{"no-inline", no_argument, NULL, OPT_NO_INLINE},
		{"show-task-events", no_argument, NULL, OPT_SHOW_TASK},
		{"show-mmap-events", no_argument, NULL, OPT_SHOW_MMAP},
		{"show-switch-events", no_argument, NULL, OPT_SHOW_SWITCH},
		{"show-namespace-events", no_argument, NULL, OPT_SHOW_NS},
		{"show-lost-events", no_argument, NULL, OPT_SHOW_LOST},
		CMD_SYMBOL_LONGOPTS,
		CMD_UNWINDER_LONGOPT,
		CMD_JOBS_LONGOPT,
		CMD_ITRACE_LONGOPT,
		CMD_SOURCE_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
			     .own_shortopts = "o:F:Gc:C:S:j:",
			     .own_longopts = longopts};
	int c;

	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1)
		script_option(ctx, o, c, optarg);
	o->path = cmd_opts_input(&p);
}

/* ---- perf's checks of the fields against the events ------------------ */

/* perf's evsel__is_dummy_event: software event PERF_COUNT_SW_DUMMY */
static bool is_dummy(const struct pd_evsel *ev)
{
	return ev->attr.type == 1 && ev->attr.config == 9;
}

/*
 * perf's evsel__do_check_stype(): a field the event does not sample is
 * dropped from its type's defaults, or fails when -F asked for it
 * (unless allow, as perf allows with AUX-area data).
 */
static void check_stype(struct pd_ctx *ctx, struct pde_script_fields *f,
			const struct pd_evsel *ev, uint64_t bits,
			const char *what, uint64_t fields, bool allow,
			bool synth)
{
	const enum pde_script_type t = pde_script_type(ev->attr.type);

	if (ev->attr.sample_type & bits)
		return;
	/* perf checks its synthesized events' fields when it adds them,
	 * and drops what they do not sample (time without timestamps),
	 * whatever -F asked */
	if ((f->user[t] & fields) && !synth) {
		if (allow)
			return;
		die(ctx,
		    "samples of event '%s' do not have the %s attribute set: "
		    "cannot print the '%s' field",
		    ev->name, what,
		    pde_script_field_name(f->user[t] & fields &
					  -(f->user[t] & fields)));
	}
	f->fields[t] &= ~fields;
}

/* The recorder's `uname -m`, this host's (in *host) when the capture
 * does not say, as perf_env__arch(). */
static const char *recorder_arch(struct pd_file *f, struct utsname *host)
{
	const struct pd_env *env;

	if (pd_file_env(f, &env) == 0 && env && env->arch)
		return env->arch;
	if (uname(host) < 0)
		return "unknown";
	return host->machine;
}

/* Whether some event's branch stack records every taken branch (perf:
 * PERF_SAMPLE_BRANCH_ANY in evlist__combined_branch_type), as the code
 * between consecutive entries brstackinsn prints requires. */
static bool any_branch(struct pd_file *f)
{
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
		if (pd_file_evsel(f, i)->attr.branch_sample_type & (1u << 3))
			return true;
	return false;
}

/* Whether f has the CLOCK_DATA pair tod needs (perf: env.clock.enabled) */
static bool tod_known(struct pd_file *f)
{
	const struct pd_env *env;

	return pd_file_env(f, &env) == 0 && env &&
	       env->clock_data.version == 1;
}

/*
 * perf_session__check_output_opt(): each type's fields checked against
 * its first event in the capture (not the others), as perf does.
 */
static void check_fields(struct pd_ctx *ctx, struct script_opts *o,
			 struct pd_file *f)
{
	const void *data;
	size_t size;
	const bool allow =
		pd_file_feature(f, PD_FEAT_AUXTRACE, &data, &size) == 1;
	bool seen[PDE_SCRIPT_NR_TYPES] = {false};
	const char *reg_arch = pde_script_reg_arch(o->arch);

	/* perf stat record's counters are not checked: they have none */
	if (pd_file_feature(f, PD_FEAT_STAT, &data, &size) == 1)
		return;
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++) {
		const struct pd_evsel *ev = pd_file_evsel(f, i);
		const enum pde_script_type t = pde_script_type(ev->attr.type);
		const uint64_t st = ev->attr.sample_type;
		uint64_t *fl = &o->f.fields[t];
		/* by the event's mark, not its index: a pipe's events
		 * are not known when the run starts */
		const bool synth = ev->synth != 0;

		if (seen[t])
			continue;
		seen[t] = true;
		if (!*fl || is_dummy(ev))
			continue;
		if (*fl & PDE_SF(IP))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_IP, "IP",
				    PDE_SF(IP), false, synth);
		if (*fl & PDE_SF(ADDR))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_ADDR, "ADDR",
				    PDE_SF(ADDR), allow, synth);
		if (*fl & PDE_SF(WEIGHT))
			check_stype(ctx, &o->f, ev,
				    PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT,
				    "WEIGHT", PDE_SF(WEIGHT), false, synth);
		if (*fl & PDE_SF(DATA_SRC))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_DATA_SRC,
				    "DATA_SRC", PDE_SF(DATA_SRC), false, synth);
		if (*fl & PDE_SF(PHYS_ADDR))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_PHYS_ADDR,
				    "PHYS_ADDR", PDE_SF(PHYS_ADDR), false, synth);
		if ((*fl & PDE_SF(TOD)) && !tod_known(f))
			die(ctx, "cannot print the 'tod' field: the capture "
				 "has no clock data (record with -k/--clockid)");
		if (*fl & PDE_SF(INS_LAT))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_WEIGHT_STRUCT,
				    "WEIGHT_STRUCT", PDE_SF(INS_LAT), false,
				    synth);
		if (*fl & PDE_SF(DATA_PAGE_SIZE))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_DATA_PAGE_SIZE,
				    "DATA_PAGE_SIZE", PDE_SF(DATA_PAGE_SIZE),
				    false, synth);
		if (*fl & PDE_SF(CODE_PAGE_SIZE))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_CODE_PAGE_SIZE,
				    "CODE_PAGE_SIZE", PDE_SF(CODE_PAGE_SIZE),
				    false, synth);
		if ((*fl & PDE_SF(SYM)) &&
		    !(st & (PD_SAMPLE_IP | PD_SAMPLE_ADDR)))
			die(ctx, "symbols asked for, but the samples of '%s' "
				 "have neither an ip nor an address",
			    ev->name);
		if ((*fl & PDE_SF(SYMOFF)) && !(*fl & PDE_SF(SYM)))
			usage_error(ctx, "-F symoff needs sym");
		if ((*fl & PDE_SF(DSO)) &&
		    !(st & (PD_SAMPLE_IP | PD_SAMPLE_ADDR)))
			die(ctx, "DSOs asked for, but the samples of '%s' "
				 "have neither an ip nor an address",
			    ev->name);
		if ((*fl & PDE_SF(SRCLINE)) && !(*fl & PDE_SF(IP)))
			usage_error(ctx, "-F srcline needs ip");
		if (*fl & (PDE_SF(PID) | PDE_SF(TID)))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_TID, "TID",
				    PDE_SF(TID) | PDE_SF(PID), false, synth);
		if (*fl & PDE_SF(TIME))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_TIME, "TIME",
				    PDE_SF(TIME), false, synth);
		if (*fl & PDE_SF(CPU))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_CPU, "CPU",
				    PDE_SF(CPU), allow, synth);
		/* perf 6.1 checks no event for brstack or brstacksym: a
		 * sample without a branch stack prints none */
		if (*fl & PDE_SF(IREGS))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_REGS_INTR, "IREGS",
				    PDE_SF(IREGS), allow, synth);
		if (*fl & PDE_SF(UREGS))
			check_stype(ctx, &o->f, ev, PD_SAMPLE_REGS_USER, "UREGS",
				    PDE_SF(UREGS), false, synth);
		if ((*fl & (PDE_SF(IREGS) | PDE_SF(UREGS))) && !reg_arch)
			die(ctx, "-F iregs/uregs: pdtool does not know the "
				 "register names of '%s' (x86, arm64, arm)",
			    o->arch);
		if ((*fl & PDE_SF(BRSTACKINSN)) && !allow && !any_branch(f))
			die(ctx, "-F brstackinsn: the capture's branch stacks do "
				 "not record every branch (record with -b or "
				 "-j any)");
	}
	/* tracepoints print their callchain when they have one */
	if (!o->no_callchain && !o->f.user_set[PDE_SCRIPT_TRACEPOINT]) {
		for (size_t i = 0; i < pd_file_nr_evsels(f); i++) {
			const struct pd_evsel *ev = pd_file_evsel(f, i);

			if (ev->attr.type == 2 &&
			    (ev->attr.sample_type & PD_SAMPLE_CALLCHAIN)) {
				o->f.fields[PDE_SCRIPT_TRACEPOINT] |=
					PDE_SF(IP) | PDE_SF(SYM) |
					PDE_SF(SYMOFF) | PDE_SF(DSO);
				break;
			}
		}
	}
}

/* ---- the run ------------------------------------------------------------ */

/*
 * The text of callchains, made once: each distinct frame line (its
 * address, names and flags) is formatted once into lines, and each
 * distinct stack (a memo slot's cookie is its index + 1) is the list of
 * its lines' ids, for the fields and callchain choice it was made with;
 * its frames are kept too when the capture's events print stacks in
 * more than one way.  An id is 4 bytes, the line's index: the bench
 * capture's 220k stacks hold 6.1M frames (a tree of the stacks' shared
 * callers has 1.06M nodes, but walking it took 40% more time).
 */
struct line_key {
	uint64_t map_ip, sym_off, dso_addr, ip;
	const char *sym, *dso, *srcfile;
	unsigned line, flags;
};

struct line_ent {
	struct line_key k;
	uint32_t off, len; /* in lines */
	uint32_t id;	   /* its index in line_ents */
};

struct stack_ent {
	uint64_t fields;
	bool callchain;
	uint32_t first, nr;	  /* its lines: ids[first..first+nr) */
	/* the ip's function (one-line form; NULL none): one copy of each
	 * leaf for all the stacks that have it (leaf_hash) */
	const struct pda_frame *leaf;
	/* srccode: the innermost frame at the ip (a kept copy), NULL none */
	const struct pda_frame *src;
	struct pda_frame *frames; /* with several forms, else NULL */
	size_t nr_frames;
	/* the one-line ip field after the ip (pde_script_leaf_text) in
	 * lines[tail_off..+tail_len), for tail_fields; made at its first
	 * use (a trace's lines are samples of a few instructions) */
	bool has_tail;
	uint64_t tail_fields;
	uint32_t tail_off, tail_len;
};

struct script_run {
	struct pd_ctx *ctx;
	struct script_opts *o;
	struct pd_file *f;
	struct pde_script w;
	bool checked;	/* check_fields() and the names' width */
	bool forms;	/* events print stacks in more than one way */
	struct pda_filter flt;
	struct pda_capture c;
	struct pdc_hash line_hash, leaf_hash;
	struct pdc_arena arena;
	char *lines;
	size_t lines_len, lines_cap;
	const struct line_ent **line_ents;
	size_t nr_line_ents, alloc_line_ents;
	uint32_t *ids;
	size_t nr_ids, alloc_ids;
	struct stack_ent *stacks;
	size_t nr_stacks, alloc_stacks;
	struct pdc_strbuf scratch;
	/* brstacksym, brstack's DSOs and insnlen: addresses resolved
	 * and decoded as the branch module does, and the ends of the
	 * sample's branch stack */
	struct pda_branch *br;
	struct pda_session *session; /* for br made late (trace's %ps) */
	const struct pda_branch_loc **br_ends;
	size_t alloc_br_ends;
	unsigned char insn[16]; /* insn: the ip's instruction's bytes */
	/* trace: the tracepoint samples' text (its br is br) */
	struct cmd_trace trace;
	/* srccode: the source files (read as annotate reads them), each
	 * thread's line last printed (struct src_state by tid), the text
	 * under each of a sample's brstackinsn lines */
	struct pda_annot *src;
	struct pdc_hash src_state;
	struct pde_srccode *bb_src;
	size_t alloc_bb_src;
	struct pda_brcntr cntr; /* brcntr: the branch counters' columns */
	uint64_t nr_printed, nr_filtered, nr_truncated;
};

/* A thread's source line last printed (perf: thread->srccode_state) */
struct src_state {
	uint32_t tid;
	const char *file;
	unsigned line;
};

/* The longest event name (perf's evlist__max_name_len), and whether
 * the events print stacks in more than one way. */
/*
 * brcntr: the counters' columns (read at the first sample: a pipe's
 * events come before it), refused as perf 7.2 refuses it when no event
 * recorded branch counters.
 */
static void init_brcntr(struct script_run *sr)
{
	bool asked = false;

	for (int t = 0; t < PDE_SCRIPT_NR_TYPES; t++)
		if (sr->o->f.fields[t] & PDE_SF(BRCNTR))
			asked = true;
	if (!asked)
		return;
	if (pda_brcntr_init(sr->f, &sr->cntr) < 0 || !sr->cntr.nr)
		die(sr->ctx, "'%s': -F brcntr: the capture has no branch "
			     "counters (record with -j any,counter on a CPU "
			     "that has them)", sr->o->path);
	(void)pd_file_env(sr->f, &sr->w.env);
	/* -v: perf's counts by event name */
	sr->cntr.exact = sr->ctx->verbose > 0;
	sr->w.brcntr = &sr->cntr;
}

static void set_width(struct script_run *sr, struct pd_file *f)
{
	size_t width = 0;
	uint64_t fields = 0;
	int cc = -1;

	for (size_t i = 0; i < pd_file_nr_evsels(f); i++) {
		const struct pd_evsel *ev = pd_file_evsel(f, i);
		const size_t len = strlen(ev->name);
		const uint64_t fl =
			sr->o->f.fields[pde_script_type(ev->attr.type)];
		const int has = !!(ev->attr.sample_type & PD_SAMPLE_CALLCHAIN);

		if (len > width)
			width = len;
		if (cc >= 0 && (fl != fields || has != cc))
			sr->forms = true;
		fields = fl;
		cc = has;
	}
	sr->w.name_width = (unsigned)(width > 256 ? 256 : width);
}

/* The frames kept of st: max_stack callchain entries from the leaf,
 * each with the inlined frames it expands to. */
static size_t kept(const struct script_run *sr, const struct pda_stack *st)
{
	return pda_stack_kept(st, sr->o->max_stack ? sr->o->max_stack
						   : PDA_MAX_STACK);
}

static const struct pda_frame *leaf_of(const struct pda_frame *fr, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (!(fr[i].flags & PDA_FRAME_INLINED))
			return &fr[i];
	return NULL;
}

static bool line_eq(const void *item, const void *key)
{
	return memcmp(&((const struct line_ent *)item)->k, key,
		      sizeof(struct line_key)) == 0;
}

/* The checks and widths that need the capture's events, once, at the
 * first record printed (a pipe's events come before its first sample). */
static void script_prepare(struct script_run *sr)
{
	if (sr->checked)
		return;
	check_fields(sr->ctx, sr->o, sr->f);
	set_width(sr, sr->f);
	init_brcntr(sr);
	sr->checked = true;
}

/* Whether a line of event ev with fields prints its callchain. */
static bool line_callchain(const struct script_opts *o,
			   const struct pd_evsel *ev, uint64_t fields)
{
	return !o->no_callchain && (fields & PDE_SF(IP)) &&
	       (ev->attr.sample_type & PD_SAMPLE_CALLCHAIN);
}

/* Frame i of fr's line (formatted the first time): its id in *out.  0
 * or PD_ERR_NOMEM. */
static int line_of(struct script_run *sr, const struct pda_frame *fr,
		   size_t i, uint64_t fields, uint32_t *out)
{
	const struct pda_frame *f = &fr[i];
	const struct pda_frame *src = pde_script_srcline_frame(fr, i);
	struct line_key k;
	struct pdc_hash_slot *slot;
	struct line_ent *e;
	uint64_t h;

	memset(&k, 0, sizeof(k));
	k.map_ip = f->map_ip;
	k.ip = f->ip;
	k.sym = f->sym;
	k.sym_off = f->sym_off;
	k.dso = f->dso;
	k.flags = f->flags & (PDA_FRAME_DWARF_NAMED | PDA_FRAME_KERNEL |
			      PDA_FRAME_MODULE);
	if (fields & PDE_SF(SRCLINE)) {
		k.flags |= src->flags & PDA_FRAME_NO_SRCLINE;
		k.dso_addr = f->dso_addr;
		k.srcfile = src->srcfile;
		k.line = src->line;
	}
	h = pdc_hash_bytes(&k, sizeof(k));
	if (pdc_hash_reserve(NULL, &sr->line_hash) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&sr->line_hash, h, line_eq, &k);
	if (slot->item) {
		*out = ((const struct line_ent *)slot->item)->id;
		return 0;
	}
	sr->scratch.len = 0;
	pde_script_frame_line(&sr->scratch, f, src, fields);
	if (sr->scratch.oom || sr->lines_len + sr->scratch.len > UINT32_MAX ||
	    PDC_GROW(NULL, sr->lines, sr->lines_cap,
		     sr->lines_len + sr->scratch.len, UINT32_MAX) < 0)
		return PD_ERR_NOMEM;
	if (sr->nr_line_ents >= UINT32_MAX ||
	    PDC_GROW(NULL, sr->line_ents, sr->alloc_line_ents,
		     sr->nr_line_ents + 1, UINT32_MAX) < 0)
		return PD_ERR_NOMEM;
	e = pdc_arena_alloc(&sr->arena, NULL, sizeof(*e));
	if (!e)
		return PD_ERR_NOMEM;
	e->k = k;
	e->id = (uint32_t)sr->nr_line_ents;
	sr->line_ents[sr->nr_line_ents++] = e;
	e->off = (uint32_t)sr->lines_len;
	e->len = (uint32_t)sr->scratch.len;
	memcpy(sr->lines + sr->lines_len, sr->scratch.p, sr->scratch.len);
	sr->lines_len += sr->scratch.len;
	pdc_hash_fill(&sr->line_hash, slot, h, e);
	*out = e->id;
	return 0;
}

static bool leaf_eq(const void *item, const void *key)
{
	return memcmp(item, key, sizeof(struct pda_frame)) == 0;
}

/* The kept copy of leaf (made the first time) in *out.  0 or
 * PD_ERR_NOMEM. */
static int leaf_copy(struct script_run *sr, const struct pda_frame *leaf,
		     const struct pda_frame **out)
{
	const uint64_t h = pdc_hash_bytes(leaf, sizeof(*leaf));
	struct pdc_hash_slot *slot;
	struct pda_frame *copy;

	if (pdc_hash_reserve(NULL, &sr->leaf_hash) < 0)
		return PD_ERR_NOMEM;
	slot = pdc_hash_probe(&sr->leaf_hash, h, leaf_eq, leaf);
	if (!slot->item) {
		copy = pdc_arena_alloc(&sr->arena, NULL, sizeof(*copy));
		if (!copy)
			return PD_ERR_NOMEM;
		*copy = *leaf;
		pdc_hash_fill(&sr->leaf_hash, slot, h, copy);
	}
	*out = slot->item;
	return 0;
}

/* A new stack entry for frames fr[0..nr), *cookie its number.  0 or
 * PD_ERR_NOMEM. */
static int keep_stack(struct script_run *sr, const struct pda_frame *fr,
		      size_t nr, uint64_t fields, bool callchain,
		      uint64_t *cookie)
{
	struct stack_ent *e;
	const struct pda_frame *leaf;

	if (PDC_GROW(NULL, sr->stacks, sr->alloc_stacks, sr->nr_stacks + 1,
		     UINT32_MAX) < 0)
		return PD_ERR_NOMEM;
	e = &sr->stacks[sr->nr_stacks];
	memset(e, 0, sizeof(*e));
	e->fields = fields;
	e->callchain = callchain;
	leaf = leaf_of(fr, nr);
	if (leaf && leaf_copy(sr, leaf, &e->leaf) < 0)
		return PD_ERR_NOMEM;
	if ((fields & PDE_SF(SRCCODE)) && nr && leaf_copy(sr, fr, &e->src) < 0)
		return PD_ERR_NOMEM;
	if (callchain && (fields & PDE_SF(IP))) {
		if (sr->nr_ids + nr > UINT32_MAX ||
		    PDC_GROW(NULL, sr->ids, sr->alloc_ids, sr->nr_ids + nr,
			     UINT32_MAX) < 0)
			return PD_ERR_NOMEM;
		e->first = (uint32_t)sr->nr_ids;
		for (size_t i = 0; i < nr; i++) {
			int rc = line_of(sr, fr, i, fields,
					 &sr->ids[sr->nr_ids]);

			if (rc < 0)
				return rc;
			sr->nr_ids++;
		}
		e->nr = (uint32_t)nr;
	}
	if (sr->forms && nr) {
		e->frames = malloc(nr * sizeof(*fr));
		if (!e->frames)
			return PD_ERR_NOMEM;
		memcpy(e->frames, fr, nr * sizeof(*fr));
		e->nr_frames = nr;
	}
	sr->nr_stacks++;
	*cookie = sr->nr_stacks;
	return 0;
}

/* perf's --dsos: the DSO's name or its file name */
static bool dso_matches(const struct name_list *l, const char *dso)
{
	const char *slash;

	if (!dso)
		return false;
	slash = strrchr(dso, '/');
	return in_names(l, dso) || (slash && in_names(l, slash + 1));
}

/* The one-line ip field of a sample of ip whose stack is entry e: the
 * text after the ip made once per entry and fields. */
static int write_leaf(struct script_run *sr, uint64_t ip, struct stack_ent *e,
		      uint64_t fields)
{
	int rc;

	sr->scratch.len = 0;
	pde_script_ip_head(&sr->scratch, ip, fields);
	if (sr->scratch.oom)
		return PD_ERR_NOMEM;
	if ((rc = pde_script_raw(&sr->w, sr->scratch.p, sr->scratch.len)) < 0)
		return rc;
	if (!e->has_tail || e->tail_fields != fields) {
		sr->scratch.len = 0;
		pde_script_leaf_text(&sr->scratch, e->leaf, e->leaf != NULL,
				     fields);
		if (sr->scratch.oom ||
		    sr->lines_len + sr->scratch.len > UINT32_MAX ||
		    PDC_GROW(NULL, sr->lines, sr->lines_cap,
			     sr->lines_len + sr->scratch.len, UINT32_MAX) < 0)
			return PD_ERR_NOMEM;
		/* an empty tail (no field after the ip) may have no buffer
		 * yet: memcpy's pointers must not be NULL */
		if (sr->scratch.len)
			memcpy(sr->lines + sr->lines_len, sr->scratch.p,
			       sr->scratch.len);
		e->has_tail = true;
		e->tail_fields = fields;
		e->tail_off = (uint32_t)sr->lines_len;
		e->tail_len = (uint32_t)sr->scratch.len;
		sr->lines_len += sr->scratch.len;
	}
	return e->tail_len ? pde_script_raw(&sr->w, sr->lines + e->tail_off,
					    e->tail_len)
			   : 0;
}

/* The ip field of a sample whose stack is fr[0..nr) (or, hit, the stack
 * entry e), as fields and callchain want it. */
static int write_ip(struct script_run *sr, const struct pd_sample *s,
		    const struct pda_frame *fr, size_t nr,
		    const struct stack_ent *e, uint64_t fields, bool callchain)
{
	int rc;

	if (e && e->fields == fields && e->callchain == callchain &&
	    callchain) {
		const uint32_t *ids = sr->ids + e->first;

		rc = pde_script_raw(&sr->w, "\n", 1);
		for (uint32_t i = 0; i < e->nr && rc == 0; i++) {
			const struct line_ent *l = sr->line_ents[ids[i]];

			rc = pde_script_raw(&sr->w, sr->lines + l->off, l->len);
		}
		return rc;
	}
	if (e && !callchain)
		return write_leaf(sr, s->ip, &sr->stacks[e - sr->stacks],
				  fields);
	if (e) {
		/* another form than the entry's: its frames were kept */
		fr = e->frames;
		nr = e->nr_frames;
	}
	sr->scratch.len = 0;
	pde_script_stack_text(&sr->scratch, fr, nr, fields, callchain, s->ip);
	if (sr->scratch.oom)
		return PD_ERR_NOMEM;
	return pde_script_raw(&sr->w, sr->scratch.p, sr->scratch.len);
}

/*
 * perf's is_bts_event(): a recorded hardware event of the branch
 * instructions bit (config & PERF_COUNT_HW_BRANCH_INSTRUCTIONS, as perf
 * tests it) with period 1, which perf 6.1 prints as "from => to"
 * (perf_sample__fprintf_bts).  pdtool's own synthesized (Arm SPE)
 * events, numbered from 0, are none: perf 6.1's are printed as others.
 */
static bool is_bts(const struct pd_evsel *ev)
{
	return ev->attr.type == 0 /* PERF_TYPE_HARDWARE */ &&
	       (ev->attr.config & 4) && ev->attr.sample_period == 1 &&
	       !ev->synth;
}

/*
 * Whether perf 6.1 prints the symbol and DSO of a sample's addr
 * (sample_addr_correlates_sym): a page fault's, whose addr is the
 * address that faulted, and a BTS event's, the branch's target.
 */
static bool addr_names_sym(const struct pd_evsel *ev)
{
	const struct pd_attr *a = &ev->attr;

	return is_bts(ev) || (a->type == 1 /* PERF_TYPE_SOFTWARE */ &&
			      (a->config == 2 /* PAGE_FAULTS */ ||
			       a->config == 5 /* PAGE_FAULTS_MIN */ ||
			       a->config == 6 /* PAGE_FAULTS_MAJ */));
}

static bool src_state_eq(const void *item, const void *key)
{
	return ((const struct src_state *)item)->tid == *(const uint32_t *)key;
}

/*
 * perf 6.1's map__fprintf_srccode(): the text of line of file into *out
 * unless it is the thread's line last printed, which it then becomes;
 * nothing where the file or the line is not found.  0 or PD_ERR_NOMEM.
 */
static int srccode(struct script_run *sr, uint32_t tid, const char *file,
		   unsigned line, struct pde_srccode *out)
{
	const uint64_t h = pdc_hash_u64(tid);
	struct src_state *st;
	const char *text;
	size_t len;

	memset(out, 0, sizeof(*out));
	if (!file || !file[0] || !line)
		return 0;
	st = pdc_hash_find(&sr->src_state, h, src_state_eq, &tid);
	if (st && st->line == line && strcmp(st->file, file) == 0)
		return 0;
	text = pda_annot_source(sr->src, file, line, &len);
	if (!text)
		return 0;
	if (!st) {
		st = pdc_arena_alloc(&sr->arena, NULL, sizeof(*st));
		if (!st || pdc_hash_add(NULL, &sr->src_state, h, st) < 0)
			return PD_ERR_NOMEM;
	}
	*st = (struct src_state){.tid = tid, .file = file, .line = line};
	*out = (struct pde_srccode){.text = text, .len = len, .line = line};
	return 0;
}

/* srccode under brstackinsn's lines: after each instruction perf
 * printed whole (not one that did not decode, nor the branch the last
 * block stopped at) and after each block's branch. */
static int bb_srccode(struct script_run *sr, const struct pda_pipe_item *it,
		      struct pde_script_line *l)
{
	if (!l->nr_bb)
		return 0;
	if (PDC_GROW(NULL, sr->bb_src, sr->alloc_bb_src, l->nr_bb,
		     SIZE_MAX / sizeof(*sr->bb_src)) < 0)
		return PD_ERR_NOMEM;
	for (size_t i = 0; i < l->nr_bb; i++) {
		const struct pda_bb_line *bl = &l->bb[i];
		const struct pda_branch_loc *loc;
		int rc;

		memset(&sr->bb_src[i], 0, sizeof(sr->bb_src[i]));
		if (bl->kind != PDA_BB_JUMP &&
		    (bl->kind != PDA_BB_INSN || !bl->len ||
		     (i + 1 < l->nr_bb &&
		      l->bb[i + 1].kind == PDA_BB_NOT_REACHING)))
			continue;
		rc = pda_branch_locate(sr->br, it->sample, it->comm, bl->addr,
				       &loc);
		if (rc == 0 && loc)
			rc = srccode(sr, it->sample->tid, loc->srcfile,
				     loc->line, &sr->bb_src[i]);
		if (rc < 0)
			return rc;
	}
	l->bb_src = sr->bb_src;
	return 0;
}

/* What l's fields need resolved: the symbol of its addr, the ends of
 * the sample's branches, the length of its ip's instruction. */
static int resolve_fields(struct script_run *sr, const struct pda_pipe_item *it,
			 struct pde_script_line *l)
{
	const struct pd_sample *s = it->sample;
	const uint64_t f = l->fields;
	int rc;

	if (!sr->br)
		return 0;
	if ((l->bts ? l->bts_to : (f & PDE_SF(ADDR)) != 0) &&
	    (f & (PDE_SF(SYM) | PDE_SF(DSO))) && addr_names_sym(s->evsel)) {
		l->addr_sym = true;
		rc = pda_branch_locate(sr->br, s, it->comm, s->addr,
				       &l->addr_loc);
		if (rc < 0)
			return rc;
	}
	if ((f & (PDE_SF(INSNLEN) | PDE_SF(INSN))) &&
	    (s->mask & PD_SAMPLE_IP)) {
		rc = pda_branch_insn(sr->br, s, it->comm, s->ip, sr->insn,
				     &l->insn_len);
		if (rc < 0)
			return rc;
		l->insn = sr->insn;
	}
	if ((f & PDE_SF(BRSTACKINSN)) && s->branch.nr) {
		rc = pda_branch_insns(sr->br, s, it->comm, &l->bb, &l->nr_bb);
		if (rc == 0 && (f & PDE_SF(SRCCODE)))
			rc = bb_srccode(sr, it, l);
		if (rc < 0)
			return rc;
	}
	if (!s->branch.nr ||
	    !((f & (PDE_SF(BRSTACKSYM) | PDE_SF(BRSTACKOFF))) ||
	      ((f & PDE_SF(BRSTACK)) && (f & PDE_SF(DSO)))))
		return 0;
	if (s->branch.nr > SIZE_MAX / 2 ||
	    PDC_GROW(NULL, sr->br_ends, sr->alloc_br_ends, 2 * s->branch.nr,
		     SIZE_MAX / sizeof(*sr->br_ends)) < 0)
		return PD_ERR_NOMEM;
	for (uint64_t i = 0; i < s->branch.nr; i++) {
		struct pd_branch b;

		pd_sample_branch(s, i, &b);
		rc = pda_branch_locate(sr->br, s, it->comm, b.from,
				       &sr->br_ends[2 * i]);
		if (rc == 0)
			rc = pda_branch_locate(sr->br, s, it->comm, b.to,
					       &sr->br_ends[2 * i + 1]);
		if (rc < 0)
			return rc;
	}
	l->br_ends = sr->br_ends;
	return 0;
}

/*
 * The trace field of a tracepoint sample into l (none without raw bytes
 * or the event's format, as perf prints nothing then).
 */
static int trace_text(struct script_run *sr, const struct pda_pipe_item *it,
		      struct pde_script_line *l)
{
	if (!sr->trace.br) {
		sr->trace.ctx = sr->ctx;
		sr->trace.f = sr->f;
		sr->trace.path = sr->o->path;
		sr->trace.session = sr->session;
		sr->trace.br = &sr->br;
	}
	return cmd_trace_text(&sr->trace, it->sample, it->comm, &l->trace,
			      &l->trace_len);
}

/* A BTS line's ip srcline, which perf prints after the branch target:
 * in sr->scratch, for pde_script_end. */
static int bts_srcline(struct script_run *sr, const struct pda_frame *fr,
		       size_t nr, const struct stack_ent *e,
		       struct pde_script_line *l)
{
	if (e) {
		fr = e->leaf;
		nr = e->leaf != NULL;
	}
	sr->scratch.len = 0;
	pde_script_leaf_srcline(&sr->scratch, fr, nr);
	if (sr->scratch.oom)
		return PD_ERR_NOMEM;
	l->bts_srcline = sr->scratch.p;
	l->bts_srcline_len = sr->scratch.len;
	return 0;
}

static int script_one(void *arg, const struct pda_pipe_item *it)
{
	struct script_run *sr = arg;
	const struct script_opts *o = sr->o;
	const struct pd_sample *s = it->sample;
	const struct pd_evsel *ev = s->evsel;
	const enum pde_script_type t = pde_script_type(ev->attr.type);
	struct pde_script_line l = {.sample = s, .comm = it->comm,
				    .event = ev->name};
	const struct stack_ent *e = NULL;
	const struct pda_frame *fr = NULL, *leaf;
	size_t nr = 0;
	int rc;

	script_prepare(sr);
	l.fields = o->f.fields[t];
	l.brstack7 = ev->synth && o->itrace.perf7;
	l.callchain = line_callchain(o, ev, l.fields);
	if (!l.fields)
		return 0;
	/* perf prints a BTS sample's target when addr is asked for, or
	 * sampled and -F left its type alone */
	l.bts = is_bts(ev);
	l.bts_to = l.bts && ((l.fields & PDE_SF(ADDR)) ||
			     ((ev->attr.sample_type & PD_SAMPLE_ADDR) &&
			      !o->f.user_set[t]));
	if ((o->nr_cpus && !cmd_in_ids(o->cpus, o->nr_cpus, s->cpu)) ||
	    (o->comms.nr && !in_names(&o->comms, it->comm))) {
		sr->nr_filtered++;
		return 0;
	}
	if (it->hit) {
		e = &sr->stacks[*it->cookie - 1];
	} else if (it->stack) {
		fr = it->stack->frames;
		nr = kept(sr, it->stack);
		if (nr < it->stack->nr)
			sr->nr_truncated++;
		if (it->cookie) {
			rc = keep_stack(sr, fr, nr, l.fields, l.callchain,
					it->cookie);
			if (rc < 0)
				return rc;
			e = &sr->stacks[*it->cookie - 1];
		}
	}
	leaf = e ? e->leaf : leaf_of(fr, nr);
	if ((o->syms.nr &&
	     (!leaf || !leaf->sym || !in_names(&o->syms, leaf->sym))) ||
	    (o->dsos.nr && !dso_matches(&o->dsos, leaf ? leaf->dso : NULL))) {
		sr->nr_filtered++;
		return 0;
	}
	rc = resolve_fields(sr, it, &l);
	if (rc == 0 && (l.fields & PDE_SF(SRCCODE))) {
		/* the line of the ip's innermost function */
		const struct pda_frame *src = e ? e->src : nr ? fr : NULL;

		if (src)
			rc = srccode(sr, s->tid, src->srcfile, src->line,
				     &l.src);
	}
	if (rc == 0 && (l.fields & PDE_SF(TRACE)) && ev->attr.type == 2)
		rc = trace_text(sr, it, &l);
	if (rc == 0)
		rc = pde_script_begin(&sr->w, &l);
	if (rc == 0 && (l.fields & PDE_SF(IP)))
		rc = write_ip(sr, s, fr, nr, e,
			      l.bts_to && !l.callchain
				      ? l.fields & ~PDE_SF(SRCLINE)
				      : l.fields,
			      l.callchain);
	if (rc == 0 && l.bts_to && !l.callchain &&
	    (l.fields & (PDE_SF(IP) | PDE_SF(SRCLINE))) ==
		    (PDE_SF(IP) | PDE_SF(SRCLINE)))
		rc = bts_srcline(sr, fr, nr, e, &l);
	if (rc == 0)
		rc = pde_script_end(&sr->w, &l);
	if (rc < 0)
		return rc;
	sr->nr_printed++;
	return 0;
}

/* The thread a side-band record of ev prints the comm of (perf's
 * process_*_event: the record's own pid/tid where it names one, else
 * its sample_id's), *ts the time perf prints without sample_id_all. */
static void side_thread(const struct pd_event *ev, int32_t *pid, int32_t *tid,
			uint64_t *ts)
{
	*ts = 0;
	switch (ev->type) {
	case PD_REC_COMM:
		*pid = (int32_t)ev->comm.pid;
		*tid = (int32_t)ev->comm.tid;
		break;
	case PD_REC_FORK:
	case PD_REC_EXIT:
		*pid = (int32_t)ev->fork.pid;
		*tid = (int32_t)ev->fork.tid;
		*ts = ev->fork.time;
		break;
	case PD_REC_MMAP:
		*pid = (int32_t)ev->mmap.pid;
		*tid = (int32_t)ev->mmap.tid;
		break;
	case PD_REC_MMAP2:
		*pid = (int32_t)ev->mmap2.pid;
		*tid = (int32_t)ev->mmap2.tid;
		break;
	case PD_REC_NAMESPACES:
		*pid = (int32_t)ev->namespaces.pid;
		*tid = (int32_t)ev->namespaces.tid;
		break;
	default:
		*pid = ev->sample_id.mask & PD_SAMPLE_TID
			       ? (int32_t)ev->sample_id.pid
			       : -1;
		*tid = ev->sample_id.mask & PD_SAMPLE_TID
			       ? (int32_t)ev->sample_id.tid
			       : -1;
		break;
	}
}

/*
 * A side-band record (--show-*-events) as perf 6.1's print_event():
 * the fields of the event its id names up to the time, of the sample
 * its sample_id makes (perf's defaults -1 where it has none; the
 * record's own pid/tid and time without sample_id_all), the comm of the
 * thread it concerns, then the record.
 */
static int script_side(void *arg, const struct pd_rec *rec)
{
	struct script_run *sr = arg;
	const struct script_opts *o = sr->o;
	const struct pd_evsel *ev = NULL;
	struct pde_script_line l = {0};
	struct pd_sample smp = {0};
	struct pd_event e;
	const struct pd_sample_id *id = &e.sample_id;
	char unknown[24];
	int32_t pid, tid;
	uint64_t ts;

	if (rec->type >= 32 || !(o->show & (1u << rec->type)) ||
	    pd_event_decode(sr->f, rec, &e) != 0)
		return 0;
	script_prepare(sr);
	/* perf's evlist__id2evsel(): the first event when there is one,
	 * or the record has no id; none for an id no event has */
	if (pd_file_nr_evsels(sr->f) == 1 || !(id->mask & PD_SAMPLE_ID) ||
	    !id->id)
		ev = pd_file_nr_evsels(sr->f) ? pd_file_evsel(sr->f, 0) : NULL;
	else
		ev = id->evsel;
	side_thread(&e, &pid, &tid, &ts);
	smp.misc = rec->misc;
	if (ev && !PD_ATTR_HAS(&ev->attr, sample_id_all)) {
		smp.cpu = 0;
		smp.time = ts;
		smp.pid = (uint32_t)pid;
		smp.tid = (uint32_t)tid;
	} else if (ev && !id->evsel) {
		/* an id no event has: perf's synthesized records' 0, which
		 * it reads with the first event's trailer, zeros */
	} else {
		smp.pid = id->mask & PD_SAMPLE_TID ? id->pid : UINT32_MAX;
		smp.tid = id->mask & PD_SAMPLE_TID ? id->tid : UINT32_MAX;
		smp.cpu = id->mask & PD_SAMPLE_CPU ? id->cpu : UINT32_MAX;
		smp.time = id->mask & PD_SAMPLE_TIME ? id->time : UINT64_MAX;
	}
	if (o->nr_cpus && !cmd_in_ids(o->cpus, o->nr_cpus, smp.cpu))
		return 0;
	l.sample = &smp;
	if (ev) {
		l.fields = o->f.fields[pde_script_type(ev->attr.type)];
		l.callchain = line_callchain(o, ev, l.fields);
	}
	/* perf: ":-1" without a thread, ":TID" for one without a comm */
	if (tid == -1) {
		l.comm = ":-1";
	} else {
		l.comm = pda_thread_comm(sr->session, (uint32_t)pid,
					 (uint32_t)tid);
		if (!l.comm[0]) {
			snprintf(unknown, sizeof(unknown), ":%d", tid);
			l.comm = unknown;
		}
	}
	return pde_script_side(&sr->w, &l, &e, &sr->scratch);
}

static int script_skip(void *arg, enum pda_capture_skip what, const char *why)
{
	struct script_run *sr = arg;

	cmd_capture_skip_warn(sr->ctx, &sr->c, sr->o->path, what, why);
	return 0;
}

static void free_run(struct script_run *sr)
{
	for (size_t i = 0; i < sr->nr_stacks; i++)
		free(sr->stacks[i].frames);
	free(sr->stacks);
	free(sr->ids);
	free(sr->line_ents);
	free(sr->br_ends);
	pda_branch_free(sr->br);
	free(sr->lines);
	pdc_hash_release(NULL, &sr->line_hash);
	pdc_hash_release(NULL, &sr->leaf_hash);
	pdc_arena_release(&sr->arena, NULL);
	pdc_strbuf_release(&sr->scratch);
	cmd_trace_release(&sr->trace);
	free(sr->bb_src);
	pdc_hash_release(NULL, &sr->src_state);
	pda_annot_free(sr->src);
}

/* f: the capture, opened (and --time's percentages resolved in it) */
static int script_capture(struct pd_ctx *ctx, struct script_opts *o,
			  struct pd_file *f)
{
	struct script_run sr = {.ctx = ctx, .o = o, .f = f,
				.arena = PDC_ARENA_INIT};
	char err[512] = "";
	PDA_OPTS(po, .no_inline = o->no_inline,
		 .inline_callchain = o->inline_frames,
		 .max_stack = o->max_stack, .unwinder = o->unwinder,
		 .errbuf = err, .errbuf_size = sizeof(err));
	PDA_FILTER_OPTS(fo, .flags = PDA_FILTER_TRACEPOINTS,
			.pids = o->nr_pids ? o->pids : NULL,
			.nr_pids = o->nr_pids,
			.tids = o->nr_tids ? o->tids : NULL,
			.nr_tids = o->nr_tids,
			.time_ranges = o->time.nr ? o->time.r : NULL,
			.nr_time_ranges = o->time.nr);
	/* time order, as perf script prints; a sample without a callchain
	 * has its ip as its one frame, and so has every sample with -G
	 * (perf prints sample->ip's symbol then) */
	PDA_CAPTURE_OPTS(co, .filter = &sr.flt, .jobs = o->jobs,
			 .ip_stacks = true, .leaf_only = o->no_callchain,
			 .memo = true, .time_order = true,
			 .itrace = &o->itrace, .sample_fn = script_one,
			 .side_fn = o->show ? script_side : NULL,
			 .skip_fn = script_skip,
			 .arg = &sr);
	struct cmd_progress prog;
	const struct pda_capture_stats *cs;
	const struct pda_filter_stats *fs;
	const struct pda_stats *ps;
	struct pda_session *s;
	FILE *out;
	bool need_br = false;
	int rc;

	co.progress = cmd_progress_fn;
	co.progress_arg = &prog;
	po.srcline = false;
	for (int t = 0; t < PDE_SCRIPT_NR_TYPES; t++)
		if (o->f.fields[t] & (PDE_SF(SRCLINE) | PDE_SF(SRCCODE)))
			po.srcline = true;
	po.srcline_a2l = po.srcline;
	cmd_pda_opts(ctx, &o->sym, &po);
	/* perf -v demangles C++ names with their parameters */
	po.demangle_params = ctx->verbose > 0;
	rc = pda_session_new(f, &po, &s);
	if (rc < 0)
		die(ctx, "'%s': %s", o->path, err[0] ? err : pd_strerror(rc));
	sr.session = s;
	for (int t = 0; t < PDE_SCRIPT_NR_TYPES; t++)
		if (o->f.fields[t] & (PDE_SF(BRSTACKSYM) | PDE_SF(INSNLEN) |
				      PDE_SF(INSN) | PDE_SF(BRSTACK) |
				      PDE_SF(BRSTACKOFF) | PDE_SF(BRSTACKINSN) |
				      PDE_SF(ADDR)))
			need_br = true;
	if (need_br) {
		PDA_BRANCH_OPTS(bo, .by = PDA_BRANCH_BY_SYM);

		if (pda_branch_new(s, &bo, &sr.br) < 0)
			die(ctx, "out of memory");
	}
	for (int t = 0; t < PDE_SCRIPT_NR_TYPES && !sr.src; t++) {
		PDA_ANNOT_OPTS(ao, .nr_events = 1);

		if (!(o->f.fields[t] & PDE_SF(SRCCODE)))
			continue;
		cmd_source_annot_opts(&o->src, &ao);
		if (pda_annot_new(s, &ao, &sr.src) < 0)
			die(ctx, "out of memory");
	}
	if (pda_filter_init(&sr.flt, &fo) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_API));
	rc = pda_capture_init(&sr.c, f, s, &co);
	if (rc < 0)
		cmd_capture_die(ctx, o->path, &sr.c, rc);
	pdc_strbuf_init(&sr.scratch, NULL, NULL, 0);
	out = ctx_open_output(ctx, o->output);
	if (pde_script_init(&sr.w, out, o->ns, 0) < 0)
		die(ctx, "out of memory");
	o->arch = recorder_arch(f, &o->host);
	sr.w.reg_arch = pde_script_reg_arch(o->arch);
	if (tod_known(f)) {
		const struct pd_env *env;

		(void)pd_file_env(f, &env);
		sr.w.tod = true;
		sr.w.tod_ns = env->clock_data.tod_ns;
		sr.w.clock_ns = env->clock_data.clockid_ns;
	}
	cmd_progress_init(&prog, ctx);
	rc = pda_capture_run(&sr.c);
	cmd_progress_end(&prog);
	if (rc < 0) {
		/* what was printed goes out before the message */
		(void)pde_script_finish(&sr.w);
		cmd_capture_die(ctx, o->path, &sr.c, rc);
	}
	ctx_check_write(ctx, pde_script_finish(&sr.w), o->output);
	cs = pda_capture_stats(&sr.c);
	cmd_check_kind_synth(ctx, o->path, f, &cs->reader, cs->nr_samples,
			     pda_capture_itrace(&sr.c));
	pda_capture_release(&sr.c);
	ctx_close_output(ctx, out, o->output);

	fs = pda_filter_stats(&sr.flt);
	ps = pda_session_stats(s);
	eprintf("pdtool %s: %" PRIu64 " sample%s printed; %" PRIu64 " lost",
		ctx->cmd, sr.nr_printed, PLURAL(sr.nr_printed), cs->lost);
	if (fs->nr_left_out + sr.nr_filtered)
		eprintf("; %" PRIu64 " filtered out",
			fs->nr_left_out + sr.nr_filtered);
	if (sr.nr_truncated)
		eprintf("; %" PRIu64 " callchain%s cut at --max-stack",
			sr.nr_truncated, PLURAL(sr.nr_truncated));
	if (cs->reader.bytes_missing)
		eprintf("; the capture is cut short");
	if (ps && ps->nr_missing)
		eprintf("; %zu binar%s not found", ps->nr_missing,
			ps->nr_missing == 1 ? "y" : "ies");
	fputc('\n', stderr);
	cmd_unresolved_block(ctx, ps, ps ? ps->nr_samples : 0, NULL);
	if (sr.src)
		cmd_source_withheld(ctx, &o->src, &o->sym,
				    pda_annot_nr_withheld(sr.src));
	cmd_fetch_add(ctx, &ps->debuginfod);
	cmd_fetch_summary(ctx);
	rc = 0;
	if (ctx->strict &&
	    (ps->nr_samples_unresolved || cs->lost || cs->nr_bad_samples ||
	     cs->nr_stack_errors || cs->reader.damaged || ps->nr_missing ||
	     ps->unwind.nr_stopped || ctx->nr_warnings))
		rc = EXIT_UNRESOLVED;
	free_run(&sr);
	pda_session_free(s);
	pd_file_close(f);
	return rc;
}

int cmd_script(int argc, char **argv, struct pd_ctx *ctx)
{
	struct script_opts *o = calloc(1, sizeof(*o));
	struct pd_file *f;
	int rc;

	if (!o)
		die(ctx, "out of memory");
	pde_script_fields_default(&o->f);
	parse_args(argc, argv, ctx, o);
	if (o->inline_frames && o->no_inline)
		usage_error(ctx, "--inline and --no-inline contradict each "
				 "other: give one");
	f = ctx_open_twice(ctx, o->path);
	cmd_time_resolve(ctx, o->path, f, &o->time);
	rc = script_capture(ctx, o, f);
	free(o->comms.buf);
	free(o->syms.buf);
	free(o->dsos.buf);
	free(o);
	return rc;
}
