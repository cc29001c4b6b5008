/*
 * pde_annotate_html.c - annotated functions as one standalone HTML page
 * (no external resources): per function, its samples per event, the
 * source (left) and the assembly (right) side by side, rows shaded by
 * their share of the function, and the hottest source lines.  Pointing
 * at a source line lights up its instructions and the other way round
 * (rows of one source line share a data-l attribute).
 *
 * Everything from the capture or the binary (names, paths, source text,
 * instructions) goes through esc(), in element text and in double-quoted
 * attribute values alike; the page's only script and style are the two
 * below, which its Content-Security-Policy allows by hash (pde_html.c),
 * so rows are shaded by class, not by style attributes.
 */
#include "pde_annotate_int.h"
#include "pde_html_int.h"

#include <inttypes.h>
#include <string.h>

#define SRC_SPAN_MAX 400 /* a file's lines shown whole up to this span */

static void esc(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '&')
			fputs("&amp;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c == '\'')
			fputs("&#39;", out);
		else if (c == '\t')
			fputs("        ", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

static void escs(FILE *out, const char *s)
{
	if (s)
		esc(out, s, strlen(s));
}

/* the page's style is this, then a rule per shade (style_text()) */
static const char style[] =
	"\n"
	"body{font:13px/1.35 system-ui,sans-serif;margin:1em 2em;"
	"color:#222}\n"
	"h2{font-size:1.2em;margin:1.6em 0 .3em;border-bottom:1px solid "
	"#ccc}\n"
	"h2 small{font-weight:normal;color:#666}\n"
	"table{border-collapse:collapse}\n"
	"td,th{padding:0 .5em;white-space:pre;vertical-align:top}\n"
	"th{text-align:left;font-weight:600}\n"
	".cols{display:flex;gap:1.5em;align-items:flex-start}\n"
	".cols>div{flex:1;overflow:auto;max-height:80vh;border:1px solid "
	"#ddd}\n"
	".code td{font:12px/1.3 ui-monospace,monospace}\n"
	".p{text-align:right;color:#444}\n"
	".n,.a{color:#888;text-align:right}\n"
	".f td{background:#eef;font-weight:600}\n"
	".inl td{color:#07a}\n"
	"tr.sel td{outline:1px solid #06c;background:#cde !important}\n"
	".err{color:#a00}\n";

/* from 0.08 to 0.68 in hundredths: a row's shading by its share */
#define SHADE_MIN 8
#define SHADE_MAX 68

/* The page's style, exactly as written between <style> and </style>. */
static void style_text(char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "%s", style);

	for (int i = SHADE_MIN; i <= SHADE_MAX && len < size; i++)
		len += (size_t)snprintf(
			buf + len, size - len,
			".s%d{background:rgba(255,80,0,.%02d)}\n", i, i);
}

/* The page's script, exactly as written between <script> and </script>. */
static const char script[] =
	"\n"
	"document.addEventListener('mouseover',function(e){\n"
	"  var r=e.target.closest('tr[data-l]');\n"
	"  document.querySelectorAll('tr.sel').forEach(function(x){\n"
	"    x.classList.remove('sel');});\n"
	"  if(!r)return;\n"
	"  var s=r.closest('section');\n"
	"  s.querySelectorAll('tr[data-l=\"'+r.dataset.l+'\"]')\n"
	"   .forEach(function(x){x.classList.add('sel');});\n"
	"});\n";

void pde_annot_html_begin(struct pde_annot *w)
{
	char css[sizeof(style) + 64 * (SHADE_MAX - SHADE_MIN + 1)];
	FILE *out = w->out;

	style_text(css, sizeof(css));
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		     "<meta charset=\"utf-8\">\n");
	pde_html_csp(out, script, css, false);
	fputs("<title>pdtool annotate", out);
	if (w->o.input) {
		fputs(": ", out);
		escs(out, w->o.input);
	}
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
	fprintf(out, "<h1>Annotation of ");
	escs(out, w->o.input ? w->o.input : "a capture");
	fprintf(out,
		"</h1>\n<p>Percentages are of the function's %s (func) and "
		"of the event's (total).  &uarr; marks a loop back-edge, "
		"&rarr; the loop head it jumps to.  Point at a row to see "
		"its source line and instructions together.</p>\n",
		w->o.hits ? "samples" : "periods");
}

/* A row's shading by its hottest share of the function: a class, as
 * the policy allows no style attribute. */
static void shade(FILE *out, double pct)
{
	double alpha = pct / 25.0;

	if (!(pct > 0))
		return;
	if (alpha > 1)
		alpha = 1;
	fprintf(out, " class=\"s%d\"",
		SHADE_MIN + (int)((SHADE_MAX - SHADE_MIN) * alpha + 0.5));
}

/* The index of (file, line) in fn->lines, or nr_lines. */
static size_t line_index(const struct pda_annot_func *fn, const char *file,
			 unsigned line)
{
	for (size_t i = 0; i < fn->nr_lines; i++)
		if (fn->lines[i].file == file && fn->lines[i].line == line)
			return i;
	return fn->nr_lines;
}

static void pct_cells(struct pde_annot *w, const struct pda_annot_func *fn,
		      const struct pda_annot_count *c)
{
	for (size_t ev = 0; ev < fn->nr_events; ev++)
		if (pde_annot_event_in(fn, ev)) {
			double p = c ? pde_annot_pct(w, &c[ev],
						     &fn->sym->counts[ev])
				     : 0;

			if (c && p > 0)
				fprintf(w->out, "<td class=\"p\">%.2f</td>", p);
			else
				fputs("<td class=\"p\"></td>", w->out);
		}
}

static void src_file(struct pde_annot *w, const struct pda_annot_func *fn,
		     const char *file)
{
	unsigned lo = 0, hi = 0;
	FILE *out = w->out;
	size_t ncols = 2;

	for (size_t ev = 0; ev < fn->nr_events; ev++)
		ncols += pde_annot_event_in(fn, ev);
	for (size_t i = 0; i < fn->nr_lines; i++)
		if (fn->lines[i].file == file) {
			if (!lo || fn->lines[i].line < lo)
				lo = fn->lines[i].line;
			if (fn->lines[i].line > hi)
				hi = fn->lines[i].line;
		}
	fprintf(out, "<tr class=\"f\"><td colspan=\"%zu\">", ncols);
	escs(out, file);
	fputs("</td></tr>\n", out);
	for (unsigned l = lo; l && l <= hi; l++) {
		size_t k = line_index(fn, file, l), len;
		const char *text;

		/* a wide span: only the lines that have code */
		if (k == fn->nr_lines && hi - lo > SRC_SPAN_MAX)
			continue;
		fputs("<tr", out);
		if (k < fn->nr_lines) {
			fprintf(out, " data-l=\"%zu\"", k);
			shade(out, pde_annot_max_pct(w, fn, fn->lines[k].counts));
		}
		fputc('>', out);
		pct_cells(w, fn, k < fn->nr_lines ? fn->lines[k].counts : NULL);
		fprintf(out, "<td class=\"n\">%u</td><td>", l);
		text = pda_annot_source(w->a, file, l, &len);
		if (text)
			esc(out, text, len);
		fputs("</td></tr>\n", out);
	}
}

/* A code table's head row: the events shown, then the other columns. */
static void head_row(struct pde_annot *w, const struct pda_annot_func *fn,
		     const char *rest)
{
	FILE *out = w->out;

	fputs("<table class=\"code\"><tr>", out);
	for (size_t ev = 0; ev < fn->nr_events; ev++)
		if (pde_annot_event_in(fn, ev)) {
			fputs("<th>", out);
			escs(out, pde_annot_event(w, ev));
			fputs("</th>", out);
		}
	fprintf(out, "%s</tr>\n", rest);
}

/* A file name and line, as a cell's text or an attribute's value. */
static void file_line(FILE *out, const char *file, unsigned line)
{
	escs(out, pde_annot_base(file));
	fprintf(out, ":%u", line);
}

static void src_column(struct pde_annot *w, const struct pda_annot_func *fn)
{
	FILE *out = w->out;

	fputs("<div>", out);
	head_row(w, fn, "<th>line</th><th>source</th>");
	/* each file once, in the order of its first instruction */
	for (size_t i = 0; i < fn->nr_insns; i++) {
		const char *file = fn->insns[i].srcfile;
		bool seen = false;

		if (!file)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = fn->insns[k].srcfile == file;
		if (!seen)
			src_file(w, fn, file);
	}
	fputs("</table></div>\n", out);
}

static void asm_column(struct pde_annot *w, const struct pda_annot_func *fn)
{
	FILE *out = w->out;
	char brw[128];

	fputs("<div>", out);
	head_row(w, fn, "<th>address</th><th></th><th>instruction</th>");
	for (size_t i = 0; i < fn->nr_insns; i++) {
		const struct pda_annot_insn *in = &fn->insns[i];
		size_t k = line_index(fn, in->srcfile, in->line);

		if (in->flags & PDA_INSN_INLINE_START) {
			fputs("<tr class=\"inl\">", out);
			pct_cells(w, fn, NULL);
			fputs("<td></td><td></td><td>", out);
			if (in->inline_depth) {
				fputs("inlined ", out);
				escs(out, in->inline_func);
				if (in->call_file) {
					fputs(", called at ", out);
					file_line(out, in->call_file,
						  in->call_line);
				}
			} else {
				fputs("end of inlined code", out);
			}
			fputs("</td></tr>\n", out);
		}
		fputs("<tr", out);
		if (k < fn->nr_lines)
			fprintf(out, " data-l=\"%zu\"", k);
		if (in->srcfile) {
			fputs(" title=\"", out);
			file_line(out, in->srcfile, in->line);
			fputc('"', out);
		}
		shade(out, pde_annot_max_pct(w, fn, in->counts));
		fputc('>', out);
		pct_cells(w, fn, in->counts);
		fprintf(out, "<td class=\"a\">%" PRIx64 "</td><td>%s</td><td>",
			in->addr,
			(in->flags & PDA_INSN_BACK_EDGE)   ? "&uarr;"
			: (in->flags & PDA_INSN_LOOP_HEAD) ? "&rarr;"
							   : "");
		escs(out, in->mnemonic);
		if (in->operands[0]) {
			fputc(' ', out);
			escs(out, in->operands);
		}
		if (in->target_name) {
			fputs(" &lt;", out);
			escs(out, in->target_name);
			fputs("&gt;", out);
		}
		if (w->notes && w->notes[in - fn->insns]) {
			fputs(" # data-type: ", out);
			escs(out, w->notes[in - fn->insns]);
		}
		if (pde_annot_br_words(w, (size_t)(in - fn->insns), brw,
				       sizeof(brw))) {
			fputs(" # ", out);
			escs(out, brw);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

static void hot_lines(struct pde_annot *w, const struct pda_annot_func *fn)
{
	const size_t nr_hot = pde_annot_nr_hot(w, fn);
	FILE *out = w->out;

	if (!fn->nr_lines)
		return;
	fputs("<h3>Hottest source lines</h3>\n", out);
	head_row(w, fn, "<th>line</th><th>source</th>");
	for (size_t i = 0; i < nr_hot; i++) {
		const struct pda_annot_line *l = &fn->lines[i];
		const char *text;
		size_t len;

		fprintf(out, "<tr data-l=\"%zu\">", i);
		pct_cells(w, fn, l->counts);
		fputs("<td>", out);
		file_line(out, l->file, l->line);
		fputs("</td><td>", out);
		text = pda_annot_source(w->a, l->file, l->line, &len);
		if (text)
			esc(out, text, len);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

void pde_annot_html_func(struct pde_annot *w, const struct pda_annot_func *fn)
{
	const struct pda_annot_sym *sym = fn->sym;
	const struct pda_annot_count *totals = pda_annot_totals(w->a);
	FILE *out = w->out;

	fprintf(out, "<section id=\"f%zu\">\n<h2>", w->nr_funcs);
	escs(out, sym->name);
	fputs(" <small>", out);
	escs(out, sym->dso ? sym->dso : "[unknown]");
	fputs(", ", out);
	escs(out, fn->arch);
	fprintf(out, ", 0x%" PRIx64 ", %" PRIu64 " bytes</small></h2>\n",
		sym->start, fn->size);
	fputs("<table><tr><th>event</th><th>samples</th><th>period</th>"
	      "<th>of the event</th></tr>\n",
	      out);
	for (size_t ev = 0; ev < fn->nr_events; ev++)
		if (pde_annot_event_in(fn, ev)) {
			fputs("<tr><td>", out);
			escs(out, pde_annot_event(w, ev));
			fprintf(out,
				"</td><td class=\"p\">%" PRIu64
				"</td><td class=\"p\">%" PRIu64
				"</td><td class=\"p\">%.2f%%</td></tr>\n",
				sym->counts[ev].hits, sym->counts[ev].period,
				pde_annot_pct(w, &sym->counts[ev],
					      &totals[ev]));
		}
	fputs("</table>\n", out);
	if (fn->error) {
		fputs("<p class=\"err\">No disassembly: ", out);
		escs(out, fn->error);
		fputs("</p>\n</section>\n", out);
		return;
	}
	hot_lines(w, fn);
	fputs("<div class=\"cols\">\n", out);
	src_column(w, fn);
	asm_column(w, fn);
	fputs("</div>\n</section>\n", out);
}

void pde_annot_html_end(struct pde_annot *w)
{
	if (!w->nr_funcs)
		fputs("<p>No function has samples.</p>\n", w->out);
	fprintf(w->out, "<script>%s</script>\n</body>\n</html>\n", script);
}
