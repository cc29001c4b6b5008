/*
 * pda_datatype.h - data-type attribution: which type and which member of
 * it the instruction at a sample's ip loads or stores, from the binary's
 * DWARF alone, as perf >= 6.8's `perf report -s type,typeoff` finds it,
 * on x86_64 and aarch64 captures whatever the host's architecture.
 */
#ifndef PDA_DATATYPE_H
#define PDA_DATATYPE_H

#include "pda_session.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pda_datatype;

/* What a sample's access is attributed to. */
enum pda_datatype_kind {
	PDA_DATATYPE_TYPE,	/* a type from DWARF */
	PDA_DATATYPE_UNKNOWN,	/* perf's "(unknown)": none found */
	PDA_DATATYPE_STACKOP,	/* "(stack operation)": push, pop, call,
				 * ret; aarch64 pre/post-indexed saves and
				 * restores on sp */
	PDA_DATATYPE_CANARY,	/* "(stack canary)": x86's %fs:0x28 */
};

/* Why a sample is (unknown): the coverage line's reasons. */
enum pda_datatype_why {
	PDA_DATATYPE_FOUND,
	PDA_DATATYPE_NO_BINARY,	 /* no map, symbol or binary for the ip */
	PDA_DATATYPE_NO_ARCH,	 /* an architecture not decoded here */
	PDA_DATATYPE_NO_CODE,	 /* the code bytes are not in the file */
	PDA_DATATYPE_NO_MEMOP,	 /* the instruction accesses no memory */
	PDA_DATATYPE_NO_DWARF,	 /* the binary has no DWARF there */
	PDA_DATATYPE_NO_VAR,	 /* no variable at the pc lives in the base
				  * register */
	PDA_DATATYPE_NO_POINTER, /* the register's variable is no pointer */
	PDA_DATATYPE_BAD_OFFSET, /* the offset is outside the type */
	PDA_DATATYPE_NO_GLOBAL,	 /* no global holds the address */
	PDA_DATATYPE_NR_WHY
};

/* One access's attribution; names valid while the session lives. */
struct pda_datatype_res {
	enum pda_datatype_kind kind;
	enum pda_datatype_why why;
	const char *type;	/* as perf names it: "struct foo", "(unknown)" */
	const char *member;	/* "bar.baz", "slots[2].key"; NULL: no field */
	const char *var;	/* the variable it was found through, or NULL */
	bool global;		/* var is a global or static and the access
				 * inside it (not in what it points to) */
	int64_t offset;		/* in the type */
	unsigned size;		/* the access's bytes; 0 unknown */
	bool store;		/* written (else read) */
	const char *dso;	/* the binary's recorded path, or NULL */
	uint64_t type_die;	/* where the type is in the binary's DWARF
				 * (pda_dthist's layouts); 0: unknown */
};

/* @return 0 and *out, or PD_ERR_NOMEM.  Free with pda_datatype_free(),
 * before the session. */
int pda_datatype_new(struct pda_session *s, struct pda_datatype **out);
/* Accepts NULL. */
void pda_datatype_free(struct pda_datatype *dt);

/*
 * The attribution of sample's ip (each distinct instruction decoded
 * once): *out valid until pda_datatype_free().  st: the sample's stack
 * as the pipeline resolved it, leaf first (its leaf keys a cache that
 * spares resolving the leaf again: a binary is known by its recorded
 * path there), or NULL.  Counted in the coverage.  @return 0 or a
 * negative pd_err.
 */
int pda_datatype_sample(struct pda_datatype *dt, const struct pd_sample *sample,
			const struct pda_stack *st,
			const struct pda_datatype_res **out);

/* Count sample in the coverage as one with the result res (from
 * pda_datatype_sample() for another sample of the same instruction:
 * a pipeline memo's hit). */
void pda_datatype_count(struct pda_datatype *dt, const struct pd_sample *sample,
			const struct pda_datatype_res *res);

struct pda_annot_func; /* pda_annotate.h */

/*
 * The attribution of instruction i of fn (a disassembled function of an
 * annotation of dt's session) into *out, as perf annotate
 * --code-with-type marks it; names valid until pda_datatype_free().
 * Not counted in the coverage.  @return 0 or a negative pd_err.
 */
int pda_datatype_insn(struct pda_datatype *dt, const struct pda_annot_func *fn,
		      size_t i, struct pda_datatype_res *out);

/* res as perf 7.2's typeoff sort key writes it ("struct foo +0x8
 * (bar)", "int +0 (no field)", a pseudo type alone), interned in dt's
 * session.  @return the text, or NULL when out of memory. */
const char *pda_datatype_typeoff(struct pda_datatype *dt,
				 const struct pda_datatype_res *res);

/* Samples (and their periods) counted per reason, [PDA_DATATYPE_NR_WHY];
 * the pseudo types count as found. */
const uint64_t *pda_datatype_coverage(const struct pda_datatype *dt,
				      const uint64_t **periods);
/* A reason's words for the coverage line ("no variable in the base
 * register"). */
const char *pda_datatype_why_str(enum pda_datatype_why why);

#ifdef __cplusplus
}
#endif

#endif /* PDA_DATATYPE_H */
