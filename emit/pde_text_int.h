/*
 * pde_text_int.h - the byte-level helpers emit's writers share
 * (pde_text.c).  Private to emit/.
 * UTF-8 is checked by common/pdc_utf8.h, for every writer.
 */
#ifndef PDE_TEXT_INT_H
#define PDE_TEXT_INT_H

#include "pd_config.h"
#include "pde.h"

/*
 * n bytes of s in double quotes for a text file: '"' and '\\'
 * backslash-escaped, other bytes that are not printable text (a NUL
 * included) as \xNN.
 */
void pde_text_quoted(FILE *out, const char *s, size_t n);

/* A CSV field (RFC 4180) of the NUL-terminated s: quoted, quotes
 * doubled, other bytes by pdc_text's rule, so no name can end a row. */
void pde_csv_str(FILE *out, const char *s);

/* Branch counters as JSON (pde_branches.c): "counters", per column
 * {"event", "sum", "saturated"} of sums, and "counters_cell", perf's cell
 * of the sums over n entries ("" when n is 0). */
void pde_json_brcntr(struct pde_json *j, const struct pda_brcntr *c,
		     const uint64_t *sums, uint64_t n);

struct pdc_strbuf;

/* pde_data_src_field()'s text of field f appended to b (pde_script.c):
 * f the field's place in perf's string (0 OP, 1 LVL, 2 SNP, 3 TLB, 4
 * LCK, 5 BLK), the field built from its own bits alone. */
void pde_data_src_put(struct pdc_strbuf *b, uint64_t data_src, unsigned f);

/* What a writer returns (pde.h): PD_ERR_IO when out's error indicator is
 * set, else 0. */
int pde_out_rc(FILE *out);

#endif /* PDE_TEXT_INT_H */
