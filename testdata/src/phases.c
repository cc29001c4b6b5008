/*
 * phases.c - a workload with phases of known parallelism, for latency
 * profiles (testdata/phases.md): serial() alone, then two threads in
 * pair(), then four threads in quad() on however many CPUs there are,
 * each phase spinning for MS milliseconds of wall-clock time.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static long ms = 100;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spin until ms milliseconds after start; noinline so each phase keeps
 * its own frame. */
static __attribute__((noinline)) unsigned long spin(double start)
{
	volatile unsigned long x = 0;

	while (now() - start < ms / 1000.0)
		x++;
	return x;
}

static __attribute__((noinline)) void *pair(void *arg)
{
	spin(*(double *)arg);
	return NULL;
}

static __attribute__((noinline)) void *quad(void *arg)
{
	spin(*(double *)arg);
	return NULL;
}

static __attribute__((noinline)) void serial(double start)
{
	spin(start);
}

static void phase(void *(*fn)(void *), int nr)
{
	pthread_t t[4];
	double start = now();

	for (int i = 0; i < nr; i++)
		pthread_create(&t[i], NULL, fn, &start);
	for (int i = 0; i < nr; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		ms = atol(argv[1]);
	serial(now());
	phase(pair, 2);
	phase(quad, 4);
	return 0;
}
