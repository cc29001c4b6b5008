/*
 * recwork.c - a fixed amount of work for bench/record.sh: how much
 * longer it takes under a recorder is the recorder's overhead, which a
 * program that runs for a set time (workload.c) cannot show.
 *
 *	recwork ROUNDS THREADS
 *
 * Each thread makes ROUNDS calls of a recursion 4 to 35 frames deep with
 * arithmetic at every level, so that `-g` walks callchains as deep as
 * real programs' (workload.c's shape, bounded by work instead of time).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static long rounds;

static uint64_t level(uint64_t x, int depth)
{
	for (int i = 0; i < 64; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	if (depth > 0)
		x ^= level(x, depth - 1);
	return x;
}

static void *worker(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg + 1, sum = 0;

	for (long r = 0; r < rounds; r++) {
		sum += level(x, 4 + (int)(x >> 59) % 32);
		x = x * 2862933555777941757ull + 3037000493ull;
	}
	return (void *)(uintptr_t)(sum & 1);
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int nr;

	if (argc != 3) {
		fprintf(stderr, "usage: recwork ROUNDS THREADS\n");
		return 2;
	}
	rounds = strtol(argv[1], NULL, 10);
	nr = (int)strtol(argv[2], NULL, 10);
	if (rounds < 1 || nr < 1 || nr > 64) {
		fprintf(stderr, "recwork: ROUNDS >= 1, 1 <= THREADS <= 64\n");
		return 2;
	}
	for (int i = 0; i < nr; i++)
		if (pthread_create(&t[i], NULL, worker,
				   (void *)(uintptr_t)(i * 7919)) != 0) {
			perror("recwork: pthread_create");
			return 1;
		}
	for (int i = 0; i < nr; i++)
		pthread_join(t[i], NULL);
	return 0;
}
