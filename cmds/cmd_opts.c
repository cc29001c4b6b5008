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
 * getopt_long's '?': a long option token ("--name" not in the table, or
 * "--flag=value", whose optopt is the flag's val), else the short
 * option character it stopped at: "-j" of "-j1", whose element optind
 * has not passed yet, so that argv[optind - 1] is the one before.
 */
static PD_NORETURN void unknown_option(const struct cmd_opts *p)
{
	const char *token = p->argv[optind - 1];
	bool flag_value = false;

	if (strncmp(token, "--", 2) == 0 && strchr(token, '='))
		for (size_t i = 0; i < p->nr_longopts; i++)
			if (exact(token, p->longopts[i].name) &&
			    p->longopts[i].has_arg == no_argument &&
			    p->longopts[i].val == optopt)
				flag_value = true;
	if (!flag_value && optopt > ' ' && optopt < 127)
		usage_error(p->ctx, "unknown option '-%c'", optopt);
	usage_error(p->ctx, "unknown option '%s'", token);
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
			unknown_option(p);
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

/* perf's parse_nsec_time(): "1234.5678" (seconds, up to nanoseconds,
 * after any blanks, as strtoul skips them) as ns. */
static bool parse_time(const char *s, size_t len, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, digits = 0, at;

	while (i < len && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')))
		i++;
	for (at = i; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > (UINT64_MAX / 1000000000ull - 9) / 10)
			return false;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == at)
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

/* perf_time__parse_str(): one "START,END" (the len bytes at s), either
 * end empty (0: open).  @return 0, -1 for no times, -2 for an end
 * before the start. */
static int parse_one_range(const char *s, size_t len,
			   struct pda_time_range *r)
{
	const char *comma = memchr(s, ',', len);
	const size_t n = comma ? (size_t)(comma - s) : len;

	r->start = r->end = 0;
	if ((n && !parse_time(s, n, &r->start)) ||
	    (comma && comma + 1 < s + len &&
	     !parse_time(comma + 1, len - n - 1, &r->end)))
		return -1;
	return !r->end || r->end >= r->start ? 0 : -2;
}

/* perf_time__parse_strs(): as many ranges as commas, "START,END"
 * each, a blank after each but the last; in order, apart. */
static void parse_time_list(const struct pd_ctx *ctx, const char *opt,
			    const char *arg, struct cmd_time_range *t)
{
	const char *p = arg, *piece;
	size_t num = 0;

	for (const char *c = arg; *c; c++)
		num += *c == ',';
	if (!num)
		usage_error(ctx, "%s '%s': expected START,END", opt, arg);
	if (num > CMD_TIME_MAX)
		usage_error(ctx, "%s '%s': more than %d ranges", opt, arg,
			    CMD_TIME_MAX);
	for (t->nr = 0; t->nr < num; t->nr++) {
		size_t len;
		int rc;

		piece = p;
		if (t->nr + 1 < num) {
			/* past the comma and any blanks, to the next
			 * blank; a comma before it is a third time */
			p = strchr(p, ',') + 1;
			while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
				p++;
			while (*p && !(*p == ' ' || (*p >= '\t' && *p <= '\r'))) {
				if (*p++ == ',')
					usage_error(ctx,
						    "%s '%s': ranges are "
						    "START,END separated by "
						    "spaces",
						    opt, arg);
			}
			len = (size_t)(p - piece);
			if (*p)
				p++;
		} else {
			len = strlen(piece);
		}
		rc = parse_one_range(piece, len, &t->r[t->nr]);
		if (rc == -2)
			usage_error(ctx, "%s '%.*s': the end is before the "
					 "start", opt, (int)len, piece);
		if (rc < 0)
			usage_error(ctx,
				    "%s '%.*s': times are seconds with up to "
				    "9 decimals, as perf prints them",
				    opt, (int)len, piece);
	}
	for (size_t i = 0; i + 1 < t->nr; i++)
		if (t->r[i].end >= t->r[i + 1].start)
			usage_error(ctx, "%s '%s': the ranges overlap or are "
					 "out of order", opt, arg);
}

/* perf's parse_percent(): "12.5%" (the len bytes at s; perf ignores
 * what follows the '%') as 0.125. */
static bool parse_pct(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	const char *pc = memchr(s, '%', len);

	if (!pc || (size_t)(pc - s) >= sizeof(buf))
		return false;
	memcpy(buf, s, (size_t)(pc - s));
	buf[pc - s] = '\0';
	*out = strtod(buf, &end) / 100.0;
	return *end == '\0';
}

/* One of perf_time__percent_parse_str()'s pieces (the len bytes at s):
 * PCT/N (the Nth slice of PCT percent) when slash, else PCT-PCT. */
static bool parse_pct_piece(const char *s, size_t len, bool slash,
			    double *lo, double *hi)
{
	const char *sep = memchr(s, slash ? '/' : '-', len);

	if (!sep)
		return false;
	if (slash) {
		char buf[32], *end;
		const size_t n = len - (size_t)(sep - s) - 1;
		double pct;
		long i;

		if (n >= sizeof(buf) || !parse_pct(s, (size_t)(sep - s), &pct))
			return false;
		memcpy(buf, sep + 1, n);
		buf[n] = '\0';
		i = strtol(buf, &end, 10);
		if (*end || pct <= 0)
			return false;
		*lo = pct * (double)(i - 1);
		*hi = pct * (double)i;
	} else if (!parse_pct(s, (size_t)(sep - s), lo) ||
		   !parse_pct(sep + 1, len - (size_t)(sep - s) - 1, hi)) {
		return false;
	}
	/* perf's set_percent_time() */
	return *lo >= 0 && *lo <= 1 && *hi >= 0 && *hi <= 1;
}

/* perf_time__percent_parse_str(): PCT/N or PCT-PCT pieces separated by
 * commas, or one PCT (the first PCT/1). */
static void parse_time_pct(const struct pd_ctx *ctx, const char *opt,
			   const char *arg, struct cmd_time_range *t)
{
	const bool slash = strchr(arg, '/') != NULL;
	const char *p = arg, *end = arg + strlen(arg);
	bool ok = true;

	t->nr = 0;
	if (!slash && !strchr(arg, '-')) {
		/* "50%": the '%' last */
		ok = end[-1] == '%' && strchr(arg, '%') == end - 1 &&
		     parse_pct(arg, (size_t)(end - arg), &t->pct_hi[0]) &&
		     t->pct_hi[0] > 0 && t->pct_hi[0] <= 1;
		t->pct_lo[0] = 0;
		t->nr = 1;
		p = end;
	}
	/* perf's percent_comma_split(): a trailing comma ends the list */
	while (ok && p < end) {
		const char *comma = strchr(p, ',');
		const size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (t->nr == CMD_TIME_MAX)
			usage_error(ctx, "%s '%s': more than %d ranges", opt,
				    arg, CMD_TIME_MAX);
		ok = parse_pct_piece(p, len, slash, &t->pct_lo[t->nr],
				     &t->pct_hi[t->nr]);
		t->nr++;
		p += len + (comma != NULL);
	}
	if (!ok || !t->nr)
		usage_error(ctx, "%s '%s': expected PCT/N or PCT-PCT lists "
				 "(10%%/2,10%%/3; 0%%-10%%,30%%-40%%) or one "
				 "PCT, within 0%% to 100%%", opt, arg);
	t->pct = arg;
}

void cmd_parse_time(const struct pd_ctx *ctx, const char *opt,
		    const char *arg, struct cmd_time_range *t)
{
	/* as perf, the last --time counts */
	t->nr = 0;
	t->pct = NULL;
	if (strchr(arg, '%'))
		parse_time_pct(ctx, opt, arg, t);
	else
		parse_time_list(ctx, opt, arg, t);
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
	for (size_t i = 0; i < t->nr; i++) {
		struct pda_time_range *r = &t->r[i];

		/* perf's set_percent_time(): rounded, the end less one
		 * ns but at the last sample */
		r->start = first + (uint64_t)llround(t->pct_lo[i] *
						     (double)total);
		r->end = first + (uint64_t)llround(t->pct_hi[i] *
						   (double)total);
		if (r->end > r->start && r->end != env->last_sample_time)
			r->end--;
	}
	t->pct = NULL;
}

uint64_t cmd_time_overlap(const struct cmd_time_range *t, uint64_t a,
			  uint64_t b)
{
	uint64_t sum = 0;

	if (!t->nr)
		return b > a ? b - a : 0;
	for (size_t i = 0; i < t->nr; i++) {
		const uint64_t lo = a > t->r[i].start ? a : t->r[i].start;
		const uint64_t hi =
			t->r[i].end && t->r[i].end < b ? t->r[i].end : b;

		sum += hi > lo ? hi - lo : 0;
	}
	return sum;
}

bool cmd_time_clip(const struct cmd_time_range *t, uint64_t *a,
		   uint64_t *b)
{
	bool met = false;
	uint64_t lo = 0, hi = 0;

	if (!t->nr)
		return true;
	for (size_t i = 0; i < t->nr; i++) {
		const struct pda_time_range *r = &t->r[i];

		if (*b < r->start || (r->end && *a > r->end))
			continue;
		if (!met)
			lo = *a > r->start ? *a : r->start;
		hi = r->end && r->end < *b ? r->end : *b;
		met = true;
	}
	if (met) {
		*a = lo;
		*b = hi;
	}
	return met;
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
