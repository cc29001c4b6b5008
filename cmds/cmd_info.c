/*
 * cmd_info.c - `pdtool info`: what a capture says about itself (header,
 * events, feature sections) and what its records hold (counts by type,
 * samples, lost samples, time span).
 */
#include "pdtool.h"
#include "pda_capture.h"

#include <string.h>

const char cmd_info_usage[] =
	"pdtool info [--json] [--header-only] [--strict] [-v] [FILE | -i FILE]";
const char cmd_info_summary[] =
	"describe a capture: host, events, features, record counts";
const char cmd_info_options[] =
	"  -i, --input FILE  the capture (as the FILE operand); '-' reads a\n"
	"                    pipe-mode stream from standard input\n"
	"      --json        print one JSON object instead of text\n"
	"      --header-only print the header, events and feature sections\n"
	"                    only; do not count the records (a pipe-mode\n"
	"                    stream is still read: its header is in it)\n"
	"      --strict      exit 1 when anything was skipped or damaged:\n"
	"                    records cut short, a damaged or unknown feature\n"
	"                    section, a sample that does not decode, any\n"
	"                    warning\n"
	"  -v, --verbose     more messages from the reader (repeatable)\n"
	"  -h, --help        show this help\n";

enum { OPT_JSON = 256, OPT_HEADER_ONLY };

struct info_opts {
	const char *path;
	bool json;
	bool header_only;
};

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct info_opts *o)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, OPT_JSON},
		{"header-only", no_argument, NULL, OPT_HEADER_ONLY},
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON, .own_longopts = longopts};
	int c;

	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1) {
		switch (c) {
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_HEADER_ONLY:
			o->header_only = true;
			break;
		default:
			break;
		}
	}
	o->path = cmd_opts_input(&p);
}

static void count_type(struct pde_info_counts *c, uint32_t type, uint64_t n)
{
	c->total += n;
	if (type < PD_REC_TYPE_MAX) {
		c->by_type[type] += n;
		return;
	}
	for (unsigned i = 0; i < c->nr_other; i++) {
		if (c->other[i].type == type) {
			c->other[i].count += n;
			return;
		}
	}
	if (c->nr_other < PDE_INFO_MAX_OTHER) {
		c->other[c->nr_other].type = type;
		c->other[c->nr_other++].count = n;
	} else {
		c->nr_other_lumped += n;
	}
}

static void count_sample(struct pd_ctx *ctx, struct pd_file *f,
			 const struct pd_rec *rec, struct pde_info_counts *c)
{
	struct pd_sample s;

	c->nr_samples++;
	if (pd_sample_decode(f, rec, &s) < 0) {
		if (c->nr_bad_samples++ == 0)
			warning(ctx, "'%s': %s", pd_file_name(f),
				pd_file_errmsg(f));
		return;
	}
	if (!(s.mask & PD_SAMPLE_TIME))
		return;
	if (!c->has_time || s.time < c->time_first_ns)
		c->time_first_ns = s.time;
	if (!c->has_time || s.time > c->time_last_ns)
		c->time_last_ns = s.time;
	c->has_time = 1;
}

/* The reader delivers what compressed chunks hold; perf counts both. */
static void count_chunks(const struct pd_reader_stats *st,
			 struct pde_info_counts *c)
{
	count_type(c, PD_REC_COMPRESSED, st->nr_compressed - st->nr_compressed2);
	count_type(c, PD_REC_COMPRESSED2, st->nr_compressed2);
}

/* What the capture's callback sees. */
struct info_run {
	struct pd_ctx *ctx;
	struct pd_file *f;
	struct pde_info_counts *c;
};

static int info_rec(void *arg, const struct pd_rec *rec)
{
	struct info_run *ir = arg;

	count_type(ir->c, rec->type, 1);
	if (rec->type == PD_REC_SAMPLE)
		count_sample(ir->ctx, ir->f, rec, ir->c);
	return 0;
}

/* Every record, in file order, counted into c; the capture run in cap
 * holds the reader's statistics. */
static void read_records(struct pd_ctx *ctx, struct pd_file *f,
			 const char *path, struct pde_info_counts *c,
			 struct pda_capture *cap)
{
	struct info_run ir = {ctx, f, c};
	PDA_CAPTURE_OPTS(co, .rec_fn = info_rec, .arg = &ir);
	const struct pda_capture_stats *cs = pda_capture_stats(cap);
	int rc;

	rc = pda_capture_init(cap, f, NULL, &co);
	if (rc == 0)
		rc = pda_capture_run(cap);
	if (rc < 0)
		die(ctx, "'%s': %s", path, pda_capture_errmsg(cap));
	c->lost = cs->nr_lost;
	c->lost_samples = cs->nr_lost_samples;
	c->lost_total = cs->lost;
	c->dropped_samples = cs->nr_dropped_samples;
	if (cs->reader.nr_compressed)
		count_chunks(&cs->reader, c);
	if (c->nr_bad_samples > 1)
		warning(ctx, "'%s': %llu samples could not be decoded", path,
			(unsigned long long)c->nr_bad_samples);
	c->read = 1;
}

int cmd_info(int argc, char **argv, struct pd_ctx *ctx)
{
	struct info_opts o = { 0 };
	struct pde_info_counts counts;
	struct pde_info info = { 0 };
	struct pda_capture cap;
	const struct pd_reader_stats *st = NULL;
	struct pd_file *f;
	bool problems;

	parse_args(argc, argv, ctx, &o);
	f = ctx_open(ctx, o.path);
	memset(&counts, 0, sizeof(counts));
	memset(&cap, 0, sizeof(cap));
	/* a pipe-mode header (attrs, features) is in its record stream */
	if (!o.header_only || pd_file_header(f)->kind == PD_KIND_PIPE) {
		read_records(ctx, f, o.path, &counts, &cap);
		st = &pda_capture_stats(&cap)->reader;
		if (o.header_only)
			counts.read = 0;
	}
	info.path = o.path;
	info.f = f;
	if (pd_file_env(f, &info.env) < 0)
		die(ctx, "'%s': %s", o.path, pd_strerror(PD_ERR_NOMEM));
	info.stats = st;
	info.counts = &counts;
	ctx_check_write(ctx, o.json ? pde_info_json(ctx->out, &info)
				    : pde_info_text(ctx->out, &info),
			NULL);

	problems = ctx->nr_warnings > 0 || (st && st->damaged) ||
		   info.env->nr_damaged || info.env->nr_unknown_features ||
		   counts.nr_bad_samples;
	pda_capture_release(&cap);
	pd_file_close(f);
	return ctx->strict && problems ? EXIT_UNRESOLVED : 0;
}
