/*
 * pde.h - the emit layer: writers of pdtool's output formats.  Writers
 * take decoded data from libpd (and later libpda) and a FILE *; they
 * never read input or decide policy.
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
/* v as a string "0x..." (JSON numbers lose precision above 2^53) */
void pde_json_hex(struct pde_json *j, const char *key, uint64_t v);
void pde_json_bool(struct pde_json *j, const char *key, bool v);
void pde_json_null(struct pde_json *j, const char *key);
/* bytes as a lowercase hex string */
void pde_json_hexbytes(struct pde_json *j, const char *key,
		       const unsigned char *p, size_t n);
/* ends a top-level value with a newline */
void pde_json_newline(struct pde_json *j);

/* Write n bytes of s (up to a NUL) for a terminal or text file: printable
 * bytes as they are, others as \xNN. */
void pde_text_str(FILE *out, const char *s, size_t n);

/* ---- dump (pde_dump.c) --------------------------------------------- */

#define PDE_DUMP_MAX_DEPTH 8

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
	FILE *out;
	bool json;
	struct pde_json j;
	int depth;				/* nesting inside a record */
	bool first[PDE_DUMP_MAX_DEPTH];		/* no value yet at a depth */
	bool in_array[PDE_DUMP_MAX_DEPTH];
};

void pde_dump_init(struct pde_dump *d, FILE *out, bool json);
/* A SAMPLE that pd_sample_decode() decoded. */
void pde_dump_sample(struct pde_dump *d, const struct pd_rec *rec,
		     const struct pd_sample *s);
/* Another record that pd_event_decode() decoded (it returned 0). */
void pde_dump_event(struct pde_dump *d, const struct pd_rec *rec,
		    const struct pd_event *ev);
/* A record of a type libpd does not know: type, offset and size. */
void pde_dump_unknown(struct pde_dump *d, const struct pd_rec *rec);
/* A record that failed to decode, with the reason in an "error" field. */
void pde_dump_failed(struct pde_dump *d, const struct pd_rec *rec,
		     const char *reason);

/* What `pdtool dump --count` counts. */
struct pde_dump_totals {
	uint64_t nr_records;
	uint64_t by_type[PD_REC_TYPE_MAX];
	uint64_t nr_other_type;		/* types >= PD_REC_TYPE_MAX */
	uint64_t samples_decoded;
	uint64_t failed;		/* records that failed to decode */
};

/* The totals as a table, or as one JSON object with json. */
void pde_dump_totals(FILE *out, bool json, const struct pde_dump_totals *t);

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

/* Readable text, like `perf report --header-only` plus `--stats`. */
void pde_info_text(FILE *out, const struct pde_info *info);
/* One JSON object and a newline (docs/man/pdtool-info.1.md). */
void pde_info_json(FILE *out, const struct pde_info *info);

/* ---- folded stacks (pde_folded.c; `pdtool fold`) ------------------ */

struct pda_fold; /* pda.h: a finished aggregator */

/*
 * Write fd's lines in their sorted order, "stack weight\n" each (the
 * format of stackcollapse-perf.pl).  fd must be finished
 * (pda_fold_finish).  @return 0, or -1 when writing failed (ferror(out)
 * is set).
 */
int pde_folded_write(FILE *out, const struct pda_fold *fd);

#ifdef __cplusplus
}
#endif

#endif /* PDE_H */
