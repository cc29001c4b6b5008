/*
 * pdatest.h - helpers for the libpda session tests (check_machine.c,
 * check_dso.c): records of the machine's life built with testfile.h, a
 * session run over them through the public API, what an ELF file says
 * read with libelf (so the expectations do not come from libpda's own
 * code), and temporary directories.
 *
 *	struct tf t;
 *	struct pt_run r;
 *	PDA_OPTS(o, .no_debuginfod = true);
 *
 *	pt_begin(&t);
 *	pt_mmap(&t, PD_MISC_USER, 10, 10, 0x400000, 0x1000, 0, "/bin/x");
 *	pt_sample(&t, PD_MISC_USER, 10, 10, 0x400010, NULL, 0);
 *	pt_run(&t, &o, &r);		// r.stacks[0] is the sample's stack
 *	...
 *	pt_run_free(&r);
 *	tf_release(&t);
 */
#ifndef PDATEST_H
#define PDATEST_H

#include "pd_config.h"
#include "pda_session.h"
#include "elftest.h"
#include "testfile.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- records (no sample_id_all trailers) ---------------------------- */

/* Written by pdarec.c, which needs no Check: the fuzz targets use them. */

/* Sample type of pt_begin's event: IP, TID, CALLCHAIN. */
#define PT_SAMPLE_TYPE (PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_CALLCHAIN)

void pt_begin(struct tf *t);
/* Like pt_begin, but samples carry no callchain (IP and TID only). */
void pt_begin_nocallchain(struct tf *t);
void pt_comm(struct tf *t, uint32_t pid, uint32_t tid, const char *comm,
	     bool exec);
void pt_fork(struct tf *t, uint16_t misc, uint32_t pid, uint32_t ppid,
	     uint32_t tid, uint32_t ptid);
void pt_exit(struct tf *t, uint32_t pid, uint32_t tid);
void pt_mmap(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
	     uint64_t start, uint64_t len, uint64_t pgoff, const char *name);
/* MMAP2, inode form when build_id is NULL, else the build-id form */
void pt_mmap2(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
	      uint64_t start, uint64_t len, uint64_t pgoff, uint32_t prot,
	      uint32_t flags, const char *name, const unsigned char *build_id,
	      unsigned build_id_size);
/* MMAP2 of the inode form naming device maj:min and inode ino */
void pt_mmap2_ino(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
		  uint64_t start, uint64_t len, uint64_t pgoff, uint32_t prot,
		  uint32_t flags, const char *name, uint32_t maj, uint32_t min,
		  uint64_t ino);
void pt_ksymbol(struct tf *t, uint64_t addr, uint32_t len, bool unregister,
		const char *name);
/* HEADER_BUILD_ID as perf writes it in pipe mode */
void pt_build_id(struct tf *t, uint16_t cpumode, int32_t pid,
		 const unsigned char *id, unsigned size, const char *name);
/* A string feature (PD_FEAT_HOSTNAME, PD_FEAT_OSRELEASE...) sent as a
 * HEADER_FEATURE record, as pipe mode sends it. */
void pt_feature_string(struct tf *t, unsigned feat, const char *value);
/* A sample; with pt_begin's event its callchain is cc[0..nr) (markers
 * included), with pt_begin_nocallchain cc is ignored. */
void pt_sample(struct tf *t, uint16_t misc, uint32_t pid, uint32_t tid,
	       uint64_t ip, const uint64_t *cc, size_t nr);

/* ---- running a session ---------------------------------------------- */

#define PT_MAX_STACKS 64

struct pt_stack {
	uint32_t pid, tid;
	const char *comm; /* pda_thread_comm() at the sample */
	size_t nr;
	struct pda_frame *frames; /* a copy; strings live with the session */
};

struct pt_run {
	struct pd_file *f;
	struct pda_session *s;
	size_t nr;
	struct pt_stack stacks[PT_MAX_STACKS];
	unsigned nr_warn; /* warnings logged */
	char last_warn[512];
};

/*
 * Open t, make a session with o (its log hook replaced by the run's),
 * feed every record in file order and resolve every sample.  Fails the
 * test on an error.
 */
void pt_run(struct tf *t, const struct pda_opts *o, struct pt_run *r);
void pt_run_free(struct pt_run *r);

/* The missing DSO named name in the session's stats, or NULL. */
const struct pda_missing_dso *pt_missing(struct pt_run *r, const char *name);
/* The DSO named name in the stats' unresolved_dsos, or NULL. */
const struct pda_missing_dso *pt_unresolved(struct pt_run *r,
					    const char *name);
/* Whether tried lists a string that starts with prefix and holds infix. */
bool pt_tried(const struct pda_missing_dso *m, const char *prefix,
	      const char *infix);

/* ---- ELF facts, read with libelf -------------------------------------- */

struct pt_elf {
	uint64_t off, vaddr, filesz; /* the executable PT_LOAD */
	unsigned char build_id[20];
	unsigned build_id_size;
};

bool pt_elf_info(const char *path, struct pt_elf *out);
/* path made absolute (tests run in tests/unit); a static buffer. */
const char *pt_abs(const char *path);
/* The capture at path (relative to tests/unit) and a session over it
 * reading binaries from the build-id cache buildid_dir, without inline
 * frames or debuginfod; fails the test when either does not open. */
void pt_open_session(const char *path, const char *buildid_dir,
		     struct pd_file **f, struct pda_session **s);

/* testdata/bin/demo, the binary of check_dso.c and check_diagnose.c:
 * its path, ELF facts and hash_block's address and size */
struct pt_demo {
	char path[ET_PATH_MAX];
	struct pt_elf elf;
	uint64_t hash_block, hash_block_size;
};

void pt_demo_load(struct pt_demo *d);
/* The address hash_block + 1 has when demo is mapped at start. */
uint64_t pt_demo_ip(const struct pt_demo *d, uint64_t start);
/* demo's text mapped at start under name (MMAP2, with the build-id when
 * id is not NULL), and one sample in hash_block */
void pt_map_demo(struct tf *t, const struct pt_demo *d, uint32_t pid,
		 uint64_t start, const char *name, const unsigned char *id);

/* ---- files ----------------------------------------------------------- */

/* Paths, temporary directories and .symtab lookups: elftest.h's
 * et_path, et_tmpdir, et_rmtree and et_elf_sym. */
/* mkdir -p of path's directories and a copy of from at path. */
void pt_copy(const char *from, const char *path);
/* mkdir -p of path's directories and a file with these bytes. */
void pt_write(const char *path, const char *text);
/* mkdir -p of path's directories and a symlink path -> target. */
void pt_symlink(const char *target, const char *path);
/* A build-id cache in dir holding the binaries of the DWARF testdata
 * captures (testdata/bin/demo and inline) and the vdso images of
 * testdata/vdso. */
/* A kernel sample at _text + 0x210 (0xffffffff81000210), the kernel map
 * at _text 0xffffffff81000000, in a capture whose kernel build-id is id
 * (none: NULL) and whose HEADER_HOSTNAME is host (none: NULL). */
void pt_kernel_sample(struct tf *t, const unsigned char *id, unsigned size,
		      const char *host);
void pt_cache_testdata(const char *dir);
/*
 * The --symfs that finds testdata's binaries at the paths its captures
 * recorded (tests/golden/perf/lib.sh, pd_recorded_opts): NULL in a
 * checkout at that top (or with one there), else dir, made to hold
 * copies of testdata/bin and of the host binaries the captures name.
 */
const char *pt_recorded_root(const char *dir);

#endif /* PDATEST_H */
