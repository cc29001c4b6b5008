/*
 * pda_annotate.h - annotation: samples per instruction of hot functions
 * (`pdtool annotate`).
 */
#ifndef PDA_ANNOTATE_H
#define PDA_ANNOTATE_H

#include "pda_session.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Samples counted by the instruction they hit, grouped by function, and
 * each function's disassembly (capstone, in the ELF's own architecture),
 * source lines, inline boundaries, branch targets and loop back-edges.
 * As `perf annotate` counts, a sample counts at its own address (the
 * leaf, never its callers) in the function that holds it, once per
 * event, with its period.
 *
 *	struct pda_annot *a;
 *	PDA_ANNOT_OPTS(ao, .nr_events = pd_file_nr_evsels(f));
 *	pda_annot_new(s, &ao, &a);
 *	(for each sample, after pda_session_feed)
 *		pda_annot_add(a, &sample, sample.evsel->idx);
 *	pda_annot_finish(a);
 *	for (size_t i = 0; i < pda_annot_nr_syms(a); i++) {
 *		pda_annot_func_new(a, i, &fn);	// disassembled here
 *		(write fn)
 *		pda_annot_func_free(a, fn);
 *	}
 *	pda_annot_free(a);
 *
 * Not thread-safe; it uses the session, which must outlive it.
 */
struct pda_annot;
struct pda_dso;	/* pda_session.h: a binary of the session */

enum pda_annot_syntax {
	PDA_SYNTAX_ATT = 0,	/* x86: AT&T, as objdump and perf (default) */
	PDA_SYNTAX_INTEL,	/* x86: Intel */
};

/*
 * Whether a source file is read at the path the binary's DWARF names, on
 * this host, as written (absolute, or relative to the working
 * directory).  The file names come from the binary, which may be
 * someone else's: read as written, "/etc/shadow" or a FIFO would be
 * someone else's choice.
 */
enum pda_annot_host_src {
	PDA_HOST_SRC_AUTO = 0,	/* only for a capture that names this
				 * host (its HOSTNAME), and never with the
				 * session's symfs */
	PDA_HOST_SRC_NEVER,
	PDA_HOST_SRC_ALWAYS,
};

/*
 * Where source files are read (pda_annotate_src.c has the order): with a
 * prefix map that applies, under its NEW; else, the path as written
 * inside the session's symfs, and on this host when host_sources allows
 * it; then under each source dir.  NEW, the symfs and each DIR are
 * roots: a path is resolved inside them as a chroot would resolve it,
 * so neither ".." nor a symlink leads out.  Only regular files up to
 * 64 MiB are read, and a FIFO or a device is never opened.
 */
struct pda_annot_opts {
	size_t sz;			/* by PDA_ANNOT_OPTS */
	size_t nr_events;		/* event indexes 0..nr_events-1 */
	enum pda_annot_syntax syntax;
	/* "OLD=NEW": a DWARF path starting with OLD is read under NEW
	 * (NEW + the rest; an empty NEW: the rest as a path on this
	 * host)... */
	const char *const *prefix_maps;
	size_t nr_prefix_maps;
	/* ...and, when not there, under each DIR (DIR/path, DIR/basename) */
	const char *const *source_dirs;
	size_t nr_source_dirs;
	bool no_source;			/* never read source files */
	enum pda_annot_host_src host_sources;
};

#define PDA_ANNOT_OPTS(name, ...)                                           \
	struct pda_annot_opts name = { .sz = sizeof(struct pda_annot_opts), \
				       __VA_ARGS__ }

/* Samples and the sum of their periods. */
struct pda_annot_count {
	uint64_t hits;
	uint64_t period;
};

/* @return 0 and *out, PD_ERR_API (bad options) or PD_ERR_NOMEM. */
int pda_annot_new(struct pda_session *s, const struct pda_annot_opts *opts,
		  struct pda_annot **out);
/* Accepts NULL. */
void pda_annot_free(struct pda_annot *a);

/*
 * Count one decoded sample of event index event.  @return 1 counted in a
 * function, 0 not (no map, no symbol; still in the event's total), or a
 * negative pd_err (PD_ERR_API: event out of range or after finish).
 */
int pda_annot_add(struct pda_annot *a, const struct pd_sample *sample,
		  size_t event);
/* The same for n samples alike (a group: pda_capture_opts.counted),
 * resolved once; n 0 counts as 1. */
int pda_annot_add_n(struct pda_annot *a, const struct pd_sample *sample,
		    size_t event, uint64_t n);

/*
 * Annotate the function at start (ELF vaddr) of dso (recorded as
 * dso_name, named name) too, sampled or not: perf's branch mode
 * annotates the functions branch entries leave.  A sampled one is
 * unchanged.  Before pda_annot_finish().  @return 0, PD_ERR_API (after
 * finish) or PD_ERR_NOMEM.
 */
int pda_annot_add_func(struct pda_annot *a, struct pda_dso *dso,
		       const char *dso_name, const char *name, uint64_t start,
		       bool kernel);

/* Sort the functions, most samples first.  @return 0 or PD_ERR_NOMEM. */
int pda_annot_finish(struct pda_annot *a);

/* A function that has samples.  Valid until pda_annot_free(). */
struct pda_annot_sym {
	const char *name;	/* demangled unless the session's no_demangle */
	const char *dso;	/* the map's name as recorded */
	const char *path;	/* the file it was found in, NULL: none */
	uint64_t start;		/* its address in the DSO (ELF vaddr) */
	bool kernel;
	const struct pda_annot_count *counts; /* [nr_events]: its samples */
	double share;		/* max over events of its share of the
				 * event's period: how it is ranked */
};

size_t pda_annot_nr_syms(const struct pda_annot *a);
/* After pda_annot_finish(): function i, most samples first (NULL past
 * the end). */
const struct pda_annot_sym *pda_annot_sym(const struct pda_annot *a,
					  size_t i);
/* Every sample added, per event ([nr_events]): the global total. */
const struct pda_annot_count *pda_annot_totals(const struct pda_annot *a);
/* Samples added that no function took (no map or no symbol). */
uint64_t pda_annot_nr_unresolved(const struct pda_annot *a);

enum pda_insn_flags {
	PDA_INSN_JUMP = 1u << 0,	/* a branch, conditional or not */
	PDA_INSN_CALL = 1u << 1,
	PDA_INSN_RET = 1u << 2,
	PDA_INSN_BACK_EDGE = 1u << 3,	/* a jump to itself or an earlier
					 * instruction of the function */
	PDA_INSN_LOOP_HEAD = 1u << 4,	/* the target of a back-edge */
	PDA_INSN_INLINE_START = 1u << 5,/* the inline chain differs from
					 * the instruction before's */
	PDA_INSN_LINE_START = 1u << 6,	/* the source line differs */
	PDA_INSN_BAD = 1u << 7,		/* bytes capstone cannot decode
					 * (".byte"), skipped one unit */
	PDA_INSN_DATA_REF = 1u << 8,	/* a pc-relative data access
					 * (Power10's pld, pla...): target
					 * is the address it names */
};

/* One instruction.  Strings live as long as the function. */
struct pda_annot_insn {
	uint64_t addr;		/* ELF vaddr */
	unsigned size;		/* bytes */
	const char *mnemonic;	/* as capstone prints it */
	const char *operands;
	const struct pda_annot_count *counts; /* [nr_events]: samples in
					       * [addr, addr + size) */
	const char *srcfile;	/* line table's row, NULL unknown */
	unsigned line;
	unsigned flags;		/* pda_insn_flags */
	uint64_t target;	/* with JUMP or CALL: the address, when the
				 * operand is one; with DATA_REF: the
				 * address accessed */
	const char *target_name;/* "sym+0xOFF" (demangled), NULL unknown */
	unsigned inline_depth;	/* inlined functions around it, 0 none */
	const char *inline_func;/* the innermost, NULL with depth 0 */
	const char *call_file;	/* where it was inlined, NULL unknown */
	unsigned call_line;
};

/* One source line's sum over the instructions of the function. */
struct pda_annot_line {
	const char *file;	/* as DWARF names it */
	unsigned line;
	const struct pda_annot_count *counts; /* [nr_events] */
	size_t nr_insns;
};

struct pda_annot_func {
	const struct pda_annot_sym *sym;
	uint64_t size;		/* of the symbol, bytes */
	const char *arch;	/* "x86_64", "aarch64", ... */
	const char *error;	/* why there is no disassembly (no binary,
				 * a debug file without code, an
				 * architecture capstone lacks); NULL:
				 * insns are there */
	size_t nr_insns;
	const struct pda_annot_insn *insns;
	size_t nr_lines;	/* source lines with instructions, hottest
				 * first */
	const struct pda_annot_line *lines;
	size_t nr_events;
};

/*
 * Disassemble function i and place its samples.  A function that cannot
 * be disassembled comes back with error set and no instructions.
 * @return 0 and *out, PD_ERR_API (i out of range) or PD_ERR_NOMEM.
 */
int pda_annot_func_new(struct pda_annot *a, size_t i,
		       struct pda_annot_func **out);
/* Accepts NULL. */
void pda_annot_func_free(struct pda_annot *a, struct pda_annot_func *fn);

/*
 * The text of line (1-based) of source file (as DWARF names it), after
 * --prefix-map and --source-dir, without its newline: *len bytes, valid
 * until pda_annot_free().  NULL when the file or the line is not there.
 */
const char *pda_annot_source(struct pda_annot *a, const char *file,
			     unsigned line, size_t *len);
/* Where the source file was read, NULL when it was not found. */
const char *pda_annot_source_path(struct pda_annot *a, const char *file);
/* Whether paths are read on this host as DWARF writes them: opts'
 * host_sources, with PDA_HOST_SRC_AUTO decided for this capture. */
bool pda_annot_host_sources(const struct pda_annot *a);
/*
 * Source files looked up so far that were not read because only this
 * host's path, as DWARF writes it, was left to try and the policy
 * withheld it (pda_annot_host_sources() false; found nowhere allowed).
 */
size_t pda_annot_nr_withheld(const struct pda_annot *a);

#ifdef __cplusplus
}
#endif

#endif /* PDA_ANNOTATE_H */
