/*
 * pd_write.h - writing perf.data captures as perf 6.1 writes them, for
 * pdtool's recorder: file mode (header, sample ids, attrs, data, feature
 * sections) or pipe mode (a 16-byte header, then HEADER_FEATURE,
 * HEADER_ATTR and EVENT_UPDATE records before the data), with the data
 * optionally packed in zstd COMPRESSED records (`perf record -z`).
 * format.md §2..§5, §7 and §9 describe what is written.
 *
 *	struct pd_writer *w;
 *	PD_WRITER_OPTS(wo, .pipe = false, .zstd_level = 0);
 *	pd_writer_new(fd, &wo, &w);
 *	pd_writer_add_event(w, &attr, 128, "cpu-clock", ids, nr_ids);
 *	pd_writer_feature(w, PD_FEAT_HOSTNAME, bytes, len);  (pipe: first)
 *	pd_writer_begin(w);
 *	pd_writer_data(w, records, len);  ... pd_writer_round(w);
 *	pd_writer_feature(w, PD_FEAT_BUILD_ID, table, len);  (file: any time)
 *	pd_writer_finish(w);
 *	pd_writer_free(w);
 *
 * A failed write (a full disk) stops the writer: later data calls fail
 * at once, and pd_writer_finish() still makes a valid file of what was
 * written (the records that were whole, and the header; the feature
 * sections when they fit).  Not thread-safe.
 */
#ifndef PD_WRITE_H
#define PD_WRITE_H

#include "pd.h"

#include <stdbool.h>

struct pd_writer;

struct pd_writer_opts {
	size_t sz;		     /* set by PD_WRITER_OPTS */
	bool pipe;		     /* pipe mode (format.md §9) */
	int zstd_level;		     /* 0: no compression, else 1..22 */
	uint32_t zstd_mmap_len;	     /* COMPRESSED's mmap_len field: bytes
				      * of one ring buffer */
	const struct pd_alloc *alloc;
	bool pipe_no_names;	     /* pipe mode: the caller sends the
				      * events' names (EVENT_UPDATE) in the
				      * data itself, as perf 6.1 does after
				      * the kernel's maps */
};

#define PD_WRITER_OPTS(name, ...)                                           \
	struct pd_writer_opts name = { .sz = sizeof(struct pd_writer_opts), \
				       __VA_ARGS__ }

/* A writer on fd, which it does not close (the caller does, after
 * pd_writer_free()).  @return 0 and *out, or PD_ERR_NOMEM, PD_ERR_API. */
PD_API int pd_writer_new(int fd, const struct pd_writer_opts *opts,
			 struct pd_writer **out);
PD_API void pd_writer_free(struct pd_writer *w); /* accepts NULL */

/*
 * Add an event before pd_writer_begin(): attr_size bytes of its
 * perf_event_attr (whose size field says the same), its name (as
 * EVENT_DESC and, in pipe mode, EVENT_UPDATE give it) and its sample ids,
 * all copied.  @return 0, PD_ERR_NOMEM or PD_ERR_API.
 */
PD_API int pd_writer_add_event(struct pd_writer *w, const void *attr,
			       size_t attr_size, const char *name,
			       const uint64_t *ids, size_t nr_ids);

/*
 * A feature section's bytes (format.md §4), copied.  In file mode it may
 * come any time before pd_writer_finish() and is written after the data;
 * in pipe mode it must come before pd_writer_begin() and is sent as a
 * HEADER_FEATURE record, except BUILD_ID, which pipe mode sends as
 * HEADER_BUILD_ID records at pd_writer_finish().  A second call for a
 * feature replaces the first.  @return 0, PD_ERR_NOMEM or PD_ERR_API.
 */
PD_API int pd_writer_feature(struct pd_writer *w, unsigned feat,
			     const void *data, size_t len);

/* Write what comes before the data.  @return 0 or PD_ERR_IO. */
PD_API int pd_writer_begin(struct pd_writer *w);

/* Whole records, len bytes, into the data (compressed with zstd_level).
 * @return 0, PD_ERR_IO (the writer is stopped) or PD_ERR_NOMEM. */
PD_API int pd_writer_data(struct pd_writer *w, const void *recs, size_t len);

/* Records written as they are, never compressed (FINISHED_ROUND,
 * FINISHED_INIT, as perf writes them). */
PD_API int pd_writer_raw(struct pd_writer *w, const void *recs, size_t len);

/* Flush the zstd stream, then a FINISHED_ROUND record. */
PD_API int pd_writer_round(struct pd_writer *w);

/*
 * Flush, write the feature sections and the header (file mode) or the
 * build-id records (pipe mode).  After a stopped writer, the data is cut
 * back to its last whole record first.  @return 0, or PD_ERR_IO when
 * anything failed (the file is valid all the same, as far as it goes).
 */
PD_API int pd_writer_finish(struct pd_writer *w);

/* Data bytes written so far (as stored: compressed when packed), and the
 * records given to pd_writer_data(), before compression. */
PD_API uint64_t pd_writer_data_size(const struct pd_writer *w);
PD_API uint64_t pd_writer_data_raw(const struct pd_writer *w);

/* Why the last call failed ("writing 'perf.data': No space left on
 * device" without the name: the caller knows it).  Valid until the next
 * call. */
PD_API const char *pd_writer_errmsg(const struct pd_writer *w);

/* The errno of the write that stopped the writer, 0 if none. */
PD_API int pd_writer_errno(const struct pd_writer *w);

/*
 * Building a feature section: perf's strings are `u32 len` then the
 * string padded with NULs to a multiple of 64 (len counts the padding).
 * Appends to b; b->oom says whether memory ran out.
 */
struct pdc_strbuf;
PD_API void pd_feat_u32(struct pdc_strbuf *b, uint32_t v);
PD_API void pd_feat_u64(struct pdc_strbuf *b, uint64_t v);
PD_API void pd_feat_string(struct pdc_strbuf *b, const char *s);

#endif /* PD_WRITE_H */
