/*
 * pda_strip.h - an ELF file cut down to what a capture's symbolization,
 * unwinding and annotation read (pdtool archive --strip-to-symbols).
 */
#ifndef PDA_STRIP_H
#define PDA_STRIP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pda_session;

struct pda_strip {
	void *data;		/* the stripped file (pda_strip_free) */
	size_t size;
	size_t orig_size;	/* the file's own */
	unsigned nr_dropped;	/* sections made SHT_NOBITS */
	uint64_t code_kept;	/* bytes of code kept (functions hit) */
};

/*
 * The ELF file at path, stripped: its headers and program headers as
 * they are, so that every recorded map and PT_GNU_EH_FRAME still read
 * the same; symbol tables, notes (the build-id), .gnu_debuglink,
 * MiniDebugInfo, dynamic tables and PLT, CFI (.eh_frame, .eh_frame_hdr,
 * .debug_frame, ARM exidx) and what line tables and inlined frames need
 * (.debug_line, .debug_info, .debug_abbrev, .debug_str, ranges, ...)
 * kept; of the code, only the functions holding one of addrs (the ELF's
 * own virtual addresses, sorted) as its own .symtab/.dynsym or
 * sym_path's (its debug file, may be NULL) bound them; every other
 * section becomes SHT_NOBITS, its bytes zero where they lie between kept
 * ones and gone after them.  @return 0; PD_ERR_UNSUPPORTED for a file with
 * no section headers (to be packed whole); <0 with the session's
 * message.
 */
int pda_strip_elf(struct pda_session *s, const char *path,
		  const char *sym_path, const uint64_t *addrs,
		  size_t nr_addrs, struct pda_strip *out);
void pda_strip_free(struct pda_session *s, struct pda_strip *st);

#ifdef __cplusplus
}
#endif

#endif /* PDA_STRIP_H */
