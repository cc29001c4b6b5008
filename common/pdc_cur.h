/*
 * pdc_cur.h - a bounds-checked cursor over bytes in a file's byte order:
 * a feature section, a record's body, a note.  Every layer that parses
 * bytes it did not write uses it (R6).
 *
 * Invariants: start <= p <= end, and [start, end) is readable.  Every
 * take checks the bytes left first, so a parser can never read past
 * end, whatever a size field says; a failed take leaves the cursor where
 * it was.  Loads are unaligned (pd_load_*, pdc_abi.h) and swap when swap is set.
 *
 *	struct pdc_cur c;
 *	uint32_t nr;
 *
 *	pdc_cur_init(&c, sec->data, sec->size, f->swap);
 *	if (!pdc_cur_u32(&c, &nr) || nr > pdc_cur_left(&c) / 8)
 *		return (corrupt: no count, or more than fits);
 */
#ifndef PDC_CUR_H
#define PDC_CUR_H

#include "pdc_abi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pdc_cur {
	const unsigned char *start, *p, *end;
	int swap; /* the bytes are in the other byte order */
};

/* A cursor over the size bytes at p. */
static inline void pdc_cur_init(struct pdc_cur *c, const void *p, size_t size,
				int swap)
{
	c->start = c->p = p;
	c->end = c->p + size;
	c->swap = swap;
}

static inline size_t pdc_cur_left(const struct pdc_cur *c)
{
	return (size_t)(c->end - c->p);
}

/* The bytes consumed so far, for messages ("at byte N"). */
static inline size_t pdc_cur_pos(const struct pdc_cur *c)
{
	return (size_t)(c->p - c->start);
}

/* Take n bytes: *out points at them.  false (nothing taken) when fewer
 * are left. */
static inline bool pdc_cur_take(struct pdc_cur *c, uint64_t n,
				const unsigned char **out)
{
	if ((uint64_t)pdc_cur_left(c) < n)
		return false;
	*out = c->p;
	c->p += n;
	return true;
}

static inline bool pdc_cur_skip(struct pdc_cur *c, uint64_t n)
{
	const unsigned char *p;

	return pdc_cur_take(c, n, &p);
}

static inline bool pdc_cur_u8(struct pdc_cur *c, uint8_t *v)
{
	const unsigned char *p;

	if (!pdc_cur_take(c, 1, &p))
		return false;
	*v = *p;
	return true;
}

static inline bool pdc_cur_u16(struct pdc_cur *c, uint16_t *v)
{
	const unsigned char *p;

	if (!pdc_cur_take(c, 2, &p))
		return false;
	*v = pd_load_u16(p, c->swap);
	return true;
}

static inline bool pdc_cur_u32(struct pdc_cur *c, uint32_t *v)
{
	const unsigned char *p;

	if (!pdc_cur_take(c, 4, &p))
		return false;
	*v = pd_load_u32(p, c->swap);
	return true;
}

static inline bool pdc_cur_u64(struct pdc_cur *c, uint64_t *v)
{
	const unsigned char *p;

	if (!pdc_cur_take(c, 8, &p))
		return false;
	*v = pd_load_u64(p, c->swap);
	return true;
}

/*
 * LEB128 (DWARF's ULEB128/SLEB128, protobuf's varint, the unwind spool's
 * deltas): 7 bits a byte, low first, the top bit set on every byte but
 * the last.  A value takes at most PDC_LEB_MAX bytes; the 10th byte's
 * bits past bit 63 are dropped, as libdw and protobuf drop them, and an
 * overlong encoding (0x80 0x00 for 0) is taken as its value: DWARF
 * producers pad with them.  A take fails, the cursor unmoved, when the
 * bytes end before the last byte or the value runs past PDC_LEB_MAX.
 */
#define PDC_LEB_MAX 10

static inline bool pdc_cur_uleb(struct pdc_cur *c, uint64_t *v)
{
	const size_t left = pdc_cur_left(c);
	uint64_t x = 0;

	for (size_t n = 0; n < left && n < PDC_LEB_MAX; n++) {
		const unsigned char b = c->p[n];

		x |= (uint64_t)(b & 0x7f) << (7 * n);
		if (!(b & 0x80)) {
			c->p += n + 1;
			*v = x;
			return true;
		}
	}
	return false;
}

/* The signed form: the last byte's 0x40 bit extends the sign. */
static inline bool pdc_cur_sleb(struct pdc_cur *c, int64_t *v)
{
	const unsigned char *const at = c->p;
	uint64_t x;
	unsigned shift;

	if (!pdc_cur_uleb(c, &x))
		return false;
	shift = 7 * (unsigned)(c->p - at);
	if (shift < 64 && (c->p[-1] & 0x40))
		x |= ~(uint64_t)0 << shift;
	*v = (int64_t)x;
	return true;
}

/* v as ULEB128 into out (PDC_LEB_MAX bytes of room); its bytes. */
static inline size_t pdc_uleb_put(unsigned char *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

#endif /* PDC_CUR_H */
