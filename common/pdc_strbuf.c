/*
 * pdc_strbuf.c - the growable string of pdc_strbuf.h.
 */
#include "pdc_strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void pdc_strbuf_init(struct pdc_strbuf *b, const struct pd_alloc *a,
		     char *small, size_t small_size)
{
	b->a = a;
	b->small = small_size ? small : NULL;
	b->small_size = b->small ? small_size : 0;
	b->p = b->small;
	b->alloc = b->small_size;
	b->len = 0;
	b->oom = false;
	if (b->p)
		b->p[0] = '\0';
}

/* Room for more bytes and the NUL: false (oom set) when it cannot be. */
static bool reserve(struct pdc_strbuf *b, size_t more)
{
	size_t want;
	char *p;

	if (b->oom)
		return false;
	if (more < b->alloc - b->len)
		return true;
	if (more >= PDC_STRBUF_MAX - b->len) {
		b->oom = true;
		return false;
	}
	/* double what is needed, as far as the cap */
	want = b->len + more + 1;
	want = want > PDC_STRBUF_MAX / 2 ? PDC_STRBUF_MAX : want * 2;
	p = !b->p || b->p == b->small ? pdc_malloc(b->a, want)
				      : pdc_realloc(b->a, b->p, want);
	if (!p) {
		b->oom = true;
		return false;
	}
	if (b->p == b->small && b->small)
		memcpy(p, b->small, b->len + 1);
	else if (!b->p)
		p[0] = '\0';
	b->p = p;
	b->alloc = want;
	return true;
}

void pdc_strbuf_add(struct pdc_strbuf *b, const void *s, size_t len)
{
	if (!reserve(b, len))
		return;
	memcpy(b->p + b->len, s, len);
	b->len += len;
	b->p[b->len] = '\0';
}

void pdc_strbuf_addf(struct pdc_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->alloc - b->len : 0,
		      fmt, ap);
	va_end(ap);
	if (n <= 0) {
		if (b->p)
			b->p[b->len] = '\0';
		return;
	}
	if ((size_t)n >= b->alloc - b->len || !b->p) {
		/* it did not fit: grow, then format again */
		if (!reserve(b, (size_t)n)) {
			if (b->p)
				b->p[b->len] = '\0';
			return;
		}
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->alloc - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

void pdc_strbuf_release(struct pdc_strbuf *b)
{
	if (b->p != b->small)
		pdc_free(b->a, b->p);
	pdc_strbuf_init(b, b->a, b->small, b->small_size);
}
