/*
 * memwatch.c - run a command and report what /usr/bin/time -f '%M %U %S'
 * reports, plus its peak anonymous memory:
 *
 *	memwatch OUT CMD [ARG...]
 *
 * writes "maxrss_kb user_s sys_s anon_kb" to OUT and exits with CMD's
 * status.  Peak RSS counts the pages of a mapped capture, which the page
 * cache holds anyway and the kernel may take back; anonymous memory
 * (RssAnon) is what a reader really holds, and what grows when it keeps
 * records (issue 14).  Linux keeps no peak of RssAnon, so it is read from
 * /proc every millisecond and summed over CMD's process tree (a shell
 * pipeline's commands too); a peak shorter than that can be missed.
 * Polling costs the command a little of a shared CPU; the bench reports
 * the CPU time the command itself used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 256

/* pid's RssAnon in KB, 0 once it is gone. */
static long rss_anon(pid_t pid)
{
	char path[64], line[256];
	long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Appends pid's children (of every thread) to list; returns its length. */
static size_t children(pid_t pid, pid_t *list, size_t n)
{
	char path[64];
	FILE *f;
	int c;

	/* the main thread's children: a pipeline's shell forks from it */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	f = fopen(path, "r");
	if (!f)
		return n;
	while (n < MAX_PROCS && fscanf(f, "%d", &c) == 1)
		list[n++] = (pid_t)c;
	fclose(f);
	return n;
}

/* The RssAnon of root and its descendants, in KB. */
static long tree_anon(pid_t root)
{
	pid_t list[MAX_PROCS];
	size_t n = 1;
	long kb = 0;

	list[0] = root;
	for (size_t i = 0; i < n; i++) {
		kb += rss_anon(list[i]);
		n = children(list[i], list, n);
	}
	return kb;
}

int main(int argc, char **argv)
{
	const struct timespec tick = {0, 1000000};
	struct rusage ru;
	long peak = 0;
	pid_t pid;
	int status;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: memwatch OUT CMD [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("memwatch: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "memwatch: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	for (;;) {
		pid_t w = wait4(pid, &status, WNOHANG, &ru);
		long kb;

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			perror("memwatch: wait4");
			return 2;
		}
		kb = tree_anon(pid);
		if (kb > peak)
			peak = kb;
		nanosleep(&tick, NULL);
	}
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 2;
	}
	/* the command's own peak RSS and CPU, its children's included, as
	 * time(1) gives them */
	getrusage(RUSAGE_CHILDREN, &ru);
	fprintf(out, "%ld %.3f %.3f %ld\n", ru.ru_maxrss,
		(double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, peak);
	fclose(out);
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
