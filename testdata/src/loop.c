/*
 * loop.c - a small program with a hot loop, an inlined helper and a call,
 * for pdtool annotate's cross-architecture test: built for aarch64 by
 * testdata/record.sh (aarch64-linux-gnu-gcc) into bin/loop-aarch64 and
 * annotated from a capture that tests/gen/pd_arch_synth.py writes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) uint64_t mix(uint64_t h,
							  uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ull;
	return h ^ (h >> 29);
}

__attribute__((noinline)) static uint64_t checksum(const uint32_t *v,
						   size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = mix(h, v[i]);
	return h;
}

__attribute__((noinline)) static void fill(uint32_t *v, size_t n,
					   uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = seed >> 8;
	}
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 4096;
	uint32_t *v = calloc(n, sizeof(*v));
	uint64_t h = 0;

	if (!v)
		return 1;
	for (unsigned round = 0; round < 1000; round++) {
		fill(v, n, round);
		h += checksum(v, n);
	}
	printf("%llx\n", (unsigned long long)h);
	free(v);
	return 0;
}
