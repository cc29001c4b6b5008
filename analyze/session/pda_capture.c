/*
 * pda_capture.c - the capture loop (pda_capture.h): records from the
 * reader to the sample pipeline or the caller, lost accounting, progress,
 * and errors that stop the run instead of the process.
 */
#include "pda_machine_int.h"
#include "pda_capture.h"
#include "pda_pipe.h"
#include "pda_readgroup.h"

#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Sideband records a two-pass run keeps, at most, and their bytes with
 * their entries: a day of a busy machine's processes and maps is a few
 * million records of about 100 bytes; a capture made of nothing else (a
 * compressed bomb) stops here, not at the memory's end.
 */
#define SIDEBAND_MAX ((size_t)1 << 24)
#define SIDEBAND_BYTES_MAX ((size_t)512 << 20)

/* A sideband record's place in the order perf's ordered events deliver. */
struct pda_sb_key {
	uint64_t time;
	uint64_t seq;
};

/*
 * Where each record of a raw reading lands in that order (reader/
 * pd_order.c): a record with a timestamp by (time, seq); one without,
 * delivered as it is read, after what the flushes before it delivered:
 * every record up to the last flush's limit, and before the rest.
 */
struct order_clock {
	uint64_t seq;
	uint64_t max_time;	/* newest timestamp so far */
	uint64_t next_flush;	/* the limit of the next FINISHED_ROUND */
	uint64_t flushed;	/* the limit of the last one */
	bool end_only;		/* a directory's files: flushed at the end */
};

/* The key of a record other than a FINISHED_ROUND whose time
 * (pd_rec_time's) is time. */
static inline void clock_key_at(struct order_clock *k, uint64_t time,
			 struct pda_sb_key *key)
{
	key->seq = k->seq++;
	if (time == 0 || time == UINT64_MAX) {
		key->time = k->flushed;
		return;
	}
	key->time = time;
	if (time > k->max_time)
		k->max_time = time;
}

static inline void clock_key(struct order_clock *k, struct pd_file *f,
		      const struct pd_rec *rec, struct pda_sb_key *key)
{
	uint64_t time;

	if (rec->type != PD_REC_FINISHED_ROUND) {
		pd_rec_time(f, rec, &time);
		clock_key_at(k, time, key);
		return;
	}
	key->seq = k->seq++;
	if (!k->end_only) {
		k->flushed = k->next_flush;
		k->next_flush = k->max_time;
	}
	key->time = k->flushed;
}

/*
 * Shards.  The second pass reads the session's state only (each sample
 * resolved in its epoch's), so its records can be read in byte ranges
 * apart, one per -j thread, each from a place where a record begins:
 * the first pass, which reads every record header, notes the record that
 * follows each 1/N of the data section, with what the second pass needs
 * to go on from there as if it had read everything before: the order
 * clock (its FINISHED_ROUNDs, newest timestamp, records counted) and the
 * records and samples counted before it.  Only where the reader can tell
 * such places (a mapped capture, no -z chunks) and nothing fed in time
 * order rides along (a trace's synthesized samples).
 */
struct pda_capture_cut {
	struct pd_reader_pos pos;
	struct order_clock k;	/* after the record before pos */
	uint64_t nr_records, nr_samples;
};

#define SHARDS_MAX 64
/* records a shard reads between looks at whether to stop */
#define SHARD_CHECK 256u

static int cmp_key(const struct pda_sb_key *x, const struct pda_sb_key *y)
{
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void set_msg(struct pda_capture *c, enum pda_capture_stage where,
		    const char *msg)
{
	c->failed_in = where;
	snprintf(c->errmsg, sizeof(c->errmsg), "%s", msg);
}

/* The session failed with rc: its message says why, or rc's name where
 * it said nothing (a bare PD_ERR_NOMEM deep down: a shard's view has no
 * message before its first failure, the session's may be a warning's;
 * pda_session_failure).  @return rc. */
static int session_failed(struct pda_capture *c, int rc)
{
	set_msg(c, PDA_CAPTURE_SESSION, pda_session_failure(c->s, rc));
	return rc;
}

int pda_capture_set_err(struct pda_capture *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	va_end(ap);
	c->msg_set = true;
	return err;
}

/* A callback failed with rc: the stage, and its message unless it set
 * one.  @return rc. */
static int callback_failed(struct pda_capture *c, int rc)
{
	c->failed_in = PDA_CAPTURE_CALLBACK;
	if (!c->msg_set)
		snprintf(c->errmsg, sizeof(c->errmsg), "%s", pd_strerror(rc));
	return rc;
}

/* The reader failed with rc: the file's message says why. */
static int reader_failed(struct pda_capture *c, int rc)
{
	const char *msg = pd_file_errmsg(c->f);

	set_msg(c, PDA_CAPTURE_READER, msg[0] ? msg : pd_strerror(rc));
	return rc;
}

static int shard_skip(struct pda_capture_shard *sh,
		      enum pda_capture_skip what, const char *why);

static int skip(struct pda_capture *c, enum pda_capture_skip what,
		const char *why)
{
	int rc = 0;

	if (c->shard)
		rc = shard_skip(c->shard, what, why);
	else if (c->o.skip_fn)
		rc = c->o.skip_fn(c->o.arg, what, why);

	if (what == PDA_CAPTURE_BAD_SAMPLE)
		c->st.nr_bad_samples++;
	else if (what == PDA_CAPTURE_UNKNOWN_ID)
		c->st.nr_unknown_id++;
	else
		c->st.nr_stack_errors++;
	return rc < 0 ? callback_failed(c, rc) : 0;
}

/* ---- the pipeline's callbacks --------------------------------------- */

/* A sample that reads its counters: whether any value may be kept (each
 * is filtered as its own sample when it is handed on), or names no
 * event (to be counted when it is handed on). */
static bool want_group(struct pda_capture *c, const struct pd_sample *sample)
{
	for (uint64_t i = 0; i < sample->read.nr; i++) {
		struct pd_read_value v;
		struct pd_sample m = *sample;

		pd_sample_read_value(sample, i, &v);
		m.evsel = pd_file_evsel_by_id(c->f, v.id);
		if (!m.evsel || pda_filter_peek(c->o.filter, &m))
			return true;
	}
	return false;
}

static bool want(void *arg, const struct pd_sample *sample)
{
	struct pda_capture *c = arg;

	if (c->o.filter && pda_readgroup_is(sample))
		return want_group(c, sample);
	if (c->o.filter && c->unwinding)
		return pda_filter_peek(c->o.filter, sample);
	return !c->o.filter ||
	       pda_filter_sample_n(c->o.filter, sample,
				   pda_pipe_count(c->pipe));
}

/* A read value whose id names no event: left out, counted, said. */
static int unknown_id(struct pda_capture *c, const struct pd_sample *sample,
		      uint64_t i)
{
	struct pd_read_value v;
	char why[128];

	pd_sample_read_value(sample, i, &v);
	snprintf(why, sizeof(why),
		 "sample read values with ids no event has (%" PRIu64
		 " first) are left out, as perf does",
		 v.id);
	return skip(c, PDA_CAPTURE_UNKNOWN_ID, why);
}

/* A sample that read its counters: each value as its own sample, as
 * perf delivers them (pda_readgroup.h), each through the filter. */
static int deliver_group(struct pda_capture *c, const struct pda_pipe_item *it)
{
	if (!c->rg) {
		c->rg = pda_zalloc(c->s, sizeof(*c->rg));
		if (!c->rg)
			return callback_failed(c, PD_ERR_NOMEM);
	}
	for (uint64_t i = 0; i < it->sample->read.nr; i++) {
		struct pda_pipe_item one = *it;
		struct pd_sample m;
		int rc = pda_readgroup_member(c->rg, c->s, c->f, it->sample, i,
					      &m);

		if (rc < 0)
			return callback_failed(c, rc);
		if (rc == PDA_READGROUP_UNKNOWN) {
			rc = unknown_id(c, it->sample, i);
			if (rc < 0)
				return rc;
			continue;
		}
		if (rc == 0 ||
		    (c->o.filter && !pda_filter_sample(c->o.filter, &m)))
			continue;
		one.sample = &m;
		rc = c->o.sample_fn(c->o.arg, &one);
		if (rc < 0)
			return callback_failed(c, rc);
	}
	return 0;
}

static int deliver(void *arg, const struct pda_pipe_item *it)
{
	struct pda_capture *c = arg;
	int rc;

	/* each sample of a group (counted) is skipped */
	for (uint64_t i = 0; it->err && i < it->count; i++)
		if ((rc = skip(c, PDA_CAPTURE_STACK_ERROR,
			       pda_session_errmsg(c->s))) < 0)
			return rc;
	if (it->err)
		return 0;
	if (pda_readgroup_is(it->sample))
		return deliver_group(c, it);
	rc = c->o.sample_fn(c->o.arg, it);
	return rc < 0 ? callback_failed(c, rc) : 0;
}

/*
 * Whether the names a run gives depend on the order its addresses are
 * first resolved in: binutils' addr2line, which perf 6.1 asks for the
 * inlined functions of DWARF-unwound frames (and of callchain addresses
 * with inline_callchain), names a function record after the first
 * address it was asked about (pda_dwarf.c a2l_name), and perf asks in
 * time order.  With inline callchains, a run reads in time order; with
 * DWARF-unwound frames only, it unwinds first (unwind_pass).
 */
static bool order_matters(const struct pda_session *s)
{
	return !s->opts.no_inline && s->opts.inline_callchain;
}

/* Whether samples of f may be unwound from DWARF (regs and stack). */
static bool unwinds(struct pd_file *f, const struct pda_capture_opts *o)
{
	const uint64_t dwarf = PD_SAMPLE_REGS_USER | PD_SAMPLE_STACK_USER;

	if (o->no_stack || o->leaf_only)
		return false;
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
		if ((pd_file_evsel(f, i)->attr.sample_type & dwarf) == dwarf)
			return true;
	return false;
}

/* Whether samples of f are unwound into frames whose names depend on
 * that order (once its events are known: after the first pass). */
static bool unwinds_named(struct pd_file *f, const struct pda_session *s,
			  const struct pda_capture_opts *o)
{
	return !s->opts.no_inline && unwinds(f, o);
}

/* ---- the run ---------------------------------------------------------- */

/*
 * The reader's pager thread (PD_READ_PAGER) takes the file's page faults
 * off the thread that reads and decodes, where the run may use a second
 * CPU: it uses the share the pipeline's other threads leave idle.
 */
static unsigned pager_flag(const struct pda_capture *c)
{
	if (c->o.jobs == 1 ||
	    (c->o.jobs == 0 && sysconf(_SC_NPROCESSORS_ONLN) < 2))
		return 0;
	return PD_READ_PAGER;
}

/* The run's sample pipeline (a shard's).  @return 0 or a negative
 * pd_err, said. */
static int new_pipe(struct pda_capture *c)
{
	PDA_PIPE_OPTS(po, .jobs = c->o.jobs, .no_stack = c->o.no_stack,
		      .ip_stacks = c->o.ip_stacks, .leaf_only = c->o.leaf_only,
		      .ip_leaf = c->o.ip_leaf, .memo = c->o.memo,
		      .memo_tid = c->o.memo_tid, .memo_max = c->o.memo_max,
		      .resolve_apart = c->o.resolve_apart, .batch = c->o.batch,
		      .want = want, .fn = deliver, .arg = c, .view = c->view);
	const int rc = pda_pipe_new(c->s, &po, &c->pipe);

	if (rc < 0)
		set_msg(c, PDA_CAPTURE_SESSION, pd_strerror(rc));
	return rc;
}

int pda_capture_init(struct pda_capture *c, struct pd_file *f,
		     struct pda_session *s, const struct pda_capture_opts *opts)
{
	int rc;

	memset(c, 0, sizeof(*c));
	if (!f || !opts || pdc_opts_copy(&c->o, sizeof(c->o), opts) < 0 ||
	    (s ? !c->o.sample_fn : !c->o.rec_fn)) {
		snprintf(c->errmsg, sizeof(c->errmsg),
			 "pda_capture_init: bad options");
		return PD_ERR_API;
	}
	c->f = f;
	c->s = s;
	c->two_pass = s && !c->o.time_order && pd_file_header(f)->file_size &&
		      !order_matters(s);
	rc = pd_reader_new(f,
			   (c->two_pass		     ? pager_flag(c)
			    : s || c->o.ordered ? PD_READ_ORDERED
						: pager_flag(c)) |
				   (c->o.quiet ? PD_READ_QUIET : 0u),
			   &c->r);
	if (rc < 0)
		return reader_failed(c, rc);
	return s ? new_pipe(c) : 0;
}

/* LOST and LOST_SAMPLES: what the kernel could not write. */
static void count_lost(struct pda_capture *c, const struct pd_rec *rec)
{
	struct pd_ev_lost lost;

	if (pd_lost_decode(c->f, rec, &lost) < 0) {
		c->st.nr_bad_lost++;
		return;
	}
	if (rec->type == PD_REC_LOST)
		c->st.nr_lost += lost.lost;
	else if (rec->misc & PD_MISC_LOST_SAMPLES_BPF)
		c->st.nr_dropped_samples += lost.lost;
	else
		c->st.nr_lost_samples += lost.lost;
}

uint64_t pda_capture_lost_count(const struct pd_file *f, uint64_t lost,
				uint64_t lost_samples)
{
	for (size_t i = 0; i < pd_file_nr_evsels(f); i++)
		if (pd_file_evsel(f, i)->attr.read_format & PD_FORMAT_LOST)
			return lost > lost_samples ? lost : lost_samples;
	return lost + lost_samples;
}

/* The epoch of a sample with key: the sideband records before it. */
static uint32_t epoch_of(struct pda_capture *c, const struct pda_sb_key *key)
{
	size_t lo = 0, hi = c->nr_keys, e = c->last_epoch;

	/* samples come in the file's order, mostly in time order: most
	 * fall in the last one's epoch */
	if ((!e || cmp_key(&c->keys[e - 1], key) < 0) &&
	    (e == c->nr_keys || cmp_key(key, &c->keys[e]) < 0))
		return (uint32_t)e;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_key(&c->keys[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	c->last_epoch = lo;
	return (uint32_t)lo;
}

/* One record to the pipeline.  @return 0 or a negative pd_err. */
static int feed(struct pda_capture *c, const struct pd_rec *rec,
		const struct pda_sb_key *key)
{
	struct pda_pipe_when w;
	int rc;

	if (key) {
		w.epoch = epoch_of(c, key);
		w.time = key->time;
		w.seq = key->seq;
	}
	rc = key ? pda_pipe_feed_sample(c->pipe, rec, &w)
		 : pda_pipe_feed(c->pipe, rec);

	if (rc == 1)
		return skip(c, PDA_CAPTURE_BAD_SAMPLE, pd_file_errmsg(c->f));
	if (rc < 0 && c->failed_in != PDA_CAPTURE_CALLBACK)
		session_failed(c, rc);
	return rc;
}

/* A pass begins: what it does. */
static void pass_begin(struct pda_capture *c, const char *what)
{
	c->prog.pass++;
	c->prog.what = what;
	c->prog.done = 0;
	c->prog.nr_samples = 0;
}

/* Progress at rec, every so many samples (every 16 times as many
 * records where samples are skipped). */
static int progress(struct pda_capture *c, const struct pd_rec *rec,
		    uint64_t count)
{
	int rc;

	if (!c->o.progress || count % PDA_CAPTURE_PROGRESS_EVERY != 0)
		return 0;
	c->prog.done = rec->offset;
	rc = c->o.progress(c->o.progress_arg, &c->prog);
	return rc < 0 ? callback_failed(c, rc) : 0;
}

/* The pipeline failed with rc: the session's message, unless a callback
 * said why.  @return rc. */
static int pipe_failed(struct pda_capture *c, int rc)
{
	if (c->failed_in != PDA_CAPTURE_CALLBACK)
		session_failed(c, rc);
	return rc;
}

/* A record that is no sample, with side_fn: to the callback at its place
 * in time (the samples before it delivered), and to the pipeline. */
static int side(struct pda_capture *c, const struct pd_rec *rec)
{
	int rc = pda_pipe_flush(c->pipe);

	if (rc < 0)
		return pipe_failed(c, rc);
	/* an EXIT as the thread was before it */
	if (rec->type == PD_REC_EXIT &&
	    (rc = c->o.side_fn(c->o.arg, rec)) < 0)
		return callback_failed(c, rc);
	if ((rc = feed(c, rec, NULL)) < 0 || rec->type == PD_REC_EXIT)
		return rc;
	rc = c->o.side_fn(c->o.arg, rec);
	return rc < 0 ? callback_failed(c, rc) : 0;
}

/* What a record counts, and the progress said.  0 or a negative
 * pd_err (the progress callback stopped the run). */
static inline int step_count(struct pda_capture *c, const struct pd_rec *rec)
{
	c->st.nr_records++;
	if (rec->type == PD_REC_LOST || rec->type == PD_REC_LOST_SAMPLES)
		count_lost(c, rec);
	if (rec->type == PD_REC_SAMPLE) {
		c->st.nr_samples++;
		c->prog.nr_samples++;
		return progress(c, rec, c->st.nr_samples);
	}
	return 0;
}

static int step(struct pda_capture *c, const struct pd_rec *rec,
		const struct pda_sb_key *key)
{
	int rc;

	if ((rc = step_count(c, rec)) < 0)
		return rc;
	if (c->pipe && !key && c->o.side_fn && rec->type != PD_REC_SAMPLE)
		return side(c, rec);
	if (c->pipe && (!key || rec->type == PD_REC_SAMPLE))
		return feed(c, rec, key);
	if (c->pipe)
		return 0; /* applied in the first pass */
	rc = c->o.rec_fn(c->o.arg, rec);
	return rc < 0 ? callback_failed(c, rc) : 0;
}

/*
 * Groups (pda_capture_opts.counted): a trace's samples come from a few
 * instructions of a few threads, a loop's, and a report's rows and
 * totals take nothing else from them; the samples alike in what the
 * pipeline and sample_fn read (event, pid, tid, cpu, ip, mode, period,
 * flags, the sideband's epoch) go to the pipeline as one of their first
 * one's time (place), with their count: filtered, keyed, resolved and
 * added once.  A group holds the samples handed out by one feed_synth()
 * (between two records), NR_GROUPS groups at most (then they go, and
 * new ones open): the groups go in the order of their first samples,
 * and a report that keeps each row's earliest sample by place (any
 * order) makes the same rows.  Statistics count each sample.  The trace
 * groups a CPU's samples as it makes them (pda_itrace_set_groups: the
 * rest of a group are never made, nor handed out one by one), by the
 * same key with the epoch its bounds tell; its groups join these.
 */
#define NR_GROUPS 256
#define GROUP_SLOTS 1024	/* the index: at most a quarter full */

struct pda_synth_group {
	struct pd_sample sample;	/* the first's (scalar fields only) */
	struct pda_pipe_when w;
	uint64_t n;
};

struct pda_synth_groups {
	uint64_t *bounds;	/* the sideband keys' times: the trace's */
	unsigned nr;
	uint16_t slot[GROUP_SLOTS];	/* group + 1; 0 empty */
	struct pda_synth_group g[NR_GROUPS];
};

/* What the pipeline and a counted sample_fn read of a sample, but for
 * its time: a group's. */
static bool alike(const struct pd_sample *a, const struct pd_sample *b)
{
	return a->evsel == b->evsel && a->ip == b->ip && a->pid == b->pid &&
	       a->tid == b->tid && a->cpu == b->cpu && a->misc == b->misc &&
	       a->mask == b->mask && a->period == b->period &&
	       a->flags == b->flags && a->id == b->id &&
	       a->stream_id == b->stream_id;
}

/* Whether sample may join a group: no field the copy would point into
 * the trace's chunk for. */
#define GROUP_PTRS                                                       \
	(PD_SAMPLE_READ | PD_SAMPLE_CALLCHAIN | PD_SAMPLE_RAW |          \
	 PD_SAMPLE_BRANCH_STACK | PD_SAMPLE_REGS_USER |                  \
	 PD_SAMPLE_STACK_USER | PD_SAMPLE_REGS_INTR | PD_SAMPLE_AUX)

static bool groupable(const struct pd_sample *sample)
{
	return !(sample->mask & GROUP_PTRS);
}

/* The open groups to the pipeline, in the order they opened. */
static int groups_flush(struct pda_capture *c)
{
	struct pda_synth_groups *gs = c->groups;
	int rc = 0;

	/* none open: every sample that joins none comes here */
	if (!gs->nr)
		return 0;
	for (unsigned i = 0; i < gs->nr && rc >= 0; i++)
		rc = pda_pipe_feed_decoded_n(c->pipe, &gs->g[i].sample,
					     &gs->g[i].w, gs->g[i].n);
	gs->nr = 0;
	memset(gs->slot, 0, sizeof(gs->slot));
	return rc;
}

/* sample (at w), the first of n, into its group: 0, or a negative
 * pd_err. */
static int group_add(struct pda_capture *c, const struct pd_sample *sample,
		     const struct pda_pipe_when *w, uint32_t n)
{
	struct pda_synth_groups *gs = c->groups;
	/* multiplied, the high bits: a loop's ips differ in their low
	 * bits, which the low bits of a shifted XOR folded into few slots
	 * (2.6 probes a recorded sample) */
	const uint64_t h = (sample->ip ^ (uint64_t)sample->tid << 40 ^
			    (uint64_t)w->epoch << 24) *
			   0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 54) & (GROUP_SLOTS - 1);
	int rc;

	for (; gs->slot[i]; i = (i + 1) & (GROUP_SLOTS - 1)) {
		struct pda_synth_group *g = &gs->g[gs->slot[i] - 1];

		if (g->w.epoch == w->epoch && alike(&g->sample, sample)) {
			g->n += n;
			/* its place the earliest sample's: a recorded
			 * thread's samples come out of time order where
			 * it moved between CPUs (their buffers) */
			if (w->time < g->w.time ||
			    (w->time == g->w.time && w->seq < g->w.seq)) {
				g->w.time = w->time;
				g->w.seq = w->seq;
				g->sample.time = sample->time;
			}
			return 0;
		}
	}
	if (gs->nr == NR_GROUPS) {
		if ((rc = groups_flush(c)) < 0)
			return rc;
		return group_add(c, sample, w, n);
	}
	gs->g[gs->nr].sample = *sample;
	gs->g[gs->nr].w = *w;
	gs->g[gs->nr].n = n;
	gs->slot[i] = (uint16_t)++gs->nr;
	return 0;
}

/* A sample fed on its own, after the open groups (when groups). */
static int feed_alone(struct pda_capture *c, struct pd_sample *sample,
		      const struct pda_pipe_when *w, bool groups)
{
	int rc = groups ? groups_flush(c) : 0;

	return rc < 0 ? rc : pda_pipe_feed_decoded(c->pipe, sample, w);
}

/* Whether the synthesized samples go in groups: see Groups.  The
 * trace is told as they first do (before it is decoded). */
static bool grouped(struct pda_capture *c)
{
	struct pda_synth_groups *gs;

	if (!c->o.counted || !c->two_pass ||
	    (c->o.filter && pda_filter_timed(c->o.filter)))
		return false;
	if (c->groups)
		return true;
	if (!(gs = pda_zalloc(c->s, sizeof(*gs))))
		return false;
	if (c->nr_keys &&
	    !(gs->bounds = pda_malloc(c->s, c->nr_keys * sizeof(uint64_t)))) {
		pda_free(c->s, gs);
		return false;
	}
	for (size_t i = 0; i < c->nr_keys; i++)
		gs->bounds[i] = c->keys[i].time;
	/* decoding began (it cannot have): its samples one by one */
	(void)pda_itrace_set_groups(c->itrace, gs->bounds, c->nr_keys,
				    GROUP_PTRS);
	c->groups = gs;
	return true;
}

/*
 * Recorded samples join the groups too (c->rec_groups: counted, two
 * passes, no trace, the second pass read by second_read() into one
 * pipeline, shards in turn): a report's leaf view (leaf_only) reads of a
 * cpu-clock or cycles sample its event, ip, pid, tid, cpu, period and
 * state, and a capture holds a few hundred such keys for a million
 * samples; each was filtered, keyed, held, resolved and added one by
 * one (~1,100 of the ~1,840 instructions it cost); annotate (no_stack)
 * reads the same.  Only a sample whose fields are those alone (with
 * leaf_only or no_stack, less its callchain and user stack, which
 * neither the pipeline nor the callback reads then) joins: any other
 * field might be read (a key, a filter).  Such a sample is decoded once
 * and its key made from its time there.  Any other sample goes after
 * the open groups, as it would have come: the groups go in the order of
 * their first samples, so every address is first resolved in the same
 * order.
 */
#define REC_GROUP_FIELDS                                                  \
	(PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_ID |   \
	 PD_SAMPLE_STREAM_ID | PD_SAMPLE_CPU | PD_SAMPLE_PERIOD |         \
	 PD_SAMPLE_IDENTIFIER)

/* Whether rec decodes into *sample that may join a group (above). */
static bool rec_groupable(struct pda_capture *c, const struct pd_rec *rec,
			  struct pd_sample *sample)
{
	const uint64_t unread = c->o.leaf_only || c->o.no_stack
					? PD_SAMPLE_CALLCHAIN |
						  PD_SAMPLE_STACK_USER
					: 0;
	const struct pd_evsel *e = c->rec_groups > 1 ? pd_rec_evsel(c->f, rec)
						      : NULL;

	/* with events of both kinds, by its event first: a sample that
	 * cannot join is not decoded twice (the pipeline decodes it) */
	if (e && (e->attr.sample_type & ~unread & ~(uint64_t)REC_GROUP_FIELDS))
		return false;
	if (pd_sample_decode(c->f, rec, sample) < 0)
		return false;
	sample->mask &= ~unread;
	return !(sample->mask & ~(uint64_t)REC_GROUP_FIELDS);
}

/* c->rec_groups for the second pass: 0 when no event's samples may join
 * a group (none is decoded ahead then), 1 when every event's may, 2 when
 * some may. */
static unsigned rec_groups(struct pda_capture *c)
{
	const uint64_t unread = c->o.leaf_only || c->o.no_stack
					? PD_SAMPLE_CALLCHAIN |
						  PD_SAMPLE_STACK_USER
					: 0;
	const size_t nr = pd_file_nr_evsels(c->f);
	size_t yes = 0;

	if (c->itrace || c->o.shard_fn || !grouped(c))
		return 0;
	for (size_t i = 0; i < nr; i++)
		yes += !(pd_file_evsel(c->f, i)->attr.sample_type & ~unread &
			 ~(uint64_t)REC_GROUP_FIELDS);
	return !yes ? 0 : yes == nr ? 1 : 2;
}

/* rc of a sample fed: said unless the callback said it. */
static int fed(struct pda_capture *c, int rc)
{
	if (rc < 0 && c->failed_in != PDA_CAPTURE_CALLBACK)
		session_failed(c, rc);
	return rc;
}

/* n synthesized samples counted, progress said where perf's count
 * would have passed its mark. */
static int count_synth(struct pda_capture *c, uint32_t n)
{
	const struct pd_rec none = {.type = PD_REC_SAMPLE};
	int rc;

	while (n) {
		const uint64_t left = PDA_CAPTURE_PROGRESS_EVERY -
				      c->st.nr_samples %
					      PDA_CAPTURE_PROGRESS_EVERY;
		const uint32_t step = left < n ? (uint32_t)left : n;

		c->st.nr_samples += step;
		c->st.nr_synth += step;
		c->prog.nr_samples += step;
		n -= step;
		if ((rc = progress(c, &none, c->st.nr_samples)) < 0)
			return rc;
	}
	return 0;
}

/*
 * The synthesized samples before time `before` (UINT64_MAX: all left),
 * each fed as a sample of its own time: after the records of that time
 * (two passes), or where it falls in the ordered reading.
 */
static int feed_synth(struct pda_capture *c, uint64_t before)
{
	const bool groups = grouped(c);
	struct pd_sample *sample;
	uint64_t time;
	uint32_t n;
	int rc;

	/* handed over decoded, in place: no record encoded to be decoded
	 * again, no copy */
	while ((rc = pda_itrace_next_decoded(c->itrace, before, &sample,
					     &time, &n)) > 0) {
		struct pda_sb_key key = {.time = time,
					 .seq = UINT64_MAX / 2 + c->synth_seq};
		struct pda_pipe_when w;

		c->synth_seq += n;
		/* a synthesized sample is in no record of the file:
		 * offset 0 */
		if ((rc = count_synth(c, n)) < 0)
			return rc;
		if (c->two_pass) {
			w.epoch = epoch_of(c, &key);
			w.time = key.time;
			w.seq = key.seq;
		}
		if (groups && groupable(sample))
			rc = group_add(c, sample, &w, n);
		else
			rc = feed_alone(c, sample, c->two_pass ? &w : NULL,
					groups);
		if (rc < 0) {
			if (c->failed_in != PDA_CAPTURE_CALLBACK)
				session_failed(c, rc);
			return rc;
		}
	}
	if (rc < 0)
		session_failed(c, rc);
	if (rc >= 0 && groups && (rc = groups_flush(c)) < 0 &&
	    c->failed_in != PDA_CAPTURE_CALLBACK)
		session_failed(c, rc);
	return rc;
}

static int first_sample(struct pda_capture *c, const struct pd_rec *rec,
			const struct pda_sb_key *key);

struct synth_first_arg {
	struct pda_capture *c;
	uint64_t seq;
};

static int synth_first_one(void *arg, const struct pd_rec *rec,
			   uint64_t time)
{
	struct synth_first_arg *a = arg;

	return first_sample(a->c, rec,
			    &(struct pda_sb_key){
				    .time = time,
				    .seq = UINT64_MAX / 2 + a->seq++});
}

/* The synthesized samples' events in the first pass's order of events,
 * as their first samples place them (each event's first only: the rest
 * of the trace is not decoded for it). */
static int synth_first(struct pda_capture *c)
{
	struct synth_first_arg a = {c, 0};

	return pda_itrace_firsts(c->itrace, synth_first_one, &a);
}

/* --itrace: the trace decoded and its samples made, before any pass.  0
 * or a negative pd_err (the run fails). */
static int synth_begin(struct pda_capture *c)
{
	char err[256] = "";
	int rc;

	if (!c->s || !c->o.itrace)
		return 0;
	/* a stream cannot be read twice: its trace is not decoded (the
	 * command says so) unless letters asked for it */
	if (!pd_file_header(c->f)->file_size && !c->o.itrace->set)
		return 0;
	if (!pd_file_header(c->f)->file_size) {
		pda_capture_set_err(c, PD_ERR_UNSUPPORTED,
				    "--itrace: a capture read from a pipe "
				    "cannot be read twice; write it to a file");
		c->failed_in = PDA_CAPTURE_SESSION;
		return PD_ERR_UNSUPPORTED;
	}
	rc = pda_itrace_new(c->s, c->f, c->o.itrace, &c->itrace, err,
			    sizeof(err));
	/* each CPU's trace decoded on a thread of its own, as -j allows */
	if (rc == 0)
		rc = pda_itrace_set_jobs(c->itrace, c->o.jobs);
	if (rc < 0)
		set_msg(c, PDA_CAPTURE_READER, err[0] ? err : pd_strerror(rc));
	return rc;
}

static void reader_stats(struct pda_capture *c);

/* The run stops: no thread runs on past the error. */
static int stop(struct pda_capture *c, int rc)
{
	pda_pipe_free(c->pipe);
	c->pipe = NULL;
	reader_stats(c);
	c->st.lost = pda_capture_lost_count(c->f, c->st.nr_lost,
					    c->st.nr_lost_samples);
	return rc;
}

struct sideband {
	struct pda_sb_key key;	/* key.time: see base */
	struct pd_rec rec; /* data: at in buf */
	size_t at;
	unsigned char base;	/* a split walk's second half (below) */
};

static int cmp_sideband(const void *a, const void *b)
{
	return cmp_key(&((const struct sideband *)a)->key,
		       &((const struct sideband *)b)->key);
}

/*
 * A table of each event's first sample keys, width keys an event (*keys,
 * *alloc and *have events, pda_grow's), grown to nr events (the file's:
 * an EVENT_UPDATE or ATTR can add one mid-capture), each new key none
 * yet (UINT64_MAX: later than any).  0 or NOMEM.
 */
static int first_keys_grow(struct pda_session *s, void **keys, size_t *alloc,
			   size_t *have, size_t nr, size_t width)
{
	const size_t elem = width * sizeof(struct pda_sb_key);
	struct pda_sb_key *k;

	if (*have >= nr)
		return 0;
	if (pda_grow(s, keys, elem, alloc, nr, SIZE_MAX / elem) < 0)
		return PD_ERR_NOMEM;
	k = *keys;
	for (size_t i = *have * width; i < nr * width; i++)
		k[i].time = k[i].seq = UINT64_MAX;
	*have = nr;
	return 0;
}

/* A sample of event idx with key: the event's first if earlier.  0 or
 * NOMEM. */
static int first_key(struct pda_capture *c, size_t idx,
		     const struct pda_sb_key *key)
{
	const size_t nr = pd_file_nr_evsels(c->f);

	if (first_keys_grow(c->s, (void **)&c->first, &c->first_alloc,
			    &c->nr_first, nr, 1) < 0)
		return PD_ERR_NOMEM;
	if (idx < nr && cmp_key(key, &c->first[idx]) < 0)
		c->first[idx] = *key;
	return 0;
}

/* The key of each event's first sample in time, where there are several
 * events (the filter's first event and statistics follow them). */
static int first_sample(struct pda_capture *c, const struct pd_rec *rec,
			const struct pda_sb_key *key)
{
	const struct pd_evsel *e = pd_rec_evsel(c->f, rec);

	return e ? first_key(c, e->idx, key) : 0;
}

struct ev_first {
	struct pda_sb_key key;
	const struct pd_evsel *e;
};

static int cmp_ev_first(const void *a, const void *b)
{
	return cmp_key(&((const struct ev_first *)a)->key,
		       &((const struct ev_first *)b)->key);
}

/* The events by their first samples, for the filter.  0 or NOMEM. */
static int order_events(struct pda_capture *c)
{
	struct ev_first *v;
	size_t nr = 0;

	if (!c->nr_first || !c->o.filter)
		return 0;
	v = pda_malloc(c->s, c->nr_first * sizeof(*v));
	c->order = pda_malloc(c->s, c->nr_first * sizeof(*c->order));
	if (!v || !c->order) {
		pda_free(c->s, v);
		return PD_ERR_NOMEM;
	}
	for (size_t i = 0; i < c->nr_first; i++)
		if (c->first[i].seq != UINT64_MAX) {
			v[nr].key = c->first[i];
			v[nr++].e = pd_file_evsel(c->f, i);
		}
	qsort(v, nr, sizeof(*v), cmp_ev_first);
	for (size_t i = 0; i < nr; i++)
		c->order[i] = v[i].e;
	pda_free(c->s, v);
	pda_filter_order(c->o.filter, c->order, nr);
	return 0;
}

/* ---- shards (above): their cuts, found in the first pass ---- */

/* How many shards the second pass is read in: -j's threads. */
static unsigned shards_wanted(const struct pda_capture *c)
{
	const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long n = c->o.jobs ? (long)c->o.jobs : cpus;

	if (!c->two_pass || c->itrace || n < 2 || !c->prog.total)
		return 1;
	/* shards on threads (shard_begin): no more than run at once, each
	 * holding a table of its own until the end (bench/RESULTS.md,
	 * "Session 17: fold's shards on threads": -j4 of a capture of many
	 * stacks on 2 CPUs held twice the memory for no time) */
	if (c->o.shard_begin && cpus >= 2 && n > cpus)
		n = cpus;
	return n > SHARDS_MAX ? SHARDS_MAX : (unsigned)n;
}

struct cutter {
	unsigned nr_shards;
	uint64_t start;		/* the data section's first offset */
	uint64_t next;		/* the offset the next cut is due at, or
				 * UINT64_MAX: no more */
	uint64_t nr_samples;	/* read so far */
};

/* Before the first pass's first record.  0 or NOMEM. */
static int cutter_begin(struct pda_capture *c, struct cutter *cu,
			const struct pd_reader *r)
{
	struct pda_capture_cut *cut;

	memset(cu, 0, sizeof(*cu));
	cu->next = UINT64_MAX;
	cu->nr_shards = shards_wanted(c);
	if (cu->nr_shards < 2)
		return 0;
	c->cuts = pda_zalloc(c->s, cu->nr_shards * sizeof(*c->cuts));
	if (!c->cuts)
		return PD_ERR_NOMEM;
	cut = &c->cuts[0];
	if (pd_reader_tell(r, &cut->pos) < 0)
		return 0;
	cut->k.end_only = pd_file_header(c->f)->kind == PD_KIND_DIR;
	c->nr_cuts = 1;
	cu->start = cut->pos.offset;
	cu->next = cu->start + c->prog.total / cu->nr_shards;
	return 0;
}

/* After rec (its key made with k), at or past the offset a cut is due
 * at (a directory's later files begin lower: cut sooner): a cut before
 * the next record, where the reader can tell it. */
static void cutter_step(struct pda_capture *c, struct cutter *cu,
			const struct pd_reader *r, const struct pd_rec *rec,
			const struct order_clock *k)
{
	struct pda_capture_cut *cut = &c->cuts[c->nr_cuts];

	if (pd_reader_tell(r, &cut->pos) < 0) {
		/* a compressed chunk's records: try after the chunk; else
		 * the reader cannot tell (chunks inflated ahead) */
		cu->next = rec->flags & PD_RECF_DECOMPRESSED ? rec->offset + 1
							     : UINT64_MAX;
		return;
	}
	cut->k = *k;
	cut->nr_records = k->seq;
	cut->nr_samples = cu->nr_samples + (rec->type == PD_REC_SAMPLE);
	c->nr_cuts++;
	cu->next = c->nr_cuts < cu->nr_shards
			   ? cu->start +
				     c->prog.total / cu->nr_shards * c->nr_cuts
			   : UINT64_MAX;
}

/* After the first pass: fewer shards where it found fewer places (a
 * small capture; a -z capture's records are all in chunks: one). */
static void cutter_end(struct pda_capture *c)
{
	if (c->nr_cuts < 2) {
		pda_free(c->s, c->cuts);
		c->cuts = NULL;
		c->nr_cuts = 0;
	}
}

/* What the first pass keeps of the sideband records: the records and
 * their entries. */
struct sb_list {
	struct sideband *sb;
	unsigned char *buf;
	size_t nr, alloc, len, cap;
};

/* Whether l takes rec too within the limits (SIDEBAND_MAX above). */
static bool sb_room(const struct sb_list *l, size_t rec_size)
{
	return l->nr < SIDEBAND_MAX &&
	       l->len + rec_size + (l->nr + 1) * sizeof(*l->sb) <=
		       SIDEBAND_BYTES_MAX;
}

/*
 * rec kept, with its key, in l: copied, even out of the file's mapping:
 * the reader hands its pages back behind it, and reading a record there
 * again maps the 64 KB around it back (fault-around), for each MMAP of a
 * DWARF capture.  0 or NOMEM.
 */
static int sb_keep(struct pda_session *s, struct sb_list *l,
		   const struct pd_rec *rec, const struct pda_sb_key *key,
		   unsigned char base)
{
	struct sideband *e;

	if (PDA_GROW(s, l->sb, l->alloc, l->nr + 1, SIDEBAND_MAX) < 0 ||
	    PDA_GROW(s, l->buf, l->cap, l->len + rec->size, SIZE_MAX / 2) < 0)
		return PD_ERR_NOMEM;
	e = &l->sb[l->nr++];
	e->key = *key;
	e->rec = *rec;
	e->rec.payload = NULL;
	e->rec.payload_size = 0;
	e->at = l->len;
	e->base = base;
	memcpy(l->buf + l->len, rec->data, rec->size);
	l->len += rec->size;
	return 0;
}

/*
 * ---- the first pass's walk on two threads ----
 *
 * Where -j allows a second thread, a mapped capture's (one file, no pipe
 * format) first pass walks its data section in two halves at once: a
 * second thread from a guess at a record near the middle
 * (pd_reader_guess) to the end, the run's own from the start.  The run's
 * walk tells whether the guess was right: a record of its begins there,
 * or none does.  Right, the second half's findings (sideband records,
 * cuts, counts, first samples) join the first's as one walk would have
 * made them; wrong, or the second walk stopped at anything it does not
 * take as it is (a reader's PD_READ_GUESS: perf's own records, damage;
 * the sideband's limits) or the first half held records that change the
 * file's events, the run's walk reads on over the second half itself:
 * the result is the one walk's, always.  The second half cannot know the
 * order clock the first leaves it: a time that comes from that clock (a
 * record's without one: the last flush's limit) is kept as "the first
 * half's flushed, next_flush or max_time, or local, whichever is
 * larger", made exact at the join.  The progress callback hears of the
 * first half's records only.
 */
#define SPLIT_MIN ((uint64_t)8 << 20)	/* below: one walk is as quick */
#define SPLIT_CHAIN 64			/* headers a guess must pass */
#define SPLIT_WITHIN ((uint64_t)1 << 20) /* of the middle, at most */

enum { T_ABS, T_FLUSHED, T_NEXT, T_MAX, NR_BASES };

struct half_time {
	uint64_t local;
	unsigned char base;	/* T_*: which of the first half's times */
};

struct half_clock {
	uint64_t seq, max_time;	/* the second half's own */
	struct half_time flushed, next_flush;
};

struct half_cut {
	struct pd_reader_pos pos;
	struct half_clock k;
	uint64_t nr_samples;
};

struct half {
	struct pda_capture *c;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int guessed;		/* under lock: 0 not yet, 1 pos, -1 none */
	struct pd_reader_pos pos;
	atomic_bool stop;	/* the guess was wrong: no use going on */
	uint64_t near;
	/* the cutter's: shards (0: no cuts), start, the first cut due
	 * after pos (m0) */
	unsigned nr_shards, m0;
	uint64_t start;
	/* what it found, read after the join */
	int rc;			/* 0: it walked to the end */
	struct half_clock k;
	struct sb_list l;
	struct half_cut cut0;	/* after its first record */
	struct half_cut cuts[SHARDS_MAX];
	unsigned nr_cuts;
	uint64_t nr_samples;
	/* by event: its first sample of each base (T_ABS: the least) */
	struct pda_sb_key (*first)[NR_BASES];
	size_t nr_first, first_alloc;
};

/* Where the cutter wants cut j (< nr_shards). */
static uint64_t cut_due(const struct pda_capture *c, uint64_t start,
			unsigned nr_shards, size_t j)
{
	return j < nr_shards ? start + c->prog.total / nr_shards * j
			     : UINT64_MAX;
}

/* clock_key() in the second half: key->time is t.local, and t.base
 * says what it is (returned). */
static unsigned char half_key(struct half_clock *k, struct pd_file *f,
			      const struct pd_rec *rec, struct pda_sb_key *key)
{
	struct half_time t;
	uint64_t time;

	key->seq = k->seq++;
	if (rec->type == PD_REC_FINISHED_ROUND) {
		k->flushed = k->next_flush;
		k->next_flush = (struct half_time){k->max_time, T_MAX};
		t = k->flushed;
	} else {
		/* a record too short for its sample_id: the run's walk
		 * sets the file's error, not two threads at once */
		pd_rec_time_quiet(f, rec, &time);
		if (time == 0 || time == UINT64_MAX) {
			t = k->flushed;
		} else {
			t = (struct half_time){time, T_ABS};
			if (time > k->max_time)
				k->max_time = time;
		}
	}
	key->time = t.local;
	return t.base;
}

/* A second half's time made exact with the first half's clock a. */
static uint64_t half_time_at(const struct order_clock *a, uint64_t local,
			     unsigned char base)
{
	const uint64_t v = base == T_FLUSHED ? a->flushed
			   : base == T_NEXT  ? a->next_flush
			   : base == T_MAX   ? a->max_time
					     : 0;

	return v > local ? v : local;
}

static void half_clock_at(const struct order_clock *a_,
			  const struct half_clock *h, struct order_clock *k)
{
	const struct order_clock a_copy = *a_, *a = &a_copy;

	k->seq = a->seq + h->seq;
	k->max_time = a->max_time > h->max_time ? a->max_time : h->max_time;
	k->flushed = half_time_at(a, h->flushed.local, h->flushed.base);
	k->next_flush = half_time_at(a, h->next_flush.local,
				     h->next_flush.base);
	k->end_only = false;
}

static void half_key_at(const struct order_clock *a, struct pda_sb_key *key,
			unsigned char base)
{
	key->time = half_time_at(a, key->time, base);
	key->seq += a->seq;
}

/* first_sample() in the second half: of its keys of one base, the first
 * is the least once exact (times from the clock never go down).  0 or
 * NOMEM. */
static int half_first(struct half *h, const struct pd_rec *rec,
		      const struct pda_sb_key *key, unsigned char base)
{
	struct pd_file *f = h->c->f;
	const struct pd_evsel *e = pd_rec_evsel(f, rec);
	const size_t nr = pd_file_nr_evsels(f);
	struct pda_sb_key *k;

	if (!e)
		return 0;
	if (first_keys_grow(h->c->s, (void **)&h->first, &h->first_alloc,
			    &h->nr_first, nr, NR_BASES) < 0)
		return PD_ERR_NOMEM;
	if (e->idx >= nr)
		return 0;
	k = &h->first[e->idx][base];
	if (base == T_ABS ? cmp_key(key, k) < 0 : k->seq == UINT64_MAX)
		*k = *key;
	return 0;
}

/* A cut after rec, where the reader r is: 0, or UNSUPPORTED. */
static int half_cut(struct half *h, const struct pd_reader *r,
		    struct half_cut *cut, bool sample)
{
	if (pd_reader_tell(r, &cut->pos) < 0)
		return PD_ERR_UNSUPPORTED;
	cut->k = h->k;
	cut->nr_samples = h->nr_samples + sample;
	return 0;
}

/* The second half's walk, first_pass()'s loop.  0 at its end. */
static int half_walk(struct half *h, struct pd_reader *r)
{
	struct pda_capture *c = h->c;
	uint64_t next = cut_due(c, h->start, h->nr_shards, h->m0);
	unsigned m = h->m0;
	struct pd_rec rec;
	int rc;

	while ((rc = pd_reader_next(r, &rec)) > 0) {
		const bool sample = rec.type == PD_REC_SAMPLE;
		struct pda_sb_key key;
		unsigned char base;

		if (h->k.seq % SHARD_CHECK == 0 &&
		    atomic_load_explicit(&h->stop, memory_order_relaxed))
			return PD_ERR_UNSUPPORTED;
		base = half_key(&h->k, c->f, &rec, &key);
		if (h->k.seq == 1 && h->nr_shards &&
		    (rc = half_cut(h, r, &h->cut0, sample)) < 0)
			return rc;
		if (rec.offset >= next) {
			if ((rc = half_cut(h, r, &h->cuts[h->nr_cuts++],
					   sample)) < 0)
				return rc;
			next = cut_due(c, h->start, h->nr_shards, ++m);
		}
		if (sample) {
			h->nr_samples++;
			if (pd_file_nr_evsels(c->f) > 1 &&
			    (rc = half_first(h, &rec, &key, base)) < 0)
				return rc;
			continue;
		}
		if (!pda_machine_changes(rec.type))
			continue;
		if (!sb_room(&h->l, rec.size))
			return PD_ERR_UNSUPPORTED; /* the run's walk says */
		if ((rc = sb_keep(c->s, &h->l, &rec, &key, base)) < 0)
			return rc;
	}
	return rc;
}

static void *half_main(void *arg)
{
	struct half *h = arg;
	struct pd_reader_pos pos = {0};
	struct pd_reader *r = NULL;
	int rc = pd_reader_guess(h->c->f, h->near, SPLIT_WITHIN, SPLIT_CHAIN,
				 &pos);

	pthread_mutex_lock(&h->lock);
	h->guessed = rc == 0 ? 1 : -1;
	h->pos = pos;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
	if (rc == 0)
		rc = pd_reader_new_range(h->c->f, PD_READ_QUIET | PD_READ_GUESS,
					 &pos, NULL, &r);
	if (rc == 0) {
		/* the first cut due past the guess (the run's walk made
		 * those before, or one at the guess: half_join) */
		while (h->m0 < h->nr_shards &&
		       cut_due(h->c, h->start, h->nr_shards, h->m0) <=
			       pos.offset)
			h->m0++;
		rc = half_walk(h, r);
	}
	pd_reader_free(r);
	h->rc = rc;
	return NULL;
}

/* The first pass's walk: the run's, or its first half's. */
struct walk {
	struct order_clock k;
	struct sb_list l;
	struct cutter cu;
	struct half *h;		/* the second half, or NULL */
	bool tried, started, joined;
	uint64_t limit;		/* the offset the walk looks at h again */
	uint64_t first;		/* the data section's first offset */
};

/* A second half of the walk, where it may run; else w->h stays NULL. */
static void half_start(struct pda_capture *c, struct walk *w, uint64_t at)
{
	const struct pd_header_info *hi = pd_file_header(c->f);
	struct half *h;

	w->limit = UINT64_MAX;
	/* (its thread allocates through the session: not with the
	 * caller's hooks, which may not be called from two threads); not
	 * where the walk is already near the middle (at: the first
	 * sample's place): the guess would only stop it */
	if (!pager_flag(c) || c->o.order_fn || hi->kind != PD_KIND_FILE ||
	    pda_session_hooked(c->s) ||
	    !hi->file_size || c->prog.total < SPLIT_MIN ||
	    at + SPLIT_WITHIN >= w->first + c->prog.total / 2 ||
	    !(h = pda_zalloc(c->s, sizeof(*h))))
		return;
	h->c = c;
	h->k.flushed.base = T_FLUSHED;
	h->k.next_flush.base = T_NEXT;
	/* the middle; where two shards are cut, that cut (which then falls
	 * on the second half's first record) */
	h->near = w->first + c->prog.total / 2;
	if (w->cu.next != UINT64_MAX) {
		h->nr_shards = w->cu.nr_shards;
		h->start = w->cu.start;
		h->m0 = 1;
	}
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	atomic_init(&h->stop, false);
	/* samples' events by id, not by the file's cache of the last */
	pd_file_threads(c->f, true);
	if (pthread_create(&h->thread, NULL, half_main, h)) {
		pd_file_threads(c->f, false);
		pthread_mutex_destroy(&h->lock);
		pthread_cond_destroy(&h->cond);
		pda_free(c->s, h);
		return;
	}
	w->h = h;
	w->started = true;
	w->limit = h->near;
}

/* The second half's thread stopped and gone, its findings unused: the
 * run's walk reads on over the second half itself. */
static void half_stop(struct pda_capture *c, struct walk *w)
{
	if (!w->started)
		return;
	atomic_store(&w->h->stop, true);
	pthread_join(w->h->thread, NULL);
	w->started = false;
	w->limit = UINT64_MAX;
	pd_file_threads(c->f, false);
}

/* The second half's thread ended, and its findings freed with h. */
static void half_end(struct pda_capture *c, struct walk *w)
{
	struct half *h = w->h;

	if (!h)
		return;
	half_stop(c, w);
	pthread_mutex_destroy(&h->lock);
	pthread_cond_destroy(&h->cond);
	pda_free(c->s, h->l.sb);
	pda_free(c->s, h->l.buf);
	pda_free(c->s, h->first);
	pda_free(c->s, h);
	w->h = NULL;
}

static void cut_at(struct pda_capture *c, const struct walk *w,
		   const struct half_cut *hc)
{
	struct pda_capture_cut *cut = &c->cuts[c->nr_cuts++];

	cut->pos = hc->pos;
	half_clock_at(&w->k, &hc->k, &cut->k);
	cut->nr_records = cut->k.seq;
	cut->nr_samples = w->cu.nr_samples + hc->nr_samples;
}

/* The second half's findings after the first's, where one walk would
 * have made the same.  0, or 1: the run's walk goes on itself. */
static int half_join(struct pda_capture *c, struct walk *w)
{
	const struct half *h = w->h;
	const size_t nr = w->l.nr + h->l.nr;
	size_t m = c->nr_cuts;

	/* one walk's cutter: the first half's leaves cut m due, made at
	 * the second's first record or the next one due past it */
	if (h->nr_shards &&
	    (w->cu.next != cut_due(c, h->start, h->nr_shards, m) ||
	     (m != h->m0 && m + 1 != h->m0) ||
	     m + (m != h->m0) + h->nr_cuts > h->nr_shards))
		return 1;
	if (!h->nr_shards && w->cu.next != UINT64_MAX)
		return 1;
	/* over the sideband's limits: the one walk says where */
	if (nr > SIDEBAND_MAX ||
	    w->l.len + h->l.len + nr * sizeof(*w->l.sb) > SIDEBAND_BYTES_MAX)
		return 1;
	if (PDA_GROW(c->s, w->l.sb, w->l.alloc, nr, SIDEBAND_MAX) < 0 ||
	    PDA_GROW(c->s, w->l.buf, w->l.cap, w->l.len + h->l.len,
		     SIZE_MAX / 2) < 0)
		return 1;
	if (h->nr_first && pd_file_nr_evsels(c->f) > 1) {
		for (size_t i = 0; i < h->nr_first; i++)
			for (unsigned char b = 0; b < NR_BASES; b++) {
				struct pda_sb_key key = h->first[i][b];

				if (key.seq == UINT64_MAX)
					continue;
				half_key_at(&w->k, &key, b);
				if (first_key(c, i, &key) < 0)
					return 1;
			}
		/* an event whose sample was its first: the table's
		 * size as one walk grows it */
		if (first_key(c, SIZE_MAX,
			      &(struct pda_sb_key){UINT64_MAX, UINT64_MAX}) < 0)
			return 1;
	}
	/* from here on nothing fails */
	for (size_t i = 0; i < h->l.nr; i++) {
		struct sideband *e = &w->l.sb[w->l.nr + i];

		*e = h->l.sb[i];
		half_key_at(&w->k, &e->key, e->base);
		e->base = T_ABS;
		e->at += w->l.len;
	}
	if (h->l.len)
		memcpy(w->l.buf + w->l.len, h->l.buf, h->l.len);
	w->l.nr = nr;
	w->l.len += h->l.len;
	if (h->nr_shards) {
		if (m + 1 == h->m0)
			cut_at(c, w, &h->cut0);
		for (unsigned i = 0; i < h->nr_cuts; i++)
			cut_at(c, w, &h->cuts[i]);
	}
	c->prog.nr_samples += h->nr_samples;
	w->cu.nr_samples += h->nr_samples;
	half_clock_at(&w->k, &h->k, &w->k);
	w->joined = true;
	return 0;
}

/*
 * The run's walk at rec, at or past w->limit (the middle, then the
 * guess): whether the second half joins there (rec is its first
 * record; the walk ends), else w->limit is where to look again.
 */
static bool half_meet(struct pda_capture *c, struct walk *w,
		      const struct pd_rec *rec)
{
	struct half *h = w->h;

	w->limit = UINT64_MAX;
	pthread_mutex_lock(&h->lock);
	while (!h->guessed)
		pthread_cond_wait(&h->cond, &h->lock);
	pthread_mutex_unlock(&h->lock);
	if (h->guessed < 0)
		return false;
	if (rec->offset < h->pos.offset &&
	    !(rec->flags & PD_RECF_DECOMPRESSED)) {
		w->limit = h->pos.offset;
		return false;
	}
	if (rec->offset != h->pos.offset ||
	    (rec->flags & PD_RECF_DECOMPRESSED)) {
		atomic_store(&h->stop, true);
		return false;
	}
	pthread_join(h->thread, NULL);
	w->started = false;
	pd_file_threads(c->f, false);
	return h->rc == 0 && half_join(c, w) == 0;
}

/*
 * The first pass: the sideband records, kept as they are read, then
 * applied in time order with history; their keys stay for the second
 * pass.  Its reader is quiet: the second pass reads the same and says
 * what was wrong.  @return 0 or a negative pd_err (the run fails).
 */
static int first_pass(struct pda_capture *c)
{
	struct pda_session *s = c->s;
	struct walk w = {0};
	struct pd_reader_pos pos;
	struct sideband *sb;
	struct pd_reader *r;
	struct pd_rec rec;
	size_t nr;
	int rc;

	w.k.end_only = pd_file_header(c->f)->kind == PD_KIND_DIR;
	/* perf's own records absorbed here, none while the second half's
	 * thread reads the file's events */
	rc = pd_reader_new(c->f,
			   PD_READ_QUIET | PD_READ_DEFER_ABSORB | pager_flag(c),
			   &r);
	if (rc < 0)
		return reader_failed(c, rc);
	if ((rc = cutter_begin(c, &w.cu, r)) < 0) {
		pd_reader_free(r);
		set_msg(c, PDA_CAPTURE_SESSION, pd_strerror(rc));
		return rc;
	}
	w.limit = UINT64_MAX;
	w.first = pd_reader_tell(r, &pos) == 0 ? pos.offset : UINT64_MAX;
	pass_begin(c, "sideband");
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		struct pda_sb_key key;

		if (rec.offset >= w.limit && half_meet(c, &w, &rec)) {
			rc = 0;
			break;
		}
		/* the second half starts at the first sample, past the
		 * records perf writes first, among them those that change
		 * the events (6.1: EVENT_UPDATEs), one of which stops it */
		if (!w.tried && rec.type == PD_REC_SAMPLE &&
		    w.first != UINT64_MAX) {
			w.tried = true;
			half_start(c, &w, rec.offset);
		}
		if (rec.type >= PD_REC_USER_TYPE_START) {
			/* a second half read beside it read without, and
			 * its thread reads the tables it changes */
			if (pd_rec_changes_events(rec.type))
				half_stop(c, &w);
			if ((rc = pd_reader_absorb(r, &rec)) < 0)
				break;
		}
		clock_key(&w.k, c->f, &rec, &key);
		if (rec.offset >= w.cu.next)
			cutter_step(c, &w.cu, r, &rec, &w.k);
		if (w.k.seq % 16 == 0 &&
		    (rc = progress(c, &rec, w.k.seq / 16)) < 0)
			break;
		if (rec.type == PD_REC_SAMPLE) {
			c->prog.nr_samples++;	/* headers only: the count */
			w.cu.nr_samples++;
			if (pd_file_nr_evsels(c->f) > 1 &&
			    (rc = first_sample(c, &rec, &key)) < 0)
				break;
			continue;
		}
		if (c->o.order_fn) {
			const struct pda_pipe_when pw = {.time = key.time,
							 .seq = key.seq};

			rc = c->o.order_fn(c->o.arg, &rec, &pw);
			if (rc < 0) {
				callback_failed(c, rc);
				break;
			}
		}
		if (!pda_machine_changes(rec.type))
			continue;
		if (!sb_room(&w.l, rec.size)) {
			rc = PD_ERR_UNSUPPORTED;
			pda_capture_set_err(
				c, rc,
				"%s record at offset 0x%llx: more than %zu MiB "
				"of process, thread and map records (COMM, "
				"FORK, EXIT, MMAP, KSYMBOL): more than a "
				"machine's life writes; not read",
				pd_rec_type_name(rec.type),
				(unsigned long long)rec.offset,
				SIDEBAND_BYTES_MAX >> 20);
			c->failed_in = PDA_CAPTURE_SESSION;
			break;
		}
		if ((rc = sb_keep(s, &w.l, &rec, &key, T_ABS)) < 0)
			break;
	}
	if (w.h)
		c->split_walk = w.joined ? 1 : -1;
	half_end(c, &w);
	if (rc < 0 && c->failed_in == PDA_CAPTURE_OK && !c->msg_set) {
		if (rc == PD_ERR_NOMEM)
			set_msg(c, PDA_CAPTURE_SESSION,
				"out of memory for the sideband records");
		else
			reader_failed(c, rc);
	}
	pd_reader_free(r);
	cutter_end(c);
	sb = w.l.sb;
	nr = w.l.nr;
	if (rc == 0 && nr) {
		qsort(sb, nr, sizeof(*sb), cmp_sideband);
		c->keys = pda_malloc(s, nr * sizeof(*c->keys));
		if (!c->keys) {
			rc = PD_ERR_NOMEM;
			set_msg(c, PDA_CAPTURE_SESSION, pd_strerror(rc));
		}
	}
	if (rc == 0)
		pda_machine_history(s);
	for (size_t i = 0; i < nr && rc == 0; i++) {
		c->keys[i] = sb[i].key;
		sb[i].rec.data = w.l.buf + sb[i].at;
		pda_machine_set_epoch(s, (uint32_t)(i + 1));
		rc = pda_session_feed(s, &sb[i].rec);
		if (rc < 0)
			session_failed(c, rc);
	}
	c->nr_keys = nr;
	pda_free(s, sb);
	pda_free(s, w.l.buf);
	if (rc == 0 && c->itrace && pd_file_nr_evsels(c->f) > 1 &&
	    (rc = synth_first(c)) < 0)
		set_msg(c, PDA_CAPTURE_SESSION, pd_strerror(rc));
	if (rc == 0 && (rc = order_events(c)) < 0)
		set_msg(c, PDA_CAPTURE_SESSION, pd_strerror(rc));
	pda_logf(s, PD_LOG_DEBUG, "first pass: %zu sideband records", nr);
	return rc;
}

/*
 * Record spool.  A run that unwinds from DWARF reads the data section
 * three times (sideband, unwinds, samples), and a sample of such a
 * capture is mostly its copy of the user stack (8 KB a sample on
 * bench/'s), which the second pass does not read: its unwind comes from
 * the pipeline's spool.  Mapping the capture a third time was about a
 * sixth of the run's CPU, all of it the kernel's (bench/RESULTS.md,
 * session 18).  So the unwind pass, which reads every record, writes
 * each to a temporary file as the second pass takes it: a sample without
 * its stack copy's bytes (STACK_USER of size 0: the mask still says it
 * unwinds, and what resolves it reads only the spooled ips), with its
 * place in the order (time, seq) and its file offset; the second pass
 * maps that file instead (its records stay mapped, PD_RECF_STABLE, until
 * the capture is released).  Only where the unwind pass's reading was
 * clean (no damage, no -z chunks, one file) and every write succeeded:
 * else the second pass reads the capture as before, with its messages.
 */
struct rspool_ent {
	uint64_t time, seq, offset;
	uint32_t type, size;
	uint32_t flags;
	uint16_t misc;
	uint16_t pad;
};

#define RSPOOL_BUF ((size_t)256 << 10)

struct pda_rspool {
	int fd;
	bool failed;
	unsigned char *buf;
	size_t len;
	uint64_t bytes;
	unsigned char *map; /* the second pass's, bytes long */
};

static void rspool_free(struct pda_capture *c)
{
	struct pda_rspool *rs = c->rspool;

	if (!rs)
		return;
	if (rs->map)
		munmap(rs->map, (size_t)rs->bytes);
	if (rs->fd >= 0)
		close(rs->fd);
	pda_free(c->s, rs->buf);
	pda_free(c->s, rs);
	c->rspool = NULL;
}

/* Before the unwind pass: a spool where it may serve, else none. */
static void rspool_begin(struct pda_capture *c)
{
	const char *dir;
	struct pda_rspool *rs;

	if (c->itrace || pd_file_header(c->f)->kind == PD_KIND_DIR)
		return;
	rs = pda_zalloc(c->s, sizeof(*rs));
	if (!rs)
		return;
	rs->buf = pda_malloc(c->s, RSPOOL_BUF);
	rs->fd = rs->buf ? pda_pipe_tmp_fd("pdtool-records", &dir) : -1;
	c->rspool = rs;
	if (rs->fd < 0)
		rspool_free(c);
}

/* Room for n more bytes in rs's buffer (n <= RSPOOL_BUF): what it holds
 * written out first where they do not fit.  false when a write failed. */
static bool rspool_room(struct pda_rspool *rs, size_t n)
{
	if (!rs->failed && rs->len + n > RSPOOL_BUF) {
		rs->failed = write(rs->fd, rs->buf, rs->len) != (ssize_t)rs->len;
		rs->len = 0;
	}
	return !rs->failed;
}

/* rec (at key) to the spool, a sample without its stack copy: built in
 * the buffer in place (a record is at most 64 KB). */
static void rspool_put(struct pda_capture *c, const struct pd_rec *rec,
		       const struct pda_sb_key *key)
{
	struct pda_rspool *rs = c->rspool;
	struct rspool_ent e = {0};
	size_t cut = rec->size, gone = 0, padded;
	struct pd_sample sample;
	unsigned char *out;

	if (!rspool_room(rs, sizeof(e) + rec->size + 8))
		return;
	/* a sample that does not decode goes whole: it fails the same */
	if (rec->type == PD_REC_SAMPLE &&
	    pd_sample_decode(c->f, rec, &sample) == 0 &&
	    (sample.mask & PD_SAMPLE_STACK_USER) && sample.stack_user.size) {
		/* its size word stays (as 0); its bytes and dyn_size go */
		cut = (size_t)(sample.stack_user.data - rec->data);
		gone = (size_t)sample.stack_user.size + 8;
	}
	e.time = key->time;
	e.seq = key->seq;
	e.offset = rec->offset;
	e.type = rec->type;
	e.size = (uint32_t)(rec->size - gone);
	e.flags = rec->flags | PD_RECF_STABLE;
	e.misc = rec->misc;
	out = rs->buf + rs->len;
	memcpy(out, &e, sizeof(e));
	out += sizeof(e);
	memcpy(out, rec->data, cut);
	if (gone) {
		uint16_t size = (uint16_t)e.size;

		/* the header's size in the file's byte order */
		if (pd_file_header(c->f)->swap)
			size = (uint16_t)(size >> 8 | size << 8);
		memcpy(out + 6, &size, sizeof(size));
		memset(out + cut - 8, 0, 8);
		memcpy(out + cut, rec->data + cut + gone,
		       rec->size - cut - gone);
	}
	padded = (e.size + 7u) & ~(size_t)7;
	memset(out + e.size, 0, padded - e.size);
	rs->len += sizeof(e) + padded;
	rs->bytes += sizeof(e) + padded;
}

/* After the unwind pass (rc, its reader r): the spool mapped for the
 * second pass, or dropped where it cannot stand for the capture. */
static void rspool_end(struct pda_capture *c, const struct pd_reader *r,
		       int rc)
{
	struct pda_rspool *rs = c->rspool;
	const struct pd_reader_stats *st = pd_reader_stats(r);
	void *map;

	if (!rs)
		return;
	rspool_room(rs, RSPOOL_BUF); /* all written out */
	if (rc < 0 || rs->failed || st->damaged || st->nr_compressed ||
	    st->bytes_missing || !rs->bytes || rs->bytes > SIZE_MAX) {
		rspool_free(c);
		return;
	}
	map = mmap(NULL, (size_t)rs->bytes, PROT_READ, MAP_PRIVATE, rs->fd, 0);
	if (map == MAP_FAILED) {
		rspool_free(c);
		return;
	}
	madvise(map, (size_t)rs->bytes, MADV_SEQUENTIAL);
	rs->map = map;
	pda_logf(c->s, PD_LOG_DEBUG,
		 "unwind pass: %llu bytes of records kept for the second",
		 (unsigned long long)rs->bytes);
	/* the second pass's reader would count the same */
	c->shard_stats = *st;
	pda_free(c->s, rs->buf);
	rs->buf = NULL;
}

/* The second pass from the spool: its records, each with its key. */
static int rspool_read(struct pda_capture *c)
{
	const struct pda_rspool *rs = c->rspool;
	uint64_t at = 0;
	int rc = 0;

	/* the capture's reader stays unused: its pager goes */
	pd_reader_free(c->r);
	c->r = NULL;
	while (at < rs->bytes && rc == 0) {
		struct rspool_ent e;
		struct pda_sb_key key;
		struct pd_rec rec = {0};

		memcpy(&e, rs->map + at, sizeof(e));
		at += sizeof(e);
		rec.type = e.type;
		rec.misc = e.misc;
		rec.size = e.size;
		rec.offset = e.offset;
		rec.flags = e.flags;
		rec.data = rs->map + at;
		at += (e.size + 7u) & ~(uint64_t)7;
		key.time = e.time;
		key.seq = e.seq;
		rc = step(c, &rec, &key);
	}
	return rc;
}

/*
 * Between the two passes of a run whose DWARF-unwound frames are named
 * as addr2line names them: every kept sample unwound, in the file's
 * order (pda_pipe_unwind_pass), its frames' addresses then resolved in
 * the order perf first asks about them.  Its reader is quiet, its
 * samples are not counted: the second pass does both.
 */
static int unwind_pass(struct pda_capture *c)
{
	struct order_clock k = {0};
	struct pd_reader *r;
	struct pd_rec rec;
	uint64_t nr = 0;
	int rc;

	k.end_only = pd_file_header(c->f)->kind == PD_KIND_DIR;
	rc = pda_pipe_unwind_pass(c->pipe);
	if (rc < 0)
		return session_failed(c, rc);
	rc = pd_reader_new(c->f, PD_READ_QUIET | pager_flag(c), &r);
	if (rc < 0)
		return reader_failed(c, rc);
	c->unwinding = true;
	pass_begin(c, "unwinding");
	rspool_begin(c);
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		struct pda_pipe_when w;
		struct pda_sb_key key;

		clock_key(&k, c->f, &rec, &key);
		if (c->rspool)
			rspool_put(c, &rec, &key);
		if (rec.type != PD_REC_SAMPLE)
			continue;
		c->prog.nr_samples++;
		if ((rc = progress(c, &rec, ++nr)) < 0)
			break;
		w.epoch = epoch_of(c, &key);
		w.time = key.time;
		w.seq = key.seq;
		rc = pda_pipe_feed_sample(c->pipe, &rec, &w);
		if (rc < 0) {
			session_failed(c, rc);
			break;
		}
	}
	c->unwinding = false;
	if (rc < 0 && c->failed_in == PDA_CAPTURE_OK)
		reader_failed(c, rc);
	rspool_end(c, r, rc);
	pd_reader_free(r);
	if (rc == 0 && (rc = pda_pipe_unwind_done(c->pipe)) < 0)
		session_failed(c, rc);
	return rc;
}

/* The records of r, each with its key (k: the clock where r begins). */
static bool shard_stopped(const struct pda_capture_shard *sh);

static int second_read(struct pda_capture *c, struct pd_reader *r,
		       struct order_clock *k)
{
	struct pd_rec rec;
	unsigned batch = 0;
	int rc;

	while ((rc = pd_reader_next(r, &rec)) > 0) {
		struct pda_sb_key key;
		struct pd_sample sample;

		/* a shard after one that failed stops: its work is lost */
		if (c->shard && ++batch % SHARD_CHECK == 0 &&
		    shard_stopped(c->shard))
			return 0;

		/* a sample for a group: decoded once, its time the key's
		 * (pd_rec_time found its event and time again: ~5% of a
		 * leaf view) */
		if (c->rec_groups && rec.type == PD_REC_SAMPLE &&
		    rec_groupable(c, &rec, &sample)) {
			struct pda_pipe_when w;

			clock_key_at(k, sample.time, &key);
			if ((rc = step_count(c, &rec)) < 0)
				return rc;
			w.epoch = epoch_of(c, &key);
			w.time = key.time;
			w.seq = key.seq;
			if ((rc = fed(c, group_add(c, &sample, &w, 1))) < 0)
				return rc;
			continue;
		}
		/* any other sample after the open groups (one that does
		 * not decode is said in step(), after those before it) */
		if (c->rec_groups && rec.type == PD_REC_SAMPLE &&
		    (rc = fed(c, groups_flush(c))) < 0)
			return rc;
		clock_key(k, c->f, &rec, &key);
		rc = step(c, &rec, &key);
		if (rc < 0)
			return rc;
	}
	return rc < 0 ? reader_failed(c, rc) : 0;
}

/* What a reader counted, added to sum; damage is the last range's (the
 * first pass cut only where it read on). */
static void add_reader_stats(struct pd_reader_stats *sum,
			     const struct pd_reader_stats *st)
{
	sum->nr_records += st->nr_records;
	for (size_t i = 0; i < PD_REC_TYPE_MAX; i++)
		sum->by_type[i] += st->by_type[i];
	sum->nr_other_type += st->nr_other_type;
	sum->nr_unknown += st->nr_unknown;
	sum->nr_compressed += st->nr_compressed;
	sum->nr_compressed2 += st->nr_compressed2;
	sum->compressed_bytes += st->compressed_bytes;
	sum->decompressed_bytes += st->decompressed_bytes;
	sum->nr_size_wrapped += st->nr_size_wrapped;
	if (st->damaged) {
		sum->damaged = st->damaged;
		sum->damage_offset = st->damage_offset;
		sum->bytes_unread = st->bytes_unread;
		memcpy(sum->damage, st->damage, sizeof(sum->damage));
	}
	sum->data_declared = st->data_declared;
	sum->bytes_missing = st->bytes_missing;
}

/* Shard i (>= 1) of a caller with shard_fn: the samples before handed
 * back, a pipeline of its own.  @return 0 or a negative pd_err. */
static int next_shard(struct pda_capture *c, size_t i)
{
	int rc = pda_pipe_finish(c->pipe);

	if (rc < 0)
		return pipe_failed(c, rc);
	pda_pipe_free(c->pipe);
	c->pipe = NULL;
	rc = c->o.shard_fn(c->o.arg, (unsigned)i);
	if (rc < 0)
		return callback_failed(c, rc);
	return new_pipe(c);
}

/*
 * ---- shards on threads (pda_capture_opts.shard_begin) ----
 *
 * Shard 0 is read on the caller's thread by c itself; each later one on
 * a thread of its own by a copy of c (its pipeline, session view,
 * filter, counts and epoch cache; the keys, cuts and file shared, read
 * only), its samples to the caller's shard_arg.  A later shard's skip
 * is said on its thread in its turn (shard_skip).  After they all end,
 * the copies are added to c in the file's order: counts, filter, reader
 * statistics, the first failure.
 */
struct pda_capture_shard {
	struct pda_capture c;	/* the copy */
	struct pda_capture *owner; /* the c it copies */
	struct pda_filter flt;	/* its filter's copy, if any */
	void *arg;		/* shard_begin's */
	struct pd_reader *r;
	struct order_clock k;
	struct pd_reader_stats rst;
	pthread_t thread;
	unsigned idx;		/* its place: the session view's rank */
	bool started;
	int rc;
	/* the first failed shard's idx (UINT_MAX: none yet), shared by
	 * the run's shards (second_threads) */
	atomic_uint *failed;
};

/* A shard stops reading once a shard before it in the file failed: the
 * run says that one's message, as it would one after the other. */
static bool shard_stopped(const struct pda_capture_shard *sh)
{
	return atomic_load_explicit(sh->failed, memory_order_relaxed) <
	       sh->idx;
}

/* Shard idx failed: the shards after it stop (shard_stopped). */
static void shard_failed(atomic_uint *failed, unsigned idx)
{
	unsigned was = atomic_load_explicit(failed, memory_order_relaxed);

	while (idx < was &&
	       !atomic_compare_exchange_weak_explicit(failed, &was, idx,
						      memory_order_relaxed,
						      memory_order_relaxed))
		;
}

/* The skips of kind what st counted. */
static uint64_t nr_skipped(const struct pda_capture_stats *st,
			   enum pda_capture_skip what)
{
	if (what == PDA_CAPTURE_BAD_SAMPLE)
		return st->nr_bad_samples;
	if (what == PDA_CAPTURE_UNKNOWN_ID)
		return st->nr_unknown_id;
	return st->nr_stack_errors;
}

/*
 * A skip of shard sh, on its thread (its copy not counting it yet).  The
 * first of its kind anywhere is said where a run in one says it: before
 * the warnings of the binaries first used after it, which wait for every
 * shard before sh to be done (pda_session.c, shard_turn), so this waits
 * for the same (said after the run, it came after them).  The rest are
 * counted only, as skip_fn says the first of each kind (c's statistics
 * then count none of it).  sh is the shards' array's idx'th.  @return 0
 * or skip_fn's negative pd_err.
 */
static int shard_skip(struct pda_capture_shard *sh,
		      enum pda_capture_skip what, const char *why)
{
	const struct pda_capture_shard *all = sh - sh->idx;
	struct pda_capture *c = sh->owner;

	if (!c->o.skip_fn || nr_skipped(&sh->c.st, what))
		return 0;
	pda_session_shard_wait(c->s, sh->idx);
	if (nr_skipped(&c->st, what))
		return 0;
	for (unsigned i = 1; i < sh->idx; i++)
		if (nr_skipped(&all[i].c.st, what))
			return 0;
	return c->o.skip_fn(c->o.arg, what, why);
}

/* A shard's thread: its range read into its pipeline, which hands its
 * last samples back. */
static void *shard_main(void *arg)
{
	struct pda_capture_shard *sh = arg;
	struct pda_capture *c = &sh->c;
	int rc;

	/* its failures said in its view, apart from the other shards' */
	pda_view_enter(c->s, c->view);
	rc = second_read(c, sh->r, &sh->k);
	if (rc == 0 && (rc = pda_pipe_finish(c->pipe)) < 0)
		rc = pipe_failed(c, rc);
	sh->rc = rc;
	if (rc < 0)
		shard_failed(sh->failed, sh->idx);
	/* its samples resolved: later shards may load binaries it did not
	 * use (pda_session_shard_done) */
	pda_session_shard_done(c->s, sh->idx);
	return NULL;
}

/* Shard i's copy of c, its reader made (sh zeroed).  0 or a negative
 * pd_err, said in c. */
static int shard_new(struct pda_capture *c, size_t i,
		     struct pda_capture_shard *sh, unsigned flags)
{
	struct pda_capture *x = &sh->c;
	int rc;

	*x = *c;
	memset(&x->st, 0, sizeof(x->st));
	x->r = NULL;
	x->pipe = NULL;
	x->rg = NULL;
	x->groups = NULL;
	x->itrace = NULL;
	x->shard = sh;
	sh->owner = c;
	x->o.progress = NULL;
	x->o.shard_fn = NULL;
	x->o.shard_begin = NULL;
	x->o.shard_end = NULL;
	if (c->o.filter) {
		pda_filter_fork(c->o.filter, &sh->flt);
		x->o.filter = &sh->flt;
	}
	sh->k = c->cuts[i].k;
	rc = pd_reader_new_range(c->f, flags, &c->cuts[i].pos,
				 i + 1 < c->nr_cuts ? &c->cuts[i + 1].pos
						    : NULL,
				 &sh->r);
	if (rc < 0)
		return reader_failed(c, rc);
	x->view = pda_view_new(c->s);
	if (!x->view) {
		set_msg(c, PDA_CAPTURE_SESSION, pd_strerror(PD_ERR_NOMEM));
		return PD_ERR_NOMEM;
	}
	sh->idx = (unsigned)i;
	pda_view_rank(x->view, (unsigned)i);
	rc = c->o.shard_begin(c->o.arg, (unsigned)i, &sh->arg);
	if (rc < 0)
		return callback_failed(c, rc);
	x->o.arg = sh->arg;
	rc = new_pipe(x);
	if (rc < 0)
		set_msg(c, PDA_CAPTURE_SESSION, pd_strerror(rc));
	return rc;
}

/* Statistics of a shard's copy added to c's. */
static void add_stats(struct pda_capture_stats *to,
		      const struct pda_capture_stats *st)
{
	to->nr_records += st->nr_records;
	to->nr_samples += st->nr_samples;
	to->nr_bad_samples += st->nr_bad_samples;
	to->nr_stack_errors += st->nr_stack_errors;
	to->nr_lost += st->nr_lost;
	to->nr_lost_samples += st->nr_lost_samples;
	to->nr_dropped_samples += st->nr_dropped_samples;
	to->nr_bad_lost += st->nr_bad_lost;
	to->nr_synth += st->nr_synth;
	to->nr_unknown_id += st->nr_unknown_id;
}

/* After the threads: shard sh (i) added to c, in order.  rc: the run's
 * so far (a failure stops the adding but not the freeing). */
static int shard_end(struct pda_capture *c, size_t i,
		     struct pda_capture_shard *sh, int rc)
{
	struct pda_capture *x = &sh->c;

	if (rc == 0 && sh->started && sh->rc < 0) {
		c->failed_in = x->failed_in;
		c->msg_set = x->msg_set;
		memcpy(c->errmsg, x->errmsg, sizeof(c->errmsg));
		rc = sh->rc;
	}
	if (rc == 0) {
		add_stats(&c->st, &x->st);
		c->prog.nr_samples += x->prog.nr_samples;
		if (c->o.filter)
			pda_filter_add(c->o.filter, &sh->flt);
	}
	if (sh->r) {
		add_reader_stats(&c->shard_stats, pd_reader_stats(sh->r));
		pd_reader_free(sh->r);
	}
	if (rc == 0 && sh->arg &&
	    (rc = c->o.shard_end(c->o.arg, (unsigned)i, sh->arg)) < 0)
		rc = callback_failed(c, rc);
	else if (rc < 0 && sh->arg)
		c->o.shard_end(c->o.arg, (unsigned)i, sh->arg);
	if (x->rg) {
		pda_readgroup_release(x->rg, c->s);
		pda_free(c->s, x->rg);
	}
	/*
	 * A shard's pipeline goes with its view and sh, which its callback
	 * points into: none stays as c->pipe (every pipeline finished; the
	 * end of the run does without one, as after stop()).  After the
	 * last shard, c's own goes too, first: -vv's lines of the
	 * pipelines and views in the order they always came (pda_pipe_free
	 * reads no view).
	 */
	if (i + 1 == c->nr_cuts) {
		pda_pipe_free(c->pipe);
		c->pipe = NULL;
	} else {
		pda_pipe_free(x->pipe);
		x->pipe = NULL;
	}
	pda_view_free(c->s, x->view);
	x->view = NULL;
	pda_pipe_free(x->pipe);
	x->pipe = NULL;
	return rc;
}

/* The second pass's shards at once, each on its thread. */
static int second_threads(struct pda_capture *c)
{
	const unsigned flags = pager_flag(c);
	const size_t n = c->nr_cuts;
	struct pda_capture_shard *sh = pda_zalloc(c->s, n * sizeof(*sh));
	struct order_clock k = c->cuts[0].k;
	struct pd_reader *r = NULL;
	atomic_uint failed = UINT_MAX;
	int rc = 0;

	if (!sh) {
		set_msg(c, PDA_CAPTURE_SESSION, pd_strerror(PD_ERR_NOMEM));
		return PD_ERR_NOMEM;
	}
	memset(&c->shard_stats, 0, sizeof(c->shard_stats));
	pd_reader_free(c->r);
	c->r = NULL;
	/* the memos at work at once share one bound: the memory of -j N
	 * is -j 1's (each shard of a long capture meets most of its keys) */
	c->o.memo_max = (c->o.memo_max ? c->o.memo_max : PDA_PIPE_MEMO_MAX) / n;
	if (!c->o.memo_max)
		c->o.memo_max = 1;
	if (c->pipe)
		pda_pipe_memo_max(c->pipe, c->o.memo_max);
	rc = pd_reader_new_range(c->f, flags, &c->cuts[0].pos, &c->cuts[1].pos,
				 &r);
	if (rc < 0)
		rc = reader_failed(c, rc);
	for (size_t i = 1; i < n && rc == 0; i++) {
		sh[i].failed = &failed;
		rc = shard_new(c, i, &sh[i], flags);
	}
	if (rc == 0 && (rc = pda_session_shards(c->s, true)) < 0)
		set_msg(c, PDA_CAPTURE_SESSION, pd_strerror(rc));
	if (rc == 0)
		pd_file_threads(c->f, true);
	for (size_t i = 1; i < n && rc == 0; i++) {
		if (pthread_create(&sh[i].thread, NULL, shard_main, &sh[i]))
			break; /* read here after the first */
		sh[i].started = true;
	}
	if (rc == 0)
		rc = second_read(c, r, &k);
	if (rc == 0 && (rc = pda_pipe_finish(c->pipe)) < 0)
		rc = pipe_failed(c, rc);
	if (rc < 0)
		shard_failed(&failed, 0);
	/* done or failed: the shards waiting for its loads go on */
	pda_session_shard_done(c->s, 0);
	for (size_t i = 1; i < n; i++)
		if (sh[i].started)
			pthread_join(sh[i].thread, NULL);
	pd_file_threads(c->f, false);
	pda_session_shards(c->s, false);
	/* those that did not start, here in turn */
	for (size_t i = 1; i < n && rc == 0; i++)
		if (!sh[i].started && sh[i].r) {
			shard_main(&sh[i]);
			sh[i].started = true;
		}
	if (r) {
		add_reader_stats(&c->shard_stats, pd_reader_stats(r));
		pd_reader_free(r);
	}
	for (size_t i = 1; i < n; i++)
		rc = shard_end(c, i, &sh[i], rc);
	pda_free(c->s, sh);
	return rc;
}

/* The second pass's shards, one after the other. */
static int second_shards(struct pda_capture *c)
{
	const unsigned flags = pager_flag(c);
	/* a pipeline per shard, but where it unwinds from DWARF: what the
	 * unwind pass left it and its unwinding state span the file */
	const bool own = c->o.shard_fn && !unwinds(c->f, &c->o);
	int rc = 0;

	if (own && c->o.shard_begin && c->o.shard_end && c->nr_cuts > 1)
		return second_threads(c);
	memset(&c->shard_stats, 0, sizeof(c->shard_stats));
	/* the whole file's reader stays unused: its pager goes */
	pd_reader_free(c->r);
	c->r = NULL;
	for (size_t i = 0; i < c->nr_cuts && rc == 0; i++) {
		const struct pda_capture_cut *cut = &c->cuts[i];
		struct order_clock k = cut->k;
		struct pd_reader *r;

		rc = pd_reader_new_range(c->f, flags, &cut->pos,
					 i + 1 < c->nr_cuts ? &c->cuts[i + 1].pos
							    : NULL,
					 &r);
		if (rc < 0)
			return reader_failed(c, rc);
		if (i > 0 && own && (rc = next_shard(c, i)) < 0) {
			pd_reader_free(r);
			return rc;
		}
		rc = second_read(c, r, &k);
		add_reader_stats(&c->shard_stats, pd_reader_stats(r));
		pd_reader_free(r);
	}
	return rc;
}

/* The second pass's records, each with its key. */
static int second_pass(struct pda_capture *c)
{
	struct order_clock k = {0};
	int rc;

	k.end_only = pd_file_header(c->f)->kind == PD_KIND_DIR;
	pass_begin(c, "samples");
	/* the last groups go in feed_synth(), with the trace's */
	c->rec_groups = rec_groups(c);
	rc = c->rspool	  ? rspool_read(c)
	     : c->nr_cuts ? second_shards(c)
			  : second_read(c, c->r, &k);
	rc = rc < 0 ? rc : feed_synth(c, UINT64_MAX);
	c->rec_groups = 0;
	return rc;
}

/* The reader's statistics: the shards' summed, or the one reader's. */
static void reader_stats(struct pda_capture *c)
{
	c->st.reader = c->r ? *pd_reader_stats(c->r) : c->shard_stats;
}

bool pda_capture_two_pass(const struct pda_capture *c)
{
	return c->two_pass;
}

int pda_capture_run(struct pda_capture *c)
{
	struct pd_rec rec;
	int rc = 0;

	if (!c->r || c->ran || c->failed_in != PDA_CAPTURE_OK)
		return PD_ERR_API;
	c->ran = true;
	c->prog.total = pd_file_header(c->f)->data_size;
	c->prog.nr_passes = 1;
	if ((rc = synth_begin(c)) < 0)
		return stop(c, rc);
	if (c->two_pass) {
		/* a pipe-mode capture's events are known after the first */
		c->prog.nr_passes = 2 + unwinds_named(c->f, c->s, &c->o);
		/* kallsyms parsed on another thread meanwhile: the
		 * second pass's shards would each wait for it */
		if (shards_wanted(c) > 1)
			pda_kernel_early_start(c->s);
		rc = first_pass(c);
		c->prog.nr_passes = 2 + unwinds_named(c->f, c->s, &c->o);
		if (rc == 0 && c->prog.nr_passes == 3)
			rc = unwind_pass(c);
		if (rc == 0)
			rc = second_pass(c);
		if (rc < 0)
			return stop(c, rc);
	} else {
		pass_begin(c, "samples");
	}
	while (!c->two_pass && (rc = pd_reader_next(c->r, &rec)) > 0) {
		uint64_t time = 0;

		/* perf decodes the trace up to each record's time first */
		if (c->itrace && pd_rec_time(c->f, &rec, &time) == 0 && time &&
		    time != UINT64_MAX && (rc = feed_synth(c, time)) < 0)
			return stop(c, rc);
		rc = step(c, &rec, NULL);
		if (rc < 0)
			return stop(c, rc);
	}
	if (rc < 0)
		return stop(c, reader_failed(c, rc));
	if (!c->two_pass && (rc = feed_synth(c, UINT64_MAX)) < 0)
		return stop(c, rc);
	if (c->pipe) {
		rc = pda_pipe_finish(c->pipe);
		if (rc < 0)
			return stop(c, pipe_failed(c, rc));
	}
	reader_stats(c);
	c->st.lost = pda_capture_lost_count(c->f, c->st.nr_lost,
					    c->st.nr_lost_samples);
	return 0;
}

void pda_capture_release(struct pda_capture *c)
{
	if (!c)
		return;
	pda_pipe_free(c->pipe);
	rspool_free(c);
	pd_reader_free(c->r);
	pda_itrace_free(c->itrace);
	c->itrace = NULL;
	if (c->s && c->groups) {
		pda_free(c->s, c->groups->bounds);
		pda_free(c->s, c->groups);
	}
	c->groups = NULL;
	if (c->s && c->rg) {
		pda_readgroup_release(c->rg, c->s);
		pda_free(c->s, c->rg);
		c->rg = NULL;
	}
	if (c->s) {
		pda_free(c->s, c->keys);
		pda_free(c->s, c->first);
		pda_free(c->s, c->order);
		pda_free(c->s, c->cuts);
	}
	c->cuts = NULL;
	c->nr_cuts = 0;
	c->keys = NULL;
	c->first = NULL;
	c->order = NULL;
	c->pipe = NULL;
	c->r = NULL;
}

const struct pda_capture_stats *pda_capture_stats(const struct pda_capture *c)
{
	return &c->st;
}

const struct pda_itrace *pda_capture_itrace(const struct pda_capture *c)
{
	return c->itrace;
}

const char *pda_capture_errmsg(const struct pda_capture *c)
{
	return c->errmsg;
}

enum pda_capture_stage pda_capture_failed_in(const struct pda_capture *c)
{
	return c->failed_in;
}
