/*
 * pde_docw.c - the profile report's writer (pde_doc_int.h): sections,
 * fields, tables, notes and commands as GitHub-flavoured Markdown, as
 * one JSON object or as an HTML page.  Every string from a capture goes
 * through pde_md.c's escapes, pde_json.c's or pde_html_text().
 */
#include "pde_doc_int.h"
#include "pde_html_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A JSON section: {"key","title","parts":[{"source","items":[ITEM..]}]},
 * an item {"type":"fields","fields":{..}}, {"type":"table","key",
 * "rows":[..]}, {"type":"note","text"} or {"type":"command","text"}. */
enum { OPEN_NONE, OPEN_FIELDS };

/* The page's only style; no script (the CSP allows none). */
static const char html_style[] =
	"body{font:15px/1.5 -apple-system,'Segoe UI',Helvetica,Arial,"
	"sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;"
	"color:#1f2328}"
	"h1,h2{border-bottom:1px solid #d1d9e0;padding-bottom:.3em}"
	"table{border-collapse:collapse;margin:1em 0}"
	"th,td{border:1px solid #d1d9e0;padding:4px 10px;"
	"vertical-align:top}"
	"th{background:#f6f8fa}td.r,th.r{text-align:right}"
	"code,pre{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;"
	"background:#f6f8fa}"
	"pre{padding:1em;overflow:auto}"
	"p.source{color:#59636e}";

static void html_text(struct docw *w, const char *s)
{
	pde_html_text(w->out, s, strlen(s));
}

/* Close the field table HTML has open. */
static void html_close_fields(struct docw *w)
{
	if (w->open == OPEN_FIELDS)
		fputs("</table>\n", w->out);
	w->open = OPEN_NONE;
}

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

void docw_init_html(struct docw *w, FILE *out, const char *title)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->html = true;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n", out);
	pde_html_csp(out, NULL, html_style, false);
	fputs("<meta charset=\"utf-8\">\n<title>", out);
	html_text(w, title);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>",
		html_style);
	html_text(w, title);
	fputs("</h1>\n", out);
}

int docw_finish(struct docw *w)
{
	if (w->html)
		fputs("</body>\n</html>\n", w->out);
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
	w->open = OPEN_NONE;
	if (w->html) {
		fprintf(w->out, "<section id=\"%s\">\n<h2>", key);
		html_text(w, title);
		fputs("</h2>\n", w->out);
		return;
	}
	fprintf(w->out, "\n## %s\n", title);
}

void docw_section_end(struct docw *w)
{
	if (w->html) {
		html_close_fields(w);
		fputs("</section>\n", w->out);
	}
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
	if (w->html) {
		html_close_fields(w);
		fputs(key ? "<p class=\"source\"><em>" : "<p>", w->out);
		html_text(w, buf);
		fputs(key ? "</em></p>\n" : "</p>\n", w->out);
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
	if (w->html) {
		if (w->open != OPEN_FIELDS)
			fputs("<table class=\"fields\">\n", w->out);
		w->open = OPEN_FIELDS;
		fputs("<tr><th>", w->out);
		html_text(w, label);
		fputs("</th><td>", w->out);
		html_text(w, value);
		fputs("</td></tr>\n", w->out);
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
	if (w->html) {
		html_close_fields(w);
		fputs("<pre><code>", w->out);
		html_text(w, cmd);
		fputs("</code></pre>\n", w->out);
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
	if (w->html) {
		html_close_fields(w);
		fputs("<table>\n<thead><tr>", w->out);
		for (unsigned i = 0; i < w->nr_cols; i++) {
			w->align[i] = align[i];
			fputs(align[i] == 'r' ? "<th class=\"r\">" : "<th>",
			      w->out);
			html_text(w, heads[i]);
			fputs("</th>", w->out);
		}
		fputs("</tr></thead>\n<tbody>\n", w->out);
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
	if (w->html)
		fputs("</tbody>\n</table>\n", w->out);
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
	else if (w->html)
		fputs("<tr>", w->out);
	else
		fputc('|', w->out);
}

void docw_row_end(struct docw *w)
{
	if (w->json)
		pde_json_end_object(&w->j);
	else if (w->html)
		fputs("</tr>\n", w->out);
	else
		fputc('\n', w->out);
}

/* The next cell's JSON key; in Markdown, its leading space. */
static const char *cell(struct docw *w)
{
	const char *k = w->col < w->nr_cols ? w->keys[w->col] : "extra";

	if (w->html)
		fputs(w->col < w->nr_cols && w->align[w->col] == 'r'
			      ? "<td class=\"r\">"
			      : "<td>",
		      w->out);
	w->col++;
	if (!w->json && !w->html)
		fputc(' ', w->out);
	return k;
}

/* The end of a cell: Markdown's " |" or HTML's "</td>". */
static void cell_end(struct docw *w)
{
	fputs(w->html ? "</td>" : " |", w->out);
}

void docw_cell_text(struct docw *w, const char *s)
{
	const char *k = cell(w);

	if (w->json) {
		pde_json_str(&w->j, k, s);
		return;
	}
	if (w->html)
		html_text(w, s);
	else
		pde_md_text(w->out, s, strlen(s));
	cell_end(w);
}

void docw_cell_code(struct docw *w, const char *s)
{
	const char *k = cell(w);

	if (w->json) {
		pde_json_str(&w->j, k, s);
		return;
	}
	if (*s && w->html) {
		fputs("<code>", w->out);
		html_text(w, s);
		fputs("</code>", w->out);
	} else if (*s) {
		pde_md_code(w->out, s, strlen(s), true);
	}
	cell_end(w);
}

void docw_cell_u64(struct docw *w, uint64_t v)
{
	const char *k = cell(w);

	if (w->json) {
		pde_json_u64(&w->j, k, v);
		return;
	}
	fprintf(w->out, "%" PRIu64, v);
	cell_end(w);
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
		fprintf(w->out, "%.*f%s", decimals, v, suffix ? suffix : "");
	else if (!w->html)
		fputc(' ', w->out);
	cell_end(w);
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
	else if (w->html)
		cell_end(w);
	else
		fputs(" |", w->out);
}

void docw_link(struct docw *w, const char *key, const char *label,
	       const char *file)
{
	if (w->json) {
		docw_field(w, key, label, file);
		return;
	}
	if (w->html) {
		html_close_fields(w);
		fputs("<p><a href=\"", w->out);
	} else {
		fputs("\n[", w->out);
		pde_md_text(w->out, file, strlen(file));
		fputs("](", w->out);
	}
	/* a relative link: the file name as a URL path segment */
	for (const unsigned char *p = (const unsigned char *)file; *p; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
			   "TUVWXYZ0123456789-._~/",
			   *p))
			fputc(*p, w->out);
		else
			fprintf(w->out, "%%%02X", *p);
	if (w->html) {
		fputs("\">", w->out);
		html_text(w, file);
		fputs("</a></p>\n", w->out);
	} else {
		fputs(")\n", w->out);
	}
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
