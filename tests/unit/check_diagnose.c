/*
 * check_diagnose.c - why frames are [unknown] (issue 13 items 6 to 8),
 * through the public API: each binary with unresolved frames is listed in
 * pda_stats.unresolved_dsos with its count, reason and action (not found,
 * build-id mismatch, stripped with or without a .gnu_debuglink); a file at
 * the recorded path that is not the inode the capture mapped is warned
 * of; a kallsyms that does not hold the capture's kernel is said to be
 * another kernel's.  The ELF is testdata/bin/demo, stripped copies of it
 * made with objcopy.
 */
#include "pdademo.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

static void run(const char *cmd)
{
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
}

/* One line per reason: the count, the reason, its detail, the action. */
START_TEST(t_reasons)
{
	unsigned char wrong[20];
	char stripped[PMAX], linked[PMAX], dbg[PMAX], cmd[4 * PMAX];
	const struct pda_missing_dso *m;
	struct tf t;
	struct pt_run r;
	OPTS(o);

	et_path(stripped, "%s/stripped", tmp);
	et_path(linked, "%s/linked", tmp);
	et_path(dbg, "%s/demo.debug", tmp);
	et_path(cmd, "objcopy --strip-all '%s' '%s'", demo, stripped);
	run(cmd);
	/* a debug link whose file is gone by the time of the analysis */
	et_path(cmd,
		"objcopy --only-keep-debug '%s' '%s' && objcopy --strip-all "
		"--add-gnu-debuglink='%s' '%s' '%s' && rm '%s'",
		demo, dbg, dbg, demo, linked, dbg);
	run(cmd);
	memcpy(wrong, elf.build_id, sizeof(wrong));
	wrong[0] ^= 0xff;

	pt_begin(&t);
	map_demo(&t, 100, 0x10000000, stripped, NULL);
	map_demo(&t, 100, 0x20000000, stripped, NULL);
	map_demo(&t, 200, 0x10000000, linked, NULL);
	map_demo(&t, 300, 0x10000000, "/nonexistent/demo", NULL);
	map_demo(&t, 400, 0x10000000, demo, wrong);
	map_demo(&t, 500, 0x10000000, demo, NULL);
	pt_run(&t, &o, &r);

	m = pt_unresolved(&r, stripped);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->nr_unresolved, 2);
	ck_assert_uint_eq(m->nr_samples, 2);
	ck_assert_int_eq(m->reason, PDA_UNRES_STRIPPED);
	ck_assert_str_eq(pda_unres_reason_name(m->reason), "stripped");
	ck_assert_str_eq(m->detail, "no debug file by build-id");
	/* no hostname in the capture: not this host's, so no package is
	 * named, and the recording host is asked */
	ck_assert_ptr_null(m->package);
	ck_assert_msg(strstr(m->action, "`dpkg -S ") &&
			      strstr(m->action, stripped),
		      "action: %s", m->action);
	/* the most unresolved samples first */
	ck_assert_ptr_eq(m, &pda_session_stats(r.s)->unresolved_dsos[0]);

	m = pt_unresolved(&r, linked);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->reason, PDA_UNRES_STRIPPED);
	ck_assert_str_eq(m->detail, "no debug file by build-id or by "
				    ".gnu_debuglink 'demo.debug'");

	m = pt_unresolved(&r, "/nonexistent/demo");
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->reason, PDA_UNRES_NOT_FOUND);
	ck_assert(pt_tried(m, "/nonexistent/demo", NULL));
	/* no build-id: no cache can find it, and none is offered */
	ck_assert_msg(strstr(m->action, "--symfs") &&
			      !strstr(m->action, "--buildid-dir"),
		      "action: %s", m->action);
	/* the not-found list is the same entry */
	ck_assert_ptr_nonnull(pt_missing(&r, "/nonexistent/demo"));

	m = pt_unresolved(&r, demo);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->reason, PDA_UNRES_BUILD_ID);
	ck_assert_uint_eq(m->nr_unresolved, 1);
	ck_assert_msg(strstr(m->action, "another build"), "action: %s",
		      m->action);
	/* demo itself, without a build-id, resolved: not listed apart */
	ck_assert_uint_eq(pda_session_stats(r.s)->nr_unresolved_dsos, 4);
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

/*
 * Item 7: without a build-id, a file at the recorded path whose inode is
 * not the one the MMAP2 names (same device) is not the file mapped: a
 * warning, on a capture of this host only.
 */
START_TEST(t_changed_file)
{
	char copy[PMAX];
	struct utsname u;
	struct stat st;
	OPTS(o);

	ck_assert_int_eq(uname(&u), 0);
	et_path(copy, "%s/host/demo", tmp);
	pt_copy(demo, copy);
	ck_assert_int_eq(stat(copy, &st), 0);
	for (int c = 0; c < 3; c++) {
		/* 0: another inode; 1: the same; 2: another host's */
		const uint64_t ino = (uint64_t)st.st_ino + (c == 1 ? 0 : 1);
		const uint64_t ip = pt_demo_ip(&dm, 0x10000000);
		const uint64_t cc[] = {PD_CONTEXT_USER, ip};
		struct tf t;
		struct pt_run r;

		pt_begin(&t);
		pt_feature_string(&t, PD_FEAT_HOSTNAME,
				  c == 2 ? "not-this-host" : u.nodename);
		pt_mmap2_ino(&t, U, 100, 100, 0x10000000, elf.filesz,
			     elf.off & ~0xfffull, PROT_RX, MAP_PRIVATE_, copy,
			     major(st.st_dev), minor(st.st_dev), ino);
		pt_sample(&t, U, 100, 100, ip, cc, 2);
		pt_run(&t, &o, &r);
		ck_assert_ptr_nonnull(r.stacks[0].frames[0].sym);
		if (c == 0) {
			ck_assert_uint_eq(r.nr_warn, 1);
			ck_assert_msg(strstr(r.last_warn, "is not the file the "
							  "capture mapped") &&
					      strstr(r.last_warn, "inode"),
				      "warning: %s", r.last_warn);
		} else {
			ck_assert_msg(r.nr_warn == 0, "case %d: %s", c,
				      r.last_warn);
		}
		pt_run_free(&r);
		tf_release(&t);
	}
}
END_TEST

/*
 * Item 8: a --kallsyms whose kernel text misses the capture's kernel map
 * is said to be another kernel's (a warning, and the reason in the
 * unresolved list) instead of leaving the kernel out of every list.
 */
START_TEST(t_kallsyms_other)
{
	char ks[PMAX];
	const struct pda_missing_dso *m;
	struct tf t;
	struct pt_run r;
	OPTS(o, .kallsyms = ks);

	et_path(ks, "%s/kallsyms", tmp);
	for (int c = 0; c < 2; c++) {
		/* 0: another kernel (no _text, text elsewhere); 1: ours */
		pt_write(ks, c == 0 ? "ffffffffa0000000 T other_start\n"
				      "ffffffffa0000200 T other_fn\n"
				      "ffffffffa0000300 T other_end\n"
				    : "ffffffff81000000 T _text\n"
				      "ffffffff81000200 T our_fn\n"
				      "ffffffff81000300 T next_fn\n");
		pt_kernel_sample(&t, NULL, 0, NULL);
		pt_run(&t, &o, &r);
		m = pt_unresolved(&r, "[kernel.kallsyms]");
		if (c == 0) {
			ck_assert_ptr_null(r.stacks[0].frames[0].sym);
			ck_assert_ptr_nonnull(m);
			ck_assert_int_eq(m->reason, PDA_UNRES_KALLSYMS);
			ck_assert_msg(strstr(m->detail, "no _text") &&
					      strstr(m->detail,
						     "0xffffffff81000000"),
				      "detail: %s", m->detail);
			ck_assert_msg(strstr(m->action, "/proc/kallsyms"),
				      "action: %s", m->action);
			ck_assert_uint_eq(r.nr_warn, 1);
			ck_assert_msg(strstr(r.last_warn, ks) &&
					      strstr(r.last_warn,
						     "not the capture's kernel"),
				      "warning: %s", r.last_warn);
		} else {
			ck_assert_str_eq(r.stacks[0].frames[0].sym, "our_fn");
			ck_assert_ptr_null(m);
			ck_assert_uint_eq(r.nr_warn, 0);
		}
		pt_run_free(&r);
		tf_release(&t);
	}
}
END_TEST

Suite *diagnose_suite(void)
{
	Suite *s = suite_create("diagnose");
	TCase *tc = tcase_create("diagnose");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_reasons);
	tcase_add_test(tc, t_changed_file);
	tcase_add_test(tc, t_kallsyms_other);
	suite_add_tcase(s, tc);
	return s;
}
