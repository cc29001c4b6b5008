/*
 * cmd_session.c - what the commands that read samples and resolve their
 * symbols share (fold, diff, annotate): the options that find binaries,
 * the library logger, and the progress line.
 */
#include "pdtool.h"
#include "pda_capture.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bool cmd_symopt(struct cmd_symopts *o, int c, const char *arg)
{
	switch (c) {
	case CMD_OPT_SYMFS:
		o->symfs = arg;
		return true;
	case CMD_OPT_BUILDID_DIR:
		o->buildid_dir = arg;
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
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*end || end == arg || errno || v == 0 || v > PDA_PIPE_MAX_JOBS)
		usage_error(ctx, "--jobs '%s': a count from 1 to %d", arg,
			    PDA_PIPE_MAX_JOBS);
	return (unsigned)v;
}

bool cmd_symopts_given(const struct cmd_symopts *o)
{
	return o->symfs || o->buildid_dir || o->kallsyms || o->vmlinux ||
	       o->jit_dir || o->no_demangle || o->host_files ||
	       o->host_kernel;
}

void cmd_pda_opts(struct pd_ctx *ctx, const struct cmd_symopts *o,
		  struct pda_opts *po)
{
	po->symfs = o->symfs;
	po->buildid_dir = o->buildid_dir;
	po->kallsyms = o->kallsyms;
	po->vmlinux = o->vmlinux;
	po->jit_dir = o->jit_dir;
	po->no_demangle = o->no_demangle;
	po->host_files = o->host_files;
	/* a user who names the recording host's files (a sysroot, its
	 * kallsyms or vmlinux) is not on that host; the library also
	 * refuses a capture of another host (its HOSTNAME) unless asked */
	po->use_host_kernel = o->host_kernel > 0 ||
			      (!o->host_kernel && !o->symfs && !o->kallsyms &&
			       !o->vmlinux);
	po->host_kernel_any_host = o->host_kernel > 0;
	po->log = ctx_log;
	po->log_arg = ctx;
	po->log_level = ctx->verbose >= 2   ? PD_LOG_DEBUG
			: ctx->verbose == 1 ? PD_LOG_INFO
					    : PD_LOG_WARN;
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
		fprintf(stderr, "\rpdtool %s: %3.0f%%, %" PRIu64 " samples",
			ctx->cmd, 100.0 * (double)done / (double)total,
			samples);
	else
		fprintf(stderr,
			"\rpdtool %s: %" PRIu64 " MB, %" PRIu64 " samples",
			ctx->cmd, done >> 20, samples);
	fflush(stderr);
}

int cmd_progress_fn(void *arg, uint64_t done, uint64_t total,
		    uint64_t samples)
{
	cmd_progress_show(arg, done, total, samples);
	return 0;
}

void cmd_progress_end(struct cmd_progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
}
