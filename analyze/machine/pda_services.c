/*
 * pda_services.c - what a session gives the modules below it: allocation
 * through the caller's hooks (locked while unwinding threads run),
 * logging and errors.  Declared in pda_base_int.h on an opaque session;
 * here, where the session's state is known.
 */
#include "pda_machine_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- allocation, logging, errors ----------------------------------- */

const struct pd_alloc *pda_session_alloc(const struct pda_session *s)
{
	return &s->alloc;
}

void *pda_malloc(struct pda_session *s, size_t size)
{
	return pdc_malloc(&s->alloc, size);
}

void *pda_zalloc(struct pda_session *s, size_t size)
{
	return pdc_zalloc(&s->alloc, size);
}

void *pda_realloc(struct pda_session *s, void *p, size_t size)
{
	return pdc_realloc(&s->alloc, p, size);
}

void pda_free(struct pda_session *s, void *p)
{
	pdc_free(&s->alloc, p);
}

/*
 * The caller's hooks may not be thread-safe: while other threads unwind,
 * s->alloc holds these, which call them (or libc, where one is NULL, as
 * pdc_* would) under the session's lock.
 */
static void *locked_malloc(void *arg, size_t size)
{
	struct pda_session *s = arg;
	const struct pd_alloc *a = &s->mt.hooks;
	void *p;

	pthread_mutex_lock(&s->mt.lock);
	p = a->malloc_fn ? a->malloc_fn(a->arg, size) : malloc(size);
	pthread_mutex_unlock(&s->mt.lock);
	return p;
}

static void *locked_realloc(void *arg, void *p, size_t size)
{
	struct pda_session *s = arg;
	const struct pd_alloc *a = &s->mt.hooks;
	void *q;

	pthread_mutex_lock(&s->mt.lock);
	q = a->realloc_fn ? a->realloc_fn(a->arg, p, size) : realloc(p, size);
	pthread_mutex_unlock(&s->mt.lock);
	return q;
}

static void locked_free(void *arg, void *p)
{
	struct pda_session *s = arg;
	const struct pd_alloc *a = &s->mt.hooks;

	pthread_mutex_lock(&s->mt.lock);
	if (a->free_fn)
		a->free_fn(a->arg, p);
	else
		free(p);
	pthread_mutex_unlock(&s->mt.lock);
}

bool pda_session_hooked(const struct pda_session *s)
{
	return s->mt.on ? s->mt.hooked
			: s->alloc.malloc_fn || s->alloc.realloc_fn ||
				  s->alloc.free_fn;
}

void pda_session_threads(struct pda_session *s, bool on)
{
	const bool hooked = pda_session_hooked(s);

	if (on == s->mt.on)
		return;
	if (on) {
		/* before any thread: they read it in pda_logf */
		s->mt.log_key_ok =
			pthread_key_create(&s->mt.log_key, NULL) == 0;
		s->mt.owner = pthread_self();
		s->mt.may_load = true;
		s->mt.hooked = hooked;
		if (hooked) {
			s->mt.hooks = s->alloc;
			s->alloc = (struct pd_alloc){locked_malloc,
						     locked_realloc,
						     locked_free, s};
		}
	} else {
		if (s->mt.log_key_ok)
			pthread_key_delete(s->mt.log_key);
		s->mt.log_key_ok = false;
		if (hooked)
			s->alloc = s->mt.hooks;
	}
	s->mt.on = on;
}

int pda_grow(struct pda_session *s, void **arr, size_t elem, size_t *alloc,
	     size_t want, size_t max)
{
	return pdc_grow(&s->alloc, arr, elem, alloc, want, max);
}

/* msg kept in the calling thread's hold, if it has one. */
static bool held(struct pda_session *s, enum pd_log_level level,
		 const char *msg)
{
	struct pda_log_hold *h = pthread_getspecific(s->mt.log_key);
	const size_t len = strlen(msg);
	char *copy;

	if (!h || PDA_GROW(s, h->v, h->alloc, h->nr + 1, SIZE_MAX / 64) < 0)
		return false;
	copy = pda_malloc(s, len + 1);
	if (!copy)
		return false; /* said now, out of its order */
	memcpy(copy, msg, len + 1);
	h->v[h->nr].at = h->at;
	h->v[h->nr].level = level;
	h->v[h->nr].msg = copy;
	h->nr++;
	return true;
}

bool pda_log_hold(struct pda_session *s, struct pda_log_hold *h)
{
	return s->mt.on && s->mt.log_key_ok &&
	       pthread_setspecific(s->mt.log_key, h) == 0;
}

/* h's messages in the order of their at, stable (a thread may say some
 * ahead of their place: pda_session.c split_plan).  A few at most. */
static void sort_held(struct pda_log_hold *h)
{
	for (size_t i = 1; i < h->nr; i++) {
		const struct pda_held_log m = h->v[i];
		size_t j = i;

		for (; j && h->v[j - 1].at > m.at; j--)
			h->v[j] = h->v[j - 1];
		h->v[j] = m;
	}
}

void pda_log_release(struct pda_session *s, struct pda_log_hold *a,
		     struct pda_log_hold *b)
{
	size_t i = 0, j = 0;

	sort_held(a);
	sort_held(b);

	while (i < a->nr || j < b->nr) {
		const bool from_a =
			j == b->nr || (i < a->nr && a->v[i].at <= b->v[j].at);
		struct pda_held_log *m = from_a ? &a->v[i++] : &b->v[j++];

		/* past pda_logf's level check already */
		pthread_mutex_lock(&s->mt.lock);
		s->opts.log(s->opts.log_arg, m->level, m->msg);
		pthread_mutex_unlock(&s->mt.lock);
		pda_free(s, m->msg);
	}
	pda_free(s, a->v);
	pda_free(s, b->v);
	a->v = b->v = NULL;
	a->nr = a->alloc = b->nr = b->alloc = 0;
}

void pda_logf(struct pda_session *s, enum pd_log_level level, const char *fmt,
	      ...)
{
	char buf[1024];
	va_list ap;

	if (!s->opts.log || level > s->opts.log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!s->mt.on) {
		s->opts.log(s->opts.log_arg, level, buf);
		return;
	}
	if (s->mt.log_key_ok && held(s, level, buf))
		return;
	pthread_mutex_lock(&s->mt.lock);
	s->opts.log(s->opts.log_arg, level, buf);
	pthread_mutex_unlock(&s->mt.lock);
}

/* The calling thread's shard view while shards run on threads
 * (pda_view_enter), else NULL: the session's thread. */
static struct pda_view *thread_view(const struct pda_session *s)
{
	return s->shards_on ? pthread_getspecific(s->view_key) : NULL;
}

int pda_set_err(struct pda_session *s, int err, const char *fmt, ...)
{
	struct pda_view *v = thread_view(s);
	va_list ap;

	va_start(ap, fmt);
	if (v) {
		vsnprintf(v->errmsg, sizeof(v->errmsg), fmt, ap);
		v->errcode = err;
	} else {
		vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
		s->errcode = err;
	}
	va_end(ap);
	return err;
}

const char *pda_session_failure(const struct pda_session *s, int rc)
{
	const struct pda_view *v = s ? thread_view(s) : NULL;
	const char *msg = s ? pda_view_errmsg(s, v) : "";
	const int code = !s ? 0 : v && v != &s->view ? v->errcode : s->errcode;

	/* a bare code (an allocation or a read deep down, unsaid) after a
	 * warning's message (a binary that is no ELF file, consumed as
	 * such): the warning is not why the run failed; a message set
	 * with the failure carries its code */
	if (!msg[0] || code != rc)
		return pd_strerror(rc);
	return msg;
}

const char *pda_session_errmsg(const struct pda_session *s)
{
	return s ? pda_view_errmsg(s, thread_view(s)) : "";
}

const char *pda_view_errmsg(const struct pda_session *s,
			    const struct pda_view *v)
{
	return v && v != &s->view ? v->errmsg : s->errmsg;
}

const struct pda_opts *pda_session_opts(const struct pda_session *s)
{
	return &s->opts;
}

struct pd_file *pda_session_file(const struct pda_session *s)
{
	return s->f;
}

struct pda_cfi_store **pda_session_cfi_store(struct pda_session *s)
{
	return &s->cfi_store;
}

