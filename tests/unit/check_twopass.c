/*
 * check_twopass.c - the capture pipeline's two passes (pda_capture.h):
 * the sideband records applied first with their history, then the
 * samples in the file's order, each in the state of its own time.
 *
 * - Every testdata capture folds the same as when its records are read
 *   in time order (time_order: perf's ordered events, one pass), line
 *   for line, with the same totals and session statistics.
 * - A capture whose file order is not its time order (a sample written
 *   after records newer than itself, as perf's per-CPU buffers leave
 *   them within a round) resolves each sample in the maps, comm and
 *   cgroup namespace of its own time, whichever way it is read.
 */
#include "pd_config.h" /* open_memstream */
#include "pda_capture.h"
#include "pda_fold.h"
#include "elftest.h"
#include "failalloc.h"
#include "foldtext.h"
#include "testfile.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <time.h>

static const char *const captures[] = {
	"demo.perf.data",	  "fp.perf.data",	   "multi.perf.data",
	"threads.perf.data",	  "switch.perf.data",	   "pipe.perf.data",
	"zstd.perf.data",	  "sysw.perf.data.zst",	   "lost.perf.data.zst",
	"dwarf.perf.data.zst",	  "exec.perf.data.zst",
};

struct result {
	char *text; /* the lines, "stack weight samples period\n" */
	struct pda_fold_totals t;
	struct pda_stats st;
	char *dsos; /* the unresolved and missing lists */
	char *events; /* the filter's events, in its order */
	char *first;  /* the filter's first event */
};

static int add(void *arg, const struct pda_pipe_item *it)
{
	struct pda_fold *fd = arg;
	int rc = pda_fold_add(fd, it->sample, it->stack, it->comm);

	return rc < 0 ? rc : 0;
}

/* Fold capture name with the first event only, in time order or not;
 * with apart, resolved on a worker where it may (resolve_apart); a DWARF
 * replay split from split_min first uses (0: the default). */
static void fold_split(const char *name, bool time_order, unsigned jobs,
		       bool apart, unsigned split_min, struct result *res)
{
	char path[ET_PATH_MAX];
	struct pda_fold *fd;
	struct pd_file *f;
	struct pda_session *s;
	struct pda_capture c;
	struct pda_filter flt;
	const struct pda_filter_stats *fs;
	size_t size;
	FILE *out;
	PDA_OPTS(o, .no_debuginfod = true, .replay_split_min = split_min);
	PDA_FOLD_OPTS(fo, .flags = PDA_FOLD_PID);
	PDA_FILTER_OPTS(flo, .flags = PDA_FILTER_FIRST_EVENT);
	PDA_CAPTURE_OPTS(co, .jobs = jobs, .ip_stacks = true, .memo = true,
			 .filter = &flt, .time_order = time_order,
			 .resolve_apart = apart, .sample_fn = add);
	const struct pda_stats *st;

	et_path(path, "../../testdata/%s", name);
	ck_assert_int_eq(pd_file_open(path, NULL, &f), 0);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pda_fold_new(&fo, &fd), 0);
	ck_assert_int_eq(pda_filter_init(&flt, &flo), 0);
	co.arg = fd;
	ck_assert_int_eq(pda_capture_init(&c, f, s, &co), 0);
	ck_assert_msg(pda_capture_run(&c) == 0, "%s: %s", name,
		      pda_capture_errmsg(&c));
	ck_assert_int_eq(pda_fold_finish(fd), 0);

	res->text = ft_lines(fd);
	res->t = *pda_fold_totals(fd);
	st = pda_session_stats(s);
	res->st = *st;
	res->dsos = ft_dsos(st);
	fs = pda_filter_stats(&flt);
	out = open_memstream(&res->events, &size);
	ck_assert_ptr_nonnull(out);
	for (size_t i = 0; i < fs->nr_events && i < PDA_FILTER_MAX_EVENTS; i++)
		fprintf(out, "%s %llu %llu\n", fs->events[i].evsel->name,
			(unsigned long long)fs->events[i].nr_samples,
			(unsigned long long)fs->events[i].nr_kept);
	fclose(out);
	res->first = strdup(pda_filter_first(&flt)
				    ? pda_filter_first(&flt)->name
				    : "");
	ck_assert_ptr_nonnull(res->first);

	pda_capture_release(&c);
	pda_fold_free(fd);
	pda_session_free(s);
	pd_file_close(f);
}

static void fold_apart(const char *name, bool time_order, unsigned jobs,
		       bool apart, struct result *res)
{
	fold_split(name, time_order, jobs, apart, 0, res);
}

static void fold(const char *name, bool time_order, unsigned jobs,
		 struct result *res)
{
	fold_apart(name, time_order, jobs, false, res);
}

static void result_free(struct result *r)
{
	free(r->text);
	free(r->dsos);
	free(r->events);
	free(r->first);
}

/* a and b alike, then freed */
static void same_result(struct result *a, struct result *b)
{
	ck_assert_str_eq(a->text, b->text);
	ck_assert_mem_eq(&a->t, &b->t, sizeof(a->t));
	ck_assert_uint_eq(a->st.nr_samples, b->st.nr_samples);
	ck_assert_uint_eq(a->st.nr_frames, b->st.nr_frames);
	ck_assert_uint_eq(a->st.nr_frames_unresolved,
			  b->st.nr_frames_unresolved);
	ck_assert_uint_eq(a->st.nr_samples_unresolved,
			  b->st.nr_samples_unresolved);
	ck_assert_str_eq(a->dsos, b->dsos);
	ck_assert_str_eq(a->events, b->events);
	ck_assert_str_eq(a->first, b->first);
	result_free(a);
	result_free(b);
}

START_TEST(test_same_as_time_order)
{
	const char *name = captures[_i];

	/* jobs 3: two, resolved apart (the resolver of an unwound run) */
	for (unsigned jobs = 1; jobs <= 3; jobs++) {
		struct result a, b;

		fold(name, true, jobs > 2 ? 2 : jobs, &a);
		fold_apart(name, false, jobs > 2 ? 2 : jobs, jobs > 2, &b);
		same_result(&a, &b);
	}
}
END_TEST

/* A DWARF capture's replay split over two threads from its first first
 * use (testdata's have fewer than the default's 1024): the same names,
 * stacks and counts as one thread's, in time order or not. */
START_TEST(test_replay_split)
{
	static const char *const dwarf[] = {"dwarf.perf.data.zst",
					    "exec.perf.data.zst"};
	struct result a, b;

	for (size_t i = 0; i < sizeof(dwarf) / sizeof(dwarf[0]); i++) {
		fold(dwarf[i], false, 1, &a);
		fold_split(dwarf[i], false, 2, false, 1, &b);
		same_result(&a, &b);
		fold(dwarf[i], false, 1, &a);
		fold_split(dwarf[i], false, 2, true, 2, &b);
		same_result(&a, &b);
	}
}
END_TEST

/* ---- a capture out of time order ------------------------------------ */

#define U PD_MISC_USER
#define ST (PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME)

/* sample_id_all's trailer for ST: pid, tid, time */
static void sid(struct tf *t, uint32_t pid, uint64_t time)
{
	tf_u32(t, pid);
	tf_u32(t, pid);
	tf_u64(t, time);
}

static void comm(struct tf *t, uint32_t pid, const char *name, bool exec,
		 uint64_t time)
{
	tf_begin(t, PD_REC_COMM, exec ? PD_MISC_COMM_EXEC : 0);
	tf_u32(t, pid);
	tf_u32(t, pid);
	tf_str(t, name, 16);
	sid(t, pid, time);
	tf_end(t);
}

static void mmap_(struct tf *t, uint32_t pid, uint64_t start, const char *name,
		  uint64_t time)
{
	tf_begin(t, PD_REC_MMAP, U);
	tf_u32(t, pid);
	tf_u32(t, pid);
	tf_u64(t, start);
	tf_u64(t, 0x1000);
	tf_u64(t, 0);
	tf_str(t, name, 24);
	sid(t, pid, time);
	tf_end(t);
}

/* NAMESPACES: seven namespaces, the cgroup one (the last) on device 4,
 * inode ino */
static void namespaces(struct tf *t, uint32_t pid, uint64_t ino,
		       uint64_t time)
{
	tf_begin(t, PD_REC_NAMESPACES, 0);
	tf_u32(t, pid);
	tf_u32(t, pid);
	tf_u64(t, 7);
	for (unsigned i = 0; i < 7; i++) {
		tf_u64(t, 4);
		tf_u64(t, i == 6 ? ino : 0xf0000000 + i);
	}
	sid(t, pid, time);
	tf_end(t);
}

static void sample(struct tf *t, uint32_t pid, uint64_t ip, uint64_t time)
{
	tf_begin(t, PD_REC_SAMPLE, U);
	tf_u64(t, ip);
	tf_u32(t, pid);
	tf_u32(t, pid);
	tf_u64(t, time);
	tf_end(t);
}

static void round_(struct tf *t)
{
	tf_begin(t, PD_REC_FINISHED_ROUND, 0);
	tf_end(t);
}

#define NR_LATE 6

/* What each sample resolved to, by its time (1..NR_LATE * 10). */
struct late {
	const char *dso[NR_LATE];
	const char *comm[NR_LATE];
	struct pda_nsid cgns[NR_LATE];
	unsigned nr;
	unsigned shard, nr_shard_calls; /* late_shard's */
};

/* A shard begins: with a pipeline of its own (its memo's cookies). */
static int late_shard(void *arg, unsigned shard)
{
	struct late *l = arg;

	ck_assert_uint_eq(shard, ++l->nr_shard_calls);
	l->shard = shard;
	return 0;
}

static int add_late(void *arg, const struct pda_pipe_item *it)
{
	struct late *l = arg;
	const unsigned i = (unsigned)(it->sample->time / 10 - 1);

	ck_assert_uint_lt(i, NR_LATE);
	l->comm[i] = it->comm;
	l->cgns[i] = it->cgroup_ns;
	l->nr++;
	/* a memo hit: the stack of the sample that stored the cookie (its
	 * shard's: a cookie never comes back in another) */
	if (it->hit) {
		ck_assert_uint_eq(*it->cookie & 0xff, l->shard + 1);
		l->dso[i] = l->dso[(*it->cookie >> 8) - 1];
		return 0;
	}
	ck_assert_ptr_nonnull(it->stack);
	ck_assert_uint_eq(it->stack->nr, 1);
	l->dso[i] = it->stack->frames[0].dso;
	if (it->cookie)
		*it->cookie = (uint64_t)(i + 1) << 8 | (l->shard + 1);
	return 0;
}

/* A shard read on a thread of its own (pda_capture_opts.shard_begin):
 * its samples' results apart, added to the run's at its end. */
struct late_part {
	struct late l; /* first: the arg add_late gets */
	struct late *to;
};

static int late_begin(void *arg, unsigned shard, void **shard_arg)
{
	struct late *l = arg;
	struct late_part *p = calloc(1, sizeof(*p));

	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(shard, ++l->nr_shard_calls);
	p->l.shard = shard;
	p->to = l;
	*shard_arg = p;
	return 0;
}

static int late_end(void *arg, unsigned shard, void *shard_arg)
{
	struct late *l = arg;
	struct late_part *p = shard_arg;

	ck_assert_ptr_eq(p->to, l);
	ck_assert_uint_eq(shard, p->l.shard);
	for (unsigned i = 0; i < NR_LATE; i++) {
		if (!p->l.comm[i])
			continue;
		/* each sample in one shard only */
		ck_assert_ptr_null(l->comm[i]);
		l->dso[i] = p->l.dso[i];
		l->comm[i] = p->l.comm[i];
		l->cgns[i] = p->l.cgns[i];
	}
	l->nr += p->l.nr;
	free(p);
	return 0;
}

static void run_late(struct tf *t, bool time_order, unsigned jobs,
		     bool threads, struct late *l)
{
	struct pd_file *f = tf_open(t);
	struct pda_session *s;
	struct pda_capture c;
	PDA_OPTS(o, .no_debuginfod = true);
	PDA_CAPTURE_OPTS(co, .jobs = jobs, .ip_stacks = true, .memo = true,
			 .time_order = time_order, .sample_fn = add_late,
			 .shard_fn = late_shard, .arg = l);

	if (threads) {
		co.shard_begin = late_begin;
		co.shard_end = late_end;
	}
	memset(l, 0, sizeof(*l));
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pda_capture_init(&c, f, s, &co), 0);
	ck_assert_msg(pda_capture_run(&c) == 0, "%s", pda_capture_errmsg(&c));
	ck_assert_uint_eq(l->nr, NR_LATE);
	/* read in shards, cut between rounds and late samples */
	if (!time_order && jobs > 1)
		ck_assert_uint_ge(c.nr_cuts, 2);
	ck_assert_uint_eq(l->nr_shard_calls, c.nr_cuts ? c.nr_cuts - 1 : 0);
	/* no shard's pipeline left behind: its view and callback's
	 * argument are gone with the shard */
	if (threads && c.nr_cuts > 1)
		ck_assert_ptr_null(c.pipe);
	/* the strings are the session's: compare before it goes */
	ck_assert_ptr_null(l->dso[0]);
	ck_assert_str_eq(l->dso[1], "/x/a.so");
	ck_assert_str_eq(l->dso[2], "/x/a.so");
	ck_assert_str_eq(l->dso[3], "/x/b.so");
	ck_assert_str_eq(l->dso[4], "/x/b.so");
	ck_assert_str_eq(l->dso[5], "/x/b.so");
	ck_assert_str_eq(l->comm[0], "app");
	ck_assert_str_eq(l->comm[2], "app");
	ck_assert_str_eq(l->comm[3], "app2");
	ck_assert_str_eq(l->comm[5], "app2");
	for (unsigned i = 0; i < NR_LATE; i++) {
		ck_assert_uint_eq(l->cgns[i].dev, 4);
		ck_assert_uint_eq(l->cgns[i].ino, i < 3 ? 0x100 : 0x200);
	}
	pda_capture_release(&c);
	pda_session_free(s);
	pd_file_close(f);
}

/* test_late_samples's capture into t. */
static void late_capture(struct tf *t)
{
	struct tf_attr a = {.type = 1, .sample_period = 1, .sample_type = ST,
			    .flags = 1ull << PD_ATTR_sample_id_all |
				     1ull << PD_ATTR_mmap |
				     1ull << PD_ATTR_comm |
				     1ull << PD_ATTR_namespaces};

	tf_init(t, false);
	tf_add_attr(t, &a, NULL, 0);
	comm(t, 7, "app", false, 1);
	namespaces(t, 7, 0x100, 1);
	/* one CPU's buffer: a.so mapped at 15, b.so over it at 35, exec
	 * at 36, a cgroup namespace of its own (unshare) at 37; then
	 * another CPU's, older: samples at 10..30 */
	mmap_(t, 7, 0x400000, "/x/a.so", 15);
	sample(t, 7, 0x400100, 20);
	mmap_(t, 7, 0x400000, "/x/b.so", 35);
	comm(t, 7, "app2", true, 36);
	namespaces(t, 7, 0x200, 37);
	sample(t, 7, 0x400100, 40);
	sample(t, 7, 0x400100, 10); /* before a.so: no map */
	sample(t, 7, 0x400100, 30); /* a.so, whose b.so came before */
	round_(t);
	sample(t, 7, 0x400100, 50);
	round_(t);
	sample(t, 7, 0x400100, 60);
}

/* pda_capture_run()'s return for a run of f with o and co, its session
 * and capture made and freed around it, f closed; its message in msg
 * (NULL: none wanted). */
static int run_closing(struct pd_file *f, const struct pda_opts *o,
		       const struct pda_capture_opts *co, char *msg,
		       size_t msg_size)
{
	struct pda_session *s;
	struct pda_capture c;
	int rc = pda_session_new(f, o, &s);

	if (msg) /* the session's failure: o->errbuf's, if any */
		snprintf(msg, msg_size, "%s", pd_strerror(rc));
	if (rc == 0) {
		rc = pda_capture_init(&c, f, s, co);
		if (rc == 0)
			rc = pda_capture_run(&c);
		if (msg)
			snprintf(msg, msg_size, "%s", pda_capture_errmsg(&c));
		pda_capture_release(&c);
		pda_session_free(s);
	}
	pd_file_close(f);
	return rc;
}

/* The late samples' run in shards on threads, the session's allocations
 * through fa: pda_capture_run()'s return, its message in msg. */
static int run_late_alloc(struct tf *t, struct failalloc *fa, struct late *l,
			  char msg[static 256])
{
	const struct pd_alloc al = failalloc_hooks(fa);
	PDA_OPTS(o, .no_debuginfod = true, .alloc = &al);
	PDA_CAPTURE_OPTS(co, .jobs = 2, .ip_stacks = true, .memo = true,
			 .sample_fn = add_late, .shard_fn = late_shard,
			 .shard_begin = late_begin, .shard_end = late_end,
			 .arg = l);

	memset(l, 0, sizeof(*l));
	return run_closing(tf_open(t), &o, &co, msg, 256);
}

/*
 * Shards on threads out of memory at each allocation in turn: the run
 * ends with PD_ERR_NOMEM, no thread left waiting, nothing leaked, and
 * the caller's hooks (not thread-safe: failalloc's counts) are called
 * by one thread at a time, as while the pipeline's threads run.
 */
START_TEST(test_shards_nomem)
{
	struct failalloc fa = {.persistent = false};
	char msg[256];
	struct late l;
	struct tf t;

	late_capture(&t);
	ck_assert_int_eq(run_late_alloc(&t, &fa, &l, msg), 0);
	ck_assert_uint_eq(l.nr, NR_LATE);
	ck_assert_int_eq(fa.live, 0);
	for (fa.fail_at = 1;; fa.fail_at++) {
		int rc;

		fa.nr_calls = 0;
		fa.nr_failed = 0;
		rc = run_late_alloc(&t, &fa, &l, msg);
		ck_assert_int_eq(fa.live, 0);
		if (!fa.nr_failed) {
			ck_assert_int_eq(rc, 0);
			break;
		}
		ck_assert_msg(rc == 0 || rc == PD_ERR_NOMEM,
			      "fail_at %lu: %s", fa.fail_at, pd_strerror(rc));
		/* said, whichever thread failed: never blank */
		ck_assert_msg(rc == 0 || strstr(msg, "out of memory"),
			      "fail_at %lu: '%s'", fa.fail_at, msg);
	}
	tf_release(&t);
}
END_TEST

START_TEST(test_late_samples)
{
	struct tf t;
	struct late l;

	late_capture(&t);
	for (unsigned jobs = 1; jobs <= 8; jobs++) {
		run_late(&t, true, jobs, false, &l);
		run_late(&t, false, jobs, false, &l);
		run_late(&t, false, jobs, true, &l);
	}
	tf_release(&t);
}
END_TEST

/* IDENTIFIER tells the events apart */
static void id_sample(struct tf *t, uint64_t id, uint64_t time)
{
	tf_begin(t, PD_REC_SAMPLE, U);
	tf_u64(t, id);
	tf_u64(t, 0x400100);
	tf_u32(t, 7);
	tf_u32(t, 7);
	tf_u64(t, time);
	tf_end(t);
}

static int count(void *arg, const struct pda_pipe_item *it)
{
	(void)it;
	++*(unsigned *)arg;
	return 0;
}

/* The first event is the first sampled in time, not in the file. */
START_TEST(test_first_event)
{
	const uint64_t ids[2][1] = {{1}, {2}};
	struct tf_attr a = {.type = 1, .config = 0, .sample_period = 1,
			    .sample_type = ST | PD_SAMPLE_IDENTIFIER,
			    .flags = 1ull << PD_ATTR_sample_id_all};
	struct tf t;

	tf_init(&t, false);
	tf_add_attr(&t, &a, ids[0], 1);
	a.config = 2;
	tf_add_attr(&t, &a, ids[1], 1);
	id_sample(&t, 2, 20);
	id_sample(&t, 2, 30);
	id_sample(&t, 1, 10);
	round_(&t);
	for (int time_order = 0; time_order <= 1; time_order++) {
		struct pd_file *f = tf_open(&t);
		struct pda_session *s;
		struct pda_capture c;
		struct pda_filter flt;
		const struct pda_filter_stats *fs;
		unsigned nr = 0;
		PDA_OPTS(o, .no_debuginfod = true);
		PDA_FILTER_OPTS(flo, .flags = PDA_FILTER_FIRST_EVENT);
		PDA_CAPTURE_OPTS(co, .jobs = 1, .filter = &flt,
				 .time_order = time_order, .sample_fn = count,
				 .arg = &nr);

		ck_assert_int_eq(pda_filter_init(&flt, &flo), 0);
		ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
		ck_assert_int_eq(pda_capture_init(&c, f, s, &co), 0);
		ck_assert_msg(pda_capture_run(&c) == 0, "%s",
			      pda_capture_errmsg(&c));
		ck_assert_uint_eq(nr, 1);
		ck_assert_ptr_eq(pda_filter_first(&flt), pd_file_evsel(f, 0));
		fs = pda_filter_stats(&flt);
		ck_assert_uint_eq(fs->nr_events, 2);
		ck_assert_ptr_eq(fs->events[0].evsel, pd_file_evsel(f, 0));
		ck_assert_uint_eq(fs->events[0].nr_samples, 1);
		ck_assert_ptr_eq(fs->events[1].evsel, pd_file_evsel(f, 1));
		ck_assert_uint_eq(fs->events[1].nr_samples, 2);
		pda_capture_release(&c);
		pda_session_free(s);
		pd_file_close(f);
	}
	tf_release(&t);
}
END_TEST

static int count_one(void *arg, const struct pda_pipe_item *it)
{
	(void)it;
	++*(uint64_t *)arg;
	return 0;
}

/* The unwound run of a DWARF capture on two threads, resolved apart,
 * its session's allocations through fa: pda_capture_run()'s return. */
static int run_apart(struct failalloc *fa, uint64_t *nr)
{
	char path[ET_PATH_MAX];
	const struct pd_alloc al = failalloc_hooks(fa);
	struct pd_file *f;
	PDA_OPTS(o, .no_debuginfod = true, .alloc = &al);
	PDA_CAPTURE_OPTS(co, .jobs = 2, .ip_stacks = true, .memo = true,
			 .resolve_apart = true, .sample_fn = count_one,
			 .arg = nr);

	*nr = 0;
	et_path(path, "../../testdata/dwarf.perf.data.zst");
	ck_assert_int_eq(pd_file_open(path, NULL, &f), 0);
	return run_closing(f, &o, &co, NULL, 0);
}

/*
 * The resolver (resolve_apart) out of memory at each allocation in
 * turn: the run ends with PD_ERR_NOMEM, no thread left waiting and
 * nothing leaked; with none failing, every sample comes back.
 */
START_TEST(test_apart_nomem)
{
	struct failalloc fa = {.persistent = false};
	unsigned long step = 1, nr_fail = 0;
	uint64_t ref, nr;

	ck_assert_int_eq(run_apart(&fa, &ref), 0);
	ck_assert_uint_gt(ref, 0);
	for (fa.fail_at = 1;; fa.fail_at += step) {
		int rc;

		fa.nr_calls = 0;
		fa.nr_failed = 0;
		rc = run_apart(&fa, &nr);
		ck_assert_int_eq(fa.live, 0);
		if (!fa.nr_failed) {
			ck_assert_int_eq(rc, 0);
			ck_assert_uint_eq(nr, ref);
			break;
		}
		ck_assert_msg(rc == 0 || rc == PD_ERR_NOMEM,
			      "allocation %lu: %s", fa.fail_at,
			      pd_strerror(rc));
		nr_fail++;
		if (fa.fail_at > 200)
			step = fa.fail_at / 40;
	}
	ck_assert_uint_gt(nr_fail, 20);
}
END_TEST

/* test_stop_early's: shard 0 (arg: the first) fails at its first
 * sample; the later shards count theirs once it did (and a while). */
struct stop {
	atomic_bool failed;
	atomic_uint later; /* samples the later shards were given */
	bool first;
};

static int stop_sample(void *arg, const struct pda_pipe_item *it)
{
	struct stop *x = arg;
	const struct timespec ms = {0, 1000000};

	(void)it;
	if (x->first) {
		atomic_store(&x[1].failed, true);
		return PD_ERR_FORMAT;
	}
	/* shard 0's failure first: a shard that reads on reads all */
	while (!atomic_load(&x->failed))
		nanosleep(&ms, NULL);
	if (!atomic_fetch_add(&x->later, 1))
		for (int i = 0; i < 20; i++)
			nanosleep(&ms, NULL);
	return 0;
}

static int stop_begin(void *arg, unsigned shard, void **shard_arg)
{
	struct stop *x = arg;

	(void)shard;
	*shard_arg = &x[1];
	return 0;
}

static int stop_end(void *arg, unsigned shard, void *shard_arg)
{
	(void)arg;
	(void)shard;
	(void)shard_arg;
	return 0;
}

static int stop_shard(void *arg, unsigned shard)
{
	(void)arg;
	(void)shard;
	return 0;
}

/*
 * A shard failing: the shards after it stop reading their ranges (a
 * failing run does not do the whole work), and the run says the first
 * failing shard's message.
 */
START_TEST(test_stop_early)
{
	enum { NR = 20000 };
	struct tf_attr a = {.type = 1, .sample_period = 1, .sample_type = ST,
			    .flags = 1ull << PD_ATTR_sample_id_all |
				     1ull << PD_ATTR_comm};
	struct stop x[2] = {{.first = true}, {.first = false}};
	PDA_OPTS(o, .no_debuginfod = true);
	PDA_CAPTURE_OPTS(co, .jobs = 2, .ip_stacks = true,
			 .sample_fn = stop_sample, .shard_fn = stop_shard,
			 .shard_begin = stop_begin, .shard_end = stop_end,
			 .arg = x);
	struct pda_session *s;
	struct pda_capture c;
	struct pd_file *f;
	struct tf t;

	tf_init(&t, false);
	tf_add_attr(&t, &a, NULL, 0);
	comm(&t, 7, "app", false, 1);
	for (unsigned i = 0; i < NR; i++) {
		sample(&t, 7, 0x400100, 10 + i);
		if (i % 100 == 99)
			round_(&t);
	}
	f = tf_open(&t);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pda_capture_init(&c, f, s, &co), 0);
	ck_assert_int_eq(pda_capture_run(&c), PD_ERR_FORMAT);
	ck_assert_uint_ge(c.nr_cuts, 2);
	ck_assert_uint_gt(atomic_load(&x[1].later), 0);
	ck_assert_msg(atomic_load(&x[1].later) < NR / 4,
		      "%u samples after the failure",
		      atomic_load(&x[1].later));
	pda_capture_release(&c);
	pda_session_free(s);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/* ---- the first pass's walk on two threads ---------------------------- */

/* samples a half: with the rest, a data section over pda_capture.c's
 * SPLIT_MIN (8 MiB), so that -j 2 walks it in two halves */
#define SPLIT_N 110000u
#define SPLIT_RAW 516u	/* the middle sample's raw bytes: 552 in all */

/* A sample with RAW bytes: 4 (40 bytes in all) or SPLIT_RAW, which, with
 * trap, hold FINISHED_ROUND headers from the 8-aligned place on (a chain
 * a guess takes for records, and one that ends where the sample does). */
static void raw_sample(struct tf *t, uint64_t time, uint32_t raw, bool trap)
{
	unsigned char b[SPLIT_RAW] = {0};

	tf_begin(t, PD_REC_SAMPLE, U);
	tf_u64(t, 0x400100);
	tf_u32(t, 7);
	tf_u32(t, 7);
	tf_u64(t, time);
	tf_u32(t, raw);
	for (uint32_t at = 4; trap && at + 8 <= raw; at += 8) {
		b[at] = PD_REC_FINISHED_ROUND; /* little-endian u32 type */
		b[at + 6] = 8;		       /* u16 size */
	}
	tf_bytes(t, b, raw);
	tf_end(t);
}

/* A half's records: samples, rounds, new comms, some with no time in
 * their trailer (their place: the last round's limit). */
static void split_half(struct tf *t, unsigned half)
{
	for (unsigned i = 0; i < SPLIT_N; i++) {
		const uint64_t time = 100 + (uint64_t)half * SPLIT_N + i;
		char name[16];

		if (i % 9000 == 4500) {
			snprintf(name, sizeof(name), "h%u-%u", half, i);
			comm(t, 7, name, false, i % 18000 ? time : 0);
		}
		if (i % 1000 == 999)
			round_(t);
		raw_sample(t, time, 4, false);
	}
}

/* The middle sample in the middle of the data section: before and after
 * it, records of the same sizes. */
/* Where split_capture_as() writes an EVENT_UPDATE naming its event
 * (perf's own record: the file's events change as the run's walk reads
 * it). */
enum split_rename {
	RENAME_NONE,
	RENAME_FIRST,	/* before the first sample, where perf 6.1 writes */
	RENAME_LATER,	/* after the first half's first samples */
};

static void rename_event(struct tf *t)
{
	tf_begin(t, PD_REC_EVENT_UPDATE, 0);
	tf_u64(t, 2); /* PERF_EVENT_UPDATE__NAME */
	tf_u64(t, 1);
	tf_str(t, "renamed", 8);
	tf_end(t);
}

static void split_capture_as(struct tf *t, bool trap,
			     enum split_rename rename)
{
	const uint64_t ids[1] = {1};
	struct tf_attr a = {.type = 1, .sample_period = 1,
			    .sample_type = ST | PD_SAMPLE_RAW,
			    .flags = 1ull << PD_ATTR_sample_id_all};

	tf_init(t, false);
	tf_add_attr(t, &a, ids, 1);
	comm(t, 7, "start", true, 50);
	mmap_(t, 7, 0x400000, "/bin/a", 50);
	if (rename == RENAME_FIRST)
		rename_event(t);
	if (rename == RENAME_LATER) {
		raw_sample(t, 99, 4, false);
		rename_event(t);
	}
	split_half(t, 0);
	raw_sample(t, 100 + SPLIT_N - 1, SPLIT_RAW, trap);
	split_half(t, 1);
	comm(t, 7, "end", false, 100 + 2 * SPLIT_N);
	mmap_(t, 7, 0x500000, "/bin/b", 100 + 2 * SPLIT_N);
}

static void split_capture(struct tf *t, bool trap)
{
	split_capture_as(t, trap, RENAME_NONE);
}

struct split_sum {
	uint64_t nr, sum;
};

/* Each sample's time and comm, summed in any order. */
static int split_add(void *arg, const struct pda_pipe_item *it)
{
	struct split_sum *x = arg;
	uint64_t h = it->sample->time * 0x9e3779b97f4a7c15ull;

	for (const char *p = it->comm; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	x->nr++;
	x->sum += h;
	return 0;
}

static int split_order(void *arg, const struct pd_rec *rec,
		       const struct pda_pipe_when *w)
{
	(void)arg, (void)rec, (void)w;
	return 0;
}

/* The capture of t run with jobs (order: with an order_fn, which walks
 * the first pass on one thread): its sum, and the split it made. */
static void split_run(struct tf *t, unsigned jobs, bool order,
		      struct split_sum *x, int *split,
		      struct pda_capture_stats *st)
{
	struct pd_file *f = tf_open(t);
	struct pda_session *s;
	struct pda_capture c;
	PDA_OPTS(o, .no_debuginfod = true);
	PDA_CAPTURE_OPTS(co, .jobs = jobs, .ip_stacks = true,
			 .sample_fn = split_add, .arg = x,
			 .order_fn = order ? split_order : NULL);

	memset(x, 0, sizeof(*x));
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pda_capture_init(&c, f, s, &co), 0);
	ck_assert_msg(pda_capture_run(&c) == 0, "%s", pda_capture_errmsg(&c));
	ck_assert(pda_capture_two_pass(&c));
	*split = c.split_walk;
	*st = c.st;
	pda_capture_release(&c);
	pda_session_free(s);
	pd_file_close(f);
}

/*
 * -j 2's first pass walks the data section in two halves: where the
 * second half's guess lands on a record (no trap), they join; where it
 * lands in a sample's bytes that look like records for a chain longer
 * than the guess asks (trap), the first half's walk passes by it and
 * reads on alone.  Either way the run's result is one walk's: each
 * sample in the comm of its time (whose places hang on the order
 * clock, rounds and untimed COMMs in both halves), the counts.
 */
START_TEST(test_split_walk)
{
	for (int trap = 0; trap <= 1; trap++) {
		struct pda_capture_stats st1, st2, st3;
		struct split_sum one, two, ordered;
		int split;
		struct tf t;

		split_capture(&t, trap);
		split_run(&t, 1, false, &one, &split, &st1);
		ck_assert_int_eq(split, 0);
		split_run(&t, 2, true, &ordered, &split, &st3);
		ck_assert_int_eq(split, 0);
		split_run(&t, 2, false, &two, &split, &st2);
		ck_assert_int_eq(split, trap ? -1 : 1);
		ck_assert_uint_eq(one.nr, 2 * SPLIT_N + 1);
		ck_assert_uint_eq(two.nr, one.nr);
		ck_assert_uint_eq(two.sum, one.sum);
		ck_assert_uint_eq(ordered.sum, one.sum);
		ck_assert_uint_eq(st2.nr_records, st1.nr_records);
		ck_assert_uint_eq(st2.nr_samples, st1.nr_samples);
		ck_assert_mem_eq(&st2, &st3, sizeof(st2));
		tf_release(&t);
	}
}
END_TEST

/*
 * An EVENT_UPDATE changes the file's events, which the second half's
 * thread reads (each sample's event by its id).  perf writes them before
 * the first sample, and the second half starts at that sample: the walk
 * splits (it did not, on any capture of perf 6.1's, when the thread
 * started before the first record).  One after the first sample: the
 * run's walk absorbs it only once that thread has stopped, and then
 * reads the second half itself (TSan: no race on the event tables).
 */
START_TEST(test_split_absorb)
{
	const enum split_rename rename = _i ? RENAME_LATER : RENAME_FIRST;
	const unsigned extra = rename == RENAME_LATER;
	struct pda_capture_stats st1, st2;
	struct split_sum one, two;
	int split;
	struct tf t;

	split_capture_as(&t, false, rename);
	split_run(&t, 1, false, &one, &split, &st1);
	ck_assert_int_eq(split, 0);
	split_run(&t, 2, false, &two, &split, &st2);
	ck_assert_int_eq(split, rename == RENAME_LATER ? -1 : 1);
	ck_assert_uint_eq(one.nr, 2 * SPLIT_N + 1 + extra);
	ck_assert_uint_eq(two.nr, one.nr);
	ck_assert_uint_eq(two.sum, one.sum);
	ck_assert_uint_eq(st2.nr_records, st1.nr_records);
	ck_assert_uint_eq(st2.nr_samples, st1.nr_samples);
	tf_release(&t);
}
END_TEST

Suite *twopass_suite(void)
{
	Suite *s = suite_create("twopass");
	TCase *tc = tcase_create("twopass");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_same_as_time_order, 0,
			    (int)(sizeof(captures) / sizeof(captures[0])));
	tcase_add_test(tc, test_replay_split);
	tcase_add_test(tc, test_late_samples);
	tcase_add_test(tc, test_first_event);
	tcase_add_test(tc, test_apart_nomem);
	tcase_add_test(tc, test_shards_nomem);
	tcase_add_test(tc, test_stop_early);
	tcase_add_test(tc, test_split_walk);
	tcase_add_loop_test(tc, test_split_absorb, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
