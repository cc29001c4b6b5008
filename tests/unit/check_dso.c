/*
 * check_dso.c - where libpda finds a capture's binaries, through the
 * public API: --symfs containment (".." and symlinks), the perf build-id
 * cache layouts, build-id checks (a mismatched file is not used, is
 * logged once and is listed with the reason), kernel symbols from a
 * kallsyms copy, the build-id cache or this host, and perf-PID.map
 * files.  The ELF is testdata/bin/demo (a PIE with a build-id); what to
 * expect of it is read with libelf by pdatest.c.
 */
#include "pdademo.h"
#include "testcorpus.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static bool resolved(const struct pt_run *r, size_t i)
{
	const struct pda_frame *f;

	ck_assert_uint_lt(i, r->nr);
	ck_assert_uint_eq(r->stacks[i].nr, 1);
	f = &r->stacks[i].frames[0];
	if (!f->sym)
		return false;
	ck_assert_str_eq(f->sym, "hash_block");
	ck_assert_uint_eq(f->sym_off, 1);
	return true;
}

START_TEST(t_symfs)
{
	char root[PMAX], p[PMAX], outside[PMAX], shown[PMAX];
	const struct pda_missing_dso *m;
	struct tf t;
	struct pt_run r;
	OPTS(o, .symfs = root);

	et_path(root, "%s/root", tmp);
	et_path(p, "%s/usr/bin/demo", root);
	pt_copy(demo, p);
	/* a copy outside the root that nothing may reach */
	et_path(outside, "%s/outside/demo", tmp);
	pt_copy(demo, outside);
	/* an absolute link is the recording host's: inside the root */
	et_path(p, "%s/lib/abs", root);
	pt_symlink("/usr/bin/demo", p);
	/* a relative link climbing out stops at the root */
	et_path(p, "%s/lib/rel", root);
	et_path(shown, "../../../../../../../../../..%s", outside);
	pt_symlink(shown, p);
	/* an absolute link to a file outside: inside the root, not there */
	et_path(p, "%s/lib/out", root);
	pt_symlink(outside, p);

	pt_begin(&t);
	map_demo(&t, 100, 0x10000000, "/usr/bin/demo", NULL);
	map_demo(&t, 100, 0x20000000, "/usr/../../../usr/bin/./demo", NULL);
	map_demo(&t, 100, 0x30000000, "/lib/abs", NULL);
	map_demo(&t, 100, 0x40000000, "/lib/rel", NULL);
	/* on the host, not in the root: no build-id to vouch for it */
	map_demo(&t, 100, 0x50000000, outside, NULL);
	map_demo(&t, 100, 0x60000000, "/lib/out", NULL);
	map_demo(&t, 100, 0x70000000, "/../../../../../../..//etc/../lib/out",
		 NULL);
	pt_run(&t, &o, &r);

	ck_assert(resolved(&r, 0));
	ck_assert_str_eq(r.stacks[0].frames[0].dso, "/usr/bin/demo");
	ck_assert(resolved(&r, 1));
	ck_assert(resolved(&r, 2));
	ck_assert(!resolved(&r, 3));
	ck_assert(!resolved(&r, 4));
	ck_assert(!resolved(&r, 5));
	ck_assert(!resolved(&r, 6));
	/* refused, and said so: followed as they stand, they lead out */
	m = pt_missing(&r, "/lib/rel");
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m->why, "outside --symfs");
	ck_assert(pt_tried(m, root, "(outside --symfs)"));
	m = pt_missing(&r, "/lib/out");
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m->why, "outside --symfs");
	m = pt_missing(&r, outside);
	ck_assert_ptr_nonnull(m);
	/* looked for inside the root only */
	ck_assert(pt_tried(m, root, NULL));
	ck_assert(!pt_tried(m, outside, NULL));
	pt_run_free(&r);
	tf_release(&t);

	/*
	 * Even with the capture's build-id to check it, the host's file is
	 * not read (issue 11): --symfs is all there is, unless host_files.
	 */
	for (int run = 0; run < 2; run++) {
		o.host_files = run == 1;
		pt_begin(&t);
		map_demo(&t, 100, 0x50000000, outside, elf.build_id);
		pt_run(&t, &o, &r);
		ck_assert_msg(resolved(&r, 0) == o.host_files, "run %d", run);
		if (!o.host_files) {
			m = pt_missing(&r, outside);
			ck_assert_ptr_nonnull(m);
			ck_assert(pt_tried(m, outside, "(on this host"));
		}
		pt_run_free(&r);
		tf_release(&t);
	}
}
END_TEST

/* Set or unset (value NULL) environment variable name. */
static void set_env(const char *name, const char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

/*
 * With --symfs, this host's build-id cache ($PERF_BUILDID_DIR, else
 * $HOME/.debug) and perf-PID.map files in /tmp are not read: an explicit
 * buildid_dir is, and the maps are looked for in DIR/tmp (issue 11).
 * host_files reads the host's, PERF_BUILDID_DIR instead of ~/.debug
 * when set, as perf does.
 */
START_TEST(t_symfs_host)
{
	char root[PMAX], home[PMAX], cache[PMAX], id[41], p[PMAX];
	char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char *saved_dir = getenv("PERF_BUILDID_DIR")
				  ? strdup(getenv("PERF_BUILDID_DIR"))
				  : NULL;
	const uint64_t jit_ip = 0x1010;
	const uint64_t cc[] = {PD_CONTEXT_USER, jit_ip};
	struct tf t;
	struct pt_run r;
	PDA_OPTS(o, .no_debuginfod = true, .no_inline = true, .symfs = root);

	for (unsigned i = 0; i < elf.build_id_size; i++)
		snprintf(id + 2 * i, 3, "%02x", elf.build_id[i]);
	et_path(root, "%s/root", tmp);
	et_path(p, "%s/root/tmp/perf-77.map", tmp);
	pt_write(p, "1000 20 jitted_in_root\n");
	et_path(home, "%s/home", tmp);
	et_path(p, "%s/.debug/.build-id/%.2s/%s/elf", home, id, id + 2);
	pt_copy(demo, p);
	et_path(cache, "%s/.debug", home);
	for (int run = 0; run < 5; run++) {
		/* 0: symfs alone, 1: host_files, 2: an explicit cache;
		 * 3, 4: the cache in PERF_BUILDID_DIR (no ~/.debug), alone
		 * and with host_files */
		set_env("HOME", run < 3 ? home : "/nonexistent");
		set_env("PERF_BUILDID_DIR", run < 3 ? NULL : cache);
		o.host_files = run == 1 || run == 4;
		o.buildid_dir = run == 2 ? cache : NULL;
		pt_begin(&t);
		map_demo(&t, 100, 0x10000000, "/nonexistent/x/demo",
			 elf.build_id);
		pt_mmap2(&t, U, 77, 77, 0x1000, 0x4000, 0, PROT_RWX,
			 MAP_PRIVATE_, "//anon", NULL, 0);
		pt_sample(&t, U, 77, 77, jit_ip, cc, 2);
		pt_run(&t, &o, &r);
		ck_assert_msg(resolved(&r, 0) == (run != 0 && run != 3),
			      "run %d", run);
		ck_assert_ptr_nonnull(r.stacks[1].frames[0].sym);
		ck_assert_str_eq(r.stacks[1].frames[0].sym, "jitted_in_root");
		pt_run_free(&r);
		tf_release(&t);
	}
	set_env("HOME", saved);
	set_env("PERF_BUILDID_DIR", saved_dir);
	free(saved);
	free(saved_dir);
}
END_TEST

/* perf's build-id cache: .build-id/xx/rest a directory (elf, debug), or
 * the file itself (older perf), and the PATH/BUILDID/elf layout. */
START_TEST(t_buildid_cache)
{
	static const char *const layouts[] = {
		".build-id/xx/rest/elf", ".build-id/xx/rest",
		"PATH/BUILDID/elf", ".build-id/xx/rest/debug"};
	char id[41], p[PMAX], cache[PMAX];

	for (unsigned i = 0; i < elf.build_id_size; i++)
		snprintf(id + 2 * i, 3, "%02x", elf.build_id[i]);
	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
		struct tf t;
		struct pt_run r;
		OPTS(o);

		et_path(cache, "%s/cache%zu", tmp, l);
		o.buildid_dir = cache;
		switch (l) {
		case 0:
			et_path(p, "%s/.build-id/%.2s/%s/elf", cache, id,
				id + 2);
			break;
		case 1:
			et_path(p, "%s/.build-id/%.2s/%s", cache, id, id + 2);
			break;
		case 2:
			et_path(p, "%s/nonexistent/x/demo/%s/elf", cache, id);
			break;
		default:
			et_path(p, "%s/.build-id/%.2s/%s/debug", cache, id,
				id + 2);
			break;
		}
		pt_copy(demo, p);
		pt_begin(&t);
		if (l == 1) {
			/* the build-id from a HEADER_BUILD_ID record */
			pt_build_id(&t, U, -1, elf.build_id, elf.build_id_size,
				    "/nonexistent/x/demo");
			map_demo(&t, 100, 0x10000000, "/nonexistent/x/demo",
				 NULL);
		} else {
			map_demo(&t, 100, 0x10000000, "/nonexistent/x/demo",
				 elf.build_id);
		}
		pt_run(&t, &o, &r);
		ck_assert_msg(resolved(&r, 0), "layout %s", layouts[l]);
		ck_assert_str_eq(r.stacks[0].frames[0].dso,
				 "/nonexistent/x/demo");
		pt_run_free(&r);
		tf_release(&t);
	}
}
END_TEST

START_TEST(t_buildid_mismatch)
{
	unsigned char wrong[20], wrong2[20];
	const struct pda_missing_dso *m;
	char deleted[PMAX];
	struct tf t;
	struct pt_run r;
	OPTS(o);

	memcpy(wrong, elf.build_id, sizeof(wrong));
	wrong[0] ^= 0xff;
	memcpy(wrong2, elf.build_id, sizeof(wrong2));
	wrong2[1] ^= 0xff;
	et_path(deleted, "%s (deleted)", demo);
	pt_begin(&t);
	map_demo(&t, 100, 0x10000000, demo, wrong);
	map_demo(&t, 200, 0x10000000, demo, wrong);
	map_demo(&t, 300, 0x10000000, demo, wrong2);
	map_demo(&t, 400, 0x10000000, demo, elf.build_id);
	/* the kernel's name for a file deleted since: looked up without */
	map_demo(&t, 500, 0x10000000, deleted, NULL);
	pt_run(&t, &o, &r);

	ck_assert(!resolved(&r, 0));
	ck_assert(!resolved(&r, 1));
	ck_assert(!resolved(&r, 2));
	ck_assert(resolved(&r, 3));
	ck_assert(resolved(&r, 4));
	ck_assert_str_eq(r.stacks[4].frames[0].dso, deleted);
	/* once per file, however many DSOs and samples */
	ck_assert_uint_eq(r.nr_warn, 1);
	ck_assert_msg(strstr(r.last_warn, "build-id mismatch") &&
			      strstr(r.last_warn, demo),
		      "warning: %s", r.last_warn);
	m = pt_missing(&r, demo);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m->why, "build-id mismatch");
	ck_assert(pt_tried(m, demo, "(build-id mismatch)"));
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

/* ---- kernel ---------------------------------------------------------- */

static void kernel_sample(struct tf *t, const unsigned char *id, unsigned size)
{
	pt_kernel_sample(t, id, size, NULL);
}

START_TEST(t_kallsyms_cache)
{
	static const unsigned char kid[20] = {0x4b, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	char p[PMAX], id[41];
	struct tf t;
	struct pt_run r;
	OPTS(o);

	for (unsigned i = 0; i < 20; i++)
		snprintf(id + 2 * i, 3, "%02x", kid[i]);
	for (int l = 0; l < 2; l++) {
		if (l == 0)
			et_path(p, "%s/[kernel.kallsyms]/%s/kallsyms", tmp, id);
		else
			et_path(p, "%s/.build-id/%.2s/%s/kallsyms", tmp, id,
				id + 2);
		pt_write(p, "ffffffff81000000 T _text\n"
			    "ffffffff81000200 T cached_fn\n"
			    "ffffffff81000300 T next_fn\n");
		kernel_sample(&t, kid, 20);
		pt_run(&t, &o, &r);
		ck_assert_ptr_nonnull(r.stacks[0].frames[0].sym);
		ck_assert_str_eq(r.stacks[0].frames[0].sym, "cached_fn");
		ck_assert_str_eq(r.stacks[0].frames[0].dso,
				 "[kernel.kallsyms]");
		pt_run_free(&r);
		tf_release(&t);
		unlink(p);
	}
	/* without the build-id the cache cannot be used */
	kernel_sample(&t, NULL, 0);
	pt_run(&t, &o, &r);
	ck_assert_ptr_null(r.stacks[0].frames[0].sym);
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

/*
 * --vmlinux: symbols from an ELF, placed through the reloc symbol the
 * kernel map names ("[kernel.kallsyms]_start" here: demo stands in for a
 * vmlinux), its build-id checked against the capture's.
 */
START_TEST(t_vmlinux)
{
	uint64_t start_sym, size, kbase = 0xffffffff81000000ull;
	unsigned char wrong[20];
	struct tf t;
	struct pt_run r;
	OPTS(o, .vmlinux = demo);

	ck_assert(et_elf_sym(demo, "_start", &start_sym, &size));
	memcpy(wrong, elf.build_id, sizeof(wrong));
	wrong[3] ^= 1;
	for (int run = 0; run < 2; run++) {
		const uint64_t cc[] = {PD_CONTEXT_KERNEL,
				       kbase + dm.hash_block + 1};

		pt_begin(&t);
		pt_build_id(&t, K, -1, run ? wrong : elf.build_id,
			    elf.build_id_size, "[kernel.kallsyms]");
		/* _start recorded at kbase + its link address */
		pt_mmap(&t, K, (uint32_t)-1, 0, kbase, 0x100000,
			kbase + start_sym, "[kernel.kallsyms]_start");
		pt_sample(&t, K, 100, 100, cc[1], cc, 2);
		pt_run(&t, &o, &r);
		if (run == 0) {
			ck_assert_ptr_nonnull(r.stacks[0].frames[0].sym);
			ck_assert_str_eq(r.stacks[0].frames[0].sym,
					 "hash_block");
			ck_assert_uint_eq(r.stacks[0].frames[0].sym_off, 1);
			ck_assert_str_eq(r.stacks[0].frames[0].dso,
					 "[kernel.kallsyms]");
		} else {
			const struct pda_missing_dso *m =
				pt_missing(&r, "[kernel.kallsyms]");

			ck_assert_ptr_null(r.stacks[0].frames[0].sym);
			ck_assert_ptr_nonnull(m);
			ck_assert(pt_tried(m, demo, "(build-id mismatch)"));
		}
		pt_run_free(&r);
		tf_release(&t);
	}
}
END_TEST

/* What a progress callback saw (t_debuginfod). */
struct fetch_seen {
	unsigned nr_calls, nr_finished;
	char dso[256];
};

static void on_fetch(void *arg, const struct pda_fetch_progress *p)
{
	struct fetch_seen *seen = arg;

	seen->nr_calls++;
	seen->nr_finished += p->finished;
	snprintf(seen->dso, sizeof(seen->dso), "%s", p->dso);
}

/*
 * debuginfod through libdebuginfod, with a file:// server (libcurl reads
 * it as a directory of buildid/ID/executable): only when DEBUGINFOD_URLS
 * is set, never with no_debuginfod, with symfs only when asked
 * (opts.debuginfod: issue 11, finding 3), at most debuginfod_max_queries
 * queries; the stats say what was asked and fetched where, and the
 * progress callback sees each query end.
 */
START_TEST(t_debuginfod)
{
	char id[41], p[PMAX], url[PMAX], cache[PMAX], root[PMAX];
	const struct pda_fetch_stats *st;
	struct fetch_seen seen;
	struct tf t;
	struct pt_run r;
	OPTS(o, .fetch_progress = on_fetch, .fetch_arg = &seen);

	for (unsigned i = 0; i < elf.build_id_size; i++)
		snprintf(id + 2 * i, 3, "%02x", elf.build_id[i]);
	et_path(p, "%s/server/buildid/%s/executable", tmp, id);
	pt_copy(demo, p);
	et_path(url, "file://%s/server", tmp);
	et_path(cache, "%s/dcache", tmp);
	et_path(root, "%s/root", tmp);
	et_path(p, "%s/usr", root);
	pt_write(p, "");
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	unsetenv("DEBUGINFOD_PROGRESS");
	for (int run = 0; run < 6; run++) {
		/* 0: no URLs, 1: asked, 2: no_debuginfod, 3: symfs, 4:
		 * symfs and debuginfod, 5: one query at most */
		if (run == 0)
			unsetenv("DEBUGINFOD_URLS");
		else
			setenv("DEBUGINFOD_URLS", url, 1);
		o.no_debuginfod = run == 2;
		o.symfs = run == 3 || run == 4 ? root : NULL;
		o.debuginfod = run == 4;
		o.debuginfod_max_queries = run == 5 ? 1 : 0;
		memset(&seen, 0, sizeof(seen));
		pt_begin(&t);
		/* a binary no query gives, then demo's */
		map_demo(&t, 100, 0x10000000, "/nonexistent/dbg/other",
			 (const unsigned char *)"0123456789abcdefghij");
		map_demo(&t, 100, 0x20000000, "/nonexistent/dbg/demo",
			 elf.build_id);
		pt_run(&t, &o, &r);
		ck_assert_msg(resolved(&r, 1) == (run == 1 || run == 4),
			      "run %d", run);
		st = &pda_session_stats(r.s)->debuginfod;
		switch (run) {
		case 0:
		case 2:
		case 3:
			ck_assert_uint_eq(st->nr_queries, 0);
			ck_assert_ptr_null(st->urls);
			ck_assert_uint_eq(seen.nr_calls, 0);
			break;
		case 5:
			/* the other binary's executable, then none: its
			 * debuginfo, demo's executable and debuginfo */
			ck_assert_uint_eq(st->nr_queries, 1);
			ck_assert_uint_eq(st->nr_skipped, 3);
			ck_assert(st->query_limit);
			ck_assert_uint_eq(st->nr_found, 0);
			break;
		default:
			/* other: executable and debuginfo; demo: executable */
			ck_assert_uint_eq(st->nr_queries, 3);
			ck_assert_uint_eq(st->nr_found, 1);
			ck_assert_uint_eq(st->nr_failed, 2);
			ck_assert_uint_eq(st->nr_skipped, 0);
			ck_assert_str_eq(st->urls, url);
			ck_assert_ptr_nonnull(st->cache);
			ck_assert_str_eq(st->cache, cache);
			ck_assert_uint_eq(st->nr_fetched, 1);
			ck_assert_str_eq(st->fetched[0].dso,
					 "/nonexistent/dbg/demo");
			ck_assert_str_eq(st->fetched[0].what, "executable");
			ck_assert_uint_gt(st->fetched[0].size, 0);
			ck_assert_uint_eq(seen.nr_finished, 3);
			ck_assert_str_eq(seen.dso, "/nonexistent/dbg/demo");
			break;
		}
		pt_run_free(&r);
		tf_release(&t);
	}
}
END_TEST

/* This host's notes, read here without libpda. */
static unsigned host_build_id(unsigned char *id)
{
	unsigned char buf[4096];
	size_t len, off = 0;
	FILE *fp = fopen("/sys/kernel/notes", "rb");

	if (!fp)
		return 0;
	len = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	while (off + 12 <= len) {
		uint32_t nsz, dsz, type;

		memcpy(&nsz, buf + off, 4);
		memcpy(&dsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		if (type == 3 && nsz == 4 && dsz <= 20 &&
		    off + 16 + dsz <= len &&
		    !memcmp(buf + off + 12, "GNU", 4)) {
			memcpy(id, buf + off + 16, dsz);
			return dsz;
		}
		off += 12 + ((nsz + 3) & ~3u) + ((dsz + 3) & ~3u);
	}
	return 0;
}

START_TEST(t_host_kallsyms)
{
	unsigned char id[20] = {0}, other[20];
	unsigned size = host_build_id(id);
	const struct pda_missing_dso *m;
	struct tf t;
	struct pt_run r;
	OPTS(o, .use_host_kernel = true);

	/* another kernel's capture: /proc/kallsyms is not used */
	memcpy(other, id, sizeof(other));
	other[0] ^= 0x5a;
	kernel_sample(&t, other, 20);
	pt_run(&t, &o, &r);
	ck_assert_ptr_null(r.stacks[0].frames[0].sym);
	m = pt_missing(&r, "[kernel.kallsyms]");
	ck_assert_ptr_nonnull(m);
	ck_assert(pt_tried(m, "/proc/kallsyms", "another kernel"));
	pt_run_free(&r);
	tf_release(&t);

	/* not asked: not used, even for this kernel */
	o.use_host_kernel = false;
	kernel_sample(&t, id, size ? size : 20);
	pt_run(&t, &o, &r);
	ck_assert_ptr_null(r.stacks[0].frames[0].sym);
	pt_run_free(&r);
	tf_release(&t);
	if (!size)
		printf("check_dso: no /sys/kernel/notes build-id: this host's "
		       "kallsyms not tried\n");
}
END_TEST

/* Whether this process reads /proc/kallsyms with its addresses. */
static bool kallsyms_visible(void)
{
	char line[256];
	unsigned long long addr = 0;
	FILE *fp = fopen("/proc/kallsyms", "r");

	if (fp && fgets(line, sizeof(line), fp))
		addr = strtoull(line, NULL, 16);
	if (fp)
		fclose(fp);
	return addr != 0;
}

/*
 * A capture claiming this kernel's build-id but recorded on another host
 * (its HOSTNAME) does not get this host's /proc/kallsyms (issue 11,
 * finding 13: a capture could place samples to learn, from the names a
 * run as root gives them, where this kernel's symbols are), nor does one
 * that names no host; host_kernel_any_host allows it, and a capture of
 * this host gets it as before.
 */
START_TEST(t_host_kallsyms_other_host)
{
	unsigned char id[20] = {0};
	unsigned size = host_build_id(id);
	const struct pda_missing_dso *m;
	struct utsname u;
	struct tf t;
	struct pt_run r;
	OPTS(o, .use_host_kernel = true);

	ck_assert_int_eq(uname(&u), 0);
	if (!size || !kallsyms_visible()) {
		printf("check_dso: this host's kernel build-id or kallsyms "
		       "addresses are hidden: other-host check skipped\n");
		return;
	}
	for (int run = 0; run < 4; run++) {
		/* 0: another host, 1: no host, 2: allowed, 3: this host */
		o.host_kernel_any_host = run == 2;
		pt_kernel_sample(&t, id, size,
				 run == 1   ? NULL
				 : run == 3 ? u.nodename
					    : "not-this-host");
		pt_run(&t, &o, &r);
		ck_assert_msg((r.stacks[0].frames[0].sym != NULL) == (run >= 2),
			      "run %d", run);
		if (run < 2) {
			m = pt_missing(&r, "[kernel.kallsyms]");
			ck_assert_ptr_nonnull(m);
			ck_assert(pt_tried(m, "/proc/kallsyms", "another host"));
		}
		pt_run_free(&r);
		tf_release(&t);
	}
}
END_TEST

/* ---- .gnu_debugaltlink ------------------------------------------------ */

#define ALT_ID "a17f11e5000102030405060708090a0b0c0d0e0f"

/*
 * data/libalt.so, built by data/altlink.sh with a .gnu_debugaltlink
 * naming name (and build-id id, NULL: alt.debug's) into dir, mapped at
 * 0x7f0000000000 + its text offset (its path as recorded: dir without
 * o->symfs), and one sample where alt_named_fn, named from the alt file,
 * is inlined into alt_fn; run with inlined frames on callchains.  *inner:
 * the inlined frame's name, or NULL.
 */
static void run_alt(const char *dir, const char *name, const char *id,
		    struct pda_opts *o, const char **inner)
{
	const size_t root_len = o->symfs ? strlen(o->symfs) : 0;
	char cmd[3 * PMAX], lib[PMAX];
	struct pt_elf e;
	struct tf t;
	struct pt_run r;
	uint64_t start, ip, fn, size;

	et_path(cmd, "sh data/altlink.sh '%s' '%s' %s", dir, name,
		id ? id : "");
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	et_path(lib, "%s/libalt.so", dir);
	ck_assert(pt_elf_info(lib, &e));
	ck_assert(et_elf_sym(lib, "alt_fn", &fn, &size));
	start = 0x7f0000000000ull + e.off;
	ip = start + (fn - e.vaddr) + 0x10;
	{
		const uint64_t cc[] = {PD_CONTEXT_USER, ip};

		pt_begin(&t);
		pt_mmap2(&t, U, 100, 100, start, 0x1000, e.off, PROT_RX,
			 MAP_PRIVATE_, lib + root_len, e.build_id,
			 e.build_id_size);
		pt_sample(&t, U, 100, 100, ip, cc, 2);
	}
	o->inline_callchain = true;
	o->no_inline = false;
	pt_run(&t, o, &r);
	ck_assert_uint_eq(r.nr, 1);
	ck_assert_uint_eq(r.stacks[0].nr, 2);
	{
		/* the session's strings go with it: a copy outlives it */
		static char copy[256];
		const char *sym = r.stacks[0].frames[0].sym;

		snprintf(copy, sizeof(copy), "%s", sym ? sym : "");
		*inner = sym ? copy : NULL;
	}
	ck_assert_ptr_nonnull(r.stacks[0].frames[1].sym);
	ck_assert_str_eq(r.stacks[0].frames[1].sym, "alt_fn");
	pt_run_free(&r);
	tf_release(&t);
}

/* Whether an inotify watch saw path opened. */
static bool was_opened(int ifd)
{
	union {
		struct inotify_event ev; /* for its alignment */
		char buf[4096];
	} u;
	ssize_t n = read(ifd, u.buf, sizeof(u.buf));

	for (ssize_t off = 0; n > 0 && off < n;) {
		const struct inotify_event *ev = (const void *)(u.buf + off);

		if (ev->mask & IN_OPEN)
			return true;
		off += (ssize_t)sizeof(*ev) + ev->len;
	}
	return false;
}

/*
 * A hostile .gnu_debugaltlink (issue 11, finding 5): libdw would open the
 * path it names, anywhere (a secret file: read; a FIFO: the open blocks
 * forever).  Not opened now, and the run ends (a hang is the test case's
 * timeout).
 */
START_TEST(t_altlink_hostile)
{
	char dir[PMAX], fifo[PMAX], secret[PMAX], cache[PMAX];
	const char *inner;
	int ifd;
	OPTS(o);

	et_path(cache, "%s/cache", tmp);
	o.buildid_dir = cache;
	et_path(dir, "%s/lib", tmp);
	et_path(fifo, "%s/fifo", tmp);
	et_path(secret, "%s/secret", tmp);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	pt_write(secret, "root:$6$secret:19000:0:99999:7:::\n");
	ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	ck_assert_int_ge(ifd, 0);
	ck_assert_int_ge(inotify_add_watch(ifd, secret, IN_OPEN), 0);
	run_alt(dir, fifo, NULL, &o, &inner);
	ck_assert(!inner || strcmp(inner, "alt_named_fn") != 0);
	run_alt(dir, secret, NULL, &o, &inner);
	ck_assert_msg(!was_opened(ifd), "%s was opened", secret);
	close(ifd);
}
END_TEST

/*
 * The alt file found where pdtool looks for debug files, checked by its
 * build-id: under --symfs (the name as it stands there, a relative one
 * from the linking file's directory, and DIR/usr/lib/debug/.build-id),
 * in the build-id cache; one with another build-id is not used.
 */
START_TEST(t_altlink_found)
{
	char root[PMAX], dir[PMAX], p[PMAX], from[PMAX], cache[PMAX];
	static const char *const names[] = {
		"/usr/lib/debug/.dwz/alt.debug", "dwz/alt.debug",
		"/nonexistent/alt.debug"};
	const char *inner;

	et_path(root, "%s/root", tmp);
	et_path(dir, "%s/lib", root);
	for (size_t i = 0; i < 3; i++) {
		OPTS(o, .symfs = root);

		run_alt(dir, names[i], NULL, &o, &inner);
		/* nothing there yet */
		ck_assert(!inner || strcmp(inner, "alt_named_fn") != 0);
		et_path(from, "%s/alt.debug", dir);
		if (i == 0)
			et_path(p, "%s%s", root, names[i]);
		else if (i == 1)
			et_path(p, "%s/%s", dir, names[i]);
		else
			et_path(p, "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
				root, ALT_ID, ALT_ID + 2);
		pt_copy(from, p);
		run_alt(dir, names[i], NULL, &o, &inner);
		ck_assert_ptr_nonnull(inner);
		ck_assert_str_eq(inner, "alt_named_fn");
		/* a link naming another build-id: that file is not used */
		run_alt(dir, names[i], "a27f11e5000102030405060708090a0b0c0d0e0f",
			&o, &inner);
		ck_assert(!inner || strcmp(inner, "alt_named_fn") != 0);
		unlink(p);
	}
	/* the build-id cache, without --symfs */
	{
		OPTS(o);

		et_path(cache, "%s/cache", tmp);
		o.buildid_dir = cache;
		et_path(dir, "%s/lib2", tmp);
		run_alt(dir, "/nonexistent/alt.debug", NULL, &o, &inner);
		ck_assert(!inner || strcmp(inner, "alt_named_fn") != 0);
		et_path(from, "%s/alt.debug", dir);
		et_path(p, "%s/.build-id/%.2s/%s/debug", cache, ALT_ID,
			ALT_ID + 2);
		pt_copy(from, p);
		run_alt(dir, "/nonexistent/alt.debug", NULL, &o, &inner);
		ck_assert_ptr_nonnull(inner);
		ck_assert_str_eq(inner, "alt_named_fn");
	}
}
END_TEST

/* ---- perf-PID.map ---------------------------------------------------- */

START_TEST(t_perf_map)
{
	char p[PMAX];
	struct tf t;
	struct pt_run r;
	const uint64_t ips[] = {0x1010, 0x1030, 0x1050, 0x2000, 0x3008, 0x4001};
	OPTS(o, .jit_dir = tmp);

	et_path(p, "%s/perf-77.map", tmp);
	pt_write(p, "1000 20 first\r\n"
		    "1000 20 first_again\n" /* recompiled: the last wins */
		    "1020 20 with spaces (and args)\n"
		    "\n"
		    "0x1040 0X20 hex_prefix\n"	     /* the JVM's */
		    "0x 20 no_digits\n"		     /* bad */
		    "1040 0 zero_size\n"	     /* bad */
		    "3000 10\n"			     /* bad: no name */
		    "10000000000000000 10 too_big\n" /* bad */
		    "4000 f fine\n");
	pt_begin(&t);
	pt_mmap2(&t, U, 77, 77, 0x1000, 0x4000, 0, PROT_RWX, MAP_PRIVATE_,
		 "//anon", NULL, 0);
	for (size_t i = 0; i < sizeof(ips) / sizeof(ips[0]); i++) {
		const uint64_t cc[] = {PD_CONTEXT_USER, ips[i]};

		pt_sample(&t, U, 77, 77, ips[i], cc, 2);
	}
	pt_run(&t, &o, &r);
	ck_assert_str_eq(r.stacks[0].frames[0].sym, "first_again");
	ck_assert_str_eq(r.stacks[1].frames[0].sym, "with spaces (and args)");
	ck_assert_str_eq(r.stacks[2].frames[0].sym, "hex_prefix");
	ck_assert_ptr_null(r.stacks[3].frames[0].sym);
	ck_assert_ptr_null(r.stacks[4].frames[0].sym);
	ck_assert_str_eq(r.stacks[5].frames[0].sym, "fine");
	ck_assert_str_eq(r.stacks[5].frames[0].dso, "/tmp/perf-77.map");
	ck_assert_uint_eq(r.nr_warn, 1);
	ck_assert_msg(strstr(r.last_warn, "4 lines skipped"), "warning: %s",
		      r.last_warn);
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

/* A FIFO where a perf-PID.map is looked for (anyone can make one in
 * /tmp, for a PID a capture chose) is refused without blocking (the test
 * case's timeout would end a hang). */
START_TEST(t_perf_map_fifo)
{
	const struct pda_missing_dso *m;
	const uint64_t cc[] = {PD_CONTEXT_USER, 0x1010};
	char p[PMAX];
	struct tf t;
	struct pt_run r;
	OPTS(o, .jit_dir = tmp);

	et_path(p, "%s/perf-78.map", tmp);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	pt_begin(&t);
	pt_mmap2(&t, U, 78, 78, 0x1000, 0x4000, 0, PROT_RWX, MAP_PRIVATE_,
		 "//anon", NULL, 0);
	pt_sample(&t, U, 78, 78, cc[1], cc, 2);
	pt_run(&t, &o, &r);
	ck_assert_ptr_null(r.stacks[0].frames[0].sym);
	m = pt_missing(&r, "/tmp/perf-78.map");
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m->why, "not a regular file");
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

/* ddprof's test map: upper-case hex with leading zeros, a name of 2 KB,
 * and three lines to refuse (bad hex, 17 digits, past 2^64). */
START_TEST(t_perf_map_corpus)
{
	char corpus[CORPUS_PATH_MAX];
	static const char prefix[] = "int32 [System.Private.CoreLib] "
				     "System.SpanHelpers::IndexOfSomeText";
	char p[PMAX];
	struct tf t;
	struct pt_run r;
	const uint64_t ips[] = {0x7FB06149E6A0ull + 0x1af, 0x7FB0614A7BE0ull,
				0x7FB0614AABE0ull, 0x7FB06149E6A0ull + 0x1b0};
	OPTS(o, .jit_dir = tmp);

	corpus_path(corpus, "ddprof/perf-1.map");
	et_path(p, "%s/perf-1.map", tmp);
	pt_copy(corpus, p);
	pt_begin(&t);
	pt_mmap2(&t, U, 1, 1, 0x7FB061400000ull, 0x200000, 0, PROT_RWX,
		 MAP_PRIVATE_, "//anon", NULL, 0);
	for (size_t i = 0; i < sizeof(ips) / sizeof(ips[0]); i++) {
		const uint64_t cc[] = {PD_CONTEXT_USER, ips[i]};

		pt_sample(&t, U, 1, 1, ips[i], cc, 2);
	}
	pt_run(&t, &o, &r);
	ck_assert_ptr_nonnull(r.stacks[0].frames[0].sym);
	ck_assert_msg(
		!strncmp(r.stacks[0].frames[0].sym, prefix, strlen(prefix)) &&
			strstr(r.stacks[0].frames[0].sym,
			       "SomeText(char&,char,int32)"),
		"%s", r.stacks[0].frames[0].sym);
	ck_assert_uint_eq(r.stacks[0].frames[0].sym_off, 0x1af);
	ck_assert_str_eq(r.stacks[1].frames[0].sym,
			 "bool [System.Private.CoreLib] "
			 "System.SpanHelpers::Contains(char&,char,int32)"
			 "[OptimizedTier1]");
	ck_assert_ptr_null(r.stacks[2].frames[0].sym);
	ck_assert_ptr_null(r.stacks[3].frames[0].sym); /* past its size */
	ck_assert_msg(strstr(r.last_warn, "3 lines skipped"), "warning: %s",
		      r.last_warn);
	pt_run_free(&r);
	tf_release(&t);
}
END_TEST

Suite *dso_suite(void)
{
	Suite *s = suite_create("dso");
	TCase *tc = tcase_create("dso");
	TCase *ta, *tk;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_symfs);
	tcase_add_test(tc, t_symfs_host);
	tcase_add_test(tc, t_buildid_cache);
	tcase_add_test(tc, t_buildid_mismatch);
	tcase_add_test(tc, t_kallsyms_cache);
	tcase_add_test(tc, t_vmlinux);
	tcase_add_test(tc, t_debuginfod);
	tcase_add_test(tc, t_host_kallsyms);
	tcase_add_test(tc, t_host_kallsyms_other_host);
	tcase_add_test(tc, t_perf_map);
	tcase_add_test(tc, t_perf_map_fifo);
	suite_add_tcase(s, tc);
	ta = tcase_create("altlink");
	tcase_add_checked_fixture(ta, setup, teardown);
	/* gcc builds each case's files; a FIFO opened would block */
	tcase_set_timeout(ta, 20);
	tcase_add_test(ta, t_altlink_hostile);
	tcase_add_test(ta, t_altlink_found);
	suite_add_tcase(s, ta);
	tk = corpus_tcase(s, "dso");
	tcase_add_checked_fixture(tk, setup, teardown);
	corpus_add(tk, t_perf_map_corpus, 0, 1);
	return s;
}
