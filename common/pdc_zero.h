/*
 * pdc_zero.h - zeroing a struct of a constant size on a hot path in
 * 16-byte stores of a zeroed register: GCC makes one memset() of more
 * than about 128 bytes a `rep stos` (a slow start on most cores, and an
 * instruction per 8 bytes), where memsets of 64 bytes each are inlined.
 *
 *	pdc_zero(s, sizeof(*s));
 */
#ifndef PDC_ZERO_H
#define PDC_ZERO_H

#include <stddef.h>
#include <string.h>

/* n bytes at p to zero; n a constant, for the loop to unroll */
static inline void pdc_zero(void *p, size_t n)
{
	unsigned char *b = p;

#pragma GCC unroll 8
	for (; n >= 64; n -= 64, b += 64)
		memset(b, 0, 64);
	memset(b, 0, n);
}

#endif /* PDC_ZERO_H */
