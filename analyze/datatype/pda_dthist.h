/*
 * pda_dthist.h - samples per data type and member: what perf >= 6.8's
 * `perf annotate --data-type` shows, per event the types its samples
 * accessed (by binary and type name), each with its layout and the
 * samples and period on each member.
 */
#ifndef PDA_DTHIST_H
#define PDA_DTHIST_H

#include "pda_datatype.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pda_dthist;

/* One row of a type's layout: the type itself (depth 0), then each
 * member, a struct's or union's members after it, one deeper. */
struct pda_dthist_row {
	int64_t offset;		/* from the start of the type */
	uint64_t size;		/* 0: unknown */
	unsigned depth;
	size_t end;		/* the index past its members' rows */
	const char *type;	/* "struct foo", "int", "char*" */
	const char *name;	/* the member's; NULL for the type or an
				 * anonymous member */
	uint64_t samples, period; /* of accesses starting in its bytes */
};

/* The bytes of a type's cache line, from the type's start (as report's
 * typecln counts them: the type taken as aligned to a line). */
#define PDA_DTHIST_LINE 64

/* A cache line of a type with samples: those whose access starts in
 * its bytes. */
struct pda_dthist_line {
	uint64_t line;		/* counted from the line the type's first
				 * byte is in */
	int64_t start;		/* the offset in the type of the line's
				 * first byte: line * PDA_DTHIST_LINE -
				 * align (negative: the line begins before
				 * the object) */
	uint64_t align;		/* where the object starts in its line: 0
				 * for the lines counted from the type's
				 * start; from the samples' data addresses
				 * (address - offset) for the others */
	uint64_t samples, period;
};

/* A type an event's samples accessed in one binary. */
struct pda_dthist_type {
	unsigned event;		/* the evsel's index */
	const char *dso;	/* the binary's recorded path */
	const char *type;
	uint64_t size;
	uint64_t samples, period;
	const struct pda_dthist_row *rows; /* the layout; rows[0] the type */
	size_t nr_rows;
	const struct pda_dthist_line *lines; /* its lines with samples, in
					      * offset order */
	size_t nr_lines;
	/* The lines the samples with a data address (PEBS, SPE, perf mem)
	 * hit, as laid out in memory: by the object's start in its line
	 * (the address less the access's offset), then line; and those
	 * samples' sums. */
	const struct pda_dthist_line *addr_lines;
	size_t nr_addr_lines;
	uint64_t addr_samples, addr_period;
};

/* @return 0 and *out, or PD_ERR_NOMEM.  dt must outlive it. */
int pda_dthist_new(struct pda_datatype *dt, struct pda_dthist **out);
/* Accepts NULL. */
void pda_dthist_free(struct pda_dthist *h);

/*
 * Count sample with its attribution res (from pda_datatype_sample()):
 * only accesses to a type found in DWARF count, as perf counts them;
 * (unknown) and the pseudo types are left out.  @return 0 or
 * PD_ERR_NOMEM.
 */
int pda_dthist_add(struct pda_dthist *h, const struct pd_sample *sample,
		   const struct pda_datatype_res *res);

/*
 * The types' layouts and per-member sums, the types ordered by event,
 * then period (most first), binary and name.  @return 0 or
 * PD_ERR_NOMEM; no pda_dthist_add() after it.
 */
int pda_dthist_finish(struct pda_dthist *h);

/* After pda_dthist_finish(): the types; valid until pda_dthist_free(). */
size_t pda_dthist_nr(const struct pda_dthist *h);
const struct pda_dthist_type *pda_dthist_type(const struct pda_dthist *h,
					      size_t i);

#ifdef __cplusplus
}
#endif

#endif /* PDA_DTHIST_H */
