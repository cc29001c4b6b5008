/*
 * pd_decomp.c - records packed in zstd chunks (`perf record -z`).
 *
 * perf compresses the ring-buffer data of a whole session as one zstd
 * stream cut into COMPRESSED (81) or COMPRESSED2 (83) records; a record
 * may start in one chunk and end in the next, with uncompressed records
 * (FINISHED_ROUND) between them.  So one DStream serves a whole region,
 * and the tail of each chunk's output waits for the next.  format.md §7.
 */
#include "pd_reader_int.h"

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDStream_advanced */
#include <zstd.h>
#include <zstd_errors.h>

/*
 * O5: what one chunk may inflate to, with the head of a record it
 * completes.  perf's chunks hold at most 64 KiB of zstd each, and the
 * largest any capture here inflates to is 640 KiB (bench/'s -z capture;
 * perfparser's and linux-perf-data's zstd captures stay under 600 KiB);
 * a few KB that inflate to gigabytes are a bomb, refused with
 * PD_ERR_UNSUPPORTED and a message naming the chunk (over_cap).  The
 * output buffer and its spare hold at most this and a page each.
 */
#define MAX_DECOMP_BYTES ((size_t)256 << 20)
#define DECOMP_LIMIT (MAX_DECOMP_BYTES + 4096)

/*
 * The largest window a stream may ask for (O5): 8 MiB, what perf's
 * levels 1 to 19 write (zstd's parameters for a stream of unknown size).
 * Its levels 20 to 22 (32 to 128 MiB, zstd's "ultra") are refused with a
 * message rather than given memory that a few bytes of the capture ask
 * for.  format.md §7.
 */
#define ZSTD_WINDOW_LOG_MAX 23

static void *zstd_alloc(void *opaque, size_t size)
{
	return pd_malloc(opaque, size);
}

static void zstd_free(void *opaque, void *p)
{
	pd_free(opaque, p);
}

/* A decompression stream whose memory goes through the caller's hooks. */
struct ZSTD_DCtx_s *pd_dstream_new(const struct pd_mem *m)
{
	ZSTD_customMem cm;
	ZSTD_DStream *ds;

	cm.customAlloc = zstd_alloc;
	cm.customFree = zstd_free;
	cm.opaque = (void *)(uintptr_t)m;
	ds = ZSTD_createDStream_advanced(cm);
	if (ds && ZSTD_isError(ZSTD_DCtx_setParameter(
			  ds, ZSTD_d_windowLogMax, ZSTD_WINDOW_LOG_MAX))) {
		ZSTD_freeDStream(ds);
		return NULL;
	}
	if (ds)
		ZSTD_initDStream(ds);
	return ds;
}

const char *pd_zstd_strerror(size_t ret)
{
	if (ZSTD_getErrorCode(ret) == ZSTD_error_frameParameter_windowTooLarge)
		return "a window over 8 MiB (perf -z 20 to 22, zstd --ultra) "
		       "is not supported";
	return ZSTD_getErrorName(ret);
}

static int ensure_dctx(struct pd_reader *r)
{
	if (r->dctx)
		return 0;
	r->dctx = pd_dstream_new(&r->f->mem);
	if (!r->dctx)
		return PD_ERR_NOMEM;
	return 0;
}

/*
 * Make room for `extra` more bytes of output in dnext beyond `used`, up to
 * DECOMP_LIMIT: output that fills that is over MAX_DECOMP_BYTES.
 */
static int grow_next(struct pd_reader *r, size_t used, size_t extra)
{
	const size_t want = used + extra < DECOMP_LIMIT ? used + extra
						       : DECOMP_LIMIT;
	size_t cap = r->dnext_cap ? r->dnext_cap : 1u << 20;
	void *p;

	if (want <= r->dnext_cap)
		return 0;
	while (cap < want)
		cap = cap > DECOMP_LIMIT / 2 ? DECOMP_LIMIT : cap * 2;
	p = pd_realloc(&r->f->mem, r->dnext, cap);
	if (!p)
		return PD_ERR_NOMEM;
	r->dnext = p;
	r->dnext_cap = cap;
	return 0;
}

int pd_decomp_chunk(struct pd_reader *r, const struct pd_rec *rec)
{
	const int sw = r->f->swap;
	const unsigned char *src;
	size_t src_len, rem, used;
	ZSTD_inBuffer in;
	unsigned char *tmp;
	size_t tmp_cap;

	if (rec->type == PD_REC_COMPRESSED) {
		src = rec->data + 8;
		src_len = rec->size - 8;
	} else {
		uint64_t data_size;

		if (rec->size < 16) {
			pd_reader_damage(r, rec->offset, 0,
					 "COMPRESSED2 record at offset 0x%llx: "
					 "size %u < 16",
					 (unsigned long long)rec->offset,
					 rec->size);
			r->dstop = true;
			return 0;
		}
		data_size = pd_load_u64(rec->data + 8, sw);
		if (data_size > rec->size - 16) {
			pd_reader_damage(r, rec->offset, 0,
					 "COMPRESSED2 record at offset 0x%llx: "
					 "data_size %llu exceeds the record "
					 "(%u bytes)",
					 (unsigned long long)rec->offset,
					 (unsigned long long)data_size,
					 rec->size);
			r->dstop = true;
			return 0;
		}
		src = rec->data + 16;
		src_len = (size_t)data_size;
	}
	PD_TRY(ensure_dctx(r));

	/* carry the unfinished tail of the previous chunk over */
	rem = r->dlen - r->dpos;
	PD_TRY(grow_next(r, 0, rem + src_len * 4 + 4096));
	if (rem)
		memcpy(r->dnext, r->dbuf + r->dpos, rem);
	used = rem;

	in.src = src;
	in.size = src_len;
	in.pos = 0;
	for (;;) {
		ZSTD_outBuffer out;
		size_t ret;

		out.dst = r->dnext + used;
		out.size = r->dnext_cap - used;
		out.pos = 0;
		ret = ZSTD_decompressStream(r->dctx, &out, &in);
		/* our allocator said no: that is not damage in the file */
		if (ZSTD_isError(ret) &&
		    ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
			return PD_ERR_NOMEM;
		if (ZSTD_isError(ret)) {
			pd_reader_damage(r, rec->offset, 0,
					 "%s record at offset 0x%llx: zstd: %s",
					 pd_rec_type_name(rec->type),
					 (unsigned long long)rec->offset,
					 pd_zstd_strerror(ret));
			r->dstop = true;
			return 0;
		}
		used += out.pos;
		if (used > MAX_DECOMP_BYTES)
			return pd_set_err(r->f, PD_ERR_UNSUPPORTED,
					  "%s record at offset 0x%llx: more "
					  "than %zu MiB once inflated",
					  pd_rec_type_name(rec->type),
					  (unsigned long long)rec->offset,
					  MAX_DECOMP_BYTES >> 20);
		if (in.pos == in.size && out.pos < out.size)
			break;
		PD_TRY(grow_next(r, used, r->dnext_cap));
	}
	r->stats.nr_compressed++;
	r->stats.nr_compressed2 += rec->type == PD_REC_COMPRESSED2;
	r->stats.compressed_bytes += src_len;
	r->stats.decompressed_bytes += used - rem;

	tmp = r->dbuf;
	tmp_cap = r->dcap;
	r->dbuf = r->dnext;
	r->dcap = r->dnext_cap;
	r->dnext = tmp;
	r->dnext_cap = tmp_cap;
	r->dpos = 0;
	r->dlen = used;
	r->dchunk_off = rec->offset;
	return 0;
}

int pd_decomp_next(struct pd_reader *r, struct pd_rec *rec)
{
	const size_t left = r->dlen - r->dpos;
	const unsigned char *p;
	uint32_t size;
	uint64_t payload;
	int rc;

	if (left < 8)
		return 0;
	p = r->dbuf + r->dpos; /* dbuf is NULL before the first chunk */
	rc = pd_rec_extent(r, p, left, r->dchunk_off, &size, &payload);
	if (rc < 0) {
		pd_reader_damage(r, r->dchunk_off, left,
				 "in the compressed chunk at offset 0x%llx: %s",
				 (unsigned long long)r->dchunk_off,
				 r->f->errmsg);
		r->dpos = r->dlen;
		r->dstop = true;
		return 0;
	}
	if (rc == 1 || size + payload > left)
		return 0; /* its tail is in the next chunk */
	pd_fill_rec(r, rec, p, size, payload, r->dchunk_off,
		    PD_RECF_DECOMPRESSED);
	r->dpos += size + payload;
	return 1;
}

int pd_decomp_region_end(struct pd_reader *r)
{
	const size_t left = r->dlen - r->dpos;

	if (left) {
		pd_reader_damage(r, r->dchunk_off, left,
				 "the compressed chunk at offset 0x%llx ends "
				 "with %zu bytes of a record that no later "
				 "chunk completes",
				 (unsigned long long)r->dchunk_off, left);
		r->dpos = r->dlen;
	}
	/* each region (data.N of a directory) is its own zstd stream */
	if (r->dctx)
		ZSTD_initDStream(r->dctx);
	return 0;
}
