/*
 * replay.c - the fuzz regression driver behind `make check-fuzz` (STYLE
 * T7): runs each target's fuzz_NAME() (fuzz.h) on every file of its
 * inputs, without libFuzzer, so the crashes found once stay fixed and the
 * fixtures (testdata/, testdata/corrupt/) go through the same checks.
 *
 *	replay [-v] CORPUS... [NAME=DIR|FILE]...
 *	replay -l
 *
 * CORPUS is a directory with one subdirectory per target
 * (tests/fuzz/corpus/reader/, .../folded/, ...): each is replayed through
 * the target of its name, and a subdirectory or file named after no
 * target is an error, so that no saved input goes unreplayed.
 * NAME=PATH replays PATH (a seed directory such as testdata/) through
 * target NAME.  -l lists the targets.
 *
 * Directories are walked recursively in name order; a missing one is
 * skipped with a note.  A file ending in .zst is decompressed first (the
 * fixtures over 64 KiB are kept compressed).  Each input runs in a child
 * process, so one failure (a CHECK, a sanitizer report, a signal, a hang
 * past REPLAY_TIMEOUT seconds) is reported by name and the others still
 * run.
 *
 * Out-of-memory injection (fuzz.h) is set by FUZZ_OOM: "off", "sampled"
 * (as under libFuzzer) or "sweep" (every allocation of each input up to
 * FUZZ_OOM_SWEEP_MAX bytes, default 64 KiB, fails once in turn).  The
 * default is REPLAY_OOM_DEFAULT below.
 *
 * Prints "fuzz replay: N inputs, F failures"; exits 1 when F > 0, 64 on
 * a usage error (an unknown target).
 */
#include "pd_config.h"

#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#define REPLAY_MAX_INPUT ((size_t)1 << 30)
#define DEFAULT_TIMEOUT 300
#define DEFAULT_SWEEP_MAX (64 * 1024)

/*
 * "sweep": every allocation of each input fails once in turn, so each
 * out-of-memory path is taken on every input (about 50 ms in all).  The
 * inputs libFuzzer found with it are kept in tests/fuzz/corpus/reader/
 * (oom-*, crash-*): the ids leak in read_attrs(), the NOMEM dropped by
 * pd_file_apply_event_desc(), and zstd allocation failures reported as
 * damage instead of PD_ERR_NOMEM.
 */
#define REPLAY_OOM_DEFAULT "sweep"

struct target {
	const char *name;
	int (*fn)(const uint8_t *data, size_t size);
};

#define FUZZ_ENTRY(name) {#name, fuzz_##name},
static const struct target targets[] = {FUZZ_TARGETS(FUZZ_ENTRY)};
#undef FUZZ_ENTRY
#define NR_TARGETS (sizeof(targets) / sizeof(targets[0]))

static const struct target *target_named(const char *name, size_t len)
{
	for (size_t i = 0; i < NR_TARGETS; i++)
		if (strlen(targets[i].name) == len &&
		    memcmp(targets[i].name, name, len) == 0)
			return &targets[i];
	return NULL;
}

/* Inputs, each with the target it goes through. */
struct paths {
	char **v;
	const struct target **t;
	size_t nr, alloc;
};

static void *grow_or_die(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		fprintf(stderr, "replay: out of memory\n");
		exit(2);
	}
	return p;
}

static void paths_add(struct paths *ps, const char *path,
		      const struct target *t)
{
	if (ps->nr == ps->alloc) {
		size_t n = ps->alloc ? ps->alloc * 2 : 64;

		ps->v = grow_or_die(ps->v, n * sizeof(*ps->v));
		ps->t = grow_or_die(ps->t, n * sizeof(*ps->t));
		ps->alloc = n;
	}
	ps->v[ps->nr] = strdup(path);
	if (!ps->v[ps->nr]) {
		fprintf(stderr, "replay: out of memory\n");
		exit(2);
	}
	ps->t[ps->nr] = t;
	ps->nr++;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of directory path (no dot files), sorted, into names. */
static void list_dir(const char *path, struct paths *names)
{
	struct dirent *de;
	DIR *dir = opendir(path);

	if (!dir) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path,
			strerror(errno));
		exit(2);
	}
	while ((de = readdir(dir)) != NULL) {
		char buf[4096];

		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", path,
				     de->d_name) >= sizeof(buf))
			continue;
		paths_add(names, buf, NULL);
	}
	closedir(dir);
	if (names->nr)
		qsort(names->v, names->nr, sizeof(*names->v), cmp_str);
}

static void collect(struct paths *ps, const char *path, const struct target *t,
		    int top)
{
	struct stat st;
	struct paths sub = {0};

	if (stat(path, &st) < 0) {
		if (top)
			printf("fuzz replay: '%s' is absent, skipped\n", path);
		return;
	}
	if (S_ISREG(st.st_mode)) {
		paths_add(ps, path, t);
		return;
	}
	if (!S_ISDIR(st.st_mode))
		return;
	list_dir(path, &sub);
	for (size_t i = 0; i < sub.nr; i++) {
		collect(ps, sub.v[i], t, 0);
		free(sub.v[i]);
	}
	free(sub.v);
	free(sub.t);
}

/* A corpus root: each subdirectory through the target it names.
 * @return 0, or -1 for an entry that names no target. */
static int collect_corpus(struct paths *ps, const char *root)
{
	struct paths sub = {0};
	struct stat st;
	int rc = 0;

	if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "replay: '%s' is not a directory\n", root);
		return -1;
	}
	list_dir(root, &sub);
	for (size_t i = 0; i < sub.nr; i++) {
		const char *name = strrchr(sub.v[i], '/') + 1;
		const struct target *t = target_named(name, strlen(name));

		if (!t || stat(sub.v[i], &st) < 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr,
				"replay: '%s' is not the directory of a "
				"target (replay -l lists them)\n",
				sub.v[i]);
			rc = -1;
		} else {
			collect(ps, sub.v[i], t, 1);
		}
		free(sub.v[i]);
	}
	free(sub.v);
	free(sub.t);
	return rc;
}

/* @return 0 and the bytes (NULL when empty), or -1 */
static int read_file(const char *path, unsigned char **out, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0;
	int rc = 0;

	*out = NULL;
	*len = 0;
	if (!fp)
		return -1;
	for (;;) {
		size_t got;

		if (n == cap) {
			unsigned char *nb;

			cap = cap ? cap * 2 : 65536;
			nb = cap <= REPLAY_MAX_INPUT ? realloc(buf, cap) : NULL;
			if (!nb) {
				rc = -1;
				break;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, fp);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(fp))
		rc = -1;
	fclose(fp);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*out = buf;
	*len = n;
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* A .zst fixture, decompressed; NULL when it is not a zstd stream. */
static unsigned char *unzstd(const unsigned char *src, size_t len,
			     size_t *out_len)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer in = {src, len, 0};
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!ds)
		return NULL;
	ZSTD_initDStream(ds);
	for (;;) {
		ZSTD_outBuffer out;
		size_t ret;

		if (n == cap) {
			unsigned char *nb;

			cap = cap ? cap * 2 : 1 << 20;
			nb = cap <= REPLAY_MAX_INPUT ? realloc(buf, cap) : NULL;
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		out.dst = buf + n;
		out.size = cap - n;
		out.pos = 0;
		ret = ZSTD_decompressStream(ds, &out, &in);
		n += out.pos;
		if (ZSTD_isError(ret)) {
			free(buf);
			buf = NULL;
			break;
		}
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	ZSTD_freeDStream(ds);
	*out_len = n;
	return buf;
}

/* Run one input in a child.  @return 0 pass, 1 fail. */
static int replay_one(const char *path, const struct target *t,
		      unsigned timeout, int verbose)
{
	unsigned char *raw, *data;
	size_t len, data_len;
	pid_t pid;
	int status;

	if (read_file(path, &raw, &len) < 0) {
		printf("FAIL %s: cannot read it\n", path);
		return 1;
	}
	data = raw;
	data_len = len;
	if (ends_with(path, ".zst")) {
		unsigned char *plain = unzstd(raw, len, &data_len);

		if (plain) {
			data = plain;
		} else {
			data_len = len;
		}
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("replay: fork");
		exit(2);
	}
	if (pid == 0) {
		/* exact-size copy, so ASan sees reads past the end */
		unsigned char *exact = malloc(data_len ? data_len : 1);

		if (!exact)
			_exit(3);
		if (data_len)
			memcpy(exact, data, data_len);
		alarm(timeout);
		t->fn(exact, data_len);
		free(exact);
		exit(0);
	}
	if (data != raw)
		free(data);
	free(raw);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("replay: waitpid");
			exit(2);
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		if (verbose)
			printf("ok   %s %s (%zu bytes)\n", t->name, path,
			       data_len);
		return 0;
	}
	if (WIFSIGNALED(status))
		printf("FAIL %s %s: %s%s\n", t->name, path,
		       strsignal(WTERMSIG(status)),
		       WTERMSIG(status) == SIGALRM ? " (timed out)" : "");
	else
		printf("FAIL %s %s: exit status %d\n", t->name, path,
		       WEXITSTATUS(status));
	return 1;
}

int main(int argc, char **argv)
{
	struct paths ps = {0};
	unsigned timeout = DEFAULT_TIMEOUT;
	unsigned nr_failed = 0;
	const char *env;
	int verbose = 0, argi = 1;

	if (argi < argc && strcmp(argv[argi], "-l") == 0) {
		for (size_t i = 0; i < NR_TARGETS; i++)
			printf("%s\n", targets[i].name);
		return 0;
	}
	if (argi < argc && strcmp(argv[argi], "-v") == 0) {
		verbose = 1;
		argi++;
	}
	if (argi >= argc) {
		fprintf(stderr, "usage: replay [-v] CORPUS... "
				"[NAME=DIR|FILE]...\n"
				"       replay -l\n");
		return 64;
	}
	env = getenv("REPLAY_TIMEOUT");
	if (env && *env)
		timeout = (unsigned)strtoul(env, NULL, 10);
	env = getenv("FUZZ_OOM");
	if (!env || !*env)
		env = REPLAY_OOM_DEFAULT;
	if (strcmp(env, "off") == 0) {
		fuzz_oom = FUZZ_OOM_OFF;
	} else if (strcmp(env, "sampled") == 0) {
		fuzz_oom = FUZZ_OOM_SAMPLED;
	} else if (strcmp(env, "sweep") == 0) {
		fuzz_oom = FUZZ_OOM_SWEEP;
	} else {
		fprintf(stderr, "replay: FUZZ_OOM must be off, sampled or "
				"sweep\n");
		return 64;
	}
	env = getenv("FUZZ_OOM_SWEEP_MAX");
	fuzz_oom_sweep_max = env && *env ? (size_t)strtoull(env, NULL, 10)
					 : DEFAULT_SWEEP_MAX;
	for (int i = argi; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t before = ps.nr;

		if (!eq) {
			if (collect_corpus(&ps, argv[i]) < 0)
				return 64;
		} else if (!target_named(argv[i], (size_t)(eq - argv[i]))) {
			fprintf(stderr,
				"replay: no target '%.*s' (replay -l "
				"lists them)\n",
				(int)(eq - argv[i]), argv[i]);
			return 64;
		} else {
			collect(&ps, eq + 1,
				target_named(argv[i], (size_t)(eq - argv[i])),
				1);
		}
		/*
		 * testdata/corrupt is both named and inside testdata: each
		 * input runs once per target, where it was first found
		 */
		for (size_t j = before; j < ps.nr; j++)
			for (size_t k = 0; k < before; k++)
				if (ps.t[j] == ps.t[k] &&
				    strcmp(ps.v[j], ps.v[k]) == 0) {
					free(ps.v[j]);
					ps.nr--;
					ps.v[j] = ps.v[ps.nr];
					ps.t[j--] = ps.t[ps.nr];
					break;
				}
	}
	for (size_t i = 0; i < ps.nr; i++) {
		nr_failed += replay_one(ps.v[i], ps.t[i], timeout, verbose);
		free(ps.v[i]);
	}
	free(ps.v);
	free(ps.t);
	printf("fuzz replay: %zu inputs, %u failures (out-of-memory "
	       "injection: %s)\n",
	       ps.nr, nr_failed,
	       fuzz_oom == FUZZ_OOM_SWEEP     ? "sweep"
	       : fuzz_oom == FUZZ_OOM_SAMPLED ? "sampled"
					      : "off");
	return nr_failed ? 1 : 0;
}
