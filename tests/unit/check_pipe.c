/*
 * check_pipe.c - the sample pipeline (analyze/session/pda_pipe.c) and the libdw
 * backend's cached CFI rows (analyze/unwind/pda_unwind_cfi.c), both of which
 * must change nothing but the speed.  Whatever the number of threads and
 * the size of the batches, every sample comes back in record order with
 * the same stack, comm and error as on one thread, the session's
 * statistics end the same, and a failing allocator gives PD_ERR_NOMEM,
 * never a crash or a leak (make asan).  Every DWARF capture unwinds to
 * the same frames, frame by frame through libdwfl
 * (pda_unwind_libdwfl) as through the cached rows.  Captures: testdata's
 * DWARF ones (their binaries by build-id), its frame-pointer one
 * (nothing to unwind: never batched), and the corpus's DWARF captures
 * (in the "corpus" case), their binaries in a --symfs sysroot as
 * tests/golden/fold/corpus/CAPTURE.symfs lists them.
 */
#include "pdatest.h"
#include "testcorpus.h"
#include "pda_unwind_int.h"
#include "pda_pipe.h"

#include "failalloc.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *tmp;

static void setup(void)
{
	tmp = et_tmpdir();
	pt_cache_testdata(tmp);
}

static void teardown(void)
{
	et_rmtree(tmp);
	free(tmp);
}

/* A growing text: what a run saw, to compare runs by. */
struct sig {
	char *p;
	size_t len, alloc;
	uint64_t nr, nr_skipped;
};

static void sig_add(struct sig *g, const char *fmt, ...) PD_PRINTF(2, 3);

static void sig_add(struct sig *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(g->p + g->len, g->alloc - g->len, fmt, ap);
		va_end(ap);
		ck_assert_int_ge(n, 0);
		if ((size_t)n < g->alloc - g->len)
			break;
		g->alloc = g->alloc * 2 + (size_t)n + 256;
		g->p = realloc(g->p, g->alloc);
		ck_assert_ptr_nonnull(g->p);
	}
	g->len += (size_t)n;
}

/* every third sample is not wanted, to run the filter too */
static bool want(void *arg, const struct pd_sample *sample)
{
	struct sig *g = arg;

	(void)sample;
	if (++g->nr % 3)
		return true;
	g->nr_skipped++;
	return false;
}

static int add(void *arg, const struct pda_pipe_item *it)
{
	struct sig *g = arg;
	const struct pda_stack *st = it->stack;

	sig_add(g, "%u/%u %s %llu err %d:", (unsigned)it->sample->pid,
		(unsigned)it->sample->tid, it->comm,
		(unsigned long long)it->sample->time, it->err);
	for (size_t i = 0; st && i < st->nr; i++) {
		const struct pda_frame *fr = &st->frames[i];

		sig_add(g, " %llx %s@%s+%llx/%x", (unsigned long long)fr->ip,
			fr->sym ? fr->sym : "?", fr->dso ? fr->dso : "?",
			(unsigned long long)fr->dso_addr, fr->flags);
	}
	sig_add(g, "\n");
	return 0;
}

/* The session's statistics that a run must end with, whatever jobs. */
static void sig_stats(struct sig *g, struct pda_session *s)
{
	const struct pda_stats *st = pda_session_stats(s);
	const struct pda_unwind_stats *u = &st->unwind;

	sig_add(g, "stacks %llu frames %llu unresolved %llu/%llu missing %zu\n",
		(unsigned long long)st->nr_samples,
		(unsigned long long)st->nr_frames,
		(unsigned long long)st->nr_frames_unresolved,
		(unsigned long long)st->nr_samples_unresolved, st->nr_missing);
	sig_add(g, "unwind %s %s %llu %llu %llu",
		u->unwinder ? u->unwinder : "-", u->arch ? u->arch : "-",
		(unsigned long long)u->nr_samples,
		(unsigned long long)u->nr_frames,
		(unsigned long long)u->nr_stopped);
	for (unsigned i = 0; i < PDA_UNWIND_NR_STOPS; i++)
		sig_add(g, " %llu", (unsigned long long)u->by_stop[i]);
	for (size_t i = 0; i < u->nr_stopped_dsos; i++)
		sig_add(g, " [%s %u %llu]",
			u->stopped_dsos[i].dso ? u->stopped_dsos[i].dso : "-",
			u->stopped_dsos[i].why,
			(unsigned long long)u->stopped_dsos[i].nr_samples);
	sig_add(g, "\n");
}

/*
 * Run path through a pipeline of jobs threads and batches of batch
 * samples into *g.  @return 0, or the first error (allocation failures
 * when fa->fail_at is set).  false when the capture is absent.
 */
static bool run_with(const char *path, const struct pda_opts *base,
		     unsigned jobs, unsigned batch, struct failalloc *fa,
		     const struct pda_unwind_backend *be, struct sig *g,
		     int *rc)
{
	struct pd_alloc al = failalloc_hooks(fa);
	struct pda_opts o = *base;
	struct pd_file *f;
	struct pda_session *s;
	struct pda_pipe *p = NULL;
	struct pd_reader *r = NULL;
	struct pd_rec rec;
	PDA_PIPE_OPTS(po, .jobs = jobs, .batch = batch, .want = want, .fn = add,
		      .arg = g);

	memset(g, 0, sizeof(*g));
	*rc = 0;
	if (pd_file_open(path, NULL, &f) != 0)
		return false;
	if (fa)
		o.alloc = &al;
	*rc = pda_session_new(f, &o, &s);
	if (*rc < 0) {
		pd_file_close(f);
		return true;
	}
	*rc = pd_reader_new(f, PD_READ_ORDERED, &r);
	ck_assert_int_eq(*rc, 0);
	if (be)
		ck_assert_int_eq(pda_unwinder_use(s->unwinder, be), 0);
	*rc = pda_pipe_new(s, &po, &p);
	ck_assert(*rc < 0 || pda_pipe_jobs(p) == jobs);
	while (*rc == 0 && (*rc = pd_reader_next(r, &rec)) > 0) {
		*rc = pda_pipe_feed(p, &rec);
		ck_assert_int_ne(*rc, 1); /* every sample decodes */
	}
	if (*rc == 0)
		*rc = pda_pipe_finish(p);
	if (*rc == 0)
		sig_stats(g, s);
	pda_pipe_free(p);
	pd_reader_free(r);
	pda_session_free(s);
	pd_file_close(f);
	return true;
}

static bool run(const char *path, const struct pda_opts *base, unsigned jobs,
		unsigned batch, struct failalloc *fa, struct sig *g, int *rc)
{
	return run_with(path, base, jobs, batch, fa, NULL, g, rc);
}

/* testdata's, then (from FIRST_CORPUS_CAPTURE) the corpus's, relative
 * to the corpus */
static const struct {
	const char *path;
	bool symfs; /* binaries absent: --symfs an empty directory */
} captures[] = {
	{"../../testdata/dwarf.perf.data.zst", false},
	{"../../testdata/dwarfcpp.perf.data.zst", false},
	{"../../testdata/fp.perf.data", false},
	{"simpleperf/perf_no_unwind.data", true},
	{"simpleperf/perf_with_arm_regs.data", true},
};

#define NR_CAPTURES (sizeof(captures) / sizeof(captures[0]))
#define FIRST_CORPUS_CAPTURE 3

/* threads and batch sizes, each run against one thread */
static const unsigned configs[][2] = {
	{2, 0}, {2, 1}, {2, 3}, {3, 2}, {4, 5}, {4, 0},
};

START_TEST(test_same_output)
{
	char path[ET_PATH_MAX];
	struct sig ref, got;
	int rc;
	PDA_OPTS(o, .buildid_dir = tmp, .no_debuginfod = true);

	if (_i >= FIRST_CORPUS_CAPTURE)
		corpus_path(path, "%s", captures[_i].path);
	else
		et_path(path, "%s", captures[_i].path);
	if (captures[_i].symfs)
		o.symfs = tmp;
	for (int inl = 0; inl < 2; inl++) {
		/* inlined frames and source lines on every stack, or none */
		o.inline_callchain = inl;
		o.srcline = inl;
		o.no_inline = !inl;
		ck_assert_msg(run(path, &o, 1, 0, NULL, &ref, &rc),
			      "cannot open %s", path);
		ck_assert_int_eq(rc, 0);
		ck_assert_uint_gt(ref.nr, 0);
		for (size_t c = 0; c < sizeof(configs) / sizeof(configs[0]);
		     c++) {
			ck_assert(run(path, &o, configs[c][0], configs[c][1],
				      NULL, &got, &rc));
			ck_assert_int_eq(rc, 0);
			ck_assert_uint_eq(got.nr_skipped, ref.nr_skipped);
			ck_assert_msg(got.len == ref.len &&
					      !memcmp(got.p, ref.p, ref.len),
				      "%s: -j %u, batch %u differs from -j 1",
				      path, configs[c][0], configs[c][1]);
			free(got.p);
		}
		free(ref.p);
	}
}
END_TEST

/* T9: every allocation failing in turn, threads running: NOMEM or the
 * same output, nothing else (ASan checks for leaks). */
START_TEST(test_nomem)
{
	const char *path = "../../testdata/dwarf.perf.data.zst";
	struct failalloc fa = {.persistent = true};
	struct sig ref, got;
	unsigned long nr_fail = 0, step = 1;
	int rc;
	PDA_OPTS(o, .buildid_dir = tmp, .no_debuginfod = true);

	ck_assert(run(path, &o, 1, 0, NULL, &ref, &rc));
	ck_assert_int_eq(rc, 0);
	for (fa.fail_at = 1;; fa.fail_at += step) {
		fa.nr_calls = 0;
		ck_assert(run(path, &o, 2, 2, &fa, &got, &rc));
		free(got.p);
		if (rc == 0)
			break;
		ck_assert_msg(rc == PD_ERR_NOMEM, "allocation %lu: %d",
			      fa.fail_at, rc);
		nr_fail++;
		/* every one of the first hundred, then sparser */
		if (fa.fail_at > 100)
			step = fa.fail_at / 20;
	}
	ck_assert_uint_gt(nr_fail, 20);
	/* with no failure, the output is the same */
	fa.fail_at = 0;
	ck_assert(run(path, &o, 2, 2, &fa, &got, &rc));
	ck_assert_int_eq(rc, 0);
	ck_assert(got.len == ref.len && !memcmp(got.p, ref.p, ref.len));
	free(got.p);
	free(ref.p);
}
END_TEST

/* The DWARF captures of the corpus, relative to it. */
static const char *const corpus[] = {
	"perfparser/vector_static_gcc/perf.data",
	"perfparser/vector_static_gcc/perf.data.zstd",
	"perfparser/vector_static_clang/perf.data",
	"perfparser/fork_static_gcc/perf.data.zstd",
	"perfparser/parallel_static_gcc/perf.data.zstd",
	"perfparser/cpp-inlining/cpp-inlining.perf.data",
	"perfparser/contentsize.data",
	"hotspot/historical/cpp-recursion/perf.data",
	"hotspot/historical/cpp-recursion/perf.data.old",
	"hotspot/perf.data.PerfFormatLost",
	"hotspot/perf.data.true.v2",
	"linux-perf-data/fibo.compressed2.pipe.data",
	"simpleperf/perf_no_unwind.data",
};

/* The corpus capture's binaries at their recorded paths under root. */
static void sysroot(const char *capture, const char *root)
{
	char path[ET_PATH_MAX], line[2 * ET_PATH_MAX];
	FILE *fp;

	et_path(path, "../../tests/golden/fold/corpus/%s.symfs", capture);
	fp = fopen(path, "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
		char from[ET_PATH_MAX], to[ET_PATH_MAX];

		if (!tab)
			continue;
		*tab = '\0';
		if (nl)
			*nl = '\0';
		corpus_path(from, "%s", tab + 1);
		et_path(to, "%s%s", root, line);
		pt_copy(from, to);
	}
	fclose(fp);
}

/* testdata's DWARF captures (x86_64, aarch64), then the corpus's */
#define FIRST_CORPUS_CFI_CASE 3
#define NR_CFI_CASES \
	(FIRST_CORPUS_CFI_CASE + sizeof(corpus) / sizeof(corpus[0]))

START_TEST(test_cached_rows)
{
	char path[ET_PATH_MAX];
	struct sig fast, slow;
	int rc;
	PDA_OPTS(o, .buildid_dir = tmp, .no_debuginfod = true);

	if (_i < 2) {
		et_path(path, "../../testdata/%s.perf.data.zst",
			_i ? "dwarfcpp" : "dwarf");
	} else if (_i == 2) {
		/* aarch64, recorded in a guest: its binaries and [vdso] */
		et_path(path, "../../testdata/arm64/dwarf.perf.data.zst");
		o.symfs = "../../testdata/arm64/sysroot";
		o.buildid_dir = "../../testdata/arm64/buildid";
	} else {
		/* the sysroot is tmp, beside its build-id cache */
		corpus_path(path, "%s", corpus[_i - FIRST_CORPUS_CFI_CASE]);
		/* the sysroot's binaries come from beside the capture */
		sysroot(corpus[_i - FIRST_CORPUS_CFI_CASE], tmp);
		o.symfs = tmp;
	}
	ck_assert_msg(
		run_with(path, &o, 1, 0, NULL, &pda_unwind_libdwfl, &slow, &rc),
		"cannot open %s", path);
	ck_assert_int_eq(rc, 0);
	ck_assert(run_with(path, &o, 1, 0, NULL, NULL, &fast, &rc));
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(fast.len == slow.len && !memcmp(fast.p, slow.p, slow.len),
		      "%s: cached CFI rows unwind otherwise than libdwfl",
		      path);
	free(fast.p);
	free(slow.p);
}
END_TEST

/* What test_mmap_under_way sees of each sample: its first frame. */
struct first_frames {
	size_t nr;
	unsigned flags[4];
	const char *dso[4];
};

static int keep_first(void *arg, const struct pda_pipe_item *it)
{
	struct first_frames *ff = arg;

	ck_assert_ptr_nonnull(it->stack);
	ck_assert_uint_ge(it->stack->nr, 1);
	ck_assert_uint_lt(ff->nr, 4);
	ff->flags[ff->nr] = it->stack->frames[0].flags;
	ff->dso[ff->nr++] = it->stack->frames[0].dso;
	return 0;
}

/* A DWARF sample (registers, an empty stack dump) of pid 7 whose
 * callchain's user part is ip. */
static void dwarf_sample(struct tf *t, uint64_t ip)
{
	tf_begin(t, PD_REC_SAMPLE, PD_MISC_USER);
	tf_u64(t, ip);
	tf_u32(t, 7);
	tf_u32(t, 7);
	tf_u64(t, 2); /* callchain */
	tf_u64(t, PD_CONTEXT_USER);
	tf_u64(t, ip);
	tf_u64(t, 2); /* regs_user: abi 64, sp (7) and ip (8) */
	tf_u64(t, 0x7ffff000);
	tf_u64(t, ip);
	tf_u64(t, 0); /* stack_user: none */
	tf_end(t);
}

/*
 * A process's MMAP does not wait for its samples under way (pda_pipe.c
 * needs_drain): each is still resolved in the maps of its time, so that
 * an address mapped after a sample stays unmapped for it.
 */
START_TEST(test_mmap_under_way)
{
	struct tf_attr a = {
		.type = 1,
		.sample_period = 1000,
		.sample_type = PD_SAMPLE_IP | PD_SAMPLE_TID |
			       PD_SAMPLE_CALLCHAIN | PD_SAMPLE_REGS_USER |
			       PD_SAMPLE_STACK_USER,
		.flags = 1ull << PD_ATTR_mmap | 1ull << PD_ATTR_comm |
			 1ull << PD_ATTR_task,
		.sample_regs_user = 3ull << 7,
		.sample_stack_user = 4096};
	struct first_frames ff[2];
	struct tf t;

	tf_init(&t, false);
	tf_add_attr(&t, &a, NULL, 0);
	pt_mmap(&t, PD_MISC_USER, 7, 7, 0x400000, 0x1000, 0, "/bin/a");
	dwarf_sample(&t, 0x400010);
	dwarf_sample(&t, 0x500010); /* not mapped yet */
	pt_mmap(&t, PD_MISC_USER, 7, 7, 0x500000, 0x1000, 0, "/bin/b");
	dwarf_sample(&t, 0x500010);
	for (unsigned jobs = 1; jobs <= 2; jobs++) {
		struct first_frames *f = &ff[jobs - 1];
		PDA_OPTS(o, .buildid_dir = tmp, .no_debuginfod = true,
			 .symfs = tmp);
		PDA_PIPE_OPTS(po, .jobs = jobs, .fn = keep_first, .arg = f);
		struct pd_file *file = tf_open(&t);
		struct pda_session *s;
		struct pda_pipe *p;
		struct pd_reader *r;
		struct pd_rec rec;

		memset(f, 0, sizeof(*f));
		ck_assert_int_eq(pda_session_new(file, &o, &s), 0);
		ck_assert_int_eq(pd_reader_new(file, 0, &r), 0);
		ck_assert_int_eq(pda_pipe_new(s, &po, &p), 0);
		while (pd_reader_next(r, &rec) > 0)
			ck_assert_int_eq(pda_pipe_feed(p, &rec), 0);
		ck_assert_int_eq(pda_pipe_finish(p), 0);
		ck_assert_uint_eq(f->nr, 3);
		ck_assert_str_eq(f->dso[0], "/bin/a");
		ck_assert(f->flags[1] & PDA_FRAME_NO_MAP);
		ck_assert_ptr_null(f->dso[1]);
		ck_assert_str_eq(f->dso[2], "/bin/b");
		/* the three went through one batch, under way together */
		ck_assert_uint_eq(pda_session_stats(s)->unwind.nr_samples, 3);
		pda_pipe_free(p);
		pd_reader_free(r);
		pda_session_free(s);
		pd_file_close(file);
	}
	tf_release(&t);
}
END_TEST

/* arm64 return addresses signed by pointer authentication. */
START_TEST(test_pac_strip)
{
	const struct pda_unwind_arch *a64 =
		pda_unwind_arch_find("aarch64", 0, 2);
	const struct pda_unwind_arch *x64 =
		pda_unwind_arch_find("x86_64", 0, 2);
	struct pda_map map = {.start = 0xfffff0000000ull,
			      .end = 0xfffff0021000ull};
	struct pda_maps maps = {.v = &map, .nr = 1};
	struct pda_unwind_req req = {.arch = a64, .maps = &maps};

	/* as perf 6.1 printed one in the arm64 guest (a 48-bit VA): the
	 * return address 0xffff7f606b8b, signed */
	ck_assert_uint_eq(pda_unwind_strip(&req, 0x0066ffff7f606b8bull),
			  0xffff7f606b8bull);
	ck_assert_uint_eq(pda_unwind_strip(&req, 0xffff7f606b8bull),
			  0xffff7f606b8bull);
	/* bit 55: a kernel address, not a user one */
	ck_assert_uint_eq(pda_unwind_strip(&req, 0xffffd6e4b5811548ull),
			  0xffffd6e4b5811548ull);
	/* a 39-bit VA (the stack below 2^39): the code from bit 39 up */
	map.start = 0x7ffff00000ull;
	map.end = 0x7fffff0000ull;
	ck_assert_uint_eq(pda_unwind_strip(&req, 0x0012007f80001234ull),
			  0x7f80001234ull);
	/* other targets keep what they read */
	req.arch = x64;
	ck_assert_uint_eq(pda_unwind_strip(&req, 0x0066ffff7f606b8bull),
			  0x0066ffff7f606b8bull);
}
END_TEST

struct vdso_callers {
	unsigned nr, clock_gettime;
};

static int vdso_caller(void *arg, const struct pda_pipe_item *it)
{
	struct vdso_callers *v = arg;
	const struct pda_stack *st = it->stack;

	for (size_t i = 0; st && i + 1 < st->nr; i++) {
		if (!st->frames[i].sym ||
		    strcmp(st->frames[i].sym, "__kernel_clock_gettime"))
			continue;
		v->nr++;
		v->clock_gettime +=
			st->frames[i + 1].sym &&
			!strcmp(st->frames[i + 1].sym, "clock_gettime");
		break;
	}
	return 0;
}

/*
 * testdata/arm64/dwarf was recorded on a CPU with pointer
 * authentication, whose kernel built the vdso with it: perf leaves the
 * signed return address of __kernel_clock_gettime as it is ("66ffff7f606b8b
 * [unknown]"), pdtool strips it and finds libc's clock_gettime there.
 */
START_TEST(test_pac_arm64)
{
	struct vdso_callers v = {0, 0};
	struct pd_file *f;
	struct pda_session *s;
	struct pda_pipe *p;
	struct pd_reader *r;
	struct pd_rec rec;
	PDA_OPTS(o, .symfs = "../../testdata/arm64/sysroot",
		 .buildid_dir = "../../testdata/arm64/buildid",
		 .no_debuginfod = true);
	PDA_PIPE_OPTS(po, .fn = vdso_caller, .arg = &v);

	ck_assert_int_eq(
		pd_file_open("../../testdata/arm64/dwarf.perf.data.zst", NULL,
			     &f),
		0);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pd_reader_new(f, PD_READ_ORDERED, &r), 0);
	ck_assert_int_eq(pda_pipe_new(s, &po, &p), 0);
	while (pd_reader_next(r, &rec) > 0)
		ck_assert_int_eq(pda_pipe_feed(p, &rec), 0);
	ck_assert_int_eq(pda_pipe_finish(p), 0);
	ck_assert_uint_ge(v.nr, 8);
	ck_assert_uint_eq(v.clock_gettime, v.nr);
	pda_pipe_free(p);
	pd_reader_free(r);
	pda_session_free(s);
	pd_file_close(f);
}
END_TEST

static int never(void *arg, const struct pda_pipe_item *it)
{
	(void)arg;
	(void)it;
	return PD_ERR_API;
}

/* Counts an item's samples. */
static int count_items(void *arg, const struct pda_pipe_item *it)
{
	uint64_t *n = arg;

	ck_assert_uint_ge(it->count, 1);
	*n += it->count;
	return 0;
}

/*
 * pda_pipe_feed_decoded_n(): the count is the group's alone.  A sample
 * of the second pass held back for the memo (a stable record) before a
 * group fed at once is handed back as one sample, not as the group.
 */
START_TEST(test_counted_alone)
{
	char path[ET_PATH_MAX];
	struct pd_file *f;
	struct pda_session *s;
	struct pd_reader *r;
	struct pda_pipe *p;
	struct pd_rec rec;
	uint64_t got = 0, fed = 0, seq = 0;
	PDA_OPTS(o, .buildid_dir = tmp, .no_debuginfod = true);
	PDA_PIPE_OPTS(po, .jobs = 1, .ip_stacks = true, .memo = true,
		      .fn = count_items, .arg = &got);
	int rc;

	et_path(path, "../../testdata/fp.perf.data");
	ck_assert_int_eq(pd_file_open(path, NULL, &f), 0);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	ck_assert_int_eq(pda_pipe_new(s, &po, &p), 0);
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		struct pda_pipe_when w = {0, 0, seq++};
		struct pd_sample sample;

		if (rec.type != PD_REC_SAMPLE) {
			ck_assert_int_eq(pda_session_feed(s, &rec), 0);
			continue;
		}
		ck_assert(rec.flags & PD_RECF_STABLE);
		ck_assert_int_eq(pda_pipe_feed_sample(p, &rec, &w), 0);
		ck_assert_int_eq(pd_sample_decode(f, &rec, &sample), 0);
		/* a group of three, without its callchain */
		sample.mask &= ~(uint64_t)PD_SAMPLE_CALLCHAIN;
		w.seq = seq++;
		ck_assert_int_eq(pda_pipe_feed_decoded_n(p, &sample, &w, 3),
				 0);
		fed += 4;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(pda_pipe_finish(p), 0);
	ck_assert_uint_gt(fed, 0);
	ck_assert_uint_eq(got, fed);
	pda_pipe_free(p);
	pd_reader_free(r);
	pda_session_free(s);
	pd_file_close(f);
}
END_TEST

START_TEST(test_api)
{
	struct et_session es;
	struct pda_pipe *p = (struct pda_pipe *)&es;
	struct pd_rec rec;
	PDA_PIPE_OPTS(none);
	PDA_PIPE_OPTS(big, .jobs = 1000, .fn = never);
	PDA_PIPE_OPTS(leaf, .jobs = 4, .no_stack = true, .fn = never);

	et_session_new(&es, NULL);
	ck_assert_int_eq(pda_pipe_new(es.s, &none, &p), PD_ERR_API);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(pda_pipe_new(es.s, &big, &p), 0);
	ck_assert_uint_eq(pda_pipe_jobs(p), PDA_PIPE_MAX_JOBS);
	pda_pipe_free(p);
	/* nothing to unwind without stacks */
	ck_assert_int_eq(pda_pipe_new(es.s, &leaf, &p), 0);
	ck_assert_uint_eq(pda_pipe_jobs(p), 1);
	ck_assert_int_eq(pda_pipe_finish(p), 0);
	/* no input after the end */
	memset(&rec, 0, sizeof(rec));
	ck_assert_int_eq(pda_pipe_feed(p, &rec), PD_ERR_API);
	pda_pipe_free(p);
	pda_pipe_free(NULL);
	et_session_free(&es);
}
END_TEST

Suite *pipe_suite(void)
{
	Suite *s = suite_create("pipe");
	TCase *tc = tcase_create("pipe");
	TCase *tk;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_api);
	tcase_add_test(tc, test_counted_alone);
	tcase_add_loop_test(tc, test_same_output, 0, FIRST_CORPUS_CAPTURE);
	tcase_add_test(tc, test_nomem);
	tcase_add_test(tc, test_mmap_under_way);
	tcase_add_test(tc, test_pac_strip);
	tcase_add_test(tc, test_pac_arm64);
	tcase_add_loop_test(tc, test_cached_rows, 0, FIRST_CORPUS_CFI_CASE);
	suite_add_tcase(s, tc);
	tk = corpus_tcase(s, "pipe");
	tcase_add_checked_fixture(tk, setup, teardown);
	tcase_set_timeout(tk, 120);
	corpus_add(tk, test_same_output, FIRST_CORPUS_CAPTURE, NR_CAPTURES);
	corpus_add(tk, test_cached_rows, FIRST_CORPUS_CFI_CASE, NR_CFI_CASES);
	return s;
}
