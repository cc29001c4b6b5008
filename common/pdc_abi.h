/*
 * pdc_abi.h - the pieces of libpd's public API (reader/pd.h) that common/
 * needs too: the allocation hooks and the file-order loads.  common/
 * includes nothing of ours, so they are defined here, once, and pd.h
 * includes this header to publish them under their public names.
 */
#ifndef PDC_ABI_H
#define PDC_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Allocation hooks.  All of the library's heap memory goes through them,
 * so tests can fail the Nth allocation.  Any hook left NULL uses libc.
 */
struct pd_alloc {
	void *(*malloc_fn)(void *arg, size_t size);
	void *(*realloc_fn)(void *arg, void *ptr, size_t size);
	void (*free_fn)(void *arg, void *ptr);
	void *arg;
};

/* Loads of file-order values; p need not be aligned. */
static inline uint64_t pd_load_u64(const void *p, int swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

static inline uint32_t pd_load_u32(const void *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint16_t pd_load_u16(const void *p, int swap)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap16(v) : v;
}

#endif /* PDC_ABI_H */
