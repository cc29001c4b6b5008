/*
 * pd_reader.c - iterating the data section: record framing, pipe-mode
 * streams read from a file descriptor, zstd-compressed chunks (COMPRESSED
 * and COMPRESSED2, with records that span chunks), payloads that follow
 * AUXTRACE and TRACING_DATA records, and the accounting of damage.
 * format.md §6 (records) and §7 (compression).
 */
#include "pd_reader_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>
#include <stdarg.h>

#define REC_HDR 8
#define MAX_PAYLOAD (1ull << 32)	/* AUXTRACE chunks are far smaller */
#define STREAM_CHUNK (1u << 20)

static void pager_start(struct pd_reader *r);
static void populate(struct pd_reader *r, const struct pd_region *reg,
		     uint64_t rec_off);
static void pager_stop(struct pd_reader *r);

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~7ull;
}

void pd_reader_damage(struct pd_reader *r, uint64_t off, uint64_t unread,
		       const char *fmt, ...)
{
	struct pd_reader_stats *st = &r->stats;
	va_list ap;

	if (st->damaged)
		return;
	st->damaged = 1;
	st->damage_offset = off;
	st->bytes_unread = unread;
	va_start(ap, fmt);
	vsnprintf(st->damage, sizeof(st->damage), fmt, ap);
	va_end(ap);
	if (r->flags & PD_READ_QUIET)
		return;
	/* the record cut short is the least of it: say how much of the
	 * data section the file lacks */
	if (st->bytes_missing)
		pd_logf(&r->f->log, PD_LOG_WARN,
			"%s: %s; the file ends %llu bytes (%.1f%%) short of "
			"the %llu-byte data section its header declares",
			r->f->name, st->damage,
			(unsigned long long)st->bytes_missing,
			100.0 * (double)st->bytes_missing /
				(double)st->data_declared,
			(unsigned long long)st->data_declared);
	else
		pd_logf(&r->f->log, PD_LOG_WARN, "%s: %s", r->f->name,
			st->damage);
}

/* What the header declares of the data sections, and what of that the
 * file lacks (a region's declared_end past its end). */
static void count_missing(struct pd_reader *r)
{
	const struct pd_file *f = r->f;

	/* a pipe's data, and a killed perf record's, have no declared size */
	if (f->hdr.kind == PD_KIND_PIPE || f->hdr.data_size == 0)
		return;
	for (size_t i = 0; i < f->nr_regions; i++) {
		const struct pd_region *reg = &f->regions[i];
		const uint64_t end = reg->declared_end > reg->end
					     ? reg->declared_end
					     : reg->end;

		/* UINT64_MAX: a size that wraps, nothing to measure */
		if (reg->declared_end == UINT64_MAX)
			continue;
		r->stats.data_declared += end - reg->start;
		r->stats.bytes_missing += end - reg->end;
	}
}

/* The page size less one: madvise wants page-aligned ranges, and a
 * page is 64 KB on many arm64 kernels (4 KB assumed, every release
 * failed there with EINVAL and nothing went back). */
static uint64_t page_mask(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE) - 1;
}

/*
 * The data sections are read front to back, once: let the kernel read
 * ahead of the reader (pd_file.c mapped them MADV_RANDOM, so that opening
 * the capture reads none of them).
 */
static void advise_sequential(const struct pd_file *f)
{
	const uint64_t page = page_mask() + 1;

	for (size_t i = 0; i < f->nr_regions; i++) {
		const struct pd_region *reg = &f->regions[i];
		const uint64_t from = reg->start & ~(page - 1);

		if (reg->unmap && reg->end > from)
			madvise((void *)((uintptr_t)reg->unmap + from),
				(size_t)(reg->end - from), MADV_SEQUENTIAL);
	}
}

int pd_reader_new(struct pd_file *f, unsigned flags, struct pd_reader **out)
{
	struct pd_reader *r;

	*out = NULL;
	if ((flags & ~(unsigned)(PD_READ_ORDERED | PD_READ_KEEP_COMPRESSED |
				  PD_READ_QUIET | PD_READ_PAGER |
				  PD_READ_GUESS | PD_READ_DEFER_ABSORB)) ||
	    ((flags & PD_READ_DEFER_ABSORB) && (flags & PD_READ_ORDERED)))
		return PD_ERR_API;
	if (flags & PD_READ_GUESS)
		flags &= ~(unsigned)PD_READ_PAGER;
	if (f->fd >= 0) {
		if (f->fd_reader_used)
			return pd_set_err(f, PD_ERR_API,
					  "a streamed capture can be read once");
		f->fd_reader_used = true;
	}
	r = pd_zalloc(&f->mem, sizeof(*r));
	if (!r && (flags & PD_READ_GUESS))
		return PD_ERR_NOMEM; /* it sets no file error */
	if (!r)
		return pd_set_err(f, PD_ERR_NOMEM, "%s",
				  pd_strerror(PD_ERR_NOMEM));
	r->f = f;
	r->flags = flags;
	r->soff = f->hdr.data_offset;
	if (f->nr_regions) {
		r->pos = f->regions[0].start;
		r->end = f->regions[0].end;
	}
	r->stop_region = SIZE_MAX;
	r->tail.region = SIZE_MAX;
	count_missing(r);
	advise_sequential(f);
	if ((flags & PD_READ_PAGER) && !(flags & PD_READ_ORDERED) &&
	    f->fd < 0 && f->nr_regions)
		pager_start(r);
	if (flags & PD_READ_ORDERED) {
		int rc = pd_order_init(r);

		if (rc < 0) {
			pd_reader_free(r);
			return pd_set_err(f, rc, "%s", pd_strerror(rc));
		}
	}
	*out = r;
	return 0;
}

int pd_reader_tell(const struct pd_reader *r, struct pd_reader_pos *pos)
{
	if (r->f->fd >= 0 || (r->flags & PD_READ_ORDERED) || r->ahead ||
	    r->dpos != r->dlen || r->dstop || r->done)
		return PD_ERR_UNSUPPORTED;
	pos->region = r->region;
	pos->offset = r->pos;
	return 0;
}

/* Whether r reached the end of its range. */
static bool past_range(const struct pd_reader *r)
{
	return r->region > r->stop_region ||
	       (r->region == r->stop_region && r->pos >= r->stop_pos);
}

void pd_file_threads(struct pd_file *f, int on)
{
	f->threads = on != 0;
}

int pd_reader_new_range(struct pd_file *f, unsigned flags,
			const struct pd_reader_pos *from,
			const struct pd_reader_pos *to, struct pd_reader **out)
{
	struct pd_reader *r;
	int rc;

	*out = NULL;
	if ((flags & PD_READ_ORDERED) || f->fd >= 0 || !from ||
	    from->region >= f->nr_regions ||
	    from->offset < f->regions[from->region].start ||
	    from->offset > f->regions[from->region].end ||
	    (to && (to->region < from->region ||
		    (to->region == from->region && to->offset < from->offset))))
		return flags & PD_READ_GUESS
			       ? PD_ERR_API
			       : pd_set_err(f, PD_ERR_API,
					    "pd_reader_new_range: bad range");
	/* its pager, if any, starts where the range does: made after */
	rc = pd_reader_new(f, flags & ~(unsigned)PD_READ_PAGER, &r);
	if (rc < 0)
		return rc;
	r->region = r->from_region = from->region;
	r->pos = r->from_pos = r->released = from->offset;
	r->end = f->regions[r->region].end;
	if (to) {
		r->stop_region = to->region;
		r->stop_pos = to->offset;
		if (r->region == r->stop_region && r->stop_pos < r->end)
			r->end = r->stop_pos;
	}
	if ((flags & PD_READ_PAGER) && !(flags & PD_READ_GUESS) &&
	    f->nr_regions)
		pager_start(r);
	if ((flags & PD_READ_GUESS) && f->regions[r->region].unmap)
		populate(r, &f->regions[r->region], r->pos);
	*out = r;
	return 0;
}

void pd_reader_free(struct pd_reader *r)
{
	const struct pd_mem *m;

	if (!r)
		return;
	m = &r->f->mem;
	pd_ahead_stop(r);
	pager_stop(r);
	pd_order_release(r);
	if (r->dctx)
		ZSTD_freeDStream(r->dctx);
	pd_free(m, r->sbuf);
	pd_free(m, r->dbuf);
	pd_free(m, r->dnext);
	pd_free(m, r);
}

const struct pd_reader_stats *pd_reader_stats(const struct pd_reader *r)
{
	return &r->stats;
}

/*
 * Bytes a record occupies in the stream: header.size, plus the payload
 * that AUXTRACE and HEADER_TRACING_DATA records carry after themselves.
 * Needs `avail` bytes at p (at least the header).  Returns 0 and the
 * sizes, 1 when more bytes are needed to tell, or PD_ERR_FORMAT.
 */
int pd_rec_extent(struct pd_reader *r, const unsigned char *p,
		  size_t avail, uint64_t off, uint32_t *rec_size,
		      uint64_t *payload)
{
	const int sw = r->f->swap;
	const uint32_t type = pd_load_u32(p, sw);
	uint32_t size = pd_load_u16(p + 6, sw);

	*payload = 0;
	if (size < REC_HDR)
		return PD_CORRUPT(r->f,
				  "record at offset 0x%llx: size %u < header "
				  "size 8 (type %u)",
				  (unsigned long long)off, size, type);
	switch (type) {
	case PD_REC_AUXTRACE:
		if (size < 16)
			break;
		if (avail < 16)
			return 1;
		*payload = pd_load_u64(p + 8, sw);
		break;
	case PD_REC_HEADER_TRACING_DATA:
		/*
		 * perf's record is 12 bytes (16 once padded) and the data
		 * follows it; simpleperf puts the data inside the record.
		 */
		if (size != 12 && size != 16)
			break;
		if (avail < 12)
			return 1;
		*payload = pd_load_u32(p + 8, sw);
		break;
	case PD_REC_COMPRESSED2: {
		uint64_t data_size, want;

		if (size < 16 && size != 0)
			break;
		if (avail < 16)
			return 1;
		data_size = pd_load_u64(p + 8, sw);
		want = align8(16 + data_size);
		/*
		 * perf >= 6.16 writes header.size as a u16 that wraps for a
		 * chunk over 64 KiB; data_size is the truth.
		 */
		if (want != size && want < (1ull << 32) &&
		    (want & 0xffff) == size) {
			r->stats.nr_size_wrapped++;
			size = (uint32_t)want;
		}
		break;
	}
	default:
		break;
	}
	if (*payload > MAX_PAYLOAD)
		return PD_CORRUPT(r->f,
				  "record at offset 0x%llx: %s payload of %llu "
				  "bytes",
				  (unsigned long long)off,
				  pd_rec_type_name(type),
				  (unsigned long long)*payload);
	*rec_size = size;
	return 0;
}

/* fd mode: make n bytes available at sbuf + spos.  1 ok, 0 eof, <0 error */
static int stream_ensure(struct pd_reader *r, uint64_t n)
{
	struct pd_file *f = r->f;

	if (r->slen - r->spos >= n)
		return 1;
	if (r->spos) {
		memmove(r->sbuf, r->sbuf + r->spos, r->slen - r->spos);
		r->soff += r->spos;
		r->slen -= r->spos;
		r->spos = 0;
	}
	if (n > r->scap) {
		size_t cap = r->scap ? r->scap : STREAM_CHUNK;
		void *p;

		while (cap < n)
			cap *= 2;
		p = pd_realloc(&f->mem, r->sbuf, cap);
		if (!p)
			return PD_ERR_NOMEM;
		r->sbuf = p;
		r->scap = cap;
	}
	while (r->slen < n && !r->seof) {
		ssize_t got = read(f->fd, r->sbuf + r->slen, r->scap - r->slen);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return pd_set_err(f, PD_ERR_IO,
					  "cannot read '%s' at offset 0x%llx: "
					  "%s",
					  f->name,
					  (unsigned long long)(r->soff + r->slen),
					  strerror(errno));
		if (got == 0)
			r->seof = true;
		r->slen += (size_t)got;
	}
	return r->slen >= n;
}

/*
 * Hand back the mapped pages already read, so that resident memory stays
 * flat however large the capture: a file mapping's pages are counted as
 * the process's own once touched.  Only our own read-only mappings, and
 * only what lies behind the record just delivered: between one and two
 * RELEASE_STEPs behind it (analyze/session/pda_pipe.c keeps its batches' records
 * inside one).
 */
#define RELEASE_STEP ((uint64_t)4 << 20)

/*
 * PD_READ_PAGER: the mapped data's page faults and its release behind
 * the reader, on a thread of their own.  Reading a mapped capture faults
 * every page in (the kernel maps a few at a time) and hands them back
 * with madvise: on bench/'s -g capture that is about an eighth of the
 * reading thread's time, while a second CPU waits.  The pager maps
 * PAGER_AHEAD bytes ahead of the position the reader last published
 * (MADV_POPULATE_READ, or a load per page where the kernel lacks it) and
 * releases what lies more than RELEASE_STEP behind it, as release_behind
 * does.  The reader publishes every PAGER_STEP bytes, so what it holds
 * (the records of the last RELEASE_STEP) is never released under it.
 */
#define PAGER_STEP ((uint64_t)1 << 20)
#define PAGER_AHEAD ((uint64_t)8 << 20)
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

struct pd_pager {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* under mu: where the reader is (region, offset), and stop */
	size_t region;
	uint64_t pos;
	bool stop;
	/* the pager's own: how far it mapped and released in region, and
	 * the region before it (release_tail) */
	size_t at_region;
	uint64_t mapped, released;
	struct pd_tail tail;
	bool no_populate; /* the kernel refused MADV_POPULATE_READ */
	const struct pd_file *f;
};

static void pager_map(struct pd_pager *pg, const struct pd_region *reg,
		      uint64_t from, uint64_t to)
{
	const uint64_t page = page_mask() + 1;

	from &= ~(page - 1);
	if (to <= from)
		return;
	if (!pg->no_populate &&
	    madvise((void *)((uintptr_t)reg->unmap + from), (size_t)(to - from),
		    MADV_POPULATE_READ) == 0)
		return;
	if (errno == EINVAL)
		pg->no_populate = true;
	for (uint64_t o = from; o < to; o += page)
		(void)*(volatile const unsigned char *)(reg->base + o);
}

/*
 * A region the reader left: its pages from from on go back.  Not at once
 * (the records of its last RELEASE_STEP may still be held, as
 * release_behind keeps them) but once the reader is RELEASE_STEP into
 * the next region, or leaves that one too (a region shorter than that:
 * a record still held in the one before is read back from the file, as
 * MADV_DONTNEED of a private read-only mapping leaves it valid).  Before
 * this, each region left up to two RELEASE_STEPs mapped until the
 * reader ended: a directory capture's many files as many times that.
 */
static void release_tail(const struct pd_file *f, size_t region,
			 uint64_t from)
{
	const struct pd_region *reg = &f->regions[region];
	const uint64_t pm = page_mask(), to = reg->end & ~pm;

	if (from < reg->start)
		from = reg->start;
	from = (from + pm) & ~pm;
	if (reg->unmap && to > from)
		madvise((void *)((uintptr_t)reg->unmap + from), to - from,
			MADV_DONTNEED);
}

/* Region left (SIZE_MAX: none to keep, as where the pages are not the
 * caller's to release), released its frontier: the tail before it goes
 * back now, this one when due (tail_due). */
static void tail_leave(const struct pd_file *f, struct pd_tail *t,
		       size_t region, uint64_t released)
{
	if (t->region != SIZE_MAX)
		release_tail(f, t->region, t->from);
	t->region = region;
	t->from = released;
}

/* The tail back once pos is RELEASE_STEP into reg. */
static void tail_due(const struct pd_file *f, struct pd_tail *t,
		     const struct pd_region *reg, uint64_t pos)
{
	if (PD_UNLIKELY(t->region != SIZE_MAX) &&
	    pos >= reg->start + RELEASE_STEP) {
		release_tail(f, t->region, t->from);
		t->region = SIZE_MAX;
	}
}

static void pager_step(struct pd_pager *pg, size_t region, uint64_t pos)
{
	const struct pd_region *reg = &pg->f->regions[region];
	uint64_t to = pos + PAGER_AHEAD, rel;

	if (!reg->unmap)
		return;
	if (region != pg->at_region) {
		tail_leave(pg->f, &pg->tail, pg->at_region, pg->released);
		/* regions passed between two of the reader's publishes
		 * were the reader's whole */
		for (size_t i = pg->at_region + 1; i < region; i++)
			release_tail(pg->f, i, 0);
		pg->at_region = region;
		pg->mapped = pg->released = 0;
	}
	tail_due(pg->f, &pg->tail, reg, pos);
	if (to > reg->end)
		to = reg->end;
	if (pg->mapped < pos)
		pg->mapped = pos;
	if (to > pg->mapped) {
		pager_map(pg, reg, pg->mapped, to);
		pg->mapped = to;
	}
	if (pos < 2 * RELEASE_STEP)
		return;
	rel = pg->released > reg->start ? pg->released : reg->start;
	rel = (rel + page_mask()) & ~page_mask();
	to = (pos - RELEASE_STEP) & ~page_mask();
	/* a RELEASE_STEP at a time: each call flushes the TLBs of every
	 * CPU the process runs on (an IPI to each; in a VM, an exit) */
	if (to < rel + RELEASE_STEP)
		return;
	madvise((void *)((uintptr_t)reg->unmap + rel), to - rel,
		MADV_DONTNEED);
	if (to > pg->released)
		pg->released = to;
}

static void *pager_main(void *arg)
{
	struct pd_pager *pg = arg;
	size_t region = SIZE_MAX;
	uint64_t pos = 0;

	pthread_mutex_lock(&pg->mu);
	for (;;) {
		while (!pg->stop && pg->region == region && pg->pos == pos)
			pthread_cond_wait(&pg->cv, &pg->mu);
		if (pg->stop)
			break;
		region = pg->region;
		pos = pg->pos;
		pthread_mutex_unlock(&pg->mu);
		if (region < pg->f->nr_regions)
			pager_step(pg, region, pos);
		pthread_mutex_lock(&pg->mu);
	}
	pthread_mutex_unlock(&pg->mu);
	return NULL;
}

/* Start r's pager; without one (no memory, no thread) the reader
 * releases behind itself as before. */
static void pager_start(struct pd_reader *r)
{
	struct pd_pager *pg = pd_zalloc(&r->f->mem, sizeof(*pg));

	if (!pg)
		return;
	pg->f = r->f;
	pg->region = r->region;
	pg->pos = r->pos;
	pg->at_region = r->region;
	pg->released = r->released; /* a range's start: not before */
	pg->tail.region = SIZE_MAX;
	if (pthread_mutex_init(&pg->mu, NULL) != 0) {
		pd_free(&r->f->mem, pg);
		return;
	}
	if (pthread_cond_init(&pg->cv, NULL) != 0) {
		pthread_mutex_destroy(&pg->mu);
		pd_free(&r->f->mem, pg);
		return;
	}
	if (pthread_create(&pg->thread, NULL, pager_main, pg) != 0) {
		pthread_cond_destroy(&pg->cv);
		pthread_mutex_destroy(&pg->mu);
		pd_free(&r->f->mem, pg);
		return;
	}
	r->pager = pg;
}

static void pager_publish(struct pd_reader *r)
{
	struct pd_pager *pg = r->pager;

	pthread_mutex_lock(&pg->mu);
	pg->region = r->region;
	pg->pos = r->pos;
	pthread_cond_signal(&pg->cv);
	pthread_mutex_unlock(&pg->mu);
	r->released = r->pos;
}

void pd_thread_stop(pthread_t thread, pthread_mutex_t *mu,
		    pthread_cond_t *cv, bool *stop)
{
	pthread_mutex_lock(mu);
	*stop = true;
	pthread_cond_signal(cv);
	pthread_mutex_unlock(mu);
	pthread_join(thread, NULL);
}

static void pager_stop(struct pd_reader *r)
{
	struct pd_pager *pg = r->pager;

	if (!pg)
		return;
	pd_thread_stop(pg->thread, &pg->mu, &pg->cv, &pg->stop);
	pthread_cond_destroy(&pg->cv);
	pthread_mutex_destroy(&pg->mu);
	pd_free(&r->f->mem, pg);
	r->pager = NULL;
}

/*
 * A guessing reader has no pager (it walks beside a reader that has one:
 * a third thread on two CPUs): it maps its pages itself, up to two
 * PAGER_STEPs ahead, one call where faults would map sixteen pages at a
 * time (bench/RESULTS.md, "Session 20: the first pass on two threads").
 */
static void populate(struct pd_reader *r, const struct pd_region *reg,
		     uint64_t rec_off)
{
	uint64_t from = r->populated > rec_off ? r->populated : rec_off;
	uint64_t to = from + 2 * PAGER_STEP;

	from &= ~page_mask();
	if (to > reg->end)
		to = reg->end;
	if (to > from)
		(void)madvise((void *)((uintptr_t)reg->unmap + from),
			      (size_t)(to - from), MADV_POPULATE_READ);
	r->populated = to;
}

static void release_behind(struct pd_reader *r, const struct pd_region *reg,
			   uint64_t rec_off)
{
	uint64_t from, to;

	if ((r->flags & PD_READ_GUESS) && reg->unmap &&
	    rec_off + PAGER_STEP > r->populated)
		populate(r, reg, rec_off);
	tail_due(r->f, &r->tail, reg, rec_off);
	if (r->pager) {
		/* r->released: where the reader last published */
		if (rec_off >= r->released + PAGER_STEP)
			pager_publish(r);
		return;
	}
	if (r->order && rec_off > r->order_keep)
		rec_off = r->order_keep; /* pd_order.c reads them there */
	if (!reg->unmap || rec_off < r->released + 2 * RELEASE_STEP)
		return;
	from = r->released > reg->start ? r->released : reg->start;
	from = (from + page_mask()) & ~page_mask();
	to = (rec_off - RELEASE_STEP) & ~page_mask();
	if (to > from)
		madvise((void *)((uintptr_t)reg->unmap + from), to - from,
			MADV_DONTNEED);
	r->released = to;
}

/*
 * Each record's size says where the next one starts, so walking a mapped
 * data section is a chain of dependent loads, and a load that misses the
 * cache stalls it: the hardware prefetcher does not follow records that
 * are read only in part (a sample's callchain is skipped) nor cross pages.
 * Asking for every line a little ahead of the record being read keeps the
 * lines coming; on bench/'s -g capture it takes the walk of the record
 * headers from 90 ms to 20 ms (page cache warm).  A prefetch never faults.
 * How far ahead: a walk that does little per record (a pass over the
 * headers, dump --count) runs through 512 bytes before their lines come;
 * 2 KB ahead took dump --count from 69 to 55 ms of task-clock and fold
 * -j1 by 3.5% (session 10, bench/RESULTS.md).
 */
#define PREFETCH_AHEAD 2048
#define CACHE_LINE 64

static void prefetch_ahead(struct pd_reader *r, const struct pd_region *reg)
{
	uint64_t to = r->pos + PREFETCH_AHEAD;
	uint64_t line = r->prefetched;

	if (to > reg->end)
		to = reg->end;
	if (line < r->pos)
		line = r->pos & ~(uint64_t)(CACHE_LINE - 1);
	for (; line < to; line += CACHE_LINE)
		__builtin_prefetch(reg->base + line);
	r->prefetched = line;
}

/*
 * The next record from the file itself (not from a compressed chunk).
 * 1 record, 0 end, <0 error.
 */
int pd_reader_next_outer(struct pd_reader *r, struct pd_rec *rec)
{
	struct pd_file *f = r->f;
	uint32_t size;
	uint64_t payload, total;
	int rc;

	if (f->fd >= 0) {
		const unsigned char *p;

		rc = stream_ensure(r, REC_HDR);
		if (rc <= 0) {
			if (rc == 0 && r->slen > r->spos)
				pd_reader_damage(r, r->soff + r->spos,
					   r->slen - r->spos,
					   "record at offset 0x%llx: the stream "
					   "ends inside its header",
					   (unsigned long long)(r->soff + r->spos));
			return rc;
		}
		for (;;) {
			p = r->sbuf + r->spos;
			rc = pd_rec_extent(r, p, r->slen - r->spos,
					r->soff + r->spos, &size, &payload);
			if (rc < 0) {
				pd_reader_damage(r, r->soff + r->spos, 0, "%s",
					   f->errmsg);
				return 0;
			}
			if (rc == 0)
				break;
			rc = stream_ensure(r, 16);
			if (rc < 0)
				return rc;
			if (rc == 0) {
				pd_reader_damage(r, r->soff + r->spos,
					   r->slen - r->spos,
					   "record at offset 0x%llx: the stream "
					   "ends inside it",
					   (unsigned long long)(r->soff + r->spos));
				return 0;
			}
		}
		total = size + payload;
		rc = stream_ensure(r, total);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			pd_reader_damage(r, r->soff + r->spos, r->slen - r->spos,
				   "record at offset 0x%llx (%s, %llu bytes) "
				   "is cut short by the end of the stream",
				   (unsigned long long)(r->soff + r->spos),
				   pd_rec_type_name(pd_load_u32(
					   r->sbuf + r->spos, f->swap))
					   ?: "?",
				   (unsigned long long)total);
			return 0;
		}
		pd_fill_rec(r, rec, r->sbuf + r->spos, size, payload,
			 r->soff + r->spos, 0);
		r->spos += total;
		return 1;
	}

	while (r->region < f->nr_regions) {
		const struct pd_region *reg = &f->regions[r->region];
		const unsigned char *p = reg->base + r->pos;
		uint64_t left = reg->end - r->pos;

		if (past_range(r))
			return 0;
		if (left == 0) {
			if (reg->declared_end > reg->end)
				pd_reader_damage(
					r, reg->end, 0,
					"the data section should end at 0x%llx, "
					"but the file ends at 0x%llx",
					(unsigned long long)reg->declared_end,
					(unsigned long long)reg->end);
			/* its pages go back as release_tail says: here
			 * where no pager does (time order: pd_order.c may
			 * hold any of them) */
			tail_leave(f, &r->tail,
				   !r->pager && !r->order && reg->unmap
					   ? r->region
					   : SIZE_MAX,
				   r->released);
			r->region++;
			r->released = 0;
			r->prefetched = 0;
			if (r->region < f->nr_regions) {
				r->pos = f->regions[r->region].start;
				r->end = f->regions[r->region].end;
				if (r->region == r->stop_region &&
				    r->stop_pos < r->end)
					r->end = r->stop_pos;
			}
			PD_TRY(pd_decomp_region_end(r));
			continue;
		}
		prefetch_ahead(r, reg);
		if (left < REC_HDR) {
			pd_reader_damage(r, r->pos, left,
				   "record at offset 0x%llx: %llu bytes left, "
				   "too few for a record header",
				   (unsigned long long)r->pos,
				   (unsigned long long)left);
			return 0;
		}
		rc = pd_rec_extent(r, p, left, r->pos, &size, &payload);
		if (rc == 1) {
			pd_reader_damage(r, r->pos, left,
				   "record at offset 0x%llx is cut short by "
				   "the end of the data",
				   (unsigned long long)r->pos);
			return 0;
		}
		if (rc < 0) {
			pd_reader_damage(r, r->pos, left, "%s", f->errmsg);
			return 0;
		}
		total = size + payload;
		if (total > left) {
			pd_reader_damage(r, r->pos, left,
				   "record at offset 0x%llx (%s, %llu bytes) "
				   "runs past the end of the data at 0x%llx",
				   (unsigned long long)r->pos,
				   pd_rec_type_name(pd_load_u32(p, f->swap))
					   ?: "unknown type",
				   (unsigned long long)total,
				   (unsigned long long)reg->end);
			return 0;
		}
		pd_fill_rec(r, rec, p, size, payload, r->pos, PD_RECF_STABLE);
		release_behind(r, reg, r->pos);
		r->pos += total;
		return 1;
	}
	return 0;
}

/*
 * Inflating on a thread of the reader's own (pd_decomp.c) where it may
 * use a second CPU, as the pager does: a mapped capture read in file
 * order.
 */
static bool ahead_wanted(const struct pd_reader *r)
{
	return (r->flags & PD_READ_PAGER) && !(r->flags & PD_READ_ORDERED) &&
	       r->f->fd < 0;
}

/* Records waiting in the decompressed buffer come first. */
static int next_raw(struct pd_reader *r, struct pd_rec *rec)
{
	int rc;

	if (r->ahead)
		return pd_ahead_next(r, rec);
	for (;;) {
		rc = pd_decomp_next(r, rec);
		if (rc != 0 || r->dstop)
			return rc;
		rc = pd_reader_next_outer(r, rec);
		if (rc <= 0) {
			if (rc == 0)
				PD_TRY(pd_decomp_region_end(r));
			return rc;
		}
		if ((rec->type == PD_REC_COMPRESSED ||
		     rec->type == PD_REC_COMPRESSED2) &&
		    !(r->flags & PD_READ_KEEP_COMPRESSED)) {
			if (ahead_wanted(r) && pd_ahead_start(r, rec))
				return pd_ahead_next(r, rec);
			rc = pd_decomp_chunk(r, rec);
			if (rc < 0)
				return rc;
			continue;
		}
		return 1;
	}
}

/*
 * The common case, kept short: a kernel record (they carry no payload)
 * wholly inside the current region of a mapped file, with no
 * decompressed bytes waiting before it.  0 sends the caller down the
 * general path, which handles and reports everything else.
 */
static inline int next_mapped(struct pd_reader *r, struct pd_rec *rec)
{
	const struct pd_file *f = r->f;
	const struct pd_region *reg;
	const unsigned char *p;
	uint32_t type, size;

	if (f->fd >= 0 || r->region >= f->nr_regions || r->dpos != r->dlen ||
	    r->dstop || r->ahead)
		return 0;
	reg = &f->regions[r->region];
	if (r->end - r->pos < REC_HDR)
		return 0;
	p = reg->base + r->pos;
	type = pd_load_u32(p, f->swap);
	size = pd_load_u16(p + 6, f->swap);
	if (type >= PD_REC_USER_TYPE_START || size < REC_HDR ||
	    size > r->end - r->pos)
		return 0;
	prefetch_ahead(r, reg);
	pd_fill_rec(r, rec, p, size, 0, r->pos, PD_RECF_STABLE);
	if (PD_UNLIKELY(r->pos >= r->released + PAGER_STEP))
		release_behind(r, reg, r->pos);
	r->pos += size;
	return 1;
}

/*
 * The same for a kernel record inflated and waiting in dbuf (what
 * pd_decomp_next would deliver first): the records of a compressed
 * capture, without the calls down to pd_decomp_next and pd_rec_extent.
 */
static inline int next_decompressed(struct pd_reader *r, struct pd_rec *rec)
{
	const size_t left = r->dlen - r->dpos;
	const unsigned char *p;
	uint32_t type, size;

	if (left < REC_HDR)
		return 0;
	p = r->dbuf + r->dpos;
	type = pd_load_u32(p, r->f->swap);
	size = pd_load_u16(p + 6, r->f->swap);
	if (type >= PD_REC_USER_TYPE_START || size < REC_HDR || size > left)
		return 0;
	pd_fill_rec(r, rec, p, size, 0, r->dchunk_off, PD_RECF_DECOMPRESSED);
	r->dpos += size;
	return 1;
}

int pd_reader_next_raw(struct pd_reader *r, struct pd_rec *rec)
{
	int rc;

	if (r->done)
		return 0;
	if (next_decompressed(r, rec) || next_mapped(r, rec))
		return 1;
	rc = next_raw(r, rec);
	if (rc <= 0) {
		r->done = true;
		return rc;
	}
	if (rec->type >= PD_REC_USER_TYPE_START &&
	    !(r->flags & PD_READ_DEFER_ABSORB) &&
	    (rc = pd_reader_absorb(r, rec)) < 0)
		return rc;
	return 1;
}

int pd_reader_absorb(struct pd_reader *r, const struct pd_rec *rec)
{
	int rc;

	if (rec->type < PD_REC_USER_TYPE_START)
		return 0;
	rc = pd_file_absorb_rec(r->f, rec);
	if (rc < 0 && rc != PD_ERR_FORMAT)
		return rc;
	if (rc == PD_ERR_FORMAT)
		pd_logf(&r->f->log, PD_LOG_WARN, "%s: %s", r->f->name,
			r->f->errmsg);
	return 0;
}

/* The types pd_rec_type_name() knows, for count()'s every record. */
static const bool known_type[PD_REC_TYPE_MAX] = {
#define PD_REC_KNOWN(name, value) [value] = true,
	PD_RECORD_TYPES(PD_REC_KNOWN)
#undef PD_REC_KNOWN
};

/*
 * A guessing reader's next record where next_mapped() took none: only a
 * FINISHED_ROUND, or the end of its range; anything else ends it with
 * PD_ERR_FORMAT and no word, before anything of the file is touched
 * (PD_READ_GUESS).
 */
static int next_guess(struct pd_reader *r, struct pd_rec *rec)
{
	const struct pd_file *f = r->f;
	const struct pd_region *reg;
	const unsigned char *p;
	uint32_t size;

	if (f->fd >= 0 || r->region >= f->nr_regions || r->dpos != r->dlen)
		return PD_ERR_FORMAT;
	reg = &f->regions[r->region];
	if (r->pos >= r->end) {
		/* the range's end; a section's end where more is due, or
		 * another piece, is for a reader that says so */
		if (r->end == reg->end && (r->region + 1 < f->nr_regions ||
					   reg->declared_end > reg->end))
			return PD_ERR_FORMAT;
		r->done = true;
		return 0;
	}
	if (r->end - r->pos < REC_HDR)
		return PD_ERR_FORMAT;
	p = reg->base + r->pos;
	size = pd_load_u16(p + 6, f->swap);
	if (pd_load_u32(p, f->swap) != PD_REC_FINISHED_ROUND ||
	    size < REC_HDR || size > r->end - r->pos)
		return PD_ERR_FORMAT;
	pd_fill_rec(r, rec, p, size, 0, r->pos, PD_RECF_STABLE);
	r->pos += size;
	return 1;
}

/* Whether a header at p (left bytes on) looks like one the kernel or
 * perf writes, as pd_reader_guess() asks; its size in *size. */
static bool plausible(const struct pd_file *f, const unsigned char *p,
		      uint64_t left, uint32_t *size)
{
	const uint32_t type = pd_load_u32(p, f->swap);
	const uint16_t misc = pd_load_u16(p + 4, f->swap);

	*size = pd_load_u16(p + 6, f->swap);
	if (type != PD_REC_FINISHED_ROUND &&
	    (type == 0 || type >= PD_REC_USER_TYPE_START || !known_type[type]))
		return false;
	/* cpumode 0-5; bits 3-11 unused by the kernel */
	return (misc & 7) <= 5 && !(misc & 0x0ff8) && *size >= REC_HDR &&
	       *size % 8 == 0 && *size <= left;
}

int pd_reader_guess(const struct pd_file *f, uint64_t near, uint64_t within,
		    unsigned chain, struct pd_reader_pos *pos)
{
	const struct pd_region *reg;
	uint64_t at, stop;

	if (f->fd >= 0 || f->nr_regions != 1)
		return PD_ERR_UNSUPPORTED;
	reg = &f->regions[0];
	if (near < reg->start)
		near = reg->start;
	at = reg->start + ((near - reg->start + 7) & ~7ull);
	stop = reg->end - at > within ? at + within : reg->end;
	for (; at < stop; at += 8) {
		uint64_t o = at;
		unsigned n = 0;
		uint32_t size;

		while (n < chain && o + REC_HDR <= reg->end &&
		       plausible(f, reg->base + o, reg->end - o, &size)) {
			o += size;
			n++;
		}
		if (n == chain || (n && o == reg->end)) {
			pos->region = 0;
			pos->offset = at;
			return 0;
		}
	}
	return PD_ERR_UNSUPPORTED;
}

static void count(struct pd_reader *r, const struct pd_rec *rec)
{
	struct pd_reader_stats *st = &r->stats;

	st->nr_records++;
	if (rec->type < PD_REC_TYPE_MAX) {
		st->by_type[rec->type]++;
		st->nr_unknown += !known_type[rec->type];
	} else {
		st->nr_other_type++;
		st->nr_unknown += !pd_rec_type_name(rec->type);
	}
}

/*
 * At the end, every data section's mapped pages go back too: what runs
 * after the last record (folding, rendering, writing) then has the
 * memory.  A record still held (the caller's last ones) is read from the
 * file again when touched, as release_behind says.
 */
static void release_all(struct pd_reader *r)
{
	const struct pd_file *f = r->f;

	if (r->released_all)
		return;
	r->released_all = true;
	pd_ahead_stop(r);
	pager_stop(r);
	/* a range's reader: its range only, the others read theirs */
	for (size_t i = r->from_region; i < f->nr_regions && i <= r->stop_region;
	     i++) {
		const struct pd_region *reg = &f->regions[i];
		uint64_t from = i == r->from_region && r->from_pos > reg->start
					? r->from_pos
					: reg->start;
		uint64_t to = i == r->stop_region && r->stop_pos < reg->end
				      ? r->stop_pos
				      : reg->end;

		from = (from + page_mask()) & ~page_mask();
		to &= ~page_mask();

		if (reg->unmap && to > from)
			madvise((void *)((uintptr_t)reg->unmap + from),
				to - from, MADV_DONTNEED);
	}
}

int pd_reader_next(struct pd_reader *r, struct pd_rec *rec)
{
	int rc;

	/* the common case inline, not through pd_reader_next_raw's frame */
	if (!(r->flags & PD_READ_ORDERED) && !r->done &&
	    (next_decompressed(r, rec) || next_mapped(r, rec))) {
		count(r, rec);
		return 1;
	}
	if (r->flags & PD_READ_ORDERED)
		rc = pd_order_next(r, rec);
	else if (r->flags & PD_READ_GUESS)
		rc = r->done ? 0 : next_guess(r, rec);
	else
		rc = pd_reader_next_raw(r, rec);
	if (rc > 0)
		count(r, rec);
	else if (rc == 0)
		release_all(r);
	else if (rc == PD_ERR_NOMEM)
		/* no allocation site says more than this (E3) */
		pd_set_err(r->f, rc, "%s", pd_strerror(rc));
	return rc;
}
