/*
 * pde.h - the emit layer: writers of pdtool's output formats.  Writers
 * take decoded data from libpd (and later libpda) and a FILE *; they
 * never read input or decide policy.
 */
#ifndef PDE_H
#define PDE_H

#include "pd.h"

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- JSON ---------------------------------------------------------- */

#define PDE_JSON_MAX_DEPTH 32

/*
 * A streaming JSON writer.  Keys are given with each value inside an
 * object and are NULL inside an array or at the top.  Strings from a
 * capture are escaped: control characters as \u00XX, and bytes that are
 * not valid UTF-8 as \u00XX of the byte's value, so the output is always
 * valid JSON.
 *
 *	struct pde_json j;
 *	pde_json_init(&j, stdout, false);
 *	pde_json_begin_object(&j, NULL);
 *	pde_json_u64(&j, "samples", 12);
 *	pde_json_end_object(&j);
 *	pde_json_newline(&j);
 */
struct pde_json {
	FILE *out;
	bool pretty;
	int depth;
	bool first[PDE_JSON_MAX_DEPTH];
};

void pde_json_init(struct pde_json *j, FILE *out, bool pretty);
void pde_json_begin_object(struct pde_json *j, const char *key);
void pde_json_end_object(struct pde_json *j);
void pde_json_begin_array(struct pde_json *j, const char *key);
void pde_json_end_array(struct pde_json *j);
void pde_json_str(struct pde_json *j, const char *key, const char *s);
/* at most n bytes of s, stopping at a NUL */
void pde_json_strn(struct pde_json *j, const char *key, const char *s,
		   size_t n);
void pde_json_u64(struct pde_json *j, const char *key, uint64_t v);
void pde_json_i64(struct pde_json *j, const char *key, int64_t v);
void pde_json_double(struct pde_json *j, const char *key, double v);
/* v as a string "0x..." (JSON numbers lose precision above 2^53) */
void pde_json_hex(struct pde_json *j, const char *key, uint64_t v);
void pde_json_bool(struct pde_json *j, const char *key, bool v);
void pde_json_null(struct pde_json *j, const char *key);
/* bytes as a lowercase hex string */
void pde_json_hexbytes(struct pde_json *j, const char *key,
		       const unsigned char *p, size_t n);
/* ends a top-level value with a newline */
void pde_json_newline(struct pde_json *j);

/* Write n bytes of s (up to a NUL) for a terminal or text file: printable
 * bytes as they are, others as \xNN. */
void pde_text_str(FILE *out, const char *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* PDE_H */
