/*
 * check_machine.c - libpda's machine state over time, through the public
 * API: captures built in memory (COMM, FORK, EXIT, MMAP, MMAP2, KSYMBOL,
 * SAMPLE in file order, which is their time order), fed to a session,
 * each sample's stack resolved at its moment.  Maps name files that do
 * not exist unless a test needs symbols: a frame then still says which
 * map (dso) and which file offset it is at.  The rules are perf's
 * (tools/perf/util/machine.c, thread.c, map.c), summed up in
 * analyze/machine/pda_machine.c.
 */
#include "pdatest.h"
#include "pda_machine_int.h" /* pda_parse_hex, pda_view */
#include "pda_stack_int.h"   /* pda_sample_stack_rec, pda_memo_replay_n */

#include "failalloc.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U PD_MISC_USER
#define K PD_MISC_KERNEL
#define PROT_RX 5u /* PROT_READ | PROT_EXEC */
#define PROT_RW 3u /* PROT_READ | PROT_WRITE */
#define PROT_RWX 7u
#define MAP_PRIVATE_ 2u
#define MISC_FORK_EXEC (1u << 13) /* perf's synthesized FORK */

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

/* options every test starts from: no build-id cache, no network */
#define OPTS(name, ...)                                                        \
	PDA_OPTS(name, .buildid_dir = tmp, .no_debuginfod = true, __VA_ARGS__)

static const struct pda_frame *frame(const struct pt_run *r, size_t i, size_t j)
{
	ck_assert_msg(i < r->nr, "stack %zu of %zu", i, r->nr);
	ck_assert_msg(j < r->stacks[i].nr, "stack %zu: frame %zu of %zu", i, j,
		      r->stacks[i].nr);
	return &r->stacks[i].frames[j];
}

#define ck_dso(r, i, j, want)                                                  \
	do {                                                                   \
		const struct pda_frame *f_ = frame((r), (i), (j));             \
		ck_assert_msg(f_->dso && !strcmp(f_->dso, (want)),             \
			      "stack %d frame %d: dso %s, not %s", (int)(i),   \
			      (int)(j), f_->dso ? f_->dso : "(none)", (want)); \
	} while (0)

#define ck_sym(r, i, j, want)                                                  \
	do {                                                                   \
		const struct pda_frame *f_ = frame((r), (i), (j));             \
		ck_assert_msg(f_->sym && !strcmp(f_->sym, (want)),             \
			      "stack %d frame %d: sym %s, not %s", (int)(i),   \
			      (int)(j), f_->sym ? f_->sym : "(none)", (want)); \
	} while (0)

/* a user-space sample whose callchain is ip alone */
static void usample(struct tf *t, uint32_t pid, uint32_t tid, uint64_t ip)
{
	const uint64_t cc[] = {PD_CONTEXT_USER, ip};

	pt_sample(t, U, pid, tid, ip, cc, 2);
}

START_TEST(t_mmap_over_time)
{
	struct tf t;
	struct pt_run r;
	OPTS(o);

	pt_begin(&t);
	pt_comm(&t, 100, 100, "app", false);
	usample(&t, 100, 100, 0x400100); /* nothing mapped yet */
	pt_mmap(&t, U, 100, 100, 0x400000, 0x3000, 0x1000, "/nonexistent/a.so");
	usample(&t, 100, 100, 0x400100);
	usample(&t, 100, 100, 0x401100);
	/* b.so over the middle page of a.so: a.so is cut in two */
	pt_mmap(&t, U, 100, 100, 0x401000, 0x1000, 0, "/nonexistent/b.so");
	usample(&t, 100, 100, 0x400100);
	usample(&t, 100, 100, 0x401100);
	usample(&t, 100, 100, 0x402100);
	usample(&t, 100, 100, 0x403000); /* past a.so's end */
	pt_run(&t, &o, &r);

	ck_assert_uint_eq(r.nr, 7);
	ck_assert_uint_eq(r.stacks[0].nr, 1);
	ck_assert_uint_eq(frame(&r, 0, 0)->flags,
			  PDA_FRAME_NO_MAP | PDA_FRAME_NO_SYMBOL);
	ck_assert_ptr_null(frame(&r, 0, 0)->dso);
	ck_assert_str_eq(r.stacks[0].comm, "app");

	ck_dso(&r, 1, 0, "/nonexistent/a.so");
	ck_assert_uint_eq(frame(&r, 1, 0)->ip, 0x400100);
	ck_assert_uint_eq(frame(&r, 1, 0)->flags, PDA_FRAME_NO_SYMBOL);
	/* no file: the frame's address is the file offset */
	ck_assert_uint_eq(frame(&r, 1, 0)->dso_addr, 0x1100);
	ck_dso(&r, 2, 0, "/nonexistent/a.so");
	ck_assert_uint_eq(frame(&r, 2, 0)->dso_addr, 0x2100);

	ck_dso(&r, 3, 0, "/nonexistent/a.so");
	ck_assert_uint_eq(frame(&r, 3, 0)->dso_addr, 0x1100);
	ck_dso(&r, 4, 0, "/nonexistent/b.so");
	ck_assert_uint_eq(frame(&r, 4, 0)->dso_addr, 0x100);
	/* the right part keeps its file offsets */
	ck_dso(&r, 5, 0, "/nonexistent/a.so");
	ck_assert_uint_eq(frame(&r, 5, 0)->dso_addr, 0x3100);
	ck_assert_uint_eq(frame(&r, 6, 0)->flags,
			  PDA_FRAME_NO_MAP | PDA_FRAME_NO_SYMBOL);
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

START_TEST(t_threads_share_maps)
{
	struct tf t;
	struct pt_run r;
	OPTS(o);

	pt_begin(&t);
	pt_comm(&t, 100, 100, "app", false);
	/* a new thread of process 100 */
	pt_fork(&t, 0, 100, 100, 101, 100);
	/* mapped by the new thread: the process's map */
	pt_mmap(&t, U, 100, 101, 0x500000, 0x1000, 0, "/nonexistent/t.so");
	usample(&t, 100, 100, 0x500010);
	usample(&t, 100, 101, 0x500020);
	pt_comm(&t, 100, 101, "worker", false);
	usample(&t, 100, 101, 0x500030);
	usample(&t, 100, 100, 0x500040);
	pt_run(&t, &o, &r);

	ck_dso(&r, 0, 0, "/nonexistent/t.so");
	ck_dso(&r, 1, 0, "/nonexistent/t.so");
	ck_assert_str_eq(r.stacks[0].comm, "app");
	ck_assert_str_eq(r.stacks[1].comm, "app"); /* inherited at FORK */
	ck_assert_str_eq(r.stacks[2].comm, "worker");
	ck_assert_str_eq(r.stacks[3].comm, "app"); /* per thread */
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

START_TEST(t_fork_copies_maps)
{
	struct tf t;
	struct pt_run r;
	OPTS(o);

	pt_begin(&t);
	pt_comm(&t, 100, 100, "parent", false);
	pt_mmap(&t, U, 100, 100, 0x600000, 0x1000, 0, "/nonexistent/p.so");
	pt_fork(&t, 0, 200, 100, 200, 100); /* a new process */
	usample(&t, 200, 200, 0x600010);    /* the copied map */
	pt_mmap(&t, U, 200, 200, 0x600000, 0x1000, 0, "/nonexistent/c.so");
	usample(&t, 200, 200, 0x600010);
	usample(&t, 100, 100, 0x600010); /* the parent's is unchanged */
	/* a FORK perf synthesized: the maps come in MMAP records */
	pt_fork(&t, MISC_FORK_EXEC, 300, 100, 300, 100);
	usample(&t, 300, 300, 0x600010);
	/* a reused pid: a new process, its parent's maps, not the old ones */
	pt_fork(&t, 0, 200, 100, 200, 100);
	usample(&t, 200, 200, 0x600010);
	pt_run(&t, &o, &r);

	ck_dso(&r, 0, 0, "/nonexistent/p.so");
	ck_assert_str_eq(r.stacks[0].comm, "parent");
	ck_dso(&r, 1, 0, "/nonexistent/c.so");
	ck_dso(&r, 2, 0, "/nonexistent/p.so");
	ck_assert_uint_eq(frame(&r, 3, 0)->flags,
			  PDA_FRAME_NO_MAP | PDA_FRAME_NO_SYMBOL);
	ck_assert_str_eq(r.stacks[3].comm, "parent");
	ck_dso(&r, 4, 0, "/nonexistent/p.so");
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

START_TEST(t_exec_and_exit)
{
	struct tf t;
	struct pt_run r;
	OPTS(o);

	pt_begin(&t);
	pt_comm(&t, 100, 100, "perf-exec", false);
	pt_mmap(&t, U, 100, 100, 0x700000, 0x1000, 0, "/nonexistent/old");
	usample(&t, 100, 100, 0x700010);
	pt_comm(&t, 100, 100, "prog", true);
	/* perf keeps the maps across exec; the new image's MMAPs replace
	 * what they overlap */
	usample(&t, 100, 100, 0x700010);
	pt_mmap(&t, U, 100, 100, 0x700000, 0x800, 0, "/nonexistent/new");
	usample(&t, 100, 100, 0x700010);
	usample(&t, 100, 100, 0x700810);
	pt_exit(&t, 100, 100);
	usample(&t, 100, 100, 0x700010); /* the exit path */
	usample(&t, 0, 0, 0x10);	 /* the idle task */
	usample(&t, 555, 555, 0x10);	 /* never seen */
	pt_run(&t, &o, &r);

	ck_assert_str_eq(r.stacks[0].comm, "perf-exec");
	ck_dso(&r, 0, 0, "/nonexistent/old");
	ck_assert_str_eq(r.stacks[1].comm, "prog");
	ck_dso(&r, 1, 0, "/nonexistent/old");
	ck_dso(&r, 2, 0, "/nonexistent/new");
	ck_dso(&r, 3, 0, "/nonexistent/old");
	ck_assert_uint_eq(frame(&r, 3, 0)->dso_addr, 0x810);
	ck_dso(&r, 4, 0, "/nonexistent/new");
	ck_assert_str_eq(r.stacks[4].comm, "prog");
	ck_assert_str_eq(r.stacks[5].comm, "swapper");
	ck_assert_str_eq(r.stacks[6].comm, "");
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

START_TEST(t_anon_jit_vdso)
{
	struct tf t;
	struct pt_run r;
	char path[4096];
	const struct pda_missing_dso *m;
	OPTS(o, .jit_dir = tmp);

	et_path(path, "%s/perf-100.map", tmp);
	pt_write(path, "7f0000000000 40 jit_one\n"
		       "7f0000000040 40 jit_two\n"
		       "7f0000001000 100 in_memfd\n");
	pt_begin(&t);
	pt_mmap2(&t, U, 100, 100, 0x7f0000000000, 0x1000, 0x7f0000000, PROT_RWX,
		 MAP_PRIVATE_, "//anon", NULL, 0);
	pt_mmap2(&t, U, 100, 100, 0x7f0000001000, 0x1000, 0, PROT_RX, 1,
		 "/memfd:jit (deleted)", NULL, 0);
	pt_mmap2(&t, U, 100, 100, 0x7f0000002000, 0x1000, 0, PROT_RW,
		 MAP_PRIVATE_, "//anon", NULL, 0);
	pt_mmap2(&t, U, 100, 100, 0x7f0000003000, 0x1000, 0, PROT_RW,
		 MAP_PRIVATE_, "[heap]", NULL, 0);
	pt_mmap2(&t, U, 100, 100, 0x7f0000004000, 0x2000, 0, PROT_RX,
		 MAP_PRIVATE_, "[vdso]", NULL, 0);
	usample(&t, 100, 100, 0x7f0000000010);
	usample(&t, 100, 100, 0x7f0000000050);
	usample(&t, 100, 100, 0x7f0000000090); /* past jit_two's size */
	usample(&t, 100, 100, 0x7f0000001010);
	usample(&t, 100, 100, 0x7f0000002010);
	usample(&t, 100, 100, 0x7f0000003010);
	usample(&t, 100, 100, 0x7f0000004010);
	pt_run(&t, &o, &r);

	/* perf names executable anonymous memory by its map file */
	ck_dso(&r, 0, 0, "/tmp/perf-100.map");
	ck_sym(&r, 0, 0, "jit_one");
	ck_assert_uint_eq(frame(&r, 0, 0)->flags, PDA_FRAME_JIT);
	ck_assert_uint_eq(frame(&r, 0, 0)->sym_off, 0x10);
	ck_sym(&r, 1, 0, "jit_two");
	ck_assert_ptr_null(frame(&r, 2, 0)->sym);
	ck_assert_uint_eq(frame(&r, 2, 0)->flags,
			  PDA_FRAME_JIT | PDA_FRAME_NO_SYMBOL);
	/* memfd code: perf's map file, the map's own name */
	ck_dso(&r, 3, 0, "/memfd:jit (deleted)");
	ck_sym(&r, 3, 0, "in_memfd");
	/* data: no file, no map file */
	ck_dso(&r, 4, 0, "//anon");
	ck_assert_uint_eq(frame(&r, 4, 0)->flags, PDA_FRAME_NO_SYMBOL);
	ck_dso(&r, 5, 0, "[heap]");
	ck_assert_uint_eq(frame(&r, 5, 0)->flags, PDA_FRAME_NO_SYMBOL);
	/* a vdso without a build-id cannot be checked, so is not used */
	ck_dso(&r, 6, 0, "[vdso]");
	ck_assert_uint_eq(frame(&r, 6, 0)->dso_addr, 0x10);
	m = pt_missing(&r, "[vdso]");
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->nr_samples, 1);
	ck_assert_ptr_null(pt_missing(&r, "/tmp/perf-100.map"));
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

START_TEST(t_jit_map_missing)
{
	struct tf t;
	struct pt_run r;
	const struct pda_missing_dso *m;
	char want[4096];
	OPTS(o, .jit_dir = tmp);

	pt_begin(&t);
	pt_mmap2(&t, U, 4242, 4242, 0x7f0000000000, 0x1000, 0, PROT_RWX,
		 MAP_PRIVATE_, "//anon", NULL, 0);
	usample(&t, 4242, 4242, 0x7f0000000010);
	usample(&t, 4242, 4242, 0x7f0000000020);
	pt_run(&t, &o, &r);
	ck_assert_uint_eq(frame(&r, 1, 0)->flags,
			  PDA_FRAME_JIT | PDA_FRAME_NO_SYMBOL);
	m = pt_missing(&r, "/tmp/perf-4242.map");
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->nr_samples, 2);
	et_path(want, "%s/perf-4242.map", tmp);
	ck_assert(pt_tried(m, want, NULL));
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 t alias_a\n"
	"ffffffff81000100 T real_b\n" /* the last one at an address */
	"ffffffff81000200 T func_c\n"
	"ffffffff81000300 d data_x\n"
	"ffffffff81000400 r rodata_y\n" /* not kept: data_x goes on */
	"ffffffff81000500 T last_kernel\n"
	"ffffffffc0001000 t mod_fn\t[foo]\n"
	"ffffffffc0001100 t mod_fn2\t[foo]\n";

/* kernel and module maps as perf synthesizes them, then one sample */
static void kernel_capture(struct tf *t, uint64_t text)
{
	const uint64_t cc[] = {
		PD_CONTEXT_KERNEL,
		text + 0x150,
		text + 0x250,
		text + 0x450,
		text + 0x1f00,
		text + 0x2100,
		0xffffffffc0001050ull,
		0xffffffffc0001150ull,
		0xffffffffc0003100ull,
		PD_CONTEXT_USER,
		0x400010,
	};

	pt_begin(t);
	/* pgoff: where _text was, the name's suffix names it */
	pt_mmap(t, K, (uint32_t)-1, 0, text, 0x3000, text,
		"[kernel.kallsyms]_text");
	pt_mmap(t, K, (uint32_t)-1, 0, 0xffffffffc0000000ull, 0x4000, 0,
		"/lib/modules/6.1.0/kernel/foo.ko");
	pt_mmap(t, U, 100, 100, 0x400000, 0x1000, 0, "/nonexistent/u");
	pt_sample(t, K, 100, 100, text + 0x150, cc, sizeof(cc) / sizeof(cc[0]));
}

static void check_kernel_stack(const struct pt_run *r)
{
	static const char *const syms[] = {"real_b",	  "func_c", "data_x",
					   "last_kernel", NULL,	    "mod_fn",
					   "mod_fn2",	  NULL};

	ck_assert_uint_eq(r->stacks[0].nr, 9);
	for (size_t i = 0; i < 8; i++) {
		const struct pda_frame *f = frame(r, 0, i);

		ck_assert_msg(f->flags & PDA_FRAME_KERNEL, "frame %zu", i);
		if (syms[i]) {
			ck_sym(r, 0, i, syms[i]);
		} else {
			ck_assert_ptr_null(f->sym);
			ck_assert(f->flags & PDA_FRAME_NO_SYMBOL);
		}
		ck_dso(r, 0, i,
		       i < 5 ? "[kernel.kallsyms]"
			     : "/lib/modules/6.1.0/kernel/foo.ko");
	}
	ck_assert_uint_eq(frame(r, 0, 0)->sym_off, 0x50);
	ck_assert_uint_eq(frame(r, 0, 8)->flags, PDA_FRAME_NO_SYMBOL);
	ck_dso(r, 0, 8, "/nonexistent/u");
}

START_TEST(t_kernel_kallsyms)
{
	struct tf t;
	struct pt_run r;
	char path[4096];
	OPTS(o, .kallsyms = path);

	et_path(path, "%s/kallsyms", tmp);
	pt_write(path, kallsyms);
	kernel_capture(&t, 0xffffffff81000000ull);
	pt_run(&t, &o, &r);
	check_kernel_stack(&r);
	ck_assert_ptr_null(pt_missing(&r, "[kernel.kallsyms]"));
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

/* pda_parse_hex: a kallsyms address's 16 digits, read a word at a
 * time, as the digit-by-digit rule reads them: where it ends, the value,
 * and no more than 16 digits */
START_TEST(t_parse_hex)
{
	static const struct {
		const char *in;
		size_t len; /* 0: strlen */
		bool ok;
		uint64_t v;
		size_t used;
	} c[] = {
		{"ffffffff81000000 T _text", 0, true, 0xffffffff81000000ull, 16},
		{"0123456789abcdef ", 0, true, 0x0123456789abcdefull, 16},
		{"FFFFFFFF8100000a t x", 0, true, 0xffffffff8100000aull, 16},
		{"ffffffff8100000G t", 0, true, 0xffffffff8100000ull, 15},
		{"ffffffff:1000000 t", 0, true, 0xffffffffull, 8},
		{"0123456789abcdef0 t", 0, true, 0x123456789abcdef0ull, 17},
		{"1123456789abcdef0 t", 0, false, 0, 0},
		{"ffffffff81000000", 0, true, 0xffffffff81000000ull, 16},
		{"ffffffff81000000 T", 16, true, 0xffffffff81000000ull, 16},
		{"ffffffff81000000a", 16, true, 0xffffffff81000000ull, 16},
		{"ffff" "\xe6" "fff81000000 t", 0, true, 0xffffull, 4},
		{" ffffffff81000000", 0, false, 0, 0},
		{"", 0, false, 0, 0},
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const size_t len = c[i].len ? c[i].len : strlen(c[i].in);
		const char *p = c[i].in;
		uint64_t v = 0;
		const bool ok = pda_parse_hex(&p, c[i].in + len, &v);

		ck_assert_msg(ok == c[i].ok, "case %zu", i);
		if (!ok)
			continue;
		ck_assert_msg(v == c[i].v, "case %zu: %llx", i,
			      (unsigned long long)v);
		ck_assert_uint_eq((size_t)(p - c[i].in), c[i].used);
	}
}
END_TEST

/* KASLR: booted elsewhere than the kallsyms copy says; modules are
 * where they are */
START_TEST(t_kernel_kaslr)
{
	struct tf t;
	struct pt_run r;
	char path[4096];
	OPTS(o, .kallsyms = path);

	et_path(path, "%s/kallsyms", tmp);
	pt_write(path, kallsyms);
	kernel_capture(&t, 0xffffffff91000000ull);
	pt_run(&t, &o, &r);
	check_kernel_stack(&r);
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

START_TEST(t_kernel_unresolved)
{
	struct tf t;
	struct pt_run r;
	const struct pda_missing_dso *m;
	char path[4096];
	OPTS(o, .kallsyms = path);

	/* kptr_restrict: every address 0; and no kallsyms at all */
	et_path(path, "%s/kallsyms", tmp);
	pt_write(path, "0000000000000000 T _text\n"
		       "0000000000000000 T func_c\n");
	for (int run = 0; run < 2; run++) {
		if (run == 1)
			o.kallsyms = NULL;
		kernel_capture(&t, 0xffffffff81000000ull);
		pt_run(&t, &o, &r);
		for (size_t i = 0; i < 8; i++) {
			ck_assert_ptr_null(frame(&r, 0, i)->sym);
			/* which kernel map (image or module) is not the
			 * point here */
			ck_assert_uint_eq(frame(&r, 0, i)->flags &
						  ~(unsigned)PDA_FRAME_MODULE,
					  PDA_FRAME_KERNEL |
						  PDA_FRAME_NO_SYMBOL);
		}
		m = pt_missing(&r, "[kernel.kallsyms]");
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->nr_samples, 1);
		if (run == 0)
			ck_assert(pt_tried(m, path, "kptr_restrict"));
		pt_run_free(&r);
		tf_release(&t);
	}
}
END_TEST

START_TEST(t_markers)
{
	struct tf t;
	struct pt_run r;
	const uint64_t guest[] = {PD_CONTEXT_GUEST_KERNEL, 0xffffffff81000010,
				  PD_CONTEXT_GUEST_USER, 0x400010};
	const uint64_t hv[] = {PD_CONTEXT_HV, 0x1234, PD_CONTEXT_USER,
			       0x400010};
	const uint64_t bad[] = {PD_CONTEXT_USER, 0x400010, (uint64_t)-300,
				0x400020};
	const uint64_t deferred[] = {PD_CONTEXT_KERNEL, 0xffffffff81000010,
				     PD_CONTEXT_USER_DEFERRED, 7};
	const uint64_t none[] = {0x400010}; /* no marker: user */
	OPTS(o);

	pt_begin(&t);
	pt_mmap(&t, U, 100, 100, 0x400000, 0x1000, 0, "/nonexistent/u");
	pt_sample(&t, U, 100, 100, 0x400010, guest, 4);
	pt_sample(&t, U, 100, 100, 0x400010, hv, 4);
	pt_sample(&t, U, 100, 100, 0x400010, bad, 4);
	pt_sample(&t, K, 100, 100, 0xffffffff81000010, deferred, 4);
	pt_sample(&t, U, 100, 100, 0x400010, none, 1);
	pt_run(&t, &o, &r);

	ck_assert_uint_eq(r.stacks[0].nr, 2);
	ck_assert_uint_eq(frame(&r, 0, 0)->flags,
			  PDA_FRAME_KERNEL | PDA_FRAME_GUEST |
				  PDA_FRAME_NO_MAP | PDA_FRAME_NO_SYMBOL);
	ck_assert_uint_eq(frame(&r, 0, 1)->flags, PDA_FRAME_GUEST |
							  PDA_FRAME_NO_MAP |
							  PDA_FRAME_NO_SYMBOL);
	/* the hypervisor has no maps; user space goes on */
	ck_assert_uint_eq(r.stacks[1].nr, 2);
	ck_assert_uint_eq(frame(&r, 1, 0)->flags,
			  PDA_FRAME_NO_MAP | PDA_FRAME_NO_SYMBOL);
	ck_dso(&r, 1, 1, "/nonexistent/u");
	/* a marker perf does not know: perf drops the chain */
	ck_assert_uint_eq(r.stacks[2].nr, 0);
	/* the deferred user part is in another record: kernel part only */
	ck_assert_uint_eq(r.stacks[3].nr, 1);
	ck_assert(frame(&r, 3, 0)->flags & PDA_FRAME_KERNEL);
	ck_dso(&r, 4, 0, "/nonexistent/u");
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

START_TEST(t_ksymbol)
{
	struct tf t;
	struct pt_run r;
	const uint64_t cc[] = {PD_CONTEXT_KERNEL, 0xffffffffa0001010ull};
	OPTS(o);

	pt_begin(&t);
	pt_ksymbol(&t, 0xffffffffa0001000ull, 0x100, false,
		   "bpf_prog_6deef7357e7b4530_sys_enter");
	pt_sample(&t, K, 100, 100, cc[1], cc, 2);
	pt_ksymbol(&t, 0xffffffffa0001000ull, 0x100, true,
		   "bpf_prog_6deef7357e7b4530_sys_enter");
	pt_sample(&t, K, 100, 100, cc[1], cc, 2);
	pt_run(&t, &o, &r);

	ck_sym(&r, 0, 0, "bpf_prog_6deef7357e7b4530_sys_enter");
	ck_dso(&r, 0, 0, "bpf_prog_6deef7357e7b4530_sys_enter");
	ck_assert_uint_eq(frame(&r, 0, 0)->flags, PDA_FRAME_KERNEL);
	ck_assert_uint_eq(frame(&r, 0, 0)->sym_off, 0x10);
	ck_assert_uint_eq(frame(&r, 1, 0)->flags, PDA_FRAME_KERNEL |
							  PDA_FRAME_NO_MAP |
							  PDA_FRAME_NO_SYMBOL);
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

/* The sample's ip alone, in the maps of its cpumode, else (as perf's
 * thread__find_map_fb) in the other's. */
START_TEST(t_no_callchain)
{
	struct tf t;
	struct pt_run r;
	OPTS(o);

	pt_begin_nocallchain(&t);
	pt_mmap(&t, U, 100, 100, 0x400000, 0x1000, 0, "/nonexistent/u");
	pt_sample(&t, U, 100, 100, 0x400010, NULL, 0);
	pt_sample(&t, K, 100, 100, 0x400020, NULL, 0);
	pt_sample(&t, U, 100, 100, 0x900000, NULL, 0);
	pt_run(&t, &o, &r);

	ck_assert_uint_eq(r.stacks[0].nr, 1);
	ck_dso(&r, 0, 0, "/nonexistent/u");
	ck_assert_uint_eq(frame(&r, 0, 0)->ip, 0x400010);
	ck_dso(&r, 1, 0, "/nonexistent/u");
	ck_assert_uint_eq(frame(&r, 1, 0)->flags, PDA_FRAME_NO_SYMBOL);
	ck_assert_uint_eq(frame(&r, 2, 0)->flags,
			  PDA_FRAME_NO_MAP | PDA_FRAME_NO_SYMBOL);
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

/* Real symbols from testdata/bin/demo, mapped as perf records it, over
 * time: before its MMAP2 the address is no one's. */
START_TEST(t_symbols_over_time)
{
	const char *bin = pt_abs("../../testdata/bin/demo");
	char path[4096];
	uint64_t hb, hb_size, walk, walk_size, base = 0x555555554000ull;
	uint64_t start, ip_hb, ip_walk;
	struct pt_elf e;
	struct tf t;
	struct pt_run r;
	const struct pda_stats *st;
	OPTS(o, .no_inline = true);

	et_path(path, "%s", bin);
	ck_assert(pt_elf_info(path, &e));
	ck_assert(et_elf_sym(path, "hash_block", &hb, &hb_size));
	ck_assert(et_elf_sym(path, "walk", &walk, &walk_size));
	start = base + (e.vaddr & ~0xfffull);
	ip_hb = start + (hb - (e.vaddr & ~0xfffull)) + 3;
	ip_walk = start + (walk - (e.vaddr & ~0xfffull)) + 1;
	{
		const uint64_t cc[] = {PD_CONTEXT_USER, ip_hb, ip_walk};

		pt_begin(&t);
		pt_comm(&t, 100, 100, "demo", true);
		pt_sample(&t, U, 100, 100, ip_hb, cc, 3);
		pt_mmap2(&t, U, 100, 100, start, e.filesz, e.off & ~0xfffull,
			 PROT_RX, MAP_PRIVATE_, path, e.build_id,
			 e.build_id_size);
		pt_sample(&t, U, 100, 100, ip_hb, cc, 3);
		pt_sample(&t, U, 100, 100, ip_hb, cc, 3);
	}
	pt_run(&t, &o, &r);

	ck_assert_uint_eq(r.stacks[0].nr, 2);
	ck_assert(frame(&r, 0, 0)->flags & PDA_FRAME_NO_MAP);
	for (size_t i = 1; i < 3; i++) {
		ck_assert_uint_eq(r.stacks[i].nr, 2);
		ck_sym(&r, i, 0, "hash_block");
		ck_dso(&r, i, 0, path);
		ck_assert_uint_eq(frame(&r, i, 0)->sym_off, 3);
		ck_assert_uint_eq(frame(&r, i, 0)->dso_addr, hb + 3);
		ck_assert_uint_eq(frame(&r, i, 0)->flags, 0);
		ck_sym(&r, i, 1, "walk");
		ck_assert_uint_eq(frame(&r, i, 1)->sym_off, 1);
	}
	/* interned: the same string is the same pointer */
	ck_assert_ptr_eq(frame(&r, 1, 0)->sym, frame(&r, 2, 0)->sym);
	ck_assert_ptr_eq(frame(&r, 1, 0)->dso, frame(&r, 2, 1)->dso);
	st = pda_session_stats(r.s);
	ck_assert_uint_eq(st->nr_samples, 3);
	ck_assert_uint_eq(st->nr_frames, 6);
	ck_assert_uint_eq(st->nr_frames_unresolved, 2);
	ck_assert_uint_eq(st->nr_samples_unresolved, 1);
	ck_assert_uint_eq(st->nr_missing, 0);
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

/* Missing DSOs: a sample counts once per DSO however many frames. */
START_TEST(t_stats_missing)
{
	struct tf t;
	struct pt_run r;
	const struct pda_stats *st;
	const uint64_t cc[] = {PD_CONTEXT_USER, 0x400010, 0x400020, 0x500010};
	OPTS(o);

	pt_begin(&t);
	pt_mmap(&t, U, 100, 100, 0x400000, 0x1000, 0, "/nonexistent/a");
	pt_mmap(&t, U, 100, 100, 0x500000, 0x1000, 0, "/nonexistent/b");
	pt_sample(&t, U, 100, 100, cc[1], cc, 4);
	pt_sample(&t, U, 100, 100, cc[1], cc, 3);
	pt_run(&t, &o, &r);

	st = pda_session_stats(r.s);
	ck_assert_uint_eq(st->nr_samples, 2);
	ck_assert_uint_eq(st->nr_frames, 5);
	ck_assert_uint_eq(st->nr_frames_unresolved, 5);
	ck_assert_uint_eq(st->nr_samples_unresolved, 2);
	ck_assert_uint_eq(st->nr_missing, 2);
	/* most samples first */
	ck_assert_str_eq(st->missing[0].dso, "/nonexistent/a");
	ck_assert_uint_eq(st->missing[0].nr_samples, 2);
	ck_assert_str_eq(st->missing[0].why, "not found");
	ck_assert(pt_tried(&st->missing[0], "/nonexistent/a", NULL));
	ck_assert_str_eq(st->missing[1].dso, "/nonexistent/b");
	ck_assert_uint_eq(st->missing[1].nr_samples, 1);
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

/* ---- allocation failures (T9) --------------------------------------- */

/* One pass over t with the fail_at-th allocation failing: every error
 * is PD_ERR_NOMEM, and everything is freed (ASan's leak check). */
static void run_failing(struct tf *t, struct pda_opts *o,
			struct failalloc *fa)
{
	struct pd_alloc hooks = failalloc_hooks(fa);
	struct pda_stack st = PDA_STACK_INIT;
	struct pda_session *s = NULL;
	struct pd_reader *rd;
	struct pd_file *f = tf_open(t);
	struct pd_rec rec;
	int rc;

	o->alloc = &hooks;
	rc = pda_session_new(f, o, &s);
	if (rc == 0) {
		ck_assert_int_eq(pd_reader_new(f, 0, &rd), 0);
		while (pd_reader_next(rd, &rec) > 0) {
			struct pd_sample smp;

			rc = pda_session_feed(s, &rec);
			if (rc == 0 && rec.type == PD_REC_SAMPLE) {
				ck_assert_int_eq(
					pd_sample_decode(f, &rec, &smp), 0);
				rc = pda_sample_stack(s, &smp, &st);
			}
			if (rc < 0)
				break;
		}
		pd_reader_free(rd);
		if (rc == 0)
			ck_assert_ptr_nonnull(pda_session_stats(s));
		pda_stack_release(s, &st);
		pda_session_free(s);
	}
	pd_file_close(f);
	ck_assert_msg(rc == 0 || rc == PD_ERR_NOMEM,
		      "allocation %lu failed: error %d", fa->fail_at, rc);
	ck_assert_msg(rc == 0 || fa->nr_failed, "error %d without a failure", rc);
}

START_TEST(t_alloc_failures)
{
	const char *bin = pt_abs("../../testdata/bin/demo");
	char path[4096], jit[4096];
	uint64_t hb, hb_size, start = 0x555555554000ull;
	struct pt_elf e;
	struct tf t;
	unsigned long n;
	OPTS(o, .kallsyms = path, .jit_dir = tmp);

	et_path(path, "%s/kallsyms", tmp);
	pt_write(path, kallsyms);
	et_path(jit, "%s/perf-100.map", tmp);
	pt_write(jit, "7f0000000000 40 jit_one\n");
	et_path(path, "%s", bin);
	ck_assert(pt_elf_info(path, &e));
	ck_assert(et_elf_sym(path, "hash_block", &hb, &hb_size));
	et_path(path, "%s/kallsyms", tmp);
	kernel_capture(&t, 0xffffffff81000000ull);
	pt_comm(&t, 100, 100, "app", false);
	pt_fork(&t, 0, 200, 100, 200, 100);
	pt_mmap2(&t, U, 100, 100, start, e.filesz, e.off & ~0xfffull, PROT_RX,
		 MAP_PRIVATE_, bin, e.build_id, e.build_id_size);
	pt_mmap2(&t, U, 100, 100, 0x7f0000000000, 0x1000, 0, PROT_RWX,
		 MAP_PRIVATE_, "//anon", NULL, 0);
	{
		const uint64_t cc[] = {PD_CONTEXT_KERNEL, 0xffffffff81000250,
				       PD_CONTEXT_USER, 0x7f0000000010,
				       start + hb - (e.vaddr & ~0xfffull)};

		pt_sample(&t, K, 100, 100, cc[1], cc, 5);
		pt_sample(&t, K, 200, 200, cc[1], cc, 5);
	}
	for (n = 1; n < 100000; n++) {
		struct failalloc fa = {.fail_at = n};

		run_failing(&t, &o, &fa);
		if (!fa.nr_failed)
			break; /* every allocation has had its turn */
	}
	ck_assert_uint_gt(n, 10);
	tf_release(&t);
}
END_TEST

/* ---- shard views (pda_view_new): their own errors and counts ---- */

/* A shard thread of t_view_errmsg: says its error in its turn (first or
 * second), then reads the message its thread sees. */
struct err_shard {
	struct pda_session *s;
	struct pda_view *v;
	pthread_barrier_t *turn;
	const char *say;
	bool first;
	char seen[256];
};

static void *err_shard_main(void *arg)
{
	struct err_shard *e = arg;

	pda_view_enter(e->s, e->v);
	if (e->first)
		pda_set_err(e->s, PD_ERR_NOMEM, "%s", e->say);
	pthread_barrier_wait(e->turn);
	if (!e->first)
		pda_set_err(e->s, PD_ERR_FORMAT, "%s", e->say);
	pthread_barrier_wait(e->turn);
	snprintf(e->seen, sizeof(e->seen), "%s", pda_session_errmsg(e->s));
	return NULL;
}

/*
 * Two shards failing at once each keep their own message (the capture
 * says the first failing one's in file order): the later failure does
 * not overwrite the earlier one's, nor the session thread's.
 */
START_TEST(t_view_errmsg)
{
	pthread_barrier_t turn;
	struct err_shard e[2];
	pthread_t th[2];
	struct pda_session *s;
	struct pd_file *f;
	struct tf t;
	OPTS(o);

	pt_begin(&t);
	pt_comm(&t, 100, 100, "app", false);
	f = tf_open(&t);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pthread_barrier_init(&turn, NULL, 2), 0);
	pda_set_err(s, PD_ERR_IO, "the session's");
	ck_assert_int_eq(pda_session_shards(s, true), 0);
	for (unsigned i = 0; i < 2; i++) {
		e[i] = (struct err_shard){.s = s, .v = pda_view_new(s),
					  .turn = &turn,
					  .say = i ? "shard 2's" : "shard 1's",
					  .first = i == 0};
		ck_assert_ptr_nonnull(e[i].v);
		pda_view_rank(e[i].v, i + 1);
		ck_assert_int_eq(
			pthread_create(&th[i], NULL, err_shard_main, &e[i]), 0);
	}
	for (unsigned i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	ck_assert_str_eq(e[0].seen, "shard 1's");
	ck_assert_str_eq(e[1].seen, "shard 2's");
	ck_assert_str_eq(pda_view_errmsg(s, e[0].v), "shard 1's");
	ck_assert_str_eq(pda_session_errmsg(s), "the session's");
	ck_assert_int_eq(pda_session_shards(s, false), 0);
	for (unsigned i = 0; i < 2; i++)
		pda_view_free(s, e[i].v);
	pthread_barrier_destroy(&turn);
	pda_session_free(s);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/*
 * A failure's message (pda_session_failure): a bare PD_ERR_NOMEM (or any
 * other code) after a warning's message (a binary that is no ELF file)
 * says what the code says, not the stale warning; a message set with the
 * failure is kept.
 */
START_TEST(t_failure_not_stale)
{
	struct pda_session *s;
	struct pd_file *f;
	struct tf t;
	OPTS(o);

	pt_begin(&t);
	pt_comm(&t, 100, 100, "app", false);
	f = tf_open(&t);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_str_eq(pda_session_failure(s, PD_ERR_NOMEM),
			 "out of memory");
	pda_set_err(s, PD_ERR_FORMAT, "/x/a.so: not an ELF file");
	ck_assert_str_eq(pda_session_failure(s, PD_ERR_NOMEM),
			 "out of memory");
	ck_assert_str_eq(pda_session_failure(s, PD_ERR_FORMAT),
			 "/x/a.so: not an ELF file");
	ck_assert_str_eq(pda_session_failure(s, PD_ERR_IO),
			 pd_strerror(PD_ERR_IO));
	pda_set_err(s, PD_ERR_NOMEM, "out of memory for the maps' history");
	ck_assert_str_eq(pda_session_failure(s, PD_ERR_NOMEM),
			 "out of memory for the maps' history");
	pda_session_free(s);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/*
 * A shard view meeting a binary made after it grows its counts (by
 * binary): out of memory there, the sample's resolution and a memo's
 * replay fail with PD_ERR_NOMEM, said, not count nothing silently.
 */
START_TEST(t_view_count_nomem)
{
	struct failalloc fa;
	const struct pd_alloc al = failalloc_hooks(&fa);
	struct pda_stack st = PDA_STACK_INIT;
	struct pda_memo_counts mc = {.nr_dsos = 1};
	struct pda_memo_rec rec;
	struct pda_dso_ent *d;
	struct pda_view *v = NULL;
	struct pda_session *s;
	struct pd_sample smp;
	struct pd_reader *rd;
	struct pd_file *f;
	struct pd_rec r;
	struct tf t;
	OPTS(o, .alloc = &al);

	failalloc_init(&fa, 0, false);
	pt_begin(&t);
	pt_comm(&t, 100, 100, "app", false);
	pt_mmap(&t, U, 100, 100, 0x500000, 0x1000, 0, "/nonexistent/a.so");
	usample(&t, 100, 100, 0x500010);
	/* made after the view: past its counts' room */
	pt_mmap(&t, U, 100, 100, 0x600000, 0x1000, 0, "/nonexistent/b.so");
	pt_mmap(&t, U, 100, 100, 0x700000, 0x1000, 0, "/nonexistent/c.so");
	pt_mmap(&t, U, 100, 100, 0x800000, 0x1000, 0, "/nonexistent/d.so");
	usample(&t, 100, 100, 0x800010);
	f = tf_open(&t);
	ck_assert_int_eq(pda_session_new(f, &o, &s), 0);
	ck_assert_int_eq(pd_reader_new(f, 0, &rd), 0);
	/* the view made at the first sample; the last one kept */
	while (pd_reader_next(rd, &r) > 0) {
		ck_assert_int_eq(pda_session_feed(s, &r), 0);
		if (r.type == PD_REC_SAMPLE && !v)
			ck_assert_ptr_nonnull(v = pda_view_new(s));
		else if (r.type == PD_REC_SAMPLE)
			break;
	}
	ck_assert_int_eq(pd_sample_decode(f, &r, &smp), 0);
	/* resolved once by the session: cached, d.so's entry in rec */
	ck_assert_int_eq(pda_sample_stack_rec(s, &s->view, &smp, &st, NULL,
					      &rec),
			 0);
	ck_assert_uint_eq(rec.nr_dsos, 1);
	d = rec.dsos[0];
	ck_assert_uint_ge(d->idx, v->nr_dc);

	/* every allocation fails from now on */
	fa.fail_at = fa.nr_calls + 1;
	fa.persistent = true;
	pda_set_err(s, 0, "%s", "");
	ck_assert_int_eq(pda_sample_stack_rec(s, v, &smp, &st, NULL, &rec),
			 PD_ERR_NOMEM);
	ck_assert_str_eq(pda_session_errmsg(s), "out of memory");
	v->nomem = false;
	pda_set_err(s, 0, "%s", "");
	ck_assert_int_eq(pda_memo_replay_n(v, &mc, &d, 1), PD_ERR_NOMEM);
	ck_assert_str_eq(pda_session_errmsg(s), "out of memory");

	/* memory again: counted */
	fa.fail_at = 0;
	v->nomem = false;
	ck_assert_int_eq(pda_memo_replay_n(v, &mc, &d, 1), 0);
	ck_assert_uint_lt(d->idx, v->nr_dc);
	ck_assert_uint_eq(v->dc[d->idx].nr_samples, 1);
	pda_view_free(s, v);
	pda_stack_release(s, &st);
	pd_reader_free(rd);
	pda_session_free(s);
	pd_file_close(f);
	tf_release(&t);
	ck_assert_int_eq(fa.live, 0);
}
END_TEST

Suite *machine_suite(void)
{
	Suite *s = suite_create("machine");
	TCase *tc = tcase_create("machine");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_mmap_over_time);
	tcase_add_test(tc, t_threads_share_maps);
	tcase_add_test(tc, t_fork_copies_maps);
	tcase_add_test(tc, t_exec_and_exit);
	tcase_add_test(tc, t_anon_jit_vdso);
	tcase_add_test(tc, t_jit_map_missing);
	tcase_add_test(tc, t_kernel_kallsyms);
	tcase_add_test(tc, t_parse_hex);
	tcase_add_test(tc, t_kernel_kaslr);
	tcase_add_test(tc, t_kernel_unresolved);
	tcase_add_test(tc, t_markers);
	tcase_add_test(tc, t_ksymbol);
	tcase_add_test(tc, t_no_callchain);
	tcase_add_test(tc, t_symbols_over_time);
	tcase_add_test(tc, t_stats_missing);
	tcase_add_test(tc, t_alloc_failures);
	tcase_add_test(tc, t_view_errmsg);
	tcase_add_test(tc, t_view_count_nomem);
	tcase_add_test(tc, t_failure_not_stale);
	suite_add_tcase(s, tc);
	return s;
}
