/*
 * cmd_export.c - `pdtool export`: a capture's profile, symbolized here,
 * in a format another tool's viewer reads (pprof's profile.proto, the
 * Firefox Profiler's processed profile, speedscope's evented profiles,
 * Chrome's trace events).  The profile is pda_collect's
 * (per address, per event), the writers are emit's; this file reads
 * options, runs the capture, keeps each sample's time and stack (and, for
 * the Firefox Profiler, the switch and lost records) for the timelines,
 * names the mappings' build-ids from the capture's header, and
 * compresses what pprof reads gzipped.
 */
#include "pdtool.h"
#include "pda_capture.h"
#include "pda_collect.h"
#include "pda_session.h"
#include "pdc_alloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* next_in as a pointer to const: the profile is not changed */
#define ZLIB_CONST
#include <zlib.h>

/* The help lines export and timeline share. */
#define EXPORT_IDS_HELP                                                     \
	"      --pid LIST        only samples of these processes\n"           \
	"      --tid LIST        only samples of these threads\n"
#define EXPORT_TAIL_HELP                                                    \
	CMD_FIND_HELP                                                       \
	CMD_SYMBOL_HELP                                                     \
	CMD_UNWINDER_HELP                                                   \
	CMD_JOBS_HELP                                                       \
	"      --strict          exit 1 when anything was unresolved, lost or\n" \
	"                        skipped\n"                                  \
	"  -v, --verbose         more library messages (repeatable)\n"     \
	"  -h, --help            this help\n"

const char cmd_export_usage[] =
	"pdtool export --format FMT -o OUT [OPTIONS] [FILE | -i FILE]";
const char cmd_export_summary[] =
	"a symbolized profile for other viewers: pprof, Firefox Profiler, "
	"speedscope, Perfetto";
const char cmd_export_options[] =
	"  -i, --input FILE      the capture ('-': standard input); the same\n"
	"                        as FILE\n"
	"  -o, --output FILE     write there ('-': stdout; not a terminal\n"
	"                        for what is gzipped)\n"
	"      --format FMT      pprof: a gzipped profile.proto that go tool\n"
	"                        pprof reads (default); firefox: the Firefox\n"
	"                        Profiler's processed profile (JSON), a track\n"
	"                        per thread with samples in time, lost-sample\n"
	"                        and off-CPU markers; speedscope: an\n"
	"                        evented profile per thread, in time;\n"
	"                        chrome: Chrome's trace event format\n"
	"                        (Perfetto, chrome://tracing), a track per\n"
	"                        thread, each sample's frames as slices\n"
	"  -z, --gzip            firefox: gzip the JSON (the profiler reads\n"
	"                        both)\n"
	"      --max-stack N     callchain frames kept from the leaf\n"
	"                        (default 127, as perf)\n"
	"      --inline          inlined functions as frames on every stack\n"
	"                        (perf: only on DWARF-unwound user stacks)\n"
	"      --no-inline       no inlined frames on any stack\n"
	"      --no-srcline      no source files and lines (faster)\n"
	EXPORT_IDS_HELP
	CMD_TIME_HELP
	EXPORT_TAIL_HELP;

enum {
	OPT_FORMAT = 256,
	OPT_MAX_STACK,
	OPT_INLINE,
	OPT_NO_INLINE,
	OPT_NO_SRCLINE,
	OPT_PID,
	OPT_TID,
	OPT_TIME,
	OPT_COLOR,
};

/* export's formats, then timeline's */
enum export_format {
	FMT_PPROF,
	FMT_FIREFOX,
	FMT_SPEEDSCOPE,
	FMT_CHROME,
	FMT_SVG,
	FMT_HTML,
};

#define MAX_IDS 1024

struct export_opts {
	const char *path, *output;
	enum export_format format;
	unsigned max_stack;
	bool inline_frames, no_inline, no_srcline, gzip;
	uint32_t pids[MAX_IDS], tids[MAX_IDS];
	size_t nr_pids, nr_tids;
	struct cmd_time_range time;
	struct cmd_symopts sym;
	const char *unwinder;
	unsigned jobs;
	bool by_cpu;		/* timeline --color cpu */
	const char *tl_format;	/* timeline --format; NULL: by -o */
};

static void export_option(struct pd_ctx *ctx, struct export_opts *o, int c,
			  const char *arg)
{
	switch (c) {
	case 'o':
		o->output = arg;
		break;
	case 'z':
		o->gzip = true;
		break;
	case OPT_FORMAT:
		if (strcmp(arg, "pprof") == 0)
			o->format = FMT_PPROF;
		else if (strcmp(arg, "firefox") == 0)
			o->format = FMT_FIREFOX;
		else if (strcmp(arg, "speedscope") == 0)
			o->format = FMT_SPEEDSCOPE;
		else if (strcmp(arg, "chrome") == 0)
			o->format = FMT_CHROME;
		else
			usage_error(ctx,
				    "--format: unknown format '%s' (pprof, "
				    "firefox, speedscope, chrome)",
				    arg);
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
		cmd_parse_time(ctx, "--time", arg, &o->time);
		break;
	default:
		cmd_stack_opt(ctx, c, arg, &o->sym, &o->unwinder, &o->jobs);
		break;
	}
}

/* The options export and timeline share: which samples, and how
 * their stacks are unwound. */
#define EXPORT_SAMPLE_LONGOPTS                                              \
	{"pid", required_argument, NULL, OPT_PID},                          \
	{"tid", required_argument, NULL, OPT_TID},                          \
	{"time", required_argument, NULL, OPT_TIME},                        \
	CMD_UNWINDER_LONGOPT,                                               \
	CMD_JOBS_LONGOPT

typedef void (*export_option_fn)(struct pd_ctx *ctx, struct export_opts *o,
				 int c, const char *arg);

/* export's or timeline's argv: longopts and the symbol options, each
 * through option_fn; then the capture, and -o, which both require. */
static void export_getopt(int argc, char **argv, struct pd_ctx *ctx,
			  struct export_opts *o, const struct option *longopts,
			  const char *shortopts, export_option_fn option_fn)
{
	static const struct option symopts[] = {
		CMD_SYMBOL_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cmd_opts p = {.flags = CMD_OPT_COMMON,
			     .own_shortopts = shortopts,
			     .own_longopts = longopts,
			     .more_longopts = symopts};
	int c;

	cmd_opts_start(&p, ctx, argc, argv);
	while ((c = cmd_getopt(&p)) != -1)
		option_fn(ctx, o, c, optarg);
	o->path = cmd_opts_input(&p);
	if (!o->output)
		usage_error(ctx, "no output: -o FILE ('-': stdout)");
}

static void parse_args(int argc, char **argv, struct pd_ctx *ctx,
		       struct export_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"gzip", no_argument, NULL, 'z'},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"max-stack", required_argument, NULL, OPT_MAX_STACK},
		{"inline", no_argument, NULL, OPT_INLINE},
		{"no-inline", no_argument, NULL, OPT_NO_INLINE},
		{"no-srcline", no_argument, NULL, OPT_NO_SRCLINE},
		EXPORT_SAMPLE_LONGOPTS,
		{NULL, 0, NULL, 0},
	};

	export_getopt(argc, argv, ctx, o, longopts, "o:j:z", export_option);
	if (o->gzip && o->format != FMT_FIREFOX)
		usage_error(ctx, "--gzip: only with --format firefox (pprof "
				 "is always gzipped)");
	if (!strcmp(o->output, "-") && isatty(STDOUT_FILENO) &&
	    (o->format == FMT_PPROF || o->gzip))
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
	struct ff_run *ff; /* --format firefox: the samples in time */
};

/*
 * --format firefox: the profile only sums, so each kept sample's time,
 * thread, event and stack are kept here, and the context switches and
 * lost records in time, to make each thread's track.
 */
struct ff_rec {
	uint64_t time;
	uint32_t stack, pid, tid;
	uint32_t comm;		/* index into ff_run.comms */
	int event;		/* pda_collect_event() */
	size_t seq;		/* arrival order: ties in time keep it */
};

struct ff_switch {
	uint64_t time;
	uint32_t tid;
	bool out, preempt;
	size_t seq;
};

struct ff_lost {
	uint64_t time, lost;
	uint32_t tid;
	bool samples;		/* LOST_SAMPLES, not LOST */
};

#define FF_MAX_ITEMS ((size_t)1 << 34)

struct ff_run {
	struct ff_rec *recs;
	size_t nr_recs, alloc_recs;
	char **comms;
	size_t nr_comms, alloc_comms;
	struct ff_switch *sw;
	size_t nr_sw, alloc_sw;
	struct ff_lost *lost;
	size_t nr_lost, alloc_lost;
	bool untimed;		/* a sample without a time */
};

/* The index of comm among those seen, the last one first. */
static int ff_comm(struct ff_run *ff, const char *comm, uint32_t *id)
{
	if (!comm)
		comm = "";
	for (size_t i = ff->nr_comms; i-- > 0;)
		if (strcmp(ff->comms[i], comm) == 0) {
			*id = (uint32_t)i;
			return 0;
		}
	if (PDC_GROW(NULL, ff->comms, ff->alloc_comms, ff->nr_comms + 1,
		     UINT32_MAX) < 0)
		return PD_ERR_NOMEM;
	ff->comms[ff->nr_comms] = strdup(comm);
	if (!ff->comms[ff->nr_comms])
		return PD_ERR_NOMEM;
	*id = (uint32_t)ff->nr_comms++;
	return 0;
}

static int ff_sample(struct export_run *er, const struct pd_sample *s,
		     const struct pda_stack *st, const char *comm)
{
	struct ff_run *ff = er->ff;
	struct ff_rec *r;
	uint32_t stack = 0, cid = 0;
	int rc;

	rc = pda_collect_add_stack(er->col, s, st, comm, &stack);
	if (rc == 0)
		rc = ff_comm(ff, comm, &cid);
	if (rc == 0 && PDC_GROW(NULL, ff->recs, ff->alloc_recs,
				ff->nr_recs + 1, FF_MAX_ITEMS) < 0)
		rc = PD_ERR_NOMEM;
	if (rc < 0)
		return rc;
	r = &ff->recs[ff->nr_recs];
	r->time = s->mask & PD_SAMPLE_TIME ? s->time : 0;
	ff->untimed |= !(s->mask & PD_SAMPLE_TIME);
	r->stack = stack;
	r->pid = s->pid;
	r->tid = s->tid;
	r->comm = cid;
	r->event = pda_collect_event(er->col, s->evsel);
	r->seq = ff->nr_recs++;
	return 0;
}

/* Context switches and lost records, in time (the two-pass run's
 * first pass). */
static int ff_order(void *arg, const struct pd_rec *rec,
		    const struct pda_pipe_when *when)
{
	struct export_run *er = arg;
	struct ff_run *ff = er->ff;
	struct pd_sample_id sid;

	if (rec->type != PD_REC_SWITCH && rec->type != PD_REC_SWITCH_CPU_WIDE &&
	    rec->type != PD_REC_LOST && rec->type != PD_REC_LOST_SAMPLES)
		return 0;
	/* a record whose trailer does not say whose it is marks nothing */
	if (pd_rec_sample_id(er->c.f, rec, &sid) < 0 ||
	    !(sid.mask & PD_SAMPLE_TID))
		return 0;
	if (rec->type == PD_REC_LOST || rec->type == PD_REC_LOST_SAMPLES) {
		struct pd_ev_lost l;

		/* what a BPF filter dropped was not lost */
		if (pd_lost_decode(er->c.f, rec, &l) < 0 || !l.lost ||
		    (rec->type == PD_REC_LOST_SAMPLES &&
		     (rec->misc & PD_MISC_LOST_SAMPLES_BPF)))
			return 0;
		if (PDC_GROW(NULL, ff->lost, ff->alloc_lost, ff->nr_lost + 1,
			     FF_MAX_ITEMS) < 0)
			return PD_ERR_NOMEM;
		ff->lost[ff->nr_lost++] = (struct ff_lost){
			.time = when->time,
			.lost = l.lost,
			.tid = sid.tid,
			.samples = rec->type == PD_REC_LOST_SAMPLES};
		return 0;
	}
	/* both kinds are written as the switching task's, in or out */
	if (PDC_GROW(NULL, ff->sw, ff->alloc_sw, ff->nr_sw + 1,
		     FF_MAX_ITEMS) < 0)
		return PD_ERR_NOMEM;
	ff->sw[ff->nr_sw] = (struct ff_switch){
		.time = when->time,
		.tid = sid.tid,
		.out = rec->misc & PD_MISC_SWITCH_OUT,
		.preempt = rec->misc & PD_MISC_SWITCH_OUT_PREEMPT,
		.seq = ff->nr_sw};
	ff->nr_sw++;
	return 0;
}

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
	if (er->ff)
		return ff_sample(er, s, it->stack, it->comm);
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

static int ff_rec_cmp(const void *a, const void *b)
{
	const struct ff_rec *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int ff_switch_cmp(const void *a, const void *b)
{
	const struct ff_switch *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A marker and the thread it belongs to, sorted by thread then time. */
struct ff_mark {
	uint32_t tid;
	struct pde_ff_marker m;
};

static int ff_mark_cmp(const void *a, const void *b)
{
	const struct ff_mark *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->m.start != y->m.start)
		return x->m.start < y->m.start ? -1 : 1;
	return 0;
}

/* The first track of thread tid, or -1 (tracks sorted by pid, tid). */
static long ff_track_of(const struct pde_ff_thread *t, size_t nr,
			uint32_t tid)
{
	for (size_t i = 0; i < nr; i++)
		if (t[i].tid == tid)
			return (long)i;
	return -1;
}

/* The markers: each switch out to the next switch in of its thread, and
 * each lost record; on the first track of their thread (a lost record of
 * a thread without samples on the first track of all). */
static struct ff_mark *ff_marks(struct pd_ctx *ctx, struct ff_run *ff,
				struct pd_file *f,
				const struct pde_ff_thread *t, size_t nr_t,
				size_t *nr)
{
	struct ff_mark *mk = calloc(ff->nr_sw + ff->nr_lost + 1, sizeof(*mk));
	uint64_t total[2] = {0, 0};
	bool drop[2] = {false, false};
	size_t n = 0;

	if (!mk)
		die(ctx, "out of memory");
	if (ff->nr_sw)
		qsort(ff->sw, ff->nr_sw, sizeof(*ff->sw), ff_switch_cmp);
	for (size_t i = 0; i + 1 < ff->nr_sw; i++) {
		const struct ff_switch *o = &ff->sw[i], *in = &ff->sw[i + 1];

		if (!o->out || in->out || in->tid != o->tid)
			continue;
		mk[n].tid = o->tid;
		mk[n].m = (struct pde_ff_marker){.start = o->time,
						 .end = in->time,
						 .kind = PDE_FF_OFFCPU,
						 .value = o->preempt};
		n++;
	}
	/* where perf reads each event's lost count (perf >= 6.0), LOST and
	 * LOST_SAMPLES tell the same losses: the larger, as perf counts
	 * them (pda_capture_lost_count()) */
	for (size_t i = 0; i < ff->nr_lost; i++)
		total[ff->lost[i].samples] += ff->lost[i].lost;
	if (pda_capture_lost_count(f, total[0], total[1]) <
	    total[0] + total[1])
		drop[total[0] >= total[1]] = true;
	for (size_t i = 0; i < ff->nr_lost; i++) {
		const struct ff_lost *l = &ff->lost[i];

		if (drop[l->samples])
			continue;
		mk[n].tid = ff_track_of(t, nr_t, l->tid) >= 0 ? l->tid
							       : t[0].tid;
		mk[n].m = (struct pde_ff_marker){.start = l->time,
						 .end = l->time,
						 .kind = PDE_FF_LOST,
						 .value = l->lost};
		n++;
	}
	if (n)
		qsort(mk, n, sizeof(*mk), ff_mark_cmp);
	*nr = n;
	return mk;
}

/* "a b c" from argv, for meta.arguments. */
static char *ff_join(const char *const *argv, size_t nr)
{
	size_t len = 1;
	char *s, *p;

	for (size_t i = 0; i < nr; i++)
		len += strlen(argv[i] ? argv[i] : "") + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	*p = '\0';
	for (size_t i = 0; i < nr; i++) {
		const size_t l = strlen(argv[i] ? argv[i] : "");

		if (i)
			*p++ = ' ';
		memcpy(p, argv[i] ? argv[i] : "", l);
		p += l;
		*p = '\0';
	}
	return s;
}

/* The timed formats' tracks: one per thread and event, each with its
 * samples in time, sorted by pid, tid and event. */
struct ff_tracks {
	struct pde_ff_sample *smp;
	struct pde_ff_thread *t;
	char **names;
	size_t nr;
};

static void ff_tracks(struct pd_ctx *ctx, struct ff_run *ff,
		      const struct pda_profile *p, unsigned nr_events,
		      struct ff_tracks *tr)
{
	struct pde_ff_sample *smp = calloc(ff->nr_recs + 1, sizeof(*smp));
	struct pde_ff_thread *t = calloc(ff->nr_recs + 1, sizeof(*t));
	char **names = calloc(ff->nr_recs + 1, sizeof(*names));
	size_t nr_t = 0;

	if (!smp || !t || !names)
		die(ctx, "out of memory");
	if (ff->nr_recs)
		qsort(ff->recs, ff->nr_recs, sizeof(*ff->recs), ff_rec_cmp);
	/* a track per thread and event, its samples in time */
	for (size_t i = 0; i < ff->nr_recs; i++) {
		const struct ff_rec *r = &ff->recs[i];

		if (!i || r->pid != r[-1].pid || r->tid != r[-1].tid ||
		    r->event != r[-1].event) {
			t[nr_t].pid = r->pid;
			t[nr_t].tid = r->tid;
			t[nr_t].samples = &smp[i];
			nr_t++;
		}
		/* without times, the samples in the order they came, 1 ms
		 * apart, so the track still reads left to right */
		smp[i].time = ff->untimed ? (uint64_t)r->seq * 1000000 : r->time;
		smp[i].stack = r->stack;
		t[nr_t - 1].nr_samples++;
	}
	/* each track named by its thread's last comm (and its event) */
	for (size_t k = 0, i = 0; k < nr_t; i += t[k].nr_samples, k++) {
		const struct ff_rec *last = &ff->recs[i + t[k].nr_samples - 1];
		const char *comm = ff->comms[last->comm];
		const struct pda_profile_column *col =
			pda_profile_column(p, 2 * (unsigned)last->event);
		const char *ev = col ? pda_profile_str(p, col->event, NULL) : "";
		const size_t size = strlen(comm) + strlen(ev) + 16;
		char *name = malloc(size);

		if (!name)
			die(ctx, "out of memory");
		if (nr_events > 1)
			snprintf(name, size, "%s (%s)",
				 *comm ? comm : "[unknown]", ev);
		else
			snprintf(name, size, "%s", *comm ? comm : "[unknown]");
		names[k] = name;
		t[k].name = name;
		t[k].comm = *comm ? comm : "[unknown]";
		t[k].event = ev;
	}
	/* the process's name: its main thread's comm, where it has one */
	for (size_t k = 0; k < nr_t; k++)
		for (size_t m = 0; m < nr_t && t[m].pid <= t[k].pid; m++)
			if (t[m].pid == t[k].pid && t[m].tid == t[m].pid) {
				t[k].process_name = t[m].name;
				break;
			}
	*tr = (struct ff_tracks){.smp = smp, .t = t, .names = names,
				 .nr = nr_t};
}

/*
 * The switch and lost records as markers on the tracks of their threads
 * (a thread that switched but was never sampled has no track to show
 * its markers on); *mk and *marks for the caller to free.  @return
 * how many markers.
 */
static size_t ff_attach_marks(struct pd_ctx *ctx, struct ff_run *ff,
			    struct pd_file *f, struct ff_tracks *tr,
			    struct ff_mark **mkp, struct pde_ff_marker **marksp)
{
	struct pde_ff_thread *t = tr->t;
	size_t nr_marks = 0;
	struct ff_mark *mk =
		tr->nr ? ff_marks(ctx, ff, f, t, tr->nr, &nr_marks) : NULL;
	struct pde_ff_marker *marks = calloc(nr_marks + 1, sizeof(*marks));

	if (!marks)
		die(ctx, "out of memory");
	for (size_t i = 0; i < nr_marks; i++)
		marks[i] = mk[i].m;
	for (size_t i = 0; i < nr_marks;) {
		const long k = ff_track_of(t, tr->nr, mk[i].tid);
		size_t j = i;

		while (j < nr_marks && mk[j].tid == mk[i].tid)
			j++;
		if (k >= 0) {
			t[k].markers = &marks[i];
			t[k].nr_markers = j - i;
		}
		i = j;
	}
	*mkp = mk;
	*marksp = marks;
	return nr_marks;
}

static void ff_tracks_free(struct ff_tracks *tr)
{
	for (size_t k = 0; k < tr->nr; k++)
		free(tr->names[k]);
	free(tr->names);
	free(tr->t);
	free(tr->smp);
}

/* The sampling interval in ns: perf's -F, else the mean gap between
 * samples; 0 unknown. */
static double ff_interval_ns(struct pd_file *f, const struct export_run *er)
{
	const struct ff_run *ff = er->ff;
	const struct pd_evsel *ev0 =
		pd_file_nr_evsels(f) ? pd_file_evsel(f, 0) : NULL;
	const uint64_t span = er->last_time - er->first_time;

	if (ev0 && (ev0->attr.flags & (1ull << PD_ATTR_freq)) &&
	    ev0->attr.sample_period)
		return 1e9 / (double)ev0->attr.sample_period;
	if (ff->nr_recs > 1 && !ff->untimed && span)
		return (double)span / (double)(ff->nr_recs - 1);
	return 0;
}

static void ff_untimed_warn(struct pd_ctx *ctx, const struct export_opts *o,
			    const struct ff_run *ff)
{
	if (ff->untimed)
		warning(ctx, "'%s': samples without a time: the timeline "
			     "shows them in order, 1 ms apart",
			o->path);
}

static void write_firefox(struct pd_ctx *ctx, const struct export_opts *o,
			  const struct export_run *er, struct pd_file *f,
			  const struct pda_profile *p, FILE *out)
{
	struct ff_run *ff = er->ff;
	const unsigned nr_events = pda_collect_stats(er->col)->nr_events;
	const struct pd_env *env = NULL;
	size_t nr_ids, len = 0;
	char **ids = mapping_build_ids(ctx, f, p, &nr_ids);
	struct ff_tracks tr;
	struct pde_ff_thread *t;
	struct ff_mark *mk;
	struct pde_ff_marker *marks;
	char oscpu[256] = "", *args = NULL, *buf = NULL;
	FILE *dst = out;
	int rc;

	ff_tracks(ctx, ff, p, nr_events, &tr);
	t = tr.t;
	(void)ff_attach_marks(ctx, ff, f, &tr, &mk, &marks);
	if (pd_file_env(f, &env) < 0)
		env = NULL;
	if (env && env->os_release)
		snprintf(oscpu, sizeof(oscpu), "Linux %s%s%s", env->os_release,
			 env->arch ? " " : "", env->arch ? env->arch : "");
	if (env && env->nr_cmdline)
		args = ff_join(env->cmdline, env->nr_cmdline);
	{
		struct pde_firefox_opts fo = {
			.threads = t,
			.nr_threads = tr.nr,
			.start_time = ff->untimed ? 0 : er->first_time,
			.end_time = ff->untimed ? ff->nr_recs * 1000000
						: er->last_time,
			.build_ids = (const char *const *)ids,
			.nr_build_ids = nr_ids,
			.product = o->path,
			.arguments = args,
			.arch = env ? env->arch : NULL,
			.oscpu = *oscpu ? oscpu : NULL,
			.cpu_name = env ? env->cpu_desc : NULL,
			.nr_cpus = env ? env->nr_cpus_online : 0,
			.interval_ms = ff_interval_ns(f, er) / 1e6,
		};

		if (o->gzip) {
			dst = open_memstream(&buf, &len);
			if (!dst)
				die(ctx, "out of memory");
		}
		rc = pde_firefox(dst, p, &fo);
	}
	if (o->gzip) {
		if (fclose(dst) != 0 && rc == 0)
			rc = PD_ERR_NOMEM;
		if (rc == 0)
			rc = gzip_write(out, (const unsigned char *)buf, len);
		free(buf);
	}
	ff_untimed_warn(ctx, o, ff);
	ctx_check_write(ctx, rc, o->output);
	for (size_t i = 0; i < nr_ids; i++)
		free(ids[i]);
	free(ids);
	free(args);
	free(marks);
	free(mk);
	ff_tracks_free(&tr);
}

/* The timelines' tracks, first sample and interval. */
static struct pde_timeline_opts tl_opts(const struct export_opts *o,
					const struct export_run *er,
					struct pd_file *f,
					const struct ff_tracks *tr)
{
	const double iv = ff_interval_ns(f, er);

	return (struct pde_timeline_opts){
		.threads = tr->t,
		.nr_threads = tr->nr,
		.start_time = er->ff->untimed ? 0 : er->first_time,
		.interval_ns = iv >= 1 ? (uint64_t)(iv + 0.5) : 0,
		.name = o->path,
	};
}

/* --format speedscope and chrome: the same tracks as timelines. */
static void write_timeline(struct pd_ctx *ctx, const struct export_opts *o,
			   const struct export_run *er, struct pd_file *f,
			   const struct pda_profile *p, FILE *out)
{
	struct ff_tracks tr;
	char exporter[64];
	int rc;

	ff_tracks(ctx, er->ff, p, pda_collect_stats(er->col)->nr_events, &tr);
	snprintf(exporter, sizeof(exporter), "pdtool %s", pd_version());
	{
		struct pde_timeline_opts to = tl_opts(o, er, f, &tr);

		to.exporter = exporter;
		rc = o->format == FMT_CHROME ? pde_chrome(out, p, &to)
					     : pde_speedscope_timeline(out, p, &to);
	}
	ff_untimed_warn(ctx, o, er->ff);
	ctx_check_write(ctx, rc, o->output);
	ff_tracks_free(&tr);
}

/* timeline's SVG or HTML: the tracks with their off-CPU spans, the
 * spans cut to --time as the samples are. */
static void write_tlsvg(struct pd_ctx *ctx, const struct export_opts *o,
			const struct export_run *er, struct pd_file *f,
			const struct pda_profile *p, FILE *out)
{
	struct ff_tracks tr;
	struct ff_mark *mk;
	struct pde_ff_marker *marks;
	size_t nr_marks;
	int rc;

	ff_tracks(ctx, er->ff, p, pda_collect_stats(er->col)->nr_events, &tr);
	nr_marks = ff_attach_marks(ctx, er->ff, f, &tr, &mk, &marks);
	for (size_t i = 0; i < nr_marks; i++) {
		struct pde_ff_marker *m = &marks[i];

		/* a span wholly outside the ranges: end before start,
		 * which the writer leaves out */
		if (!cmd_time_clip(&o->time, &m->start, &m->end) ||
		    m->end < m->start)
			m->start = m->end + 1;
	}
	{
		const struct pde_timeline_opts to = tl_opts(o, er, f, &tr);
		const struct pde_tlsvg_opts so = {
			.tl = &to,
			.color = o->by_cpu ? PDE_TL_BY_CPU : PDE_TL_BY_FUNCTION,
			.html = o->format == FMT_HTML,
		};

		rc = pde_timeline_svg(out, p, &so);
	}
	ff_untimed_warn(ctx, o, er->ff);
	ctx_check_write(ctx, rc, o->output);
	free(marks);
	free(mk);
	ff_tracks_free(&tr);
}

static void ff_free(struct ff_run *ff)
{
	if (!ff)
		return;
	for (size_t i = 0; i < ff->nr_comms; i++)
		free(ff->comms[i]);
	free(ff->comms);
	free(ff->recs);
	free(ff->sw);
	free(ff->lost);
	free(ff);
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

/* export's and timeline's run, once their options are read: the capture
 * collected, the profile written in o->format. */
static int export_main(struct pd_ctx *ctx, struct export_opts *o)
{
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

	er.o = o;
	/* the timed formats keep each sample's time and stack */
	if (o->format != FMT_PPROF) {
		er.ff = calloc(1, sizeof(*er.ff));
		if (!er.ff)
			die(ctx, "out of memory");
	}
	f = ctx_open_twice(ctx, o->path);
	cmd_time_resolve(ctx, o->path, f, &o->time);
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
				.time_ranges = o->time.nr ? o->time.r : NULL,
				.nr_time_ranges = o->time.nr);
		/* a sample without a callchain has its ip as its stack, as
		 * perf report shows it */
		PDA_CAPTURE_OPTS(co, .filter = &er.flt, .jobs = o->jobs,
				 .ip_stacks = true, .sample_fn = export_one,
				 .skip_fn = export_skip,
				 .order_fn = o->format == FMT_FIREFOX ||
						     o->format == FMT_SVG ||
						     o->format == FMT_HTML
						     ? ff_order
						     : NULL,
				 .progress = cmd_progress_fn,
				 .progress_arg = &prog, .arg = &er);
		/* the timelines draw a track per thread: no root frame
		 * naming it */
		PDA_COLLECT_OPTS(clo,
				 .flags = er.ff ? PDA_COLLECT_NO_COMM
						: PDA_COLLECT_PID | PDA_COLLECT_TID,
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
	if (o->format == FMT_FIREFOX)
		write_firefox(ctx, o, &er, f, p, out);
	else if (o->format == FMT_SVG || o->format == FMT_HTML)
		write_tlsvg(ctx, o, &er, f, p, out);
	else if (er.ff)
		write_timeline(ctx, o, &er, f, p, out);
	else
		write_pprof(ctx, o, &er, f, p, out);
	ctx_close_output(ctx, out, o->output);
	ps = pda_session_stats(s);
	coverage(ctx, &er, p, ps);
	cmd_fetch_add(ctx, &ps->debuginfod);
	cmd_fetch_summary(ctx);
	rc = cmd_strict_status(ctx, cs, ps);
	pda_profile_free(p);
	pda_collect_free(er.col);
	ff_free(er.ff);
	pda_session_free(s);
	pd_file_close(f);
	free(o);
	return rc;
}

typedef void (*export_args_fn)(int argc, char **argv, struct pd_ctx *ctx,
			       struct export_opts *o);

/* export or timeline: its options read by args, then the one run. */
static int export_cmd(int argc, char **argv, struct pd_ctx *ctx,
		      export_args_fn args)
{
	struct export_opts *o = calloc(1, sizeof(*o));

	if (!o)
		die(ctx, "out of memory");
	args(argc, argv, ctx, o);
	return export_main(ctx, o);
}

int cmd_export(int argc, char **argv, struct pd_ctx *ctx)
{
	return export_cmd(argc, argv, ctx, parse_args);
}

/* ---- pdtool timeline ------------------------------------------------ */

const char cmd_timeline_usage[] =
	"pdtool timeline -o OUT [OPTIONS] [FILE | -i FILE]";
const char cmd_timeline_summary[] =
	"draw each thread's samples and off-CPU time in time (SVG or HTML)";
const char cmd_timeline_options[] =
	"  -i, --input FILE      the capture ('-': standard input); the same\n"
	"                        as FILE\n"
	"  -o, --output FILE     write there ('-': stdout)\n"
	"      --format FMT      svg (default; html when OUT ends in .html)\n"
	"                        or html: the SVG in a page\n"
	"      --color BY        function: each sample by its leaf function\n"
	"                        (default); cpu: on-CPU samples one colour\n"
	"                        (off-CPU spans are blue either way)\n"
	EXPORT_IDS_HELP
	CMD_TIME_HELP
	"                        (what a zoom shows)\n"
	EXPORT_TAIL_HELP;

static void timeline_option(struct pd_ctx *ctx, struct export_opts *o,
			    int c, const char *arg)
{
	if (c == OPT_FORMAT)
		o->tl_format = arg;
	else if (c == OPT_COLOR && strcmp(arg, "function") == 0)
		o->by_cpu = false;
	else if (c == OPT_COLOR && strcmp(arg, "cpu") == 0)
		o->by_cpu = true;
	else if (c == OPT_COLOR)
		usage_error(ctx, "--color: unknown colouring '%s' (function, "
				 "cpu)",
			    arg);
	else
		export_option(ctx, o, c, arg);
}

static void timeline_args(int argc, char **argv, struct pd_ctx *ctx,
			  struct export_opts *o)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"color", required_argument, NULL, OPT_COLOR},
		EXPORT_SAMPLE_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	const char *format;

	export_getopt(argc, argv, ctx, o, longopts, "o:j:", timeline_option);
	format = o->tl_format;
	if (!format) {
		const size_t n = strlen(o->output);

		format = n >= 5 && strcmp(o->output + n - 5, ".html") == 0
				 ? "html"
				 : "svg";
	}
	if (strcmp(format, "svg") == 0)
		o->format = FMT_SVG;
	else if (strcmp(format, "html") == 0)
		o->format = FMT_HTML;
	else
		usage_error(ctx, "--format: unknown format '%s' (svg, html)",
			    format);
	/* a lane shows the leaf function's name, never a source line */
	o->no_srcline = true;
}

int cmd_timeline(int argc, char **argv, struct pd_ctx *ctx)
{
	return export_cmd(argc, argv, ctx, timeline_args);
}
