/*
 * workload.c - a busy multi-threaded program for bench/run.sh to record.
 *
 *	workload SECONDS THREADS
 *
 * Each thread recurses to a depth that varies from call to call and does
 * some arithmetic and memory work at every level, so that a sampled
 * callchain is between a few and about 40 frames deep, as in real
 * programs.  Built with frame pointers so `perf record -g` can walk it.
 */
#define _DEFAULT_SOURCE 1

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile int stop;
static struct timespec deadline;

static int past_deadline(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec > deadline.tv_sec ||
	       (ts.tv_sec == deadline.tv_sec && ts.tv_nsec >= deadline.tv_nsec);
}

static uint64_t mix(uint64_t v)
{
	v ^= v >> 31;
	v *= 0x7fb5d329728ea185ull;
	return v ^ (v >> 27);
}

static uint64_t __attribute__((noinline)) leaf(uint64_t v, unsigned char *buf)
{
	for (int i = 0; i < 64; i++) {
		v = mix(v + (uint64_t)i);
		buf[v & 4095] ^= (unsigned char)v;
	}
	return v;
}

static uint64_t __attribute__((noinline))
descend_a(uint64_t v, int depth, unsigned char *buf);

static uint64_t __attribute__((noinline))
descend_b(uint64_t v, int depth, unsigned char *buf)
{
	v = leaf(v, buf);
	if (depth <= 0)
		return v;
	return descend_a(v ^ 0x55, depth - 1, buf) + 1;
}

static uint64_t __attribute__((noinline))
descend_a(uint64_t v, int depth, unsigned char *buf)
{
	v = leaf(v, buf);
	if (depth <= 0)
		return v;
	if (v & 1)
		return descend_b(v, depth - 1, buf) + 1;
	return descend_a(v, depth - 1, buf) + 1;
}

static void *worker(void *arg)
{
	unsigned char *buf = calloc(1, 4096);
	uint64_t v = (uint64_t)(uintptr_t)arg + 1, sum = 0;

	if (!buf)
		return NULL;
	/* each thread watches the clock too: a sampling storm can delay
	 * the main thread's wake-up by minutes */
	for (unsigned n = 0; !stop; n++) {
		v = mix(v);
		sum += descend_a(v, (int)(v % 40), buf);
		if (n % 256 == 0 && past_deadline())
			break;
	}
	free(buf);
	return (void *)(uintptr_t)sum;
}

int main(int argc, char **argv)
{
	pthread_t tids[64];
	struct timespec ts;
	int secs, nr;

	if (argc != 3) {
		fprintf(stderr, "usage: workload SECONDS THREADS\n");
		return 64;
	}
	secs = (int)strtol(argv[1], NULL, 10);
	nr = (int)strtol(argv[2], NULL, 10);
	if (secs < 1 || nr < 1 || nr > 64) {
		fprintf(stderr, "workload: 1 <= THREADS <= 64, SECONDS >= 1\n");
		return 64;
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += secs;
	for (int i = 0; i < nr; i++)
		if (pthread_create(&tids[i], NULL, worker,
				   (void *)(uintptr_t)i) != 0) {
			perror("workload: pthread_create");
			return 1;
		}
	ts.tv_sec = secs;
	ts.tv_nsec = 0;
	nanosleep(&ts, NULL);
	stop = 1;
	for (int i = 0; i < nr; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
