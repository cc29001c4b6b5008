/*
 * offcpu.c - a workload that waits for known times, for off-CPU profiles
 * (testdata/offcpu.md): the main thread spins briefly in each of three
 * functions and then waits in it: sleep_wait() sleeps MS ms, lock_wait()
 * blocks on a mutex a helper thread holds for 0.8 * MS ms, pipe_wait()
 * reads a pipe a helper thread writes to after 0.6 * MS ms.  The spin
 * before each wait puts the thread's last sample before it switches out
 * in the waiting function, which off-CPU time is charged to.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long ms = 100;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static int held;
static int fds[2];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap(double seconds)
{
	struct timespec ts = {(time_t)seconds,
			      (long)((seconds - (time_t)seconds) * 1e9)};

	nanosleep(&ts, NULL);
}

/* Spin for a fifth of MS milliseconds: samples in the caller's frame. */
static __attribute__((noinline)) unsigned long spin(void)
{
	volatile unsigned long x = 0;
	const double start = now();

	while (now() - start < ms / 5000.0)
		x++;
	return x;
}

static __attribute__((noinline)) void sleep_wait(void)
{
	spin();
	nap(ms / 1000.0);
}

static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	pthread_mutex_lock(&ready_lock);
	held = 1;
	pthread_cond_signal(&ready);
	pthread_mutex_unlock(&ready_lock);
	nap(0.8 * ms / 1000.0);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static __attribute__((noinline)) void lock_wait(void)
{
	pthread_t t;

	pthread_create(&t, NULL, holder, NULL);
	pthread_mutex_lock(&ready_lock);
	while (!held)
		pthread_cond_wait(&ready, &ready_lock);
	pthread_mutex_unlock(&ready_lock);
	spin();
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
}

static void *writer(void *arg)
{
	(void)arg;
	nap(0.6 * ms / 1000.0);
	if (write(fds[1], "x", 1) != 1)
		abort();
	return NULL;
}

static __attribute__((noinline)) void pipe_wait(void)
{
	pthread_t t;
	char c;

	if (pipe(fds) != 0)
		abort();
	pthread_create(&t, NULL, writer, NULL);
	spin();
	if (read(fds[0], &c, 1) != 1)
		abort();
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		ms = atol(argv[1]);
	sleep_wait();
	lock_wait();
	pipe_wait();
	return 0;
}
