/*
 * cmd_export.c - `pdtool export`: a capture's profile, symbolized here,
 * in a format another tool's viewer reads (pprof's profile.proto).  The
 * profile is pda_collect's (per address, per event), the writers are
 * emit's; this file reads options, runs the capture, names the mappings'
 * build-ids from the capture's header, and compresses what pprof reads
 * gzipped.
 */
#include "pdtool.h"
#include "pda_capture.h"
#include "pda_collect.h"
#include "pda_session.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* next_in as a pointer to const: the profile is not changed */
#define ZLIB_CONST
#include <zlib.h>

const char cmd_export_usage[] =
	"pdtool export --format FMT -o OUT [OPTIONS] [FILE | -i FILE]";
const char cmd_export_summary[] =
	"a symbolized profile for other viewers: pprof";
const char cmd_export_options[] =
	"  -i, --input FILE      the capture ('-': standard input); the same\n"
	"                        as FILE\n"
	"  -o, --output FILE     write there ('-': stdout, not a terminal)\n"
	"      --format FMT      pprof: a gzipped profile.proto that go tool\n"
	"                        pprof reads (default)\n"
	"      --max-stack N     callchain frames kept from the leaf\n"
	"                        (default 127, as perf)\n"
	"      --inline          inlined functions as frames on every stack\n"
	"                        (perf: only on DWARF-unwound user stacks)\n"
	"      --no-inline       no inlined frames on any stack\n"
	"      --no-srcline      no source files and lines (faster)\n"
	"      --pid LIST        only samples of these processes\n"
	"      --tid LIST        only samples of these threads\n"
	"      --time START,END  only samples in this time range, in seconds\n"
	"                        as perf prints them; either end may be empty\n"
	CMD_FIND_HELP
	CMD_SYMBOL_HELP
	CMD_UNWINDER_HELP
	CMD_JOBS_HELP
	"      --strict          exit 1 when anything was unresolved, lost or\n"
	"                        skipped\n"
	"  -v, --verbose         more library messages (repeatable)\n"
	"  -h, --help            this help\n";

enum {
	OPT_FORMAT = 256,
	OPT_MAX_STACK,
	OPT_INLINE,
	OPT_NO_INLINE,
	OPT_NO_SRCLINE,
	OPT_PID,
	OPT_TID,
	OPT_TIME,
};

enum export_format { FMT_PPROF };

#define MAX_IDS 1024

struct export_opts {
	const char *path, *output;
	enum export_format format;
	unsigned max_stack;
	bool inline_frames, no_inline, no_srcline;
	uint32_t pids[MAX_IDS], tids[MAX_IDS];
	size_t nr_pids, nr_tids;
	struct cmd_time_range time;
	struct cmd_symopts sym;
	const char *unwinder;
	unsigned jobs;
};

static void export_option(struct pd_ctx *ctx, struct export_opts *o, int c,
			  const char *arg)
{
	switch (c) {
	case 'o':
		o->output = arg;
		break;
	case OPT_FORMAT:
		if (strcmp(arg, "pprof") == 0)
			o->format = FMT_PPROF;
		else
			usage_error(ctx, "--format: unknown format '%s' (pprof)", arg);
		break;
	case OPT_MAX_STACK:
		o->max_stack = cmd_max_stack(ctx, arg);
		break;
	case OPT_INLINE:
		o->inline_frames = true;
		o->no_inline = false;
		break;
	case OPT_NO_INLINE:
		o->inline_frames = false;
		o->no_inline = true;
		break;
	case OPT_NO_SRCLINE:
		o->no_srcline = true;
		break;
	case OPT_PID:
		o->nr_pids = cmd_parse_u32_list(ctx, "--pid", "pids", arg,
						o->pids, o->nr_pids, MAX_IDS,
						false);
		break;
	case OPT_TID:
		o->nr_tids = cmd_parse_u32_list(ctx, "--tid", "tids", arg,
						o->tids, o->nr_tids, MAX_IDS,
						false);
		break;
	case OPT_TIME:
		cmd_parse_time_range(ctx, "--time", arg, &o->time);
		break;
	default:
		cmd_stack_opt(ctx, c, arg, &o->sym, &o->unwinder, &o->jobs);
		break;
	}
}

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct export_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"max-stack", required_argument, NULL, OPT_MAX_STACK},
		{"inline", no_argument, NULL, OPT_INLINE},
		{"no-inline", no_argument, NULL, OPT_NO_INLINE},
		{"no-srcline", no_argument, NULL, OPT_NO_SRCLINE},
		{"pid", required_argument, NULL, OPT_PID},
		{"tid", required_argument, NULL, OPT_TID},
		{"time", required_argument, NULL, OPT_TIME},
		CMD_UNWINDER_LONGOPT,
		CMD_JOBS_LONGOPT,
		{NULL, 0, NULL, 0},
	};
	static const struct option symopts[] = {
		CMD_SYMBOL_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
			     .own_shortopts = "o:j:",
			     .own_longopts = longopts,
			     .more_longopts = symopts};
	int c;

	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1)
		export_option(ctx, o, c, optarg);
	o->path = cmd_opts_input(&p);
	if (!o->output)
		usage_error(ctx, "no output: -o FILE ('-': stdout)");
	if (!strcmp(o->output, "-") && isatty(STDOUT_FILENO))
		usage_error(ctx, "a binary profile is not for a terminal: -o "
				 "FILE, or a pipe");
}

/* What the capture's callbacks see. */
struct export_run {
	struct pd_ctx *ctx;
	const struct export_opts *o;
	struct pda_collect *col;
	struct pda_filter flt;
	struct pda_capture c;
	uint64_t first_time, last_time;
	bool has_time;
};

static int export_one(void *arg, const struct pda_pipe_item *it)
{
	struct export_run *er = arg;
	const struct pd_sample *s = it->sample;
	int rc;

	if (s->mask & PD_SAMPLE_TIME) {
		if (!er->has_time || s->time < er->first_time)
			er->first_time = s->time;
		if (!er->has_time || s->time > er->last_time)
			er->last_time = s->time;
		er->has_time = true;
	}
	rc = pda_collect_add(er->col, s, it->stack, it->comm);
	return rc < 0 ? rc : 0;
}

static int export_skip(void *arg, enum pda_capture_skip what, const char *why)
{
	struct export_run *er = arg;

	cmd_capture_skip_warn(er->ctx, &er->c, er->o->path, what, why);
	return 0;
}

/*
 * The build-id of each mapping, by its path, from the capture's
 * HEADER_BUILD_ID table (hex; "" where the capture names none): what
 * lets pprof, or a symbol server, find the binary on another host.
 */
static char **mapping_build_ids(struct pd_ctx *ctx, struct pd_file *f,
				const struct pda_profile *p, size_t *nr)
{
	const size_t n = pda_profile_nr_mappings(p);
	const struct pd_env *env = NULL;
	char **ids = calloc(n ? n : 1, sizeof(*ids));

	if (!ids)
		die(ctx, "out of memory");
	*nr = n;
	if (pd_file_env(f, &env) < 0 || !env)
		return ids;
	for (uint32_t m = 1; m < n; m++) {
		const char *name =
			pda_profile_str(p, pda_profile_mapping(p, m)->name, NULL);

		for (size_t i = 0; i < env->nr_build_ids; i++) {
			const struct pd_env_build_id *b = &env->build_ids[i];
			/* a damaged entry may claim more than it holds */
			const unsigned sz = b->size < sizeof(b->build_id)
						    ? b->size
						    : sizeof(b->build_id);

			if (!b->filename || strcmp(b->filename, name) != 0)
				continue;
			ids[m] = malloc(2 * (size_t)sz + 1);
			if (!ids[m])
				die(ctx, "out of memory");
			for (unsigned k = 0; k < sz; k++)
				snprintf(ids[m] + 2 * k, 3, "%02x",
					 b->build_id[k]);
			ids[m][2 * sz] = '\0';
			break;
		}
	}
	return ids;
}

/*
 * len bytes of data as one gzip member into out (pprof reads its
 * profiles gzipped, as it writes them).  @return 0, PD_ERR_NOMEM or
 * PD_ERR_IO.
 */
static int gzip_write(FILE *out, const unsigned char *data, size_t len)
{
	unsigned char buf[1 << 16];
	z_stream z;
	int zrc;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return PD_ERR_NOMEM;
	z.next_in = data;
	do {
		/* avail_in is 32 bits: feed a large input in pieces */
		const size_t chunk = len > (1u << 30) ? (1u << 30) : len;

		if (!z.avail_in) {
			z.avail_in = (uInt)chunk;
			len -= chunk;
		}
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		zrc = deflate(&z, len || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
		if (zrc == Z_STREAM_ERROR)
			break;
		if (fwrite(buf, 1, sizeof(buf) - z.avail_out, out) !=
		    sizeof(buf) - z.avail_out) {
			zrc = Z_ERRNO;
			break;
		}
	} while (zrc != Z_STREAM_END);
	deflateEnd(&z);
	if (zrc == Z_ERRNO || ferror(out))
		return PD_ERR_IO;
	return zrc == Z_STREAM_END ? 0 : PD_ERR_NOMEM;
}

static void write_pprof(struct pd_ctx *ctx, const struct export_opts *o,
			const struct export_run *er, struct pd_file *f,
			const struct pda_profile *p, FILE *out)
{
	size_t nr_ids, len = 0;
	char **ids = mapping_build_ids(ctx, f, p, &nr_ids);
	char comment[512];
	const char *comments[1] = {comment};
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, &len);
	struct pde_pprof_opts po = {
		.build_ids = (const char *const *)ids,
		.nr_build_ids = nr_ids,
		.inline_frames = o->inline_frames,
		/* the first event's period: what perf report's Overhead
		 * shares by default */
		.period_type_column = 1,
		.duration_nanos =
			er->has_time ? er->last_time - er->first_time : 0,
		.comments = comments,
		.nr_comments = 1,
	};
	int rc;

	if (!mem)
		die(ctx, "out of memory");
	snprintf(comment, sizeof(comment), "pdtool export of %s", o->path);
	rc = pde_pprof(mem, p, &po);
	if (fclose(mem) != 0 && rc == 0)
		rc = PD_ERR_NOMEM;
	if (rc == 0)
		rc = gzip_write(out, (const unsigned char *)buf, len);
	free(buf);
	for (size_t i = 0; i < nr_ids; i++)
		free(ids[i]);
	free(ids);
	ctx_check_write(ctx, rc, o->output);
}

static void coverage(struct pd_ctx *ctx, const struct export_run *er,
		     const struct pda_profile *p, const struct pda_stats *ps)
{
	const struct pda_capture_stats *cs = pda_capture_stats(&er->c);
	const struct pda_collect_stats *st = pda_collect_stats(er->col);
	const uint64_t filtered = pda_filter_stats(&er->flt)->nr_left_out;

	eprintf("pdtool %s: %" PRIu64 " sample%s, %u event%s, %zu stacks, "
		"%zu locations, %zu functions; %" PRIu64 " lost",
		ctx->cmd, st->nr_samples, PLURAL(st->nr_samples),
		st->nr_events, PLURAL(st->nr_events),
		pda_profile_nr_stacks(p) - 1, pda_profile_nr_locs(p) - 1,
		pda_profile_nr_funcs(p) - 1, cs->lost);
	if (filtered)
		eprintf("; %" PRIu64 " filtered out", filtered);
	if (cs->reader.bytes_missing)
		eprintf("; the capture is cut short");
	if (ps && ps->nr_missing)
		eprintf("; %zu binar%s not found", ps->nr_missing,
			ps->nr_missing == 1 ? "y" : "ies");
	fputc('\n', stderr);
	cmd_unresolved_block(ctx, ps, ps ? ps->nr_samples : 0, NULL);
}

int cmd_export(int argc, char **argv, struct pd_ctx *ctx)
{
	struct export_opts *o = calloc(1, sizeof(*o));
	struct export_run er = {.ctx = ctx};
	char err[512] = "";
	struct cmd_progress prog;
	const struct pda_capture_stats *cs;
	const struct pda_stats *ps;
	struct pda_profile *p = NULL;
	struct pda_session *s;
	struct pd_file *f;
	FILE *out;
	int rc;

	if (!o)
		die(ctx, "out of memory");
	parse_args(argc, argv, ctx, o);
	er.o = o;
	f = ctx_open_twice(ctx, o->path);
	{
		PDA_OPTS(po, .no_inline = o->no_inline,
			 .inline_callchain = o->inline_frames,
			 .srcline = !o->no_srcline, .unwinder = o->unwinder,
			 .max_stack = o->max_stack, .errbuf = err,
			 .errbuf_size = sizeof(err));
		PDA_FILTER_OPTS(fo, .flags = PDA_FILTER_TRACEPOINTS,
				.pids = o->nr_pids ? o->pids : NULL,
				.nr_pids = o->nr_pids,
				.tids = o->nr_tids ? o->tids : NULL,
				.nr_tids = o->nr_tids,
				.has_time_start = o->time.has_start,
				.has_time_end = o->time.has_end,
				.time_start = o->time.start,
				.time_end = o->time.end);
		/* a sample without a callchain has its ip as its stack, as
		 * perf report shows it */
		PDA_CAPTURE_OPTS(co, .filter = &er.flt, .jobs = o->jobs,
				 .ip_stacks = true, .sample_fn = export_one,
				 .skip_fn = export_skip,
				 .progress = cmd_progress_fn,
				 .progress_arg = &prog, .arg = &er);
		PDA_COLLECT_OPTS(clo, .flags = PDA_COLLECT_PID | PDA_COLLECT_TID,
				 .max_stack = o->max_stack);

		cmd_pda_opts(ctx, &o->sym, &po);
		rc = pda_session_new(f, &po, &s);
		if (rc < 0)
			die(ctx, "'%s': %s", o->path,
			    err[0] ? err : pd_strerror(rc));
		if (pda_collect_new(&clo, &er.col) < 0)
			die(ctx, "out of memory");
		if (pda_filter_init(&er.flt, &fo) < 0)
			die(ctx, "%s", pd_strerror(PD_ERR_API));
		rc = pda_capture_init(&er.c, f, s, &co);
	}
	if (rc < 0)
		cmd_capture_die(ctx, o->path, &er.c, rc);
	out = ctx_open_output(ctx, o->output);
	cmd_progress_init(&prog, ctx);
	rc = pda_capture_run(&er.c);
	cmd_progress_end(&prog);
	if (rc < 0)
		cmd_capture_die(ctx, o->path, &er.c, rc);
	cs = pda_capture_stats(&er.c);
	cmd_check_kind(ctx, o->path, f, &cs->reader, cs->nr_samples);
	pda_capture_release(&er.c);
	if (pda_collect_profile(er.col, &p) < 0)
		die(ctx, "%s", pd_strerror(PD_ERR_API));
	write_pprof(ctx, o, &er, f, p, out);
	ctx_close_output(ctx, out, o->output);
	ps = pda_session_stats(s);
	coverage(ctx, &er, p, ps);
	cmd_fetch_add(ctx, &ps->debuginfod);
	cmd_fetch_summary(ctx);
	rc = cmd_strict_status(ctx, cs, ps);
	pda_profile_free(p);
	pda_collect_free(er.col);
	pda_session_free(s);
	pd_file_close(f);
	free(o);
	return rc;
}
