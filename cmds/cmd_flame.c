/*
 * cmd_flame.c - `pdtool flame`: a flame graph (interactive SVG) or a
 * speedscope profile of a capture or of folded stacks.
 *
 * The input's first bytes decide: perf.data's magic (or a zstd frame, or
 * a directory) is a capture, anything else folded text.  Both become a
 * structured profile (analyze/profile/pda_profile.h): a capture through
 * pdtool fold's own code with --kernel and fold's options that choose and
 * name the samples (cmd_fold_profile()), folded text through the one
 * folded-text reader (pda_profile_add_folded()), so `pdtool flame FILE`
 * draws exactly what `pdtool fold --kernel FILE | pdtool flame -` draws.
 * The tree (analyze/profile/pda_flame.c) is built from the profile and
 * the writers (emit/pde_flame.c, emit/pde_speedscope.c) draw it.
 */
#include "pdtool.h"
#include "pda_flame.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cmd_flame_usage[] = "pdtool flame [-o OUT] [--format "
			       "svg|speedscope] [OPTIONS] [FILE | FOLDED]";
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
	"--srcline, --no-ip-frame, --event, --all-events, --weight,\n"
	"--off-cpu (an off-CPU flame graph: palette io, counts in ns,\n"
	"as FlameGraph's), --wall-clock (on and off CPU, in ns),\n"
	"--comm, --pid-filter, --dso, --symbol, --time, --max-stack,\n"
	"--branch-history, --mispredicted-only, --symfs,\n"
	"--buildid-dir, --archive, --kallsyms, --vmlinux, --jit-dir,\n"
	"--search-path, --no-demangle, --host-files, --host-kernel,\n"
	"--no-host-kernel, --debuginfod, --no-debuginfod,\n"
	"--debuginfod-max, --debuginfod-time, --inline, --no-inline,\n"
	"--unwinder, -j/--jobs, --itrace, --spe-events.  Unlike fold,\n"
	"flame draws the first event sampled only, unless --event or\n"
	"--all-events says otherwise.\n";

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
#define MAGIC_LEN 8 /* what ctx_is_capture() looks at */

/* One of pdtool fold's options as getopt_long gave it. */
struct fold_arg {
	int c;
	const char *arg;
};

struct flame_opts {
	const char *path;
	const char *output;
	bool speedscope;
	bool reverse;
	const char *min_width; /* as given */
	struct pde_flame_opts svg;
	/* pdtool fold's options, for a capture */
	struct fold_arg *fold_args;
	size_t nr_fold_args;
	char *first_fold_arg; /* "--name=arg", for a message */
	bool palette_given, countname_given, title_given;
	bool off_cpu, wall_clock; /* fold's --off-cpu, --wall-clock */
};

struct input_stats {
	uint64_t nr_lines;
	uint64_t nr_added;	/* folded lines */
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
	/* past the whole graph's width, nothing would be drawn */
	if (*end == '%' && v > 100)
		usage_error(ctx,
			    "--minwidth '%s': a percentage from 0 to 100",
			    arg);
	if (*end == '%')
		v = v / 100 * (width - 2 * PDE_FLAME_XPAD);
	else if (v > width - 2 * PDE_FLAME_XPAD)
		usage_error(ctx,
			    "--minwidth '%s': wider than the graph (%u px of "
			    "frames)",
			    arg, width - 2 * PDE_FLAME_XPAD);
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

/* Keep a fold option for the capture's fold, and the first one's
 * "--name" or "--name=arg". */
static void keep_fold_option(const struct pd_ctx *ctx, struct flame_opts *o,
			     const struct option *opt, int c, const char *arg)
{
	o->fold_args[o->nr_fold_args++] = (struct fold_arg){c, arg};
	o->off_cpu |= strcmp(opt->name, "off-cpu") == 0;
	o->wall_clock |= strcmp(opt->name, "wall-clock") == 0;
	if (!o->first_fold_arg) {
		const size_t n =
			strlen(opt->name) + 4 + (arg ? strlen(arg) : 0);

		o->first_fold_arg = malloc(n);
		if (!o->first_fold_arg)
			die(ctx, "out of memory");
		snprintf(o->first_fold_arg, n, "--%s%s%s", opt->name,
			 arg ? "=" : "", arg ? arg : "");
	}
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
		o->title_given = true;
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
		o->palette_given = true;
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
		o->countname_given = true;
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
	const char *svg_option = NULL;
	int c;

	o->fold_args = calloc((size_t)argc + 1, sizeof(*o->fold_args));
	if (!o->fold_args)
		die(ctx, "out of memory");
	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1) {
		if (c == 'j')
			keep_fold_option(ctx, o, &jobs_option, c, optarg);
		else if (p.in_more)
			keep_fold_option(ctx, o, p.opt, c, optarg);
		else
			handle_option(c, ctx, o);
		/* what only the SVG has: the first one, for the message */
		if (!svg_option && p.opt && !p.in_more &&
		    c != 'o' && c != OPT_FORMAT && c != OPT_REVERSE)
			svg_option = p.opt->name;
	}
	if (o->speedscope && svg_option)
		usage_error(ctx, "'--%s' shapes the SVG: not with --format "
				 "speedscope",
			    svg_option);
	o->path = cmd_opts_input(&p);
	/* FlameGraph's off-CPU graphs: the io palette (blues), counts in
	 * time; pdtool's are nanoseconds */
	if ((o->off_cpu || o->wall_clock) && !o->countname_given)
		o->svg.countname = "ns";
	if (o->off_cpu && !o->palette_given)
		o->svg.palette = PDE_PALETTE_IO;
	if (o->off_cpu && !o->title_given)
		o->svg.title = "Off-CPU Time Flame Graph";
	if (o->wall_clock && !o->title_given)
		o->svg.title = "Wall-Clock Flame Graph";
	o->svg.min_width =
		parse_min_width(ctx, o->min_width ? o->min_width : "0.1",
				o->svg.width ? o->svg.width : 1200);
}

/* ---- input --------------------------------------------------------- */

/* Read once more into in->buf (at most max bytes), growing it when it is
 * nearly full. */
static void fill(const struct pd_ctx *ctx, struct input *in, uint64_t line,
		 size_t max)
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
	if (max > in->cap - in->len)
		max = in->cap - in->len;
	do
		got = read(in->fd, in->buf + in->len, max);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		die(ctx, "cannot read '%s': %s", in->path, strerror(errno));
	in->eof = got == 0;
	in->len += (size_t)got;
}

static void add_line(const struct pd_ctx *ctx, struct pda_profile *p,
		     const char *path, const char *line, size_t len,
		     struct input_stats *st)
{
	int rc;

	st->nr_lines++;
	/* folded text holds no NUL: this is a file of another kind */
	ctx_check_folded_line(ctx, path, line, len, st->nr_lines);
	rc = pda_profile_add_folded(p, line, len, 0);
	st->nr_added += rc == 0;
	if (rc < 0)
		die(ctx, "'%s': line %llu: %s", path,
		    (unsigned long long)st->nr_lines, pda_profile_errmsg(p));
	/* a blank line is not worth a warning */
	if (rc == 1 && strspn(line, " \t\r\n") < len) {
		if (st->nr_ignored++ == 0)
			st->first_ignored = st->nr_lines;
	}
}

/* Folded text, from what in holds already to the end, into p. */
static void read_folded(const struct pd_ctx *ctx, struct input *in,
			struct pda_profile *p, struct input_stats *st)
{
	size_t scanned = 0;

	for (;;) {
		const char *nl;
		size_t done = 0;

		/* every complete line */
		while ((nl = memchr(in->buf + scanned, '\n',
				    in->len - scanned))) {
			const size_t n = (size_t)(nl - in->buf) + 1;

			add_line(ctx, p, in->path, in->buf + done, n - done,
				 st);
			done = n;
			scanned = n;
		}
		memmove(in->buf, in->buf + done, in->len - done);
		in->len -= done;
		scanned = in->len;
		if (in->eof)
			break;
		fill(ctx, in, st->nr_lines + 1, SIZE_MAX);
	}
	if (in->len)
		add_line(ctx, p, in->path, in->buf, in->len, st);
	in->len = 0;
}

/*
 * Fold a capture with pdtool fold's code, --kernel (kernel frames
 * "_[k]", for the palette) and the fold options given, into *out.  What
 * was read of standard input to tell it is a capture goes to the reader
 * first.  @return fold's exit status.
 */
static int fold_capture(struct pd_ctx *ctx, const struct flame_opts *o,
			struct input *in, struct pda_profile **out)
{
	struct fold_opts *fo = cmd_fold_opts_new(ctx);
	int rc;

	for (size_t i = 0; i < o->nr_fold_args; i++)
		cmd_fold_opt(ctx, fo, o->fold_args[i].c, o->fold_args[i].arg);
	if (in->fd == STDIN_FILENO) {
		ctx->stdin_head = (const unsigned char *)in->buf;
		ctx->stdin_head_len = in->len;
	} else {
		close(in->fd);
	}
	rc = cmd_fold_profile(ctx, fo, o->path, out);
	ctx->stdin_head = NULL;
	ctx->stdin_head_len = 0;
	cmd_fold_opts_free(fo);
	return rc;
}

static void open_input(struct pd_ctx *ctx, const char *path,
		       struct input *in)
{
	struct stat sb;

	memset(in, 0, sizeof(*in));
	in->path = path;
	ctx_note_input(ctx, path);
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
			 const struct pda_flame *fl, FILE *out)
{
	const struct pda_flame_node *nodes;
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
			.decimals = o->svg.decimals,
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

/* The input as a profile, its counts in column 0.  @return fold's exit
 * status for a capture, else 0. */
static int read_input(struct pd_ctx *ctx, const struct flame_opts *o,
		      struct input_stats *st, struct pda_profile **out)
{
	struct input in;
	int rc = 0;

	open_input(ctx, o->path, &in);
	/* no more than the magic: a capture's bytes read here go to the
	 * reader ahead of the rest (ctx->stdin_head) */
	while (in.len < MAGIC_LEN && !in.eof)
		fill(ctx, &in, 1, MAGIC_LEN - in.len);
	if (in.dir || ctx_is_capture((const unsigned char *)in.buf, in.len)) {
		rc = fold_capture(ctx, o, &in, out);
	} else {
		/* "a;b 1.5" as flamegraph.pl reads it, to a millionth */
		PDA_PROFILE_OPTS(po, .nr_columns = 1, .max_decimals = 6);
		const char *why = ctx_not_text((const unsigned char *)in.buf,
					       in.len);

		if (why)
			die(ctx, "'%s': %s", o->path, why);
		if (o->nr_fold_args)
			usage_error(ctx,
				    "'%s' holds folded stacks: '%s' applies to "
				    "a capture",
				    o->path, o->first_fold_arg);
		rc = pda_profile_new(&po, out);
		if (rc < 0)
			die(ctx, "%s", pd_strerror(rc));
		read_folded(ctx, &in, *out, st);
		/* text, but none of it folded stacks: not a profile */
		if (!st->nr_added && st->nr_ignored)
			die(ctx,
			    "'%s': neither a perf.data capture nor folded "
			    "stacks: no line is 'frame;...;frame COUNT' (line "
			    "%llu is the first that is not blank)",
			    o->path, (unsigned long long)st->first_ignored);
		if (in.fd != STDIN_FILENO)
			close(in.fd);
	}
	free(in.buf);
	return rc;
}

int cmd_flame(int argc, char **argv, struct pd_ctx *ctx)
{
	struct flame_opts o = {0};
	struct input_stats st = {0};
	struct pda_profile *prof = NULL;
	struct pda_flame *fl;
	FILE *out;
	size_t nr;
	int rc, fold_rc;

	parse_args(argc, argv, ctx, &o);
	if ((!o.output || !strcmp(o.output, "-")) && isatty(STDOUT_FILENO))
		usage_error(ctx, "standard output is a terminal: give -o "
				 "FILE for the %s, or redirect it",
			    o.speedscope ? "speedscope profile" : "SVG");
	/* an unwritable -o fails here, not after the work */
	ctx_note_input(ctx, o.path);
	out = ctx_open_output(ctx, o.output);
	{
		PDA_FLAME_OPTS(fo, .reverse = o.reverse);

		rc = pda_flame_new(&fo, &fl);
	}
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	fold_rc = read_input(ctx, &o, &st, &prof);
	o.svg.decimals = pda_profile_decimals(prof);
	/* column 0: the fold's weight, or the folded lines' counts */
	if (pda_flame_add_profile(fl, prof, 0) < 0)
		die(ctx, "'%s': %s", o.path, pda_flame_errmsg(fl));
	pda_profile_free(prof);
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
	write_output(ctx, &o, fl, out);
	pda_flame_free(fl);
	free(o.first_fold_arg);
	free(o.fold_args);
	if (fold_rc)
		return fold_rc;
	if (ctx->strict && ctx->nr_warnings)
		return EXIT_UNRESOLVED;
	return 0;
}
