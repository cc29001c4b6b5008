/*
 * pde_text_int.h - the byte-level helpers emit's writers share
 * (pde_text.c).  Private to emit/.
 *
 * UTF-8 is checked here once for every writer (JSON, text, Markdown); a
 * common/ UTF-8 check, when the tree has one, would replace this one.
 */
#ifndef PDE_TEXT_INT_H
#define PDE_TEXT_INT_H

#include "pd_config.h"
#include "pde.h"

/*
 * The length of the valid UTF-8 sequence at s (n >= 1 bytes left): 1 for
 * ASCII, 2 to 4 for a well-formed sequence; 0 for an invalid one
 * (overlong, a surrogate, beyond U+10FFFF, truncated or a stray byte).
 */
size_t pde_utf8_len(const unsigned char *s, size_t n);

/*
 * n bytes of s in double quotes for a text file: '"' and '\\'
 * backslash-escaped, other bytes that are not printable text (a NUL
 * included) as \xNN.
 */
void pde_text_quoted(FILE *out, const char *s, size_t n);

/* What a writer returns (pde.h): PD_ERR_IO when out's error indicator is
 * set, else 0. */
int pde_out_rc(FILE *out);

#endif /* PDE_TEXT_INT_H */
