/*
 * cmd_flame.c - `pdtool flame`: a flame graph (interactive SVG) or a
 * speedscope profile of folded stacks.
 *
 * The input is read in chunks and split into lines here; the tree
 * (analyze/pda_flame.c) merges them and the writers (emit/pde_flame.c,
 * emit/pde_speedscope.c) draw it.  A perf.data capture is recognised by
 * its magic and refused with a pointer to folded input, until the fold
 * pipeline can run here.
 */
#include "pdtool.h"
#include "pda.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cmd_flame_usage[] =
	"pdtool flame [-o OUT] [--format svg|speedscope] [OPTIONS] FOLDED";
const char cmd_flame_summary[] =
	"draw folded stacks as a flame graph (SVG) or a speedscope profile";
const char cmd_flame_options[] =
	"  FOLDED              folded stacks, 'frame;frame;... COUNT' per "
	"line,\n"
	"                      root first (pdtool fold, "
	"stackcollapse-perf.pl,\n"
	"                      perf script report stackcollapse); '-' reads\n"
	"                      standard input\n"
	"  -o, --output OUT    write to OUT instead of standard output\n"
	"      --format FMT    svg (the default): an interactive flame graph;\n"
	"                      speedscope: speedscope's JSON file format\n"
	"      --title TEXT    the SVG's title (default \"Flame Graph\", or\n"
	"                      \"Icicle Graph\" with --inverted)\n"
	"      --subtitle TEXT a second line under the title\n"
	"      --width PX      image width (default 1200)\n"
	"      --height PX     frame height (default 16)\n"
	"      --fontsize PX   font size (default 12)\n"
	"      --minwidth W    leave out frames narrower than W px, or W% of\n"
	"                      the samples with a % sign (default 0.1)\n"
	"      --colors NAME   palette: default (kernel _[k], JIT _[j],\n"
	"                      inlined _[i], [unknown] and user frames "
	"apart),\n"
	"                      hot, mem, io\n"
	"      --hash          colour by name, so a function keeps its colour\n"
	"                      (default: by position)\n"
	"      --inverted      an icicle graph: the root at the top\n"
	"      --reverse       reverse each stack before merging: the leaves\n"
	"                      become the roots\n"
	"      --countname NAME  what the counts are, in tooltips (default\n"
	"                      \"samples\"); must not contain '('\n"
	"      --strict        exit 1 when input lines were ignored\n"
	"  -v, --verbose       more messages\n"
	"  -h, --help          show this help\n";

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
	OPT_STRICT,
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
};

struct input_stats {
	uint64_t nr_lines;
	uint64_t nr_ignored;
	uint64_t first_ignored; /* line number */
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

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct flame_opts *o)
{
	static const struct option longopts[] = {
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
		{"strict", no_argument, NULL, OPT_STRICT},
		{"verbose", no_argument, NULL, 'v'},
		{NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:v", longopts, NULL)) != -1) {
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
					    "unknown format '%s' (svg, "
					    "speedscope)",
					    optarg);
			break;
		case OPT_TITLE:
			o->svg.title = optarg;
			break;
		case OPT_SUBTITLE:
			o->svg.subtitle = optarg;
			break;
		case OPT_WIDTH:
			o->svg.width = parse_uint(ctx, "--width", optarg, 100,
						  1000000);
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
				usage_error(ctx, "--countname must not contain "
						 "'('");
			o->svg.countname = optarg;
			break;
		case OPT_STRICT:
			ctx->strict = true;
			break;
		case 'v':
			ctx->verbose++;
			break;
		case ':':
			usage_error(ctx, "option '%s' needs a value",
				    argv[optind - 1]);
		default:
			usage_error(ctx, "unknown option '%s'",
				    argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->path = argv[optind++];
	if (optind < argc)
		usage_error(ctx, "unexpected argument '%s'", argv[optind]);
	if (!o->path)
		usage_error(ctx, "no input file");
	o->svg.min_width =
		parse_min_width(ctx, o->min_width ? o->min_width : "0.1",
				o->svg.width ? o->svg.width : 1200);
}

/*
 * A capture rather than text: perf.data's magic in either byte order
 * (format.md §1), version 1's, or a zstd frame (pdtool opens compressed
 * captures).
 */
static bool is_capture(const unsigned char *p, size_t n)
{
	static const unsigned char zstd[4] = {0x28, 0xb5, 0x2f, 0xfd};

	if (n >= 8 &&
	    (memcmp(p, "PERFILE2", 8) == 0 || memcmp(p, "2ELIFREP", 8) == 0 ||
	     memcmp(p, "PERFFILE", 8) == 0))
		return true;
	return n >= 4 && memcmp(p, zstd, 4) == 0;
}

static void refuse_capture(const struct pd_ctx *ctx, const char *path)
{
	const bool in = strcmp(path, "-") == 0;

	die(ctx,
	    "'%s' is a perf.data capture; pdtool flame reads folded stacks "
	    "(perf script report stackcollapse -i %s%s%s | pdtool flame -)",
	    path, in ? "" : "'", in ? "FILE" : path, in ? "" : "'");
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

/*
 * Read fd to its end, one line at a time into fl.  The first bytes are
 * checked for a capture's magic before any line is taken.
 */
static void read_folded(const struct pd_ctx *ctx, int fd, const char *path,
			struct pda_flame *fl, struct input_stats *st)
{
	char *buf = NULL;
	size_t cap = 0, len = 0, scanned = 0;
	bool checked = false, eof = false;

	while (!eof || len > 0) {
		char *nl;

		if (!eof) {
			ssize_t got;

			if (cap - len < CHUNK) {
				size_t ncap = cap ? cap * 2 : 2 * CHUNK;
				char *nb;

				if (ncap > MAX_LINE + CHUNK)
					die(ctx,
					    "'%s': line %llu is longer "
					    "than %u MiB",
					    path,
					    (unsigned long long)st->nr_lines +
						    1,
					    MAX_LINE >> 20);
				nb = realloc(buf, ncap);
				if (!nb)
					die(ctx, "out of memory");
				buf = nb;
				cap = ncap;
			}
			got = read(fd, buf + len, cap - len);
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0)
				die(ctx, "cannot read '%s': %s", path,
				    strerror(errno));
			eof = got == 0;
			len += (size_t)got;
		}
		if (!checked) {
			if (len < 8 && !eof)
				continue;
			if (is_capture((const unsigned char *)buf, len))
				refuse_capture(ctx, path);
			checked = true;
		}
		/* every complete line; at the end, the last one too */
		while ((nl = memchr(buf + scanned, '\n', len - scanned))) {
			size_t n = (size_t)(nl - buf) + 1;

			add_line(ctx, fl, path, buf, n, st);
			memmove(buf, buf + n, len - n);
			len -= n;
			scanned = 0;
		}
		scanned = len;
		if (eof && len > 0) {
			add_line(ctx, fl, path, buf, len, st);
			len = 0;
		}
	}
	free(buf);
}

static int open_input(const struct pd_ctx *ctx, const char *path)
{
	struct stat sb;
	int fd;

	if (strcmp(path, "-") == 0)
		return STDIN_FILENO;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(ctx, "cannot open '%s': %s", path, strerror(errno));
	/* a perf record --threads capture is a directory */
	if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode))
		refuse_capture(ctx, path);
	return fd;
}

static void write_output(struct pd_ctx *ctx, const struct flame_opts *o,
			 const struct pda_flame *fl)
{
	const struct pda_flame_node *nodes;
	FILE *out = ctx->out;
	size_t nr;
	char exporter[64];

	if (o->output) {
		out = fopen(o->output, "w");
		if (!out)
			die(ctx, "cannot open '%s': %s", o->output,
			    strerror(errno));
	}
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
		if (pde_speedscope(out, nodes, nr, &so) < 0)
			die(ctx, "out of memory");
	} else {
		pde_flame_svg(out, nodes, nr, &o->svg);
	}
	if (o->output) {
		if (ferror(out) | fclose(out))
			die(ctx, "cannot write '%s': %s", o->output,
			    strerror(errno));
	}
}

int cmd_flame(int argc, char **argv, struct pd_ctx *ctx)
{
	struct flame_opts o = {0};
	struct input_stats st = {0};
	struct pda_flame *fl;
	int fd, rc;

	parse_args(argc, argv, ctx, &o);
	fd = open_input(ctx, o.path);
	{
		PDA_FLAME_OPTS(fo, .reverse = o.reverse);

		rc = pda_flame_new(&fo, &fl);
	}
	if (rc < 0)
		die(ctx, "%s", pd_strerror(rc));
	read_folded(ctx, fd, o.path, fl, &st);
	if (fd != STDIN_FILENO)
		close(fd);
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
	{
		size_t nr;

		if (pda_flame_nodes(fl, &nr)[0].total == 0)
			warning(ctx, "'%s': no stacks", o.path);
	}
	write_output(ctx, &o, fl);
	pda_flame_free(fl);
	if (ctx->strict && ctx->nr_warnings)
		return EXIT_UNRESOLVED;
	return 0;
}
