/*
 * pde_json.c - a streaming JSON writer that always emits valid JSON,
 * whatever bytes a capture's strings hold.
 */
#include "pde_text_int.h"
#include "pdc_utf8.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void pde_json_init(struct pde_json *j, FILE *out, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = pretty;
	j->first[0] = true;
}

static void indent(struct pde_json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

static void write_escaped(FILE *out, const char *s, size_t n);

/* separator, indentation and key before a value */
static void prefix(struct pde_json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->out);
		j->first[j->depth] = false;
		indent(j);
	}
	if (key) {
		write_escaped(j->out, key, strlen(key));
		fputs(j->pretty ? ": " : ":", j->out);
	}
}

static void open_(struct pde_json *j, const char *key, int c)
{
	prefix(j, key);
	fputc(c, j->out);
	if (j->depth + 1 < PDE_JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct pde_json *j, int c)
{
	const bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->out);
}

void pde_json_begin_object(struct pde_json *j, const char *key)
{
	open_(j, key, '{');
}

void pde_json_end_object(struct pde_json *j)
{
	close_(j, '}');
}

void pde_json_begin_array(struct pde_json *j, const char *key)
{
	open_(j, key, '[');
}

void pde_json_end_array(struct pde_json *j)
{
	close_(j, ']');
}

static void write_escaped(FILE *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	fputc('"', out);
	while (i < n && s[i]) {
		const unsigned char c = s[i];
		size_t len;

		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
			i++;
			continue;
		}
		if (c == '\n') {
			fputs("\\n", out);
			i++;
			continue;
		}
		if (c == '\t') {
			fputs("\\t", out);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			i++;
			continue;
		}
		len = pdc_utf8_len(s + i, n - i);
		if (len == 0) {
			/* not UTF-8: the byte's value as a code point */
			fprintf(out, "\\u%04x", c);
			i++;
			continue;
		}
		fwrite(s + i, 1, len, out);
		i += len;
	}
	fputc('"', out);
}

void pde_json_strn(struct pde_json *j, const char *key, const char *s,
		   size_t n)
{
	prefix(j, key);
	write_escaped(j->out, s, n);
}

void pde_json_str(struct pde_json *j, const char *key, const char *s)
{
	if (!s) {
		pde_json_null(j, key);
		return;
	}
	pde_json_strn(j, key, s, strlen(s));
}

void pde_json_u64(struct pde_json *j, const char *key, uint64_t v)
{
	prefix(j, key);
	fprintf(j->out, "%" PRIu64, v);
}

void pde_json_i64(struct pde_json *j, const char *key, int64_t v)
{
	prefix(j, key);
	fprintf(j->out, "%" PRId64, v);
}

void pde_json_double(struct pde_json *j, const char *key, double v)
{
	prefix(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.17g", v);
	else
		fputs("null", j->out);
}

void pde_json_decimal(struct pde_json *j, const char *key, uint64_t v,
		      unsigned decimals)
{
	uint64_t scale = 1;

	prefix(j, key);
	for (unsigned d = 0; d < decimals && d < 19; d++)
		scale *= 10;
	if (scale == 1) {
		fprintf(j->out, "%" PRIu64, v);
		return;
	}
	/* exact digits, where a double would round past 2^53 */
	fprintf(j->out, "%" PRIu64 ".%0*" PRIu64, v / scale,
		(int)(decimals < 19 ? decimals : 19), v % scale);
}

void pde_json_hex(struct pde_json *j, const char *key, uint64_t v)
{
	prefix(j, key);
	fprintf(j->out, "\"0x%" PRIx64 "\"", v);
}

void pde_json_bool(struct pde_json *j, const char *key, bool v)
{
	prefix(j, key);
	fputs(v ? "true" : "false", j->out);
}

void pde_json_null(struct pde_json *j, const char *key)
{
	prefix(j, key);
	fputs("null", j->out);
}

void pde_json_hexbytes(struct pde_json *j, const char *key,
		       const unsigned char *p, size_t n)
{
	prefix(j, key);
	fputc('"', j->out);
	for (size_t i = 0; i < n; i++)
		fprintf(j->out, "%02x", p[i]);
	fputc('"', j->out);
}

void pde_json_newline(struct pde_json *j)
{
	fputc('\n', j->out);
	j->first[0] = true;
}
