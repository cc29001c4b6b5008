/*
 * cmd_dump.c - `pdtool dump`: every record of a capture, one per line, in
 * file order or time order, as text or JSON; or, with --count, only the
 * totals of decoding everything.
 */
#include "pdtool.h"

#include <inttypes.h>
#include <stdlib.h>

/* --count reports the reasons of the first few failures only */
#define MAX_REPORTED_FAILURES 10

const char cmd_dump_usage[] =
	"pdtool dump [--json] [--ordered] [--count] [--strict] [-v] "
	"{FILE | -i FILE}";
const char cmd_dump_summary[] = "print every record of a capture, one per line";
const char cmd_dump_options[] =
	"  -i, --input FILE   the capture to read ('-' reads a pipe-mode\n"
	"                     stream from stdin); the same as FILE\n"
	"      --json         one JSON object per record and line\n"
	"      --ordered      records in time order, as perf report sees them\n"
	"      --count        decode every record, print only the totals\n"
	"      --strict       exit 1 when the capture is damaged or a record\n"
	"                     fails to decode\n"
	"  -v, --verbose      more library messages on stderr (repeatable)\n"
	"  -h, --help         this help\n";

struct dump_opts {
	const char *path;
	bool json;
	bool ordered;
	bool count;
};

enum { OPT_JSON = 256, OPT_ORDERED, OPT_COUNT };

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct dump_opts *o)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, OPT_JSON},
		{"ordered", no_argument, NULL, OPT_ORDERED},
		{"count", no_argument, NULL, OPT_COUNT},
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
		case OPT_ORDERED:
			o->ordered = true;
			break;
		case OPT_COUNT:
			o->count = true;
			break;
		default:
			break;
		}
	}
	o->path = cmd_opts_input(&p);
}

/*
 * --count: the benchmarked path.  Every record is decoded into structs on
 * the stack; nothing is allocated or formatted per record.
 */
static int count_records(struct pd_ctx *ctx, struct pd_file *f,
			 struct pd_reader *r, struct pde_dump_totals *t)
{
	struct pd_rec rec;
	struct pd_sample s;
	struct pd_event ev;
	int rc, drc;

	while ((rc = pd_reader_next(r, &rec)) > 0) {
		t->nr_records++;
		if (rec.type < PD_REC_TYPE_MAX)
			t->by_type[rec.type]++;
		else
			t->nr_other_type++;
		if (rec.type == PD_REC_SAMPLE) {
			drc = pd_sample_decode(f, &rec, &s);
			if (drc == 0)
				t->samples_decoded++;
		} else {
			drc = pd_event_decode(f, &rec, &ev);
		}
		if (PD_UNLIKELY(drc < 0)) {
			if (t->failed < MAX_REPORTED_FAILURES)
				warning(ctx, "'%s': %s", pd_file_name(f),
					pd_file_errmsg(f));
			t->failed++;
		}
	}
	return rc;
}

static int dump_records(struct pd_ctx *ctx, struct pd_file *f,
			struct pd_reader *r, struct pde_dump *d,
			uint64_t *failed)
{
	struct pd_rec rec;
	struct pd_sample s;
	struct pd_event ev;
	int rc, drc;

	while ((rc = pd_reader_next(r, &rec)) > 0) {
		if (rec.type == PD_REC_SAMPLE) {
			drc = pd_sample_decode(f, &rec, &s);
			if (drc == 0)
				ctx_check_write(ctx, pde_dump_sample(d, &rec, &s),
						NULL);
		} else {
			drc = pd_event_decode(f, &rec, &ev);
			if (drc == PD_EVENT_UNKNOWN)
				ctx_check_write(ctx, pde_dump_unknown(d, &rec),
						NULL);
			else if (drc == 0)
				ctx_check_write(ctx, pde_dump_event(d, &rec, &ev),
						NULL);
		}
		if (drc < 0) {
			ctx_check_write(ctx,
					pde_dump_failed(d, &rec, pd_file_errmsg(f)),
					NULL);
			(*failed)++;
		}
	}
	return rc;
}

int cmd_dump(int argc, char **argv, struct pd_ctx *ctx)
{
	struct dump_opts o = {NULL, false, false, false};
	const struct pd_reader_stats *st;
	struct pde_dump_totals *totals;
	struct pd_reader *r;
	struct pd_file *f;
	struct pde_dump d;
	unsigned warnings_before;
	uint64_t failed = 0;
	int rc, status = 0;

	parse_args(argc, argv, ctx, &o);
	f = ctx_open(ctx, o.path);
	rc = pd_reader_new(f, o.ordered ? PD_READ_ORDERED : 0, &r);
	if (rc < 0)
		die(ctx, "cannot read '%s': %s", pd_file_name(f),
		    pd_file_errmsg(f)[0] ? pd_file_errmsg(f) : pd_strerror(rc));
	totals = calloc(1, sizeof(*totals));
	if (!totals)
		die(ctx, "out of memory");
	warnings_before = ctx->nr_warnings;
	if (o.count) {
		rc = count_records(ctx, f, r, totals);
		failed = totals->failed;
	} else {
		pde_dump_init(&d, ctx->out, o.json);
		rc = dump_records(ctx, f, r, &d, &failed);
	}
	if (rc < 0)
		die(ctx, "cannot read '%s': %s", pd_file_name(f),
		    pd_file_errmsg(f)[0] ? pd_file_errmsg(f) : pd_strerror(rc));
	if (o.count) {
		const struct pd_reader_stats *rs = pd_reader_stats(r);

		totals->nr_compressed = rs->nr_compressed;
		totals->compressed_bytes = rs->compressed_bytes;
		totals->decompressed_bytes = rs->decompressed_bytes;
		ctx_check_write(ctx, pde_dump_totals(ctx->out, o.json, totals),
				NULL);
	}

	st = pd_reader_stats(r);
	if (st->damaged) {
		/* the library's logger has normally said it already */
		if (ctx->nr_warnings == warnings_before)
			warning(ctx, "'%s': %s", pd_file_name(f), st->damage);
		if (ctx->strict)
			status = EXIT_UNRESOLVED;
	}
	if (failed) {
		warning(ctx, "'%s': %" PRIu64 " record%s failed to decode",
			pd_file_name(f), failed, failed == 1 ? "" : "s");
		if (ctx->strict)
			status = EXIT_UNRESOLVED;
	}
	free(totals);
	pd_reader_free(r);
	pd_file_close(f);
	return status;
}
