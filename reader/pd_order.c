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
 * buffer.  A mapped page handed back behind the reader (release_behind)
 * reads back from the file when a queued record is delivered.
 */
#include "pd_reader_int.h"

#include <stdlib.h>

#define MAX_QUEUE_BYTES ((size_t)1 << 32)

struct qent {
	uint64_t time;
	uint64_t seq;		/* arrival order, for equal times */
	uint64_t offset;	/* record's file offset */
	const unsigned char *ref; /* a stable record where it is, or NULL */
	size_t at;		/* else its byte offset in the queue buffer */
	uint32_t size;
	uint64_t payload;
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
static int sort_queue(struct pd_reader *r)
{
	struct pd_order *o = r->order;
	const struct pd_mem *m = &r->f->mem;
	size_t nruns = 0;

	PD_TRY(PD_GROW(m, o->runs, o->runs_alloc, 2, SIZE_MAX / sizeof(size_t)));
	o->runs[nruns++] = 0;
	for (size_t i = 1; i < o->nq; i++) {
		if (!before(&o->q[i], &o->q[i - 1]))
			continue;
		PD_TRY(PD_GROW(m, o->runs, o->runs_alloc, nruns + 2,
			       SIZE_MAX / sizeof(size_t)));
		o->runs[nruns++] = i;
	}
	if (nruns == 1)
		return 0;
	o->runs[nruns] = o->nq;
	PD_TRY(PD_GROW(m, o->tmp, o->tmp_alloc, o->nq,
		       SIZE_MAX / sizeof(*o->tmp)));
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
	return 0;
}

static int enqueue(struct pd_reader *r, const struct pd_rec *rec,
		   uint64_t time)
{
	struct pd_order *o = r->order;
	const struct pd_mem *m = &r->f->mem;
	const uint64_t bytes = rec->size + rec->payload_size;
	struct qent *e;

	if (o->qlen + bytes > MAX_QUEUE_BYTES)
		return pd_set_err(r->f, PD_ERR_NOMEM,
				  "ordering queue over %zu bytes before record "
				  "at offset 0x%llx: the capture has no "
				  "FINISHED_ROUND records",
				  MAX_QUEUE_BYTES,
				  (unsigned long long)rec->offset);
	PD_TRY(PD_GROW(m, o->q, o->q_alloc, o->nq + 1, SIZE_MAX / sizeof(*e)));
	if (!(rec->flags & PD_RECF_STABLE))
		PD_TRY(pd_grow(m, (void **)&o->qbuf, 1, &o->qcap,
			       o->qlen + bytes, MAX_QUEUE_BYTES));
	e = &o->q[o->nq++];
	e->time = time;
	e->seq = o->seq++;
	e->offset = rec->offset;
	e->size = rec->size;
	e->payload = rec->payload_size;
	e->flags = rec->flags;
	if (rec->flags & PD_RECF_STABLE) {
		/* the payload follows the record where it is */
		e->ref = rec->data;
		e->at = 0;
	} else {
		e->ref = NULL;
		e->at = o->qlen;
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
	PD_TRY(sort_queue(r));
	while (nready < o->nq && o->q[nready].time <= limit)
		nready++;
	if (!nready)
		return 0;
	o->nout = nready;
	o->out_pos = 0;
	o->last_flushed = o->q[nready - 1].time;
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
		if (!o->q[i].ref)
			keep_bytes += o->q[i].size + o->q[i].payload;
	if (keep_bytes) {
		/* on failure nothing changed, and a later call can retry */
		PD_TRY(pd_grow(m, (void **)&nb, 1, &ncap, keep_bytes,
			       MAX_QUEUE_BYTES));
		o->spare = nb;
		o->spare_cap = ncap;
	}
	for (size_t i = o->nout; i < o->nq; i++) {
		const size_t b = o->q[i].size + o->q[i].payload;

		o->q[i - o->nout] = o->q[i];
		if (o->q[i].ref)
			continue;
		memcpy(nb + at, o->qbuf + o->q[i].at, b);
		o->q[i - o->nout].at = at;
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

	pd_fill_rec(r, rec, e->ref ? e->ref : o->qbuf + e->at, e->size,
		    e->payload, e->offset, e->flags);
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
