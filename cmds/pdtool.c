/*
 * pdtool.c - main(): the command table, dispatch, help, and the checks on
 * stdout after a command returns.
 */
#include "pdtool.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmd_help(int argc, char **argv, struct pd_ctx *ctx);

static const char help_usage[] = "pdtool help [COMMAND]";
static const char help_summary[] = "show help for pdtool or a command";
static const char help_options[] = "";

/* C1: sorted by name */
static const struct cmd_entry cmds[] = {
	{ "annotate", cmd_annotate, CMD_NEEDS_INPUT, cmd_annotate_usage,
	  cmd_annotate_summary, cmd_annotate_options },
	{ "archive", cmd_archive, CMD_NEEDS_INPUT, cmd_archive_usage,
	  cmd_archive_summary, cmd_archive_options },
	{ "branches", cmd_branches, CMD_NEEDS_INPUT, cmd_branches_usage,
	  cmd_branches_summary, cmd_branches_options },
	{ "diff", cmd_diff, CMD_NEEDS_INPUT, cmd_diff_usage, cmd_diff_summary,
	  cmd_diff_options },
	{ "dump", cmd_dump, CMD_NEEDS_INPUT, cmd_dump_usage, cmd_dump_summary,
	  cmd_dump_options },
	{ "export", cmd_export, CMD_NEEDS_INPUT, cmd_export_usage,
	  cmd_export_summary, cmd_export_options },
	{ "flame", cmd_flame, CMD_NEEDS_INPUT, cmd_flame_usage,
	  cmd_flame_summary, cmd_flame_options },
	{ "fold", cmd_fold, CMD_NEEDS_INPUT, cmd_fold_usage, cmd_fold_summary,
	  cmd_fold_options },
	{ "help", cmd_help, 0, help_usage, help_summary, help_options },
	{ "info", cmd_info, CMD_NEEDS_INPUT, cmd_info_usage, cmd_info_summary,
	  cmd_info_options },
	{ "mem", cmd_mem, CMD_NEEDS_INPUT, cmd_mem_usage, cmd_mem_summary,
	  cmd_mem_options },
	{ "record", cmd_record, CMD_OPERAND_ENDS, cmd_record_usage,
	  cmd_record_summary, cmd_record_options },
	{ "report", cmd_report, CMD_NEEDS_INPUT, cmd_report_usage,
	  cmd_report_summary, cmd_report_options },
	{ "script", cmd_script, CMD_NEEDS_INPUT, cmd_script_usage,
	  cmd_script_summary, cmd_script_options },
	{ "stat", cmd_stat, CMD_NEEDS_INPUT, cmd_stat_usage, cmd_stat_summary,
	  cmd_stat_options },
	{ "timeline", cmd_timeline, CMD_NEEDS_INPUT, cmd_timeline_usage,
	  cmd_timeline_summary, cmd_timeline_options },
	{ "types", cmd_types, CMD_NEEDS_INPUT, cmd_types_usage,
	  cmd_types_summary, cmd_types_options },
};
#define NR_CMDS (sizeof(cmds) / sizeof(cmds[0]))

static const struct cmd_entry *find_cmd(const char *name)
{
	for (size_t i = 0; i < NR_CMDS; i++)
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	return NULL;
}

/*
 * fmt's output on stderr through pde_text_str(): a message quotes names
 * from captures and binaries (comms, paths, symbols), and none of their
 * bytes may reach the terminal as an escape or start a line of its own.
 * A newline that ends fmt is ours, and written as one.
 */
static void veprintf(const char *fmt, va_list ap)
{
	char small[512], *buf = small;
	const size_t fmt_len = strlen(fmt);
	const bool nl = fmt_len && fmt[fmt_len - 1] == '\n';
	va_list aq;
	size_t len;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	len = (size_t)n;
	if (len >= sizeof(small)) {
		buf = malloc(len + 1);
		if (buf)
			vsnprintf(buf, len + 1, fmt, ap);
		else
			buf = small, len = sizeof(small) - 1; /* cut short */
	}
	if (nl && len && buf[len - 1] == '\n')
		len--;
	pde_text_str(stderr, buf, len);
	if (nl)
		fputc('\n', stderr);
	if (buf != small)
		free(buf);
}

void eprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	veprintf(fmt, ap);
	va_end(ap);
}

static void vreport(const struct pd_ctx *ctx, const char *prefix,
		    const char *fmt, va_list ap)
{
	fflush(stdout);
	if (ctx && ctx->cmd)
		fprintf(stderr, "pdtool %s: %s", ctx->cmd, prefix);
	else
		fprintf(stderr, "pdtool: %s", prefix);
	veprintf(fmt, ap);
	fputc('\n', stderr);
}

/* Before an exit on error: a half-written -o goes (what was at its path
 * stays), so does an extracted archive, and the pager shows what was
 * written. */
static void drop_outputs(const struct pd_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nr_outputs; i++)
		if (ctx->outputs[i].tmp)
			unlink(ctx->outputs[i].tmp);
	cmd_archive_cleanup(ctx);
	ctx_end_pager(ctx);
}

void die(const struct pd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(ctx, "", fmt, ap);
	va_end(ap);
	drop_outputs(ctx);
	exit(EXIT_FATAL);
}

int error(const struct pd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(ctx, "", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(struct pd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(ctx, "warning: ", fmt, ap);
	va_end(ap);
	ctx->nr_warnings++;
}

void usage_error(const struct pd_ctx *ctx, const char *fmt, ...)
{
	const struct cmd_entry *c = ctx->cmd ? find_cmd(ctx->cmd) : NULL;
	va_list ap;

	va_start(ap, fmt);
	vreport(ctx, "", fmt, ap);
	va_end(ap);
	if (c)
		fprintf(stderr, "usage: %s\n", c->usage);
	drop_outputs(ctx);
	exit(EXIT_USAGE);
}

void ctx_log(void *arg, enum pd_log_level level, const char *msg)
{
	struct pd_ctx *ctx = arg;

	if (level == PD_LOG_WARN)
		warning(ctx, "%s", msg);
	else
		eprintf("pdtool %s: %s\n", ctx->cmd, msg);
}

/*
 * SIGBUS: the reader maps captures (flat memory on any size), and a
 * page past the end of a file that shrank after it was mapped (another
 * program truncating or rewriting it, a network filesystem) faults.
 * Nothing can be read any more; the handler writes a message made
 * beforehand, naming the capture, and exits.  A handler can reach only
 * static data: this is pdtool's one piece of process-wide state.
 */
static char sigbus_msg[1024];
static size_t sigbus_len;

static void on_sigbus(int sig)
{
	ssize_t n = write(STDERR_FILENO, sigbus_msg, sigbus_len);

	(void)sig;
	(void)n;
	_exit(EXIT_FATAL);
}

/* Name path in the message SIGBUS gives, and catch it. */
static void sigbus_arm(const struct pd_ctx *ctx, const char *path)
{
	struct sigaction sa;
	int n = snprintf(sigbus_msg, sizeof(sigbus_msg),
			 "pdtool %s: '%s': a file being read shrank (another "
			 "program truncated or rewrote it while pdtool read "
			 "it); stopped, no output is complete\n",
			 ctx->cmd, path);

	sigbus_len = n < 0 ? 0
		     : (size_t)n < sizeof(sigbus_msg) ? (size_t)n
						       : sizeof(sigbus_msg) - 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

static struct pd_file *open_capture(struct pd_ctx *ctx, const char *path,
				     bool twice)
{
	char err[512] = "";
	PD_OPTS(opts, .log = ctx_log, .log_arg = ctx,
		.log_level = ctx->verbose >= 2	 ? PD_LOG_DEBUG
			     : ctx->verbose == 1 ? PD_LOG_INFO
						 : PD_LOG_WARN,
		.errbuf = err, .errbuf_size = sizeof(err));
	struct pd_file *f;
	int rc;

	sigbus_arm(ctx, path);
	ctx_note_input(ctx, path);
	rc = cmd_input_open(ctx, path, twice, &opts, &f);
	if (rc < 0) {
		/* the library's message names the path when it is about
		 * opening; otherwise name it here */
		if (strstr(err, path))
			die(ctx, "%s", err);
		die(ctx, "'%s': %s", path, err[0] ? err : pd_strerror(rc));
	}
	return f;
}

struct pd_file *ctx_open(struct pd_ctx *ctx, const char *path)
{
	return open_capture(ctx, path, false);
}

struct pd_file *ctx_open_twice(struct pd_ctx *ctx, const char *path)
{
	return open_capture(ctx, path, true);
}

void ctx_note_input(struct pd_ctx *ctx, const char *path)
{
	struct stat sb;

	if (strcmp(path, "-") == 0 || stat(path, &sb) < 0 ||
	    ctx->nr_inputs == CTX_MAX_INPUTS)
		return;
	ctx->inputs[ctx->nr_inputs].dev = sb.st_dev;
	ctx->inputs[ctx->nr_inputs].ino = sb.st_ino;
	ctx->nr_inputs++;
}

/* Die when path is one of the inputs.  @return whether path exists, its
 * stat in *sb. */
static bool check_not_input(const struct pd_ctx *ctx, const char *path,
			    struct stat *sb)
{
	if (stat(path, sb) < 0)
		return false;
	for (size_t i = 0; i < ctx->nr_inputs; i++)
		if (ctx->inputs[i].dev == sb->st_dev &&
		    ctx->inputs[i].ino == sb->st_ino)
			die(ctx,
			    "'%s' is an input too: writing it would destroy "
			    "it; give -o another file",
			    path);
	return true;
}

/* A temporary file beside path, mode as path's (or as fopen would make
 * it); NULL and *tmp NULL when none can be made there. */
static FILE *open_beside(const char *path, const struct stat *old,
			 char **tmp)
{
	const char *slash = strrchr(path, '/');
	const size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	const size_t n = strlen(path) + 16;
	mode_t mask;
	FILE *fp;
	int fd;

	*tmp = malloc(n);
	if (!*tmp)
		return NULL;
	snprintf(*tmp, n, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, old ? old->st_mode & 07777 : 0666 & ~mask) < 0 ||
	    !(fp = fdopen(fd, "w"))) {
		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	return fp;
}

FILE *ctx_open_output(struct pd_ctx *ctx, const char *path)
{
	struct ctx_output *o;
	struct stat sb;
	bool exists;

	if (!path || strcmp(path, "-") == 0)
		return ctx->out;
	if (ctx->nr_outputs == CTX_MAX_OUTPUTS)
		die(ctx, "too many outputs");
	exists = check_not_input(ctx, path, &sb);
	o = &ctx->outputs[ctx->nr_outputs];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!o->path)
		die(ctx, "out of memory");
	/* a FIFO or a device is written as it is, not replaced */
	if (!exists || S_ISREG(sb.st_mode))
		o->fp = open_beside(path, exists ? &sb : NULL, &o->tmp);
	if (!o->fp)
		o->fp = fopen(path, "w");
	if (!o->fp)
		die(ctx, "cannot open '%s': %s", path, strerror(errno));
	ctx->nr_outputs++;
	return o->fp;
}

void ctx_close_output(struct pd_ctx *ctx, FILE *out, const char *path)
{
	struct ctx_output *o = NULL;
	struct stat sb;

	if (out == ctx->out)
		return;
	for (size_t i = 0; i < ctx->nr_outputs; i++)
		if (ctx->outputs[i].fp == out)
			o = &ctx->outputs[i];
	if (ferror(out) | fclose(out))
		die(ctx, "cannot write '%s': %s", path, strerror(errno));
	if (!o)
		return;
	o->fp = NULL;
	if (o->tmp) {
		/* an input opened after the output was: checked here too */
		check_not_input(ctx, o->path, &sb);
		if (rename(o->tmp, o->path) < 0)
			die(ctx, "cannot write '%s': %s", o->path,
			    strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
	}
	free(o->path);
	*o = ctx->outputs[--ctx->nr_outputs];
}

void ctx_check_write(const struct pd_ctx *ctx, int rc, const char *path)
{
	if (rc >= 0)
		return;
	if (rc != PD_ERR_IO)
		die(ctx, "%s", pd_strerror(rc));
	/* E10: a closed pipe is not a failure */
	if (errno != EPIPE)
		die(ctx, "cannot write '%s': %s",
		    path && strcmp(path, "-") ? path : "stdout",
		    strerror(errno));
}

bool ctx_is_capture(const unsigned char *p, size_t n)
{
	static const unsigned char zstd[4] = {0x28, 0xb5, 0x2f, 0xfd};

	/* format.md §1 */
	if (n >= 8 &&
	    (memcmp(p, "PERFILE2", 8) == 0 || memcmp(p, "2ELIFREP", 8) == 0 ||
	     memcmp(p, "PERFFILE", 8) == 0))
		return true;
	return (n >= 4 && memcmp(p, zstd, 4) == 0) || cmd_input_packed(p, n);
}

const char *ctx_not_text(const unsigned char *p, size_t n)
{
	if (memchr(p, '\0', n))
		return "binary data, but not a perf.data capture (its first "
		       "bytes are not perf.data's magic: a damaged or "
		       "foreign file)";
	return NULL;
}

void ctx_check_folded_line(const struct pd_ctx *ctx, const char *path,
			   const char *line, size_t len, uint64_t lineno)
{
	if (!memchr(line, '\0', len))
		return;
	die(ctx, "'%s': %s", path,
	    lineno == 1 ? ctx_not_text((const unsigned char *)line, len)
			: "not folded stacks: a line holds a NUL byte");
}

static void print_cmd_help(const struct cmd_entry *c, FILE *out)
{
	fprintf(out, "usage: %s\n\n%s\n", c->usage, c->summary);
	if (c->options[0])
		fprintf(out, "\n%s", c->options);
}

int cmd_help_for(const struct pd_ctx *ctx, FILE *out)
{
	const struct cmd_entry *c = find_cmd(ctx->cmd);

	if (c)
		print_cmd_help(c, out);
	return 0;
}

static void print_main_help(FILE *out)
{
	fprintf(out,
		"usage: pdtool [--version] [--help] [--list-cmds] COMMAND "
		"[ARGS]\n\n"
		"Reads Linux perf.data captures.\n\ncommands:\n");
	for (size_t i = 0; i < NR_CMDS; i++)
		fprintf(out, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(out, "\n'pdtool help COMMAND' or 'pdtool COMMAND --help' "
		     "shows a command's options.\n");
}

static int cmd_help(int argc, char **argv, struct pd_ctx *ctx)
{
	const struct cmd_entry *c;

	if (argc < 2) {
		print_main_help(ctx->out);
		return 0;
	}
	c = find_cmd(argv[1]);
	if (!c)
		usage_error(ctx, "'%s' is not a pdtool command", argv[1]);
	print_cmd_help(c, ctx->out);
	return 0;
}

/* E10: a write error on stdout is a failure; a closed pipe is not. */
static int finish_stdout(void)
{
	if (fflush(stdout) != 0 && errno != EPIPE) {
		fprintf(stderr, "pdtool: cannot write output: %s\n",
			strerror(errno));
		return EXIT_FATAL;
	}
	if (ferror(stdout) && errno != EPIPE) {
		fprintf(stderr, "pdtool: cannot write output\n");
		return EXIT_FATAL;
	}
	if (fclose(stdout) != 0 && errno != EPIPE) {
		fprintf(stderr, "pdtool: cannot write output: %s\n",
			strerror(errno));
		return EXIT_FATAL;
	}
	return 0;
}

/*
 * glibc serves a block above its mmap threshold with a mapping of its
 * own, but raises the threshold (up to 32 MiB) each time such a block is
 * freed.  The tables that grow by doubling (the stack tree, the memo,
 * the profile) then come from the heap, each realloc leaving the old copy
 * behind as free heap the next thread's arena does not reuse: 15 MB more
 * anonymous memory for fold on the bench's captures, the same time.  A
 * fixed threshold keeps them in mappings realloc moves with mremap and
 * free gives back.  MALLOC_MMAP_THRESHOLD_, when set, is the user's.
 */
static void tune_malloc(void)
{
#ifdef M_MMAP_THRESHOLD
	if (!getenv("MALLOC_MMAP_THRESHOLD_"))
		mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

int main(int argc, char **argv)
{
	struct pd_ctx ctx = { .out = stdout };
	const struct cmd_entry *c;
	int rc, frc;

	tune_malloc();
	if (argc < 2) {
		print_main_help(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("pdtool %s\n", pd_version());
		return finish_stdout();
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_main_help(stdout);
		return finish_stdout();
	}
	if (strcmp(argv[1], "--list-cmds") == 0) {
		for (size_t i = 0; i < NR_CMDS; i++)
			printf("%s\n", cmds[i].name);
		return finish_stdout();
	}
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr,
			"pdtool: '%s' is not a pdtool command; see 'pdtool "
			"--help'\n",
			argv[1]);
		return EXIT_USAGE;
	}
	ctx.cmd = c->name;
	/* C3: CMD --help is help CMD (a command whose operand starts a
	 * command line finds its own --help among its options) */
	for (int i = 2; i < argc && !(c->flags & CMD_OPERAND_ENDS); i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			print_cmd_help(c, stdout);
			return finish_stdout();
		}
	}
	rc = c->fn(argc - 1, argv + 1, &ctx);
	cmd_archive_cleanup(&ctx);
	cmd_bundle_release(&ctx);
	free(ctx.archive_dir);
	free((void *)(uintptr_t)ctx.perf_archive);
	frc = finish_stdout();
	ctx_end_pager(&ctx);
	if (frc)
		return frc;
	return rc;
}
