/*
 * pda_stat.c - perf stat record's counters, totalled as perf 6.1's
 * `perf stat report` totals them (tools/perf/builtin-stat.c report side,
 * util/stat.c, util/stat-display.c, util/stat-shadow.c), so that the
 * counts, their scaling and the metrics printed beside them are perf's
 * to the last digit.
 *
 * What perf does, and so what this does:
 * - Each STAT record holds one (event, CPU, thread) counter's raw value,
 *   enabled and running time, cumulative since the start; a STAT_ROUND
 *   ends a round (an interval of -I, or the whole run).  A round counts
 *   what each counter gained since the previous round (perf 6.1's
 *   prev_raw_counts; --cumulative keeps the raw values, as perf 7.x
 *   prints them).
 * - Multiplexed counts are scaled per counter, val * ena / run, in
 *   double and truncated to u64: the global total once over the sums,
 *   the other modes per CPU (or thread) before summing.
 * - A metric divides a count by another event's "shadow" value: the
 *   running mean, over every round so far, of that event's count in the
 *   same aggregate and the same exclude_* context (perf never resets it
 *   in `perf stat report`, so an interval's "/sec" is over the mean
 *   time of the intervals so far, as perf prints it).
 */
#include "pd_config.h"
#include "pda_stat.h"
#include "pda_sampled.h"

#include "pdc_alloc.h"
#include "pdc_arena.h"
#include "pdc_hash.h"
#include "pdc_opts.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* perf_event_attr.type and config values the metrics look for */
#define T_HARDWARE 0u
#define T_SOFTWARE 1u
#define T_HW_CACHE 3u
#define HW_CPU_CYCLES 0u
#define HW_INSTRUCTIONS 1u
#define HW_CACHE_REFERENCES 2u
#define HW_CACHE_MISSES 3u
#define HW_BRANCH_INSTRUCTIONS 4u
#define HW_BRANCH_MISSES 5u
#define HW_STALLED_FRONTEND 7u
#define HW_STALLED_BACKEND 8u
#define SW_CPU_CLOCK 0u
#define SW_TASK_CLOCK 1u
#define CACHE_MISS_READ(c) ((c) | (0u << 8) | (1u << 16)) /* read, miss */
/* Intel's topdown metric pseudo-events on the core PMU (event 0x00,
 * umask 0x80..0x83): perf 6.1 names them topdown-retiring, -bad-spec,
 * -fe-bound, -be-bound */
#define T_X86_CPU 4u
#define TD_RETIRING 0x8000u
#define TD_BAD_SPEC 0x8100u
#define TD_FE_BOUND 0x8200u
#define TD_BE_BOUND 0x8300u

/* STAT_CONFIG terms (tools/lib/perf/include/perf/event.h) */
#define TERM_AGGR_MODE 0
#define TERM_INTERVAL 1
#define TERM_SCALE 2
#define TERM_AGGR_LEVEL 3

#define MAX_CPUS 65536	  /* a CPU number beyond this is damage */
#define MAX_THREADS (1u << 22)
#define MAX_ROWS ((size_t)1 << 28)

/* the shadow values perf keeps (util/stat-shadow.c enum stat_type) */
enum shadow {
	SH_NSECS,
	SH_CYCLES,
	SH_STALLED_FRONT,
	SH_STALLED_BACK,
	SH_BRANCHES,
	SH_CACHEREFS,
	SH_L1_DCACHE,
	SH_L1_ICACHE,
	SH_LL_CACHE,
	SH_DTLB,
	SH_ITLB,
	SH_TD_RETIRING,
	SH_TD_BAD_SPEC,
	SH_TD_FE_BOUND,
	SH_TD_BE_BOUND,
	SH_NONE,
};

/* A running mean (perf's struct stats, Welford's update). */
struct stats {
	double n, mean, M2;
};

static void stats_add(struct stats *s, double v)
{
	double delta;

	s->n++;
	delta = v - s->mean;
	s->mean += delta / s->n;
	s->M2 += delta * (v - s->mean);
}

/* stddev of the mean, as perf's stddev_stats() */
static double stats_sd(const struct stats *s)
{
	if (s->n < 2)
		return 0.0;
	return sqrt(s->M2 / (s->n - 1) / s->n);
}

struct shadow_ent {
	uint64_t key;
	struct stats st;
};

struct cnt {
	uint64_t val, ena, run;
	uint64_t samples;	/* a sampling capture's */
};

/* An event of the capture being read. */
struct fev {
	bool seen;		/* in this capture */
	int *cpus;		/* its own CPUs (EVENT_UPDATE CPUS), or NULL */
	size_t nr_cpus;
	struct cnt *cur, *prev; /* [cpu index * nr_threads + thread] */
	size_t nr_cnt;
};

/* The rows of one aggregate while a round is totalled. */
struct agg {
	int32_t socket, die, core, node;
};

struct pda_stat {
	struct pda_stat_opts o;
	const struct pd_alloc *a;
	struct pdc_arena ar;
	char err[256];
	char warn[256];
	unsigned nr_warn;

	/* the report */
	struct pda_stat_report r;
	struct pda_stat_event *events;
	size_t nr_events, alloc_events;
	struct pda_stat_row *rows;
	size_t nr_rows, alloc_rows;
	struct pda_stat_round *rounds;
	size_t nr_rounds, alloc_rounds;
	struct stats walltime;
	struct pdc_hash shadow;

	/* several runs: the rows of each run's final round */
	struct pda_stat_row *runs;
	size_t nr_run_rows, alloc_run_rows;
	size_t run_width; /* rows per run */
	bool first_file_done;
	bool any_interval;

	/* the capture being read */
	struct pd_file *f;
	const struct pd_env *env;
	bool intel;		/* recorded on an Intel host (CPUID) */
	int *cpus;
	size_t nr_cpus;
	int64_t *pids;
	const char **comms;
	size_t nr_threads;
	struct fev *fev;
	size_t nr_fev;
	enum pda_stat_aggr aggr;   /* this capture's, as read */
	bool have_config;
	uint64_t interval_ms;
	bool scale;
	uint64_t nr_file_rounds;   /* all its rounds */
	uint64_t nr_stat;
	uint64_t rec_off;
};

static int fail(struct pda_stat *s, int rc, const char *fmt, ...)
	PD_PRINTF(3, 4);
static int fail(struct pda_stat *s, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return rc;
}

static int nomem(struct pda_stat *s)
{
	return fail(s, PD_ERR_NOMEM, "%s", pd_strerror(PD_ERR_NOMEM));
}

static void warn(struct pda_stat *s, const char *fmt, ...) PD_PRINTF(2, 3);
static void warn(struct pda_stat *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nr_warn++)
		return;
	va_start(ap, fmt);
	vsnprintf(s->warn, sizeof(s->warn), fmt, ap);
	va_end(ap);
}

const char *pda_stat_aggr_name(enum pda_stat_aggr a)
{
	switch (a) {
	case PDA_STAT_AGGR_AS_RECORDED:
		return "as recorded";
	case PDA_STAT_AGGR_GLOBAL:
		return "global";
	case PDA_STAT_AGGR_NONE:
		return "no-aggr";
	case PDA_STAT_AGGR_SOCKET:
		return "per-socket";
	case PDA_STAT_AGGR_DIE:
		return "per-die";
	case PDA_STAT_AGGR_CLUSTER:
		return "per-cluster";
	case PDA_STAT_AGGR_CACHE:
		return "per-cache";
	case PDA_STAT_AGGR_CORE:
		return "per-core";
	case PDA_STAT_AGGR_THREAD:
		return "per-thread";
	case PDA_STAT_AGGR_NODE:
		return "per-node";
	}
	return "?";
}

/*
 * perf's enum aggr_mode, as saved, by generation: up to 6.4 NONE GLOBAL
 * SOCKET DIE CORE THREAD UNSET NODE; 6.5 put CACHE after DIE (and began
 * saving AGGR_LEVEL); 6.8 put CLUSTER before CACHE (util/stat.h).
 */
int pda_stat_aggr_from_file(uint64_t saved, bool has_level, unsigned major,
			    unsigned minor)
{
	static const int v1[] = {
		PDA_STAT_AGGR_NONE,   PDA_STAT_AGGR_GLOBAL, PDA_STAT_AGGR_SOCKET,
		PDA_STAT_AGGR_DIE,    PDA_STAT_AGGR_CORE,   PDA_STAT_AGGR_THREAD,
		-1 /* UNSET */,	      PDA_STAT_AGGR_NODE,
	};
	static const int v2[] = {
		PDA_STAT_AGGR_NONE,  PDA_STAT_AGGR_GLOBAL, PDA_STAT_AGGR_SOCKET,
		PDA_STAT_AGGR_DIE,   PDA_STAT_AGGR_CACHE,  PDA_STAT_AGGR_CORE,
		PDA_STAT_AGGR_THREAD, -1,		   PDA_STAT_AGGR_NODE,
	};
	static const int v3[] = {
		PDA_STAT_AGGR_NONE,    PDA_STAT_AGGR_GLOBAL,
		PDA_STAT_AGGR_SOCKET,  PDA_STAT_AGGR_DIE,
		PDA_STAT_AGGR_CLUSTER, PDA_STAT_AGGR_CACHE,
		PDA_STAT_AGGR_CORE,    PDA_STAT_AGGR_THREAD,
		-1,		       PDA_STAT_AGGR_NODE,
	};
	const int *t = v1;
	size_t n = sizeof(v1) / sizeof(v1[0]);

	if (has_level) {
		bool pre_cluster = major == 6 && minor >= 5 && minor < 8;

		t = pre_cluster ? v2 : v3;
		n = pre_cluster ? sizeof(v2) / sizeof(v2[0])
				: sizeof(v3) / sizeof(v3[0]);
	}
	return saved < n ? t[saved] : -1;
}

int pda_stat_new(const struct pda_stat_opts *opts, struct pda_stat **out)
{
	struct pda_stat_opts o = {0};
	struct pda_stat *s;

	*out = NULL;
	if (opts && pdc_opts_copy(&o, sizeof(o), opts) < 0)
		return PD_ERR_API;
	s = pdc_zalloc(o.alloc, sizeof(*s));
	if (!s)
		return PD_ERR_NOMEM;
	s->o = o;
	s->a = o.alloc;
	s->ar = (struct pdc_arena)PDC_ARENA_INIT;
	s->shadow = (struct pdc_hash)PDC_HASH_INIT;
	*out = s;
	return 0;
}

static void free_capture(struct pda_stat *s)
{
	for (size_t i = 0; i < s->nr_fev; i++) {
		pdc_free(s->a, s->fev[i].cpus);
		pdc_free(s->a, s->fev[i].cur);
		pdc_free(s->a, s->fev[i].prev);
	}
	pdc_free(s->a, s->fev);
	pdc_free(s->a, s->cpus);
	pdc_free(s->a, s->pids);
	pdc_free(s->a, s->comms);
	s->fev = NULL;
	s->nr_fev = 0;
	s->cpus = NULL;
	s->pids = NULL;
	s->comms = NULL;
	s->nr_cpus = s->nr_threads = 0;
}

void pda_stat_free(struct pda_stat *s)
{
	if (!s)
		return;
	free_capture(s);
	pdc_free(s->a, s->events);
	pdc_free(s->a, s->rows);
	pdc_free(s->a, s->rounds);
	pdc_free(s->a, s->runs);
	pdc_hash_release(s->a, &s->shadow);
	pdc_arena_release(&s->ar, s->a);
	pdc_free(s->a, s);
}

const char *pda_stat_errmsg(const struct pda_stat *s)
{
	return s->err;
}

unsigned pda_stat_nr_warnings(const struct pda_stat *s)
{
	return s->nr_warn;
}

const char *pda_stat_warning(const struct pda_stat *s)
{
	return s->warn;
}

const struct pda_stat_report *pda_stat_report(const struct pda_stat *s)
{
	return &s->r;
}

/* ---- events ---------------------------------------------------------- */

static bool is_clock(const struct pd_attr *a)
{
	return a->type == T_SOFTWARE &&
	       (a->config == SW_CPU_CLOCK || a->config == SW_TASK_CLOCK);
}

/* perf's evsel_context(): the exclude_* bits that keep shadow values of
 * different contexts apart */
static uint64_t attr_ctx(const struct pd_attr *a)
{
	uint64_t ctx = 0;

	ctx |= PD_ATTR_HAS(a, exclude_kernel) ? 1u : 0u;
	ctx |= PD_ATTR_HAS(a, exclude_user) ? 2u : 0u;
	ctx |= PD_ATTR_HAS(a, exclude_hv) ? 4u : 0u;
	ctx |= PD_ATTR_HAS(a, exclude_host) ? 8u : 0u;
	ctx |= PD_ATTR_HAS(a, exclude_idle) ? 16u : 0u;
	return ctx;
}

static char *arena_str(struct pda_stat *s, const char *p, size_t n)
{
	return pdc_arena_strndup(&s->ar, s->a, p, n);
}

/* The capture's events, in the first capture's order; a later capture
 * must name the same ones. */
static int take_events(struct pda_stat *s)
{
	size_t n = pd_file_nr_evsels(s->f);

	if (s->first_file_done) {
		if (n != s->nr_events)
			return fail(s, PD_ERR_FORMAT,
				    "'%s' counts %zu events, the first "
				    "capture %zu: not runs of one command",
				    pd_file_name(s->f), n, s->nr_events);
		for (size_t i = 0; i < n; i++)
			if (strcmp(pd_file_evsel(s->f, i)->name,
				   s->events[i].name) != 0)
				return fail(s, PD_ERR_FORMAT,
					    "'%s' counts '%s' where the "
					    "first capture counts '%s': not "
					    "runs of one command",
					    pd_file_name(s->f),
					    pd_file_evsel(s->f, i)->name,
					    s->events[i].name);
		return 0;
	}
	for (size_t i = s->nr_events; i < n; i++) {
		const struct pd_evsel *e = pd_file_evsel(s->f, i);
		struct pda_stat_event *ev;

		if (PDC_GROW(s->a, s->events, s->alloc_events, i + 1,
			     (size_t)1 << 20) < 0)
			return nomem(s);
		ev = &s->events[i];
		memset(ev, 0, sizeof(*ev));
		ev->name = arena_str(s, e->name, strlen(e->name));
		ev->unit = is_clock(&e->attr) ? "msec" : "";
		ev->scale = is_clock(&e->attr) ? 1e-6 : 1.0;
		ev->attr = e->attr;
		ev->ctx = attr_ctx(&e->attr);
		if (!ev->name)
			return nomem(s);
		s->nr_events = i + 1;
	}
	return 0;
}

/* The per-capture state of events up to n. */
static int grow_fev(struct pda_stat *s, size_t n)
{
	struct fev *nf;

	if (n <= s->nr_fev)
		return 0;
	nf = pdc_realloc(s->a, s->fev, n * sizeof(*nf));
	if (!nf)
		return nomem(s);
	memset(nf + s->nr_fev, 0, (n - s->nr_fev) * sizeof(*nf));
	s->fev = nf;
	s->nr_fev = n;
	return 0;
}

int pda_stat_begin(struct pda_stat *s, struct pd_file *f)
{
	int rc;

	s->err[0] = 0;
	free_capture(s);
	s->f = f;
	s->env = NULL;
	if (pd_file_env(f, &s->env) < 0)
		s->env = NULL;
	s->intel = s->env && s->env->cpuid &&
		   strncmp(s->env->cpuid, "GenuineIntel", 12) == 0;
	s->aggr = PDA_STAT_AGGR_GLOBAL;
	s->have_config = false;
	s->interval_ms = 0;
	s->scale = true;
	s->nr_file_rounds = 0;
	s->nr_stat = 0;
	rc = take_events(s);
	if (rc < 0)
		return rc;
	return grow_fev(s, s->nr_events);
}

/* ---- maps -------------------------------------------------------------- */

static int read_cpu_map(struct pda_stat *s, const struct pd_cpu_map *m,
			int **out, size_t *nr)
{
	uint64_t pos = 0;
	int cpu;
	int *cpus = NULL;
	size_t n = 0, alloc = 0;

	while (pd_cpu_map_next(m, &pos, &cpu) == 1) {
		if (cpu >= MAX_CPUS) {
			pdc_free(s->a, cpus);
			return fail(s, PD_ERR_FORMAT,
				    "record at offset 0x%llx: CPU %d in a "
				    "CPU map", (unsigned long long)s->rec_off,
				    cpu);
		}
		if (PDC_GROW(s->a, cpus, alloc, n + 1, (size_t)MAX_CPUS + 1) <
		    0) {
			pdc_free(s->a, cpus);
			return nomem(s);
		}
		cpus[n++] = cpu;
	}
	if (n == 0) {
		/* an empty map: perf's "any CPU" */
		cpus = pdc_malloc(s->a, sizeof(*cpus));
		if (!cpus)
			return nomem(s);
		cpus[n++] = -1;
	}
	*out = cpus;
	*nr = n;
	return 0;
}

static int on_thread_map(struct pda_stat *s, const struct pd_ev_thread_map *m)
{
	if (m->nr == 0 || m->nr > MAX_THREADS)
		return fail(s, PD_ERR_FORMAT,
			    "record at offset 0x%llx: a THREAD_MAP of %llu "
			    "threads", (unsigned long long)s->rec_off,
			    (unsigned long long)m->nr);
	pdc_free(s->a, s->pids);
	pdc_free(s->a, s->comms);
	s->pids = pdc_malloc(s->a, m->nr * sizeof(*s->pids));
	s->comms = pdc_malloc(s->a, m->nr * sizeof(*s->comms));
	s->nr_threads = 0;
	if (!s->pids || !s->comms)
		return nomem(s);
	for (uint64_t i = 0; i < m->nr; i++) {
		uint64_t pid;
		struct pd_str comm;

		pd_ev_thread_map_get(m, i, &pid, &comm);
		s->pids[i] = (int64_t)(int32_t)pid;
		s->comms[i] = arena_str(s, comm.ptr, comm.len);
		if (!s->comms[i])
			return nomem(s);
	}
	s->nr_threads = m->nr;
	return 0;
}

static int on_stat_config(struct pda_stat *s, const struct pd_ev_stat_config *c)
{
	uint64_t mode = 1;
	bool has_level = false;
	unsigned major = 0, minor = 0;
	int aggr;

	for (uint64_t i = 0; i < c->nr; i++) {
		uint64_t tag = pd_u64s_get(&c->data, 2 * i);
		uint64_t val = pd_u64s_get(&c->data, 2 * i + 1);

		switch (tag) {
		case TERM_AGGR_MODE:
			mode = val;
			break;
		case TERM_INTERVAL:
			s->interval_ms = val;
			break;
		case TERM_SCALE:
			s->scale = val != 0;
			break;
		case TERM_AGGR_LEVEL:
			has_level = true;
			break;
		default:
			warn(s, "record at offset 0x%llx: unknown STAT_CONFIG "
				"term %llu", (unsigned long long)s->rec_off,
			     (unsigned long long)tag);
			break;
		}
	}
	if (s->env && s->env->version &&
	    sscanf(s->env->version, "%u.%u", &major, &minor) != 2)
		major = minor = 0;
	aggr = pda_stat_aggr_from_file(mode, has_level, major, minor);
	if (aggr < 0)
		return fail(s, PD_ERR_FORMAT,
			    "record at offset 0x%llx: STAT_CONFIG aggregation "
			    "mode %llu, which no perf writes",
			    (unsigned long long)s->rec_off,
			    (unsigned long long)mode);
	s->aggr = (enum pda_stat_aggr)aggr;
	s->have_config = true;
	return 0;
}

static int on_event_update(struct pda_stat *s,
			   const struct pd_ev_event_update *u)
{
	const struct pd_evsel *e = pd_file_evsel_by_id(s->f, u->id);
	struct pda_stat_event *ev;
	int rc;

	if (!e)
		return fail(s, PD_ERR_FORMAT,
			    "record at offset 0x%llx: EVENT_UPDATE of an "
			    "unknown event id %llu",
			    (unsigned long long)s->rec_off,
			    (unsigned long long)u->id);
	if (e->idx >= s->nr_events &&
	    ((rc = take_events(s)) < 0 || (rc = grow_fev(s, s->nr_events)) < 0))
		return rc;
	if (e->idx >= s->nr_events)
		return 0;
	ev = &s->events[e->idx];
	switch (u->type) {
	case PD_EVENT_UPDATE_UNIT:
		if (!(ev->unit = arena_str(s, u->str.ptr, u->str.len)))
			return nomem(s);
		break;
	case PD_EVENT_UPDATE_SCALE:
		ev->scale = u->scale;
		break;
	case PD_EVENT_UPDATE_NAME:
		break; /* the reader names the event (pd_evsel.name) */
	case PD_EVENT_UPDATE_CPUS: {
		struct fev *fe = &s->fev[e->idx];

		pdc_free(s->a, fe->cpus);
		fe->cpus = NULL;
		return read_cpu_map(s, &u->cpus, &fe->cpus, &fe->nr_cpus);
	}
	default:
		break;
	}
	return 0;
}

/* The CPUs of event i: its own, or the capture's. */
static const int *ev_cpus(const struct pda_stat *s, size_t i, size_t *nr)
{
	static const int any = -1;

	if (s->fev[i].cpus) {
		*nr = s->fev[i].nr_cpus;
		return s->fev[i].cpus;
	}
	if (s->cpus) {
		*nr = s->nr_cpus;
		return s->cpus;
	}
	*nr = 1;
	return &any;
}

static size_t nr_threads(const struct pda_stat *s)
{
	return s->nr_threads ? s->nr_threads : 1;
}

static int alloc_counts(struct pda_stat *s, size_t i)
{
	struct fev *fe = &s->fev[i];
	size_t nc, n;

	if (fe->cur)
		return 0;
	ev_cpus(s, i, &nc);
	n = nc * nr_threads(s);
	fe->cur = pdc_zalloc(s->a, n * sizeof(*fe->cur));
	fe->prev = pdc_zalloc(s->a, n * sizeof(*fe->prev));
	if (!fe->cur || !fe->prev)
		return nomem(s);
	fe->nr_cnt = n;
	return 0;
}

static int on_stat(struct pda_stat *s, const struct pd_ev_stat *st)
{
	const struct pd_evsel *e = pd_file_evsel_by_id(s->f, st->id);
	const int *cpus;
	size_t nc, ci;
	int cpu = (int)(int32_t)st->cpu;
	int rc;

	if (!e)
		return fail(s, PD_ERR_FORMAT,
			    "record at offset 0x%llx: STAT of an unknown "
			    "event id %llu", (unsigned long long)s->rec_off,
			    (unsigned long long)st->id);
	if (e->idx >= s->nr_events &&
	    ((rc = take_events(s)) < 0 || (rc = grow_fev(s, s->nr_events)) < 0))
		return rc;
	if (e->idx >= s->nr_events)
		return 0;
	cpus = ev_cpus(s, e->idx, &nc);
	for (ci = 0; ci < nc && cpus[ci] != cpu; ci++)
		;
	if (ci == nc)
		return fail(s, PD_ERR_FORMAT,
			    "record at offset 0x%llx: STAT of '%s' on CPU %d, "
			    "which the capture's CPU map does not hold",
			    (unsigned long long)s->rec_off, e->name, cpu);
	if (st->thread >= nr_threads(s))
		return fail(s, PD_ERR_FORMAT,
			    "record at offset 0x%llx: STAT of '%s' for thread "
			    "%u of %zu", (unsigned long long)s->rec_off, e->name,
			    st->thread, nr_threads(s));
	if ((rc = alloc_counts(s, e->idx)) < 0)
		return rc;
	s->fev[e->idx].seen = true;
	s->fev[e->idx].cur[ci * nr_threads(s) + st->thread] =
		(struct cnt){st->val, st->ena, st->run, 0};
	s->nr_stat++;
	return 0;
}

/* ---- shadow values (util/stat-shadow.c) ------------------------------ */

static bool shadow_eq(const void *item, const void *key)
{
	return ((const struct shadow_ent *)item)->key == *(const uint64_t *)key;
}

static uint64_t shadow_key(enum shadow t, uint64_t ctx, int64_t agg)
{
	return ((uint64_t)t << 56) | (ctx << 48) |
	       ((uint64_t)agg & 0xffffffffffffull);
}

static struct stats *shadow_get(struct pda_stat *s, enum shadow t,
				uint64_t ctx, int64_t agg, bool add)
{
	uint64_t key = shadow_key(t, ctx, agg);
	uint64_t h = pdc_hash_u64(key);
	struct shadow_ent *e;

	e = pdc_hash_find(&s->shadow, h, shadow_eq, &key);
	if (e || !add)
		return e ? &e->st : NULL;
	e = pdc_arena_zalloc(&s->ar, s->a, sizeof(*e));
	if (!e || pdc_hash_add(s->a, &s->shadow, h, e) < 0)
		return NULL;
	e->key = key;
	return &e->st;
}

static double shadow_avg(struct pda_stat *s, enum shadow t, uint64_t ctx,
			 int64_t agg)
{
	const struct stats *st = shadow_get(s, t, ctx, agg, false);

	return st ? st->mean : 0.0;
}

static double shadow_n(struct pda_stat *s, enum shadow t, uint64_t ctx,
		       int64_t agg)
{
	const struct stats *st = shadow_get(s, t, ctx, agg, false);

	return st ? st->n : 0.0;
}

static bool hw(const struct pd_attr *a, uint64_t config)
{
	return a->type == T_HARDWARE && (a->config & 0xffffffffu) == config;
}

static bool hw_cache(const struct pd_attr *a, uint64_t config)
{
	return a->type == T_HW_CACHE && a->config == config;
}

/*
 * An Intel topdown metric event: perf 6.1 tells them by name (its
 * id_str[]); this by the x86 core PMU's type and config, which the
 * names stand for, in a capture of an Intel host.
 */
static bool topdown(const struct pda_stat *s, const struct pd_attr *a,
		    uint64_t config)
{
	return s->intel && a->type == T_X86_CPU &&
	       (a->config & 0xfffffffffull) == config;
}

/* Which shadow value an event feeds (perf_stat__update_shadow_stats) */
static enum shadow shadow_of(const struct pda_stat *s, const struct pd_attr *a)
{
	if (topdown(s, a, TD_RETIRING))
		return SH_TD_RETIRING;
	if (topdown(s, a, TD_BAD_SPEC))
		return SH_TD_BAD_SPEC;
	if (topdown(s, a, TD_FE_BOUND))
		return SH_TD_FE_BOUND;
	if (topdown(s, a, TD_BE_BOUND))
		return SH_TD_BE_BOUND;
	if (is_clock(a))
		return SH_NSECS;
	if (hw(a, HW_CPU_CYCLES))
		return SH_CYCLES;
	if (hw(a, HW_STALLED_FRONTEND))
		return SH_STALLED_FRONT;
	if (hw(a, HW_STALLED_BACKEND))
		return SH_STALLED_BACK;
	if (hw(a, HW_BRANCH_INSTRUCTIONS))
		return SH_BRANCHES;
	if (hw(a, HW_CACHE_REFERENCES))
		return SH_CACHEREFS;
	if (hw_cache(a, 0))
		return SH_L1_DCACHE;
	if (hw_cache(a, 1))
		return SH_L1_ICACHE;
	if (hw_cache(a, 2))
		return SH_LL_CACHE;
	if (hw_cache(a, 3))
		return SH_DTLB;
	if (hw_cache(a, 4))
		return SH_ITLB;
	return SH_NONE;
}

/* A round's count of event i in aggregate agg into the shadow values:
 * the clocks in ns, the rest times the event's scale, as perf does. */
static int shadow_update(struct pda_stat *s, size_t i, int64_t agg,
			 uint64_t val)
{
	const struct pda_stat_event *ev = &s->events[i];
	enum shadow t = shadow_of(s, &ev->attr);
	struct stats *st;

	if (t == SH_NONE)
		return 0;
	st = shadow_get(s, t, ev->ctx, agg, true);
	if (!st)
		return nomem(s);
	stats_add(st, t == SH_NSECS ? (double)val : (double)val * ev->scale);
	return 0;
}

/* ---- the metrics perf prints (perf_stat__print_shadow_stats) --------- */

static void metric(struct pda_stat_row *row, enum pda_stat_mfmt fmt,
		   double val, const char *unit, bool newline)
{
	struct pda_stat_metric *m;

	if (row->nr_metrics >= PDA_STAT_MAX_METRICS)
		return;
	m = &row->metric[row->nr_metrics++];
	m->fmt = fmt;
	m->val = val;
	m->unit = unit;
	m->newline = newline;
}

/* perf's "ratio of all X" metrics: misses over accesses, in % */
static void ratio_of(struct pda_stat *s, struct pda_stat_row *row,
		     uint64_t ctx, int64_t agg, enum shadow t,
		     const char *unit)
{
	double total, ratio = 0.0;

	if (shadow_n(s, t, ctx, agg) == 0) {
		metric(row, PDA_STAT_MF_NONE, 0, unit, false);
		return;
	}
	total = shadow_avg(s, t, ctx, agg);
	if (total)
		ratio = row->uval / total * 100.0;
	metric(row, PDA_STAT_MF_7_2F_PCT, ratio, unit, false);
}

/* perf's convert_unit_double() */
static double si_unit(double v, char *unit)
{
	*unit = ' ';
	if (v > 1000.0) {
		v /= 1000.0;
		*unit = 'K';
	}
	if (v > 1000.0) {
		v /= 1000.0;
		*unit = 'M';
	}
	if (v > 1000.0) {
		v /= 1000.0;
		*unit = 'G';
	}
	return v;
}

/* perf 6.1's full_td(): two of the four level-1 values are there */
static bool full_td(struct pda_stat *s, uint64_t ctx, int64_t agg)
{
	int n = 0;

	for (enum shadow t = SH_TD_RETIRING; t <= SH_TD_BE_BOUND; t++)
		n += shadow_avg(s, t, ctx, agg) > 0;
	return n >= 2;
}

/* perf 6.1's td_metric_ratio(): a level-1 value over their sum */
static double td_ratio(struct pda_stat *s, enum shadow t, uint64_t ctx,
		       int64_t agg)
{
	double sum = 0.0;

	for (enum shadow k = SH_TD_RETIRING; k <= SH_TD_BE_BOUND; k++)
		sum += shadow_avg(s, k, ctx, agg);
	return sum ? shadow_avg(s, t, ctx, agg) / sum : 0.0;
}

static void metrics(struct pda_stat *s, struct pda_stat_row *row, int64_t agg)
{
	static const char *const td_name[] = {
		"Retiring", "Bad Speculation", "Frontend Bound",
		"Backend Bound",
	};
	const struct pda_stat_event *ev = &s->events[row->event];
	const struct pd_attr *a = &ev->attr;
	const uint64_t ctx = ev->ctx;
	const double avg = row->uval;
	double total, ratio = 0.0;

	enum shadow td = shadow_of(s, a);

	row->nr_metrics = 0;
	if (!row->counted)
		return;
	if (td >= SH_TD_RETIRING && td <= SH_TD_BE_BOUND &&
	    full_td(s, ctx, agg)) {
		metric(row, PDA_STAT_MF_8_1F_PCT, td_ratio(s, td, ctx, agg) * 100.0,
		       td_name[td - SH_TD_RETIRING], false);
	} else if (hw(a, HW_INSTRUCTIONS)) {
		total = shadow_avg(s, SH_CYCLES, ctx, agg);
		if (total)
			metric(row, PDA_STAT_MF_7_2F_SP, avg / total,
			       "insn per cycle", false);
		else
			metric(row, PDA_STAT_MF_NONE, 0, "insn per cycle",
			       false);
		total = fmax(shadow_avg(s, SH_STALLED_FRONT, ctx, agg),
			     shadow_avg(s, SH_STALLED_BACK, ctx, agg));
		if (total && avg)
			metric(row, PDA_STAT_MF_7_2F_SP, total / avg,
			       "stalled cycles per insn", true);
	} else if (hw(a, HW_BRANCH_MISSES)) {
		ratio_of(s, row, ctx, agg, SH_BRANCHES, "of all branches");
	} else if (hw_cache(a, CACHE_MISS_READ(0))) {
		ratio_of(s, row, ctx, agg, SH_L1_DCACHE,
			 "of all L1-dcache accesses");
	} else if (hw_cache(a, CACHE_MISS_READ(1))) {
		ratio_of(s, row, ctx, agg, SH_L1_ICACHE,
			 "of all L1-icache accesses");
	} else if (hw_cache(a, CACHE_MISS_READ(3))) {
		ratio_of(s, row, ctx, agg, SH_DTLB,
			 "of all dTLB cache accesses");
	} else if (hw_cache(a, CACHE_MISS_READ(4))) {
		ratio_of(s, row, ctx, agg, SH_ITLB,
			 "of all iTLB cache accesses");
	} else if (hw_cache(a, CACHE_MISS_READ(2))) {
		ratio_of(s, row, ctx, agg, SH_LL_CACHE,
			 "of all LL-cache accesses");
	} else if (hw(a, HW_CACHE_MISSES)) {
		total = shadow_avg(s, SH_CACHEREFS, ctx, agg);
		if (total)
			ratio = avg * 100 / total;
		if (shadow_n(s, SH_CACHEREFS, ctx, agg) != 0)
			metric(row, PDA_STAT_MF_8_3F_PCT, ratio,
			       "of all cache refs", false);
		else
			metric(row, PDA_STAT_MF_NONE, 0, "of all cache refs",
			       false);
	} else if (hw(a, HW_STALLED_FRONTEND) || hw(a, HW_STALLED_BACKEND)) {
		total = shadow_avg(s, SH_CYCLES, ctx, agg);
		if (total)
			ratio = avg / total * 100.0;
		metric(row, PDA_STAT_MF_7_2F_PCT, ratio,
		       hw(a, HW_STALLED_FRONTEND) ? "frontend cycles idle"
						  : "backend cycles idle",
		       false);
	} else if (hw(a, HW_CPU_CYCLES)) {
		total = shadow_avg(s, SH_NSECS, ctx, agg);
		if (total)
			metric(row, PDA_STAT_MF_8_3F, avg / total, "GHz",
			       false);
		else
			metric(row, PDA_STAT_MF_NONE, 0, "Ghz", false);
	} else if (is_clock(a)) {
		if (s->walltime.mean != 0)
			metric(row, PDA_STAT_MF_8_3F,
			       avg / (s->walltime.mean * ev->scale),
			       "CPUs utilized", false);
		else
			metric(row, PDA_STAT_MF_NONE, 0, "CPUs utilized",
			       false);
	} else if (shadow_n(s, SH_NSECS, ctx, agg) != 0) {
		static const char *const per_sec[] = {
			" ", "/sec", "K/sec", "M/sec", "G/sec",
		};
		char unit = ' ';

		total = shadow_avg(s, SH_NSECS, ctx, agg);
		if (total)
			ratio = si_unit(1000000000.0 * avg / total, &unit);
		metric(row, PDA_STAT_MF_8_3F, ratio,
		       unit == 'K'   ? per_sec[2]
		       : unit == 'M' ? per_sec[3]
		       : unit == 'G' ? per_sec[4]
				     : per_sec[1],
		       false);
	}
}

/* ---- a round --------------------------------------------------------- */

/* perf_counts_values__scale(): -1 when the counter never ran */
static int scale_cnt(const struct pda_stat *s, struct cnt *c)
{
	if (!s->scale)
		return 0;
	if (c->run == 0) {
		c->val = 0;
		return -1;
	}
	if (c->run < c->ena)
		c->val = (uint64_t)((double)c->val * (double)c->ena /
				    (double)c->run);
	return 0;
}

/* What counter (ci, t) of event i gained this round (its raw value
 * with --cumulative). */
static struct cnt delta(const struct pda_stat *s, size_t i, size_t k)
{
	const struct fev *fe = &s->fev[i];
	struct cnt c = {0, 0, 0, 0};

	if (!fe->cur)
		return c;
	c = fe->cur[k];
	if (!s->o.cumulative) {
		c.val -= fe->prev[k].val;
		c.ena -= fe->prev[k].ena;
		c.run -= fe->prev[k].run;
		c.samples -= fe->prev[k].samples;
	}
	return c;
}

static struct pda_stat_row *new_row(struct pda_stat *s, size_t event)
{
	struct pda_stat_row *row;

	if (PDC_GROW(s->a, s->rows, s->alloc_rows, s->nr_rows + 1, MAX_ROWS) <
	    0)
		return NULL;
	row = &s->rows[s->nr_rows++];
	memset(row, 0, sizeof(*row));
	row->event = (uint32_t)event;
	row->cpu = row->socket = row->die = row->cluster = row->cache =
		row->core = row->node = row->thread = -1;
	row->pid = -1;
	row->comm = "";
	return row;
}

static void finish_row(struct pda_stat_row *row, const struct cnt *c,
		       uint64_t raw, double scale, bool counted)
{
	row->raw = raw;
	row->val = c->val;
	row->ena = c->ena;
	row->run = c->run;
	row->samples = c->samples;
	row->uval = (double)c->val * scale;
	row->counted = counted && c->ena != 0 && c->run != 0;
}

/* AGGR_GLOBAL: per event, the sum of every counter, scaled once. */
static int round_global(struct pda_stat *s, size_t first)
{
	for (size_t i = 0; i < s->nr_events; i++) {
		struct pda_stat_row *row;
		struct cnt sum = {0, 0, 0, 0};
		uint64_t raw;
		int scaled;

		for (size_t k = 0; k < s->fev[i].nr_cnt; k++) {
			struct cnt c = delta(s, i, k);

			sum.val += c.val;
			sum.ena += c.ena;
			sum.run += c.run;
			sum.samples += c.samples;
		}
		raw = sum.val;
		scaled = scale_cnt(s, &sum);
		if (!(row = new_row(s, i)))
			return nomem(s);
		finish_row(row, &sum, raw, s->events[i].scale, scaled != -1);
		if (shadow_update(s, i, 0, sum.val) < 0)
			return PD_ERR_NOMEM;
	}
	for (size_t r = first; r < s->nr_rows; r++)
		metrics(s, &s->rows[r], 0);
	return 0;
}

/* AGGR_NONE: per event, per CPU (thread 0, as perf prints it). */
static int round_cpu(struct pda_stat *s, size_t first)
{
	for (size_t i = 0; i < s->nr_events; i++) {
		size_t nc;
		const int *cpus = ev_cpus(s, i, &nc);

		for (size_t ci = 0; ci < nc; ci++) {
			struct pda_stat_row *row;
			struct cnt c = delta(s, i, ci * nr_threads(s));
			uint64_t raw = c.val;

			scale_cnt(s, &c);
			if (!(row = new_row(s, i)))
				return nomem(s);
			row->cpu = cpus[ci];
			finish_row(row, &c, raw, s->events[i].scale, true);
			if (shadow_update(s, i, cpus[ci], c.val) < 0)
				return PD_ERR_NOMEM;
		}
	}
	for (size_t r = first; r < s->nr_rows; r++)
		metrics(s, &s->rows[r], s->rows[r].cpu);
	return 0;
}

/* perf's stable qsort of threads by count, largest first, with its
 * comparator's int truncation of the u64 difference (cmp_val) */
static int thread_cmp(const struct pda_stat_row *a, const struct pda_stat_row *b)
{
	return (int)(b->val - a->val);
}

static void sort_threads(struct pda_stat_row *rows, size_t n)
{
	/* insertion sort: stable, and perf's lists are short */
	for (size_t i = 1; i < n; i++) {
		struct pda_stat_row t = rows[i];
		size_t j = i;

		while (j > 0 && thread_cmp(&rows[j - 1], &t) > 0) {
			rows[j] = rows[j - 1];
			j--;
		}
		rows[j] = t;
	}
}

/* AGGR_THREAD: per event, per thread (summed over CPUs), sorted. */
static int round_thread(struct pda_stat *s, size_t first)
{
	const size_t nt = nr_threads(s);

	for (size_t i = 0; i < s->nr_events; i++) {
		size_t nc, from = s->nr_rows;

		ev_cpus(s, i, &nc);
		for (size_t t = 0; t < nt; t++) {
			struct pda_stat_row *row;
			struct cnt sum = {0, 0, 0, 0};
			uint64_t raw = 0;

			for (size_t ci = 0; ci < nc; ci++) {
				struct cnt c = delta(s, i, ci * nt + t);

				raw += c.val;
				scale_cnt(s, &c);
				sum.val += c.val;
				sum.ena += c.ena;
				sum.run += c.run;
				sum.samples += c.samples;
			}
			if (!(row = new_row(s, i)))
				return nomem(s);
			row->thread = (int32_t)t;
			row->pid = s->pids ? s->pids[t] : -1;
			row->comm = s->comms ? s->comms[t] : "";
			finish_row(row, &sum, raw, s->events[i].scale, true);
			if (shadow_update(s, i, (int64_t)t, sum.val) < 0)
				return PD_ERR_NOMEM;
		}
		sort_threads(s->rows + from, s->nr_rows - from);
	}
	for (size_t r = first; r < s->nr_rows; r++)
		metrics(s, &s->rows[r], s->rows[r].thread);
	return 0;
}

/* The NUMA node of cpu in the capture's topology, or -1. */
static int32_t node_of(const struct pd_env *env, int cpu)
{
	for (uint32_t n = 0; env && n < env->nr_numa_nodes; n++) {
		const char *p = env->numa_nodes[n].cpus;

		while (p && *p) {
			char *end;
			long lo = strtol(p, &end, 10), hi = lo;

			if (end == p)
				break;
			if (*end == '-')
				hi = strtol(end + 1, &end, 10);
			if (cpu >= lo && cpu <= hi)
				return (int32_t)env->numa_nodes[n].node;
			p = *end == ',' ? end + 1 : end;
			if (*p && *p != ',' && (*p < '0' || *p > '9'))
				break;
		}
	}
	return -1;
}

/* The aggregate of cpu in mode, from the capture's topology (perf's
 * perf_env__get_*_aggr_by_cpu). */
static struct agg agg_of(const struct pda_stat *s, int cpu,
			 enum pda_stat_aggr mode)
{
	struct agg g = {-1, -1, -1, -1};
	const struct pd_env *env = s->env;
	const struct pd_env_cpu *c = NULL;

	if (env && cpu >= 0 && (uint32_t)cpu < env->cpu_topology.nr_cpus &&
	    env->cpu_topology.has_cpu_ids)
		c = &env->cpu_topology.cpus[cpu];
	switch (mode) {
	case PDA_STAT_AGGR_NODE:
		g.node = node_of(env, cpu);
		break;
	case PDA_STAT_AGGR_CORE:
		g.core = c ? (int32_t)c->core_id : -1;
		/* fall through */
	case PDA_STAT_AGGR_DIE:
		g.die = c ? (int32_t)c->die_id : -1;
		/* fall through */
	case PDA_STAT_AGGR_SOCKET:
		g.socket = c ? (int32_t)c->socket_id : -1;
		break;
	case PDA_STAT_AGGR_AS_RECORDED:
	case PDA_STAT_AGGR_GLOBAL:
	case PDA_STAT_AGGR_NONE:
	case PDA_STAT_AGGR_CLUSTER:
	case PDA_STAT_AGGR_CACHE:
	case PDA_STAT_AGGR_THREAD:
		break;
	}
	return g;
}

static bool agg_eq(const struct agg *a, const struct agg *b)
{
	return a->socket == b->socket && a->die == b->die &&
	       a->core == b->core && a->node == b->node;
}

/* perf's aggr_cpu_id__cmp() order */
static int agg_cmp(const void *pa, const void *pb)
{
	const struct agg *a = pa, *b = pb;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->socket != b->socket)
		return a->socket < b->socket ? -1 : 1;
	if (a->die != b->die)
		return a->die < b->die ? -1 : 1;
	if (a->core != b->core)
		return a->core < b->core ? -1 : 1;
	return 0;
}

/* AGGR_SOCKET, DIE, CORE, NODE: per aggregate of the capture's CPUs (in
 * perf's order), per event, the sum of the scaled per-CPU counts; one
 * CPU that did not count makes the aggregate "not counted". */
static int round_aggr(struct pda_stat *s, size_t first, enum pda_stat_aggr mode)
{
	size_t nr_all;
	const int *all = s->cpus ? s->cpus : NULL;
	struct agg *ids;
	size_t nr_ids = 0;
	int rc = 0;

	nr_all = s->cpus ? s->nr_cpus : 0;
	ids = pdc_malloc(s->a, (nr_all ? nr_all : 1) * sizeof(*ids));
	if (!ids)
		return nomem(s);
	for (size_t c = 0; c < nr_all; c++) {
		struct agg g = agg_of(s, all[c], mode);
		size_t j;

		for (j = 0; j < nr_ids && !agg_eq(&ids[j], &g); j++)
			;
		if (j == nr_ids)
			ids[nr_ids++] = g;
	}
	qsort(ids, nr_ids, sizeof(*ids), agg_cmp);
	for (size_t g = 0; g < nr_ids && rc == 0; g++) {
		for (size_t i = 0; i < s->nr_events; i++) {
			size_t nc;
			const int *cpus = ev_cpus(s, i, &nc);
			struct pda_stat_row *row;
			struct cnt sum = {0, 0, 0, 0};
			uint64_t raw = 0;
			uint32_t nr = 0;
			bool counted = true;

			for (size_t ci = 0; ci < nc; ci++) {
				struct agg a = agg_of(s, cpus[ci], mode);
				struct cnt c;

				if (!agg_eq(&a, &ids[g]))
					continue;
				nr++;
				if (!counted)
					continue;
				c = delta(s, i, ci * nr_threads(s));
				raw += c.val;
				scale_cnt(s, &c);
				if (c.ena == 0 || c.run == 0) {
					counted = false;
					continue;
				}
				sum.val += c.val;
				sum.ena += c.ena;
				sum.run += c.run;
				sum.samples += c.samples;
			}
			if (!(row = new_row(s, i))) {
				rc = nomem(s);
				break;
			}
			row->socket = ids[g].socket;
			row->die = ids[g].die;
			row->core = ids[g].core;
			row->node = ids[g].node;
			row->nr = nr;
			finish_row(row, &sum, raw, s->events[i].scale, counted);
			if (shadow_update(s, i, (int64_t)g, sum.val) < 0) {
				rc = PD_ERR_NOMEM;
				break;
			}
		}
	}
	if (rc == 0) {
		/* rows of aggregate g are nr_events apart from g's first */
		for (size_t r = first; r < s->nr_rows; r++)
			metrics(s, &s->rows[r],
				(int64_t)((r - first) / s->nr_events));
	}
	pdc_free(s->a, ids);
	return rc;
}

static enum pda_stat_aggr mode_of(struct pda_stat *s)
{
	enum pda_stat_aggr m = s->o.aggr;
	bool no_cpus = !s->cpus || (s->nr_cpus == 1 && s->cpus[0] == -1);

	if (m == PDA_STAT_AGGR_AS_RECORDED || m == s->aggr)
		return s->aggr;
	/* a counter per thread is what perf stat --per-thread records */
	if (m == PDA_STAT_AGGR_THREAD) {
		warn(s, "'%s' was not recorded --per-thread: --per-thread is "
			"not applied", pd_file_name(s->f));
		return s->aggr;
	}
	/* perf: "processing task data, aggregation mode not set" */
	if (no_cpus && m != PDA_STAT_AGGR_THREAD) {
		warn(s, "'%s' counted tasks, not CPUs: --%s is not applied",
		     pd_file_name(s->f), pda_stat_aggr_name(m));
		return s->aggr;
	}
	return m;
}

static int on_round(struct pda_stat *s, const struct pd_ev_stat_round *sr)
{
	struct pda_stat_round *round;
	enum pda_stat_aggr mode = mode_of(s);
	size_t first = s->nr_rows;
	int rc;

	if (sr->type == 1) {
		stats_add(&s->walltime, (double)sr->time);
	}
	switch (mode) {
	case PDA_STAT_AGGR_GLOBAL:
		rc = round_global(s, first);
		break;
	case PDA_STAT_AGGR_NONE:
		rc = round_cpu(s, first);
		break;
	case PDA_STAT_AGGR_THREAD:
		rc = round_thread(s, first);
		break;
	case PDA_STAT_AGGR_SOCKET:
	case PDA_STAT_AGGR_DIE:
	case PDA_STAT_AGGR_CORE:
	case PDA_STAT_AGGR_NODE:
		rc = round_aggr(s, first, mode);
		break;
	case PDA_STAT_AGGR_CLUSTER:
	case PDA_STAT_AGGR_CACHE:
	case PDA_STAT_AGGR_AS_RECORDED:
	default:
		return fail(s, PD_ERR_FORMAT,
			    "'%s' was recorded --%s, which pdtool stat does "
			    "not aggregate: give --per-core or -A",
			    pd_file_name(s->f), pda_stat_aggr_name(mode));
	}
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < s->nr_fev; i++)
		if (s->fev[i].cur)
			memcpy(s->fev[i].prev, s->fev[i].cur,
			       s->fev[i].nr_cnt * sizeof(*s->fev[i].cur));
	if (PDC_GROW(s->a, s->rounds, s->alloc_rounds, s->nr_rounds + 1,
		     MAX_ROWS) < 0)
		return nomem(s);
	round = &s->rounds[s->nr_rounds++];
	s->nr_file_rounds++;
	round->time = sr->time;
	round->final = sr->type == 1;
	round->first = first;
	round->nr = s->nr_rows - first;
	s->r.aggr = mode;
	s->r.interval_ms = s->interval_ms;
	s->r.scale = s->scale;
	return 0;
}

int pda_stat_rec(struct pda_stat *s, const struct pd_rec *rec)
{
	struct pd_event ev;
	int rc;

	switch (rec->type) {
	case PD_REC_THREAD_MAP:
	case PD_REC_CPU_MAP:
	case PD_REC_STAT_CONFIG:
	case PD_REC_STAT:
	case PD_REC_STAT_ROUND:
	case PD_REC_EVENT_UPDATE:
		break;
	default:
		return 0;
	}
	s->rec_off = rec->offset;
	rc = pd_event_decode(s->f, rec, &ev);
	if (rc < 0)
		return fail(s, PD_ERR_FORMAT, "%s", pd_file_errmsg(s->f));
	switch (rec->type) {
	case PD_REC_THREAD_MAP:
		return on_thread_map(s, &ev.thread_map);
	case PD_REC_CPU_MAP:
		pdc_free(s->a, s->cpus);
		s->cpus = NULL;
		return read_cpu_map(s, &ev.cpu_map, &s->cpus, &s->nr_cpus);
	case PD_REC_STAT_CONFIG:
		return on_stat_config(s, &ev.stat_config);
	case PD_REC_STAT:
		return on_stat(s, &ev.stat);
	case PD_REC_STAT_ROUND:
		return on_round(s, &ev.stat_round);
	case PD_REC_EVENT_UPDATE:
		return on_event_update(s, &ev.event_update);
	default:
		return 0;
	}
}

/* ---- sampling captures (pda_sampled.h) -------------------------------- */

static int int_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	return (a > b) - (a < b);
}

static int i64_cmp(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

/* The aggregation a sampling capture is read in: global unless asked. */
static enum pda_stat_aggr sampled_mode(const struct pda_stat *s)
{
	return s->o.aggr == PDA_STAT_AGGR_AS_RECORDED ? PDA_STAT_AGGR_GLOBAL
						       : s->o.aggr;
}

/*
 * The CPU map (by_thread false) or thread map of the cells, sorted
 * (threads by tid, as perf stat's map of a process's threads is).  The
 * CPU map holds every CPU the recording host had too, as perf stat -a
 * -A counts on each: runs of one machine have the same CPUs whichever
 * ones their samples fell on.
 */
static int sampled_maps(struct pda_stat *s, const struct pda_sampled_report *sr,
			bool by_thread)
{
	size_t n = 0, host = 0;
	int *ids;

	if (!by_thread && s->env)
		host = s->env->nr_cpus_avail < MAX_CPUS ? s->env->nr_cpus_avail
							: MAX_CPUS;
	ids = pdc_malloc(s->a, (sr->nr_cells + host + 1) * sizeof(*ids));
	if (!ids)
		return nomem(s);
	for (size_t i = 0; i < host; i++)
		ids[n++] = (int)i;
	for (size_t i = 0; i < sr->nr_cells; i++)
		if (sr->cells[i]->by_thread == by_thread)
			ids[n++] = by_thread ? sr->cells[i]->tid
					     : sr->cells[i]->cpu;
	qsort(ids, n, sizeof(*ids), int_cmp);
	if (n) {
		size_t u = 1;

		for (size_t i = 1; i < n; i++)
			if (ids[i] != ids[u - 1])
				ids[u++] = ids[i];
		n = u;
	}
	if (!by_thread) {
		s->cpus = ids;
		s->nr_cpus = n;
		return 0;
	}
	s->pids = pdc_malloc(s->a, (n ? n : 1) * sizeof(*s->pids));
	s->comms = pdc_zalloc(s->a, (n ? n : 1) * sizeof(*s->comms));
	if (!s->pids || !s->comms) {
		pdc_free(s->a, ids);
		return nomem(s);
	}
	for (size_t i = 0; i < n; i++) {
		s->pids[i] = ids[i];
		s->comms[i] = "";
	}
	for (size_t i = 0; i < sr->nr_cells; i++) {
		const struct pda_sampled_cell *c = sr->cells[i];
		const int *t;

		if (!c->by_thread)
			continue;
		t = bsearch(&c->tid, ids, n, sizeof(*ids), int_cmp);
		if (t && !(s->comms[t - ids] = arena_str(s, c->comm,
							  strlen(c->comm)))) {
			pdc_free(s->a, ids);
			return nomem(s);
		}
	}
	s->nr_threads = n;
	pdc_free(s->a, ids);
	return 0;
}

int pda_stat_add_sampled(struct pda_stat *s, struct pd_file *f,
			 const struct pda_sampled_report *sr)
{
	const enum pda_stat_aggr mode = sampled_mode(s);
	const bool by_thread = mode == PDA_STAT_AGGR_THREAD;
	const bool by_cpu = mode != PDA_STAT_AGGR_GLOBAL && !by_thread;
	uint64_t span = sr->last_time > sr->first_time
				? sr->last_time - sr->first_time
				: 0;
	/* a counter that ran as long as the samples went on; 1 ns when
	 * they do not say (so that it counts, unscaled) */
	const uint64_t ran = span ? span : 1;
	struct pd_ev_stat_round end = {1, span};
	int rc;

	if ((rc = pda_stat_begin(s, f)) < 0)
		return rc;
	if ((by_cpu && sr->nr_no_cpu) || (by_thread && sr->nr_no_tid))
		return fail(s, PD_ERR_FORMAT,
			    "'%s': %llu samples do not say their %s (record "
			    "with %s): no --%s totals",
			    pd_file_name(f),
			    (unsigned long long)(by_cpu ? sr->nr_no_cpu
							: sr->nr_no_tid),
			    by_cpu ? "CPU" : "thread",
			    by_cpu ? "--sample-cpu or -a" : "the default TID",
			    pda_stat_aggr_name(mode));
	s->aggr = mode;
	s->scale = false; /* not multiplexed: the samples are what ran */
	s->have_config = true;
	if ((by_cpu || by_thread) &&
	    (rc = sampled_maps(s, sr, by_thread)) < 0)
		return rc;
	for (size_t i = 0; i < s->nr_events && i < sr->nr_events; i++) {
		const struct pda_sampled_event *e = &sr->events[i];

		if (!e->nr_samples && !e->nr_reads)
			continue; /* "<not counted>" */
		if ((rc = alloc_counts(s, i)) < 0)
			return rc;
		s->fev[i].seen = true;
		for (size_t k = 0; k < s->fev[i].nr_cnt; k++)
			s->fev[i].cur[k] = (struct cnt){0, ran, ran, 0};
		if (!by_cpu && !by_thread)
			s->fev[i].cur[0] = (struct cnt){
				e->count, ran, ran,
				e->from_reads ? e->nr_reads : e->nr_samples};
		s->nr_stat++;
	}
	for (size_t i = 0; (by_cpu || by_thread) && i < sr->nr_cells; i++) {
		const struct pda_sampled_cell *c = sr->cells[i];
		const int64_t tid = c->tid;
		size_t k;

		if (c->by_thread != by_thread || c->event >= s->nr_events ||
		    !s->fev[c->event].cur)
			continue;
		/* the maps are the cells' own ids, sorted: always found */
		if (by_thread)
			k = (size_t)((const int64_t *)bsearch(
					     &tid, s->pids, s->nr_threads,
					     sizeof(*s->pids), i64_cmp) -
				     s->pids);
		else
			k = (size_t)((const int *)bsearch(&c->cpu, s->cpus,
							  s->nr_cpus,
							  sizeof(*s->cpus),
							  int_cmp) -
				     s->cpus);
		s->fev[c->event].cur[k] = (struct cnt){
			pda_sampled_cell_count(sr, c), ran, ran,
			pda_sampled_cell_samples(sr, c)};
	}
	if ((rc = on_round(s, &end)) < 0)
		return rc;
	s->r.sampled = true;
	return pda_stat_end(s);
}

/* ---- runs ---------------------------------------------------------------- */

bool pda_stat_same_aggregate(const struct pda_stat_row *a,
			     const struct pda_stat_row *b)
{
	return a->cpu == b->cpu && a->socket == b->socket &&
	       a->die == b->die && a->cluster == b->cluster &&
	       a->cache == b->cache && a->core == b->core &&
	       a->node == b->node && a->thread == b->thread;
}

static bool same_aggregate(const struct pda_stat_row *a,
			   const struct pda_stat_row *b)
{
	return a->event == b->event && pda_stat_same_aggregate(a, b);
}

/* A round's rows as one run's, for the mean over several runs. */
static int take_run(struct pda_stat *s, const struct pda_stat_round *last)
{
	if (s->r.nr_runs && last->nr != s->run_width)
		return fail(s, PD_ERR_FORMAT,
			    "'%s' gives %zu counts, the first run %zu: "
			    "not runs of one command on one machine",
			    pd_file_name(s->f), last->nr, s->run_width);
	if (!s->r.nr_runs)
		s->run_width = last->nr;
	if (PDC_GROW(s->a, s->runs, s->alloc_run_rows,
		     s->nr_run_rows + last->nr, MAX_ROWS) < 0)
		return nomem(s);
	for (size_t i = 0; i < last->nr; i++) {
		const struct pda_stat_row *row = &s->rows[last->first + i];

		if (s->r.nr_runs && !same_aggregate(row, &s->runs[i]))
			return fail(s, PD_ERR_FORMAT,
				    "'%s' counts other CPUs or threads than "
				    "the first run: not runs of one "
				    "command", pd_file_name(s->f));
		s->runs[s->nr_run_rows++] = *row;
	}
	s->r.nr_runs++;
	return 0;
}

int pda_stat_end(struct pda_stat *s)
{
	size_t first = s->nr_rounds - s->nr_file_rounds, nr_final = 0;
	int rc;

	if (s->nr_stat > 0 && s->nr_file_rounds == 0)
		return fail(s, PD_ERR_FORMAT,
			    "'%s' holds %llu STAT records but no STAT_ROUND to "
			    "total them: cut short before perf stat record "
			    "ended?",
			    pd_file_name(s->f), (unsigned long long)s->nr_stat);
	if (s->nr_file_rounds == 0 || s->nr_stat == 0)
		return fail(s, PD_ERR_FORMAT,
			    "'%s' holds no counts (no STAT and STAT_ROUND "
			    "records): not a 'perf stat record' capture",
			    pd_file_name(s->f));
	if (s->interval_ms)
		s->any_interval = true;
	if (!s->first_file_done) {
		s->r.nr_cmdline = s->env ? s->env->nr_cmdline : 0;
		s->r.cmdline = s->env ? s->env->cmdline : NULL;
	}
	if (s->first_file_done && s->any_interval)
		return fail(s, PD_ERR_FORMAT,
			    "'%s': captures of -I intervals are read one at a "
			    "time (perf stat -r refuses -I too)",
			    pd_file_name(s->f));
	for (size_t i = first; !s->interval_ms && i < s->nr_rounds; i++)
		nr_final += s->rounds[i].final;
	/* threads of two runs are other threads: nothing to average */
	if ((s->first_file_done || nr_final > 1) &&
	    s->r.aggr == PDA_STAT_AGGR_THREAD)
		return fail(s, PD_ERR_FORMAT,
			    "'%s': per-thread captures are read one at a time",
			    pd_file_name(s->f));
	if (nr_final > 1) {
		/* pdtool record --stat -r N: a FINAL round per run */
		for (size_t i = first; i < s->nr_rounds; i++)
			if (s->rounds[i].final &&
			    (rc = take_run(s, &s->rounds[i])) < 0)
				return rc;
	} else if ((rc = take_run(s, &s->rounds[s->nr_rounds - 1])) < 0) {
		/* the last round's rows are this run's */
		return rc;
	}
	s->first_file_done = true;
	s->f = NULL;
	return 0;
}

/* Several runs: one round of each aggregate's mean over the runs, with
 * the spread of the mean; the metrics from the shadow values of every
 * run (which perf stat -r keeps the same way). */
static int merge_runs(struct pda_stat *s)
{
	const size_t w = s->run_width, n = s->r.nr_runs;
	size_t first = s->nr_rows;
	struct pda_stat_round *round;

	for (size_t i = 0; i < w; i++) {
		struct stats v = {0, 0, 0}, e = {0, 0, 0}, r = {0, 0, 0},
			     raw = {0, 0, 0}, smp = {0, 0, 0};
		struct pda_stat_row *row;
		bool counted = true;

		for (size_t k = 0; k < n; k++) {
			const struct pda_stat_row *x = &s->runs[k * w + i];

			stats_add(&v, (double)x->val);
			stats_add(&e, (double)x->ena);
			stats_add(&r, (double)x->run);
			stats_add(&raw, (double)x->raw);
			stats_add(&smp, (double)x->samples);
			counted = counted && x->counted;
		}
		if (!(row = new_row(s, s->runs[i].event)))
			return nomem(s);
		*row = s->runs[i];
		row->val = (uint64_t)llround(v.mean);
		row->raw = (uint64_t)llround(raw.mean);
		row->ena = (uint64_t)llround(e.mean);
		row->run = (uint64_t)llround(r.mean);
		row->samples = (uint64_t)llround(smp.mean);
		row->uval = v.mean * s->events[row->event].scale;
		row->noise = v.mean ? 100.0 * stats_sd(&v) / v.mean : 0.0;
		row->counted = counted;
	}
	for (size_t i = first; i < s->nr_rows; i++) {
		const struct pda_stat_row *row = &s->rows[i];
		int64_t agg;

		switch (s->r.aggr) {
		case PDA_STAT_AGGR_NONE:
			agg = row->cpu;
			break;
		case PDA_STAT_AGGR_THREAD:
			agg = row->thread;
			break;
		case PDA_STAT_AGGR_SOCKET:
		case PDA_STAT_AGGR_DIE:
		case PDA_STAT_AGGR_CORE:
		case PDA_STAT_AGGR_NODE:
			agg = (int64_t)((i - first) / s->nr_events);
			break;
		case PDA_STAT_AGGR_AS_RECORDED:
		case PDA_STAT_AGGR_GLOBAL:
		case PDA_STAT_AGGR_CLUSTER:
		case PDA_STAT_AGGR_CACHE:
		default:
			agg = 0;
			break;
		}
		metrics(s, &s->rows[i], agg);
	}
	if (PDC_GROW(s->a, s->rounds, s->alloc_rounds, s->nr_rounds + 1,
		     MAX_ROWS) < 0)
		return nomem(s);
	round = &s->rounds[s->nr_rounds++];
	round->time = (uint64_t)llround(s->walltime.mean);
	round->final = true;
	round->first = first;
	round->nr = s->nr_rows - first;
	return 0;
}

int pda_stat_finish(struct pda_stat *s)
{
	size_t keep_from = 0;
	int rc;

	if (s->r.nr_runs > 1) {
		keep_from = s->nr_rounds;
		if ((rc = merge_runs(s)) < 0)
			return rc;
	}
	s->r.walltime_ns = s->walltime.mean;
	s->r.walltime_sd_ns = stats_sd(&s->walltime);
	s->r.nr_events = s->nr_events;
	s->r.events = s->events;
	s->r.nr_rounds = s->nr_rounds - keep_from;
	s->r.rounds = s->rounds + keep_from;
	s->r.nr_rows = s->nr_rows;
	s->r.rows = s->rows;
	return 0;
}
