/*
 * check_annotate.c - the annotation model (analyze/annotate/pda_annotate*.c) on
 * testdata/loop-aarch64.perf.data, whose samples are known by
 * construction (testdata/loop-aarch64.samples): the counts per function
 * and instruction, the disassembly's targets, back-edges and inline
 * chains, source lines and files through --prefix-map and --source-dir,
 * misuse, and every allocation failing in turn (T9).
 */
#include "pda_annotate.h"
#include "pdatest.h"
#include "pda_annotate.h"

#include "failalloc.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPTURE "../../testdata/loop-aarch64.perf.data"
#define BUILDID "../../testdata/buildid"

struct run {
	struct pd_file *f;
	struct pda_session *s;
	struct pda_annot *a;
};

/* Open the capture, count every sample times over (as_n: by one
 * pda_annot_add_n()).  0 or the first error. */
static int run_n(struct run *r, const struct pd_alloc *alloc,
		 const struct pda_annot_opts *ao, uint64_t times, bool as_n)
{
	char bid[4096];
	PDA_OPTS(po, .buildid_dir = bid, .no_inline = true,
		 .no_debuginfod = true, .alloc = alloc);
	struct pd_reader *rd;
	struct pd_sample sample;
	struct pd_rec rec;
	int rc;

	memset(r, 0, sizeof(*r));
	/* pt_abs's buffer is reused by the next call */
	snprintf(bid, sizeof(bid), "%s", pt_abs(BUILDID));
	ck_assert_int_eq(pd_file_open(pt_abs(CAPTURE), NULL, &r->f), 0);
	rc = pda_session_new(r->f, &po, &r->s);
	if (rc == 0)
		rc = pda_annot_new(r->s, ao, &r->a);
	if (rc < 0)
		return rc;
	ck_assert_int_eq(pd_reader_new(r->f, PD_READ_ORDERED, &rd), 0);
	while ((rc = pd_reader_next(rd, &rec)) > 0) {
		rc = pda_session_feed(r->s, &rec);
		if (rc < 0 || rec.type != PD_REC_SAMPLE)
			continue;
		ck_assert_int_eq(pd_sample_decode(r->f, &rec, &sample), 0);
		if (as_n)
			rc = pda_annot_add_n(r->a, &sample, sample.evsel->idx,
					     times);
		for (uint64_t i = 0; !as_n && i < times && rc >= 0; i++)
			rc = pda_annot_add(r->a, &sample, sample.evsel->idx);
		if (rc < 0)
			break;
	}
	pd_reader_free(rd);
	if (rc == 0)
		rc = pda_annot_finish(r->a);
	return rc;
}

/* Open the capture, count every sample.  0 or the first error. */
static int run(struct run *r, const struct pd_alloc *alloc,
	       const struct pda_annot_opts *ao)
{
	return run_n(r, alloc, ao, 1, false);
}

static void run_free(struct run *r)
{
	pda_annot_free(r->a);
	pda_session_free(r->s);
	pd_file_close(r->f);
}

static const struct pda_annot_insn *insn_at(const struct pda_annot_func *fn,
					    uint64_t addr)
{
	for (size_t i = 0; i < fn->nr_insns; i++)
		if (fn->insns[i].addr == addr)
			return &fn->insns[i];
	return NULL;
}

START_TEST(test_model)
{
	PDA_ANNOT_OPTS(ao, .nr_events = 1);
	const struct pda_annot_insn *in;
	const struct pda_annot_sym *sym;
	struct pda_annot_func *fn;
	struct run r;

	ck_assert_int_eq(run(&r, NULL, &ao), 0);
	ck_assert_uint_eq(pda_annot_nr_syms(r.a), 3);
	ck_assert_uint_eq(pda_annot_totals(r.a)[0].hits, 88);
	ck_assert_uint_eq(pda_annot_nr_unresolved(r.a), 0);
	sym = pda_annot_sym(r.a, 0);
	ck_assert_str_eq(sym->name, "checksum");
	ck_assert_str_eq(sym->dso, "/opt/pdtool/loop-aarch64");
	ck_assert_uint_eq(sym->start, 0x854);
	ck_assert_uint_eq(sym->counts[0].hits, 73);
	ck_assert_uint_eq(sym->counts[0].period, 73000000);
	ck_assert_str_eq(pda_annot_sym(r.a, 1)->name, "fill");
	ck_assert_str_eq(pda_annot_sym(r.a, 2)->name, "main");
	ck_assert_ptr_null(pda_annot_sym(r.a, 3));

	ck_assert_int_eq(pda_annot_func_new(r.a, 0, &fn), 0);
	ck_assert_ptr_null(fn->error);
	ck_assert_str_eq(fn->arch, "aarch64");
	ck_assert_uint_eq(fn->size, 0x54);
	ck_assert_uint_eq(fn->nr_insns, 0x54 / 4);
	/* checksum+0x2c=30: the mul of the inlined mix() */
	in = insn_at(fn, 0x880);
	ck_assert_ptr_nonnull(in);
	ck_assert_str_eq(in->mnemonic, "mul");
	ck_assert_uint_eq(in->counts[0].hits, 30);
	ck_assert_uint_eq(in->inline_depth, 1);
	ck_assert_str_eq(in->inline_func, "mix");
	ck_assert_uint_eq(in->call_line, 25);
	ck_assert_uint_eq(in->line, 15);
	ck_assert_ptr_nonnull(strstr(in->srcfile, "/src/loop.c"));
	/* the loop: b.ne back to the ldr, a loop head */
	in = insn_at(fn, 0x88c);
	ck_assert_str_eq(in->mnemonic, "b.ne");
	ck_assert(in->flags & PDA_INSN_JUMP);
	ck_assert(in->flags & PDA_INSN_BACK_EDGE);
	ck_assert_uint_eq(in->target, 0x878);
	ck_assert_str_eq(in->target_name, "checksum+0x24");
	ck_assert(insn_at(fn, 0x878)->flags & PDA_INSN_LOOP_HEAD);
	ck_assert(insn_at(fn, 0x878)->flags & PDA_INSN_INLINE_START);
	ck_assert(insn_at(fn, 0x87c)->flags & PDA_INSN_INLINE_START);
	ck_assert(insn_at(fn, 0x890)->flags & PDA_INSN_RET);
	/* a forward branch is no back-edge */
	in = insn_at(fn, 0x854);
	ck_assert_str_eq(in->mnemonic, "cbz");
	ck_assert(!(in->flags & PDA_INSN_BACK_EDGE));
	ck_assert_str_eq(in->target_name, "checksum+0x40");
	/* the hottest line: loop.c:15 (h *= ...), the mul alone */
	ck_assert_uint_gt(fn->nr_lines, 3);
	ck_assert_uint_eq(fn->lines[0].line, 15);
	ck_assert_uint_eq(fn->lines[0].counts[0].hits, 30);
	pda_annot_func_free(r.a, fn);

	/* main has a call: its target named by the symbol it lands in */
	ck_assert_int_eq(pda_annot_func_new(r.a, 2, &fn), 0);
	for (size_t i = 0; i < fn->nr_insns; i++)
		if (fn->insns[i].flags & PDA_INSN_CALL &&
		    fn->insns[i].target_name &&
		    !strcmp(fn->insns[i].target_name, "fill"))
			goto found;
	ck_abort_msg("no call to fill in main");
found:
	pda_annot_func_free(r.a, fn);
	run_free(&r);
}
END_TEST

/* pda_annot_add_n(): n samples alike count as n added one by one, in
 * the annotation and the session's statistics. */
START_TEST(test_add_n)
{
	PDA_ANNOT_OPTS(ao, .nr_events = 1);
	struct run r[2];

	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(run_n(&r[i], NULL, &ao, 3, i == 1), 0);
	ck_assert_uint_eq(pda_annot_totals(r[0].a)[0].hits, 3 * 88);
	ck_assert_uint_eq(pda_annot_totals(r[1].a)[0].hits, 3 * 88);
	ck_assert_uint_eq(pda_annot_totals(r[1].a)[0].period,
			  pda_annot_totals(r[0].a)[0].period);
	ck_assert_uint_eq(pda_annot_nr_syms(r[1].a), pda_annot_nr_syms(r[0].a));
	for (size_t i = 0; i < pda_annot_nr_syms(r[0].a); i++) {
		const struct pda_annot_sym *x = pda_annot_sym(r[0].a, i);
		const struct pda_annot_sym *y = pda_annot_sym(r[1].a, i);

		ck_assert_str_eq(x->name, y->name);
		ck_assert_uint_eq(x->counts[0].hits, y->counts[0].hits);
		ck_assert_uint_eq(x->counts[0].period, y->counts[0].period);
	}
	ck_assert_mem_eq(pda_session_stats(r[0].s), pda_session_stats(r[1].s),
			 sizeof(*pda_session_stats(r[0].s)));
	run_free(&r[0]);
	run_free(&r[1]);
}
END_TEST

START_TEST(test_misuse)
{
	PDA_ANNOT_OPTS(ao, .nr_events = 1);
	PDA_ANNOT_OPTS(none, .nr_events = 0);
	struct pda_annot_func *fn;
	struct pda_annot *a;
	struct pd_sample sample = {0};
	struct run r;

	ck_assert_int_eq(run(&r, NULL, &ao), 0);
	ck_assert_int_eq(pda_annot_new(r.s, &none, &a), PD_ERR_API);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(pda_annot_func_new(r.a, 3, &fn), PD_ERR_API);
	ck_assert_ptr_null(fn);
	/* after finish nothing more is counted */
	ck_assert_int_eq(pda_annot_add(r.a, &sample, 0), PD_ERR_API);
	run_free(&r);

	ck_assert_int_eq(pd_file_open(pt_abs(CAPTURE), NULL, &r.f), 0);
	ck_assert_int_eq(pda_session_new(r.f, NULL, &r.s), 0);
	ck_assert_int_eq(pda_annot_new(r.s, &ao, &r.a), 0);
	ck_assert_int_eq(pda_annot_add(r.a, &sample, 1), PD_ERR_API);
	ck_assert_int_eq(pda_annot_func_new(r.a, 0, &fn), PD_ERR_API);
	pda_annot_free(NULL);
	pda_annot_func_free(r.a, NULL);
	run_free(&r);
}
END_TEST

START_TEST(test_sources)
{
	static const char *const maps[] = {"/nowhere=/nothing",
					   "/pdtool/testdata=../../testdata"};
	static const char *const dirs[] = {"/nonexistent", "../../testdata/src"};
	PDA_ANNOT_OPTS(mapped, .nr_events = 1, .prefix_maps = maps,
		       .nr_prefix_maps = 2);
	PDA_ANNOT_OPTS(bydir, .nr_events = 1, .source_dirs = dirs,
		       .nr_source_dirs = 2);
	PDA_ANNOT_OPTS(plain, .nr_events = 1, .no_source = true,
		       .source_dirs = dirs, .nr_source_dirs = 2);
	PDA_ANNOT_OPTS(host, .nr_events = 1,
		       .host_sources = PDA_HOST_SRC_ALWAYS);
	PDA_ANNOT_OPTS(bad, .nr_events = 1,
		       .host_sources = (enum pda_annot_host_src)3);
	struct pda_annot *a;
	const char *file = "/pdtool/testdata/src/loop.c", *text;
	size_t len;
	struct run r;

	ck_assert_int_eq(run(&r, NULL, &mapped), 0);
	text = pda_annot_source(r.a, file, 15, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(memcmp(text, "\th *= 0x100000001b3ull;", len), 0);
	ck_assert_uint_eq(len, strlen("\th *= 0x100000001b3ull;"));
	ck_assert_str_eq(pda_annot_source_path(r.a, file),
			 "../../testdata/src/loop.c");
	ck_assert_ptr_null(pda_annot_source(r.a, file, 100000, &len));
	ck_assert_ptr_null(pda_annot_source(r.a, "/nowhere/x.c", 1, &len));
	ck_assert_ptr_null(pda_annot_source(r.a, NULL, 1, &len));
	run_free(&r);

	ck_assert_int_eq(run(&r, NULL, &bydir), 0);
	ck_assert_str_eq(pda_annot_source_path(r.a, file),
			 "../../testdata/src/loop.c");
	/* the capture names host synth-aarch64: its paths are withheld,
	 * counted once per file, and a file found elsewhere is not */
	ck_assert(!pda_annot_host_sources(r.a));
	ck_assert_uint_eq(pda_annot_nr_withheld(r.a), 0);
	ck_assert_ptr_null(pda_annot_source(r.a, "/elsewhere/x.c", 1, &len));
	ck_assert_ptr_null(pda_annot_source(r.a, "/elsewhere/x.c", 2, &len));
	ck_assert_uint_eq(pda_annot_nr_withheld(r.a), 1);
	run_free(&r);

	ck_assert_int_eq(run(&r, NULL, &host), 0);
	ck_assert(pda_annot_host_sources(r.a));
	ck_assert_ptr_null(pda_annot_source(r.a, "/elsewhere/x.c", 1, &len));
	ck_assert_uint_eq(pda_annot_nr_withheld(r.a), 0);
	ck_assert_int_eq(pda_annot_new(r.s, &bad, &a), PD_ERR_API);
	ck_assert_ptr_null(a);
	run_free(&r);

	ck_assert_int_eq(run(&r, NULL, &plain), 0);
	ck_assert_ptr_null(pda_annot_source(r.a, file, 15, &len));
	run_free(&r);
}
END_TEST

/* Fail each allocation in turn: a clean PD_ERR_NOMEM and nothing leaked. */
/*
 * A function too big to disassemble (a hostile or damaged symbol table
 * can claim any size) is skipped with a reason; the others are still
 * annotated.  Built here: big is 5 MiB of NOPs, over the 4 MiB limit
 * (64 MiB took 2.35 GB and aborted the whole run).
 */
START_TEST(test_too_big)
{
	char *dir = et_tmpdir(), src[ET_PATH_MAX], bin[ET_PATH_MAX];
	char cmd[3 * ET_PATH_MAX];
	uint64_t big, big_size, small, small_size, base;
	struct pt_elf elf;
	struct tf t;
	struct pd_file *f;
	struct pda_session *s;
	struct pda_annot *a;
	struct pd_reader *rd;
	struct pd_rec rec;
	size_t nr_big = 0, nr_small = 0;
	FILE *fp;
	int rc;
	PDA_OPTS(po, .no_debuginfod = true, .buildid_dir = dir);
	PDA_ANNOT_OPTS(ao, .nr_events = 1, .no_source = true);

	et_path(src, "%s/big.c", dir);
	et_path(bin, "%s/big", dir);
	fp = fopen(src, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("__attribute__((naked)) void big(void)\n"
	      "{ __asm__(\".fill 5242880, 1, 0x90\\n\\tret\"); }\n"
	      "int small(int x) { return x * 3 + 1; }\n"
	      "int main(void) { return small(2); }\n",
	      fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "gcc -O1 -o '%s' '%s'", bin, src);
	if (system(cmd) != 0 || !pt_elf_info(bin, &elf) ||
	    !et_elf_sym(bin, "big", &big, &big_size) ||
	    !et_elf_sym(bin, "small", &small, &small_size)) {
		et_rmtree(dir);
		free(dir);
		ck_abort_msg("cannot build the test binary with gcc");
	}
	ck_assert_uint_gt(big_size, 4u << 20);
	/* mapped as the loader maps it: the exec segment at 0x555500000000 */
	base = 0x555500000000ull;
	pt_begin_nocallchain(&t);
	pt_comm(&t, 7, 7, "big", true);
	pt_mmap(&t, PD_MISC_USER, 7, 7, base + elf.vaddr, elf.filesz, elf.off,
		bin);
	pt_sample(&t, PD_MISC_USER, 7, 7, base + big + 64, NULL, 0);
	pt_sample(&t, PD_MISC_USER, 7, 7, base + small, NULL, 0);
	f = tf_open(&t);
	ck_assert_int_eq(pda_session_new(f, &po, &s), 0);
	ck_assert_int_eq(pda_annot_new(s, &ao, &a), 0);
	ck_assert_int_eq(pd_reader_new(f, PD_READ_ORDERED, &rd), 0);
	while ((rc = pd_reader_next(rd, &rec)) > 0) {
		struct pd_sample smp;

		ck_assert_int_eq(pda_session_feed(s, &rec), 0);
		if (rec.type != PD_REC_SAMPLE)
			continue;
		ck_assert_int_eq(pd_sample_decode(f, &rec, &smp), 0);
		ck_assert_int_eq(pda_annot_add(a, &smp, 0), 1);
	}
	ck_assert_int_eq(rc, 0);
	pd_reader_free(rd);
	ck_assert_int_eq(pda_annot_finish(a), 0);
	ck_assert_uint_eq(pda_annot_nr_syms(a), 2);
	for (size_t i = 0; i < 2; i++) {
		struct pda_annot_func *fn;

		ck_assert_int_eq(pda_annot_func_new(a, i, &fn), 0);
		if (strcmp(fn->sym->name, "big") == 0) {
			nr_big++;
			ck_assert_ptr_nonnull(fn->error);
			ck_assert_msg(strstr(fn->error, "too big"), "%s",
				      fn->error);
			ck_assert_uint_eq(fn->nr_insns, 0);
		} else {
			nr_small++;
			ck_assert_str_eq(fn->sym->name, "small");
			ck_assert_ptr_null(fn->error);
			ck_assert_uint_gt(fn->nr_insns, 0);
		}
		pda_annot_func_free(a, fn);
	}
	ck_assert_uint_eq(nr_big, 1);
	ck_assert_uint_eq(nr_small, 1);
	pda_annot_free(a);
	pda_session_free(s);
	pd_file_close(f);
	tf_release(&t);
	et_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_alloc_failures)
{
	static const char *const maps[] = {"/pdtool/testdata=../../testdata"};
	bool completed = false;

	for (long n = 0; !completed && n < 200000; n++) {
		struct failalloc fl = {.fail_at = (unsigned long)n + 1};
		const struct pd_alloc hooks = failalloc_hooks(&fl);
		PDA_ANNOT_OPTS(ao, .nr_events = 1, .prefix_maps = maps,
			       .nr_prefix_maps = 1);
		struct run r;
		int rc = run(&r, &hooks, &ao);

		for (size_t i = 0; rc == 0 && i < pda_annot_nr_syms(r.a); i++) {
			struct pda_annot_func *fn;
			size_t len;

			rc = pda_annot_func_new(r.a, i, &fn);
			if (rc == 0 && fn->nr_insns)
				pda_annot_source(r.a, fn->insns[0].srcfile,
						 fn->insns[0].line, &len);
			pda_annot_func_free(r.a, fn);
		}
		if (rc == 0)
			completed = true;
		else
			ck_assert_int_eq(rc, PD_ERR_NOMEM);
		run_free(&r);
		ck_assert_int_eq(fl.live, 0);
	}
	ck_assert(completed);
}
END_TEST

Suite *annotate_suite(void)
{
	Suite *s = suite_create("annotate");
	TCase *tc = tcase_create("annotate");

	tcase_add_test(tc, test_model);
	tcase_add_test(tc, test_add_n);
	tcase_add_test(tc, test_misuse);
	tcase_add_test(tc, test_sources);
	tcase_add_test(tc, test_too_big);
	tcase_add_test(tc, test_alloc_failures);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}
