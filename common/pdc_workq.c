/*
 * pdc_workq.c - work handed to one thread of its own, in order
 * (pdc_workq.h).
 */
#include "pdc_workq.h"

#include "pdc_alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct wq_block {
	struct wq_block *next;
	size_t nr, alloc; /* words used, words */
	uint64_t w[];
};

struct pdc_workq {
	const struct pd_alloc *a;
	pdc_workq_fn fn;
	void *arg;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t more, room;
	/* under mu: the blocks handed over (in order), the empty ones, how
	 * many of PDC_WORKQ_WORDS exist, outsize ones done with (freed by
	 * the caller: the hooks are called on its thread only), the end of
	 * input, the consumer's first error */
	struct wq_block *full, **full_tail, *free, *spent;
	unsigned nr_blocks;
	bool stop;
	int err;
	atomic_bool failed;  /* err is set: the caller stops handing over */
	struct wq_block *cur; /* the caller's, being filled */
};

/* A block done with (under mu): kept for reuse, or for the caller to
 * free if it was an outsize one. */
static void recycle(struct pdc_workq *q, struct wq_block *b)
{
	if (b->alloc > PDC_WORKQ_WORDS) {
		b->next = q->spent;
		q->spent = b;
		return;
	}
	b->nr = 0;
	b->next = q->free;
	q->free = b;
}

/* Free a list of blocks (the caller's thread). */
static void free_list(struct pdc_workq *q, struct wq_block *b)
{
	while (b) {
		struct wq_block *next = b->next;

		pdc_free(q->a, b);
		b = next;
	}
}

static void *consumer_main(void *arg)
{
	struct pdc_workq *q = arg;
	int err = 0;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		struct wq_block *b;

		while (!q->full && !q->stop)
			pthread_cond_wait(&q->more, &q->mu);
		b = q->full;
		if (!b)
			break;
		q->full = b->next;
		if (!q->full)
			q->full_tail = &q->full;
		pthread_mutex_unlock(&q->mu);
		if (!err) {
			err = q->fn(q->arg, b->w, b->nr);
			if (err)
				atomic_store(&q->failed, true);
		}
		pthread_mutex_lock(&q->mu);
		if (err && !q->err)
			q->err = err;
		recycle(q, b);
		pthread_cond_signal(&q->room);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* The caller's block handed over (none: nothing). */
static void submit(struct pdc_workq *q)
{
	struct wq_block *b = q->cur;

	if (!b)
		return;
	q->cur = NULL;
	if (!b->nr) {
		pthread_mutex_lock(&q->mu);
		recycle(q, b);
		pthread_mutex_unlock(&q->mu);
		return;
	}
	b->next = NULL;
	pthread_mutex_lock(&q->mu);
	*q->full_tail = b;
	q->full_tail = &b->next;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->mu);
}

int pdc_workq_start(struct pdc_workq **out, const struct pd_alloc *a,
		    pdc_workq_fn fn, void *arg)
{
	struct pdc_workq *q = pdc_zalloc(a, sizeof(*q));

	*out = NULL;
	if (!q)
		return -1;
	q->a = a;
	q->fn = fn;
	q->arg = arg;
	q->full_tail = &q->full;
	atomic_init(&q->failed, false);
	if (pthread_mutex_init(&q->mu, NULL) != 0)
		goto no_mutex;
	if (pthread_cond_init(&q->more, NULL) != 0)
		goto no_more;
	if (pthread_cond_init(&q->room, NULL) != 0)
		goto no_room;
	if (pthread_create(&q->thread, NULL, consumer_main, q) != 0)
		goto no_thread;
	*out = q;
	return 0;
no_thread:
	pthread_cond_destroy(&q->room);
no_room:
	pthread_cond_destroy(&q->more);
no_more:
	pthread_mutex_destroy(&q->mu);
no_mutex:
	pdc_free(a, q);
	return -1;
}

uint64_t *pdc_workq_reserve(struct pdc_workq *q, size_t n)
{
	struct wq_block *b = q->cur, *spent;
	const size_t words = n > PDC_WORKQ_WORDS ? n : PDC_WORKQ_WORDS;

	if (atomic_load_explicit(&q->failed, memory_order_relaxed))
		return NULL;
	if (b && b->alloc - b->nr >= n)
		return b->w + b->nr;
	submit(q);
	b = NULL;
	pthread_mutex_lock(&q->mu);
	spent = q->spent;
	q->spent = NULL;
	if (words == PDC_WORKQ_WORDS) {
		while (!q->free && q->nr_blocks >= PDC_WORKQ_BLOCKS)
			pthread_cond_wait(&q->room, &q->mu);
		b = q->free;
		if (b)
			q->free = b->next;
		else
			q->nr_blocks++;
	}
	pthread_mutex_unlock(&q->mu);
	free_list(q, spent);
	if (!b) {
		b = pdc_malloc(q->a, sizeof(*b) + words * sizeof(b->w[0]));
		if (!b) {
			if (words == PDC_WORKQ_WORDS) {
				pthread_mutex_lock(&q->mu);
				q->nr_blocks--;
				pthread_mutex_unlock(&q->mu);
			}
			return NULL;
		}
		b->alloc = words;
	}
	b->nr = 0;
	q->cur = b;
	return b->w;
}

void pdc_workq_commit(struct pdc_workq *q, size_t n)
{
	q->cur->nr += n;
}

int pdc_workq_stop(struct pdc_workq *q)
{
	int err;

	if (!q)
		return 0;
	submit(q);
	pthread_mutex_lock(&q->mu);
	q->stop = true;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->thread, NULL);
	err = q->err;
	free_list(q, q->free);
	free_list(q, q->spent);
	pthread_cond_destroy(&q->room);
	pthread_cond_destroy(&q->more);
	pthread_mutex_destroy(&q->mu);
	pdc_free(q->a, q);
	return err;
}
