/*
 * pde_doc_int.h - the profile report's writer (pde_docw.c), private to
 * emit/: the sections (pde_doc.c) say what they hold (a source line,
 * fields, tables, notes, commands) once, and the writer puts it out as
 * GitHub-flavoured Markdown, as JSON or as a standalone HTML page (the
 * Markdown's rendering), so that the formats carry the same numbers.
 *
 * JSON: {"title":..,"sections":[{"key":..,"title":..,"parts":[{"source":
 * ..,"items":[..]}]}]}, each source starting a part, an item one of
 * {"type":"fields","fields":{KEY:..}}, {"type":"table","key":..,"rows":
 * [{COL:..}]}, {"type":"note","text":..}, {"type":"command","text":..}.
 * A number cell is a JSON number (a share as a fraction: Markdown shows
 * it in percent), a missing one null.
 */
#ifndef PDE_DOC_INT_H
#define PDE_DOC_INT_H

#include "pde.h"

#include "pdc_strbuf.h" /* PDC_PRINTF */

#define DOCW_MAX_COLS 12

struct docw {
	FILE *out;
	bool json;
	bool html;		/* an HTML page (json false) */
	struct pde_json j;
	int open;		/* JSON: a fields item is open */
	bool in_part;		/* JSON: a part is open */
	unsigned nr_cols, col;
	const char *keys[DOCW_MAX_COLS];
	char align[DOCW_MAX_COLS];	/* HTML: 'r' right-aligned */
};

void docw_init(struct docw *w, FILE *out, bool json, const char *title);
/* The same report as a standalone HTML page: what the Markdown shows,
 * rendered (headings, tables, code), with no script and no request. */
void docw_init_html(struct docw *w, FILE *out, const char *title);
int docw_finish(struct docw *w);

void docw_section(struct docw *w, const char *key, const char *title);
void docw_section_end(struct docw *w);
/* Where the section's numbers come from: a sentence. */
void docw_source(struct docw *w, const char *fmt, ...) PDC_PRINTF(2, 3);
/* One field of the section's field table. */
void docw_field(struct docw *w, const char *key, const char *label,
		const char *value);
void docw_field_u64(struct docw *w, const char *key, const char *label,
		    uint64_t v, const char *unit);
/* A sentence (escaped as text in Markdown). */
void docw_note(struct docw *w, const char *fmt, ...) PDC_PRINTF(2, 3);
/* A command line to run: a shell code block in Markdown. */
void docw_command(struct docw *w, const char *cmd);
/* A relative link to file (beside the report) shown as its name; JSON:
 * the field key. */
void docw_link(struct docw *w, const char *key, const char *label,
	       const char *file);

/* A table: nr_cols columns, each with its header and JSON key; align
 * 'r' for numbers. */
void docw_table(struct docw *w, const char *key, unsigned nr_cols,
		const char *const *heads, const char *const *keys,
		const char *align);
void docw_table_end(struct docw *w);
void docw_row(struct docw *w);
void docw_row_end(struct docw *w);
void docw_cell_text(struct docw *w, const char *s);
void docw_cell_code(struct docw *w, const char *s);
void docw_cell_u64(struct docw *w, uint64_t v);
/* v with decimals places, suffix after it in Markdown ("%") only. */
void docw_cell_num(struct docw *w, double v, int decimals,
		   const char *suffix);
/* Markdown shows v * md_scale (a fraction as a percentage), JSON v. */
void docw_cell_scaled(struct docw *w, double v, double md_scale,
		      int decimals, const char *suffix);
void docw_cell_none(struct docw *w);

/* a appended to b as the shell reads it back: as it is when it holds
 * only characters the shell leaves alone, else single-quoted */
void docw_shell_arg(struct pdc_strbuf *b, const char *a);

/* The sections of pde_docval.c (pde_doc.c has the others). */
void pde_doc_coverage(struct docw *w, const struct pde_doc *d);
void pde_doc_validation(struct docw *w, const struct pde_doc *d);

#endif /* PDE_DOC_INT_H */
