/*
 * pdc_strbuf.h - a growable NUL-terminated string, on struct pd_alloc
 * hooks, optionally starting in the caller's own small buffer so that
 * the common short strings (names built per sample) cost no malloc.
 *
 * Invariants: p is NUL-terminated at len (or NULL while nothing was
 * added and there is no small buffer: pdc_strbuf_str() gives "" then);
 * len < alloc; p is either small or the heap.  Appends never truncate:
 * a string grows to any length up to PDC_STRBUF_MAX.  An append that
 * cannot grow (out of memory, or past the cap) sets oom and adds
 * nothing; oom stays set, and every later append is a no-op, until
 * pdc_strbuf_release(), so a caller checks once at the end.  Not
 * thread-safe.
 *
 *	char small[256];
 *	struct pdc_strbuf b;
 *
 *	pdc_strbuf_init(&b, alloc, small, sizeof(small));
 *	pdc_strbuf_add(&b, comm, strlen(comm));
 *	pdc_strbuf_addf(&b, "-%u", pid);
 *	if (!b.oom)
 *		use(b.p, b.len);
 *	pdc_strbuf_release(&b);
 */
#ifndef PDC_STRBUF_H
#define PDC_STRBUF_H

#include "pdc_alloc.h"

#include <stdbool.h>
#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define PDC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define PDC_PRINTF(fmt, args)
#endif

#define PDC_STRBUF_MAX ((size_t)1 << 30) /* bytes, the NUL included (O5) */

struct pdc_strbuf {
	const struct pd_alloc *a; /* may be NULL: libc's */
	char *p;
	size_t len, alloc;
	char *small; /* the caller's first buffer, or NULL */
	size_t small_size;
	bool oom;
};

/* An empty string in small (small_size bytes; small may be NULL). */
void pdc_strbuf_init(struct pdc_strbuf *b, const struct pd_alloc *a,
		     char *small, size_t small_size);
/* Append len bytes of s (a NUL among them is kept). */
void pdc_strbuf_add(struct pdc_strbuf *b, const void *s, size_t len);
/* Append printf output, whatever its length. */
void pdc_strbuf_addf(struct pdc_strbuf *b, const char *fmt, ...)
	PDC_PRINTF(2, 3);
/* Free the heap memory; b is then empty again, in its small buffer, with
 * oom cleared. */
void pdc_strbuf_release(struct pdc_strbuf *b);

/* The contents, NUL-terminated; valid until the next call on b. */
static inline const char *pdc_strbuf_str(const struct pdc_strbuf *b)
{
	return b->p ? b->p : "";
}

#endif /* PDC_STRBUF_H */
