/*
 * pde.h - the emit layer: writers of pdtool's output formats.  Writers
 * take decoded data from libpd and libpda and a FILE *; they never read
 * input (source lines come from libpda too) or decide policy.
 *
 * Return convention (STYLE E1), for every writer below: int, 0 when its
 * output was written, or a negative pd_err:
 *   PD_ERR_IO     writing failed: out's error indicator is set (errno as
 *                 stdio left it).  It is checked when the writer returns,
 *                 so an earlier failed write on out counts too.
 *   PD_ERR_NOMEM  the writer needed memory (nothing written).
 * The building blocks (pde_json_*, pde_text_*, pde_md_*), the *_init
 * functions and the helpers that compute a colour or a label return
 * nothing or their value: they write through stdio, and the writer that
 * uses them checks out when it returns.
 */
#ifndef PDE_H
#define PDE_H

#include "pd.h"

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- JSON ---------------------------------------------------------- */

#define PDE_JSON_MAX_DEPTH 32

/*
 * A streaming JSON writer.  Keys are given with each value inside an
 * object and are NULL inside an array or at the top.  Strings from a
 * capture are escaped: control characters as \u00XX, and bytes that are
 * not valid UTF-8 as \u00XX of the byte's value, so the output is always
 * valid JSON.
 *
 *	struct pde_json j;
 *	pde_json_init(&j, stdout, false);
 *	pde_json_begin_object(&j, NULL);
 *	pde_json_u64(&j, "samples", 12);
 *	pde_json_end_object(&j);
 *	pde_json_newline(&j);
 */
struct pde_json {
	FILE *out;
	bool pretty;
	int depth;
	bool first[PDE_JSON_MAX_DEPTH];
};

void pde_json_init(struct pde_json *j, FILE *out, bool pretty);
void pde_json_begin_object(struct pde_json *j, const char *key);
void pde_json_end_object(struct pde_json *j);
void pde_json_begin_array(struct pde_json *j, const char *key);
void pde_json_end_array(struct pde_json *j);
void pde_json_str(struct pde_json *j, const char *key, const char *s);
/* at most n bytes of s, stopping at a NUL */
void pde_json_strn(struct pde_json *j, const char *key, const char *s,
		   size_t n);
void pde_json_u64(struct pde_json *j, const char *key, uint64_t v);
void pde_json_i64(struct pde_json *j, const char *key, int64_t v);
void pde_json_double(struct pde_json *j, const char *key, double v);
/* v / 10^decimals as a JSON number with exactly that many decimals
 * ("1234.567" for 1234567, 3): nanoseconds as microseconds, exactly */
void pde_json_decimal(struct pde_json *j, const char *key, uint64_t v,
		      unsigned decimals);
/* v as a string "0x..." (JSON numbers lose precision above 2^53) */
void pde_json_hex(struct pde_json *j, const char *key, uint64_t v);
void pde_json_bool(struct pde_json *j, const char *key, bool v);
void pde_json_null(struct pde_json *j, const char *key);
/* bytes as a lowercase hex string */
void pde_json_hexbytes(struct pde_json *j, const char *key,
		       const unsigned char *p, size_t n);
/* ends a top-level value with a newline */
void pde_json_newline(struct pde_json *j);

/*
 * Write n bytes of s (up to a NUL) for a terminal or text file, by
 * common/pdc_text.h's rule: printable ASCII and UTF-8 characters as they
 * are, every other byte (C0 and C1 controls, DEL, bytes that are not
 * UTF-8) as \xNN.  Every string from a capture or a binary that a text
 * output or a message holds is written through these two.
 */
void pde_text_str(FILE *out, const char *s, size_t n);
/* pde_text_str() of the NUL-terminated s; nothing for NULL. */
void pde_text_puts(FILE *out, const char *s);

/* ---- Markdown (pde_md.c) ------------------------------------------- */

/*
 * GitHub-flavoured Markdown for strings a capture controls (symbol
 * names, DSO paths, file and event names): whatever they hold shows as
 * those characters, never as HTML (std::vector<int>, <img src=x
 * onerror=...>), a link, emphasis or a table cell's end (a|b).  Control
 * characters and bytes that are not UTF-8 show as \xNN.  Every Markdown
 * output writes such strings through these two; neither starts a line.
 */
/* n bytes of s (up to a NUL) as inline text: in a paragraph, a heading
 * or a table cell; \ ` * _ [ ] < > & # | ~ $ backslash-escaped where they
 * could act as syntax. */
void pde_md_text(FILE *out, const char *s, size_t n);
/* n bytes of s (up to a NUL) as one code span, its backtick fence
 * included (longer than any run of backticks in s); tabs as spaces.
 * in_cell: the span is in a table row, where '|' is escaped. */
void pde_md_code(FILE *out, const char *s, size_t n, bool in_cell);

/* ---- records as text or JSON (pde_fields.c) ------------------------ */

#define PDE_FIELDS_MAX_DEPTH 8

/*
 * The state of a writer that writes records and structs field by field,
 * as text or JSON from the same calls (dump, info).  Its calls are
 * emit's own; other layers only embed it, through the writers below.
 */
struct pde_fields {
	FILE *out;
	bool json;
	struct pde_json j;
	int depth;				/* nesting inside a record */
	bool first[PDE_FIELDS_MAX_DEPTH];	/* no value yet at a depth */
	bool in_array[PDE_FIELDS_MAX_DEPTH];
};

/* ---- dump (pde_dump.c) --------------------------------------------- */

/*
 * Writes records one per line: text (`0x1a8 48 COMM pid=1 tid=1
 * comm="sh"`) or, with json, one JSON object per line in the shared
 * output contract (docs/man/pdtool-dump.1.md, OUTPUT FORMAT).  The caller
 * decodes; the writer only formats.  Not thread-safe; one per FILE.
 *
 *	struct pde_dump d;
 *	pde_dump_init(&d, stdout, json);
 *	if (pd_sample_decode(f, &rec, &s) == 0)
 *		pde_dump_sample(&d, &rec, &s);
 *	else
 *		pde_dump_failed(&d, &rec, pd_file_errmsg(f));
 */
struct pde_dump {
	struct pde_fields f;
};

void pde_dump_init(struct pde_dump *d, FILE *out, bool json);
/* A SAMPLE that pd_sample_decode() decoded.  0 or PD_ERR_IO. */
int pde_dump_sample(struct pde_dump *d, const struct pd_rec *rec,
		    const struct pd_sample *s);
/* Another record that pd_event_decode() decoded (it returned 0). */
int pde_dump_event(struct pde_dump *d, const struct pd_rec *rec,
		   const struct pd_event *ev);
/* A record of a type libpd does not know: type, offset and size. */
int pde_dump_unknown(struct pde_dump *d, const struct pd_rec *rec);
/* A record that failed to decode, with the reason in an "error" field. */
int pde_dump_failed(struct pde_dump *d, const struct pd_rec *rec,
		    const char *reason);

/*
 * `pdtool dump --aux`: Arm SPE metadata and trace in the text of `perf
 * report -D` (pde_spe.c).  The info's lines follow an AUXTRACE_INFO's
 * dump line; the trace's, an AUXTRACE's: a "." line, the size line, then
 * a packet a line ("Bad packet!" for a byte no packet starts at).
 * align_base is the trace's file offset (pd_spe_cursor_init).  0 or
 * PD_ERR_IO.
 */
int pde_spe_dump_info(FILE *out, const struct pd_spe_info *info);
int pde_spe_dump_trace(FILE *out, const unsigned char *buf, size_t len,
		       uint64_t align_base);

/* What `pdtool dump --count` counts. */
struct pde_dump_totals {
	uint64_t nr_records;
	uint64_t by_type[PD_REC_TYPE_MAX];
	uint64_t nr_other_type;		/* types >= PD_REC_TYPE_MAX */
	uint64_t samples_decoded;
	uint64_t failed;		/* records that failed to decode */
	uint64_t nr_compressed;		/* zstd chunks unpacked */
	uint64_t compressed_bytes;	/* their input */
	uint64_t decompressed_bytes;	/* their output */
};

/* The totals as a table, or as one JSON object with json.  0 or
 * PD_ERR_IO. */
int pde_dump_totals(FILE *out, bool json, const struct pde_dump_totals *t);

/* ---- info (`pdtool info`) ------------------------------------------ */

#define PDE_INFO_MAX_OTHER 16 /* distinct record types >= PD_REC_TYPE_MAX */

/*
 * What one pass over a capture's records found, counted the way
 * `perf report --stats` counts: every record in the file, and for a
 * compressed capture both the COMPRESSED/COMPRESSED2 chunks and the
 * records inside them.
 */
struct pde_info_counts {
	int read;			/* the records were read */
	uint64_t total;			/* records counted */
	uint64_t by_type[PD_REC_TYPE_MAX];
	struct {
		uint32_t type;
		uint64_t count;
	} other[PDE_INFO_MAX_OTHER];	/* types >= PD_REC_TYPE_MAX */
	unsigned nr_other;
	uint64_t nr_other_lumped;	/* past PDE_INFO_MAX_OTHER types */
	uint64_t nr_samples;
	uint64_t nr_bad_samples;	/* SAMPLE records that did not decode */
	uint64_t lost;			/* sum of LOST records' lost */
	uint64_t lost_samples;		/* sum of LOST_SAMPLES records' lost */
	uint64_t lost_total;		/* samples lost, as perf counts them
					 * (pda_capture_lost_count()) */
	uint64_t dropped_samples;	/* left out by a BPF filter */
	int has_time;			/* some sample carried a time */
	uint64_t time_first_ns, time_last_ns;
};

struct pde_info {
	const char *path;			/* as given; "-" for stdin */
	const struct pd_file *f;
	const struct pd_env *env;		/* NULL when out of memory */
	const struct pd_reader_stats *stats;	/* NULL when not read */
	const struct pde_info_counts *counts;
};

/* Readable text, like `perf report --header-only` plus `--stats`.  0 or
 * PD_ERR_IO. */
int pde_info_text(FILE *out, const struct pde_info *info);
/* One JSON object and a newline (docs/man/pdtool-info.1.md). */
int pde_info_json(FILE *out, const struct pde_info *info);

/* ---- counters (pde_stat.c; `pdtool stat`) -------------------------- */

/*
 * A perf stat record capture's counts (analyze/counters/pda_stat.h):
 * pde_stat_text() as perf stat report (perf 6.1) prints them, byte for
 * byte; pde_stat_json() every count, enabled and running time, scaled
 * value and metric as one JSON object; pde_stat_md() GitHub Markdown
 * tables.  @return 0 or PD_ERR_IO.
 */
struct pda_stat_report;
struct pda_metrics;
int pde_stat_text(FILE *out, const struct pda_stat_report *rep);
/*
 * The derived metrics (analyze/counters/pda_metrics.h) as a section of
 * their own after pde_stat_text()'s, so that what perf prints stays as
 * perf prints it: opened by a line " pdtool metrics ..." (none when m
 * holds no metric); verbose adds each formula and its counts.
 */
int pde_stat_metrics_text(FILE *out, const struct pda_metrics *m,
			  bool verbose);
struct pda_stat_row;
/*
 * The derived metrics of each interval and aggregate (-I, -A,
 * --per-socket ...), computed by the caller when the writer asks, so
 * that they need not all be held at once: fn(arg, round, agg, out) fills
 * *out with the metrics of round's aggregate of row agg (0, or a
 * negative pd_err the writer returns).
 */
struct pde_stat_by {
	int (*fn)(void *arg, size_t round, const struct pda_stat_row *agg,
		  struct pda_metrics *out);
	void *arg;
};
/* Whether rep has intervals or aggregates to give metrics of. */
bool pde_stat_by_wanted(const struct pda_stat_report *rep);
/*
 * Each interval's and aggregate's metrics, a line each after the
 * interval's time and the aggregate (as perf prefixes its lines in those
 * modes): metric, value, assessment; under a line " pdtool metrics per
 * interval|aggregate|interval and aggregate:" (none when no metric).
 */
int pde_stat_by_text(FILE *out, const struct pda_stat_report *rep,
		     const struct pde_stat_by *by);
/* m: the derived metrics to add ("derived_metrics", a "Derived metrics"
 * table), or NULL; by: each round's "derived_metrics" per aggregate, a
 * "Derived metrics per ..." table, or NULL */
int pde_stat_json(FILE *out, const struct pda_stat_report *rep,
		  const struct pda_metrics *m, const struct pde_stat_by *by);
int pde_stat_md(FILE *out, const struct pda_stat_report *rep,
		const struct pda_metrics *m, const struct pde_stat_by *by);
/*
 * Sampling captures' counter totals (rep->sampled: the report of
 * pda_stat_add_sampled()) as pde_stat_json() writes a report, with, for
 * one capture, each event's samples, period sum, group reads and what
 * its count comes from (smp: its pda_sampled report; NULL for several
 * runs).  pde_stat_text() and pde_stat_md() label such a report as
 * estimated from samples themselves.
 */
struct pda_sampled_report;
int pde_sampled_json(FILE *out, const struct pda_stat_report *rep,
		     const struct pda_sampled_report *smp,
		     const struct pda_metrics *m, const struct pde_stat_by *by);

/* ---- flame graphs (pde_flame.c, pde_speedscope.c; `pdtool flame`) --- */

struct pda_flame_node; /* pda_flame.h: the finished tree's nodes, depth first */

enum pde_flame_palette {
	PDE_PALETTE_DEFAULT = 0, /* by kind: kernel (_[k]), JIT (_[j]),
				  * inlined (_[i]), unknown, user code */
	PDE_PALETTE_HOT,
	PDE_PALETTE_MEM,
	PDE_PALETTE_IO,
	PDE_PALETTE_MAX,
};

/* "default", "hot", "mem", "io"; NULL past the end. */
const char *pde_flame_palette_name(enum pde_flame_palette p);

/*
 * A differential flame graph (`pdtool diff -o`): the nodes come from
 * pda_diff_flame(), each node's total the shape side's samples and its
 * other the other side's.  A side's value of a node is its count / denom
 * of that side * unit; a frame is coloured by B's value minus A's: red
 * where it grew, blue where it shrank, white where it held, saturated in
 * proportion to the change over the largest change drawn.
 */
struct pde_flame_diff {
	double denom[2];	/* A's and B's, as pda_diff_summary() */
	double unit;		/* 100: values are percentages; 1: samples */
	const char *of;		/* percentages of this symbol's samples;
				 * NULL: of the side's samples */
	bool negate;		/* shaped like A: total is A's, other B's */
};

struct pde_flame_opts {
	const char *title;	/* NULL: "Flame Graph" ("Icicle Graph") */
	const char *subtitle;	/* NULL: none */
	const char *countname;	/* NULL: "samples" */
	unsigned width;		/* image width, px; 0: 1200 */
	unsigned frame_height;	/* px; 0: 16 */
	unsigned font_size;	/* px; 0: 12 */
	double min_width;	/* px: narrower frames are left out */
	bool inverted;		/* icicle: the root at the top */
	bool hash;		/* colour by name, not by position */
	enum pde_flame_palette palette;
	unsigned decimals;	/* the counts are in units of 10^-decimals
				 * (folded text with "1.5" counts); the
				 * titles show them so */
	const struct pde_flame_diff *diff; /* non-NULL: a differential
					    * graph, coloured by change,
					    * the palette unused */
};

/*
 * Geometry shared by the writer and its tests: the frames' area is
 * width - 2 * PDE_FLAME_XPAD px wide, and a node of `total` samples out
 * of the root's `all` is total * (width - 2 * PDE_FLAME_XPAD) / all px.
 */
#define PDE_FLAME_XPAD 10

/*
 * A self-contained interactive SVG flame graph of nodes[0..nr) (as
 * pda_flame_nodes() returns them): click to zoom, search with a regular
 * expression, tooltips; no external resources.  The same nodes and
 * options give the same bytes.  *nr_drawn (unless NULL): the number of
 * frames drawn.  @return 0 or PD_ERR_IO.
 */
int pde_flame_svg(FILE *out, const struct pda_flame_node *nodes, size_t nr,
		  const struct pde_flame_opts *opts, size_t *nr_drawn);

/*
 * A frame's fill colour.  With hash, it depends on the name only;
 * otherwise on the name's kind (the default palette) and its place.
 */
void pde_flame_color(const struct pde_flame_opts *opts,
		     const struct pda_flame_node *node, unsigned char rgb[3]);

/* A node's change in a differential graph: B's value minus A's. */
double pde_flame_diff_change(const struct pde_flame_diff *diff,
			     const struct pda_flame_node *node);
/* Its colour, for a change of `change` when the largest drawn is max. */
void pde_flame_diff_color(double change, double max, unsigned char rgb[3]);

struct pde_speedscope_opts {
	const char *name;	/* the profile's name, e.g. the input file */
	const char *exporter;	/* e.g. "pdtool 0.1.0" */
	unsigned decimals;	/* as pde_flame_opts' */
};

/*
 * speedscope's JSON file format (https://www.speedscope.app/
 * file-format-schema.json): one "sampled" profile, a sample per leaf
 * with its stack of frame indices (root first, the "all" root left out)
 * and its count as weight.  @return 0, PD_ERR_NOMEM (nothing written)
 * or PD_ERR_IO.
 */
int pde_speedscope(FILE *out, const struct pda_flame_node *nodes, size_t nr,
		   const struct pde_speedscope_opts *opts);

/* ---- exports of the structured profile (pde_pprof.c; `pdtool export`) */

struct pda_profile;

struct pde_pprof_opts {
	const struct pd_alloc *alloc;
	/* hex build-ids by mapping id (NULL or "": unknown), nr_build_ids
	 * of them; may be NULL */
	const char *const *build_ids;
	size_t nr_build_ids;
	bool inline_frames;	/* inlined frames were asked for everywhere:
				 * every mapping says it has them */
	unsigned period_type_column; /* period_type and default_sample_type;
				 * past the last column: none */
	uint64_t duration_nanos; /* the samples' time span; 0 unknown */
	const char *const *comments; /* Profile.comment lines */
	size_t nr_comments;
};

/*
 * p (as pda_collect builds it) as pprof's profile.proto, uncompressed
 * (pprof reads it gzipped or not): sample types from the columns, one
 * value per column; mappings with build-ids; functions with names and
 * source files; locations leaf first, each run of inlined frames one
 * location with a line per frame.  @return 0, PD_ERR_NOMEM (nothing
 * written) or PD_ERR_IO.
 */
int pde_pprof(FILE *out, const struct pda_profile *p,
	      const struct pde_pprof_opts *opts);

/* ---- the Firefox Profiler's processed profile (pde_firefox.c) ------- */

/* A sample in time: its profile stack (0: empty) and time in ns. */
struct pde_ff_sample {
	uint64_t time;
	uint32_t stack;
};

enum pde_ff_marker_kind {
	PDE_FF_LOST,	/* an instant at start: value samples lost */
	PDE_FF_OFFCPU,	/* start..end switched out; value 1: preempted */
};

struct pde_ff_marker {
	uint64_t start, end;	/* ns, as the samples' times */
	enum pde_ff_marker_kind kind;
	uint64_t value;
};

/* One track: a thread's samples of one event, in time order. */
struct pde_ff_thread {
	uint32_t pid, tid;
	const char *name;		/* the thread's comm (and event) */
	const char *process_name;	/* its process's; NULL unknown */
	const char *comm, *event;	/* the two apart (pde_chrome());
					 * NULL unknown */
	const struct pde_ff_sample *samples;
	size_t nr_samples;
	const struct pde_ff_marker *markers;
	size_t nr_markers;
};

struct pde_firefox_opts {
	const struct pd_alloc *alloc;
	const struct pde_ff_thread *threads;
	size_t nr_threads;
	uint64_t start_time, end_time;	/* ns: the first and last sample's
					 * (times are written from start) */
	double wall_start_ms;	/* meta.startTime: ms since 1970; 0 unknown */
	double interval_ms;	/* meta.interval: the sampling interval */
	/* hex build-ids by mapping id (NULL or "": unknown) */
	const char *const *build_ids;
	size_t nr_build_ids;
	const char *product;	/* what was profiled: the command line */
	const char *arguments, *arch, *oscpu, *cpu_name; /* NULL: unknown */
	unsigned nr_cpus;	/* 0 unknown */
};

/*
 * p (as pda_collect builds it, without root frames) and its samples in
 * time as the Firefox Profiler's processed profile, version 58, JSON
 * (the caller may gzip it: the profiler reads both).  @return 0,
 * PD_ERR_NOMEM (nothing written) or PD_ERR_IO.
 */
int pde_firefox(FILE *out, const struct pda_profile *p,
		const struct pde_firefox_opts *opts);

/* ---- timelines for other viewers (pde_timeline.c; `pdtool export`) -- */

/* The tracks are pde_firefox()'s: one per thread and event, each with
 * its samples in time order, sorted by pid. */
struct pde_timeline_opts {
	const struct pd_alloc *alloc;
	const struct pde_ff_thread *threads;
	size_t nr_threads;
	uint64_t start_time;	/* ns: the first sample's (times are
				 * written from it) */
	uint64_t interval_ns;	/* the longest a sample lasts: the
				 * sampling interval; 0: 1 ms */
	const char *name;	/* what was profiled: the input */
	const char *exporter;	/* e.g. "pdtool 0.1.0"; NULL: none */
};

/*
 * p (as pda_collect builds it, without root frames) and its samples in
 * time as speedscope's JSON file format: one "evented" profile per
 * track, each sample's stack opened at its time and closed when it ends
 * (the next sample, at most interval_ns on), in nanoseconds from
 * start_time.  @return 0, PD_ERR_NOMEM or PD_ERR_IO.
 */
int pde_speedscope_timeline(FILE *out, const struct pda_profile *p,
			    const struct pde_timeline_opts *opts);

/*
 * The same samples as Chrome's trace event format (Perfetto, chrome://
 * tracing): process_name and thread_name metadata, then each sample's
 * frames as nested "B"/"E" slices on its thread, root first, in
 * microseconds; a frame's source file, line, DSO and address in its
 * args, kernel, user or JIT as its category.  Same returns.
 */
int pde_chrome(FILE *out, const struct pda_profile *p,
	       const struct pde_timeline_opts *opts);

/* ---- per-thread lanes in time (pde_tlsvg.c; `pdtool timeline`) ----- */

enum pde_tl_color {
	PDE_TL_BY_FUNCTION,	/* each sample by its leaf function */
	PDE_TL_BY_CPU,		/* on-CPU samples one colour */
};

struct pde_tlsvg_opts {
	const struct pde_timeline_opts *tl; /* the tracks (with their
				 * PDE_FF_OFFCPU markers), first sample's
				 * time, interval and title */
	enum pde_tl_color color;
	bool html;		/* an HTML page around the SVG */
	unsigned width;		/* px; 0: 1200 */
};

/*
 * The tracks as lanes, one per track, time left to right: each run of
 * samples one rectangle (a sample lasts as in pde_speedscope_timeline()),
 * coloured by its leaf function or all alike, and each PDE_FF_OFFCPU
 * marker a blue one; a drag zooms into a time range and shows it as
 * `--time START,END` in seconds as perf prints them, which the other
 * commands take.  Standalone (no network; the page's script and style
 * named by the Content-Security-Policy).  @return 0, PD_ERR_NOMEM or
 * PD_ERR_IO.
 */
int pde_timeline_svg(FILE *out, const struct pda_profile *p,
		     const struct pde_tlsvg_opts *opts);

/* ---- folded stacks (pde_folded.c; `pdtool fold`) ------------------ */

struct pda_profile; /* pda_profile.h */

/*
 * Write p's sample rows in their order, "stack value\n" each (the format
 * of stackcollapse-perf.pl): the stack's location labels root first,
 * joined by ';', and the row's value in column col.  pda_fold_profile()
 * gives the rows in fold's sorted order.  @return 0, PD_ERR_IO, PD_ERR_NOMEM,
 * or PD_ERR_API when col is out of range.
 */
int pde_folded_write(FILE *out, const struct pda_profile *p, unsigned col);
/* The same, with a helper thread formatting half the lines where jobs is
 * 2 or more and the profile is large (the caller's thread writes every
 * byte, in order); out is the caller's thread's alone meanwhile. */
int pde_folded_write_jobs(FILE *out, const struct pda_profile *p,
			  unsigned col, unsigned jobs);

/* ---- perf script's sample lines (pde_script.c; `pdtool script`) --- */

struct pda_frame; /* pda_session.h */
struct pda_branch_loc; /* pda_branch.h: a resolved address */
struct pda_bb_line; /* pda_branch.h: brstackinsn's lines */
struct pda_brcntr; /* pda_branch.h: the branch counters' columns */
struct pdc_strbuf; /* pdc_strbuf.h */

/* perf script's output fields (-F), one bit each. */
#define PDE_SCRIPT_FIELDS(X)                                                \
	X(COMM, "comm") X(TID, "tid") X(PID, "pid") X(TIME, "time")         \
	X(CPU, "cpu") X(EVENT, "event") X(TRACE, "trace") X(IP, "ip")       \
	X(SYM, "sym") X(DSO, "dso") X(ADDR, "addr") X(SYMOFF, "symoff")     \
	X(SRCLINE, "srcline") X(PERIOD, "period") X(BRSTACK, "brstack")     \
	X(WEIGHT, "weight") X(DATA_SRC, "data_src") X(PHYS_ADDR, "phys_addr") \
	X(BRSTACKSYM, "brstacksym") X(INSNLEN, "insnlen") X(INSN, "insn")     \
	X(MISC, "misc") X(FLAGS, "flags") X(CALLINDENT, "callindent")       \
	X(INS_LAT, "ins_lat") X(DATA_PAGE_SIZE, "data_page_size")           \
	X(CODE_PAGE_SIZE, "code_page_size") X(TOD, "tod")                     \
	X(BRSTACKOFF, "brstackoff") X(BRSTACKINSN, "brstackinsn")           \
	X(IREGS, "iregs") X(UREGS, "uregs") X(SRCCODE, "srccode")           \
	X(SYNTH, "synth") X(BPF_OUTPUT, "bpf-output") X(BRCNTR, "brcntr")

enum pde_script_field_bit {
#define PDE_SCRIPT_BIT(name, str) PDE_SCRIPT_BIT_##name,
	PDE_SCRIPT_FIELDS(PDE_SCRIPT_BIT)
#undef PDE_SCRIPT_BIT
	PDE_SCRIPT_NR_FIELDS
};
#define PDE_SF(name) ((uint64_t)1 << PDE_SCRIPT_BIT_##name)

/*
 * perf script's output types, each with its own field set: the attr
 * types below PERF_TYPE_MAX, then perf's synthesized events and every
 * other PMU's (perf's output_type()).
 */
enum pde_script_type {
	PDE_SCRIPT_HW, PDE_SCRIPT_SW, PDE_SCRIPT_TRACEPOINT, PDE_SCRIPT_HW_CACHE,
	PDE_SCRIPT_RAW, PDE_SCRIPT_BREAKPOINT, PDE_SCRIPT_SYNTH,
	PDE_SCRIPT_OTHER, PDE_SCRIPT_NR_TYPES
};

/* The output type of an event of attr type attr_type. */
enum pde_script_type pde_script_type(uint32_t attr_type);

/* The fields of each output type, and which of them -F asked for. */
struct pde_script_fields {
	uint64_t fields[PDE_SCRIPT_NR_TYPES];
	uint64_t user[PDE_SCRIPT_NR_TYPES]; /* given by -F (+field too) */
	/* -F gave the type's fields, or a +field or -field (not flags)
	 * for it: perf's output[].user_set */
	bool user_set[PDE_SCRIPT_NR_TYPES];
};

/* perf 6.1's default fields per type, as no -F leaves them. */
void pde_script_fields_default(struct pde_script_fields *f);

/*
 * Apply one -F argument as perf 6.1 reads it: "[type:]list", type one of
 * hw, sw, trace, raw, synth (none: every type), list the fields
 * comma-separated, each "+field" (added), "-field" (removed) or a bare
 * name (the list then replaces the fields; perf does not mix the two).
 * @return 0, or PD_ERR_API with why in err (err_size bytes).
 */
int pde_script_fields_parse(struct pde_script_fields *f, const char *arg,
			    char *err, size_t err_size);

/* A field's -F name ("symoff"), bit one of PDE_SF()'s bits. */
const char *pde_script_field_name(uint64_t bit);

/*
 * The text a sample's ip field prints, after its line's other fields, as
 * perf 6.1's sample__fprintf_sym() prints it, appended to b: with
 * callchain, "\n" and a line per frame ("\t%16x sym+0xoff (dso)\n", the
 * address as perf's map__map_ip gives it, "(inlined)" for an inlined
 * frame), else " %16x sym+0xoff (dso)" for the sample's ip (the first
 * frame gives its symbol).  fields (of the sample's type) pick ip, sym,
 * symoff, dso and srcline.  Names go through pdc_text.h's rule.
 */
void pde_script_stack_text(struct pdc_strbuf *b, const struct pda_frame *fr,
			   size_t nr, uint64_t fields, bool callchain,
			   uint64_t ip);
/* pde_script_stack_text() without callchain in two parts: " %16x" of
 * the ip (a space alone without the ip field), then the rest (the
 * leaf's symbol, DSO, srcline), which depends on the frames alone. */
void pde_script_ip_head(struct pdc_strbuf *b, uint64_t ip, uint64_t fields);
void pde_script_leaf_text(struct pdc_strbuf *b, const struct pda_frame *fr,
			  size_t nr, uint64_t fields);
/* The "\n  file:line" pde_script_stack_text() prints for a sample
 * without callchain and with srcline, alone, appended to b. */
void pde_script_leaf_srcline(struct pdc_strbuf *b, const struct pda_frame *fr,
			     size_t nr);

/*
 * One callchain line of pde_script_stack_text() for frame f, appended to
 * b; src is the frame whose source line perf prints for f's address
 * (pde_script_srcline_frame()).
 */
void pde_script_frame_line(struct pdc_strbuf *b, const struct pda_frame *f,
			   const struct pda_frame *src, uint64_t fields);
/* For frame i of a stack fr: the innermost frame at its address, whose
 * source line perf prints for every frame there. */
const struct pda_frame *pde_script_srcline_frame(const struct pda_frame *fr,
						 size_t i);

/* A buffered writer of sample lines: one per stream, not thread-safe. */
struct pde_script {
	FILE *out;
	char *buf;
	size_t len, cap;
	bool ns;		/* --ns: times with 9 decimals */
	unsigned name_width;	/* events' names padded to it */
	unsigned data_src_width; /* the widest data_src so far: perf pads
				  * each to it (a static in perf) */
	/* tod: the capture's CLOCK_DATA pair, the wall clock (tod_ns, ns
	 * since the epoch) at the samples' clock's clock_ns; tod false
	 * without one (perf: "disabled") */
	bool tod;
	uint64_t tod_ns, clock_ns;
	/* iregs, uregs: the recorder's architecture as perf names it
	 * (pde_script_reg_arch()), NULL when none is known */
	const char *reg_arch;
	/* brcntr: the capture's branch counters' columns and the env
	 * that gives the events' groups (NULL: none recorded) */
	const struct pda_brcntr *brcntr;
	const struct pd_env *env;
	bool failed;		/* a write failed */
};

/*
 * perf 6.1's perf_env__arch() of a recorder's `uname -m` ("x86_64" ->
 * "x86", "aarch64" -> "arm64", "armv7l" -> "arm"), for the register
 * names iregs and uregs print; NULL for an architecture whose names
 * pdtool does not know (perf 6.1 knows more: csky, loongarch, mips,
 * powerpc, riscv, s390).
 */
const char *pde_script_reg_arch(const char *uname_m);

/*
 * A PERF_SAMPLE_DATA_SRC value as perf 6.1's perf_script__meminfo_
 * scnprintf() decodes it, NUL-terminated in out[0..size):
 * "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB Walker hit|LCK No|BLK  N/A".
 * @return its length (out is cut short when size is smaller).
 */
size_t pde_data_src_str(uint64_t data_src, char *out, size_t size);

/* srccode: a source line's text (without its newline), NULL none */
struct pde_srccode {
	const char *text;
	size_t len;
	unsigned line;
};

/* One sample's line: what its fields print. */
struct pde_script_line {
	const struct pd_sample *sample;
	const char *comm;	/* "" unknown; perf prints ":-1" for none */
	const char *event;	/* its event's name */
	/* trace: a tracepoint's fields as its print fmt prints them
	 * (pd_tp_print()), NULL none */
	const char *trace;
	size_t trace_len;
	uint64_t fields;	/* of its type */
	bool callchain;		/* comm unpadded, as perf with callchains */
	const char *ip_text;	/* pde_script_stack_text()'s, or NULL */
	size_t ip_len;
	/* brstacksym, brstackoff, and brstack with dso: each branch's ends
	 * where they resolve, [2 * i] entry i's from, [2 * i + 1] its to
	 * (an entry NULL: no map); NULL when none of them is printed */
	const struct pda_branch_loc *const *br_ends;
	/* brstackinsn: the code the branch stack ran (pda_branch_insns()) */
	const struct pda_bb_line *bb;
	size_t nr_bb;
	/* srccode: the source line printed under the sample, and under
	 * each of bb's lines (NULL: none) */
	struct pde_srccode src;
	const struct pde_srccode *bb_src;
	/* brstack, brstacksym as perf 7 prints them (a sample perf 7's
	 * Arm SPE semantics made, --spe-events 7): P or M with N when not
	 * taken, "-" for none, and the speculation field after the type */
	bool brstack7;
	unsigned insn_len;	/* insnlen: the ip's instruction's length */
	const unsigned char *insn; /* insn: its insn_len bytes (NULL none) */
	/* addr names its symbol and DSO (perf's sample_addr_correlates_sym:
	 * page faults), addr_loc where it resolved (NULL: no map) */
	bool addr_sym;
	const struct pda_branch_loc *addr_loc;
	/* a BTS branch event's sample (perf's is_bts_event(): hardware
	 * branch instructions, period 1), printed as perf 6.1's
	 * perf_sample__fprintf_bts(): the fields up to flags, the ip
	 * field, then when bts_to " => " and the addr (with addr_loc's
	 * symbol and DSO as the fields say), bts_srcline, the insn
	 * fields; nothing else */
	bool bts, bts_to;
	const char *bts_srcline; /* the ip's srcline when bts_to: perf's
				  * print_srcline_last; NULL none */
	size_t bts_srcline_len;
};

/* w for out; name_width: the longest event name of the capture. */
int pde_script_init(struct pde_script *w, FILE *out, bool ns,
		    unsigned name_width);
/* Write one sample's line (buffered), ip_text as its ip field.
 * @return 0, PD_ERR_IO or PD_ERR_NOMEM. */
int pde_script_sample(struct pde_script *w, const struct pde_script_line *l);
/* The same in parts: the fields before the ip field, then the ip
 * field's text in any number of pieces, then the rest and the newline
 * (l as given to begin).  Each @return 0, PD_ERR_IO or PD_ERR_NOMEM. */
int pde_script_begin(struct pde_script *w, const struct pde_script_line *l);
int pde_script_raw(struct pde_script *w, const char *text, size_t len);
int pde_script_end(struct pde_script *w, const struct pde_script_line *l);
/*
 * A side-band record's line as perf 6.1's script prints it with
 * --show-*-events: l's fields up to the time (none when l->fields is
 * 0: perf found no event for its id), for l->sample (the record's
 * pid, tid, cpu, time and misc) and l->comm, then "PERF_RECORD_NAME"
 * and perf_event__fprintf()'s text of ev.  scratch: a buffer to use.
 * @return 0, PD_ERR_IO or PD_ERR_NOMEM.
 */
struct pd_event;
struct pdc_strbuf;
int pde_script_side(struct pde_script *w, const struct pde_script_line *l,
		    const struct pd_event *ev, struct pdc_strbuf *scratch);
/* Write what is buffered and free the buffer.  @return 0 or PD_ERR_IO. */
int pde_script_finish(struct pde_script *w);

/* ---- profile differences (pde_diff.c; `pdtool diff`) -------------- */

struct pda_diff; /* pda_diff.h: a finished diff */

/*
 * difffolded.pl's format, "stack countA countB\n" a line, in the stacks'
 * order (pda_diff_sort_stacks() first, for bytewise order): B's count as
 * it is, A's at B's scale (times the summary's factor, rounded to the
 * nearest whole number, where difffolded.pl -n truncates).  @return 0
 * or PD_ERR_IO.
 */
int pde_diff_folded(FILE *out, const struct pda_diff *d);

enum pde_diff_format {
	PDE_DIFF_TEXT = 0,	/* aligned columns for a terminal */
	PDE_DIFF_MARKDOWN,	/* Markdown paragraphs and tables */
};

struct pde_diff_opts {
	enum pde_diff_format format;
	size_t top;		/* rows a table at most; 0: all */
	double min_delta;	/* leave out changes smaller than this */
	bool significant;	/* only changes beyond everything tested:
				 * sampling noise, and the spread between
				 * runs when there are several a side */
	const char *const *paths[2]; /* each side's inputs, as named */
};

/*
 * The report: the inputs, the scaling and the tests used (saying so
 * plainly when run-to-run variation is not covered), then the largest
 * changes of each table (self and inclusive per symbol, and per DSO when
 * the diff has them): before, after, change, p-values and verdict.
 * @return 0 or PD_ERR_IO.
 */
int pde_diff_report(FILE *out, const struct pda_diff *d,
		    const struct pde_diff_opts *opts);

/*
 * One line each on how values are scaled and how changes are tested,
 * for messages: "each capture scaled to its samples (--scale total)"...
 * Static strings or (the symbol) written into buf.
 */
const char *pde_diff_scaling_text(const struct pda_diff *d, char *buf,
				  size_t size);
const char *pde_diff_tests_text(const struct pda_diff *d);
/* ---- annotation (pde_annotate*.c; `pdtool annotate`) --------------- */

struct pda_annot;	/* pda_annotate.h: finished, with its functions */
struct pda_annot_func;
struct pda_missing_dso;	/* pda_session.h: a binary with unresolved frames */
struct pda_branch_insn;	/* pda_branch.h: an instruction's branch counts */
struct pda_brcntr;	/* pda_branch.h: the branch counters' columns */

enum pde_annot_format {
	PDE_ANNOT_TEXT = 0,	/* perf annotate --stdio's layout */
	PDE_ANNOT_MD,		/* Markdown: tables and a code block */
	PDE_ANNOT_HTML,		/* one standalone page */
	PDE_ANNOT_JSON,		/* one JSON object */
};

struct pde_annot_opts {
	enum pde_annot_format format;
	bool color;		/* text: ANSI colours on hot lines */
	bool hits;		/* percentages of samples, not of periods */
	const char *const *events; /* event names, [nr_events] */
	size_t nr_events;
	const char *input;	/* the capture, for titles */
	size_t nr_hot_lines;	/* hottest source lines listed; 0: 10 */
	/* json: the binaries with unresolved frames, and why (pda_stats's
	 * unresolved_dsos); their strings live as long as the writer */
	const struct pda_missing_dso *unresolved;
	size_t nr_unresolved;
	/* the branch counters' columns (pda_branch.h), or NULL: text a
	 * Branch Counter column and perf's legend, json "counters" */
	const struct pda_brcntr *brcntr;
};

/*
 * A writer of annotated functions: begin, one call per function (in the
 * order given), end.  Percentages: an instruction's (or line's) samples
 * over its function's ("func", perf's local) and over the event's
 * ("total", perf's global), of periods or, with hits, of samples.  Source
 * lines come from pda_annot_source().  Each call returns 0 or PD_ERR_IO.
 * Not thread-safe; one per FILE.
 */
struct pde_annot {
	FILE *out;
	struct pde_annot_opts o;
	struct pda_annot *a;
	struct pde_json j;
	size_t nr_funcs;
	/* Set by the caller before pde_annot_func(), or NULL: a note per
	 * instruction of that function (NULL: none), the data type it
	 * accesses as perf annotate --code-with-type shows it: text "\t\t#
	 * data-type: NOTE" after the instruction, json "data_type". */
	const char *const *notes;
	/* Set likewise, or NULL: the branch counts of each instruction of
	 * that function (pda_branch_annot_func()): text columns taken,
	 * miss%, cycles and IPC; json "branch"; html a note. */
	const struct pda_branch_insn *branches;
};

int pde_annot_begin(struct pde_annot *w, FILE *out, struct pda_annot *a,
		    const struct pde_annot_opts *opts);
int pde_annot_func(struct pde_annot *w, const struct pda_annot_func *fn);
int pde_annot_end(struct pde_annot *w);

/* ---- data types (pde_dthist.c; `pdtool annotate --data-type`) ------ */

struct pda_dthist;	/* pda_dthist.h: finished */

struct pde_dthist_opts {
	enum pde_annot_format format; /* text, md or json */
	bool color;		/* text: perf's percentage colours */
	const char *const *events; /* event names by evsel index */
	size_t nr_events;
	const char *only;	/* only this type ("foo" matches "struct
				 * foo", as perf); NULL: every type */
	const char *input;	/* the capture, for titles */
	bool cacheline;		/* each type's cache lines with samples
				 * too, and the fields in each */
	/* the coverage (pda_datatype_coverage()): samples per reason and
	 * their words, [nr_why]; NULL: not written */
	const uint64_t *coverage;
	const char *const *why;
	size_t nr_why;
	/* pdtool types: the samples and period of each event's samples
	 * kept, [nr_events]: a summary first (text, md; share and
	 * totals per type in json and csv), each type's share of its
	 * event's period; NULL: none (annotate --data-type) */
	const uint64_t *event_samples, *event_periods;
	bool csv;		/* CSV (format aside): a row per member, or
				 * with cacheline per cache line */
};

/*
 * The types of h with their members: text as perf >= 6.8's `perf
 * annotate --data-type --stdio` (per type a header and a member tree,
 * each member's share of the type's period), GitHub Markdown (a heading
 * and a table a type) or one JSON object ({"input", "types": [{"event",
 * "dso", "type", "size", "samples", "period", "members": [{"offset",
 * "size", "depth", "type", "name", "field", "samples", "period",
 * "percent"}]}], "coverage": {reason: samples}}; "field": the member's
 * path from the type, "in.pt.y"), or CSV.  @return 0 or PD_ERR_IO;
 * *nr_shown the types written.
 */
int pde_dthist(FILE *out, const struct pda_dthist *h,
	       const struct pde_dthist_opts *o, size_t *nr_shown);

/* ---- branches (pde_branches.c) ------------------------------------- */

enum pde_branches_format {
	PDE_BRANCHES_TEXT,
	PDE_BRANCHES_MD,   /* the report's "Branch hotspots" section */
	PDE_BRANCHES_JSON,
	PDE_BRANCHES_CSV,
};

struct pda_branch; /* pda_branch.h: finished */

/*
 * `pdtool branches`' table of b, its ends named at level by (an enum
 * pda_branch_by).  @return 0, PD_ERR_NOMEM, or PD_ERR_IO when out's
 * error flag is set.
 */
int pde_branches(FILE *out, enum pde_branches_format fmt,
		 const struct pda_branch *b, unsigned by);

/*
 * `pdtool branches --blocks`: b's basic blocks (opts.blocks) at level by:
 * blocks, functions or source lines, with executions, instructions,
 * cycles and IPC.  @return as pde_branches.
 */
int pde_branch_blocks(FILE *out, enum pde_branches_format fmt,
		      const struct pda_branch *b, unsigned by);

/* ---- memory samples (pde_mem.c; `pdtool mem`) ---------------------- */

enum pde_mem_format {
	PDE_MEM_TEXT,
	PDE_MEM_MD,
	PDE_MEM_JSON,
	PDE_MEM_CSV,
};

struct pda_mem; /* pda_mem.h: finished */

/* views: bit (1 << enum pda_mem_view) per table, and the latency
 * histogram per level */
#define PDE_MEM_HIST_VIEW (1u << 16)

struct pde_mem_opts {
	enum pde_mem_format format;
	unsigned views;
	size_t top;	/* rows per table; 0: all */
	bool spe;	/* samples synthesized from Arm SPE: a WEIGHT_STRUCT's
			 * var2 and var3 are its issue and translation
			 * latencies (else var2 is the instruction latency) */
};

/*
 * `pdtool mem`'s tables of m.  @return 0, or PD_ERR_IO when out's error
 * flag is set.
 */
int pde_mem(FILE *out, const struct pde_mem_opts *o, const struct pda_mem *m);

/* The part of perf's data_src string (pde_data_src_str) after "|NAME "
 * ("LVL", "SNP", "TLB", "LCK") up to the next '|', as snprintf. */
size_t pde_data_src_field(uint64_t data_src, const char *name, char *out,
			  size_t size);

/* ---- perf report's tables (pde_report.c; `pdtool report`) ----------- */

struct pda_report;
struct pda_ratio;

/* perf's -g modes: how a row's call graph is printed. */
enum pde_report_graph {
	PDE_GRAPH_NONE,		/* none */
	PDE_GRAPH_ABS,		/* graph: shares of the event's total */
	PDE_GRAPH_REL,		/* fractal: shares of the parent's */
	PDE_GRAPH_FLAT,		/* flat: each chain from the root */
	PDE_GRAPH_FOLDED,	/* folded: each chain on one line */
};

struct pde_report_opts {
	uint64_t lost;		/* "# Total Lost Samples:" */
	float percent_limit;	/* rows whose share (children's with them)
				 * is under it are not written; 0: none */
	/* call graphs (the report made with PDA_REPORT_CALLCHAIN) */
	enum pde_report_graph graph;
	double graph_min_percent; /* perf's threshold: parts under it are
				   * left out */
	unsigned graph_limit;	/* perf's print_limit: 0 all */
	bool graph_skip_first;	/* --sort starts with "sym": perf leaves
				 * out a lone chain's first frame */
	bool color;		/* text: perf's percentage colours (red from
				 * 5%, green over 0.5%) */
	/* Ratio columns after the values, in every table: each row's
	 * period of event ratios[i].num (a pda_report_val() member) over
	 * its period of ratios[i].den: its own samples' (with children,
	 * its callees' too: the Children column's periods); "-" where the
	 * row has none of den.  NULL: none. */
	const struct pda_ratio *ratios;
	size_t nr_ratios;
	/* perf's --mem-mode: the sort order its title names (non-NULL:
	 * "Total weight" and "Sort order" title lines) */
	const char *mem_sort;
	/* text: perf 6.1's "IPC [IPC Coverage]" column of "-" after the
	 * keys, which it adds when --sort's text names "symbol" */
	bool ipc_null;
	bool dso_list;		/* --dsos was given: perf does not widen the
				 * DSO column for rows without a symbol */
	/* branch text: the one value --comms, --dsos or --symbols names
	 * (NULL: none, or several), whose comm, dso or symbol column perf
	 * elides, saying it in the header */
	const char *one_comm, *one_dso, *one_sym;
	/* text: --time's text, which perf's titles repeat ("(time
	 * slices: ...)"); NULL: none */
	const char *time_slices;
	/* branch text: the Branch Statistics left out, for
	 * pde_branch_stats_text() after what the caller writes between
	 * (perf report -T's table) */
	bool branch_stats_apart;
};

/* A report's tables (pda_report_finish() done) as `perf report --stdio`
 * 6.1 prints them, with the call graphs opts->graph asks for. */
int pde_report_text(FILE *out, const struct pda_report *rep,
		    const struct pde_report_opts *o);

/*
 * The same rows (--percent-limit applied, call graphs not written) as
 * GitHub Markdown (a heading and a table an event), JSON (one document:
 * the lost count and per table its event, sample count, period and a
 * row object each: its sort keys by perf's names and every value:
 * "children" and "self" in percent, "samples", "period",
 * "children_samples", "children_period"; with --group a "members"
 * array of them, one an event) or CSV (a header line, then a line a
 * row: the event, the values, the keys as the text shows them).
 */
int pde_report_md(FILE *out, const struct pda_report *rep,
		  const struct pde_report_opts *o);
int pde_report_json(FILE *out, const struct pda_report *rep,
		    const struct pde_report_opts *o);
int pde_report_csv(FILE *out, const struct pda_report *rep,
		   const struct pde_report_opts *o);

struct pda_brep;
/*
 * perf report --branch-stack's tables (pda_brep_finish() done) as perf
 * 6.1 --stdio prints them: a share of the event's branch entries a row,
 * the keys' columns as wide as perf measures them (a DSO name only where
 * its end has a symbol; an end without one at perf's 22).  ipc: perf's
 * ipc_lbr column (the report made with opts.ipc), which perf adds when
 * --sort names a symbol key.  opts: lost, percent_limit,
 * color.
 */
int pde_branch_report_text(FILE *out, const struct pda_brep *r, bool ipc,
			   const struct pde_report_opts *o);
/* perf's Branch Statistics of r (nothing when no entry has a type), as
 * pde_branch_report_text() closes with them.  @return 0 or PD_ERR_IO. */
int pde_branch_stats_text(FILE *out, const struct pda_brep *r);
/*
 * perf's block view of r (report --total-cycles, r made with
 * opts.total_cycles): per table, perf 6.1's title, with counters
 * (cntr, NULL: none) their legend, then each block: Sampled Cycles%
 * (of all entries' cycles), Sampled Cycles, Avg Cycles% (of the blocks'
 * averages summed per row), Avg Cycles, perf 7's Branch Counter cell,
 * [Program Block Range] and Shared Object in perf's fixed widths; the
 * branch statistics.  @return 0, PD_ERR_IO or PD_ERR_NOMEM.
 */
int pde_branch_blocks_text(FILE *out, struct pda_brep *r,
			   const struct pda_brcntr *cntr,
			   const struct pde_report_opts *o);
/*
 * The same blocks as GitHub Markdown (json false: a heading an event or
 * group with its entries, samples and cycles, the counters' letters, a
 * table of perf's columns) or JSON (one document: "lost", "tables", each
 * "event", "entries", "samples", "total_cycles", "block_cycles" (the
 * shares' wholes) and "blocks": "sampled_cycles_pct", "sampled_cycles",
 * "avg_cycles_pct", "avg_cycles", "entries", "symbol", "dso", "start",
 * "end" (offsets in the symbol), "start_line", "end_line", with counters
 * "branch_counter" (perf's cell) and "counters" (each "event", "sum",
 * "saturated")).  @return 0, PD_ERR_IO or PD_ERR_NOMEM.
 */
int pde_branch_blocks_grid(FILE *out, struct pda_brep *r,
			   const struct pda_brcntr *cntr,
			   const struct pde_report_opts *o, bool json);
/*
 * The same rows (--percent-limit applied) as GitHub Markdown (a heading
 * and a table an event: share, entries, the keys' cells as the text
 * shows them, IPC and coverage with ipc), CSV (a header line, then a
 * line a row: event, share, entries, the cells, ipc) or JSON (one
 * document: "lost", "keys", per table its event, "entries", "samples"
 * and rows, each "overhead", "entries", the cells by perf's key names,
 * "from" and "to" ({"dso", "symbol", "addr", "map_addr", "level",
 * "srcline"}), "ipc" and "ipc_coverage" with ipc; then "branch_types",
 * perf's Branch Statistics as counts).
 */
int pde_branch_report_md(FILE *out, const struct pda_brep *r, bool ipc,
			 const struct pde_report_opts *o);
int pde_branch_report_csv(FILE *out, const struct pda_brep *r, bool ipc,
			  const struct pde_report_opts *o);
int pde_branch_report_json(FILE *out, const struct pda_brep *r, bool ipc,
			   const struct pde_report_opts *o);

/* ---- perf stat runs compared (pde_statdiff.c; `pdtool diff`) ------ */

struct pda_statdiff;

/* Each event and derived metric of sd: A, B, the change, its noise and
 * whether the change is past it; label_a and label_b name the sides.
 * @return 0 or PD_ERR_IO. */
int pde_statdiff_text(FILE *out, const struct pda_statdiff *sd,
		      const char *label_a, const char *label_b);
/*
 * The same as one JSON object: "a" and "b" (label, runs), "events" and
 * "metrics", each value with name, (a metric's key and group), unit,
 * in_a/in_b, a, b, a_sd, b_sd, change and noise (fractions; null where
 * the text prints "-") and significant (null without a noise estimate).
 */
int pde_statdiff_json(FILE *out, const struct pda_statdiff *sd,
		      const char *label_a, const char *label_b);

/* ---- the profile report (pde_doc.c; `pdtool report --format md`) --- */

struct pda_stats;
struct pda_branch;
struct pda_mem;
struct pda_ratio;
/* Ratio r of report row id as report --ratios prints it: its numerator
 * event's period over its denominator's (with children, their
 * callees' too), times 100 for a percent ratio; NAN without the
 * denominator (pde_report.c). */
double pde_report_ratio(const struct pda_report *rep,
			const struct pda_ratio *r, uint32_t id);

/*
 * What the report is made of: the analyses of one sampling capture and,
 * optionally, of perf stat record captures of the same command.  Each
 * section is written only when these hold its data, and says which
 * capture and events it comes from.  Any pointer may be NULL: the
 * sections that need it are left out.
 */
struct pde_doc {
	const char *capture;		/* its path, as given */
	const struct pd_file *file;	/* its events */
	const struct pd_env *env;	/* its header features */
	uint64_t capture_bytes;		/* its size; 0 unknown (a pipe) */
	/* what the capture run counted (pda_capture_stats) */
	struct pde_doc_counts {
		uint64_t nr_samples, lost, nr_bad_samples, nr_stack_errors;
		uint64_t bytes_missing;	/* the capture is cut short */
	} counts;
	bool has_counts;		/* the run happened */
	const struct pda_stats *ps;	/* the session's: unresolved frames,
					 * unwinding */
	/* hotspots: perf report -s dso,sym --no-children, and the same by
	 * dso,sym,srcline for each function's hottest line */
	const struct pda_report *hot, *hot_lines;
	unsigned top;			/* rows per hotspot table */
	/* the counter ratios hot's events allow, a column each in the
	 * Hotspots tables (pdtool report --ratios' columns) */
	const struct pda_ratio *ratios;
	size_t nr_ratios;
	/* the derived metrics of the capture's sampled periods */
	const struct pda_metrics *sampled;
	/* the stat captures' report and metrics; their paths */
	const struct pda_stat_report *stat;
	const struct pda_metrics *stat_metrics;
	const char *const *stat_paths;
	size_t nr_stat_paths;
	const struct pda_branch *branches; /* aggregated by symbol */
	/* an Arm SPE trace's miss rates among its sampled operations
	 * (l1d-miss / l1d-access, ...), for the Cache hierarchy; NULL or
	 * nr 0: none */
	const struct pda_metrics *spe_cache;
	/* the Arm SPE event branches holds the samples of (a one-entry
	 * stack each: branch-miss, or perf 7's branch); NULL: the
	 * capture's branch stacks */
	const char *branches_event;
	/* the memory samples (pda_mem.h), the level view finished; NULL:
	 * none */
	const struct pda_mem *mem;
	/* the event whose samples mem holds (an Arm SPE trace's "memory":
	 * each load and store once); NULL: every sample with a data
	 * source */
	const char *mem_event;
	/* the data types the samples accessed (pda_dthist.h, finished),
	 * and the attribution's coverage: samples per reason and its
	 * words, [nr_type_why], reason 0 attributed; NULL: none */
	const struct pda_dthist *types;
	const uint64_t *type_coverage;
	const char *const *type_why;
	size_t nr_type_why;
	const char *flame;		/* the flame graph, beside the
					 * report; NULL none */
	/* the Latency section: the first event's samples by dso,sym with
	 * their latencies (PDA_REPORT_LATENCY), and its samples, periods
	 * and latencies at each parallelism level 1..nr_levels ([0]
	 * unused); NULL: the capture has no switch records (or is
	 * system-wide, or a pipe) */
	const struct pda_report *latency;
	const uint64_t *level_samples, *level_period, *level_latency;
	unsigned nr_levels;
};

/* The report as GitHub-flavoured Markdown, as one JSON object with the
 * same sections and numbers, or as the Markdown's rendering: a
 * standalone HTML page (no script, no request: its CSP allows only its
 * own style).  @return 0 or PD_ERR_IO. */
int pde_doc_md(FILE *out, const struct pde_doc *d);
int pde_doc_json(FILE *out, const struct pde_doc *d);
int pde_doc_html(FILE *out, const struct pde_doc *d);

#ifdef __cplusplus
}
#endif

#endif /* PDE_H */
