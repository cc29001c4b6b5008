/*
 * pd_write.c - the perf.data writer (pd_write.h): the layout perf 6.1's
 * perf_session__write_header() gives a file, and its pipe-mode records.
 */
#include "pd_config.h"
#include "pd_write.h"
#include "pdc_alloc.h"
#include "pdc_opts.h"
#include "pdc_strbuf.h"

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createCCtx_advanced */
#include <zstd.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#define FILE_HEADER_SIZE 104 /* format.md §2 */
#define PIPE_HEADER_SIZE 16
#define NR_FEATS 64	     /* perf's feature bits all sit below this */
#define LAST_FEATURE 32	     /* perf 6.1's HEADER_LAST_FEATURE: the end of
			      * its features in a pipe (format.md §4) */
#define MAX_RECORD 65535     /* header.size is a u16 */
#define EVENT_UPDATE_NAME 2  /* perf's PERF_EVENT_UPDATE__NAME */
#define MAX_EVENTS 4096
#define MAX_NAME 1024

struct wevent {
	unsigned char *attr;
	size_t attr_size;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct pd_writer {
	const struct pd_alloc *a;
	int fd;
	bool pipe;
	bool no_names;	       /* pipe: the caller sends the names */
	uint32_t mmap_len;
	int level;
	ZSTD_CCtx *zc;
	unsigned char *zbuf; /* one COMPRESSED record */
	struct wevent *evs;
	size_t nr_evs, alloc_evs;
	struct {
		unsigned char *data;
		size_t len;
		bool set;
	} feat[NR_FEATS];
	uint64_t pos;	       /* file offset of the next write */
	uint64_t data_offset;  /* file mode: where the data starts */
	uint64_t data_size;    /* bytes of data written whole */
	uint64_t data_raw;     /* bytes given to pd_writer_data() */
	size_t attr_size;      /* the largest event's attr */
	bool begun, finished, stopped;
	int err_no;
	char errmsg[256];
};

static int fail(struct pd_writer *w, int rc, const char *fmt, ...)
	PD_PRINTF(3, 4);

static int fail(struct pd_writer *w, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->errmsg, sizeof(w->errmsg), fmt, ap);
	va_end(ap);
	return rc;
}

static void *zstd_alloc(void *opaque, size_t size)
{
	return pdc_malloc(opaque, size);
}

static void zstd_free(void *opaque, void *p)
{
	pdc_free(opaque, p);
}

int pd_writer_new(int fd, const struct pd_writer_opts *opts,
		  struct pd_writer **out)
{
	struct pd_writer_opts o;
	struct pd_writer *w;

	*out = NULL;
	if (!opts || pdc_opts_copy(&o, sizeof(o), opts) < 0 || fd < 0 ||
	    o.zstd_level < 0 || o.zstd_level > ZSTD_maxCLevel())
		return PD_ERR_API;
	w = pdc_zalloc(o.alloc, sizeof(*w));
	if (!w)
		return PD_ERR_NOMEM;
	w->a = o.alloc;
	w->fd = fd;
	w->pipe = o.pipe;
	w->no_names = o.pipe && o.pipe_no_names;
	w->level = o.zstd_level;
	w->mmap_len = o.zstd_mmap_len;
	if (w->level) {
		ZSTD_customMem cm;

		cm.customAlloc = zstd_alloc;
		cm.customFree = zstd_free;
		cm.opaque = (void *)(uintptr_t)w->a;
		w->zc = ZSTD_createCCtx_advanced(cm);
		w->zbuf = pdc_malloc(w->a, MAX_RECORD);
		if (!w->zc || !w->zbuf ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(
			    w->zc, ZSTD_c_compressionLevel, w->level))) {
			pd_writer_free(w);
			return PD_ERR_NOMEM;
		}
	}
	*out = w;
	return 0;
}

void pd_writer_free(struct pd_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nr_evs; i++) {
		pdc_free(w->a, w->evs[i].attr);
		pdc_free(w->a, w->evs[i].name);
		pdc_free(w->a, w->evs[i].ids);
	}
	pdc_free(w->a, w->evs);
	for (size_t i = 0; i < NR_FEATS; i++)
		pdc_free(w->a, w->feat[i].data);
	ZSTD_freeCCtx(w->zc);
	pdc_free(w->a, w->zbuf);
	pdc_free(w->a, w);
}

int pd_writer_add_event(struct pd_writer *w, const void *attr,
			size_t attr_size, const char *name,
			const uint64_t *ids, size_t nr_ids)
{
	struct wevent *e;
	size_t name_len = strlen(name);

	/* perf 6.1 reads attrs of 64 to 128 bytes (format.md §3) */
	if (w->begun || attr_size < 64 || attr_size > 128 ||
	    name_len >= MAX_NAME || nr_ids > (MAX_RECORD - 136) / 8)
		return fail(w, PD_ERR_API, "bad event");
	if (PDC_GROW(w->a, w->evs, w->alloc_evs, w->nr_evs + 1, MAX_EVENTS) <
	    0)
		return fail(w, PD_ERR_NOMEM, "out of memory");
	e = &w->evs[w->nr_evs];
	memset(e, 0, sizeof(*e));
	e->attr = pdc_zalloc(w->a, 128);
	e->name = pdc_strndup(w->a, name, name_len);
	e->ids = pdc_malloc(w->a, nr_ids ? nr_ids * 8 : 8);
	if (!e->attr || !e->name || !e->ids) {
		pdc_free(w->a, e->attr);
		pdc_free(w->a, e->name);
		pdc_free(w->a, e->ids);
		return fail(w, PD_ERR_NOMEM, "out of memory");
	}
	memcpy(e->attr, attr, attr_size);
	e->attr_size = attr_size;
	if (nr_ids)
		memcpy(e->ids, ids, nr_ids * 8);
	e->nr_ids = nr_ids;
	if (attr_size > w->attr_size)
		w->attr_size = attr_size;
	w->nr_evs++;
	return 0;
}

int pd_writer_feature(struct pd_writer *w, unsigned feat, const void *data,
		      size_t len)
{
	unsigned char *copy;

	if (feat == 0 || feat >= NR_FEATS || w->finished ||
	    (w->pipe && w->begun && feat != PD_FEAT_BUILD_ID))
		return fail(w, PD_ERR_API, "feature %u given too late", feat);
	/* one byte at least: a section may be empty (STAT) */
	copy = pdc_malloc(w->a, len ? len : 1);
	if (!copy)
		return fail(w, PD_ERR_NOMEM, "out of memory");
	if (len)
		memcpy(copy, data, len);
	pdc_free(w->a, w->feat[feat].data);
	w->feat[feat].data = copy;
	w->feat[feat].len = len;
	w->feat[feat].set = true;
	return 0;
}

static int add_compressed_feat(struct pd_writer *w);

/* Write len bytes at the current position; a failure stops the writer. */
static int put(struct pd_writer *w, const void *p, size_t len)
{
	const unsigned char *b = p;

	if (w->stopped)
		return PD_ERR_IO;
	while (len) {
		ssize_t n = write(w->fd, b, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->err_no = n < 0 ? errno : ENOSPC;
			w->stopped = true;
			return fail(w, PD_ERR_IO, "write failed: %s",
				    strerror(w->err_no));
		}
		b += n;
		len -= (size_t)n;
		w->pos += (uint64_t)n;
	}
	return 0;
}

static void st_u16(unsigned char *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static void st_u32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void st_u64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static int put_rec_header(struct pd_writer *w, uint32_t type, size_t size)
{
	unsigned char h[8];

	st_u32(h, type);
	st_u16(h + 4, 0);
	st_u16(h + 6, (uint16_t)size);
	return put(w, h, 8);
}

/* format.md §5: the events as records, first: perf 6.1 reads features
 * such as GROUP_DESC against the events it has (a group named before
 * its events fails, "failed to process type: 80"). */
static int pipe_attrs(struct pd_writer *w)
{
	int rc = 0;

	for (size_t i = 0; i < w->nr_evs && rc == 0; i++) {
		const struct wevent *e = &w->evs[i];

		rc = put_rec_header(w, PD_REC_HEADER_ATTR,
				    8 + e->attr_size + 8 * e->nr_ids);
		if (rc == 0)
			rc = put(w, e->attr, e->attr_size);
		if (rc == 0)
			rc = put(w, e->ids, 8 * e->nr_ids);
	}
	return rc;
}

/* The events' names as EVENT_UPDATE records, after the features as
 * perf sends them. */
static int pipe_names(struct pd_writer *w)
{
	static const unsigned char zeros[MAX_NAME + 8];
	int rc = 0;

	for (size_t i = 0; i < w->nr_evs && rc == 0; i++) {
		const struct wevent *e = &w->evs[i];
		size_t nlen = strlen(e->name) + 1, npad = (8 - nlen % 8) % 8;
		unsigned char upd[16];

		if (e->nr_ids == 0)
			continue;
		st_u64(upd, EVENT_UPDATE_NAME);
		st_u64(upd + 8, e->ids[0]);
		rc = put_rec_header(w, PD_REC_EVENT_UPDATE,
				    8 + 16 + nlen + npad);
		if (rc == 0)
			rc = put(w, upd, 16);
		if (rc == 0)
			rc = put(w, e->name, nlen);
		if (rc == 0)
			rc = put(w, zeros, npad);
	}
	return rc;
}

/* format.md §9: the header, the events, the features, the names. */
static int begin_pipe(struct pd_writer *w)
{
	static const unsigned char zeros[8];
	unsigned char h[PIPE_HEADER_SIZE];
	int rc = 0;

	memcpy(h, "PERFILE2", 8);
	st_u64(h + 8, PIPE_HEADER_SIZE);
	rc = put(w, h, sizeof(h));
	if (rc == 0)
		rc = pipe_attrs(w);
	for (unsigned f = 1; f < NR_FEATS && rc == 0; f++) {
		size_t len = w->feat[f].len, pad = (8 - len % 8) % 8;
		unsigned char id[8];

		if (!w->feat[f].set || f == PD_FEAT_BUILD_ID)
			continue;
		if (16 + len + pad > MAX_RECORD)
			continue; /* cannot be a record; perf's are smaller */
		st_u64(id, f);
		rc = put_rec_header(w, PD_REC_HEADER_FEATURE, 16 + len + pad);
		if (rc == 0)
			rc = put(w, id, 8);
		if (rc == 0)
			rc = put(w, w->feat[f].data, len);
		if (rc == 0)
			rc = put(w, zeros, pad);
	}
	if (rc == 0) {
		unsigned char id[8];

		st_u64(id, LAST_FEATURE);
		rc = put_rec_header(w, PD_REC_HEADER_FEATURE, 16);
		if (rc == 0)
			rc = put(w, id, 8);
	}
	return rc == 0 && !w->no_names ? pipe_names(w) : rc;
}

/* format.md §2, §3: a header to fill at the end, the ids, the attrs. */
static int begin_file(struct pd_writer *w)
{
	static const unsigned char zeros[FILE_HEADER_SIZE];
	unsigned char sec[16];
	uint64_t id_off;
	int rc;

	rc = put(w, zeros, FILE_HEADER_SIZE);
	id_off = w->pos;
	for (size_t i = 0; i < w->nr_evs && rc == 0; i++)
		rc = put(w, w->evs[i].ids, 8 * w->evs[i].nr_ids);
	for (size_t i = 0; i < w->nr_evs && rc == 0; i++) {
		unsigned char attr[128];

		memset(attr, 0, sizeof(attr));
		memcpy(attr, w->evs[i].attr, w->evs[i].attr_size);
		st_u64(sec, id_off);
		st_u64(sec + 8, 8 * w->evs[i].nr_ids);
		id_off += 8 * w->evs[i].nr_ids;
		rc = put(w, attr, w->attr_size);
		if (rc == 0)
			rc = put(w, sec, 16);
	}
	w->data_offset = w->pos;
	return rc;
}

int pd_writer_begin(struct pd_writer *w)
{
	int rc;

	if (w->begun || w->nr_evs == 0)
		return fail(w, PD_ERR_API, "no events to write");
	if (w->attr_size == 0)
		w->attr_size = 128;
	/* a pipe's reader needs the buffer size to inflate the chunks
	 * before any comes: the ratio is not known yet */
	if (w->pipe && w->zc && (rc = add_compressed_feat(w)) < 0)
		return rc;
	rc = w->pipe ? begin_pipe(w) : begin_file(w);
	w->begun = true;
	return rc;
}

/* The records in recs packed into COMPRESSED records (format.md §7): one
 * zstd stream through the session, flushed at the end of each call so
 * that every call's records end in whole COMPRESSED records. */
static int put_compressed(struct pd_writer *w, const void *recs, size_t len)
{
	ZSTD_inBuffer in = {recs, len, 0};

	for (;;) {
		ZSTD_outBuffer out = {w->zbuf + 8, MAX_RECORD - 8, 0};
		size_t left = ZSTD_compressStream2(w->zc, &out, &in,
						   ZSTD_e_flush);

		if (ZSTD_isError(left))
			return fail(w, PD_ERR_NOMEM, "zstd: %s",
				    ZSTD_getErrorName(left));
		if (out.pos) {
			st_u32(w->zbuf, PD_REC_COMPRESSED);
			st_u16(w->zbuf + 4, 0);
			st_u16(w->zbuf + 6, (uint16_t)(8 + out.pos));
			if (put(w, w->zbuf, 8 + out.pos) < 0)
				return PD_ERR_IO;
		}
		if (left == 0 && in.pos == in.size)
			return 0;
	}
}

int pd_writer_data(struct pd_writer *w, const void *recs, size_t len)
{
	uint64_t start = w->pos;
	int rc;

	if (!w->begun || w->finished)
		return fail(w, PD_ERR_API, "data outside begin and finish");
	if (len == 0)
		return 0;
	rc = w->zc ? put_compressed(w, recs, len) : put(w, recs, len);
	if (rc < 0)
		return rc;
	w->data_size += w->pos - start;
	w->data_raw += len;
	return 0;
}

int pd_writer_raw(struct pd_writer *w, const void *recs, size_t len)
{
	int rc;

	if (!w->begun || w->finished)
		return fail(w, PD_ERR_API, "data outside begin and finish");
	rc = put(w, recs, len);
	if (rc == 0)
		w->data_size += len;
	return rc;
}

int pd_writer_round(struct pd_writer *w)
{
	unsigned char h[8];

	st_u32(h, PD_REC_FINISHED_ROUND);
	st_u16(h + 4, 0);
	st_u16(h + 6, 8);
	return pd_writer_raw(w, h, sizeof(h));
}

/* The COMPRESSED feature (format.md §4.27), as perf writes it for -z. */
static int add_compressed_feat(struct pd_writer *w)
{
	unsigned char c[20];

	st_u32(c, 1);  /* version */
	st_u32(c + 4, 1); /* zstd */
	st_u32(c + 8, (uint32_t)w->level);
	st_u32(c + 12, w->data_size ? (uint32_t)(w->data_raw / w->data_size)
				    : 0);
	st_u32(c + 16, w->mmap_len);
	return pd_writer_feature(w, PD_FEAT_COMPRESSED, c, sizeof(c));
}

/* In a pipe the build-id table goes out as HEADER_BUILD_ID records: the
 * same entries with their record type set. */
static int finish_pipe(struct pd_writer *w)
{
	unsigned char *p = w->feat[PD_FEAT_BUILD_ID].data;
	size_t len = w->feat[PD_FEAT_BUILD_ID].len;
	int rc = 0;

	if (!w->feat[PD_FEAT_BUILD_ID].set)
		return 0;
	while (len >= 8 && rc == 0) {
		uint16_t size;

		memcpy(&size, p + 6, 2);
		if (size < 8 || size > len)
			break; /* our own table: cannot happen */
		st_u32(p, PD_REC_HEADER_BUILD_ID);
		rc = put(w, p, size);
		p += size;
		len -= size;
	}
	return rc;
}

static int put_header(struct pd_writer *w, const uint64_t bits[4])
{
	unsigned char h[FILE_HEADER_SIZE];
	uint64_t attrs = (uint64_t)w->nr_evs * (w->attr_size + 16);
	ssize_t n;

	memset(h, 0, sizeof(h));
	memcpy(h, "PERFILE2", 8);
	st_u64(h + 8, FILE_HEADER_SIZE);
	st_u64(h + 16, w->attr_size + 16);
	st_u64(h + 24, w->data_offset - attrs);
	st_u64(h + 32, attrs);
	st_u64(h + 40, w->data_offset);
	st_u64(h + 48, w->data_size);
	for (int i = 0; i < 4; i++)
		st_u64(h + 72 + 8 * i, bits[i]);
	do
		n = pwrite(w->fd, h, sizeof(h), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(h))
		return fail(w, PD_ERR_IO, "writing the header failed: %s",
			    n < 0 ? strerror(errno) : "short write");
	return 0;
}

/* The feature sections after the data: a table of {offset, size} per
 * set bit, then the sections (format.md §4). */
static int put_features(struct pd_writer *w, uint64_t bits[4])
{
	unsigned char sec[16];
	uint64_t off;
	unsigned nr = 0;
	int rc = 0;

	for (unsigned f = 1; f < NR_FEATS; f++)
		if (w->feat[f].set) {
			bits[f / 64] |= 1ull << (f % 64);
			nr++;
		}
	off = w->pos + 16ull * nr;
	for (unsigned f = 1; f < NR_FEATS && rc == 0; f++) {
		if (!w->feat[f].set)
			continue;
		st_u64(sec, off);
		st_u64(sec + 8, w->feat[f].len);
		off += w->feat[f].len;
		rc = put(w, sec, 16);
	}
	for (unsigned f = 1; f < NR_FEATS && rc == 0; f++)
		if (w->feat[f].set)
			rc = put(w, w->feat[f].data, w->feat[f].len);
	return rc;
}

int pd_writer_finish(struct pd_writer *w)
{
	uint64_t bits[4] = {0, 0, 0, 0};
	int rc = 0, err_no = w->err_no;
	char msg[sizeof(w->errmsg)];

	if (!w->begun || w->finished)
		return fail(w, PD_ERR_API, "finish without begin");
	memcpy(msg, w->errmsg, sizeof(msg));
	if (w->zc && w->data_size && !w->pipe &&
	    add_compressed_feat(w) < 0)
		return PD_ERR_NOMEM;
	w->finished = true;
	if (w->pipe)
		return w->stopped ? PD_ERR_IO : finish_pipe(w);
	if (w->stopped) {
		/* a full disk: keep the whole records, then try the
		 * features in what room the cut gave back */
		w->pos = w->data_offset + w->data_size;
		if (ftruncate(w->fd, (off_t)w->pos) < 0 ||
		    lseek(w->fd, (off_t)w->pos, SEEK_SET) < 0)
			return fail(w, PD_ERR_IO, "%s", msg);
		w->stopped = false;
	}
	if (put_features(w, bits) < 0) {
		/* no room for them: the data alone, and a header that
		 * names no feature */
		memset(bits, 0, sizeof(bits));
		(void)ftruncate(w->fd, (off_t)(w->data_offset + w->data_size));
		rc = PD_ERR_IO;
	}
	if (put_header(w, bits) < 0)
		return PD_ERR_IO;
	if (err_no) {
		w->err_no = err_no;
		return fail(w, PD_ERR_IO, "%s", msg);
	}
	return rc;
}

uint64_t pd_writer_data_size(const struct pd_writer *w)
{
	return w->data_size;
}

uint64_t pd_writer_data_raw(const struct pd_writer *w)
{
	return w->data_raw;
}

const char *pd_writer_errmsg(const struct pd_writer *w)
{
	return w->errmsg;
}

int pd_writer_errno(const struct pd_writer *w)
{
	return w->err_no;
}

void pd_feat_u32(struct pdc_strbuf *b, uint32_t v)
{
	pdc_strbuf_add(b, &v, 4);
}

void pd_feat_u64(struct pdc_strbuf *b, uint64_t v)
{
	pdc_strbuf_add(b, &v, 8);
}

void pd_feat_string(struct pdc_strbuf *b, const char *s)
{
	static const char zeros[64];
	size_t len = strlen(s) + 1, padded = (len + 63) / 64 * 64;

	pd_feat_u32(b, (uint32_t)padded);
	pdc_strbuf_add(b, s, len);
	pdc_strbuf_add(b, zeros, padded - len);
}
