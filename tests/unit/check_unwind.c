/*
 * check_unwind.c - DWARF unwinding (analyze/unwind/pda_unwind*.c): the capture's
 * architecture and perf's register numbers mapped to DWARF's (facts from
 * perf's arch/ARCH/util/unwind-libdw.c and the psABIs), and whole
 * captures unwound through the public API: testdata/dwarf (C, frame
 * pointers or not, libdw CFI) and testdata/dwarfcpp (C++ with an inlined
 * function), their binaries found by build-id; simpleperf's arm64
 * captures from the corpus, whose binaries are absent, for the accounting.
 */
#include "pdatest.h"
#include "pda_unwind_int.h"
#include "pda_pipe.h"
#include "testcorpus.h"

#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* ---- architectures -------------------------------------------------- */

START_TEST(test_arch_names)
{
	static const struct {
		const char *uname;
		uint64_t abi;
		const char *want;
	} cases[] = {
		{"x86_64", 2, "x86_64"},   {"amd64", 2, "x86_64"},
		{"x86_64", 1, "i386"},	   {"i686", 1, "i386"},
		{"i386", 1, "i386"},	   {"aarch64", 2, "aarch64"},
		{"arm64", 2, "aarch64"},   {"aarch64", 1, "arm"},
		{"armv7l", 1, "arm"},	   {"ppc64le", 2, "ppc64le"},
		{"ppc64", 2, "ppc64"},	   {"s390x", 2, "s390x"},
		{"riscv64", 2, "riscv64"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pda_unwind_arch *a = pda_unwind_arch_find(
			cases[i].uname, 0, cases[i].abi);

		ck_assert_msg(a && !strcmp(a->name, cases[i].want),
			      "%s abi %d: %s, want %s", cases[i].uname,
			      (int)cases[i].abi, a ? a->name : "NULL",
			      cases[i].want);
	}
	/* the name decides, never the host; unknown names fall back to
	 * e_machine, and nothing known is NULL */
	ck_assert_str_eq(pda_unwind_arch_find("sparc64", EM_AARCH64, 2)->name,
			 "aarch64");
	ck_assert_str_eq(pda_unwind_arch_find(NULL, EM_386, 1)->name, "i386");
	ck_assert_ptr_null(pda_unwind_arch_find("sparc64", 0, 2));
	ck_assert_ptr_null(pda_unwind_arch_find(NULL, EM_SPARCV9, 2));
}
END_TEST

/* perf register of DWARF register dwarf on the arch named name */
static int perf_of(const char *name, uint64_t abi, unsigned dwarf)
{
	const struct pda_unwind_arch *a = pda_unwind_arch_find(name, 0, abi);

	ck_assert_ptr_nonnull(a);
	ck_assert_uint_lt(dwarf, a->nr_dwarf);
	return a->perf_of_dwarf[dwarf];
}

START_TEST(test_arch_registers)
{
	const struct pda_unwind_arch *a;

	/* x86_64: DWARF rax rdx rcx rbx rsi rdi rbp rsp r8.. rip; perf AX 0,
	 * BX 1, CX 2, DX 3, SP 7, IP 8, R8 16 */
	ck_assert_int_eq(perf_of("x86_64", 2, 0), 0);
	ck_assert_int_eq(perf_of("x86_64", 2, 1), 3);
	ck_assert_int_eq(perf_of("x86_64", 2, 3), 1);
	ck_assert_int_eq(perf_of("x86_64", 2, 7), 7);
	ck_assert_int_eq(perf_of("x86_64", 2, 8), 16);
	ck_assert_int_eq(perf_of("x86_64", 2, 16), 8);
	/* i386: eax ecx edx ebx esp ebp esi edi eip */
	ck_assert_int_eq(perf_of("i686", 1, 1), 2);
	ck_assert_int_eq(perf_of("i686", 1, 4), 7);
	ck_assert_int_eq(perf_of("i686", 1, 8), 8);
	/* arm64: x0-x30 as they are, sp 31, the pc (perf 32) apart */
	a = pda_unwind_arch_find("aarch64", 0, 2);
	ck_assert_int_eq(a->nr_dwarf, 32);
	ck_assert_int_eq(perf_of("aarch64", 2, 30), 30);
	ck_assert_int_eq(perf_of("aarch64", 2, 31), 31);
	ck_assert_uint_eq(a->perf_pc, 32);
	ck_assert_uint_eq(a->perf_sp, 31);
	ck_assert(a->is64 && !a->big_endian && a->e_machine == EM_AARCH64);
	/* arm: r0-r15, sp r13, pc r15 */
	a = pda_unwind_arch_find("aarch64", 0, 1);
	ck_assert_uint_eq(a->perf_pc, 15);
	ck_assert_uint_eq(a->perf_sp, 13);
	ck_assert(!a->is64 && a->e_machine == EM_ARM);
	/* s390x: f0 f2 f4 f6 f1... as DWARF 16-23, big-endian */
	ck_assert_int_eq(perf_of("s390x", 2, 17), 18);
	ck_assert_int_eq(perf_of("s390x", 2, 20), 17);
	ck_assert(pda_unwind_arch_find("s390x", 0, 2)->big_endian);
	/* ppc64: lr is DWARF 65, perf LINK 36 */
	a = pda_unwind_arch_find("ppc64le", 0, 2);
	ck_assert_uint_eq(a->extra[0].dwarf, 65);
	ck_assert_uint_eq(a->extra[0].perf, 36);
	ck_assert_uint_eq(a->perf_pc, 32);
	/* riscv64: x0 is not sampled, perf 0 is the pc */
	ck_assert_int_eq(perf_of("riscv64", 2, 0), -1);
	ck_assert_int_eq(perf_of("riscv64", 2, 2), 2);
	ck_assert_uint_eq(pda_unwind_arch_find("riscv64", 0, 2)->perf_pc, 0);
}
END_TEST

START_TEST(test_reg_values)
{
	/* mask 0xff0fff, x86_64's: values for bits 0-11 then 16-23 */
	uint64_t vals[20];
	struct pd_regs r = {2, 0xff0fff, {0}};
	uint64_t v;

	for (unsigned i = 0; i < 20; i++)
		vals[i] = 100 + i;
	r.regs.nr = 20;
	r.regs.raw = (const unsigned char *)vals;
	ck_assert(pda_unwind_reg(&r, 8, &v) && v == 108);   /* IP */
	ck_assert(pda_unwind_reg(&r, 16, &v) && v == 112);  /* R8 */
	ck_assert(pda_unwind_reg(&r, 23, &v) && v == 119);  /* R15 */
	ck_assert(!pda_unwind_reg(&r, 12, &v));		    /* not sampled */
	ck_assert(!pda_unwind_reg(&r, 64, &v));
	r.abi = 0; /* no registers at all */
	ck_assert(!pda_unwind_reg(&r, 8, &v));
	ck_assert_str_eq(pda_unwind_stop_name(PDA_UNWIND_STACK_SHORT),
			 "stack dump too small");
	ck_assert_str_eq(pda_unwind_stop_name(PDA_UNWIND_NR_STOPS), "?");
}
END_TEST

/* the backends, for loop tests: _i indexes them */
static const struct pda_unwind_backend *const backends[] = {
	&pda_unwind_libdw,
	&pda_unwind_libunwind,
};

/*
 * Every arch through each backend.  libdw: libebl attaches to its bare
 * ELF header (machine, class, byte order) whatever this host, and a pc in
 * no map gives the leaf alone, stopped with NO_MAP.  libunwind: the same
 * on x86_64; every other arch keeps its leaf, stopped with NO_ARCH.
 */
START_TEST(test_backend_arches)
{
	const struct pda_unwind_backend *be = backends[_i];
	static const struct {
		const char *name;
		uint64_t abi;
	} cases[] = {{"x86_64", 2},  {"i686", 1},    {"aarch64", 2},
		     {"armv7l", 1},  {"ppc64le", 2}, {"ppc64", 2},
		     {"s390x", 2},   {"riscv64", 2}};
	struct et_session es;
	struct pda_session *s = et_session_new(&es, NULL);
	const struct pda_maps maps = {0};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *name = cases[i].name;
		const uint64_t abi = cases[i].abi;
		const struct pda_unwind_arch *a =
			pda_unwind_arch_find(name, 0, abi);
		uint64_t vals[2], ips[4];
		unsigned char stack[64] = {0};
		struct pda_unwind_req req = {0};
		struct pda_unwind_res res = {ips, 0, 0, 0};
		struct pda_unwind_proc *p;

		ck_assert_ptr_nonnull(a);
		/* values in bit order: the smaller register number first */
		vals[a->perf_pc < a->perf_sp ? 0 : 1] = 0x4000;
		vals[a->perf_pc < a->perf_sp ? 1 : 0] = 0x7000;
		req.arch = a;
		req.regs = &(struct pd_regs){
			abi, (1ull << a->perf_pc) | (1ull << a->perf_sp),
			{2, (const unsigned char *)vals, 0}};
		req.stack = stack;
		req.stack_size = sizeof(stack);
		req.sp = 0x7000;
		req.pc = 0x4000;
		req.maps = &maps;
		req.max_frames = 4;
		ck_assert_int_eq(be->proc_new(s, a, &p), 0);
		ck_assert_int_eq(be->unwind(s, p, &req, &res), 0);
		ck_assert_msg(res.nr >= 1 && ips[0] == 0x4000, "%s: %zu frames",
			      name, res.nr);
		ck_assert_msg(res.stop == (be == &pda_unwind_libunwind && i
						   ? PDA_UNWIND_NO_ARCH
						   : PDA_UNWIND_NO_MAP),
			      "%s %s: %s", be->name, name,
			      pda_unwind_stop_name(res.stop));
		ck_assert_str_eq(a->name, i == 1   ? "i386"
					  : i == 3 ? "arm"
						   : name);
		be->proc_free(s, p);
	}
	et_session_free(&es);
}
END_TEST

/* ---- whole captures ------------------------------------------------- */

static char *tmp;

static void setup(void)
{
	tmp = et_tmpdir();
}

static void teardown(void)
{
	et_rmtree(tmp);
	free(tmp);
}

/* A build-id cache in tmp holding the testdata binaries. */
static void cache_testdata(void)
{
	pt_cache_testdata(tmp);
}

struct capture {
	void *buf;
	size_t len;
	struct pd_file *f;
	struct pda_session *s;
	struct pda_stack st;
};

/* Open path (zstd-compressed when it ends in .zst); false when absent. */
static bool capture_open(struct capture *c, const char *path,
			 const struct pda_opts *o)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *raw;
	long n;
	char err[256] = "";
	struct pda_opts opts = *o;

	memset(c, 0, sizeof(*c));
	if (!fp)
		return false;
	ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	ck_assert_int_gt(n, 0);
	rewind(fp);
	raw = malloc((size_t)n);
	ck_assert_ptr_nonnull(raw);
	ck_assert_uint_eq(fread(raw, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	if (strlen(path) > 4 && !strcmp(path + strlen(path) - 4, ".zst")) {
		unsigned long long sz = ZSTD_getFrameContentSize(raw, (size_t)n);

		ck_assert(sz != ZSTD_CONTENTSIZE_ERROR &&
			  sz != ZSTD_CONTENTSIZE_UNKNOWN);
		c->buf = malloc(sz);
		ck_assert_ptr_nonnull(c->buf);
		c->len = ZSTD_decompress(c->buf, sz, raw, (size_t)n);
		ck_assert(!ZSTD_isError(c->len));
		free(raw);
	} else {
		c->buf = raw;
		c->len = (size_t)n;
	}
	ck_assert_int_eq(pd_file_open_mem(c->buf, c->len, NULL, &c->f), 0);
	opts.errbuf = err;
	opts.errbuf_size = sizeof(err);
	ck_assert_msg(pda_session_new(c->f, &opts, &c->s) == 0, "%s", err);
	return true;
}

static void capture_close(struct capture *c)
{
	pda_stack_release(c->s, &c->st);
	pda_session_free(c->s);
	pd_file_close(c->f);
	free(c->buf);
}

/* The frames of every sample, one callback each, in time order. */
static void each_stack(struct capture *c,
		       void (*fn)(const struct pd_sample *,
				  const struct pda_stack *, void *),
		       void *arg)
{
	struct pd_reader *r;
	struct pd_rec rec;
	int rc;

	ck_assert_int_eq(pd_reader_new(c->f, PD_READ_ORDERED, &r), 0);
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		struct pd_sample smp;

		ck_assert_int_eq(pda_session_feed(c->s, &rec), 0);
		if (rec.type != PD_REC_SAMPLE)
			continue;
		ck_assert_int_eq(pd_sample_decode(c->f, &rec, &smp), 0);
		ck_assert_msg(pda_sample_stack(c->s, &smp, &c->st) == 0, "%s",
			      pda_session_errmsg(c->s));
		fn(&smp, &c->st, arg);
	}
	ck_assert_int_eq(rc, 0);
	pd_reader_free(r);
}

static bool has_frame(const struct pda_stack *st, const char *sym,
		      unsigned flags)
{
	for (size_t i = 0; i < st->nr; i++)
		if (st->frames[i].sym && !strcmp(st->frames[i].sym, sym) &&
		    (st->frames[i].flags & flags) == flags)
			return true;
	return false;
}

struct dwarf_counts {
	unsigned nr, with_worker, leaf_is_ip;
};

static void count_dwarf(const struct pd_sample *smp,
			const struct pda_stack *st, void *arg)
{
	struct dwarf_counts *n = arg;
	const struct pda_frame *user = NULL;
	uint64_t ip;

	n->nr++;
	n->with_worker += has_frame(st, "worker", 0);
	/* the first user frame is the sampled pc, unadjusted */
	for (size_t i = 0; i < st->nr && !user; i++)
		if (!(st->frames[i].flags & PDA_FRAME_KERNEL))
			user = &st->frames[i];
	if (user && pda_unwind_reg(&smp->regs_user, 8, &ip) && user->ip == ip)
		n->leaf_is_ip++;
}

/* The same stacks from either unwinder (_i: backends[]). */
START_TEST(test_testdata_dwarf)
{
	struct dwarf_counts n = {0};
	struct capture c;
	const struct pda_stats *st;
	PDA_OPTS(o, .buildid_dir = tmp, .no_debuginfod = true,
		 .unwinder = backends[_i]->name);

	cache_testdata();
	ck_assert(capture_open(&c, "../../testdata/dwarf.perf.data.zst", &o));
	each_stack(&c, count_dwarf, &n);
	st = pda_session_stats(c.s);
	ck_assert_uint_eq(n.nr, 76);
	/* every sample is in the program's worker(): its frames come from
	 * demo's CFI whatever this host's libc */
	ck_assert_uint_eq(n.with_worker, n.nr);
	ck_assert_uint_eq(n.leaf_is_ip, n.nr);
	ck_assert_uint_eq(st->unwind.nr_samples, 76);
	ck_assert_str_eq(st->unwind.unwinder, backends[_i]->name);
	ck_assert_str_eq(st->unwind.arch, "x86_64");
	ck_assert_uint_eq(st->unwind.by_stop[PDA_UNWIND_END] +
				  st->unwind.nr_stopped,
			  76);
	ck_assert_uint_gt(st->unwind.nr_frames, 76 * 4);
	capture_close(&c);
}
END_TEST

struct inline_counts {
	unsigned nr, inlined, square_sum;
};

static void count_inline(const struct pd_sample *smp,
			 const struct pda_stack *st, void *arg)
{
	struct inline_counts *n = arg;

	(void)smp;
	n->nr++;
	n->inlined += has_frame(st, "square_sum", PDA_FRAME_INLINED);
	n->square_sum += has_frame(st, "square_sum", 0);
}

START_TEST(test_testdata_inline)
{
	struct inline_counts on = {0}, off = {0}, cc = {0};
	struct capture c;
	PDA_OPTS(o, .buildid_dir = tmp, .no_debuginfod = true);

	cache_testdata();
	/* DWARF stacks get inlined frames by default, as perf shows them */
	ck_assert(capture_open(&c, "../../testdata/dwarfcpp.perf.data.zst",
			       &o));
	each_stack(&c, count_inline, &on);
	capture_close(&c);
	ck_assert_uint_eq(on.nr, 97);
	ck_assert_uint_gt(on.inlined, on.nr / 2);
	ck_assert_uint_eq(on.inlined, on.square_sum);
	/* no_inline: none */
	o.no_inline = true;
	ck_assert(capture_open(&c, "../../testdata/dwarfcpp.perf.data.zst",
			       &o));
	each_stack(&c, count_inline, &off);
	capture_close(&c);
	ck_assert_uint_eq(off.square_sum, 0);
	/* frame-pointer callchains: none unless inline_callchain */
	o.no_inline = false;
	ck_assert(capture_open(&c, "../../testdata/fp.perf.data", &o));
	each_stack(&c, count_inline, &cc);
	capture_close(&c);
	ck_assert_uint_eq(cc.inlined, 0);
	o.inline_callchain = true;
	memset(&cc, 0, sizeof(cc));
	ck_assert(capture_open(&c, "../../testdata/fp.perf.data", &o));
	each_stack(&c, count_inline, &cc);
	capture_close(&c);
	ck_assert_uint_gt(cc.inlined, 0);
}
END_TEST

static void ignore(const struct pd_sample *smp, const struct pda_stack *st,
		   void *arg)
{
	(void)smp;
	(void)st;
	(void)arg;
}

/* simpleperf's arm64 captures: no binaries here, every stop counted. */
static const struct {
	const char *path, *arch;
	unsigned stop;
	uint64_t nr;
} arm64_cases[] = {
	{"perf_with_arm_regs.data", "arm", PDA_UNWIND_NO_STACK, 1},
	{"perf_no_unwind.data", "aarch64", PDA_UNWIND_NO_BINARY, 8},
};

START_TEST(test_corpus_arm64)
{
	struct capture c;
	char path[CORPUS_PATH_MAX];
	const struct pda_unwind_stats *u;

	PDA_OPTS(o, .buildid_dir = tmp, .no_debuginfod = true,
		 .symfs = tmp);
	corpus_path(path, "simpleperf/%s", arm64_cases[_i].path);
	ck_assert_msg(capture_open(&c, path, &o), "cannot open %s", path);
	each_stack(&c, ignore, NULL);
	u = &pda_session_stats(c.s)->unwind;
	ck_assert_str_eq(u->arch, arm64_cases[_i].arch);
	ck_assert_uint_eq(u->nr_samples, arm64_cases[_i].nr);
	ck_assert_uint_eq(u->by_stop[arm64_cases[_i].stop], arm64_cases[_i].nr);
	ck_assert_uint_eq(u->nr_stopped, arm64_cases[_i].nr);
	ck_assert_uint_ge(u->nr_stopped_dsos, 1);
	capture_close(&c);
}
END_TEST

START_TEST(test_unknown_unwinder)
{
	struct et_session es;
	struct pd_file *f;
	struct pda_session *s = NULL;
	char err[256] = "";
	PDA_OPTS(o, .unwinder = "frobnicate", .errbuf = err,
		 .errbuf_size = sizeof(err));

	et_session_new(&es, NULL);
	f = es.f;
	ck_assert_int_eq(pda_session_new(f, &o, &s), PD_ERR_UNSUPPORTED);
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(err, "frobnicate"), "%s", err);
	et_session_free(&es);
}
END_TEST

Suite *unwind_suite(void)
{
	Suite *s = suite_create("unwind");
	TCase *tc = tcase_create("arch");
	TCase *tw = tcase_create("captures");
	TCase *tk;

	tcase_add_test(tc, test_arch_names);
	tcase_add_test(tc, test_arch_registers);
	tcase_add_test(tc, test_reg_values);
	tcase_add_test(tc, test_unknown_unwinder);
	tcase_add_loop_test(tc, test_backend_arches, 0,
			    (int)(sizeof(backends) / sizeof(backends[0])));
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tw, setup, teardown);
	tcase_set_timeout(tw, 60);
	tcase_add_loop_test(tw, test_testdata_dwarf, 0,
			    (int)(sizeof(backends) / sizeof(backends[0])));
	tcase_add_test(tw, test_testdata_inline);
	suite_add_tcase(s, tw);
	tk = corpus_tcase(s, "unwind");
	tcase_add_checked_fixture(tk, setup, teardown);
	tcase_set_timeout(tk, 60);
	corpus_add(tk, test_corpus_arm64, 0,
		   (int)(sizeof(arm64_cases) / sizeof(arm64_cases[0])));
	return s;
}
