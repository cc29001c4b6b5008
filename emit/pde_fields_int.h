/*
 * pde_fields_int.h - one way to write a record or a struct, field by
 * field, as text or as JSON (pde_fields.c).  Private to emit/; `pdtool
 * dump` and `pdtool info` write through it.
 *
 * The same calls give both formats, so the two cannot drift apart:
 * pde_f_u64(fw, "pid", 1) writes "pid":1 in JSON and " pid=1" in text;
 * objects and arrays nest as {...} and [a,b] in text.  In text, hex
 * fields are hexadecimal and strings quoted; in JSON every integer is a
 * number.  Keys are NULL inside an array.
 *
 *	struct pde_fields fw;
 *	pde_fields_init(&fw, out, json);
 *	pde_f_object(&fw, NULL);	// JSON: the line's object
 *	pde_f_u64(&fw, "pid", 1);
 *	pde_f_close(&fw);
 *	pde_fields_end_line(&fw);
 *
 * A table of counts (pde_f_count) is one row a count in text, an object's
 * members in JSON.  Not thread-safe; one per FILE.
 */
#ifndef PDE_FIELDS_INT_H
#define PDE_FIELDS_INT_H

#include "pde_text_int.h"

void pde_fields_init(struct pde_fields *fw, FILE *out, bool json);
/* A new line: back to depth 0. */
void pde_fields_begin_line(struct pde_fields *fw);
/* Ends a line: a JSON value's newline, or text's.  0 or PD_ERR_IO. */
int pde_fields_end_line(struct pde_fields *fw);

void pde_f_u64(struct pde_fields *fw, const char *key, uint64_t v);
void pde_f_i64(struct pde_fields *fw, const char *key, int64_t v);
/* an address or a bit mask: hexadecimal in text */
void pde_f_hex(struct pde_fields *fw, const char *key, uint64_t v);
/* pid and tid fields are u32 in the file; -1 means "none" or the kernel */
void pde_f_pid(struct pde_fields *fw, const char *key, uint32_t v);
void pde_f_double(struct pde_fields *fw, const char *key, double v);
void pde_f_str(struct pde_fields *fw, const char *key, struct pd_str s);
/* NULL: null in JSON */
void pde_f_cstr(struct pde_fields *fw, const char *key, const char *s);
void pde_f_null(struct pde_fields *fw, const char *key);
void pde_f_bool(struct pde_fields *fw, const char *key, bool v);
/* bytes as lowercase hex: a JSON string, bare in text */
void pde_f_hexbytes(struct pde_fields *fw, const char *key,
		    const unsigned char *p, size_t n);
void pde_f_object(struct pde_fields *fw, const char *key);
void pde_f_array(struct pde_fields *fw, const char *key);
/* Ends the innermost object or array. */
void pde_f_close(struct pde_fields *fw);
/* An array of hex values. */
void pde_f_hex_array(struct pde_fields *fw, const char *key,
		     const struct pd_u64s *a);

/* A record type's name, or UNKNOWN_<type> in buf. */
const char *pde_rec_name(uint32_t type, char buf[32]);
/* One count of a table: "  name      count\n" in text, "name":count in
 * JSON. */
void pde_f_count(struct pde_fields *fw, const char *name, uint64_t count);
/* The non-zero counts of by_type[PD_REC_TYPE_MAX], by type. */
void pde_f_rec_counts(struct pde_fields *fw, const uint64_t *by_type);

#endif /* PDE_FIELDS_INT_H */
