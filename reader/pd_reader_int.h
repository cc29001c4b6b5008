/*
 * pd_reader_int.h - the reader's state, shared by pd_reader.c (framing),
 * pd_decomp.c (zstd chunks) and pd_order.c (time order).
 */
#ifndef PD_READER_INT_H
#define PD_READER_INT_H

#include "pd_int.h"

#include <pthread.h>

struct ZSTD_DCtx_s;
struct pd_order;
struct pd_pager;
struct pd_ahead;

/* A region the reader left whose pages from `from` on are still mapped
 * (region SIZE_MAX: none; pd_reader.c release_tail). */
struct pd_tail {
	size_t region;
	uint64_t from;
};

struct pd_reader {
	struct pd_file *f;
	unsigned flags;
	bool done;

	/* memory-backed: current region and file offset in it */
	size_t region;
	uint64_t pos;
	uint64_t released;	/* pages of the mapping before this were
				 * handed back (pd_reader.c release_behind) */
	bool released_all;	/* at the end, all of them (release_all) */
	struct pd_tail tail;	/* where no pager keeps its own */
	uint64_t order_keep;	/* time order: the oldest mapped record
				 * still queued at the last round (pd_order.c
				 * flush_upto); release_behind keeps its pages */
	uint64_t populated;	/* PD_READ_GUESS: pages before this were
				 * mapped ahead (release_behind) */
	uint64_t prefetched;	/* lines before this offset were prefetched
				 * (pd_reader.c prefetch_ahead) */
	/* a reader of a range (pd_reader_new_range): where it began and
	 * where it stops (stop_region SIZE_MAX: at the end) */
	size_t from_region, stop_region;
	uint64_t from_pos, stop_pos;
	/* where the common path stops in the region: its end, or stop_pos
	 * in stop_region (so it compares no more than before ranges) */
	uint64_t end;

	/* fd-backed: sbuf[spos..slen) holds stream bytes at soff + spos */
	unsigned char *sbuf;
	size_t slen, spos, scap;
	uint64_t soff;
	bool seof;

	/*
	 * Decompressed records: dbuf[dpos..dlen) is output not yet
	 * delivered, possibly ending with the head of a record whose tail
	 * is in the next chunk.  dnext is the buffer the next chunk is
	 * decompressed into (the two swap so a delivered record stays
	 * valid until the next call).
	 */
	struct ZSTD_DCtx_s *dctx;
	unsigned char *dbuf, *dnext;
	size_t dlen, dpos, dcap, dnext_cap;
	uint64_t dchunk_off;	/* offset of the chunk being delivered */
	bool dstop;		/* a broken chunk ended the reading */

	struct pd_order *order;
	struct pd_reader_stats stats;
	struct pd_pager *pager;	/* PD_READ_PAGER's thread, or NULL */
	/* PD_READ_PAGER's thread that walks the file and inflates its
	 * chunks ahead (pd_decomp.c), or NULL: while it runs, region and
	 * pos are its, and dbuf is the buffer of its the caller walks */
	struct pd_ahead *ahead;
};

/* pd_reader.c */
int pd_reader_next_raw(struct pd_reader *r, struct pd_rec *rec);
int pd_reader_next_outer(struct pd_reader *r, struct pd_rec *rec);
/* Set *stop under mu, wake the thread waiting on cv and join it. */
void pd_thread_stop(pthread_t thread, pthread_mutex_t *mu,
		    pthread_cond_t *cv, bool *stop);
int pd_rec_extent(struct pd_reader *r, const unsigned char *p, size_t avail,
		  uint64_t off, uint32_t *rec_size, uint64_t *payload);
void pd_reader_damage(struct pd_reader *r, uint64_t off, uint64_t unread,
		      const char *fmt, ...) PD_PRINTF(4, 5);

/* The record at p, of size bytes and payload bytes after them.  Inline:
 * it runs for every record, from pd_reader.c, pd_decomp.c and pd_order.c. */
static inline void pd_fill_rec(struct pd_reader *r, struct pd_rec *rec,
			       const unsigned char *p, uint32_t size,
			       uint64_t payload, uint64_t off, unsigned flags)
{
	const int sw = r->f->swap;

	rec->type = pd_load_u32(p, sw);
	rec->misc = pd_load_u16(p + 4, sw);
	rec->size = size;
	rec->offset = off;
	rec->flags = flags;
	rec->data = p;
	rec->payload = payload ? p + size : NULL;
	rec->payload_size = payload;
}

/* pd_rec_extent with the common case inline: a kernel record (below
 * PD_REC_USER_TYPE_START) has no payload and its header's size.  Needs
 * avail >= 8. */
static inline int pd_rec_extent_fast(struct pd_reader *r,
				     const unsigned char *p, size_t avail,
				     uint64_t off, uint32_t *rec_size,
				     uint64_t *payload)
{
	const uint32_t size = pd_load_u16(p + 6, r->f->swap);

	if (size >= 8 && pd_load_u32(p, r->f->swap) < PD_REC_USER_TYPE_START) {
		*rec_size = size;
		*payload = 0;
		return 0;
	}
	return pd_rec_extent(r, p, avail, off, rec_size, payload);
}

/* pd_decomp.c */
int pd_decomp_chunk(struct pd_reader *r, const struct pd_rec *rec);
int pd_decomp_next(struct pd_reader *r, struct pd_rec *rec);
int pd_decomp_region_end(struct pd_reader *r);
/* 1: a thread inflates from rec (the first chunk met) on, the records
 * come from pd_ahead_next; 0: it did not start, read on as before */
int pd_ahead_start(struct pd_reader *r, const struct pd_rec *rec);
int pd_ahead_next(struct pd_reader *r, struct pd_rec *rec);
void pd_ahead_stop(struct pd_reader *r);

/* pd_order.c */
int pd_order_init(struct pd_reader *r);
void pd_order_release(struct pd_reader *r);
int pd_order_next(struct pd_reader *r, struct pd_rec *rec);

#endif /* PD_READER_INT_H */
