/*
 * pde_fields.c - records and structs written field by field, as text or
 * as JSON, from the same calls (pde_fields_int.h).
 */
#include "pde_fields_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

void pde_fields_init(struct pde_fields *fw, FILE *out, bool json)
{
	memset(fw, 0, sizeof(*fw));
	fw->out = out;
	fw->json = json;
	pde_json_init(&fw->j, out, false);
	fw->first[0] = true;
}

void pde_fields_begin_line(struct pde_fields *fw)
{
	fw->depth = 0;
	fw->first[0] = true;
}

int pde_fields_end_line(struct pde_fields *fw)
{
	if (fw->json)
		pde_json_newline(&fw->j);
	else
		fputc('\n', fw->out);
	return pde_out_rc(fw->out);
}

/* text: the separator before a value at the current depth */
static void text_sep(struct pde_fields *fw, const char *key)
{
	if (fw->depth == 0 || !fw->first[fw->depth])
		fputc(fw->depth && fw->in_array[fw->depth] ? ',' : ' ',
		      fw->out);
	fw->first[fw->depth] = false;
	if (key)
		fprintf(fw->out, "%s=", key);
}

/* text: a field with a formatted value */
PD_PRINTF(3, 4)
static void text_field(struct pde_fields *fw, const char *key, const char *fmt,
		       ...)
{
	va_list ap;

	text_sep(fw, key);
	va_start(ap, fmt);
	vfprintf(fw->out, fmt, ap);
	va_end(ap);
}

/* an unsigned field: a JSON number either way, hexadecimal text with hex */
static void f_unsigned(struct pde_fields *fw, const char *key, uint64_t v,
		       bool hex)
{
	if (fw->json)
		pde_json_u64(&fw->j, key, v);
	else if (hex)
		text_field(fw, key, "0x%" PRIx64, v);
	else
		text_field(fw, key, "%" PRIu64, v);
}

void pde_f_u64(struct pde_fields *fw, const char *key, uint64_t v)
{
	f_unsigned(fw, key, v, false);
}

void pde_f_i64(struct pde_fields *fw, const char *key, int64_t v)
{
	if (fw->json)
		pde_json_i64(&fw->j, key, v);
	else
		text_field(fw, key, "%" PRId64, v);
}

void pde_f_hex(struct pde_fields *fw, const char *key, uint64_t v)
{
	f_unsigned(fw, key, v, true);
}

void pde_f_pid(struct pde_fields *fw, const char *key, uint32_t v)
{
	pde_f_i64(fw, key, (int32_t)v);
}

void pde_f_double(struct pde_fields *fw, const char *key, double v)
{
	if (fw->json)
		pde_json_double(&fw->j, key, v);
	else
		text_field(fw, key, "%g", v);
}

void pde_f_str(struct pde_fields *fw, const char *key, struct pd_str s)
{
	if (fw->json) {
		pde_json_strn(&fw->j, key, s.ptr, s.len);
		return;
	}
	text_sep(fw, key);
	pde_text_quoted(fw->out, s.ptr, s.len);
}

void pde_f_cstr(struct pde_fields *fw, const char *key, const char *s)
{
	struct pd_str v = {s, s ? strlen(s) : 0};

	if (s)
		pde_f_str(fw, key, v);
	else
		pde_f_null(fw, key);
}

void pde_f_null(struct pde_fields *fw, const char *key)
{
	if (fw->json)
		pde_json_null(&fw->j, key);
	else
		text_field(fw, key, "-");
}

void pde_f_bool(struct pde_fields *fw, const char *key, bool v)
{
	if (fw->json)
		pde_json_bool(&fw->j, key, v);
	else
		text_field(fw, key, "%s", v ? "true" : "false");
}

void pde_f_hexbytes(struct pde_fields *fw, const char *key,
		    const unsigned char *p, size_t n)
{
	if (fw->json) {
		pde_json_hexbytes(&fw->j, key, p, n);
		return;
	}
	text_sep(fw, key);
	for (size_t i = 0; i < n; i++)
		fprintf(fw->out, "%02x", p[i]);
}

static void open_(struct pde_fields *fw, const char *key, bool array)
{
	if (fw->json) {
		if (array)
			pde_json_begin_array(&fw->j, key);
		else
			pde_json_begin_object(&fw->j, key);
	} else {
		text_sep(fw, key);
		fputc(array ? '[' : '{', fw->out);
	}
	/* records nest a few levels at most; the cap only guards */
	if (fw->depth + 1 < PDE_FIELDS_MAX_DEPTH)
		fw->depth++;
	fw->first[fw->depth] = true;
	fw->in_array[fw->depth] = array;
}

void pde_f_object(struct pde_fields *fw, const char *key)
{
	open_(fw, key, false);
}

void pde_f_array(struct pde_fields *fw, const char *key)
{
	open_(fw, key, true);
}

void pde_f_close(struct pde_fields *fw)
{
	const bool array = fw->in_array[fw->depth];

	if (fw->json) {
		if (array)
			pde_json_end_array(&fw->j);
		else
			pde_json_end_object(&fw->j);
	} else {
		fputc(array ? ']' : '}', fw->out);
	}
	if (fw->depth > 0)
		fw->depth--;
}

void pde_f_hex_array(struct pde_fields *fw, const char *key,
		     const struct pd_u64s *a)
{
	pde_f_array(fw, key);
	for (uint64_t i = 0; i < a->nr; i++)
		pde_f_hex(fw, NULL, pd_u64s_get(a, i));
	pde_f_close(fw);
}

/* ---- tables of counts ---------------------------------------------- */

const char *pde_rec_name(uint32_t type, char buf[32])
{
	const char *name = pd_rec_type_name(type);

	if (name)
		return name;
	snprintf(buf, 32, "UNKNOWN_%" PRIu32, type);
	return buf;
}

void pde_f_count(struct pde_fields *fw, const char *name, uint64_t count)
{
	if (fw->json)
		pde_json_u64(&fw->j, name, count);
	else
		fprintf(fw->out, "  %-22s %12" PRIu64 "\n", name, count);
}

void pde_f_rec_counts(struct pde_fields *fw, const uint64_t *by_type)
{
	char buf[32];

	for (uint32_t type = 0; type < PD_REC_TYPE_MAX; type++)
		if (by_type[type])
			pde_f_count(fw, pde_rec_name(type, buf), by_type[type]);
}
