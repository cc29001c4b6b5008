/*
 * cmd_dump.c - `pdtool dump`: every record of a capture, one per line, in
 * file order or time order, as text or JSON; or, with --count, only the
 * totals of decoding everything.
 */
#include "pdtool.h"
#include "pda_capture.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* --count reports the reasons of the first few failures only */
#define MAX_REPORTED_FAILURES 10

const char cmd_dump_usage[] =
	"pdtool dump [--json] [--ordered] [--count] [--aux] [--strict] [-v] "
	"[FILE | -i FILE]";
const char cmd_dump_summary[] = "print every record of a capture, one per line";
const char cmd_dump_options[] =
	"  -i, --input FILE   the capture to read ('-' reads a pipe-mode\n"
	"                     stream from stdin); the same as FILE\n"
	"      --json         one JSON object per record and line\n"
	"      --ordered      records in time order, as perf report sees them\n"
	"      --count        decode every record, print only the totals\n"
	"      --aux          after an Arm SPE capture's AUXTRACE_INFO and\n"
	"                     AUXTRACE records, their metadata and packets as\n"
	"                     perf report -D prints them\n"
	"      --strict       exit 1 when the capture is damaged or a record\n"
	"                     fails to decode\n"
	"  -v, --verbose      more library messages on stderr (repeatable)\n"
	"  -h, --help         this help\n";

struct dump_opts {
	const char *path;
	bool json;
	bool ordered;
	bool count;
	bool aux;
};

enum { OPT_JSON = 256, OPT_ORDERED, OPT_COUNT, OPT_AUX };

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct dump_opts *o)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, OPT_JSON},
		{"ordered", no_argument, NULL, OPT_ORDERED},
		{"count", no_argument, NULL, OPT_COUNT},
		{"aux", no_argument, NULL, OPT_AUX},
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
		case OPT_AUX:
			o->aux = true;
			break;
		default:
			break;
		}
	}
	o->path = cmd_opts_input(&p);
	if (o->aux && (o->json || o->count))
		usage_error(ctx, "--aux prints perf's text: not with %s",
			    o->json ? "--json" : "--count");
}

/* What the capture's callbacks see. */
struct dump_run {
	struct pd_ctx *ctx;
	struct pd_file *f;
	struct pde_dump d;
	struct pde_dump_totals *t;
	uint64_t failed;
	int write_rc;	/* a writer's failure, which stopped the run */
	int write_errno;
	bool aux;	/* --aux */
	bool spe;	/* an Arm SPE AUXTRACE_INFO was seen */
	bool aux_other; /* another kind of trace was seen (said once) */
};

/* A writer's result: a closed pipe is not a failure (E10); any other
 * stops the run, and the command reports it once the run is over. */
static int wrote(struct dump_run *dr, int rc)
{
	if (rc >= 0 || (rc == PD_ERR_IO && errno == EPIPE))
		return 0;
	dr->write_rc = rc;
	dr->write_errno = errno;
	return rc;
}

/*
 * --count: the benchmarked path.  Every record is decoded into structs on
 * the stack; nothing is allocated or formatted per record, and the
 * records by type are the reader's count (cmd_dump).
 */
static int count_rec(void *arg, const struct pd_rec *rec)
{
	struct dump_run *dr = arg;
	struct pde_dump_totals *t = dr->t;
	struct pd_sample s;
	struct pd_event ev;
	int drc;

	if (rec->type == PD_REC_SAMPLE) {
		drc = pd_sample_decode(dr->f, rec, &s);
		if (drc == 0)
			t->samples_decoded++;
	} else {
		drc = pd_event_decode(dr->f, rec, &ev);
	}
	if (PD_UNLIKELY(drc < 0)) {
		if (t->failed < MAX_REPORTED_FAILURES)
			warning(dr->ctx, "'%s': %s", pd_file_name(dr->f),
				pd_file_errmsg(dr->f));
		t->failed++;
	}
	return 0;
}

/* The names of the AUX trace kinds pdtool does not decode. */
static const char *aux_kind(uint32_t type)
{
	switch (type) {
	case 1:
		return "Intel PT";
	case 2:
		return "Intel BTS";
	case 3:
		return "CoreSight ETM";
	case 5:
		return "s390 CPU-MF";
	case 6:
		return "HiSilicon PTT";
	default:
		return "unknown";
	}
}

/* --aux: what follows an AUXTRACE_INFO or AUXTRACE record's line. */
static int dump_aux(struct dump_run *dr, const struct pd_rec *rec,
		    const struct pd_event *ev)
{
	struct pd_spe_info info;
	int rc;

	if (rec->type == PD_REC_AUXTRACE_INFO) {
		if (ev->auxtrace_info.type != PD_AUXTRACE_ARM_SPE) {
			if (!dr->aux_other)
				warning(dr->ctx,
					"'%s': %s trace (AUXTRACE_INFO type "
					"%u) is not decoded",
					pd_file_name(dr->f),
					aux_kind(ev->auxtrace_info.type),
					ev->auxtrace_info.type);
			dr->aux_other = true;
			return 0;
		}
		rc = pd_spe_info_decode(dr->f, &ev->auxtrace_info, &info);
		if (rc < 0) {
			dr->failed++;
			return wrote(dr, pde_dump_failed(&dr->d, rec,
							 pd_file_errmsg(dr->f)));
		}
		dr->spe = true;
		return wrote(dr, pde_spe_dump_info(dr->ctx->out, &info));
	}
	if (rec->type != PD_REC_AUXTRACE || !dr->spe ||
	    !ev->auxtrace.data)
		return 0;
	return wrote(dr, pde_spe_dump_trace(dr->ctx->out, ev->auxtrace.data,
					    ev->auxtrace.data_size,
					    rec->offset + rec->size));
}

static int dump_rec(void *arg, const struct pd_rec *rec)
{
	struct dump_run *dr = arg;
	struct pd_sample s;
	struct pd_event ev;
	int drc, rc = 0;

	if (rec->type == PD_REC_SAMPLE) {
		drc = pd_sample_decode(dr->f, rec, &s);
		if (drc == 0)
			rc = wrote(dr, pde_dump_sample(&dr->d, rec, &s));
	} else {
		drc = pd_event_decode(dr->f, rec, &ev);
		if (drc == PD_EVENT_UNKNOWN)
			rc = wrote(dr, pde_dump_unknown(&dr->d, rec));
		else if (drc == 0)
			rc = wrote(dr, pde_dump_event(&dr->d, rec, &ev));
		if (rc == 0 && drc == 0 && dr->aux)
			rc = dump_aux(dr, rec, &ev);
	}
	if (rc == 0 && drc < 0) {
		rc = wrote(dr, pde_dump_failed(&dr->d, rec,
					       pd_file_errmsg(dr->f)));
		dr->failed++;
	}
	return rc;
}

int cmd_dump(int argc, char **argv, struct pd_ctx *ctx)
{
	struct dump_opts o = {NULL, false, false, false, false};
	const struct pd_reader_stats *st;
	struct dump_run dr = {.ctx = ctx};
	struct pda_capture cap;
	struct pd_file *f;
	unsigned warnings_before;
	uint64_t failed;
	int rc, status = 0;

	parse_args(argc, argv, ctx, &o);
	f = ctx_open(ctx, o.path);
	dr.f = f;
	dr.aux = o.aux;
	{
		PDA_CAPTURE_OPTS(co, .ordered = o.ordered,
				 .rec_fn = o.count ? count_rec : dump_rec,
				 .arg = &dr);

		rc = pda_capture_init(&cap, f, NULL, &co);
	}
	if (rc < 0)
		die(ctx, "cannot read '%s': %s", pd_file_name(f),
		    pda_capture_errmsg(&cap));
	dr.t = calloc(1, sizeof(*dr.t));
	if (!dr.t)
		die(ctx, "out of memory");
	warnings_before = ctx->nr_warnings;
	if (!o.count)
		pde_dump_init(&dr.d, ctx->out, o.json);
	rc = pda_capture_run(&cap);
	if (dr.write_rc) {
		errno = dr.write_errno;
		ctx_check_write(ctx, dr.write_rc, NULL);
	}
	if (rc < 0)
		die(ctx, "cannot read '%s': %s", pd_file_name(f),
		    pda_capture_errmsg(&cap));
	st = &pda_capture_stats(&cap)->reader;
	failed = o.count ? dr.t->failed : dr.failed;
	if (o.count) {
		dr.t->nr_records = st->nr_records;
		memcpy(dr.t->by_type, st->by_type, sizeof(dr.t->by_type));
		dr.t->nr_other_type = st->nr_other_type;
		dr.t->nr_compressed = st->nr_compressed;
		dr.t->compressed_bytes = st->compressed_bytes;
		dr.t->decompressed_bytes = st->decompressed_bytes;
		ctx_check_write(ctx, pde_dump_totals(ctx->out, o.json, dr.t),
				NULL);
	}

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
	free(dr.t);
	pda_capture_release(&cap);
	pd_file_close(f);
	return status;
}
