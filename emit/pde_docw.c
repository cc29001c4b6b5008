/*
 * pde_docw.c - the profile report's writer (pde_doc_int.h): sections,
 * fields, tables, notes and commands as GitHub-flavoured Markdown or as
 * one JSON object.  Every string from a capture goes through pde_md.c's
 * escapes or pde_json.c's.
 */
#include "pde_doc_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A JSON section: {"key","title","parts":[{"source","items":[ITEM..]}]},
 * an item {"type":"fields","fields":{..}}, {"type":"table","key",
 * "rows":[..]}, {"type":"note","text"} or {"type":"command","text"}. */
enum { OPEN_NONE, OPEN_FIELDS };

/* Close the fields item a JSON part has open. */
static void json_close_fields(struct docw *w)
{
	if (w->open == OPEN_FIELDS) {
		pde_json_end_object(&w->j);
		pde_json_end_object(&w->j);
	}
	w->open = OPEN_NONE;
}

/* Close the JSON part open, if any. */
static void json_close_part(struct docw *w)
{
	json_close_fields(w);
	if (w->in_part) {
		pde_json_end_array(&w->j);
		pde_json_end_object(&w->j);
	}
	w->in_part = false;
}

static void json_part(struct docw *w, const char *source)
{
	json_close_part(w);
	pde_json_begin_object(&w->j, NULL);
	if (source)
		pde_json_str(&w->j, "source", source);
	pde_json_begin_array(&w->j, "items");
	w->in_part = true;
}

/* Start a JSON item of type; in a part, one opened for it when none. */
static void json_item(struct docw *w, const char *type)
{
	json_close_fields(w);
	if (!w->in_part)
		json_part(w, NULL);
	pde_json_begin_object(&w->j, NULL);
	pde_json_str(&w->j, "type", type);
}

void docw_init(struct docw *w, FILE *out, bool json, const char *title)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->json = json;
	if (json) {
		pde_json_init(&w->j, out, true);
		pde_json_begin_object(&w->j, NULL);
		pde_json_str(&w->j, "title", title);
		pde_json_begin_array(&w->j, "sections");
		return;
	}
	fputs("# ", out);
	pde_md_text(out, title, strlen(title));
	fputs("\n", out);
}

int docw_finish(struct docw *w)
{
	if (w->json) {
		pde_json_end_array(&w->j);
		pde_json_end_object(&w->j);
		pde_json_newline(&w->j);
	}
	return ferror(w->out) ? PD_ERR_IO : 0;
}

void docw_section(struct docw *w, const char *key, const char *title)
{
	if (w->json) {
		pde_json_begin_object(&w->j, NULL);
		pde_json_str(&w->j, "key", key);
		pde_json_str(&w->j, "title", title);
		pde_json_begin_array(&w->j, "parts");
		w->open = OPEN_NONE;
		w->in_part = false;
		return;
	}
	fprintf(w->out, "\n## %s\n", title);
	w->open = OPEN_NONE;
}

void docw_section_end(struct docw *w)
{
	if (w->json) {
		json_close_part(w);
		pde_json_end_array(&w->j);
		pde_json_end_object(&w->j);
	}
}

/* A sentence: cut at 4 KiB (a note, not data), escaped as text. */
static void vtext(struct docw *w, const char *key, const char *prefix,
		  const char *fmt, va_list ap)
{
	char buf[4096];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (w->json) {
		if (key) {
			json_part(w, buf);
		} else {
			json_item(w, "note");
			pde_json_str(&w->j, "text", buf);
			pde_json_end_object(&w->j);
		}
		return;
	}
	fprintf(w->out, "\n%s", prefix);
	pde_md_text(w->out, buf, strlen(buf));
	fputs(prefix[0] ? "*\n" : "\n", w->out);
}

void docw_source(struct docw *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtext(w, "source", "*", fmt, ap);
	va_end(ap);
}

void docw_note(struct docw *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vtext(w, NULL, "", fmt, ap);
	va_end(ap);
}

/* The fields item of the JSON part, opened when not open. */
static void json_fields(struct docw *w)
{
	if (w->open == OPEN_FIELDS)
		return;
	json_item(w, "fields");
	pde_json_begin_object(&w->j, "fields");
	w->open = OPEN_FIELDS;
}

void docw_field(struct docw *w, const char *key, const char *label,
		const char *value)
{
	if (w->json) {
		json_fields(w);
		pde_json_str(&w->j, key, value);
		return;
	}
	if (w->open != OPEN_FIELDS) {
		fputs("\n| | |\n|---|---|\n", w->out);
		w->open = OPEN_FIELDS;
	}
	fprintf(w->out, "| %s | ", label);
	pde_md_text(w->out, value, strlen(value));
	fputs(" |\n", w->out);
}

void docw_field_u64(struct docw *w, const char *key, const char *label,
		    uint64_t v, const char *unit)
{
	char buf[64];

	if (w->json) {
		json_fields(w);
		pde_json_u64(&w->j, key, v);
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64 "%s%s", v, unit ? " " : "",
		 unit ? unit : "");
	docw_field(w, key, label, buf);
}

void docw_command(struct docw *w, const char *cmd)
{
	size_t run = 0, longest = 0;

	if (w->json) {
		json_item(w, "command");
		pde_json_str(&w->j, "text", cmd);
		pde_json_end_object(&w->j);
		return;
	}
	/* a fence longer than any run of backticks in the command */
	for (const char *p = cmd; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	fputc('\n', w->out);
	for (size_t i = 0; i < (longest < 3 ? 3 : longest + 1); i++)
		fputc('`', w->out);
	fputs("sh\n", w->out);
	pde_text_puts(w->out, cmd);
	fputc('\n', w->out);
	for (size_t i = 0; i < (longest < 3 ? 3 : longest + 1); i++)
		fputc('`', w->out);
	fputc('\n', w->out);
}

void docw_table(struct docw *w, const char *key, unsigned nr_cols,
		const char *const *heads, const char *const *keys,
		const char *align)
{
	w->nr_cols = nr_cols < DOCW_MAX_COLS ? nr_cols : DOCW_MAX_COLS;
	for (unsigned i = 0; i < w->nr_cols; i++)
		w->keys[i] = keys[i];
	if (w->json) {
		json_item(w, "table");
		pde_json_str(&w->j, "key", key);
		pde_json_begin_array(&w->j, "rows");
		return;
	}
	fputs("\n|", w->out);
	for (unsigned i = 0; i < w->nr_cols; i++)
		fprintf(w->out, " %s |", heads[i]);
	fputs("\n|", w->out);
	for (unsigned i = 0; i < w->nr_cols; i++)
		fputs(align[i] == 'r' ? "---:|" : "---|", w->out);
	fputc('\n', w->out);
}

void docw_table_end(struct docw *w)
{
	if (w->json) {
		pde_json_end_array(&w->j);
		pde_json_end_object(&w->j);
	}
	w->nr_cols = 0;
}

void docw_row(struct docw *w)
{
	w->col = 0;
	if (w->json)
		pde_json_begin_object(&w->j, NULL);
	else
		fputc('|', w->out);
}

void docw_row_end(struct docw *w)
{
	if (w->json)
		pde_json_end_object(&w->j);
	else
		fputc('\n', w->out);
}

/* The next cell's JSON key; in Markdown, its leading space. */
static const char *cell(struct docw *w)
{
	const char *k = w->col < w->nr_cols ? w->keys[w->col] : "extra";

	w->col++;
	if (!w->json)
		fputc(' ', w->out);
	return k;
}

void docw_cell_text(struct docw *w, const char *s)
{
	const char *k = cell(w);

	if (w->json) {
		pde_json_str(&w->j, k, s);
		return;
	}
	pde_md_text(w->out, s, strlen(s));
	fputs(" |", w->out);
}

void docw_cell_code(struct docw *w, const char *s)
{
	const char *k = cell(w);

	if (w->json) {
		pde_json_str(&w->j, k, s);
		return;
	}
	if (*s)
		pde_md_code(w->out, s, strlen(s), true);
	fputs(" |", w->out);
}

void docw_cell_u64(struct docw *w, uint64_t v)
{
	const char *k = cell(w);

	if (w->json) {
		pde_json_u64(&w->j, k, v);
		return;
	}
	fprintf(w->out, "%" PRIu64 " |", v);
}

void docw_cell_num(struct docw *w, double v, int decimals,
		   const char *suffix)
{
	const char *k = cell(w);

	if (w->json) {
		if (isfinite(v))
			pde_json_double(&w->j, k, v);
		else
			pde_json_null(&w->j, k);
		return;
	}
	if (isfinite(v))
		fprintf(w->out, "%.*f%s |", decimals, v, suffix ? suffix : "");
	else
		fputs(" |", w->out);
}

void docw_cell_scaled(struct docw *w, double v, double md_scale,
		      int decimals, const char *suffix)
{
	docw_cell_num(w, w->json ? v : v * md_scale, decimals, suffix);
}

void docw_cell_none(struct docw *w)
{
	const char *k = cell(w);

	if (w->json)
		pde_json_null(&w->j, k);
	else
		fputs(" |", w->out);
}

/* One argument as the shell reads it back: as it is when it holds only
 * characters the shell leaves alone, else in single quotes. */
void docw_shell_arg(struct pdc_strbuf *b, const char *a)
{
	const char *safe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789_@%+=:,./-";

	if (*a && strspn(a, safe) == strlen(a)) {
		pdc_strbuf_add(b, a, strlen(a));
		return;
	}
	pdc_strbuf_add(b, "'", 1);
	for (; *a; a++) {
		if (*a == '\'')
			pdc_strbuf_add(b, "'\\''", 4);
		else
			pdc_strbuf_add(b, a, 1);
	}
	pdc_strbuf_add(b, "'", 1);
}
