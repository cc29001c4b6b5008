/*
 * fuzz.h - what the libFuzzer targets share with each other and with the
 * regression driver (replay.c).  Under libFuzzer the defaults apply;
 * replay.c tightens them.
 *
 * A target is tests/fuzz/fuzz_NAME.c defining
 *
 *	int fuzz_NAME(const uint8_t *data, size_t size)
 *
 * listed in FUZZ_TARGETS below.  `make fuzz` links each one alone into
 * build/fuzz/fuzz_NAME, with libfuzzer_main.c calling it from
 * LLVMFuzzerTestOneInput; replay.c links them all and replays
 * tests/fuzz/corpus/NAME/ through fuzz_NAME.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include "pd_config.h"

#include "failalloc.h"
#include "pda_session.h"
#include "testfile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every target, by name: tests/fuzz/fuzz_NAME.c, corpus/NAME/. */
#define FUZZ_TARGETS(X)                                                        \
	X(annotate) X(elf) X(folded) X(jitmap) X(kallsyms) X(reader) X(script) X(spe) \
	X(spe_synth) X(tracing)

#define FUZZ_DECLARE(name) int fuzz_##name(const uint8_t *data, size_t size);
FUZZ_TARGETS(FUZZ_DECLARE)
#undef FUZZ_DECLARE

/*
 * Out-of-memory injection (STYLE T9).  FUZZ_OOM_SAMPLED, the default,
 * reads three inputs in eight (chosen by a hash of their bytes) a
 * second time with one allocation failing.  FUZZ_OOM_SWEEP does that for
 * every allocation of each input of at most fuzz_oom_sweep_max bytes
 * (larger ones are sampled).  FUZZ_OOM_OFF injects nothing.
 */
enum fuzz_oom_mode {
	FUZZ_OOM_OFF = 0,
	FUZZ_OOM_SAMPLED = 1,
	FUZZ_OOM_SWEEP = 2,
};

extern enum fuzz_oom_mode fuzz_oom;
extern size_t fuzz_oom_sweep_max;

/* A cap on one allocation: beyond it the hooks fail, as a real limit
 * would (failalloc's max_size). */
#define FUZZ_MAX_ALLOC ((size_t)64 << 20)

/* A property every input must keep: abort (libFuzzer keeps the input)
 * naming the file and line. */
#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond))                                                   \
			fuzz_check_failed(__FILE__, __LINE__, #cond);          \
	} while (0)

void fuzz_check_failed(const char *file, int line,
		       const char *what) PD_NORETURN;

/* FNV-1a of the input: picks what a run does, reproducibly. */
uint64_t fuzz_hash(const uint8_t *data, size_t size);

/* Keeps the compiler from dropping loads whose only use is ASan's check. */
void fuzz_touch(const void *p, size_t len);
void fuzz_touch_str(const char *s);

/*
 * One reading of an input with allocations through fa, for
 * fuzz_with_oom().  @return true when some call reported PD_ERR_NOMEM
 * (or its equivalent); everything it allocated must be freed by then.
 */
typedef bool (*fuzz_pass_fn)(const uint8_t *data, size_t size,
			     struct failalloc *fa);

/*
 * Run pass once with every allocation granted, then, as fuzz_oom says,
 * again with the Nth failing (once, or from then on).  Checks that no
 * block is left live after a pass, and that a pass in which an
 * allocation failed said so (E5).  @return the clean pass's calls.
 */
unsigned long fuzz_with_oom(const uint8_t *data, size_t size,
			    fuzz_pass_fn pass);

/* ---- profiles -------------------------------------------------------- */

struct pda_profile;

/*
 * A profile's tables refer only to earlier entries, a stack is one
 * deeper than its prefix, no two rows share a stack, and each column's
 * total is the sum of its rows (pda_profile.h's invariants).
 */
void fuzz_check_profile(const struct pda_profile *p);

/* ---- a session over a capture built in memory ---------------------- */

struct fuzz_session {
	struct tf t; /* the capture (tests/unit/testfile.h) */
	struct pd_file *f;
	struct pda_session *s;
};

/* Start a capture of one event, attr; records follow with tf_*(). */
void fuzz_session_begin(struct fuzz_session *fs, const struct tf_attr *attr);
/*
 * Open the capture and a session over it with opts (no debuginfod, no
 * host kernel, whatever opts says), its allocations through hooks.
 * @return 0, or what pda_session_new() returned (PD_ERR_NOMEM).
 */
int fuzz_session_open(struct fuzz_session *fs, const struct pd_alloc *hooks,
		      const struct pda_opts *opts);
/* Accepts a session that failed to open. */
void fuzz_session_free(struct fuzz_session *fs);

/*
 * A session over a capture of one event and no records, allocating
 * through hooks, and the input copied into a buffer of the session's
 * with a NUL after it, as pda_read_fd() hands a file over to a parser.
 * @return the buffer, or NULL when out of memory (fs then freed).
 */
char *fuzz_session_file(struct fuzz_session *fs, const struct pd_alloc *hooks,
			const uint8_t *data, size_t size);

/* ---- an ELF image as a process's binary (fuzzelf.c) ----------------- */

struct pda_elf;

#define FUZZ_ELF_NAME "/fuzz/elf" /* the path the maps name */
#define FUZZ_ELF_MAX_SEGS 8
#define FUZZ_ELF_MAX_FUNCS 16

/* What libelf says of an image, read apart from libpda's own reading. */
struct fuzz_elf_info {
	uint16_t machine;
	bool is64;
	bool exec; /* ET_EXEC: mapped at its own addresses */
	struct {
		uint64_t vaddr, offset, memsz;
	} segs[FUZZ_ELF_MAX_SEGS]; /* the first PT_LOAD segments */
	size_t nr_segs;
	uint64_t funcs[FUZZ_ELF_MAX_FUNCS]; /* the entry point, and the
					     * middle of function symbols */
	size_t nr_funcs;
};

/* @return false when the image is no ELF file libelf reads. */
bool fuzz_elf_info(const void *image, size_t size, struct fuzz_elf_info *inf);
/* MMAP records of pid for each PT_LOAD segment as a loader maps them:
 * at base + vaddr (an ET_EXEC at vaddr), from the page of its offset. */
void fuzz_elf_maps(struct tf *t, const struct fuzz_elf_info *inf, uint64_t base,
		   uint32_t pid);
/*
 * The session's DSO FUZZ_ELF_NAME found, its binary the image (which
 * must outlive the session): the lookup of files replaced by
 * pda_elf_open_image().  *out is the ELF handle, NULL when the image is
 * not ELF (the DSO is then missing).  @return 0 or PD_ERR_NOMEM.
 */
int fuzz_elf_preload(struct pda_session *s, const void *image, size_t size,
		     struct pda_elf **out);

#endif /* FUZZ_H */
