/*
 * pda_datatype_int.h - data-type attribution of one instruction of a
 * binary, without a capture: what the tests hold to each source line's
 * known answer (and what a disassembly view marks per instruction).
 */
#ifndef PDA_DATATYPE_INT_H
#define PDA_DATATYPE_INT_H

#include "pda_symbols_int.h"
#include "pda_datatype.h"
#include "pda_annotate_int.h"

/*
 * The attribution of the instruction at vaddr of elf, in the function
 * starting at start (the walk for registers holding addresses begins
 * there), into *out (names valid while the session lives).  Not cached,
 * not counted.  @return 0 or a negative pd_err.
 */
int pda_datatype_at(struct pda_datatype *dt, struct pda_elf *elf,
		    uint64_t vaddr, uint64_t start, struct pda_datatype_res *out);

/*
 * The layout of res's type (res from pda_datatype_sample(), a TYPE),
 * as pda_elf_type_layout() gives it: *rows pda_free()d by the caller.
 * @return 0, PD_ERR_NOTFOUND, PD_ERR_NOMEM.
 */
int pda_datatype_layout(struct pda_datatype *dt,
			const struct pda_datatype_res *res,
			struct pda_dt_member **rows, size_t *nr);

/* The session dt was made for. */
struct pda_session *pda_datatype_session(const struct pda_datatype *dt);

#endif /* PDA_DATATYPE_INT_H */
