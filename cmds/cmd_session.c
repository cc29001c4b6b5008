/*
 * cmd_session.c - what the commands that read samples and resolve their
 * symbols share (fold, diff, annotate): the options that find binaries,
 * the library logger, and the progress line.
 */
#include "pdtool.h"
#include "pda_datatype.h"
#include "pda_offcpu.h"
#include "pda_parallel.h"
#include "pda_capture.h"
#include "pda_session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A count from 1 to max for option opt, else a usage error. */
static unsigned count_arg(const struct pd_ctx *ctx, const char *opt,
			  const char *arg, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*end || end == arg || arg[0] == '-' || errno || v == 0 || v > max)
		usage_error(ctx, "%s '%s': a count from 1 to %lu", opt, arg,
			    max);
	return (unsigned)v;
}

bool cmd_symopt(const struct pd_ctx *ctx, struct cmd_symopts *o, int c,
		const char *arg)
{
	switch (c) {
	case CMD_OPT_DEBUGINFOD:
		o->debuginfod = 1;
		return true;
	case CMD_OPT_NO_DEBUGINFOD:
		o->debuginfod = -1;
		return true;
	case CMD_OPT_DEBUGINFOD_MAX:
		o->debuginfod_max = count_arg(ctx, "--debuginfod-max", arg,
					      100000);
		return true;
	case CMD_OPT_DEBUGINFOD_TIME:
		o->debuginfod_ms =
			1000 * count_arg(ctx, "--debuginfod-time", arg, 86400);
		return true;
	case CMD_OPT_SYMFS:
		o->symfs = arg;
		return true;
	case CMD_OPT_BUILDID_DIR:
		o->buildid_dir = arg;
		return true;
	case CMD_OPT_ARCHIVE:
		o->archive = arg;
		return true;
	case CMD_OPT_KALLSYMS:
		o->kallsyms = arg;
		return true;
	case CMD_OPT_VMLINUX:
		o->vmlinux = arg;
		return true;
	case CMD_OPT_JIT_DIR:
		o->jit_dir = arg;
		return true;
	case CMD_OPT_SEARCH_PATH:
		if (o->nr_search_paths == CMD_SEARCH_PATHS_MAX)
			usage_error(ctx, "--search-path: at most %d",
				    CMD_SEARCH_PATHS_MAX);
		o->search_paths[o->nr_search_paths++] = arg;
		return true;
	case CMD_OPT_NO_DEMANGLE:
		o->no_demangle = true;
		return true;
	case CMD_OPT_HOST_FILES:
		o->host_files = true;
		return true;
	case CMD_OPT_HOST_KERNEL:
		o->host_kernel = 1;
		return true;
	case CMD_OPT_NO_HOST_KERNEL:
		o->host_kernel = -1;
		return true;
	default:
		return false;
	}
}

const char *cmd_unwinder(const struct pd_ctx *ctx, const char *arg)
{
	if (strcmp(arg, "libdw") != 0 && strcmp(arg, "libunwind") != 0)
		usage_error(ctx, "--unwinder '%s': libdw or libunwind", arg);
	return arg;
}

unsigned cmd_jobs(const struct pd_ctx *ctx, const char *arg)
{
	return count_arg(ctx, "--jobs", arg, PDA_PIPE_MAX_JOBS);
}

bool cmd_jobs_fold_thread(unsigned jobs)
{
	return jobs > 1 || (jobs == 0 && sysconf(_SC_NPROCESSORS_ONLN) > 1);
}

bool cmd_symopts_given(const struct cmd_symopts *o)
{
	return o->symfs || o->buildid_dir || o->archive || o->kallsyms ||
	       o->vmlinux || o->nr_search_paths ||
	       o->jit_dir || o->no_demangle || o->host_files ||
	       o->host_kernel || o->debuginfod || o->debuginfod_max ||
	       o->debuginfod_ms;
}

/*
 * libdebuginfod waits up to DEBUGINFOD_TIMEOUT seconds (90 by default)
 * for a server that sends nothing, and newer versions call the progress
 * callback that enforces the run's time limit only once a server sends a
 * file: a limit on each request's wait and time (DEBUGINFOD_MAXTIME) no
 * longer than the run's, unless the user set one.
 */
static void limit_requests(uint64_t max_ms)
{
	char secs[32];

	snprintf(secs, sizeof(secs), "%llu",
		 (unsigned long long)((max_ms + 999) / 1000));
	if (!getenv("DEBUGINFOD_TIMEOUT") && max_ms < 90000)
		setenv("DEBUGINFOD_TIMEOUT", secs, 0);
	setenv("DEBUGINFOD_MAXTIME", secs, 0);
}

/* opts.fetch_progress: a line on a terminal while a query lasts more
 * than a second, gone when it ends. */
static void fetch_progress(void *arg, const struct pda_fetch_progress *p)
{
	struct pd_ctx *ctx = arg;

	if (!isatty(STDERR_FILENO))
		return;
	if (p->finished) {
		if (ctx->fetch.shown)
			fprintf(stderr, "\r\033[K");
		ctx->fetch.shown = false;
		return;
	}
	if (p->ms < 1000)
		return;
	ctx->fetch.shown = true;
	if (p->total)
		fprintf(stderr,
			"\rpdtool %s: debuginfod: %s of '%s': %" PRIu64
			" of %" PRIu64 " KB, %" PRIu64 " s\033[K",
			ctx->cmd, p->what, p->dso, p->done >> 10,
			p->total >> 10, p->ms / 1000);
	else
		fprintf(stderr,
			"\rpdtool %s: debuginfod: %s of '%s': waiting, %" PRIu64
			" s\033[K",
			ctx->cmd, p->what, p->dso, p->ms / 1000);
	fflush(stderr);
}

/*
 * The build-id cache: --buildid-dir's, or the tree of the perf archive
 * tarball --archive names, or --buildid-dir does (a file, where a cache
 * is a directory): a user who moved the tarball need not extract it.
 */
static const char *buildid_dir(struct pd_ctx *ctx,
			       const struct cmd_symopts *o)
{
	struct stat sb;

	if (o->archive && o->buildid_dir)
		usage_error(ctx, "--archive and --buildid-dir both name the "
				 "build-id cache: give one");
	if (o->archive)
		return cmd_archive_dir(ctx, o->archive, "--archive");
	if (o->buildid_dir && stat(o->buildid_dir, &sb) == 0 &&
	    !S_ISDIR(sb.st_mode))
		return cmd_archive_dir(ctx, o->buildid_dir, "--buildid-dir");
	return o->buildid_dir;
}

void cmd_pda_opts(struct pd_ctx *ctx, const struct cmd_symopts *o,
		  struct pda_opts *po)
{
	struct cmd_fetch *f = &ctx->fetch;
	const char *urls;

	po->symfs = o->symfs;
	po->buildid_dir = buildid_dir(ctx, o);
	po->kallsyms = o->kallsyms;
	po->vmlinux = o->vmlinux;
	po->jit_dir = o->jit_dir;
	po->search_paths = o->search_paths;
	po->nr_search_paths = o->nr_search_paths;
	po->no_demangle = o->no_demangle;
	po->host_files = o->host_files;
	/* a user who names the recording host's files (a sysroot, its
	 * kallsyms or vmlinux) is not on that host; the library also
	 * refuses a capture of another host (its HOSTNAME) unless asked */
	po->use_host_kernel = o->host_kernel > 0 ||
			      (!o->host_kernel && !o->symfs && !o->kallsyms &&
			       !o->vmlinux);
	po->host_kernel_any_host = o->host_kernel > 0;
	/* a bundle's tree for what the user did not name */
	cmd_bundle_opts(ctx, o, po);
	/* debuginfod: the run's limits, less what its sessions used */
	f->max_queries = o->debuginfod_max ? o->debuginfod_max
					   : PDA_DEBUGINFOD_MAX_QUERIES;
	f->max_ms = o->debuginfod_ms ? o->debuginfod_ms
				     : PDA_DEBUGINFOD_MAX_MS;
	urls = getenv("DEBUGINFOD_URLS");
	if (o->debuginfod > 0 && (!urls || !*urls) && !f->warned) {
		f->warned = true;
		warning(ctx, "--debuginfod: DEBUGINFOD_URLS is not set: no "
			     "server to ask");
	}
	po->no_debuginfod = o->debuginfod < 0;
	po->debuginfod = o->debuginfod > 0;
	if (f->nr_queries >= f->max_queries || f->ms >= f->max_ms) {
		/* used up by an earlier session: none asked from now */
		po->no_debuginfod = true;
	} else {
		po->debuginfod_max_queries = f->max_queries - f->nr_queries;
		po->debuginfod_max_ms = (unsigned)(f->max_ms - f->ms);
	}
	if (!po->no_debuginfod && urls && *urls &&
	    (!o->symfs || po->debuginfod))
		limit_requests(f->max_ms);
	po->fetch_progress = fetch_progress;
	po->fetch_arg = ctx;
	po->log = ctx_log;
	po->log_arg = ctx;
	po->log_level = ctx->verbose >= 2   ? PD_LOG_DEBUG
			: ctx->verbose == 1 ? PD_LOG_INFO
					    : PD_LOG_WARN;
}

/* bytes as "12 KB", "3.4 MB" */
static void print_size(uint64_t bytes)
{
	if (bytes < (1u << 20))
		fprintf(stderr, "%" PRIu64 " KB", (bytes + 1023) >> 10);
	else
		fprintf(stderr, "%.1f MB", (double)bytes / (1 << 20));
}

void cmd_fetch_add(struct pd_ctx *ctx, const struct pda_fetch_stats *st)
{
	struct cmd_fetch *f = &ctx->fetch;

	f->nr_queries += st->nr_queries;
	f->nr_found += st->nr_found;
	f->nr_failed += st->nr_failed;
	f->nr_stopped += st->nr_stopped;
	f->nr_skipped += st->nr_skipped;
	f->query_limit |= st->query_limit;
	f->time_limit |= st->time_limit;
	f->bytes += st->bytes;
	f->ms += st->ms;
	if (st->urls && !f->urls[0])
		snprintf(f->urls, sizeof(f->urls), "%s", st->urls);
	if (st->cache && !f->cache[0])
		snprintf(f->cache, sizeof(f->cache), "%s", st->cache);
	for (size_t i = 0; ctx->verbose && i < st->nr_fetched; i++) {
		const struct pda_fetched *e = &st->fetched[i];

		fprintf(stderr, "pdtool %s: debuginfod: %s of '%s' (", ctx->cmd,
			e->what, e->dso);
		print_size(e->size);
		fprintf(stderr, "): %s\n", e->path);
	}
}

void cmd_fetch_summary(struct pd_ctx *ctx)
{
	const struct cmd_fetch *f = &ctx->fetch;

	if (!f->nr_queries && !f->nr_skipped)
		return;
	fprintf(stderr,
		"pdtool %s: debuginfod (%s): %u quer%s in %.1f s, %u file%s "
		"fetched (",
		ctx->cmd, f->urls[0] ? f->urls : "?", f->nr_queries,
		f->nr_queries == 1 ? "y" : "ies", (double)f->ms / 1000,
		f->nr_found, f->nr_found == 1 ? "" : "s");
	print_size(f->bytes);
	fprintf(stderr, ")");
	if (f->nr_found && f->cache[0])
		fprintf(stderr, " into %s", f->cache);
	fprintf(stderr, ", %u not found", f->nr_failed);
	if (f->nr_stopped)
		fprintf(stderr, ", %u stopped at the time limit",
			f->nr_stopped);
	if (f->nr_skipped || f->time_limit || f->query_limit)
		fprintf(stderr, "; %u not asked: %s reached", f->nr_skipped,
			f->time_limit ? "--debuginfod-time" : "--debuginfod-max");
	fputc('\n', stderr);
}

#define BLOCK_LINES 5	/* binaries listed without -v */
#define BLOCK_TRIED 3	/* paths shown per binary without -v */

void cmd_unresolved_block(struct pd_ctx *ctx, const struct pda_stats *ps,
			  uint64_t nr_samples, const char *label)
{
	const size_t nr = ps ? ps->nr_unresolved_dsos : 0;

	if (!nr || !nr_samples)
		return;
	eprintf("pdtool %s: %s%sunresolved frames by binary, as a share of "
		"%" PRIu64 " samples:\n",
		ctx->cmd, label ? label : "", label ? ": " : "", nr_samples);
	for (size_t i = 0; i < nr; i++) {
		const struct pda_missing_dso *m = &ps->unresolved_dsos[i];

		if (i == BLOCK_LINES && !ctx->verbose) {
			eprintf("pdtool %s:   and %zu more (-v)\n", ctx->cmd,
				nr - i);
			break;
		}
		eprintf("pdtool %s: %6.1f%% %s: %s", ctx->cmd,
			100.0 * (double)m->nr_unresolved / (double)nr_samples,
			m->dso, pda_unres_reason_name(m->reason));
		if (m->detail)
			eprintf(" (%s)", m->detail);
		else if (m->reason == PDA_UNRES_NOT_FOUND ||
			 m->reason == PDA_UNRES_BUILD_ID) {
			size_t j;

			if (strcmp(m->why, "not found") != 0 &&
			    strcmp(m->why, "build-id mismatch") != 0)
				eprintf(": %s", m->why);
			for (j = 0; m->tried[j]; j++) {
				if (j == BLOCK_TRIED && !ctx->verbose)
					break;
				eprintf("%s%s", j ? ", " : " (tried ",
					m->tried[j]);
			}
			if (m->tried[j])
				eprintf(", ...");
			if (j)
				eprintf(")");
		}
		eprintf("; %s\n", m->action);
	}
}

void cmd_capture_die(const struct pd_ctx *ctx, const char *path,
		     const struct pda_capture *c, int rc)
{
	const enum pda_capture_stage where = pda_capture_failed_in(c);

	if (where == PDA_CAPTURE_CALLBACK ||
	    (where == PDA_CAPTURE_SESSION && rc == PD_ERR_NOMEM))
		die(ctx, "%s", pda_capture_errmsg(c));
	die(ctx, "'%s': %s", path, pda_capture_errmsg(c));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cmd_progress_init(struct cmd_progress *p, struct pd_ctx *ctx)
{
	p->ctx = ctx;
	p->on = isatty(STDERR_FILENO);
	p->shown = false;
	p->start = p->last = now();
}

void cmd_progress_show(struct cmd_progress *p, uint64_t done, uint64_t total,
		       uint64_t samples)
{
	const struct pd_ctx *ctx = p->ctx;
	double t;

	if (!p->on)
		return;
	t = now();
	if (t - p->start < 1.0 || t - p->last < 0.25)
		return;
	p->last = t;
	p->shown = true;
	if (total)
		fprintf(stderr,
			"\rpdtool %s: %3.0f%%, %" PRIu64 " of %" PRIu64
			" MB, %" PRIu64 " samples",
			ctx->cmd, 100.0 * (double)done / (double)total,
			done >> 20, total >> 20, samples);
	else
		fprintf(stderr,
			"\rpdtool %s: %" PRIu64 " MB, %" PRIu64 " samples",
			ctx->cmd, done >> 20, samples);
	fflush(stderr);
}

int cmd_progress_fn(void *arg, const struct pda_capture_progress *prog)
{
	struct cmd_progress *p = arg;
	double t, part, spent;

	if (!p->on)
		return 0;
	if (!prog->total || prog->nr_passes < 2) {
		cmd_progress_show(p, prog->done, prog->total,
				  prog->nr_samples);
		return 0;
	}
	t = now();
	if (t - p->start < 1.0 || t - p->last < 0.25)
		return 0;
	p->last = t;
	p->shown = true;
	/* each pass reads the whole data section */
	part = ((double)(prog->pass - 1) +
		(double)prog->done / (double)prog->total) /
	       (double)prog->nr_passes;
	spent = t - p->start;
	/* the pass's own bytes and samples: a user watching the second
	 * pass of a 10 GB capture wants to see where it is in the file */
	fprintf(stderr, "\rpdtool %s: %3.0f%%, pass %u of %u (%s): %" PRIu64
			" of %" PRIu64 " MB, %" PRIu64 " samples",
		p->ctx->cmd, 100.0 * part, prog->pass, prog->nr_passes,
		prog->what, prog->done >> 20, prog->total >> 20,
		prog->nr_samples);
	if (part > 0.02)
		fprintf(stderr, ", %.0f s left\033[K",
			spent / part - spent + 0.5);
	fflush(stderr);
	return 0;
}

void cmd_progress_end(struct cmd_progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
}

int cmd_parallel_level(struct pda_capture *c, struct pda_parallel *par,
		       const struct pda_pipe_when *when, unsigned *level)
{
	const struct pda_parallel_stats *st = pda_parallel_stats(par);

	if (st->nr_cpu_wide && !st->pid_only)
		return pda_capture_set_err(
			c, PD_ERR_UNSUPPORTED,
			"a system-wide capture (CPU-wide switch records, perf "
			"record -a or -C): its parallelism is every task's on "
			"the host, not a workload's, which says nothing of its "
			"latency; choose one process (report: --pid PID; fold "
			"and flame: --pid-filter PID; diff: --comms NAME) for "
			"its threads' "
			"parallelism, or record the workload alone (perf "
			"record --switch-events -- CMD)");
	if (!when)
		return PD_ERR_API; /* two passes: the caller checked */
	return pda_parallel_at(par, when, level);
}

/* How many samples have a data type, and why the others have none, as
 * perf annotate --type-stat counts them. */
void cmd_type_coverage(struct pd_ctx *ctx, const struct pda_datatype *dt)
{
	const uint64_t *n = pda_datatype_coverage(dt, NULL);
	uint64_t total = 0;

	for (unsigned w = 0; w < PDA_DATATYPE_NR_WHY; w++)
		total += n[w];
	eprintf("pdtool %s: data types: %" PRIu64 " of %" PRIu64
		" sample%s attributed",
		ctx->cmd, n[PDA_DATATYPE_FOUND], total, PLURAL(total));
	for (unsigned w = 1; w < PDA_DATATYPE_NR_WHY; w++)
		if (n[w])
			eprintf("; %" PRIu64 " %s", n[w],
				pda_datatype_why_str((enum pda_datatype_why)w));
	fputc('\n', stderr);
}

void cmd_pipe_prologue(struct pd_ctx *ctx, const char *path,
		       struct pd_file *f)
{
	struct pd_reader *r;
	struct pd_rec rec;
	int rc;

	if (pd_file_header(f)->kind != PD_KIND_PIPE)
		return;
	/* quiet: the run's own reading says what is damaged */
	rc = pd_reader_new(f, PD_READ_QUIET, &r);
	if (rc < 0)
		die(ctx, "'%s': %s", path, pd_file_errmsg(f));
	while ((rc = pd_reader_next(r, &rec)) > 0 && rec.type != PD_REC_SAMPLE)
		;
	pd_reader_free(r);
	if (rc == PD_ERR_NOMEM)
		die(ctx, "out of memory");
}

size_t cmd_comm_pids(struct pd_ctx *ctx, const char *path, struct pd_file *f,
		     const char *const *comms, uint32_t *pids, size_t max)
{
	struct pd_reader *r;
	struct pd_rec rec;
	struct pd_event ev;
	size_t nr = 0;
	int rc;

	/* quiet: the run's own reading says what is damaged */
	rc = pd_reader_new(f, PD_READ_QUIET, &r);
	if (rc < 0)
		die(ctx, "'%s': %s", path, pd_file_errmsg(f));
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		if (rec.type != PD_REC_COMM || pd_event_decode(f, &rec, &ev) < 0)
			continue;
		for (const char *const *c = comms; *c; c++)
			if (strlen(*c) == ev.comm.comm.len &&
			    memcmp(*c, ev.comm.comm.ptr, ev.comm.comm.len) == 0 &&
			    !cmd_in_ids(pids, nr, ev.comm.pid) &&
			    nr < max)
				pids[nr++] = ev.comm.pid;
	}
	pd_reader_free(r);
	if (rc == PD_ERR_NOMEM)
		die(ctx, "out of memory");
	return nr;
}

/* Exit unless f has switch records, which what is computed from, saying
 * how to record them. */
static void need_switches(struct pd_ctx *ctx, const char *path,
			  struct pd_file *f, const char *what)
{
	cmd_pipe_prologue(ctx, path, f);
	if (!pda_parallel_recorded(f))
		die(ctx, "'%s': no context-switch records, which %s computed "
		    "from: record with 'perf record --switch-events'%s", path,
		    what, strcmp(what, "off-CPU time is")
			  ? " or 'perf record --latency' (perf >= 6.15)"
			  : "");
}

struct pda_parallel *cmd_parallel_new(struct pd_ctx *ctx, const char *path,
				      struct pd_file *f, const uint32_t *pids,
				      size_t nr_pids)
{
	struct pda_parallel *par;

	need_switches(ctx, path, f, "latency and parallelism are");
	if (pda_parallel_new(f, NULL, &par) < 0)
		die(ctx, "out of memory");
	/* on a system-wide capture, that process's own parallelism */
	if (nr_pids == 1 && pda_parallel_set_pid(par, pids[0]) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_API));
	return par;
}

void cmd_parallel_two_pass(struct pd_ctx *ctx, const char *path,
			   const struct pda_capture *c)
{
	if (!pda_capture_two_pass(c))
		die(ctx, "'%s': latency, parallelism and off-CPU time need a "
		    "capture read twice (the switch records in time order "
		    "first): not a pipe", path);
}

struct pda_offcpu *cmd_offcpu_new(struct pd_ctx *ctx, const char *path,
				  struct pd_file *f)
{
	struct pda_offcpu *oc;
	char err[256] = "";
	int rc;

	if (pda_offcpu_new(NULL, &oc) < 0)
		die(ctx, "out of memory");
	cmd_pipe_prologue(ctx, path, f);
	rc = pda_offcpu_tracepoints(oc, f, err, sizeof(err));
	if (rc == PD_ERR_FORMAT)
		die(ctx, "'%s': %s", path, err);
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	/* sched:sched_switch samples are switches of their own */
	if (rc == 0)
		need_switches(ctx, path, f, "off-CPU time is");
	return oc;
}

void cmd_offcpu_warn(struct pd_ctx *ctx, const char *path,
		     const struct pda_offcpu *oc)
{
	const struct pda_offcpu_stats *st = pda_offcpu_stats(oc);

	if (st->nr_bad_tp)
		warning(ctx, "'%s': %" PRIu64 " sched_switch sample%s without "
			     "the fields its format names: left out",
			path, st->nr_bad_tp, PLURAL(st->nr_bad_tp));
	/* a thread's last switch-out (its exit) has none: only more */
	if (st->nr_unpaired > st->nr_spans && st->nr_unpaired > 1)
		warning(ctx, "'%s': %" PRIu64 " of %" PRIu64 " switch-outs "
			     "have no switch-in after them, their waits not "
			     "counted: record with --switch-events too, or "
			     "system-wide (-a)",
			path, st->nr_unpaired, st->nr_out);
}

int cmd_switch_note(struct pda_parallel *par, struct pda_offcpu *oc,
		    struct pd_file *f, const struct pd_rec *rec,
		    const struct pda_pipe_when *when)
{
	int rc = 0;

	if (par)
		rc = pda_parallel_note(par, rec, when);
	if (rc == 0 && oc)
		rc = pda_offcpu_note(oc, f, rec, when);
	return rc;
}

bool cmd_u32_wanted(const uint32_t *list, size_t nr, uint32_t v)
{
	if (!nr)
		return true;
	for (size_t i = 0; i < nr; i++)
		if (list[i] == v)
			return true;
	return false;
}

int cmd_latency_sample(struct pda_capture *c, struct pda_parallel *par,
		       const struct pda_pipe_item *it, struct pd_sample *copy)
{
	unsigned level;
	const int rc = cmd_parallel_level(c, par, it->when, &level);

	if (rc < 0)
		return rc;
	*copy = *it->sample;
	copy->period = pda_parallel_latency(it->sample->period, level);
	return 0;
}

void cmd_capture_skip_warn(struct pd_ctx *ctx, const struct pda_capture *c,
			   const char *path, enum pda_capture_skip what,
			   const char *why)
{
	const struct pda_capture_stats *cs = pda_capture_stats(c);
	const uint64_t before = what == PDA_CAPTURE_BAD_SAMPLE ? cs->nr_bad_samples
				: what == PDA_CAPTURE_UNKNOWN_ID ? cs->nr_unknown_id
								 : cs->nr_stack_errors;

	if (!before)
		warning(ctx, "'%s': %s", path, why);
}

void cmd_stack_opt(const struct pd_ctx *ctx, int c, const char *arg,
		   struct cmd_symopts *sym, const char **unwinder,
		   unsigned *jobs)
{
	switch (c) {
	case CMD_OPT_UNWINDER:
		*unwinder = cmd_unwinder(ctx, arg);
		break;
	case 'j':
	case CMD_OPT_JOBS:
		*jobs = cmd_jobs(ctx, arg);
		break;
	default:
		cmd_symopt(ctx, sym, c, arg);
		break;
	}
}

int cmd_strict_status(const struct pd_ctx *ctx,
		      const struct pda_capture_stats *cs,
		      const struct pda_stats *ps)
{
	if (ctx->strict && (cs->lost || cs->nr_bad_samples ||
			    cs->nr_stack_errors || cs->reader.damaged ||
			    (ps && (ps->nr_missing || ps->nr_samples_unresolved)) ||
			    ctx->nr_warnings))
		return EXIT_UNRESOLVED;
	return 0;
}

void cmd_itrace(const struct pd_ctx *ctx, int c, const char *arg,
		struct pda_itrace_opts *o)
{
	char err[160];

	if (c == CMD_OPT_SPE_EVENTS) {
		if (pda_itrace_set_events(arg, o, err, sizeof(err)) < 0)
			usage_error(ctx, "%s", err);
		return;
	}
	if (!arg || !*arg) {
		/* perf's default set (--spe-events says whose) */
		const bool perf7 = o->perf7;

		memset(o, 0, sizeof(*o));
		o->perf7 = perf7;
		return;
	}
	if (pda_itrace_parse(arg, o, err, sizeof(err)) < 0)
		usage_error(ctx, "%s", err);
}
