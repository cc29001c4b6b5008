/*
 * pda_recstat.c - `pdtool record --stat`: the events counted (no ring
 * buffers, no samples) on a workload, on processes or threads, or on
 * whole CPUs, and written as perf 6.1's `perf stat record` writes its
 * capture: attrs with sample_type IDENTIFIER and read_format
 * TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING, the STAT feature, then in the
 * data EVENT_UPDATE (the clocks' unit and scale), THREAD_MAP, CPU_MAP,
 * STAT_CONFIG, and a STAT per counter (event, CPU, thread) before each
 * STAT_ROUND.  A group {a,b} is opened as one (its members on the
 * leader's fd, read_format ID|GROUP for all, GROUP_DESC written) and
 * read at once from its leader, so its members count the same time.
 *
 * A STAT holds the counter's value since the start: perf stat report
 * subtracts the previous round's to get an interval's.  -r N (which
 * perf stat record refuses) builds on that: the N runs are N FINAL
 * rounds of one capture, each run's counts added to those of the runs
 * before it, so that perf 6.1's perf stat report prints each run's own
 * counts (a block per run), and `pdtool stat` takes every FINAL round of
 * a capture without intervals as a run (mean and spread, as perf stat
 * -r).  Each run opens its counters again, on its own workload; the
 * STAT records name them by the first run's ids, the ones in the attrs.
 */
#include "pda_record_priv.h"
#include "pd_write.h"
#include "pdc_alloc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults"
#define IDLE_MS 100 /* how soon a stop or a target's exit is seen */
/* perf 6.1's numbering of STAT_CONFIG's terms and aggregation modes */
#define STAT_TERM_AGGR_MODE 0
#define STAT_TERM_INTERVAL 1
#define STAT_TERM_SCALE 2
#define AGGR_NONE 0
#define AGGR_GLOBAL 1
#define AGGR_THREAD 5
#define ROUND_INTERVAL 0
#define ROUND_FINAL 1

struct count {
	uint64_t val, ena, run;
};

struct rstat {
	struct rec *r;
	struct pdc_strbuf out;	/* records for the next pd_writer_data() */
	uint64_t *keys;		/* the first run's ids: STAT's id, per slot */
	struct count *done;	/* the runs before this one, per slot */
	struct count *cur;	/* this run's, as last read */
	size_t nr_slots;
	int pidfd;		/* the workload's, -1 without */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* An event in a group of more than one. */
static bool grouped(const struct rec *r, size_t e)
{
	return r->ev[r->ev[e].leader].nr_members > 1;
}

/* perf stat's attrs (perf 6.1's create_perf_stat_counter and
 * evsel__config for a counter). */
static void config_counters(struct rec *r)
{
	const struct pda_record_opts *o = &r->o;
	bool per_cpu = o->system_wide || o->cpus;

	for (size_t i = 0; i < r->nr_ev; i++) {
		struct perf_event_attr *a = &r->ev[i].attr;
		const bool member = r->ev[i].leader != i;

		a->size = sizeof(*a);
		a->sample_type = PERF_SAMPLE_IDENTIFIER;
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* a group is read at once, from its leader */
		if (grouped(r, i))
			a->read_format |= PERF_FORMAT_ID | PERF_FORMAT_GROUP;
		/* the members start and stop with their leader */
		a->disabled = !member;
		a->inherit = o->tids ? 0 : 1;
		a->enable_on_exec = o->argv && !per_cpu && !member ? 1 : 0;
		a->exclude_guest = !r->ev[i].guest_set || r->ev[i].excl_guest;
		a->exclude_host = r->ev[i].guest_set && r->ev[i].excl_host;
	}
}

/* Counting needs no CPU for a task: perf's dummy CPU map, {-1}. */
static int task_cpus(struct rec *r)
{
	if (r->o.system_wide || r->o.cpus)
		return 0;
	if (r->nr_cpus < 1)
		return rec_errf(r, PD_ERR_API, "no CPU online");
	r->cpus[0] = -1;
	r->nr_cpus = 1;
	return 0;
}

static int open_counters(struct rstat *s)
{
	struct rec *r = s->r;
	size_t nr = r->nr_cpus * r->nr_threads * r->nr_ev;

	if (s->nr_slots && nr != s->nr_slots)
		return rec_errf(r, PD_ERR_API,
				"run with %zu counters after %zu: runs must "
				"count the same",
				nr, s->nr_slots);
	r->fds = pdc_malloc(r->a, nr * sizeof(*r->fds));
	r->ids = pdc_zalloc(r->a, nr * sizeof(*r->ids));
	if (!r->fds || !r->ids)
		return rec_errf(r, PD_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < nr; i++)
		r->fds[i] = -1;
	r->nr_fds = nr;
	for (size_t c = 0; c < r->nr_cpus; c++)
		for (size_t t = 0; t < r->nr_threads; t++)
			for (size_t e = 0; e < r->nr_ev; e++) {
				size_t i = (c * r->nr_threads + t) * r->nr_ev +
					   e;
				bool gone = false;
				/* a member on its leader's fd (opened first:
				 * a leader comes before its members) */
				int group_fd = r->ev[e].leader == e
						       ? -1
						       : r->fds[i - e +
								r->ev[e].leader];
				int fd = rec_open_one(r, e, r->threads[t],
						      r->cpus[c], group_fd,
						      &gone);

				if (gone)
					break;
				if (fd < 0)
					return fd;
				r->fds[i] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &r->ids[i]) <
				    0)
					return rec_errf(r, PD_ERR_IO,
							"PERF_EVENT_IOC_ID: %s",
							strerror(errno));
			}
	for (size_t i = 0; i < nr; i++)
		if (r->fds[i] >= 0)
			return 0;
	return rec_errf(r, PD_ERR_NOTFOUND,
			"every thread to count has exited");
}

/* The previous run's counters and workload, before the next. */
static void end_run(struct rstat *s)
{
	struct rec *r = s->r;

	rec_close_events(r);
	pdc_free(r->a, r->fds);
	pdc_free(r->a, r->ids);
	pdc_free(r->a, r->cpus);
	pdc_free(r->a, r->threads);
	r->fds = NULL;
	r->ids = NULL;
	r->cpus = NULL;
	r->threads = NULL;
	r->nr_fds = r->nr_cpus = r->nr_threads = 0;
	r->child = 0;
	r->child_done = false;
	if (s->pidfd >= 0)
		close(s->pidfd);
	s->pidfd = -1;
}

/* ---- the records --------------------------------------------------- */

static uint64_t event_id(const struct rstat *s, size_t e)
{
	for (size_t i = e; i < s->nr_slots; i += s->r->nr_ev)
		if (s->keys[i])
			return s->keys[i];
	return 0;
}

static void stat_config(struct rstat *s)
{
	const struct pda_record_opts *o = &s->r->o;
	uint64_t aggr = o->stat_aggr == PDA_REC_STAT_PER_CPU ? AGGR_NONE
			: o->stat_aggr == PDA_REC_STAT_PER_THREAD
				? AGGR_THREAD
				: AGGR_GLOBAL;

	rec_put_header(&s->out, PD_REC_STAT_CONFIG, 16 + 3 * 16);
	rec_put_u64(&s->out, 3);
	rec_put_u64(&s->out, STAT_TERM_AGGR_MODE);
	rec_put_u64(&s->out, aggr);
	rec_put_u64(&s->out, STAT_TERM_INTERVAL);
	rec_put_u64(&s->out, o->interval_ms);
	rec_put_u64(&s->out, STAT_TERM_SCALE);
	rec_put_u64(&s->out, 1);
}

/* A group's counts from its leader at slot i (read_format GROUP: nr,
 * time enabled, time running, then value and id per member) into its
 * members' slots, found by id: each with the group's times. */
static void read_group(struct rstat *s, size_t i)
{
	struct rec *r = s->r;
	const size_t nr = r->ev[i % r->nr_ev].nr_members;
	uint64_t v[3 + 2 * REC_MAX_EVENTS];
	ssize_t want = (ssize_t)((3 + 2 * nr) * sizeof(v[0]));

	if (r->fds[i] < 0 || read(r->fds[i], v, sizeof(v)) != want ||
	    v[0] != nr)
		return;
	for (size_t m = 0; m < nr; m++)
		for (size_t k = 0; k < nr; k++)
			if (r->ids[i + k] == v[4 + 2 * m]) {
				s->cur[i + k].val = v[3 + 2 * m];
				s->cur[i + k].ena = v[1];
				s->cur[i + k].run = v[2];
			}
}

/* Every counter read, a STAT each (the runs before added), a round. */
static int stat_round(struct rstat *s, uint64_t type, uint64_t time)
{
	struct rec *r = s->r;
	int rc;

	for (size_t i = 0; i < s->nr_slots; i++) {
		size_t t = i / r->nr_ev % r->nr_threads;
		size_t c = i / r->nr_ev / r->nr_threads;
		uint64_t v[3];
		/* the CPU by its number (perf_cpu_map__idx), the thread by
		 * its place in the map */
		uint32_t cpu = (uint32_t)r->cpus[c], thread = (uint32_t)t;

		if (!s->keys[i])
			continue; /* its thread had gone in the first run */
		if (grouped(r, i % r->nr_ev)) {
			/* the leader reads its members' counts too */
			if (r->ev[i % r->nr_ev].leader == i % r->nr_ev)
				read_group(s, i);
		} else if (r->fds[i] >= 0 &&
			   read(r->fds[i], v, sizeof(v)) ==
				   (ssize_t)sizeof(v)) {
			s->cur[i].val = v[0];
			s->cur[i].ena = v[1];
			s->cur[i].run = v[2];
		}
		rec_put_header(&s->out, PD_REC_STAT, 48);
		rec_put_u64(&s->out, s->keys[i]);
		pdc_strbuf_add(&s->out, &cpu, 4);
		pdc_strbuf_add(&s->out, &thread, 4);
		rec_put_u64(&s->out, s->done[i].val + s->cur[i].val);
		rec_put_u64(&s->out, s->done[i].ena + s->cur[i].ena);
		rec_put_u64(&s->out, s->done[i].run + s->cur[i].run);
		r->st->nr_stat++;
	}
	rec_put_header(&s->out, PD_REC_STAT_ROUND, 24);
	rec_put_u64(&s->out, type);
	rec_put_u64(&s->out, time);
	r->st->nr_rounds++;
	if (s->out.oom)
		return rec_errf(r, PD_ERR_NOMEM, "out of memory");
	rc = pd_writer_data(r->w, s->out.p, s->out.len);
	s->out.len = 0;
	return rc < 0 ? rec_errf(r, rc, "%s", pd_writer_errmsg(r->w)) : 0;
}

/* ---- a run --------------------------------------------------------- */

static bool targets_gone(const struct rec *r)
{
	if (r->o.system_wide || r->o.cpus || r->child)
		return false;
	for (size_t t = 0; t < r->nr_threads; t++)
		if (kill(r->threads[t], 0) == 0 || errno != ESRCH)
			return false;
	return true;
}

/* How long to wait, in ms, until the next thing to do. */
static int wait_ms(uint64_t now, uint64_t next, uint64_t end, bool pidfd)
{
	uint64_t until = UINT64_MAX;

	if (next)
		until = next;
	if (end && end < until)
		until = end;
	if (until == UINT64_MAX)
		return pidfd ? -1 : IDLE_MS;
	if (until <= now)
		return 0;
	until = (until - now + 999999) / 1000000;
	if (!pidfd && until > IDLE_MS)
		until = IDLE_MS;
	return until > INT32_MAX ? INT32_MAX : (int)until;
}

static int count_run(struct rstat *s)
{
	struct rec *r = s->r;
	const struct pda_record_opts *o = &r->o;
	uint64_t t0, end = 0, next = 0, ival = (uint64_t)o->interval_ms * 1000000;
	int rc = 0;

	memset(s->cur, 0, s->nr_slots * sizeof(*s->cur));
	t0 = now_ns();
	if (o->duration > 0)
		end = t0 + (uint64_t)(o->duration * 1e9);
	if (ival)
		next = t0 + ival;
	if (!r->child || o->system_wide || o->cpus)
		rec_ioctl_all(r, PERF_EVENT_IOC_ENABLE);
	if (r->child) {
		rc = rec_start_workload(r);
		if (rc < 0)
			return rc;
#ifdef SYS_pidfd_open
		s->pidfd = (int)syscall(SYS_pidfd_open, r->child, 0);
#endif
	}
	for (;;) {
		struct pollfd p = {s->pidfd, POLLIN, 0};
		uint64_t t = now_ns();

		if ((o->stop && *o->stop) || (end && t >= end))
			break;
		if (r->child && rec_workload_exited(r))
			break;
		if (targets_gone(r))
			break;
		if (next && t >= next) {
			rc = stat_round(s, ROUND_INTERVAL, t - t0);
			if (rc < 0)
				return rc;
			next += ival;
			continue;
		}
		if (poll(&p, s->pidfd >= 0, wait_ms(t, next, end,
						     s->pidfd >= 0)) < 0 &&
		    errno != EINTR)
			return rec_errf(r, PD_ERR_IO, "poll: %s",
					strerror(errno));
	}
	t0 = now_ns() - t0;
	rec_ioctl_all(r, PERF_EVENT_IOC_DISABLE);
	if (r->child && !r->child_done) {
		/* stopped first: the workload goes, as perf ends it */
		kill(r->child, SIGTERM);
		waitpid(r->child, &r->st->workload_status, 0);
		r->child_done = true;
	}
	/* the last interval ends with the run, as perf's does */
	return stat_round(s, ival ? ROUND_INTERVAL : ROUND_FINAL, t0);
}

static int features(struct rstat *s)
{
	struct rec *r = s->r;
	int rc = rec_add_events(r);

	if (rc == 0)
		rc = rec_host_features(r->w, &r->o, r->a);
	if (rc == 0)
		rc = rec_event_desc(r);
	if (rc == 0)
		rc = rec_group_desc(r);
	/* "contains stat data": a section of no bytes */
	if (rc == 0)
		rc = pd_writer_feature(r->w, PD_FEAT_STAT, "", 0);
	if (rc == 0)
		rc = pd_writer_begin(r->w);
	if (rc < 0)
		return rec_errf(r, rc, "cannot start the capture: %s",
				pd_writer_errmsg(r->w));
	for (size_t e = 0; e < s->r->nr_ev; e++)
		rec_synth_units(&s->out, &s->r->ev[e].attr, event_id(s, e));
	rec_synth_thread_map(s->r, &s->out, true);
	rec_synth_cpu_map(&s->out, s->r->cpus, s->r->nr_cpus);
	stat_config(s);
	if (s->out.oom)
		return rec_errf(r, PD_ERR_NOMEM, "out of memory");
	rc = pd_writer_data(r->w, s->out.p, s->out.len);
	s->out.len = 0;
	return rc < 0 ? rec_errf(r, rc, "%s", pd_writer_errmsg(r->w)) : 0;
}

/* The first run's counters: the slots, their keys, the capture begun. */
static int first_run(struct rstat *s)
{
	struct rec *r = s->r;
	PD_WRITER_OPTS(wo, .alloc = r->a);
	int rc;

	s->nr_slots = r->nr_fds;
	s->keys = pdc_zalloc(r->a, s->nr_slots * sizeof(*s->keys));
	s->done = pdc_zalloc(r->a, s->nr_slots * sizeof(*s->done));
	s->cur = pdc_zalloc(r->a, s->nr_slots * sizeof(*s->cur));
	if (!s->keys || !s->done || !s->cur)
		return rec_errf(r, PD_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < s->nr_slots; i++)
		s->keys[i] = r->fds[i] >= 0 ? r->ids[i] : 0;
	if (r->o.out_fd < 0) {
		r->o.out_fd = r->o.open_out(r->o.open_out_arg);
		if (r->o.out_fd < 0)
			return rec_errf(r, PD_ERR_IO,
					"cannot open the output: %s",
					strerror(errno));
	}
	rc = pd_writer_new(r->o.out_fd, &wo, &r->w);
	if (rc < 0)
		return rec_errf(r, rc, "cannot start the capture: %s",
				pd_strerror(rc));
	return features(s);
}

static int check_opts(struct rec *r)
{
	const struct pda_record_opts *o = &r->o;

	if (o->pipe)
		return rec_errf(r, PD_ERR_API,
				"--stat writes a file: give -o FILE");
	if (o->inherit_stat)
		return rec_errf(r, PD_ERR_API,
				"-s is for sampling: --stat counts already");
	if (o->runs > 1 && !o->argv)
		return rec_errf(r, PD_ERR_API, "-r: give a command to run");
	if (o->runs > 1 && o->interval_ms)
		return rec_errf(r, PD_ERR_API,
				"-r and -I do not go together (as in perf "
				"stat)");
	if (o->runs > 1 && o->stat_aggr == PDA_REC_STAT_PER_THREAD)
		return rec_errf(r, PD_ERR_API,
				"-r and --per-thread do not go together: each "
				"run has other threads");
	if (o->stat_aggr == PDA_REC_STAT_PER_CPU && !o->system_wide &&
	    !o->cpus)
		return rec_errf(r, PD_ERR_API, "-A needs -a or -C");
	return 0;
}

int rec_stat_run(struct rec *r)
{
	struct rstat s = {.r = r, .pidfd = -1};
	unsigned runs = r->o.runs ? r->o.runs : 1;
	int rc = check_opts(r), wrc;

	if (rc == 0)
		rc = rec_parse_events(r->o.events ? r->o.events
						  : DEFAULT_EVENTS,
				      "/sys", r->ev, REC_MAX_EVENTS, &r->nr_ev,
				      r->err, r->err_size);
	pdc_strbuf_init(&s.out, r->a, NULL, 0);
	if (rc == 0)
		config_counters(r);
	for (unsigned k = 0; rc == 0 && k < runs; k++) {
		if (k)
			end_run(&s);
		if (r->o.stop && *r->o.stop)
			break; /* Ctrl-C: the runs so far */
		rc = rec_targets(r);
		if (rc == 0)
			rc = task_cpus(r);
		if (rc == 0)
			rc = open_counters(&s);
		if (rc == 0 && k == 0)
			rc = first_run(&s);
		if (rc == 0)
			rc = count_run(&s);
		for (size_t i = 0; rc == 0 && i < s.nr_slots; i++) {
			s.done[i].val += s.cur[i].val;
			s.done[i].ena += s.cur[i].ena;
			s.done[i].run += s.cur[i].run;
		}
	}
	if (r->w) {
		wrc = pd_writer_finish(r->w);
		r->st->bytes = r->st->bytes_raw = pd_writer_data_size(r->w);
		if (pd_writer_errno(r->w)) {
			r->st->write_failed = true;
			r->st->write_errno = pd_writer_errno(r->w);
			rc = rec_errf(r, PD_ERR_IO, "%s",
				      pd_writer_errmsg(r->w));
		} else if (rc == 0 && wrc < 0) {
			rc = rec_errf(r, wrc, "%s", pd_writer_errmsg(r->w));
		}
	}
	if (s.pidfd >= 0)
		close(s.pidfd);
	pdc_strbuf_release(&s.out);
	pdc_free(r->a, s.keys);
	pdc_free(r->a, s.done);
	pdc_free(r->a, s.cur);
	return rc;
}
