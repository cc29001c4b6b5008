/*
 * cmd_opts.c - the option parsing every command shares (C4): getopt_long
 * over the command's own options plus -i/--input, --strict and
 * -v/--verbose, with one wording for the usage errors (exit 64, E9).
 * The contract is in pdtool.h.
 */
#include "pdtool.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_STRICT = CMD_OPT_VAL_MAX + 1 };

static void add_option(struct cmd_opts *p, const struct option *opt)
{
	/* a command table longer than this is a bug, not an input */
	assert(p->nr_longopts < CMD_OPTS_MAX);
	p->longopts[p->nr_longopts++] = *opt;
}

static void add_table(struct cmd_opts *p, const struct option *table)
{
	for (; table && table->name; table++)
		add_option(p, table);
}

void cmd_opts_start(struct cmd_opts *p, struct pd_ctx *ctx, int argc,
		    char **argv)
{
	static const struct option input = {"input", required_argument, NULL,
					    'i'};
	static const struct option strict = {"strict", no_argument, NULL,
					     OPT_STRICT};
	static const struct option verbose = {"verbose", no_argument, NULL,
					      'v'};
	int n;

	p->ctx = ctx;
	p->argc = argc;
	p->argv = argv;
	p->input = NULL;
	p->opt = NULL;
	p->in_more = false;
	p->nr_longopts = 0;
	memset(p->seen, 0, sizeof(p->seen));
	/* ':' first: a missing value is ':', not a message from getopt;
	 * '+' before it: the first operand ends the options (a workload's
	 * command line is its own) */
	n = snprintf(p->shortopts, sizeof(p->shortopts), "%s:%s%s%s",
		     p->flags & CMD_OPT_STOP_AT_OPERAND ? "+" : "",
		     p->flags & CMD_OPT_INPUT ? "i:" : "",
		     p->flags & CMD_OPT_VERBOSE ? "v" : "",
		     p->own_shortopts ? p->own_shortopts : "");
	assert(n > 0 && (size_t)n < sizeof(p->shortopts));
	(void)n;
	if (p->flags & CMD_OPT_INPUT)
		add_option(p, &input);
	if (p->flags & CMD_OPT_STRICT)
		add_option(p, &strict);
	if (p->flags & CMD_OPT_VERBOSE)
		add_option(p, &verbose);
	add_table(p, p->own_longopts);
	p->first_more = p->nr_longopts;
	add_table(p, p->more_longopts);
	memset(&p->longopts[p->nr_longopts], 0, sizeof(p->longopts[0]));
	opterr = 0;
	optind = 1;
}

/*
 * The argument getopt_long() took opt from: the one before its value when
 * the value came as an argument of its own.
 */
static const char *opt_token(const struct cmd_opts *p, const struct option *opt)
{
	if (opt->has_arg != no_argument && optarg && optind >= 2 &&
	    optarg == p->argv[optind - 1])
		return p->argv[optind - 2];
	return p->argv[optind - 1];
}

/* "--name" or "--name=...", not getopt_long's abbreviation of name. */
static bool exact(const char *token, const char *name)
{
	const size_t len = strlen(name);

	return strncmp(token, "--", 2) == 0 &&
	       strncmp(token + 2, name, len) == 0 &&
	       (token[2 + len] == '\0' || token[2 + len] == '=');
}

/* A short option's token, or a long one named in full. */
static bool known(const struct cmd_opts *p, const char *token)
{
	if (strncmp(token, "--", 2) != 0)
		return true;
	for (size_t i = 0; i < p->nr_longopts; i++)
		if (exact(token, p->longopts[i].name))
			return true;
	return false;
}

/*
 * "--X" and "--no-X" both given: the last one would win silently, so it
 * is a usage error, whichever came first.
 */
static void check_opposite(struct cmd_opts *p, size_t index)
{
	const char *name = p->longopts[index].name;

	p->seen[index] = true;
	for (size_t i = 0; i < p->nr_longopts; i++) {
		const char *other = p->longopts[i].name;

		/* flags only: --comm RE is no opposite of --no-comm */
		if (!p->seen[i] || i == index ||
		    p->longopts[i].has_arg != no_argument ||
		    p->longopts[index].has_arg != no_argument)
			continue;
		if ((strncmp(name, "no-", 3) == 0 && !strcmp(name + 3, other)) ||
		    (strncmp(other, "no-", 3) == 0 && !strcmp(other + 3, name)))
			usage_error(p->ctx, "'--%s' and '--%s' contradict each "
					    "other: give one",
				    other, name);
	}
}

int cmd_getopt(struct cmd_opts *p)
{
	for (;;) {
		int index = -1, c;

		c = getopt_long(p->argc, p->argv, p->shortopts, p->longopts,
				&index);
		p->opt = index >= 0 ? &p->longopts[index] : NULL;
		p->in_more = index >= 0 && (size_t)index >= p->first_more;
		if (p->opt && c != '?') {
			const char *token = opt_token(p, p->opt);

			if (!exact(token, p->opt->name))
				usage_error(p->ctx, "unknown option '%s'",
					    token);
			check_opposite(p, (size_t)index);
		}
		switch (c) {
		case -1:
			return -1;
		case ':':
			/* getopt_long names no option here: an abbreviation
			 * is told apart by the table */
			if (!known(p, p->argv[optind - 1]))
				usage_error(p->ctx, "unknown option '%s'",
					    p->argv[optind - 1]);
			usage_error(p->ctx, "option '%s' needs a value",
				    p->argv[optind - 1]);
		case '?':
			usage_error(p->ctx, "unknown option '%s'",
				    p->argv[optind - 1]);
		case 'i':
			if (!(p->flags & CMD_OPT_INPUT))
				return c;
			if (p->input)
				usage_error(p->ctx, "more than one input file");
			p->input = optarg;
			break;
		case 'v':
			if (!(p->flags & CMD_OPT_VERBOSE))
				return c;
			p->ctx->verbose++;
			break;
		case OPT_STRICT:
			p->ctx->strict = true;
			break;
		default:
			return c;
		}
	}
}

const char *cmd_opts_input(struct cmd_opts *p)
{
	if (optind < p->argc) {
		if (p->input)
			usage_error(p->ctx, "more than one input file");
		p->input = p->argv[optind++];
	}
	if (optind < p->argc)
		usage_error(p->ctx, "more than one input file");
	if (!p->input && !p->no_default) {
		/* as perf does: the file perf record writes by default */
		if (access(CMD_DEFAULT_INPUT, F_OK) != 0)
			usage_error(p->ctx,
				    "no input file, and no '%s' in the current "
				    "directory",
				    CMD_DEFAULT_INPUT);
		p->input = CMD_DEFAULT_INPUT;
	}
	if (!p->input)
		usage_error(p->ctx, "no input file");
	return p->input;
}

/* "1234.5678" (seconds, up to nanoseconds) as ns, perf's time format. */
static bool parse_time(const char *s, size_t len, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, digits = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > (UINT64_MAX / 1000000000ull - 9) / 10)
			return false;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0)
		return false;
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (++digits > 9)
				return false;
			frac = frac * 10 + (uint64_t)(s[i] - '0');
		}
	}
	if (i != len)
		return false;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return true;
}

void cmd_parse_time_range(const struct pd_ctx *ctx, const char *opt,
			  const char *arg, struct cmd_time_range *t)
{
	const char *comma = strchr(arg, ',');

	if (!comma)
		usage_error(ctx, "%s '%s': expected START,END", opt, arg);
	t->has_start = comma > arg;
	t->has_end = comma[1] != '\0';
	if ((t->has_start &&
	     !parse_time(arg, (size_t)(comma - arg), &t->start)) ||
	    (t->has_end && !parse_time(comma + 1, strlen(comma + 1), &t->end)))
		usage_error(ctx,
			    "%s '%s': times are seconds with up to 9 "
			    "decimals, as perf prints them",
			    opt, arg);
	if (t->has_start && t->has_end && t->end < t->start)
		usage_error(ctx, "%s '%s': the end is before the start", opt,
			    arg);
}

/* perf's parse_percent(): "12.5%" (the len bytes at s) as 0.125. */
static bool parse_pct(const char *s, size_t len, double *out)
{
	char buf[64], *end;

	if (len < 2 || len >= sizeof(buf) || s[len - 1] != '%')
		return false;
	memcpy(buf, s, len - 1);
	buf[len - 1] = '\0';
	*out = strtod(buf, &end) / 100.0;
	return end != buf && *end == '\0';
}

void cmd_parse_time_pct(const struct pd_ctx *ctx, const char *opt,
			const char *arg, struct cmd_time_range *t)
{
	const char *slash = strchr(arg, '/'), *dash = strchr(arg, '-');
	bool ok;

	if (!strchr(arg, '%')) {
		cmd_parse_time_range(ctx, opt, arg, t);
		return;
	}
	if (strpbrk(arg, ", "))
		usage_error(ctx, "%s '%s': one percent range, not a list of "
				 "them", opt, arg);
	if (slash) {
		/* perf's percent_slash_split(): PCT/N, the Nth slice */
		double pct = 0;
		char *end;
		const long n = strtol(slash + 1, &end, 10);

		ok = parse_pct(arg, (size_t)(slash - arg), &pct) && pct > 0 &&
		     end != slash + 1 && *end == '\0';
		t->pct_lo = pct * (double)(n - 1);
		t->pct_hi = pct * (double)n;
	} else {
		/* perf's percent_dash_split(): PCT-PCT */
		ok = dash && parse_pct(arg, (size_t)(dash - arg), &t->pct_lo) &&
		     parse_pct(dash + 1, strlen(dash + 1), &t->pct_hi);
	}
	if (!ok)
		usage_error(ctx, "%s '%s': expected START,END, PCT/N or "
				 "PCT-PCT (10%%/2, 0%%-30%%)", opt, arg);
	if (t->pct_lo < 0 || t->pct_lo > 1 || t->pct_hi < 0 || t->pct_hi > 1)
		usage_error(ctx, "%s '%s': outside 0%% to 100%%", opt, arg);
	t->pct = arg;
	t->has_start = t->has_end = true;
	t->start = t->end = 0;
}

void cmd_time_resolve(const struct pd_ctx *ctx, const char *path,
		      struct pd_file *f, struct cmd_time_range *t)
{
	const struct pd_env *env = NULL;
	uint64_t first, total;

	if (!t->pct)
		return;
	if (pd_file_env(f, &env) < 0 || !env ||
	    (!env->first_sample_time && !env->last_sample_time))
		die(ctx, "'%s': --time %s: the capture does not say when its "
			 "first and last samples were (HEADER_SAMPLE_TIME), "
			 "which percentages are of",
		    path, t->pct);
	first = env->first_sample_time;
	total = env->last_sample_time - first;
	/* perf's set_percent_time(): rounded, the end less one ns but
	 * at the last sample */
	t->start = first + (uint64_t)llround(t->pct_lo * (double)total);
	t->end = first + (uint64_t)llround(t->pct_hi * (double)total);
	if (t->end > t->start && t->end != env->last_sample_time)
		t->end--;
}

bool cmd_in_ids(const uint32_t *ids, size_t nr, uint32_t v)
{
	for (size_t i = 0; i < nr; i++)
		if (ids[i] == v)
			return true;
	return false;
}

void cmd_parse_names(const struct pd_ctx *ctx, const char *opt,
		     const char *arg, char **buf, const char **names,
		     size_t max)
{
	size_t n = 0;
	char *p;

	free(*buf);
	*buf = strdup(arg);
	if (!*buf)
		die(ctx, "out of memory");
	for (p = *buf; p;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (*p) {
			if (n == max)
				usage_error(ctx, "%s: more than %zu names", opt,
					    max);
			names[n++] = p;
		}
		p = comma ? comma + 1 : NULL;
	}
	if (!n)
		usage_error(ctx, "%s: no names given", opt);
	names[n] = NULL;
}

size_t cmd_parse_u32_list(const struct pd_ctx *ctx, const char *opt,
			  const char *what, const char *arg, uint32_t *out,
			  size_t nr, size_t max, bool ranges)
{
	const char *p = arg;
	const size_t first = nr;

	while (*p) {
		char *end;
		unsigned long v, last;

		errno = 0;
		v = strtoul(p, &end, 10);
		last = v;
		if (ranges && end != p && *end == '-') {
			const char *q = end + 1;

			last = strtoul(q, &end, 10);
			if (end == q || last < v)
				end = (char *)(uintptr_t)p;
		}
		if (end == p || errno || last > UINT32_MAX ||
		    (*end && *end != ','))
			usage_error(ctx, "%s '%s': not a list of %s", opt, arg,
				    what);
		for (; v <= last; v++) {
			if (nr == max)
				usage_error(ctx, "%s: more than %zu %s", opt,
					    max, what);
			out[nr++] = (uint32_t)v;
		}
		p = *end ? end + 1 : end;
	}
	if (nr == first)
		usage_error(ctx, "%s: no %s given", opt, what);
	return nr;
}

unsigned cmd_max_stack(const struct pd_ctx *ctx, const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*end || end == arg || errno || v == 0 || v > 1u << 20)
		usage_error(ctx, "--max-stack '%s': a count from 1", arg);
	return (unsigned)v;
}
