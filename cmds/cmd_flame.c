/*
 * cmd_flame.c - `pdtool flame`: a flame graph (interactive SVG) or a
 * speedscope profile of a capture or of folded stacks.
 *
 * The input's first bytes decide: perf.data's magic (or a zstd frame, or
 * a directory) is a capture, anything else folded text.  A capture is
 * folded by `pdtool fold --kernel` itself (cmd_fold(), in process, its
 * output into memory), so `pdtool flame FILE` draws exactly what
 * `pdtool fold --kernel FILE | pdtool flame -` draws; fold's options that
 * choose and name the samples are passed on.  Folded text is read in
 * chunks and split into lines here; the tree (analyze/profile/pda_flame.c) merges
 * them and the writers (emit/pde_flame.c, emit/pde_speedscope.c) draw it.
 */
#include "pdtool.h"
#include "pda_flame.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char cmd_flame_usage[] = "pdtool flame [-o OUT] [--format "
			       "svg|speedscope] [OPTIONS] {FILE | FOLDED}";
const char cmd_flame_summary[] =
	"draw a flame graph (SVG) or a speedscope profile";
const char cmd_flame_options[] =
	"  FILE                a perf.data capture, folded as\n"
	"                      'pdtool fold --kernel FILE' folds it\n"
	"  FOLDED              folded stacks, 'frame;...;frame COUNT' a\n"
	"                      line, root first (pdtool fold,\n"
	"                      stackcollapse-perf.pl, perf script report\n"
	"                      stackcollapse); '-' reads standard input\n"
	"  -o, --output OUT    write to OUT instead of standard output\n"
	"      --format FMT    svg (the default): an interactive flame\n"
	"                      graph; speedscope: speedscope's JSON format\n"
	"      --title TEXT    the SVG's title (default \"Flame Graph\",\n"
	"                      or \"Icicle Graph\" with --inverted)\n"
	"      --subtitle TEXT a second line under the title\n"
	"      --width PX      image width (default 1200)\n"
	"      --height PX     frame height (default 16)\n"
	"      --fontsize PX   font size (default 12)\n"
	"      --minwidth W    leave out frames narrower than W px, or W%\n"
	"                      of the samples with a % sign (default 0.1)\n"
	"      --colors NAME   palette: default (kernel _[k], JIT _[j],\n"
	"                      inlined _[i], [unknown] and user frames\n"
	"                      apart), hot, mem, io\n"
	"      --hash          colour by name, so a function keeps its\n"
	"                      colour (default: by position)\n"
	"      --inverted      an icicle graph: the root at the top\n"
	"      --reverse       reverse each stack before merging: the\n"
	"                      leaves become the roots\n"
	"      --countname NAME  what the counts are, in tooltips\n"
	"                      (default \"samples\"); no '(' in it\n"
	"      --strict        exit 1 when input lines were ignored, there\n"
	"                      were no stacks, or (a capture) as\n"
	"                      'pdtool fold --strict' does\n"
	"  -v, --verbose       more messages\n"
	"  -h, --help          show this help\n"
	"\n"
	"For a capture, these options of pdtool fold apply (see\n"
	"'pdtool fold --help'): --pid, --tid, --no-comm, --addrs,\n"
	"--srcline, --event, --weight, --comm, --pid-filter, --dso,\n"
	"--symbol, --time, --max-stack, --symfs, --buildid-dir,\n"
	"--kallsyms, --vmlinux, --jit-dir, --no-demangle, --inline,\n"
	"--no-inline, --unwinder, -j/--jobs.\n";

enum {
	OPT_FORMAT = 256,
	OPT_TITLE,
	OPT_SUBTITLE,
	OPT_WIDTH,
	OPT_HEIGHT,
	OPT_FONTSIZE,
	OPT_MINWIDTH,
	OPT_COLORS,
	OPT_HASH,
	OPT_INVERTED,
	OPT_REVERSE,
	OPT_COUNTNAME,
};

/* Lines longer than this are an error, not a reason to run out of
 * memory (O5). */
#define MAX_LINE (256u << 20)
#define CHUNK (64u * 1024)

struct flame_opts {
	const char *path;
	const char *output;
	bool speedscope;
	bool reverse;
	const char *min_width; /* as given */
	struct pde_flame_opts svg;
	/* pdtool fold's options as given, for a capture */
	char **fold_args;
	size_t nr_fold_args;
};

struct input_stats {
	uint64_t nr_lines;
	uint64_t nr_ignored;
	uint64_t first_ignored; /* line number */
};

/* What has been read of the input and not yet taken as lines. */
struct input {
	const char *path;
	int fd;
	char *buf;
	size_t cap, len;
	bool eof;
	bool dir; /* a directory: perf record --threads */
};

static unsigned parse_uint(const struct pd_ctx *ctx, const char *opt,
			   const char *arg, unsigned min, unsigned max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < min || v > max)
		usage_error(ctx,
			    "%s wants a whole number from %u to %u, not "
			    "'%s'",
			    opt, min, max, arg);
	return (unsigned)v;
}

static enum pde_flame_palette parse_palette(const struct pd_ctx *ctx,
					    const char *arg)
{
	for (unsigned p = 0; p < PDE_PALETTE_MAX; p++)
		if (strcmp(pde_flame_palette_name(p), arg) == 0)
			return p;
	usage_error(ctx, "unknown palette '%s' (default, hot, mem, io)", arg);
}

/* --minwidth: px, or a share of the samples with a '%' sign */
static double parse_min_width(const struct pd_ctx *ctx, const char *arg,
			      unsigned width)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || !isfinite(v) || v < 0 ||
	    (*end && strcmp(end, "%") != 0))
		usage_error(ctx,
			    "--minwidth wants px or a percentage, not '%s'",
			    arg);
	if (*end == '%')
		v = v / 100 * (width - 2 * PDE_FLAME_XPAD);
	return v;
}

static const struct option flame_options[] = {
	{"output", required_argument, NULL, 'o'},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"title", required_argument, NULL, OPT_TITLE},
	{"subtitle", required_argument, NULL, OPT_SUBTITLE},
	{"width", required_argument, NULL, OPT_WIDTH},
	{"height", required_argument, NULL, OPT_HEIGHT},
	{"fontsize", required_argument, NULL, OPT_FONTSIZE},
	{"minwidth", required_argument, NULL, OPT_MINWIDTH},
	{"colors", required_argument, NULL, OPT_COLORS},
	{"hash", no_argument, NULL, OPT_HASH},
	{"inverted", no_argument, NULL, OPT_INVERTED},
	{"reverse", no_argument, NULL, OPT_REVERSE},
	{"countname", required_argument, NULL, OPT_COUNTNAME},
	{NULL, 0, NULL, 0},
};

/* Keep a fold option for the capture's fold: "--name" or "--name=arg". */
static void keep_fold_option(const struct pd_ctx *ctx, struct flame_opts *o,
			     const struct option *opt, const char *arg)
{
	const size_t n = strlen(opt->name) + 4 + (arg ? strlen(arg) : 0);
	char *s = malloc(n);

	if (!s)
		die(ctx, "out of memory");
	snprintf(s, n, "--%s%s%s", opt->name, arg ? "=" : "", arg ? arg : "");
	o->fold_args[o->nr_fold_args++] = s;
}

static void handle_option(int c, const struct pd_ctx *ctx,
			  struct flame_opts *o)
{
	switch (c) {
	case 'o':
		o->output = optarg;
		break;
	case OPT_FORMAT:
		if (strcmp(optarg, "speedscope") == 0)
			o->speedscope = true;
		else if (strcmp(optarg, "svg") == 0)
			o->speedscope = false;
		else
			usage_error(ctx,
				    "unknown format '%s' (svg, speedscope)",
				    optarg);
		break;
	case OPT_TITLE:
		o->svg.title = optarg;
		break;
	case OPT_SUBTITLE:
		o->svg.subtitle = optarg;
		break;
	case OPT_WIDTH:
		o->svg.width = parse_uint(ctx, "--width", optarg, 100, 1000000);
		break;
	case OPT_HEIGHT:
		o->svg.frame_height =
			parse_uint(ctx, "--height", optarg, 4, 1000);
		break;
	case OPT_FONTSIZE:
		o->svg.font_size =
			parse_uint(ctx, "--fontsize", optarg, 1, 1000);
		break;
	case OPT_MINWIDTH:
		o->min_width = optarg;
		break;
	case OPT_COLORS:
		o->svg.palette = parse_palette(ctx, optarg);
		break;
	case OPT_HASH:
		o->svg.hash = true;
		break;
	case OPT_INVERTED:
		o->svg.inverted = true;
		break;
	case OPT_REVERSE:
		o->reverse = true;
		break;
	case OPT_COUNTNAME:
		/* the script finds a frame's name in its title as
		 * everything before the last " (" */
		if (strchr(optarg, '('))
			usage_error(ctx, "--countname must not contain '('");
		o->svg.countname = optarg;
		break;
	default:
		break;
	}
}

/* -j N, fold's --jobs N */
static const struct option jobs_option = CMD_JOBS_LONGOPT;

/*
 * Flame's own options, and pdtool fold's sample options (cmd_fold.c),
 * which only a capture's fold takes (flame's --strict and -v reach that
 * fold through ctx).
 */
static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct flame_opts *o)
{
	struct cmd_opts p = {.flags = CMD_OPT_STRICT | CMD_OPT_VERBOSE,
			     .own_shortopts = "o:j:",
			     .own_longopts = flame_options,
			     .more_longopts = cmd_fold_sample_options};
	int c;

	o->fold_args = calloc((size_t)argc + 1, sizeof(*o->fold_args));
	if (!o->fold_args)
		die(ctx, "out of memory");
	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1) {
		if (c == 'j')
			keep_fold_option(ctx, o, &jobs_option, optarg);
		else if (p.in_more)
			keep_fold_option(ctx, o, p.opt, optarg);
		else
			handle_option(c, ctx, o);
	}
	o->path = cmd_opts_input(&p);
	o->svg.min_width =
		parse_min_width(ctx, o->min_width ? o->min_width : "0.1",
				o->svg.width ? o->svg.width : 1200);
}

/* ---- input --------------------------------------------------------- */

/* Read once more into in->buf, growing it when it is nearly full. */
static void fill(const struct pd_ctx *ctx, struct input *in, uint64_t line)
{
	ssize_t got;

	if (in->cap - in->len < CHUNK) {
		size_t ncap = in->cap ? in->cap * 2 : 2 * CHUNK;
		char *nb;

		if (ncap > MAX_LINE + CHUNK)
			die(ctx, "'%s': line %llu is longer than %u MiB",
			    in->path, (unsigned long long)line, MAX_LINE >> 20);
		nb = realloc(in->buf, ncap);
		if (!nb)
			die(ctx, "out of memory");
		in->buf = nb;
		in->cap = ncap;
	}
	do
		got = read(in->fd, in->buf + in->len, in->cap - in->len);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		die(ctx, "cannot read '%s': %s", in->path, strerror(errno));
	in->eof = got == 0;
	in->len += (size_t)got;
}

static void add_line(const struct pd_ctx *ctx, struct pda_flame *fl,
		     const char *path, const char *line, size_t len,
		     struct input_stats *st)
{
	int rc;

	st->nr_lines++;
	rc = pda_flame_add_folded(fl, line, len);
	if (rc < 0)
		die(ctx, "'%s': line %llu: %s", path,
		    (unsigned long long)st->nr_lines, pda_flame_errmsg(fl));
	/* a blank line is not worth a warning */
	if (rc == 1 && strspn(line, " \t\r\n") < len) {
		if (st->nr_ignored++ == 0)
			st->first_ignored = st->nr_lines;
	}
}

/* Every line of buf[0..len) into fl, the last one even without '\n'. */
static void add_lines(const struct pd_ctx *ctx, struct pda_flame *fl,
		      const char *path, const char *buf, size_t len,
		      struct input_stats *st)
{
	while (len > 0) {
		const char *nl = memchr(buf, '\n', len);
		const size_t n = nl ? (size_t)(nl - buf) + 1 : len;

		add_line(ctx, fl, path, buf, n, st);
		buf += n;
		len -= n;
	}
}

/* Folded text, from what in holds already to the end. */
static void read_folded(const struct pd_ctx *ctx, struct input *in,
			struct pda_flame *fl, struct input_stats *st)
{
	size_t scanned = 0;

	for (;;) {
		const char *nl;
		size_t done = 0;

		/* every complete line */
		while ((nl = memchr(in->buf + scanned, '\n',
				    in->len - scanned))) {
			const size_t n = (size_t)(nl - in->buf) + 1;

			add_line(ctx, fl, in->path, in->buf + done, n - done,
				 st);
			done = n;
			scanned = n;
		}
		memmove(in->buf, in->buf + done, in->len - done);
		in->len -= done;
		scanned = in->len;
		if (in->eof)
			break;
		fill(ctx, in, st->nr_lines + 1);
	}
	if (in->len)
		add_line(ctx, fl, in->path, in->buf, in->len, st);
	in->len = 0;
}

/*
 * Put the bytes already read from standard input back in front of the
 * rest: a child writes them, then copies the rest, into a pipe that
 * becomes our standard input.  @return the child's pid.
 */
static pid_t unread_stdin(const struct pd_ctx *ctx, const struct input *in)
{
	int p[2];
	pid_t pid;

	if (pipe(p) < 0)
		die(ctx, "cannot make a pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die(ctx, "cannot fork: %s", strerror(errno));
	if (pid == 0) {
		char buf[CHUNK];
		const char *from = in->buf;
		size_t left = in->len;
		ssize_t n = 0;

		close(p[0]);
		for (;;) {
			while (left > 0) {
				n = write(p[1], from, left);
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0)
					_exit(0); /* the reader is gone */
				from += n;
				left -= (size_t)n;
			}
			do
				n = read(STDIN_FILENO, buf, sizeof(buf));
			while (n < 0 && errno == EINTR);
			if (n <= 0)
				_exit(n < 0 ? 1 : 0);
			from = buf;
			left = (size_t)n;
		}
	}
	close(p[1]);
	if (dup2(p[0], STDIN_FILENO) < 0)
		die(ctx, "cannot read the pipe: %s", strerror(errno));
	close(p[0]);
	return pid;
}

/*
 * Fold a capture with `pdtool fold --kernel` (kernel frames "_[k]", for
 * the palette) and the fold options given, into memory, then take its
 * lines.  @return fold's exit status.
 */
static int fold_capture(struct pd_ctx *ctx, const struct flame_opts *o,
			struct input *in, struct pda_flame *fl,
			struct input_stats *st)
{
	char **argv = calloc(o->nr_fold_args + 5, sizeof(*argv));
	char *text = NULL;
	size_t len = 0, argc = 0;
	FILE *saved = ctx->out, *mem;
	pid_t child = -1;
	int rc, status;

	if (!argv)
		die(ctx, "out of memory");
	argv[argc++] = (char *)(uintptr_t) "fold";
	argv[argc++] = (char *)(uintptr_t) "--kernel";
	for (size_t i = 0; i < o->nr_fold_args; i++)
		argv[argc++] = o->fold_args[i];
	argv[argc++] = (char *)(uintptr_t) "--";
	argv[argc++] = (char *)(uintptr_t)o->path;
	if (in->fd == STDIN_FILENO)
		child = unread_stdin(ctx, in);
	else
		close(in->fd);
	mem = open_memstream(&text, &len);
	if (!mem)
		die(ctx, "out of memory");
	ctx->out = mem;
	rc = cmd_fold((int)argc, argv, ctx);
	ctx->out = saved;
	if (fclose(mem) != 0)
		die(ctx, "out of memory");
	if (child > 0) {
		/* fold may stop before the end of its input */
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	add_lines(ctx, fl, o->path, text, len, st);
	free(text);
	free(argv);
	return rc;
}

static void open_input(const struct pd_ctx *ctx, const char *path,
		       struct input *in)
{
	struct stat sb;

	memset(in, 0, sizeof(*in));
	in->path = path;
	if (strcmp(path, "-") == 0) {
		in->fd = STDIN_FILENO;
		return;
	}
	in->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0)
		die(ctx, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(in->fd, &sb) == 0 && S_ISDIR(sb.st_mode))
		in->dir = in->eof = true;
}

/* ---- output -------------------------------------------------------- */

static void write_output(struct pd_ctx *ctx, const struct flame_opts *o,
			 const struct pda_flame *fl)
{
	const struct pda_flame_node *nodes;
	FILE *out = ctx_open_output(ctx, o->output);
	size_t nr;
	char exporter[64];

	nodes = pda_flame_nodes(fl, &nr);
	if (o->speedscope) {
		const char *base = strrchr(o->path, '/');
		struct pde_speedscope_opts so = {
			.name = strcmp(o->path, "-") == 0 ? "stdin"
				: base			  ? base + 1
							  : o->path,
			.exporter = exporter,
		};

		snprintf(exporter, sizeof(exporter), "pdtool %s", pd_version());
		ctx_check_write(ctx, pde_speedscope(out, nodes, nr, &so),
				o->output);
	} else {
		ctx_check_write(ctx, pde_flame_svg(out, nodes, nr, &o->svg, NULL),
				o->output);
	}
	ctx_close_output(ctx, out, o->output);
}

int cmd_flame(int argc, char **argv, struct pd_ctx *ctx)
{
	struct flame_opts o = {0};
	struct input_stats st = {0};
	struct pda_flame *fl;
	struct input in;
	size_t nr;
	int rc, fold_rc = 0;

	parse_args(argc, argv, ctx, &o);
	{
		PDA_FLAME_OPTS(fo, .reverse = o.reverse);

		rc = pda_flame_new(&fo, &fl);
	}
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	open_input(ctx, o.path, &in);
	while (in.len < 8 && !in.eof)
		fill(ctx, &in, 1);
	if (in.dir || ctx_is_capture((const unsigned char *)in.buf, in.len)) {
		fold_rc = fold_capture(ctx, &o, &in, fl, &st);
	} else {
		if (o.nr_fold_args)
			usage_error(ctx,
				    "'%s' holds folded stacks: '%s' applies to "
				    "a capture",
				    o.path, o.fold_args[0]);
		read_folded(ctx, &in, fl, &st);
		if (in.fd != STDIN_FILENO)
			close(in.fd);
	}
	free(in.buf);
	if (pda_flame_finish(fl) < 0)
		die(ctx, "%s", pda_flame_errmsg(fl));
	if (st.nr_ignored == 1)
		warning(ctx, "'%s': line %llu is not 'stack count'; ignored",
			o.path, (unsigned long long)st.first_ignored);
	else if (st.nr_ignored)
		warning(ctx,
			"'%s': %llu lines are not 'stack count'; ignored "
			"(the first: line %llu)",
			o.path, (unsigned long long)st.nr_ignored,
			(unsigned long long)st.first_ignored);
	if (pda_flame_nodes(fl, &nr)[0].total == 0)
		warning(ctx, "'%s': no stacks", o.path);
	write_output(ctx, &o, fl);
	pda_flame_free(fl);
	for (size_t i = 0; i < o.nr_fold_args; i++)
		free(o.fold_args[i]);
	free(o.fold_args);
	if (fold_rc)
		return fold_rc;
	if (ctx->strict && ctx->nr_warnings)
		return EXIT_UNRESOLVED;
	return 0;
}
