/*
 * pdatest.c - helpers for the libpda session tests.  See pdatest.h.
 * The records are written by pdarec.c.
 */
#include "pd_config.h" /* mkdtemp, realpath */
#include "pdatest.h"

#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <dirent.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- running ------------------------------------------------------- */

static void log_hook(void *arg, enum pd_log_level level, const char *msg)
{
	struct pt_run *r = arg;

	if (level != PD_LOG_WARN)
		return;
	r->nr_warn++;
	snprintf(r->last_warn, sizeof(r->last_warn), "%s", msg);
}

void pt_run(struct tf *t, const struct pda_opts *o, struct pt_run *r)
{
	struct pda_opts opts = *o;
	struct pda_stack st = PDA_STACK_INIT;
	struct pd_reader *rd;
	struct pd_rec rec;
	char err[256] = "";
	int rc;

	memset(r, 0, sizeof(*r));
	opts.log = log_hook;
	opts.log_arg = r;
	opts.log_level = PD_LOG_WARN;
	opts.errbuf = err;
	opts.errbuf_size = sizeof(err);
	r->f = tf_open(t);
	rc = pda_session_new(r->f, &opts, &r->s);
	ck_assert_msg(rc == 0, "pda_session_new: %d %s", rc, err);
	ck_assert_int_eq(pd_reader_new(r->f, 0, &rd), 0);
	while ((rc = pd_reader_next(rd, &rec)) > 0) {
		struct pd_sample smp;
		struct pt_stack *out;

		ck_assert_msg(pda_session_feed(r->s, &rec) == 0, "feed: %s",
			      pda_session_errmsg(r->s));
		if (rec.type != PD_REC_SAMPLE)
			continue;
		ck_assert_int_eq(pd_sample_decode(r->f, &rec, &smp), 0);
		ck_assert_msg(pda_sample_stack(r->s, &smp, &st) == 0,
			      "pda_sample_stack: %s", pda_session_errmsg(r->s));
		ck_assert_uint_lt(r->nr, PT_MAX_STACKS);
		out = &r->stacks[r->nr++];
		out->pid = smp.pid;
		out->tid = smp.tid;
		out->comm = pda_thread_comm(r->s, smp.pid, smp.tid);
		out->nr = st.nr;
		out->frames = malloc((st.nr ? st.nr : 1) * sizeof(*st.frames));
		ck_assert_ptr_nonnull(out->frames);
		memcpy(out->frames, st.frames, st.nr * sizeof(*st.frames));
	}
	ck_assert_int_eq(rc, 0);
	pda_stack_release(r->s, &st);
	pd_reader_free(rd);
}

void pt_run_free(struct pt_run *r)
{
	for (size_t i = 0; i < r->nr; i++)
		free(r->stacks[i].frames);
	pda_session_free(r->s);
	pd_file_close(r->f);
	memset(r, 0, sizeof(*r));
}

const struct pda_missing_dso *pt_missing(struct pt_run *r, const char *name)
{
	const struct pda_stats *st = pda_session_stats(r->s);

	for (size_t i = 0; i < st->nr_missing; i++)
		if (strcmp(st->missing[i].dso, name) == 0)
			return &st->missing[i];
	return NULL;
}

void pt_demo_load(struct pt_demo *d)
{
	et_path(d->path, "%s", pt_abs("../../testdata/bin/demo"));
	ck_assert(pt_elf_info(d->path, &d->elf));
	ck_assert(et_elf_sym(d->path, "hash_block", &d->hash_block,
			     &d->hash_block_size));
}

uint64_t pt_demo_ip(const struct pt_demo *d, uint64_t start)
{
	return start + (d->hash_block - (d->elf.vaddr & ~0xfffull)) + 1;
}

void pt_map_demo(struct tf *t, const struct pt_demo *d, uint32_t pid,
		 uint64_t start, const char *name, const unsigned char *id)
{
	const uint64_t ip = pt_demo_ip(d, start);
	const uint64_t cc[] = {PD_CONTEXT_USER, ip};

	pt_mmap2(t, PD_MISC_USER, pid, pid, start, d->elf.filesz,
		 d->elf.off & ~0xfffull, 5 /* PROT_READ | PROT_EXEC */,
		 2 /* MAP_PRIVATE */, name, id,
		 id ? d->elf.build_id_size : 0);
	pt_sample(t, PD_MISC_USER, pid, pid, ip, cc, 2);
}

const struct pda_missing_dso *pt_unresolved(struct pt_run *r,
					    const char *name)
{
	const struct pda_stats *st = pda_session_stats(r->s);

	for (size_t i = 0; i < st->nr_unresolved_dsos; i++)
		if (strcmp(st->unresolved_dsos[i].dso, name) == 0)
			return &st->unresolved_dsos[i];
	return NULL;
}

bool pt_tried(const struct pda_missing_dso *m, const char *prefix,
	      const char *infix)
{
	for (const char *const *p = m->tried; *p; p++)
		if (strncmp(*p, prefix, strlen(prefix)) == 0 &&
		    (!infix || strstr(*p, infix)))
			return true;
	return false;
}

/* ---- ELF facts ----------------------------------------------------- */

static Elf *elf_open_path(const char *path, int *fd)
{
	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	return elf_begin(*fd, ELF_C_READ, NULL);
}

bool pt_elf_info(const char *path, struct pt_elf *out)
{
	Elf_Scn *scn = NULL;
	size_t nr_ph = 0;
	bool exec = false;
	int fd;
	Elf *e = elf_open_path(path, &fd);

	memset(out, 0, sizeof(*out));
	if (!e)
		return false;
	elf_getphdrnum(e, &nr_ph);
	for (size_t i = 0; i < nr_ph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X)) {
			out->off = ph.p_offset;
			out->vaddr = ph.p_vaddr;
			out->filesz = ph.p_filesz;
			exec = true;
			break;
		}
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &name_off,
						&desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= 20 &&
			    nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4)) {
				memcpy(out->build_id,
				       (char *)d->d_buf + desc_off,
				       nh.n_descsz);
				out->build_id_size = nh.n_descsz;
			}
		}
	}
	elf_end(e);
	close(fd);
	return exec && out->build_id_size;
}

const char *pt_abs(const char *path)
{
	static char buf[PATH_MAX];

	ck_assert_msg(realpath(path, buf) != NULL, "realpath %s: %s", path,
		      strerror(errno));
	return buf;
}

void pt_open_session(const char *path, const char *buildid_dir,
		     struct pd_file **f, struct pda_session **s)
{
	char bid[PATH_MAX];
	PDA_OPTS(po, .buildid_dir = bid, .no_inline = true,
		 .no_debuginfod = true);

	/* pt_abs's buffer is reused by the next call */
	snprintf(bid, sizeof(bid), "%s", pt_abs(buildid_dir));
	ck_assert_int_eq(pd_file_open(pt_abs(path), NULL, f), 0);
	ck_assert_int_eq(pda_session_new(*f, &po, s), 0);
}

/* ---- files --------------------------------------------------------- */

static void mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
}

void pt_copy(const char *from, const char *path)
{
	char buf[65536];
	int in, out;
	ssize_t n;

	mkdirs(path);
	in = open(from, O_RDONLY);
	ck_assert_msg(in >= 0, "open %s: %s", from, strerror(errno));
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ck_assert_msg(out >= 0, "create %s: %s", path, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

void pt_write(const char *path, const char *text)
{
	FILE *fp;

	mkdirs(path);
	fp = fopen(path, "w");
	ck_assert_msg(fp != NULL, "create %s: %s", path, strerror(errno));
	fputs(text, fp);
	fclose(fp);
}

void pt_symlink(const char *target, const char *path)
{
	mkdirs(path);
	ck_assert_msg(symlink(target, path) == 0, "symlink %s: %s", path,
		      strerror(errno));
}

void pt_kernel_sample(struct tf *t, const unsigned char *id, unsigned size,
		      const char *host)
{
	const uint64_t cc[] = {PD_CONTEXT_KERNEL, 0xffffffff81000210ull};

	pt_begin(t);
	if (host)
		pt_feature_string(t, PD_FEAT_HOSTNAME, host);
	if (id)
		pt_build_id(t, PD_MISC_KERNEL, -1, id, size,
			    "[kernel.kallsyms]");
	pt_mmap(t, PD_MISC_KERNEL, (uint32_t)-1, 0, 0xffffffff81000000ull,
		0x100000, 0xffffffff81000000ull, "[kernel.kallsyms]_text");
	pt_sample(t, PD_MISC_KERNEL, 100, 100, cc[1], cc, 2);
}

/* testdata/vdso/ARCH/BUILDID, the vdso images of the kernels the
 * captures were recorded on, into the cache dir as perf keeps a vdso
 * (.build-id/xx/rest/vdso): found there whatever this host's kernel. */
static void cache_vdsos(const char *dir)
{
	DIR *top = opendir("../../testdata/vdso");
	struct dirent *a, *f;

	ck_assert_ptr_nonnull(top);
	while ((a = readdir(top))) {
		char sub[ET_PATH_MAX], img[ET_PATH_MAX], link[ET_PATH_MAX];
		DIR *d;

		if (a->d_name[0] == '.')
			continue;
		et_path(sub, "../../testdata/vdso/%s", a->d_name);
		d = opendir(sub);
		ck_assert_ptr_nonnull(d);
		while ((f = readdir(d))) {
			if (strlen(f->d_name) < 3 || f->d_name[0] == '.')
				continue;
			et_path(img, "%s/%s", sub, f->d_name);
			et_path(img, "%s", pt_abs(img));
			et_path(link, "%s/.build-id/%.2s/%s/vdso", dir,
				f->d_name, f->d_name + 2);
			pt_symlink(img, link);
		}
		closedir(d);
	}
	closedir(top);
}

void pt_cache_testdata(const char *dir)
{
	static const char *const bins[] = {"demo", "inline"};

	for (size_t i = 0; i < 2; i++) {
		char bin[ET_PATH_MAX], link[ET_PATH_MAX], hex[65];
		unsigned char id[32];
		unsigned size;

		et_path(link, "../../testdata/bin/%s", bins[i]);
		et_path(bin, "%s", pt_abs(link));
		ck_assert(et_elf_build_id(bin, id, &size));
		for (unsigned j = 0; j < size; j++)
			snprintf(hex + 2 * j, 3, "%02x", id[j]);
		et_path(link, "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
		pt_symlink(bin, link);
	}
	cache_vdsos(dir);
}

const char *pt_recorded_root(const char *dir)
{
	/* tests/golden/perf/lib.sh's PD_RECORDED_TOP, and of its
	 * PD_RECORDED_HOST what the unit tests' captures sample in */
	static const char top[] = "/work/main";
	static const char *const host[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30",
		"/usr/lib/x86_64-linux-gnu/libm.so.6",
		"/usr/lib/x86_64-linux-gnu/libgcc_s.so.1",
		"/usr/lib/x86_64-linux-gnu/libtinfo.so.6.4",
		"/usr/bin/bash",
		"/usr/bin/env",
		"/usr/bin/readlink",
	};
	static const char *const bins[] = {"demo", "inline"};
	char from[ET_PATH_MAX], to[ET_PATH_MAX];

	et_path(from, "%s/testdata/bin/demo", top);
	if (access(from, F_OK) == 0)
		return NULL;
	for (size_t i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		et_path(from, "../../testdata/bin/%s", bins[i]);
		et_path(to, "%s%s/testdata/bin/%s", dir, top, bins[i]);
		pt_copy(from, to);
	}
	for (size_t i = 0; i < sizeof(host) / sizeof(host[0]); i++) {
		unsigned char id[32];
		char hex[65];
		unsigned size;

		if (access(host[i], R_OK) != 0)
			continue;
		et_path(to, "%s%s", dir, host[i]);
		pt_copy(host[i], to);
		/* and its debug file (libc6-dbg's), which the root's
		 * /usr/lib/debug stands for */
		if (!et_elf_build_id(host[i], id, &size) || !size)
			continue;
		for (unsigned j = 0; j < size && j < 32; j++)
			snprintf(hex + 2 * j, 3, "%02x", id[j]);
		et_path(from, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
			hex + 2);
		if (access(from, R_OK) != 0)
			continue;
		et_path(to, "%s%s", dir, from);
		pt_copy(from, to);
	}
	return dir;
}
