/*
 * testrng.h - the reproducible random stream of the randomized unit tests
 * (check_stacktree.c, check_symtree.c): xorshift64, seeded by the test.
 */
#ifndef TESTRNG_H
#define TESTRNG_H

#include <stdint.h>

/* The next value of the stream at *state (never 0 if seeded non-zero). */
static inline uint64_t tr_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif /* TESTRNG_H */
