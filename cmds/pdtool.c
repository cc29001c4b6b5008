/*
 * pdtool.c - main(): the command table, dispatch, help, and the checks on
 * stdout after a command returns.
 */
#include "pdtool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmd_help(int argc, char **argv, struct pd_ctx *ctx);

static const char help_usage[] = "pdtool help [COMMAND]";
static const char help_summary[] = "show help for pdtool or a command";
static const char help_options[] = "";

/* C1: sorted by name */
static const struct cmd_entry cmds[] = {
	{ "annotate", cmd_annotate, CMD_NEEDS_INPUT, cmd_annotate_usage,
	  cmd_annotate_summary, cmd_annotate_options },
	{ "diff", cmd_diff, CMD_NEEDS_INPUT, cmd_diff_usage, cmd_diff_summary,
	  cmd_diff_options },
	{ "dump", cmd_dump, CMD_NEEDS_INPUT, cmd_dump_usage, cmd_dump_summary,
	  cmd_dump_options },
	{ "flame", cmd_flame, CMD_NEEDS_INPUT, cmd_flame_usage,
	  cmd_flame_summary, cmd_flame_options },
	{ "fold", cmd_fold, CMD_NEEDS_INPUT, cmd_fold_usage, cmd_fold_summary,
	  cmd_fold_options },
	{ "help", cmd_help, 0, help_usage, help_summary, help_options },
	{ "info", cmd_info, CMD_NEEDS_INPUT, cmd_info_usage, cmd_info_summary,
	  cmd_info_options },
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

void die(const struct pd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(ctx, "", fmt, ap);
	va_end(ap);
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

struct pd_file *ctx_open(struct pd_ctx *ctx, const char *path)
{
	char err[512] = "";
	PD_OPTS(opts, .log = ctx_log, .log_arg = ctx,
		.log_level = ctx->verbose >= 2	 ? PD_LOG_DEBUG
			     : ctx->verbose == 1 ? PD_LOG_INFO
						 : PD_LOG_WARN,
		.errbuf = err, .errbuf_size = sizeof(err));
	struct pd_file *f;
	int rc;

	if (strcmp(path, "-") == 0) {
		opts.head = ctx->stdin_head;
		opts.head_len = ctx->stdin_head_len;
		rc = pd_file_open_fd(STDIN_FILENO, "<stdin>", &opts, &f);
	} else {
		rc = pd_file_open(path, &opts, &f);
	}
	if (rc < 0) {
		/* the library's message names the path when it is about
		 * opening; otherwise name it here */
		if (strstr(err, path))
			die(ctx, "%s", err);
		die(ctx, "'%s': %s", path, err[0] ? err : pd_strerror(rc));
	}
	return f;
}

FILE *ctx_open_output(const struct pd_ctx *ctx, const char *path)
{
	FILE *out;

	if (!path || strcmp(path, "-") == 0)
		return ctx->out;
	out = fopen(path, "w");
	if (!out)
		die(ctx, "cannot open '%s': %s", path, strerror(errno));
	return out;
}

void ctx_close_output(const struct pd_ctx *ctx, FILE *out, const char *path)
{
	if (out == ctx->out)
		return;
	if (ferror(out) | fclose(out))
		die(ctx, "cannot write '%s': %s", path, strerror(errno));
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
	return n >= 4 && memcmp(p, zstd, 4) == 0;
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

int main(int argc, char **argv)
{
	struct pd_ctx ctx = { .out = stdout };
	const struct cmd_entry *c;
	int rc, frc;

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
	/* C3: CMD --help is help CMD */
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			print_cmd_help(c, stdout);
			return finish_stdout();
		}
	}
	rc = c->fn(argc - 1, argv + 1, &ctx);
	frc = finish_stdout();
	if (frc)
		return frc;
	return rc;
}
