/*
 * pdatest.c - helpers for the libpda session tests.  See pdatest.h.
 * Record layouts: include/uapi/linux/perf_event.h (MMAP, MMAP2, COMM,
 * FORK, EXIT, KSYMBOL, SAMPLE) and tools/lib/perf/include/perf/event.h
 * (HEADER_BUILD_ID).
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

/* ---- records ------------------------------------------------------- */

static void begin(struct tf *t, uint64_t sample_type)
{
	struct tf_attr a = {.type = 1 /* PERF_TYPE_SOFTWARE */,
			    .sample_period = 1000,
			    .sample_type = sample_type,
			    .flags = 1ull << PD_ATTR_mmap |
				     1ull << PD_ATTR_comm |
				     1ull << PD_ATTR_task};

	tf_init(t, false);
	tf_add_attr(t, &a, NULL, 0);
}

void pt_begin(struct tf *t)
{
	begin(t, PT_SAMPLE_TYPE);
}

void pt_begin_nocallchain(struct tf *t)
{
	begin(t, PD_SAMPLE_IP | PD_SAMPLE_TID);
}

/* s NUL-terminated and padded to 8 bytes */
static void str8(struct tf *t, const char *s)
{
	tf_str(t, s, (strlen(s) + 1 + 7) & ~(size_t)7);
}

void pt_comm(struct tf *t, uint32_t pid, uint32_t tid, const char *comm,
	     bool exec)
{
	tf_begin(t, PD_REC_COMM, exec ? PD_MISC_COMM_EXEC : 0);
	tf_u32(t, pid);
	tf_u32(t, tid);
	str8(t, comm);
	tf_end(t);
}

static void task(struct tf *t, uint32_t type, uint16_t misc, uint32_t pid,
		 uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	tf_begin(t, type, misc);
	tf_u32(t, pid);
	tf_u32(t, ppid);
	tf_u32(t, tid);
	tf_u32(t, ptid);
	tf_u64(t, 0); /* time */
	tf_end(t);
}

void pt_fork(struct tf *t, uint16_t misc, uint32_t pid, uint32_t ppid,
	     uint32_t tid, uint32_t ptid)
{
	task(t, PD_REC_FORK, misc, pid, ppid, tid, ptid);
}

void pt_exit(struct tf *t, uint32_t pid, uint32_t tid)
{
	task(t, PD_REC_EXIT, 0, pid, pid, tid, tid);
}

void pt_mmap(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
	     uint64_t start, uint64_t len, uint64_t pgoff, const char *name)
{
	tf_begin(t, PD_REC_MMAP, misc);
	tf_u32(t, pid);
	tf_u32(t, tid);
	tf_u64(t, start);
	tf_u64(t, len);
	tf_u64(t, pgoff);
	str8(t, name);
	tf_end(t);
}

void pt_mmap2(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
	      uint64_t start, uint64_t len, uint64_t pgoff, uint32_t prot,
	      uint32_t flags, const char *name, const unsigned char *build_id,
	      unsigned build_id_size)
{
	tf_begin(t, PD_REC_MMAP2,
		 (uint16_t)(misc | (build_id ? PD_MISC_MMAP_BUILD_ID : 0)));
	tf_u32(t, pid);
	tf_u32(t, tid);
	tf_u64(t, start);
	tf_u64(t, len);
	tf_u64(t, pgoff);
	if (build_id) {
		unsigned char id[20] = {0};

		memcpy(id, build_id, build_id_size);
		tf_u8(t, (uint8_t)build_id_size);
		tf_u8(t, 0);
		tf_u16(t, 0);
		tf_bytes(t, id, sizeof(id));
	} else {
		tf_u32(t, 254);	 /* maj */
		tf_u32(t, 0);	 /* min */
		tf_u64(t, 1234); /* ino */
		tf_u64(t, 0);	 /* ino_generation */
	}
	tf_u32(t, prot);
	tf_u32(t, flags);
	str8(t, name);
	tf_end(t);
}

void pt_ksymbol(struct tf *t, uint64_t addr, uint32_t len, bool unregister,
		const char *name)
{
	tf_begin(t, PD_REC_KSYMBOL, PD_MISC_KERNEL);
	tf_u64(t, addr);
	tf_u32(t, len);
	tf_u16(t, 1); /* PERF_RECORD_KSYMBOL_TYPE_BPF */
	tf_u16(t, unregister ? 1 : 0);
	str8(t, name);
	tf_end(t);
}

void pt_build_id(struct tf *t, uint16_t cpumode, int32_t pid,
		 const unsigned char *id, unsigned size, const char *name)
{
	unsigned char raw[24] = {0};

	memcpy(raw, id, size);
	raw[20] = (unsigned char)size;
	tf_begin(t, PD_REC_HEADER_BUILD_ID,
		 (uint16_t)(cpumode | PD_MISC_BUILD_ID_SIZE));
	tf_u32(t, (uint32_t)pid);
	tf_bytes(t, raw, sizeof(raw));
	str8(t, name);
	tf_end(t);
}

void pt_feature_string(struct tf *t, unsigned feat, const char *value)
{
	/* perf's do_write_string: u32 length padded to 64, then the bytes */
	size_t len = (strlen(value) + 1 + 63) & ~(size_t)63;

	tf_begin(t, PD_REC_HEADER_FEATURE, 0);
	tf_u64(t, feat);
	tf_u32(t, (uint32_t)len);
	tf_str(t, value, len);
	tf_end(t);
}

void pt_sample(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
	       uint64_t ip, const uint64_t *cc, size_t nr)
{
	tf_begin(t, PD_REC_SAMPLE, misc);
	tf_u64(t, ip);
	tf_u32(t, pid);
	tf_u32(t, tid);
	if (t->attrs[0].sample_type & PD_SAMPLE_CALLCHAIN) {
		tf_u64(t, nr);
		for (size_t i = 0; i < nr; i++)
			tf_u64(t, cc[i]);
	}
	tf_end(t);
}

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
}
