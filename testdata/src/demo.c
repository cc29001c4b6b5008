/*
 * demo.c - the CPU-bound program behind the testdata captures.
 *
 * main() starts two worker threads and works itself; every thread spends
 * its time in a small tree of nested functions (walk -> mix -> hash_block /
 * sum_squares), so the callchains have a known shape for fold and flame
 * tests.  It runs for the number of milliseconds given as argv[1] (default
 * 1000), measured on CLOCK_MONOTONIC, so a capture's size depends on the
 * sampling frequency and that duration, not on the machine's speed.
 *
 * Built with -O1 -g -fno-omit-frame-pointer (see testdata/record.sh); the
 * noinline attributes keep every level a real frame at -O1.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

NOINLINE static uint64_t hash_block(uint64_t seed, unsigned rounds)
{
	uint64_t h = seed ^ 0xcbf29ce484222325ull;

	for (unsigned i = 0; i < rounds; i++) {
		h ^= i;
		h *= 0x100000001b3ull;
	}
	return h;
}

NOINLINE static uint64_t sum_squares(uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += i * i;
	return s;
}

NOINLINE static uint64_t mix(uint64_t seed)
{
	/* two thirds hashing, one third arithmetic: a visible 2:1 split */
	return hash_block(seed, 40000) + hash_block(seed + 1, 40000) +
	       sum_squares(40000 + (seed & 1));
}

NOINLINE static uint64_t walk(uint64_t seed, int depth)
{
	if (depth > 0)
		return walk(seed * 31 + 7, depth - 1);
	return mix(seed);
}

struct work {
	uint64_t deadline_ms;
	uint64_t seed;
	int depth;
};

NOINLINE static void *worker(void *arg)
{
	const struct work *w = arg;
	uint64_t acc = 0;

	while (now_ms() < w->deadline_ms)
		acc += walk(w->seed + acc, w->depth);
	sink = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	long duration_ms = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	struct work works[3];
	pthread_t threads[2];
	uint64_t deadline;

	if (duration_ms <= 0 || duration_ms > 60000) {
		fprintf(stderr, "usage: demo [milliseconds (1..60000)]\n");
		return 64;
	}
	deadline = now_ms() + (uint64_t)duration_ms;
	for (int i = 0; i < 3; i++) {
		works[i].deadline_ms = deadline;
		works[i].seed = (uint64_t)i + 1;
		works[i].depth = i + 1;	/* 1, 2, 3 levels of walk() */
	}
	for (int i = 0; i < 2; i++)
		if (pthread_create(&threads[i], NULL, worker, &works[i + 1])) {
			fprintf(stderr, "demo: cannot create a thread\n");
			return 1;
		}
	worker(&works[0]);
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	printf("%llu\n", (unsigned long long)(sink & 0xff));
	return 0;
}
