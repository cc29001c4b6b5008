/*
 * pda_debuginfod.c - asking debuginfod servers (libdebuginfod, the URLs
 * of DEBUGINFOD_URLS) for the binaries and debug files not found
 * otherwise, within limits (issue 11).
 *
 * A query sends a build-id from the capture (or from a binary's
 * .gnu_debugaltlink) to every server listed, and libdebuginfod keeps what
 * comes back in its cache ($DEBUGINFOD_CACHE_PATH, else
 * $XDG_CACHE_HOME/debuginfod_client or ~/.cache/debuginfod_client), as it
 * keeps a note of a file not found.  So a capture's build-ids leave this
 * host, and a server that does not answer would hold the run for as long
 * as libdebuginfod waits (DEBUGINFOD_TIMEOUT, 90 s a request by default,
 * two requests a binary).  Hence:
 *
 *   - no query with --symfs unless asked (opts.debuginfod), none with
 *     --no-debuginfod, none without DEBUGINFOD_URLS;
 *   - at most opts.debuginfod_max_queries queries, and at most
 *     opts.debuginfod_max_ms spent in them, per session: libdebuginfod's
 *     progress callback, called about once a second while a query runs,
 *     stops the query under way at that point (its non-zero return), and
 *     later ones are not made, but counted;
 *   - the caller sees each query's progress (opts.fetch_progress) and,
 *     in pda_session_stats(), what was asked and what was fetched where.
 */
#include "pda_machine_int.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FETCHED_MAX 4096 /* files listed in the stats */
#define LIBDEBUGINFOD "libdebuginfod.so.1"

/*
 * libdebuginfod, loaded when a session first asks a server: linked, it
 * loads libcurl and its TLS, Kerberos and LDAP libraries (28 of pdtool's
 * 42) into every run, 8 ms before anything is read, for the few runs
 * that ask (libdw loads it the same way).
 */
struct pda_dbgf {
	void *handle;
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int,
			       char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int,
			      char **);
	void (*set_user_data)(debuginfod_client *, void *);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
};

/* The library's functions into *api.  @return 0, or PD_ERR_NOTFOUND (the
 * library or a function is missing: *why says which) or NOMEM. */
static int dbgf_load(struct pda_session *s, struct pda_dbgf **api,
		     const char **why)
{
	struct pda_dbgf *a = pda_zalloc(s, sizeof(*a));
	void *h;

	*api = NULL;
	if (!a)
		return PD_ERR_NOMEM;
	/*
	 * never unloaded: libcurl's global state, made on first use, would
	 * be lost with it (and LeakSanitizer says so), and a second session
	 * would make it again
	 */
	h = dlopen(LIBDEBUGINFOD, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!h) {
		pda_free(s, a);
		*why = "debuginfod: " LIBDEBUGINFOD " not found";
		return PD_ERR_NOTFOUND;
	}
	/* POSIX's way from a data pointer to a function pointer */
	*(void **)(&a->begin) = dlsym(h, "debuginfod_begin");
	*(void **)(&a->end) = dlsym(h, "debuginfod_end");
	*(void **)(&a->find_executable) =
		dlsym(h, "debuginfod_find_executable");
	*(void **)(&a->find_debuginfo) = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)(&a->set_user_data) = dlsym(h, "debuginfod_set_user_data");
	*(void **)(&a->set_progressfn) = dlsym(h, "debuginfod_set_progressfn");
	a->handle = h;
	if (!a->begin || !a->end || !a->find_executable ||
	    !a->find_debuginfo || !a->set_user_data || !a->set_progressfn) {
		dlclose(h);
		pda_free(s, a);
		*why = "debuginfod: " LIBDEBUGINFOD " lacks a function";
		return PD_ERR_NOTFOUND;
	}
	*api = a;
	return 0;
}

/*
 * The session a client was made for (debuginfod_get_user_data), from
 * the callback that has nothing else: the library is loaded, so
 * RTLD_NOLOAD finds it without loading.
 */
static struct pda_session *c_user_data(debuginfod_client *c)
{
	void *(*get)(debuginfod_client *) = NULL;
	void *h = dlopen(LIBDEBUGINFOD, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	struct pda_session *s = NULL;

	if (!h)
		return NULL;
	*(void **)(&get) = dlsym(h, "debuginfod_get_user_data");
	if (get)
		s = get(c);
	dlclose(h);
	return s;
}

static const char *const what_names[] = {
	[PDA_FETCH_EXECUTABLE] = "executable",
	[PDA_FETCH_DEBUGINFO] = "debuginfo",
	[PDA_FETCH_ALT] = "alt debuginfo",
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static unsigned max_queries(const struct pda_session *s)
{
	return s->opts.debuginfod_max_queries
		       ? s->opts.debuginfod_max_queries
		       : PDA_DEBUGINFOD_MAX_QUERIES;
}

static uint64_t max_ms(const struct pda_session *s)
{
	return s->opts.debuginfod_max_ms ? s->opts.debuginfod_max_ms
					 : PDA_DEBUGINFOD_MAX_MS;
}

static const char *urls(const struct pda_session *s)
{
	const char *u = getenv("DEBUGINFOD_URLS");

	if (s->opts.no_debuginfod || !u || !*u)
		return NULL;
	/* a sysroot is another host's files: its build-ids go out only
	 * when the user says so */
	return !s->dsos.symfs || s->opts.debuginfod ? u : NULL;
}

/* libdebuginfod's progress callback: a, the bytes received once a server
 * sends the file (before, a count of calls); b, their total, or 0. */
static int on_progress(debuginfod_client *c, long a, long b)
{
	struct pda_session *s = c_user_data(c);
	struct pda_fetch *f;
	const uint64_t t = now_ms();

	if (!s)
		return 0;
	f = &s->dsos.fetch;
	if (t >= f->deadline) {
		f->stopped = true;
		return 1;
	}
	if (s->opts.fetch_progress) {
		f->now.done = b > 0 && a > 0 ? (uint64_t)a : 0;
		f->now.total = b > 0 ? (uint64_t)b : 0;
		f->now.ms = t - f->start;
		s->opts.fetch_progress(s->opts.fetch_arg, &f->now);
	}
	return 0;
}

/*
 * Note a file debuginfod gave, at path (CACHE/BUILDID/what: its cache is
 * CACHE) open as fd.  0 or NOMEM.
 */
static int fetched(struct pda_session *s, struct pda_dso_ent *d,
		   const char *what, const char *path, int fd)
{
	struct pda_fetch *f = &s->dsos.fetch;
	const char *end = strrchr(path, '/');
	struct pda_fetched *e;
	struct stat st;
	uint64_t size = 0;

	if (fstat(fd, &st) == 0 && st.st_size > 0)
		size = (uint64_t)st.st_size;
	f->st.nr_found++;
	f->st.bytes += size;
	while (end && end > path && end[-1] != '/')
		end--;
	if (!f->st.cache && end && end - 1 > path &&
	    !(f->st.cache = pda_intern(s, path, (size_t)(end - 1 - path))))
		return PD_ERR_NOMEM;
	if (f->st.nr_fetched == FETCHED_MAX)
		return 0;
	if (PDA_GROW(s, f->list, f->alloc, f->st.nr_fetched + 1, FETCHED_MAX) <
	    0)
		return PD_ERR_NOMEM;
	e = &f->list[f->st.nr_fetched];
	e->dso = d->d.name;
	e->what = what;
	e->size = size;
	e->path = pda_intern(s, path, strlen(path));
	if (!e->path)
		return PD_ERR_NOMEM;
	f->st.nr_fetched++;
	f->st.fetched = f->list;
	return 0;
}

int pda_debuginfod_fetch(struct pda_session *s, struct pda_dso_ent *d,
			 const unsigned char *id, unsigned size,
			 enum pda_fetch_kind kind, char **path)
{
	struct pda_fetch *f = &s->dsos.fetch;
	const char *what = what_names[kind];
	char why[96];
	uint64_t t;
	int fd, rc;

	*path = NULL;
	if (!size || !urls(s))
		return 0;
	if (f->st.nr_queries >= max_queries(s) || f->st.ms >= max_ms(s)) {
		f->st.query_limit |= f->st.nr_queries >= max_queries(s);
		f->st.time_limit |= f->st.ms >= max_ms(s);
		f->st.nr_skipped++;
		snprintf(why, sizeof(why), "debuginfod %s: not asked (%s limit)",
			 what, f->st.time_limit ? "time" : "query");
		return pda_dso_tried(s, d, why, NULL);
	}
	if (!f->api && !f->no_api) {
		const char *no;

		rc = dbgf_load(s, &f->api, &no);
		if (rc == PD_ERR_NOMEM)
			return rc;
		if (rc < 0) {
			f->no_api = no;
			pda_logf(s, PD_LOG_WARN, "%s: no server is asked", no);
		}
	}
	if (!f->api) {
		d->fetch_err = f->no_api;
		return pda_dso_tried(s, d, f->no_api, NULL);
	}
	if (!f->client) {
		f->client = f->api->begin();
		if (!f->client) {
			d->fetch_err = "debuginfod: no client";
			return pda_dso_tried(s, d, "debuginfod: no client",
					     NULL);
		}
		f->api->set_user_data(f->client, s);
		f->api->set_progressfn(f->client, on_progress);
	}
	if (!f->st.urls &&
	    !(f->st.urls = pda_intern(s, urls(s), strlen(urls(s)))))
		return PD_ERR_NOMEM;
	f->start = now_ms();
	f->deadline = f->start + (max_ms(s) - f->st.ms);
	f->stopped = false;
	f->now.dso = d->d.name;
	f->now.what = what;
	f->now.done = f->now.total = f->now.ms = 0;
	f->now.finished = false;
	fd = kind == PDA_FETCH_EXECUTABLE
		     ? f->api->find_executable(f->client, id, (int)size, path)
		     : f->api->find_debuginfo(f->client, id, (int)size, path);
	t = now_ms();
	f->st.nr_queries++;
	f->st.ms += t - f->start;
	if (f->st.ms >= max_ms(s))
		f->st.time_limit = true;
	if (s->opts.fetch_progress) {
		f->now.ms = t - f->start;
		f->now.finished = true;
		s->opts.fetch_progress(s->opts.fetch_arg, &f->now);
	}
	if (fd < 0) {
		*path = NULL;
		if (f->stopped) {
			f->st.nr_stopped++;
			snprintf(why, sizeof(why),
				 "debuginfod %s: stopped at the time limit",
				 what);
		} else {
			f->st.nr_failed++;
			snprintf(why, sizeof(why), "debuginfod %s: %s", what,
				 strerror(-fd));
		}
		/* a server that answered "no such file" did its job; any
		 * other failure is the user's to fix (pda_dso_diagnose) */
		if (fd != -ENOENT && !d->fetch_err &&
		    !(d->fetch_err = pda_intern(s, why, strlen(why))))
			return PD_ERR_NOMEM;
		return pda_dso_tried(s, d, why, NULL);
	}
	rc = fetched(s, d, what, *path, fd);
	close(fd);
	if (rc < 0) {
		free(*path); /* libdebuginfod's malloc */
		*path = NULL;
	}
	return rc;
}

void pda_debuginfod_stats(const struct pda_session *s,
			  struct pda_fetch_stats *out)
{
	*out = s->dsos.fetch.st;
}

void pda_debuginfod_release(struct pda_session *s)
{
	struct pda_fetch *f = &s->dsos.fetch;

	if (f->client)
		f->api->end(f->client);
	if (f->api) {
		dlclose(f->api->handle);
		pda_free(s, f->api);
	}
	pda_free(s, f->list);
	memset(f, 0, sizeof(*f));
}
