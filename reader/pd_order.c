/*
 * pd_order.c - delivering records in time order, the way perf's ordered
 * events do.
 *
 * Kernel records with a timestamp are queued; records without one (perf's
 * own, or events sampled without TIME) pass straight through.  At each
 * FINISHED_ROUND the queued records up to the newest timestamp seen
 * before the *previous* round are sorted and delivered: every CPU's
 * buffer has been flushed past that point, so nothing older can still
 * arrive.  Memory is thus bounded by two rounds, not by the file.  A
 * directory capture's files are read one after the other, so their
 * rounds do not bound each other; there the queue is flushed at the end.
 *
 * A record that stays where it is until the file is closed (the mapping,
 * PD_RECF_STABLE) is queued by reference; the others (out of a
 * compressed chunk, or a stream's buffer) are copied into the queue
 * buffer.  The reader hands mapped pages back behind it (release_behind)
 * only before the oldest record queued at the last round (order_keep):
 * a page handed back under a queued record would read back from the
 * file when the record is delivered and stay, so that the pages mapped
 * grew with the file.
 *
 * O5: all the queue allocates counts against MAX_QUEUE_BYTES: the index
 * (a struct qent per record), the merge's other array and run starts,
 * which grow with it so that sorting never allocates, and the buffer of
 * copied records with its spare.  Over it, the record that would not fit
 * is refused with PD_ERR_UNSUPPORTED and a message naming it: a round of
 * tiny records (a zstd bomb: 98 KB of chunks that inflate to 1 GiB of
 * 16-byte samples) would otherwise take 7 GB.  A real capture's round is
 * megabytes; the budget holds about 8 million records queued at once
 * (all of a directory capture's, which is flushed only at its end).
 * format.md §11.
 */
#include "pd_reader_int.h"

#include <assert.h>
#include <stdlib.h>

#define MAX_QUEUE_BYTES ((size_t)1 << 30)

struct qent {
	uint64_t time;
	uint64_t seq;		/* arrival order, for equal times */
	uint64_t offset;	/* record's file offset */
	uint64_t payload;
	union {
		const unsigned char *ref; /* PD_RECF_STABLE: where it is */
		size_t at;	/* else its offset in the queue buffer */
	} where;
	uint32_t size;
	unsigned flags;
};

struct pd_order {
	struct qent *q;		/* queued; sorted while delivering */
	size_t nq, q_alloc;
	unsigned char *qbuf;
	size_t qlen, qcap;

	size_t nout, out_pos;	/* q[out_pos..nout) are being delivered */
	unsigned char *spare;	/* the queue buffer of the previous round,
				 * reused so each round maps no new pages */
	size_t spare_cap;

	uint64_t seq;
	uint64_t max_time;	/* newest timestamp queued so far */
	uint64_t next_flush;	/* newest at the previous round */
	bool flush_at_end_only;
	bool eof;
	uint64_t nr_unordered;	/* older than what was already delivered */
	uint64_t last_flushed;
	/* sort_queue()'s: the merge's other array, and where runs start */
	struct qent *tmp;
	size_t tmp_alloc;
	size_t *runs;
	size_t runs_alloc;
};

int pd_order_init(struct pd_reader *r)
{
	r->order = pd_zalloc(&r->f->mem, sizeof(*r->order));
	if (!r->order)
		return PD_ERR_NOMEM;
	r->order->flush_at_end_only = r->f->hdr.kind == PD_KIND_DIR;
	r->order_keep = 0; /* all is queued until the first round */
	return 0;
}

void pd_order_release(struct pd_reader *r)
{
	const struct pd_mem *m = &r->f->mem;
	struct pd_order *o = r->order;

	if (!o)
		return;
	pd_free(m, o->q);
	pd_free(m, o->tmp);
	pd_free(m, o->runs);
	pd_free(m, o->qbuf);
	pd_free(m, o->spare);
	pd_free(m, o);
	r->order = NULL;
}

/* Whether x goes before y: by time, then as they came (seq is unique,
 * so the order is total and the sort's result is the one order). */
static inline bool before(const struct qent *x, const struct qent *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/* Merge a[0..n1) and b[0..n2), each in order, into out. */
static void merge(const struct qent *a, size_t n1, const struct qent *b,
		  size_t n2, struct qent *out)
{
	size_t i = 0, j = 0, k = 0;

	while (i < n1 && j < n2)
		out[k++] = before(&b[j], &a[i]) ? b[j++] : a[i++];
	memcpy(out + k, a + i, (n1 - i) * sizeof(*a));
	memcpy(out + k + n1 - i, b + j, (n2 - j) * sizeof(*b));
}

/*
 * Sort the queue by (time, seq): a natural merge sort.  A round holds a
 * few runs already in order (perf writes each CPU's buffer in turn, each
 * in time order, and the records kept from the last round are sorted),
 * so finding the runs and merging them pairwise costs n log(runs)
 * moves and compares instead of qsort's n log n calls.
 */
static void sort_queue(struct pd_reader *r)
{
	struct pd_order *o = r->order;
	size_t nruns = 0;

	/* reserve() keeps room for nq + 1 run starts and nq entries */
	assert(o->runs_alloc > o->nq && o->tmp_alloc >= o->nq);
	o->runs[nruns++] = 0;
	for (size_t i = 1; i < o->nq; i++)
		if (before(&o->q[i], &o->q[i - 1]))
			o->runs[nruns++] = i;
	if (nruns == 1)
		return;
	o->runs[nruns] = o->nq;
	while (nruns > 1) {
		size_t out = 0;
		struct qent *t;
		size_t a;

		for (size_t i = 0; i < nruns; i += 2) {
			const size_t lo = o->runs[i];
			const size_t mid = o->runs[i + 1];
			const size_t hi = i + 2 <= nruns ? o->runs[i + 2]
							 : mid;

			merge(o->q + lo, mid - lo, o->q + mid, hi - mid,
			      o->tmp + lo);
			o->runs[out++] = lo;
		}
		o->runs[out] = o->nq;
		nruns = out;
		/* the merged runs are in tmp: it becomes the queue */
		t = o->q;
		o->q = o->tmp;
		o->tmp = t;
		a = o->q_alloc;
		o->q_alloc = o->tmp_alloc;
		o->tmp_alloc = a;
	}
}

/* What the queue has allocated; the spare buffer is counted as large as
 * the queue buffer, since compact() grows it to what stays of that. */
static size_t queue_bytes(const struct pd_order *o)
{
	const size_t buf = o->qcap > o->spare_cap ? o->qcap : o->spare_cap;

	return (o->q_alloc + o->tmp_alloc) * sizeof(struct qent) +
	       o->runs_alloc * sizeof(size_t) + 2 * buf;
}

/* The queued records take more than MAX_QUEUE_BYTES with rec. */
static int over_budget(struct pd_reader *r, const struct pd_rec *rec)
{
	const char *type = pd_rec_type_name(rec->type);

	return pd_set_err(r->f, PD_ERR_UNSUPPORTED,
			  "%s record at offset 0x%llx: more than %zu MiB of "
			  "records (%zu) wait to be put in time order",
			  type ? type : "unknown",
			  (unsigned long long)rec->offset,
			  MAX_QUEUE_BYTES >> 20, r->order->nq);
}

/*
 * Grow one of the queue's arrays to hold want elements, within what the
 * others leave of MAX_QUEUE_BYTES (pd_grow doubles up to that, no
 * further).  1 when they leave too little, else 0 or PD_ERR_NOMEM.
 */
static int grow_within(struct pd_reader *r, void **arr, size_t elem,
		       size_t *alloc, size_t want, size_t counted)
{
	const size_t others = queue_bytes(r->order) - counted;
	size_t left;

	if (want <= *alloc)
		return 0;
	left = others < MAX_QUEUE_BYTES ? MAX_QUEUE_BYTES - others : 0;
	if (want > left / elem)
		return 1;
	return pd_grow(&r->f->mem, arr, elem, alloc, want, left / elem);
}

/*
 * Room for one more record of `bytes` copied bytes (0 when queued by
 * reference): its entry, its slot in the merge's other array and a run
 * start, and its copy.  PD_ERR_UNSUPPORTED (over the budget, rec named)
 * or PD_ERR_NOMEM, the queue unchanged.
 */
static int reserve(struct pd_reader *r, const struct pd_rec *rec,
		   size_t bytes)
{
	struct pd_order *o = r->order;
	const size_t ent = sizeof(struct qent);
	int rc;

	rc = grow_within(r, (void **)&o->q, ent, &o->q_alloc, o->nq + 1,
			 o->q_alloc * ent);
	if (rc == 0)
		rc = grow_within(r, (void **)&o->tmp, ent, &o->tmp_alloc,
				 o->nq + 1, o->tmp_alloc * ent);
	if (rc == 0)
		rc = grow_within(r, (void **)&o->runs, sizeof(size_t),
				 &o->runs_alloc, o->nq + 2,
				 o->runs_alloc * sizeof(size_t));
	/* the queue buffer counts twice: itself and its spare */
	if (rc == 0 && o->qlen + bytes > o->qcap) {
		const size_t buf = o->qcap > o->spare_cap ? o->qcap
							  : o->spare_cap;
		const size_t others = queue_bytes(o) - 2 * buf;
		const size_t left = others < MAX_QUEUE_BYTES
					    ? (MAX_QUEUE_BYTES - others) / 2
					    : 0;

		if (o->qlen + bytes > left)
			rc = 1;
		else
			rc = pd_grow(&r->f->mem, (void **)&o->qbuf, 1,
				     &o->qcap, o->qlen + bytes, left);
	}
	return rc == 1 ? over_budget(r, rec) : rc;
}

static int enqueue(struct pd_reader *r, const struct pd_rec *rec,
		   uint64_t time)
{
	struct pd_order *o = r->order;
	const bool stable = rec->flags & PD_RECF_STABLE;
	const uint64_t bytes = rec->size + rec->payload_size;
	struct qent *e;

	if (!stable && bytes > MAX_QUEUE_BYTES)
		return over_budget(r, rec);
	PD_TRY(reserve(r, rec, stable ? 0 : (size_t)bytes));
	e = &o->q[o->nq++];
	e->time = time;
	e->seq = o->seq++;
	e->offset = rec->offset;
	e->size = rec->size;
	e->payload = rec->payload_size;
	e->flags = rec->flags;
	if (stable) {
		/* the payload follows the record where it is */
		e->where.ref = rec->data;
	} else {
		e->where.at = o->qlen;
		memcpy(o->qbuf + o->qlen, rec->data, rec->size);
		if (rec->payload_size)
			memcpy(o->qbuf + o->qlen + rec->size, rec->payload,
			       rec->payload_size);
		o->qlen += bytes;
	}
	if (time > o->max_time)
		o->max_time = time;
	if (time < o->last_flushed)
		o->nr_unordered++;
	return 0;
}

/*
 * Sort the queue and mark its records with time <= limit for delivery.
 * They are delivered in place, from the queue buffer; compact() then
 * moves the records that stay to the front of the other buffer.
 */
static int flush_upto(struct pd_reader *r, uint64_t limit)
{
	struct pd_order *o = r->order;
	size_t nready = 0;

	if (!o->nq)
		return 0;
	sort_queue(r);
	while (nready < o->nq && o->q[nready].time <= limit)
		nready++;
	if (!nready)
		return 0;
	o->nout = nready;
	o->out_pos = 0;
	o->last_flushed = o->q[nready - 1].time;
	/* the mapped records queued, those delivered now included: once a
	 * round, so a scan of the queue is as cheap as its sort */
	r->order_keep = UINT64_MAX;
	for (size_t i = 0; i < o->nq; i++)
		if ((o->q[i].flags & PD_RECF_STABLE) &&
		    o->q[i].offset < r->order_keep)
			r->order_keep = o->q[i].offset;
	return 0;
}

/* After a delivery: the queued records that stay, copied to the spare
 * buffer, which becomes the queue (no new pages each round). */
static int compact(struct pd_reader *r)
{
	struct pd_order *o = r->order;
	const struct pd_mem *m = &r->f->mem;
	size_t keep_bytes = 0, at = 0;
	unsigned char *nb = o->spare;
	size_t ncap = o->spare_cap;

	for (size_t i = o->nout; i < o->nq; i++)
		if (!(o->q[i].flags & PD_RECF_STABLE))
			keep_bytes += o->q[i].size + o->q[i].payload;
	if (keep_bytes) {
		/* on failure nothing changed, and a later call can retry;
		 * within the budget, which counts the spare as large as the
		 * queue buffer (queue_bytes) */
		PD_TRY(pd_grow(m, (void **)&nb, 1, &ncap, keep_bytes,
			       o->qcap > ncap ? o->qcap : ncap));
		o->spare = nb;
		o->spare_cap = ncap;
	}
	for (size_t i = o->nout; i < o->nq; i++) {
		const size_t b = o->q[i].size + o->q[i].payload;

		o->q[i - o->nout] = o->q[i];
		if (o->q[i].flags & PD_RECF_STABLE)
			continue;
		memcpy(nb + at, o->qbuf + o->q[i].where.at, b);
		o->q[i - o->nout].where.at = at;
		at += b;
	}
	o->nq -= o->nout;
	o->qlen = keep_bytes;
	o->nout = 0;
	o->out_pos = 0;
	o->spare = o->qbuf;
	o->spare_cap = o->qcap;
	o->qbuf = nb;
	o->qcap = ncap;
	return 0;
}

static void deliver(struct pd_reader *r, struct pd_rec *rec)
{
	struct pd_order *o = r->order;
	const struct qent *e = &o->q[o->out_pos++];

	pd_fill_rec(r, rec,
		    e->flags & PD_RECF_STABLE ? e->where.ref
					      : o->qbuf + e->where.at,
		    e->size, e->payload, e->offset, e->flags);
}

int pd_order_next(struct pd_reader *r, struct pd_rec *rec)
{
	struct pd_order *o = r->order;
	uint64_t time;
	int rc;

	for (;;) {
		if (o->out_pos < o->nout) {
			deliver(r, rec);
			return 1;
		}
		if (o->nout)
			PD_TRY(compact(r));
		if (o->eof) {
			if (!o->nq)
				return 0;
			PD_TRY(flush_upto(r, UINT64_MAX));
			continue;
		}
		rc = pd_reader_next_raw(r, rec);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			o->eof = true;
			continue;
		}
		if (rec->type == PD_REC_FINISHED_ROUND) {
			if (!o->flush_at_end_only) {
				PD_TRY(flush_upto(r, o->next_flush));
				o->next_flush = o->max_time;
			}
			return 1;
		}
		pd_rec_time(r->f, rec, &time);
		if (time == 0 || time == UINT64_MAX)
			return 1; /* no timestamp: as it comes */
		PD_TRY(enqueue(r, rec, time));
	}
}
