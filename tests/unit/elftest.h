/*
 * elftest.h - helpers for the ELF-side tests (check_elf.c,
 * check_demangle.c): a session over an empty capture, temporary
 * directories, and what an ELF file says read with libelf, so that
 * expectations do not come from libpda's own code.
 *
 *	struct et_session es;
 *	struct pda_session *s = et_session_new(&es, NULL);
 *	...
 *	et_session_free(&es);
 */
#ifndef ELFTEST_H
#define ELFTEST_H

#include "pd_config.h"
#include "pda_session.h"
#include "testfile.h"

#include <stdbool.h>
#include <stdint.h>

#define ET_PATH_MAX 4096

struct et_session {
	struct tf t;
	struct pd_file *f;
	struct pda_session *s;
};

/* A session (allocating through alloc, or libc) over a capture with one
 * event and no records.  Fails the test on error. */
struct pda_session *et_session_new(struct et_session *es,
				   const struct pd_alloc *alloc);
void et_session_free(struct et_session *es);

/* snprintf into an ET_PATH_MAX buffer; fails the test if it does not fit */
void et_path(char *out, const char *fmt, ...) PD_PRINTF(2, 3);
/* A new directory under $TMPDIR or /tmp; free the string. */
char *et_tmpdir(void);
/* Remove dir and everything under it. */
void et_rmtree(const char *dir);

/* The value and size of the first .symtab symbol called name. */
bool et_elf_sym(const char *path, const char *name, uint64_t *value,
		uint64_t *size);
/* The GNU build-id note's bytes (at most 32). */
bool et_elf_build_id(const char *path, unsigned char *id, unsigned *size);

#endif /* ELFTEST_H */
