/*
 * pda_base_int.h - what every libpda module builds on: allocation through
 * the caller's hooks and options validation (common/pdc_alloc.h and
 * pdc_opts.h), the hash and intern tables (common/pdc_hash.h and
 * pdc_intern.h), and the services a session gives the modules below it
 * (allocation, the arena and intern table, logging, errors).  The
 * services are declared here on an opaque struct pda_session so that the
 * ELF/DWARF module can use them without seeing the session; the machine
 * module, which owns the session's state, implements them.
 */
#ifndef PDA_BASE_INT_H
#define PDA_BASE_INT_H

#include "pd_config.h"
#include "pda_session.h"
#include "pdc_alloc.h"
#include "pdc_arena.h"
#include "pdc_hash.h"
#include "pdc_intern.h"
#include "pdc_opts.h"
#include "pdc_strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A hex digit's value, or -1. */
static inline int pda_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* ---- perf's sort comparisons (util/sort.c) ------------------------- */

/* The sign of v. */
static inline int pda_sgn64(int64_t v)
{
	return (v > 0) - (v < 0);
}

/* l against r without the overflow a difference can have (perf's
 * "l < r ? -1 : l == r ? 0 : 1" comparisons). */
static inline int pda_cmp_i64(int64_t l, int64_t r)
{
	return (l > r) - (l < r);
}

/* perf's cmp_null(): a missing value after a present one. */
static inline int pda_cmp_null(const void *l, const void *r)
{
	if (!l && !r)
		return 0;
	return !l ? -1 : 1;
}

/* perf's string sorts, strcmp(right, left): > 0 when a comes first (the
 * smaller string first). */
static inline int pda_str_sort(const char *a, const char *b)
{
	/* interned names: one pointer, one name (a report's sort
	 * compares mostly rows alike) */
	const int c = a == b ? 0 : strcmp(b, a);

	return (c > 0) - (c < 0);
}

/* ---- session services (pda_session.c, pda_intern.c) ---------------- */

/* The session's allocation hooks (opts.alloc), for pdc_*, the hash
 * table included; never NULL, valid as long as the session. */
const struct pd_alloc *pda_session_alloc(const struct pda_session *s);

/* Allocation through the session's hooks: pdc_* on them. */
void *pda_malloc(struct pda_session *s, size_t size);
void *pda_zalloc(struct pda_session *s, size_t size);
void *pda_realloc(struct pda_session *s, void *p, size_t size);
void pda_free(struct pda_session *s, void *p);

/* Log through opts.log. */
void pda_logf(struct pda_session *s, enum pd_log_level level,
	      const char *fmt, ...) PD_PRINTF(3, 4);

/* Set the session's error message and return err. */
int pda_set_err(struct pda_session *s, int err, const char *fmt, ...)
	PD_PRINTF(3, 4);

/*
 * The session's string intern table: the same bytes give the same
 * pointer, valid until the session is freed.  NULL only on NOMEM.
 */
const char *pda_intern(struct pda_session *s, const char *str, size_t len);

/* The session's options (never NULL). */
const struct pda_opts *pda_session_opts(const struct pda_session *s);

/* pdc_grow() on the session's hooks. */
int pda_grow(struct pda_session *s, void **arr, size_t elem, size_t *alloc,
	     size_t want, size_t max);

#define PDA_GROW(s, arr, alloc, want, max)                                  \
	pda_grow((s), (void **)&(arr), sizeof(*(arr)), &(alloc), (want), (max))

/*
 * The session's arena (pda_intern.c): size bytes, 16-byte aligned, valid
 * until the session is freed, never freed one by one.  For what lives as
 * long as the session (interned strings, cached resolutions, symbol
 * tables).  NULL only on NOMEM.
 */
void *pda_arena_alloc(struct pda_session *s, size_t size);

#endif /* PDA_BASE_INT_H */
