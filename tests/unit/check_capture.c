/*
 * check_capture.c - the sample filter (pda_filter.h) and the capture loop
 * (pda_capture.h): which samples each rule keeps and counts, the event
 * name rules, lost accounting, bad samples, errors from callbacks that
 * stop the run, and the per-record mode.
 */
#include "pdatest.h"
#include "pda_capture.h"
#include "pda_itrace.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PERF_TYPE_SOFTWARE 1
#define PERF_TYPE_TRACEPOINT 2

/* ---- the filter ---------------------------------------------------- */

static struct pd_evsel ev_cycles = {.idx = 0, .name = "cycles:u"};
static struct pd_evsel ev_faults = {.idx = 1, .name = "page-faults/period=1/"};
static struct pd_evsel ev_tp = {.idx = 2, .name = "sched:sched_switch"};

static void setup_evsels(void)
{
	ev_cycles.attr.type = 0;
	ev_faults.attr.type = PERF_TYPE_SOFTWARE;
	ev_tp.attr.type = PERF_TYPE_TRACEPOINT;
}

static struct pd_sample mk(const struct pd_evsel *e, uint32_t pid, uint32_t tid,
			   uint64_t time)
{
	struct pd_sample s;

	memset(&s, 0, sizeof(s));
	s.evsel = e;
	s.pid = pid;
	s.tid = tid;
	s.time = time;
	return s;
}

START_TEST(test_event_matches)
{
	ck_assert(pda_event_matches("cycles", "cycles"));
	ck_assert(pda_event_matches("cycles", "cycles:u"));
	ck_assert(pda_event_matches("cycles:u", "cycles:u"));
	ck_assert(!pda_event_matches("cycles:k", "cycles:u"));
	ck_assert(!pda_event_matches("cycles:u", "cycles"));
	ck_assert(pda_event_matches("page-faults", "page-faults/period=1/"));
	ck_assert(!pda_event_matches("page", "page-faults"));
	ck_assert(!pda_event_matches("cycl", "cycles:u"));
	/* a want with a modifier is the whole name */
	ck_assert(!pda_event_matches("sched:sched", "sched:sched_switch"));
	ck_assert(pda_event_matches("sched", "sched:sched_switch"));
}
END_TEST

/* Without --event: every event but tracepoints, NULL events pass. */
START_TEST(test_filter_default_events)
{
	struct pda_filter flt;
	const struct pda_filter_stats *st;
	struct pd_sample s;
	PDA_FILTER_OPTS(fo, .flags = 0);

	setup_evsels();
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	s = mk(&ev_cycles, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));
	s = mk(&ev_tp, 1, 1, 0);
	ck_assert(!pda_filter_sample(&flt, &s));
	ck_assert(!pda_filter_sample(&flt, &s));
	s = mk(NULL, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));
	s = mk(&ev_faults, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));
	s = mk(&ev_cycles, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));

	st = pda_filter_stats(&flt);
	ck_assert_uint_eq(st->nr_samples, 6);
	ck_assert_uint_eq(st->nr_kept, 4);
	ck_assert_uint_eq(st->nr_left_out, 2);
	ck_assert_uint_eq(st->by_reason[PDA_FILTER_OUT_EVENT], 2);
	ck_assert_uint_eq(st->nr_event_ok, 4);
	/* the events with samples, in order, NULL not among them */
	ck_assert_uint_eq(st->nr_events, 3);
	ck_assert_ptr_eq(st->events[0].evsel, &ev_cycles);
	ck_assert_uint_eq(st->events[0].nr_samples, 2);
	ck_assert_uint_eq(st->events[0].nr_kept, 2);
	ck_assert_ptr_eq(st->events[1].evsel, &ev_tp);
	ck_assert_uint_eq(st->events[1].nr_samples, 2);
	ck_assert_uint_eq(st->events[1].nr_kept, 0);
	ck_assert_ptr_eq(st->events[2].evsel, &ev_faults);

	/* n samples alike count as n */
	ck_assert(pda_filter_sample_n(&flt, &s, 5));
	ck_assert_uint_eq(st->nr_samples, 11);
	ck_assert_uint_eq(st->nr_kept, 9);
	ck_assert_uint_eq(st->events[0].nr_samples, 7);
	ck_assert(!pda_filter_timed(&flt));

	/* PDA_FILTER_TRACEPOINTS keeps them */
	fo.flags = PDA_FILTER_TRACEPOINTS;
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	s = mk(&ev_tp, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));
}
END_TEST

/* --event NAME: that event only, tracepoints too; no event: left out. */
START_TEST(test_filter_event)
{
	struct pda_filter flt;
	const struct pda_filter_stats *st;
	struct pd_sample s;
	PDA_FILTER_OPTS(fo, .event = "sched");

	setup_evsels();
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	s = mk(&ev_tp, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));
	s = mk(&ev_cycles, 1, 1, 0);
	ck_assert(!pda_filter_sample(&flt, &s));
	s = mk(NULL, 1, 1, 0);
	ck_assert(!pda_filter_sample(&flt, &s));
	st = pda_filter_stats(&flt);
	ck_assert_uint_eq(st->by_reason[PDA_FILTER_OUT_EVENT], 2);
	ck_assert_uint_eq(st->by_reason[PDA_FILTER_OUT_NO_EVENT], 0);

	/* NEED_EVENT: a sample of no known event has its own reason,
	 * before the event rule */
	fo.flags = PDA_FILTER_NEED_EVENT | PDA_FILTER_TRACEPOINTS;
	fo.event = NULL;
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	s = mk(NULL, 1, 1, 0);
	ck_assert(!pda_filter_sample(&flt, &s));
	s = mk(&ev_tp, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));
	st = pda_filter_stats(&flt);
	ck_assert_uint_eq(st->by_reason[PDA_FILTER_OUT_NO_EVENT], 1);
	ck_assert_uint_eq(st->by_reason[PDA_FILTER_OUT_EVENT], 0);
}
END_TEST

/* FIRST_EVENT: the event of the first sample past the tracepoint rule,
 * and only it; a sample of no known event passes. */
START_TEST(test_filter_first_event)
{
	struct pda_filter flt;
	const struct pda_filter_stats *st;
	struct pd_sample s;
	PDA_FILTER_OPTS(fo, .flags = PDA_FILTER_FIRST_EVENT);

	setup_evsels();
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	ck_assert_ptr_null(pda_filter_first(&flt));
	s = mk(&ev_tp, 1, 1, 0);
	ck_assert(!pda_filter_sample(&flt, &s));
	ck_assert_ptr_null(pda_filter_first(&flt));
	s = mk(&ev_faults, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));
	s = mk(&ev_cycles, 1, 1, 0);
	ck_assert(!pda_filter_sample(&flt, &s));
	ck_assert(!pda_filter_sample(&flt, &s));
	s = mk(NULL, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));
	s = mk(&ev_faults, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));
	ck_assert_ptr_eq(pda_filter_first(&flt), &ev_faults);
	st = pda_filter_stats(&flt);
	ck_assert_uint_eq(st->by_reason[PDA_FILTER_OUT_EVENT], 3);
	ck_assert_uint_eq(st->nr_kept, 3);
	ck_assert_uint_eq(st->nr_events, 3);

	/* with .event, the flag has nothing to choose */
	fo.event = "cycles";
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	s = mk(&ev_faults, 1, 1, 0);
	ck_assert(!pda_filter_sample(&flt, &s));
	s = mk(&ev_cycles, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));
	ck_assert_ptr_null(pda_filter_first(&flt));
}
END_TEST

/* perf's --time is inclusive at both ends; then pids, then tids. */
START_TEST(test_filter_time_pids)
{
	static const uint32_t pids[] = {10, 30};
	static const uint32_t tids[] = {11};
	struct pda_filter flt;
	const struct pda_filter_stats *st;
	struct pd_sample s;
	PDA_FILTER_OPTS(fo, .has_time_start = true, .time_start = 100,
			.has_time_end = true, .time_end = 200, .pids = pids,
			.nr_pids = 2, .tids = tids, .nr_tids = 1);

	setup_evsels();
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	s = mk(&ev_cycles, 10, 11, 100);
	ck_assert(pda_filter_sample(&flt, &s));
	s = mk(&ev_cycles, 10, 11, 200);
	ck_assert(pda_filter_sample(&flt, &s));
	s = mk(&ev_cycles, 10, 11, 99);
	ck_assert(!pda_filter_sample(&flt, &s));
	s = mk(&ev_cycles, 10, 11, 201);
	ck_assert(!pda_filter_sample(&flt, &s));
	/* out of time and of pid: time is asked first */
	s = mk(&ev_cycles, 20, 11, 300);
	ck_assert(!pda_filter_sample(&flt, &s));
	s = mk(&ev_cycles, 20, 11, 150);
	ck_assert(!pda_filter_sample(&flt, &s));
	s = mk(&ev_cycles, 30, 12, 150);
	ck_assert(!pda_filter_sample(&flt, &s));
	s = mk(&ev_tp, 30, 11, 150); /* the event rule first */
	ck_assert(!pda_filter_sample(&flt, &s));
	st = pda_filter_stats(&flt);
	ck_assert_uint_eq(st->nr_kept, 2);
	ck_assert_uint_eq(st->by_reason[PDA_FILTER_OUT_TIME], 3);
	ck_assert_uint_eq(st->by_reason[PDA_FILTER_OUT_PID], 1);
	ck_assert_uint_eq(st->by_reason[PDA_FILTER_OUT_TID], 1);
	ck_assert_uint_eq(st->by_reason[PDA_FILTER_OUT_EVENT], 1);
	ck_assert_uint_eq(st->nr_event_ok, 7);
	ck_assert_uint_eq(st->events[0].nr_samples, 7);
	ck_assert_uint_eq(st->events[0].nr_kept, 2);

	/* an open end */
	fo.has_time_start = false;
	fo.pids = NULL;
	fo.nr_pids = 0;
	fo.tids = NULL;
	fo.nr_tids = 0;
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	s = mk(&ev_cycles, 1, 1, 0);
	ck_assert(pda_filter_sample(&flt, &s));
}
END_TEST

/* perf's lists of --time ranges: in any of them, an open end, a sample
 * without a time kept (perf_time__ranges_skip_sample()) */
START_TEST(test_filter_time_ranges)
{
	static const struct pda_time_range r[] = {
		{100, 200}, {300, 400}, {500, 0}};
	struct pda_filter flt;
	struct pd_sample s;
	PDA_FILTER_OPTS(fo, .time_ranges = r, .nr_time_ranges = 3);
	static const uint64_t kept[] = {0, 100, 200, 300, 400, 500, 9000};
	static const uint64_t out[] = {1, 99, 201, 299, 401, 499};

	setup_evsels();
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		s = mk(&ev_cycles, 1, 1, kept[i]);
		ck_assert_msg(pda_filter_sample(&flt, &s), "%zu", i);
		ck_assert(pda_filter_peek(&flt, &s));
	}
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		s = mk(&ev_cycles, 1, 1, out[i]);
		ck_assert_msg(!pda_filter_sample(&flt, &s), "%zu", i);
		ck_assert(!pda_filter_peek(&flt, &s));
	}
	ck_assert_uint_eq(pda_filter_stats(&flt)->by_reason[PDA_FILTER_OUT_TIME],
			  6);
	/* a list with the single range's fields, a list without its
	 * count, a range ending before it starts: refused */
	fo.has_time_start = true;
	ck_assert_int_eq(pda_filter_init(&flt, &fo), PD_ERR_API);
	fo.has_time_start = false;
	fo.nr_time_ranges = 0;
	ck_assert_int_eq(pda_filter_init(&flt, &fo), PD_ERR_API);
	fo.time_ranges = (const struct pda_time_range[]){{5, 4}};
	fo.nr_time_ranges = 1;
	ck_assert_int_eq(pda_filter_init(&flt, &fo), PD_ERR_API);
}
END_TEST

START_TEST(test_filter_api)
{
	static const uint32_t pids[] = {1};
	struct pda_filter flt;
	unsigned char big[sizeof(struct pda_filter_opts) + 8];
	struct pda_filter_opts *bo = (struct pda_filter_opts *)(void *)big;
	PDA_FILTER_OPTS(fo, .has_time_start = true, .time_start = 2,
			.has_time_end = true, .time_end = 1);

	ck_assert_int_eq(pda_filter_init(&flt, &fo), PD_ERR_API);
	fo.time_end = 2;
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	fo.pids = pids;
	ck_assert_int_eq(pda_filter_init(&flt, &fo), PD_ERR_API);
	fo.nr_pids = 1;
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	fo.nr_tids = 1;
	ck_assert_int_eq(pda_filter_init(&flt, &fo), PD_ERR_API);
	ck_assert_int_eq(pda_filter_init(&flt, NULL), PD_ERR_API);
	/* a newer caller: accepted when its tail is zero */
	memset(big, 0, sizeof(big));
	bo->sz = sizeof(big);
	ck_assert_int_eq(pda_filter_init(&flt, bo), 0);
	big[sizeof(big) - 1] = 1;
	ck_assert_int_eq(pda_filter_init(&flt, bo), PD_ERR_API);
}
END_TEST

/* ---- the run ------------------------------------------------------- */

static void lost(struct tf *t, uint64_t id, uint64_t n)
{
	tf_begin(t, PD_REC_LOST, 0);
	tf_u64(t, id);
	tf_u64(t, n);
	tf_end(t);
}

static void lost_samples(struct tf *t, uint64_t n)
{
	tf_begin(t, PD_REC_LOST_SAMPLES, 0);
	tf_u64(t, n);
	tf_end(t);
}

/* A SAMPLE that ends before its tid: it does not decode. */
static void bad_sample(struct tf *t)
{
	tf_begin(t, PD_REC_SAMPLE, PD_MISC_USER);
	tf_u64(t, 0x400010);
	tf_end(t);
}

/* Records: 2 COMMs, 5 samples of pids 10 and 20, a bad one, and lost
 * records (one too short to say). */
static void build(struct tf *t)
{
	pt_begin_nocallchain(t);
	pt_comm(t, 10, 10, "ten", false);
	pt_comm(t, 20, 20, "twenty", false);
	pt_sample(t, PD_MISC_USER, 10, 10, 0x400010, NULL, 0);
	pt_sample(t, PD_MISC_USER, 20, 20, 0x400020, NULL, 0);
	lost(t, 7, 5);
	pt_sample(t, PD_MISC_USER, 10, 10, 0x400030, NULL, 0);
	bad_sample(t);
	lost_samples(t, 3);
	tf_begin(t, PD_REC_LOST_SAMPLES, 0); /* no count */
	tf_end(t);
	pt_sample(t, PD_MISC_USER, 20, 20, 0x400040, NULL, 0);
	pt_sample(t, PD_MISC_USER, 10, 10, 0x400050, NULL, 0);
}

#define NR_RECORDS 11

struct got {
	size_t nr;
	uint64_t ips[16];
	char comms[16][16]; /* copies: the session's go with it */
	int fail_at;	    /* fail the nth sample (1-based), 0 never */
	int fail_rc;
	struct pda_capture *c;
	size_t nr_skips;
	enum pda_capture_skip skips[4];
	int skip_rc;
	size_t nr_recs;
	uint32_t types[16];
};

static int on_sample(void *arg, const struct pda_pipe_item *it)
{
	struct got *g = arg;

	ck_assert_int_eq(it->err, 0);
	ck_assert_ptr_null(it->stack); /* no callchain */
	if (g->fail_at && (int)g->nr + 1 == g->fail_at)
		return pda_capture_set_err(g->c, g->fail_rc, "sample %zu: no",
					   g->nr + 1);
	ck_assert_uint_lt(g->nr, 16);
	g->ips[g->nr] = it->sample->ip;
	snprintf(g->comms[g->nr++], sizeof(g->comms[0]), "%s", it->comm);
	return 0;
}

static int on_skip(void *arg, enum pda_capture_skip what, const char *why)
{
	struct got *g = arg;

	ck_assert_str_ne(why, "");
	/* called before the statistics count it */
	ck_assert_uint_eq(pda_capture_stats(g->c)->nr_bad_samples, g->nr_skips);
	g->skips[g->nr_skips++] = what;
	return g->skip_rc;
}

static int on_rec(void *arg, const struct pd_rec *rec)
{
	struct got *g = arg;

	if (g->fail_at && (int)g->nr_recs + 1 == g->fail_at)
		return g->fail_rc;
	ck_assert_uint_lt(g->nr_recs, 16);
	g->types[g->nr_recs++] = rec->type;
	return 0;
}

/* Run t's capture with a session, pids filter, and g's callbacks. */
static int run(struct tf *t, struct got *g, struct pda_filter *flt,
	       struct pda_capture *c)
{
	struct pd_file *f = tf_open(t);
	struct pda_session *s;
	PDA_OPTS(o, .no_debuginfod = true);
	PDA_CAPTURE_OPTS(co, .filter = flt, .jobs = 1, .sample_fn = on_sample,
			 .skip_fn = on_skip, .arg = g);
	int rc;

	g->c = c;
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pda_capture_init(c, f, s, &co), 0);
	rc = pda_capture_run(c);
	pda_capture_release(c);
	pda_session_free(s);
	pd_file_close(f);
	return rc;
}

/* A lone `cycles:S` sample: IDENTIFIER IP PERIOD READ {value, id}. */
static void lone_read(struct tf *t, uint64_t id, uint64_t value,
		      uint64_t read_id)
{
	tf_begin(t, PD_REC_SAMPLE, PD_MISC_USER);
	tf_u64(t, id);
	tf_u64(t, 0x401000);
	tf_u64(t, 100);
	tf_u64(t, value);
	tf_u64(t, read_id);
	tf_end(t);
}

struct lone_got {
	struct pda_capture *c;
	uint64_t periods[8];
	size_t nr, nr_skips;
};

static int lone_sample(void *arg, const struct pda_pipe_item *it)
{
	struct lone_got *g = arg;

	ck_assert_uint_lt(g->nr, 8);
	g->periods[g->nr++] = it->sample->period;
	return 0;
}

static int lone_skip(void *arg, enum pda_capture_skip what, const char *why)
{
	struct lone_got *g = arg;

	ck_assert_int_eq(what, PDA_CAPTURE_UNKNOWN_ID);
	ck_assert_ptr_nonnull(strstr(why, "99"));
	/* called before the statistics count it */
	ck_assert_uint_eq(pda_capture_stats(g->c)->nr_unknown_id, g->nr_skips);
	g->nr_skips++;
	return 0;
}

/* A lone event reading its counter (PERF_SAMPLE_READ without GROUP):
 * each sample counts the counter's change since its previous sample,
 * not its own period, as perf 6.1's deliver_sample_value; a value of
 * no event's id is left out, counted and told. */
START_TEST(test_capture_lone_read)
{
	const uint64_t ids[] = {7, 8};
	struct tf_attr a = {.type = 0, .config = 0, .sample_period = 100,
			    .sample_type = PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP |
					   PD_SAMPLE_PERIOD | PD_SAMPLE_READ,
			    .read_format = PD_FORMAT_ID};
	struct lone_got g = {0};
	struct pda_capture c;
	struct pda_session *s;
	struct pd_file *f;
	struct tf t;
	PDA_OPTS(o, .no_debuginfod = true);
	PDA_CAPTURE_OPTS(co, .jobs = 1, .sample_fn = lone_sample,
			 .skip_fn = lone_skip, .arg = &g);

	tf_init(&t, false);
	tf_add_attr(&t, &a, ids, 2);
	lone_read(&t, 7, 100, 7);
	lone_read(&t, 8, 300, 8);  /* id 8's own counter */
	lone_read(&t, 7, 400, 7);  /* two samples in between went missing */
	lone_read(&t, 7, 400, 7);  /* did not move: not handed on */
	lone_read(&t, 7, 450, 99); /* no event has id 99 */
	lone_read(&t, 7, 460, 99);
	f = tf_open(&t);
	g.c = &c;
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pda_capture_init(&c, f, s, &co), 0);
	ck_assert_int_eq(pda_capture_run(&c), 0);
	ck_assert_uint_eq(g.nr, 3);
	ck_assert_uint_eq(g.periods[0], 100);
	ck_assert_uint_eq(g.periods[1], 300);
	ck_assert_uint_eq(g.periods[2], 300);
	ck_assert_uint_eq(g.nr_skips, 2);
	ck_assert_uint_eq(pda_capture_stats(&c)->nr_unknown_id, 2);
	pda_capture_release(&c);
	pda_session_free(s);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

START_TEST(test_capture_samples)
{
	static const uint32_t pids[] = {10};
	struct tf t;
	struct got g;
	struct pda_filter flt;
	struct pda_capture c;
	const struct pda_capture_stats *cs;
	PDA_FILTER_OPTS(fo, .pids = pids, .nr_pids = 1);

	memset(&g, 0, sizeof(g));
	build(&t);
	ck_assert_int_eq(pda_filter_init(&flt, &fo), 0);
	ck_assert_int_eq(run(&t, &g, &flt, &c), 0);
	/* pid 10's samples, in order, with their comms */
	ck_assert_uint_eq(g.nr, 3);
	ck_assert_uint_eq(g.ips[0], 0x400010);
	ck_assert_uint_eq(g.ips[1], 0x400030);
	ck_assert_uint_eq(g.ips[2], 0x400050);
	ck_assert_str_eq(g.comms[0], "ten");
	/* the bad sample, told once */
	ck_assert_uint_eq(g.nr_skips, 1);
	ck_assert_int_eq(g.skips[0], PDA_CAPTURE_BAD_SAMPLE);
	/* still readable after release */
	cs = pda_capture_stats(&c);
	ck_assert_uint_eq(cs->nr_records, NR_RECORDS);
	ck_assert_uint_eq(cs->nr_samples, 6);
	ck_assert_uint_eq(cs->nr_bad_samples, 1);
	ck_assert_uint_eq(cs->nr_stack_errors, 0);
	ck_assert_uint_eq(cs->nr_lost, 5);
	ck_assert_uint_eq(cs->nr_lost_samples, 3);
	ck_assert_uint_eq(cs->nr_bad_lost, 1);
	ck_assert_int_eq(cs->reader.damaged, 0);
	ck_assert_int_eq(pda_capture_failed_in(&c), PDA_CAPTURE_OK);
	ck_assert_str_eq(pda_capture_errmsg(&c), "");
	ck_assert_uint_eq(pda_filter_stats(&flt)->by_reason[PDA_FILTER_OUT_PID],
			  2);
	tf_release(&t);
}
END_TEST

/* A callback's error stops the run there and comes back, with its
 * message; without one, pd_strerror's. */
START_TEST(test_capture_callback_error)
{
	struct tf t;
	struct got g;
	struct pda_capture c;

	build(&t);
	memset(&g, 0, sizeof(g));
	g.fail_at = 2;
	g.fail_rc = PD_ERR_NOMEM;
	ck_assert_int_eq(run(&t, &g, NULL, &c), PD_ERR_NOMEM);
	ck_assert_uint_eq(g.nr, 1);
	ck_assert_int_eq(pda_capture_failed_in(&c), PDA_CAPTURE_CALLBACK);
	ck_assert_str_eq(pda_capture_errmsg(&c), "sample 2: no");
	/* stopped at the second sample: the lost record after it unread */
	ck_assert_uint_eq(pda_capture_stats(&c)->nr_samples, 2);
	ck_assert_uint_eq(pda_capture_stats(&c)->nr_lost, 0);

	/* the skip callback's error */
	memset(&g, 0, sizeof(g));
	g.skip_rc = PD_ERR_FORMAT;
	ck_assert_int_eq(run(&t, &g, NULL, &c), PD_ERR_FORMAT);
	ck_assert_uint_eq(g.nr, 3);
	ck_assert_uint_eq(g.nr_skips, 1);
	ck_assert_int_eq(pda_capture_failed_in(&c), PDA_CAPTURE_CALLBACK);
	ck_assert_str_eq(pda_capture_errmsg(&c), pd_strerror(PD_ERR_FORMAT));
	tf_release(&t);
}
END_TEST

/* Without a session: every record to rec_fn, in file order. */
START_TEST(test_capture_records)
{
	struct tf t;
	struct got g;
	struct pda_capture c;
	struct pd_file *f;
	PDA_CAPTURE_OPTS(co, .rec_fn = on_rec, .arg = &g);

	build(&t);
	f = tf_open(&t);
	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(pda_capture_init(&c, f, NULL, &co), 0);
	ck_assert_int_eq(pda_capture_run(&c), 0);
	ck_assert_uint_eq(g.nr_recs, NR_RECORDS);
	ck_assert_uint_eq(g.types[0], PD_REC_COMM);
	ck_assert_uint_eq(g.types[4], PD_REC_LOST);
	ck_assert_uint_eq(g.types[6], PD_REC_SAMPLE); /* the bad one too */
	ck_assert_uint_eq(pda_capture_stats(&c)->nr_samples, 6);
	ck_assert_uint_eq(pda_capture_stats(&c)->nr_lost, 5);
	ck_assert_uint_eq(pda_capture_stats(&c)->nr_lost_samples, 3);
	/* a second run: misuse */
	ck_assert_int_eq(pda_capture_run(&c), PD_ERR_API);
	pda_capture_release(&c);

	/* an error from rec_fn stops at that record */
	memset(&g, 0, sizeof(g));
	g.fail_at = 5;
	g.fail_rc = PD_ERR_IO;
	ck_assert_int_eq(pda_capture_init(&c, f, NULL, &co), 0);
	ck_assert_int_eq(pda_capture_run(&c), PD_ERR_IO);
	ck_assert_uint_eq(g.nr_recs, 4);
	ck_assert_uint_eq(pda_capture_stats(&c)->nr_records, 5);
	ck_assert_int_eq(pda_capture_failed_in(&c), PDA_CAPTURE_CALLBACK);
	ck_assert_str_eq(pda_capture_errmsg(&c), pd_strerror(PD_ERR_IO));
	pda_capture_release(&c);
	pda_capture_release(NULL);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

struct threaded {
	uint64_t nr;
	uint64_t fail_at;
};

static int count_or_fail(void *arg, const struct pda_pipe_item *it)
{
	struct threaded *th = arg;

	(void)it;
	return ++th->nr == th->fail_at ? PD_ERR_IO : 0;
}

/*
 * A callback's error while samples are being unwound on other threads
 * (a --call-graph dwarf capture, -j 3, small batches): the run stops
 * there, its threads stopped, and the same error comes back.
 */
START_TEST(test_capture_threads_stop)
{
	struct threaded th = {0, 0};
	struct pd_file *f;
	struct pda_session *s;
	struct pda_capture c;
	uint64_t all;
	PDA_OPTS(o, .no_debuginfod = true, .buildid_dir = "/nonexistent");
	PDA_CAPTURE_OPTS(co, .jobs = 3, .batch = 4, .sample_fn = count_or_fail,
			 .arg = &th);

	for (int pass = 0; pass < 2; pass++) {
		ck_assert_int_eq(
			pd_file_open("../../testdata/dwarf.perf.data.zst", NULL,
				     &f),
			0);
		ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
		ck_assert_int_eq(pda_capture_init(&c, f, s, &co), 0);
		if (pass == 0) {
			ck_assert_int_eq(pda_capture_run(&c), 0);
			ck_assert_uint_gt(th.nr, 20);
			ck_assert_uint_eq(th.nr,
					  pda_capture_stats(&c)->nr_samples);
			all = th.nr;
			th.nr = 0;
			th.fail_at = all / 2;
		} else {
			ck_assert_int_eq(pda_capture_run(&c), PD_ERR_IO);
			ck_assert_uint_eq(th.nr, all / 2);
			ck_assert_int_eq(pda_capture_failed_in(&c),
					 PDA_CAPTURE_CALLBACK);
		}
		pda_capture_release(&c);
		pda_session_free(s);
		pd_file_close(f);
	}
}
END_TEST

/* What a run handed back: items, the samples they stand for, and sums
 * of fields by those counts. */
struct counted {
	uint64_t items, samples, ips, tids, periods;
};

static int on_counted(void *arg, const struct pda_pipe_item *it)
{
	struct counted *k = arg;

	ck_assert_uint_ge(it->count, 1);
	k->items++;
	k->samples += it->count;
	k->ips += it->sample->ip * it->count;
	k->tids += it->sample->tid * it->count;
	k->periods += it->sample->period * it->count;
	return 0;
}

/* Two runs' items stand for the same samples. */
static void counted_same(const struct counted *x, const struct counted *y)
{
	ck_assert_uint_eq(x->samples, y->samples);
	ck_assert_uint_eq(x->ips, y->ips);
	ck_assert_uint_eq(x->tids, y->tids);
	ck_assert_uint_eq(x->periods, y->periods);
}

/* What a counted run of capture path gave: its items in *k, its filter's
 * kept samples and the session's statistics.  co's filter and arg are
 * set here. */
static void counted_run(const char *path, struct pda_capture_opts *co,
			const struct pda_filter_opts *fo, struct counted *k,
			uint64_t *nr_kept, struct pda_stats *stats)
{
	struct pd_file *f;
	struct pda_session *s;
	struct pda_capture c;
	struct pda_filter flt;
	PDA_OPTS(o, .no_debuginfod = true, .buildid_dir = "/nonexistent");

	memset(k, 0, sizeof(*k));
	co->filter = &flt;
	co->sample_fn = on_counted;
	co->arg = k;
	ck_assert_int_eq(pda_filter_init(&flt, fo), 0);
	ck_assert_int_eq(pd_file_open(path, NULL, &f), 0);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pda_capture_init(&c, f, s, co), 0);
	ck_assert_int_eq(pda_capture_run(&c), 0);
	*nr_kept = pda_filter_stats(&flt)->nr_kept;
	*stats = *pda_session_stats(s);
	pda_capture_release(&c);
	pda_session_free(s);
	pd_file_close(f);
}

/*
 * pda_capture_opts.counted: an SPE capture's memory samples alike come
 * as fewer items whose counts sum to the same samples, ips, tids and
 * periods, with the same statistics (the filter's, the session's);
 * without it, and under a time rule, one item a sample.
 */
START_TEST(test_capture_counted)
{
	struct counted k[3];
	uint64_t nr_kept[3];
	struct pda_stats st[3];
	struct pda_itrace_opts io = {0};
	char err[128];

	ck_assert_int_eq(pda_itrace_parse("M", &io, err, sizeof(err)), 0);
	for (int pass = 0; pass < 3; pass++) {
		PDA_FILTER_OPTS(fo, .flags = 0);
		PDA_CAPTURE_OPTS(co, .jobs = 1, .memo = true,
				 .ip_stacks = true, .itrace = &io,
				 .counted = pass > 0);

		if (pass == 2) {
			/* a time rule that keeps every sample */
			fo.has_time_end = true;
			fo.time_end = UINT64_MAX;
		}
		counted_run("../../testdata/spe/n1-meta2.perf.data", &co, &fo,
			    &k[pass], &nr_kept[pass], &st[pass]);
	}
	ck_assert_uint_gt(k[0].samples, 20);
	ck_assert_uint_eq(k[0].items, k[0].samples);
	ck_assert_uint_lt(k[1].items, k[1].samples);
	ck_assert_uint_eq(k[2].items, k[2].samples);
	for (int pass = 1; pass < 3; pass++) {
		counted_same(&k[pass], &k[0]);
		ck_assert_uint_eq(nr_kept[pass], nr_kept[0]);
		ck_assert_uint_eq(st[pass].nr_samples, st[0].nr_samples);
	}
}
END_TEST

/*
 * pda_capture_opts.counted with recorded samples: with leaf_only (a
 * report's flat view) the samples alike but for their callchain come
 * as fewer items, with the same sums and statistics; with their
 * callchains (read then), one item a sample.
 */
START_TEST(test_capture_counted_recorded)
{
	struct counted k[3];
	uint64_t nr_kept[3];
	struct pda_stats st[3];

	for (int pass = 0; pass < 3; pass++) {
		PDA_FILTER_OPTS(fo, .flags = 0);
		PDA_CAPTURE_OPTS(co, .jobs = 1, .memo = true,
				 .ip_stacks = true, .leaf_only = pass < 2,
				 .counted = pass > 0);

		counted_run("../../testdata/demo.perf.data", &co, &fo, &k[pass],
			    &nr_kept[pass], &st[pass]);
	}
	ck_assert_uint_gt(k[0].samples, 200);
	ck_assert_uint_eq(k[0].items, k[0].samples);
	ck_assert_uint_lt(k[1].items, k[1].samples / 2);
	ck_assert_uint_eq(k[2].items, k[2].samples);
	for (int pass = 1; pass < 3; pass++) {
		counted_same(&k[pass], &k[0]);
		ck_assert_uint_eq(nr_kept[pass], nr_kept[0]);
	}
	ck_assert_mem_eq(&st[1], &st[0], sizeof(st[0]));
}
END_TEST

START_TEST(test_capture_api)
{
	struct tf t;
	struct pda_capture c;
	struct pd_file *f;
	struct pda_session *s;
	PDA_OPTS(o, .no_debuginfod = true);
	PDA_CAPTURE_OPTS(co, .rec_fn = on_rec);

	build(&t);
	f = tf_open(&t);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	/* a session wants sample_fn; none wants rec_fn */
	ck_assert_int_eq(pda_capture_init(&c, f, s, &co), PD_ERR_API);
	ck_assert_str_ne(pda_capture_errmsg(&c), "");
	ck_assert_int_eq(pda_capture_run(&c), PD_ERR_API);
	pda_capture_release(&c);
	co.rec_fn = NULL;
	ck_assert_int_eq(pda_capture_init(&c, f, NULL, &co), PD_ERR_API);
	pda_capture_release(&c);
	ck_assert_int_eq(pda_capture_init(&c, f, NULL, NULL), PD_ERR_API);
	pda_capture_release(&c);
	pda_session_free(s);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

Suite *capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("filter");

	tcase_add_test(tc, test_event_matches);
	tcase_add_test(tc, test_filter_default_events);
	tcase_add_test(tc, test_filter_event);
	tcase_add_test(tc, test_filter_first_event);
	tcase_add_test(tc, test_filter_time_pids);
	tcase_add_test(tc, test_filter_time_ranges);
	tcase_add_test(tc, test_filter_api);
	suite_add_tcase(s, tc);
	tc = tcase_create("run");
	tcase_add_test(tc, test_capture_samples);
	tcase_add_test(tc, test_capture_lone_read);
	tcase_add_test(tc, test_capture_callback_error);
	tcase_add_test(tc, test_capture_records);
	tcase_add_test(tc, test_capture_api);
	tcase_add_test(tc, test_capture_threads_stop);
	tcase_add_test(tc, test_capture_counted);
	tcase_add_test(tc, test_capture_counted_recorded);
	suite_add_tcase(s, tc);
	return s;
}
