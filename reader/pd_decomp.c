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
#include <pthread.h>
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
 * Make room in *buf (of *cap bytes) for `extra` more bytes of output
 * beyond `used`, up to DECOMP_LIMIT: output that fills that is over
 * MAX_DECOMP_BYTES.
 */
static int grow_out(struct pd_reader *r, unsigned char **buf, size_t *cap,
		    size_t used, size_t extra)
{
	const size_t want = used + extra < DECOMP_LIMIT ? used + extra
						       : DECOMP_LIMIT;
	size_t n = *cap ? *cap : 1u << 20;
	void *p;

	if (want <= *cap)
		return 0;
	while (n < want)
		n = n > DECOMP_LIMIT / 2 ? DECOMP_LIMIT : n * 2;
	p = pd_realloc(&r->f->mem, *buf, n);
	if (!p)
		return PD_ERR_NOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

/*
 * Inflate rec into *buf (*cap bytes, grown as needed) after the unfinished
 * tail of r's dbuf, and say in *len how many bytes that makes.  Damage
 * sets r->dstop and returns 0.
 */
static int inflate_into(struct pd_reader *r, const struct pd_rec *rec,
			unsigned char **buf, size_t *cap, size_t *len)
{
	const int sw = r->f->swap;
	const unsigned char *src;
	size_t src_len, rem, used;
	ZSTD_inBuffer in;

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
	PD_TRY(grow_out(r, buf, cap, 0, rem + src_len * 4 + 4096));
	if (rem)
		memcpy(*buf, r->dbuf + r->dpos, rem);
	used = rem;

	in.src = src;
	in.size = src_len;
	in.pos = 0;
	for (;;) {
		ZSTD_outBuffer out;
		size_t ret;

		out.dst = *buf + used;
		out.size = *cap - used;
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
		PD_TRY(grow_out(r, buf, cap, used, *cap));
	}
	r->stats.nr_compressed++;
	r->stats.nr_compressed2 += rec->type == PD_REC_COMPRESSED2;
	r->stats.compressed_bytes += src_len;
	r->stats.decompressed_bytes += used - rem;
	*len = used;
	return 0;
}

int pd_decomp_chunk(struct pd_reader *r, const struct pd_rec *rec)
{
	unsigned char *tmp;
	size_t tmp_cap, used;
	int rc;

	rc = inflate_into(r, rec, &r->dnext, &r->dnext_cap, &used);
	if (rc < 0 || r->dstop)
		return rc;
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
	rc = pd_rec_extent_fast(r, p, left, r->dchunk_off, &size, &payload);
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

/* ---- inflating ahead (PD_READ_PAGER) ---------------------------------- */

/*
 * Where the reader may use a second CPU (PD_READ_PAGER), a thread of its
 * own walks the file's records and inflates the chunks ahead of the
 * caller, whose thread then only walks the records inflated: on bench/'s
 * -z capture inflating is most of the reading.  The thread runs the
 * reading's own code (pd_reader_next_outer, inflate_into,
 * pd_decomp_region_end) on a reader of its own, `pr`, over a copy of the
 * file handle, so that its messages race nothing of the caller's; what it
 * meets goes to the caller in file order as items: a record between the
 * chunks (FINISHED_ROUND; it stays in the mapping), a chunk inflated, the
 * damage the reading would report there, the end.  The caller replays
 * each where it would have met it, so output, damage, errors and
 * statistics are those of reading on one thread.
 *
 * Memory stays that of one thread's reading: a chunk's output (with the
 * tail of the record it completes) goes into one of NR_SLOTS buffers,
 * each under today's cap; the caller holds the one it walks (a record is
 * valid until the next call), the thread fills at most two ahead, and
 * the second only while the first holds under AHEAD_BYTES.  A buffer that
 * a large chunk grew is freed when it comes round again.
 */
#define NR_SLOTS 3
#define NR_ITEMS 512
#define ITEMS_BATCH 64			/* records published at once */
#define AHEAD_BYTES ((size_t)32 << 20)
#define SLOT_KEEP ((size_t)4 << 20)	/* a buffer above this is freed */

enum ahead_kind {
	AH_REC,		/* a record of the file itself */
	AH_CHUNK,	/* the next slot, inflated */
	AH_DAMAGE,	/* pr's damage (the first in ah->damage), stop or not */
	AH_END,		/* the end: rc, with ah->errmsg when < 0 */
};

/* The statistics the thread counts, handed over with each item. */
struct ahead_counts {
	uint64_t nr_compressed, nr_compressed2, compressed_bytes,
		decompressed_bytes, nr_size_wrapped;
};

struct ahead_item {
	enum ahead_kind kind;
	bool stop;			/* AH_DAMAGE: the reading ends */
	int rc;				/* AH_END */
	struct pd_rec rec;		/* AH_REC */
	struct ahead_counts counts;	/* since the item before */
};

struct ahead_slot {
	unsigned char *buf;
	size_t cap, len;
	uint64_t chunk_off;
};

struct pd_ahead {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t to_caller, to_thread;
	/* under mu */
	uint64_t head;			/* items published */
	uint64_t tail;			/* items the caller is done with */
	uint64_t taken;			/* chunks the caller took */
	bool stop;			/* the caller is done: end now */
	bool thread_waits, caller_waits;

	/* the thread's own */
	struct pd_file file;		/* a copy: its own errmsg */
	struct pd_reader pr;
	struct ahead_counts sent;	/* counts already handed over */
	uint64_t nr_chunks;		/* chunks filled */
	uint64_t pending;		/* items written, not yet published */
	uint64_t tail_seen;		/* tail, when last published */
	uint64_t taken_seen;		/* taken, then */
	struct pd_rec first;		/* the chunk the caller met first */

	/* the caller's own */
	uint64_t at;			/* next item to read */
	uint64_t known;			/* items published, last seen */
	uint64_t nr_taken;		/* chunks taken */

	/* written before the item that refers to it is published */
	struct ahead_item items[NR_ITEMS];
	struct ahead_slot slots[NR_SLOTS];
	char damage[sizeof(((struct pd_reader_stats *)0)->damage)];
	uint64_t damage_off, damage_unread;
	bool damage_set;
	char errmsg[sizeof(((struct pd_file *)0)->errmsg)];
};

/* Publish the items written; with wait, sleep until cond_ok says the
 * thread may go on (or the caller stops it).  Called with mu unlocked. */
static bool ahead_publish(struct pd_ahead *ah,
			  bool (*cond_ok)(const struct pd_ahead *))
{
	bool go;

	pthread_mutex_lock(&ah->mu);
	ah->head += ah->pending;
	ah->pending = 0;
	if (ah->caller_waits)
		pthread_cond_signal(&ah->to_caller);
	while (!ah->stop && cond_ok && !cond_ok(ah)) {
		ah->thread_waits = true;
		pthread_cond_wait(&ah->to_thread, &ah->mu);
		ah->thread_waits = false;
	}
	ah->tail_seen = ah->tail;
	ah->taken_seen = ah->taken;
	go = !ah->stop;
	pthread_mutex_unlock(&ah->mu);
	return go;
}

/* Under mu: room for another item. */
static bool item_room(const struct pd_ahead *ah)
{
	return ah->head - ah->tail < NR_ITEMS;
}

/* Under mu: the slot of the next chunk is the caller's no longer, and
 * what is ahead of the caller is small enough to add to. */
static bool slot_room(const struct pd_ahead *ah)
{
	const uint64_t n = ah->nr_chunks;

	if (ah->head - ah->tail >= NR_ITEMS)
		return false;
	if (n <= ah->taken)
		return true;
	return n == ah->taken + 1 &&
	       ah->slots[(n - 1) % NR_SLOTS].len <= AHEAD_BYTES;
}

/* Write the next item (published later), waiting for room. */
static struct ahead_item *item_new(struct pd_ahead *ah, enum ahead_kind kind)
{
	struct ahead_item *it;
	const struct pd_reader_stats *st = &ah->pr.stats;

	if (ah->head + ah->pending - ah->tail_seen >= NR_ITEMS) {
		if (!ahead_publish(ah, item_room))
			return NULL;
	} else if (ah->pending >= ITEMS_BATCH && !ahead_publish(ah, NULL)) {
		return NULL;
	}
	it = &ah->items[(ah->head + ah->pending) % NR_ITEMS];
	it->kind = kind;
	it->stop = false;
	it->rc = 0;
	it->counts.nr_compressed = st->nr_compressed - ah->sent.nr_compressed;
	it->counts.nr_compressed2 =
		st->nr_compressed2 - ah->sent.nr_compressed2;
	it->counts.compressed_bytes =
		st->compressed_bytes - ah->sent.compressed_bytes;
	it->counts.decompressed_bytes =
		st->decompressed_bytes - ah->sent.decompressed_bytes;
	it->counts.nr_size_wrapped =
		st->nr_size_wrapped - ah->sent.nr_size_wrapped;
	ah->sent.nr_compressed = st->nr_compressed;
	ah->sent.nr_compressed2 = st->nr_compressed2;
	ah->sent.compressed_bytes = st->compressed_bytes;
	ah->sent.decompressed_bytes = st->decompressed_bytes;
	ah->sent.nr_size_wrapped = st->nr_size_wrapped;
	ah->pending++;
	return it;
}

/* Damage pr noted (quietly) becomes an item where it was met. */
static bool ahead_damage(struct pd_ahead *ah, bool stop)
{
	struct pd_reader_stats *st = &ah->pr.stats;
	struct ahead_item *it;

	if (!st->damaged && !stop)
		return true;
	if (st->damaged && !ah->damage_set) {
		/* only the first damage is the caller's to report */
		memcpy(ah->damage, st->damage, sizeof(ah->damage));
		ah->damage_off = st->damage_offset;
		ah->damage_unread = st->bytes_unread;
		ah->damage_set = true;
	}
	st->damaged = 0;
	it = item_new(ah, AH_DAMAGE);
	if (!it)
		return false;
	it->stop = stop;
	return true;
}

static void ahead_end(struct pd_ahead *ah, int rc)
{
	struct ahead_item *it;

	if (rc < 0)
		memcpy(ah->errmsg, ah->file.errmsg, sizeof(ah->errmsg));
	it = item_new(ah, AH_END);
	if (it)
		it->rc = rc;
	ahead_publish(ah, NULL);
}

/*
 * Where the caller's walk of pr's output stops: at a record whose tail
 * is in the next chunk (what inflate_into carries over), or at damage,
 * where the caller stops reading (pd_decomp_next).  The caller's walk
 * counts the wrapped sizes in it, not this one.
 */
static bool find_tail(struct pd_reader *pr)
{
	const uint64_t wrapped = pr->stats.nr_size_wrapped;
	bool ok = true;

	while (pr->dlen - pr->dpos >= 8) {
		const size_t left = pr->dlen - pr->dpos;
		uint32_t size;
		uint64_t payload;
		int rc = pd_rec_extent_fast(pr, pr->dbuf + pr->dpos, left,
					    pr->dchunk_off, &size, &payload);

		if (rc < 0)
			ok = false;
		if (rc != 0 || size + payload > left)
			break;
		pr->dpos += size + payload;
	}
	pr->stats.nr_size_wrapped = wrapped;
	return ok;
}

/* The buffer of chunk n, once the caller is done with it, goes back if a
 * large chunk grew it: two such chunks at most are held at once, as
 * reading on one thread does. */
static void slot_trim(struct pd_ahead *ah, uint64_t n)
{
	struct ahead_slot *sl = &ah->slots[n % NR_SLOTS];

	if (n + 1 < ah->taken_seen && sl->cap > SLOT_KEEP) {
		pd_free(&ah->file.mem, sl->buf);
		sl->buf = NULL;
		sl->cap = sl->len = 0;
	}
}

/* Inflate rec into the next slot and hand it over.  false: the end. */
static bool ahead_chunk(struct pd_ahead *ah, const struct pd_rec *rec)
{
	struct pd_reader *pr = &ah->pr;
	const uint64_t n = ah->nr_chunks;
	struct ahead_slot *sl;
	size_t len = 0;
	bool whole;
	int rc;

	if (!ahead_publish(ah, slot_room))
		return false;
	/* chunks n - 3 (this slot's last) and n - 2, where the caller is
	 * done with them */
	if (n >= 3)
		slot_trim(ah, n - 3);
	if (n >= 2)
		slot_trim(ah, n - 2);
	sl = &ah->slots[n % NR_SLOTS];
	if (!pr->dctx) {
		pr->dctx = pd_dstream_new(&pr->f->mem);
		if (!pr->dctx) {
			ahead_end(ah, PD_ERR_NOMEM);
			return false;
		}
	}
	rc = inflate_into(pr, rec, &sl->buf, &sl->cap, &len);
	if (rc < 0) {
		ahead_end(ah, rc);
		return false;
	}
	if (pr->dstop) {
		if (ahead_damage(ah, true))
			ahead_publish(ah, NULL);
		return false;
	}
	sl->len = len;
	sl->chunk_off = rec->offset;
	pr->dbuf = sl->buf;
	pr->dlen = len;
	pr->dpos = 0;
	pr->dchunk_off = rec->offset;
	whole = find_tail(pr);
	if (!item_new(ah, AH_CHUNK))
		return false;
	ah->nr_chunks++;
	if (!whole) {
		/* the caller stops at the damage in it */
		ahead_end(ah, 0);
		return false;
	}
	return ahead_publish(ah, NULL);
}

static void *ahead_main(void *arg)
{
	struct pd_ahead *ah = arg;
	struct pd_reader *pr = &ah->pr;
	struct pd_rec rec = ah->first;
	struct ahead_item *it;
	int rc;

	if (!ahead_chunk(ah, &rec))
		return NULL;
	for (;;) {
		rc = pd_reader_next_outer(pr, &rec);
		if (!ahead_damage(ah, false))
			return NULL;
		if (rc <= 0) {
			if (rc == 0) {
				rc = pd_decomp_region_end(pr);
				if (!ahead_damage(ah, false))
					return NULL;
			}
			ahead_end(ah, rc);
			return NULL;
		}
		if (rec.type == PD_REC_COMPRESSED ||
		    rec.type == PD_REC_COMPRESSED2) {
			if (!ahead_chunk(ah, &rec))
				return NULL;
			continue;
		}
		it = item_new(ah, AH_REC);
		if (!it)
			return NULL;
		it->rec = rec;
	}
}

static void ahead_free(struct pd_reader *r, struct pd_ahead *ah)
{
	for (size_t i = 0; i < NR_SLOTS; i++)
		pd_free(&r->f->mem, ah->slots[i].buf);
	if (ah->pr.dctx)
		ZSTD_freeDStream(ah->pr.dctx);
	pd_free(&r->f->mem, ah);
}

int pd_ahead_start(struct pd_reader *r, const struct pd_rec *rec)
{
	struct pd_ahead *ah;

	if (r->dbuf || r->dctx)
		return 0;
	ah = pd_zalloc(&r->f->mem, sizeof(*ah));
	if (!ah)
		return 0;
	ah->file = *r->f;
	ah->pr = *r;
	ah->pr.f = &ah->file;
	ah->pr.flags |= PD_READ_QUIET;
	ah->pr.order = NULL;
	memset(&ah->pr.stats, 0, sizeof(ah->pr.stats));
	ah->first = *rec;
	if (pthread_mutex_init(&ah->mu, NULL) != 0) {
		pd_free(&r->f->mem, ah);
		return 0;
	}
	if (pthread_cond_init(&ah->to_caller, NULL) != 0)
		goto no_caller;
	if (pthread_cond_init(&ah->to_thread, NULL) != 0)
		goto no_thread;
	if (pthread_create(&ah->thread, NULL, ahead_main, ah) != 0)
		goto no_create;
	r->ahead = ah;
	return 1;
no_create:
	pthread_cond_destroy(&ah->to_thread);
no_thread:
	pthread_cond_destroy(&ah->to_caller);
no_caller:
	pthread_mutex_destroy(&ah->mu);
	pd_free(&r->f->mem, ah);
	return 0;
}

void pd_ahead_stop(struct pd_reader *r)
{
	struct pd_ahead *ah = r->ahead;

	if (!ah)
		return;
	pd_thread_stop(ah->thread, &ah->mu, &ah->to_thread, &ah->stop);
	pthread_cond_destroy(&ah->to_thread);
	pthread_cond_destroy(&ah->to_caller);
	pthread_mutex_destroy(&ah->mu);
	ahead_free(r, ah);
	r->ahead = NULL;
	/* dbuf was a slot's */
	r->dbuf = NULL;
	r->dlen = r->dpos = 0;
}

/* The next item, waiting for the thread when none is published. */
static const struct ahead_item *item_next(struct pd_ahead *ah)
{
	if (ah->at == ah->known) {
		pthread_mutex_lock(&ah->mu);
		ah->tail = ah->at;
		if (ah->thread_waits)
			pthread_cond_signal(&ah->to_thread);
		while (ah->head == ah->at) {
			ah->caller_waits = true;
			pthread_cond_wait(&ah->to_caller, &ah->mu);
			ah->caller_waits = false;
		}
		ah->known = ah->head;
		pthread_mutex_unlock(&ah->mu);
	}
	return &ah->items[ah->at++ % NR_ITEMS];
}

static void add_counts(struct pd_reader_stats *st, const struct ahead_counts *c)
{
	st->nr_compressed += c->nr_compressed;
	st->nr_compressed2 += c->nr_compressed2;
	st->compressed_bytes += c->compressed_bytes;
	st->decompressed_bytes += c->decompressed_bytes;
	st->nr_size_wrapped += c->nr_size_wrapped;
}

int pd_ahead_next(struct pd_reader *r, struct pd_rec *rec)
{
	struct pd_ahead *ah = r->ahead;

	for (;;) {
		const struct ahead_item *it;
		const struct ahead_slot *sl;
		int rc = pd_decomp_next(r, rec);

		if (rc != 0 || r->dstop)
			return rc;
		it = item_next(ah);
		add_counts(&r->stats, &it->counts);
		switch (it->kind) {
		case AH_REC:
			*rec = it->rec;
			return 1;
		case AH_CHUNK:
			sl = &ah->slots[ah->nr_taken++ % NR_SLOTS];
			r->dbuf = sl->buf;
			r->dlen = sl->len;
			r->dpos = 0;
			r->dchunk_off = sl->chunk_off;
			/* the slot before is the thread's again */
			pthread_mutex_lock(&ah->mu);
			ah->taken = ah->nr_taken;
			if (ah->thread_waits)
				pthread_cond_signal(&ah->to_thread);
			pthread_mutex_unlock(&ah->mu);
			break;
		case AH_DAMAGE:
			if (ah->damage_set)
				pd_reader_damage(r, ah->damage_off,
						 ah->damage_unread, "%s",
						 ah->damage);
			if (it->stop)
				r->dstop = true;
			break;
		case AH_END:
			if (it->rc < 0 && it->rc != PD_ERR_NOMEM)
				return pd_set_err(r->f, it->rc, "%s",
						  ah->errmsg);
			return it->rc;
		}
	}
}
