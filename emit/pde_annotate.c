/*
 * pde_annotate.c - annotated functions as text (the layout of perf
 * annotate --stdio: percentages, then address and instruction, source
 * lines between them) and Markdown, and the dispatch to the HTML and
 * JSON writers.
 *
 * A function's listing: a header (function, DSO, file, architecture,
 * samples per event), then for each instruction, in address order, a
 * row "func% total% M addr: mnemonic operands <target>" per event shown
 * (those with samples in the function), preceded by its source line
 * when the line changes and by an inline marker when the inline chain
 * changes.  M is '^' on a loop back-edge (a jump to an earlier or the
 * same instruction of the function) and '>' on the loop head it jumps
 * to.  Last, the hottest source lines.
 */
#include "pde_annotate_int.h"
#include "pdc_strbuf.h"
#include "pdc_text.h"

#include <inttypes.h>
#include <string.h>

#define COL_RED "\033[31m"
#define COL_GREEN "\033[32m"
#define COL_CYAN "\033[36m"
#define COL_DIM "\033[2m"
#define COL_OFF "\033[m"

double pde_annot_pct(const struct pde_annot *w,
		     const struct pda_annot_count *part,
		     const struct pda_annot_count *whole)
{
	uint64_t p = w->o.hits ? part->hits : part->period;
	uint64_t t = w->o.hits ? whole->hits : whole->period;

	if (!t && !w->o.hits) {
		/* an event without periods: by samples */
		p = part->hits;
		t = whole->hits;
	}
	return t ? 100.0 * (double)p / (double)t : 0.0;
}

bool pde_annot_event_in(const struct pda_annot_func *fn, size_t ev)
{
	return fn->sym->counts[ev].hits > 0;
}

const char *pde_annot_event(const struct pde_annot *w, size_t ev)
{
	if (ev < w->o.nr_events && w->o.events && w->o.events[ev])
		return w->o.events[ev];
	return "?";
}

const char *pde_annot_base(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "";
}

double pde_annot_max_pct(const struct pde_annot *w,
			 const struct pda_annot_func *fn,
			 const struct pda_annot_count *counts)
{
	double best = 0;

	for (size_t ev = 0; ev < fn->nr_events; ev++) {
		double p;

		if (!pde_annot_event_in(fn, ev))
			continue;
		p = pde_annot_pct(w, &counts[ev], &fn->sym->counts[ev]);
		if (p > best)
			best = p;
	}
	return best;
}

size_t pde_annot_nr_hot(const struct pde_annot *w,
			const struct pda_annot_func *fn)
{
	const size_t max = w->o.nr_hot_lines ? w->o.nr_hot_lines : 10;
	size_t nr = 0;

	while (nr < fn->nr_lines && nr < max &&
	       pde_annot_max_pct(w, fn, fn->lines[nr].counts) > 0)
		nr++;
	return nr;
}

const char *pde_annot_hot_text(const struct pde_annot *w,
			       const struct pda_annot_line *l, size_t *len)
{
	const char *text = pda_annot_source(w->a, l->file, l->line, len);

	while (text && *len && (*text == ' ' || *text == '\t')) {
		text++;
		(*len)--;
	}
	return text;
}

/* ---- text ---------------------------------------------------------- */

/*
 * Names from the capture and the binary (symbols, branch targets, DSO
 * paths, source file names, inlined functions, event names) are written
 * with pde_text_puts(): no byte of theirs reaches a terminal as an
 * escape or starts a line, also in the Markdown's code block, which the
 * listing is (a name that started a line could close its fence).
 */

/* An event's name in a column of width characters, cut to fit. */
static void put_column(FILE *out, const char *s, int width)
{
	char small[64];
	struct pdc_strbuf b;

	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	pdc_strbuf_add_text(&b, s, strlen(s));
	fprintf(out, " %-*.*s", width, width, pdc_strbuf_str(&b));
	pdc_strbuf_release(&b);
}

/* Source text with its tabs expanded to 8-column stops. */
static void src_text(FILE *out, const char *text, size_t len)
{
	size_t col = 0, from = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && text[i] != '\t')
			continue;
		pde_text_str(out, text + from, i - from);
		col += i - from;
		if (i < len) {
			do
				fputc(' ', out);
			while (++col % 8);
		}
		from = i + 1;
	}
}

static void text_header(struct pde_annot *w, const struct pda_annot_func *fn,
			bool color)
{
	const struct pda_annot_sym *sym = fn->sym;
	const struct pda_annot_count *totals = pda_annot_totals(w->a);
	FILE *out = w->out;

	fputs(color ? "\033[1m" : "", out);
	pde_text_puts(out, sym->name);
	fprintf(out, "%s (", color ? COL_OFF : "");
	pde_text_puts(out, sym->dso ? sym->dso : "[unknown]");
	if (sym->path && (!sym->dso || strcmp(sym->path, sym->dso))) {
		fputs(", from ", out);
		pde_text_puts(out, sym->path);
	}
	fprintf(out, "), %s, 0x%" PRIx64 " size 0x%" PRIx64 "\n", fn->arch,
		sym->start, fn->size);
	for (size_t ev = 0; ev < fn->nr_events; ev++) {
		if (!pde_annot_event_in(fn, ev))
			continue;
		fputs("  ", out);
		pde_text_puts(out, pde_annot_event(w, ev));
		fprintf(out,
			": %" PRIu64 " samples, %.2f%% of the event's "
			"(period %" PRIu64 ")\n",
			sym->counts[ev].hits,
			pde_annot_pct(w, &sym->counts[ev], &totals[ev]),
			sym->counts[ev].period);
	}
}

/* Whether an event has samples in fn. */
static bool sampled(const struct pda_annot_func *fn)
{
	for (size_t ev = 0; ev < fn->nr_events; ev++)
		if (pde_annot_event_in(fn, ev))
			return true;
	return false;
}

/* Whether the branch counters have a column. */
static bool cntr_shown(const struct pde_annot *w)
{
	return w->o.brcntr && w->o.brcntr->nr;
}

/* The Branch Counter column's width: perf's cell, or its title. */
static int cntr_width(const struct pde_annot *w)
{
	const int cell = pda_brcntr_cell_width(w->o.brcntr);

	return cell > 14 ? cell : 14;
}

/* The columns' heads: each event's name over its two columns. */
static void text_columns(struct pde_annot *w, const struct pda_annot_func *fn)
{
	FILE *out = w->out;

	for (size_t ev = 0; ev < fn->nr_events; ev++)
		if (pde_annot_event_in(fn, ev))
			put_column(out, pde_annot_event(w, ev), 13);
	/* a function annotated for its branch entries alone has none */
	if (sampled(fn))
		fputc('\n', out);
	for (size_t ev = 0; ev < fn->nr_events; ev++)
		if (pde_annot_event_in(fn, ev))
			fprintf(out, "   func  total");
	if (w->branches)
		fputs("   taken  miss%  cycles    IPC", out);
	if (w->branches && cntr_shown(w))
		fprintf(out, " %-*s", cntr_width(w), "Branch Counter");
	fprintf(out, "    address  instruction\n");
}

/* The branch columns of instruction in, blank where unknown: a miss rate
 * only where the hardware says predicted or not. */
static void text_branch(struct pde_annot *w, const struct pda_annot_func *fn,
			const struct pda_annot_insn *in)
{
	const struct pda_branch_insn *b;
	FILE *out = w->out;

	if (!w->branches)
		return;
	b = &w->branches[in - fn->insns];
	if (b->taken)
		fprintf(out, " %7" PRIu64, b->taken);
	else
		fputs("        ", out);
	if (b->with_pred)
		fprintf(out, " %6.2f",
			100.0 * (double)b->mispred / (double)b->with_pred);
	else
		fputs("       ", out);
	if (b->cycles_avg)
		fprintf(out, " %7" PRIu64, b->cycles_avg);
	else
		fputs("        ", out);
	if (b->ipc != 0.0)
		fprintf(out, " %6.2f", b->ipc);
	else
		fputs("       ", out);
	if (cntr_shown(w)) {
		char cell[PDA_BR_CNTR_CELL];

		/* shown where perf shows it: where cycles are */
		if (b->cycles_avg)
			pda_brcntr_entry(w->o.brcntr, b->cntr, b->nr_cycles,
					 cell, sizeof(cell));
		else
			cell[0] = 0;
		fprintf(out, " %-*s", cntr_width(w), cell);
	}
}

const char *pde_annot_br_words(const struct pde_annot *w, size_t i,
			       char *buf, size_t size)
{
	const struct pda_branch_insn *b = w->branches ? &w->branches[i] : NULL;
	size_t n = 0;

	if (!b || (!b->taken && !b->cycles_avg))
		return NULL;
	buf[0] = 0;
	if (b->taken)
		n += (size_t)snprintf(buf, size, "taken %" PRIu64, b->taken);
	if (b->with_pred && n < size)
		n += (size_t)snprintf(buf + n, size - n,
				      ", %.2f%% mispredicted",
				      100.0 * (double)b->mispred /
					      (double)b->with_pred);
	if (b->cycles_avg && n < size)
		n += (size_t)snprintf(buf + n, size - n, "%s%" PRIu64 " cycles",
				      n ? ", " : "", b->cycles_avg);
	if (b->ipc != 0.0 && n < size)
		n += (size_t)snprintf(buf + n, size - n, ", IPC %.2f", b->ipc);
	if (cntr_shown(w) && b->cycles_avg && n < size) {
		char cell[PDA_BR_CNTR_CELL];

		snprintf(buf + n, size - n, ", branch counters %s",
			 pda_brcntr_entry(w->o.brcntr, b->cntr, b->nr_cycles,
					  cell, sizeof(cell)));
	}
	return buf;
}

/* Blank percentage columns, for source and inline rows. */
static void text_blank(struct pde_annot *w, const struct pda_annot_func *fn)
{
	for (size_t ev = 0; ev < fn->nr_events; ev++)
		if (pde_annot_event_in(fn, ev))
			fputs("              ", w->out);
	if (w->branches)
		fputs("                              ", w->out);
	if (w->branches && cntr_shown(w))
		fprintf(w->out, " %*s", cntr_width(w), "");
	fputs("   ", w->out);
}

static void text_source(struct pde_annot *w, const struct pda_annot_func *fn,
			const struct pda_annot_insn *in, bool color)
{
	const char *text;
	size_t len;

	text_blank(w, fn);
	if (!in->srcfile) {
		fprintf(w->out, "%s(no source line)%s\n", color ? COL_DIM : "",
			color ? COL_OFF : "");
		return;
	}
	fputs(color ? COL_DIM : "", w->out);
	pde_text_puts(w->out, pde_annot_base(in->srcfile));
	fprintf(w->out, ":%u%s", in->line, color ? COL_OFF : "");
	text = pda_annot_source(w->a, in->srcfile, in->line, &len);
	if (text) {
		fputs("  ", w->out);
		src_text(w->out, text, len);
	}
	fputc('\n', w->out);
}

static void text_inline(struct pde_annot *w, const struct pda_annot_func *fn,
			const struct pda_annot_insn *in,
			const struct pda_annot_insn *prev, bool color)
{
	text_blank(w, fn);
	fputs(color ? COL_CYAN : "", w->out);
	if (in->inline_depth) {
		fputs("[inlined ", w->out);
		pde_text_puts(w->out, in->inline_func);
		if (in->call_file) {
			fputs(", called at ", w->out);
			pde_text_puts(w->out, pde_annot_base(in->call_file));
			fprintf(w->out, ":%u", in->call_line);
		}
		if (in->inline_depth > 1)
			fprintf(w->out, ", depth %u", in->inline_depth);
		fputc(']', w->out);
	} else {
		fputs("[end of inlined ", w->out);
		pde_text_puts(w->out, prev && prev->inline_func
					      ? prev->inline_func
					      : "code");
		fputc(']', w->out);
	}
	fprintf(w->out, "%s\n", color ? COL_OFF : "");
}

static void text_insn(struct pde_annot *w, const struct pda_annot_func *fn,
		      const struct pda_annot_insn *in, bool color)
{
	const double hot = pde_annot_max_pct(w, fn, in->counts);
	const char *col = !color		 ? ""
			  : hot >= PDE_ANNOT_HOT ? COL_RED
			  : hot >= PDE_ANNOT_WARM ? COL_GREEN
						 : "";
	const struct pda_annot_count *totals = pda_annot_totals(w->a);
	FILE *out = w->out;
	char mark = (in->flags & PDA_INSN_BACK_EDGE)	? '^'
		    : (in->flags & PDA_INSN_LOOP_HEAD) ? '>'
						       : ' ';

	fputs(col, out);
	for (size_t ev = 0; ev < fn->nr_events; ev++)
		if (pde_annot_event_in(fn, ev))
			fprintf(out, " %6.2f %6.2f",
				pde_annot_pct(w, &in->counts[ev],
					      &fn->sym->counts[ev]),
				pde_annot_pct(w, &in->counts[ev], &totals[ev]));
	text_branch(w, fn, in);
	fprintf(out, "%s %c %8" PRIx64 ":  ", col[0] ? COL_OFF : "", mark,
		in->addr);
	if (in->operands[0])
		fprintf(out, "%-7s %s", in->mnemonic, in->operands);
	else
		fputs(in->mnemonic, out);
	if (in->target_name) {
		fputs(" <", out);
		pde_text_puts(out, in->target_name);
		fputc('>', out);
	}
	if (w->notes && w->notes[in - fn->insns]) {
		fputs("\t\t# data-type: ", out);
		pde_text_puts(out, w->notes[in - fn->insns]);
	}
	fputc('\n', out);
}

static void text_hot_lines(struct pde_annot *w,
			   const struct pda_annot_func *fn)
{
	const size_t nr_hot = pde_annot_nr_hot(w, fn);
	FILE *out = w->out;

	if (!fn->nr_lines || !sampled(fn))
		return;
	fprintf(out, "\n  hottest source lines (func %%");
	for (size_t ev = 0; ev < fn->nr_events; ev++)
		if (pde_annot_event_in(fn, ev)) {
			fputs(", ", out);
			pde_text_puts(out, pde_annot_event(w, ev));
		}
	fprintf(out, "):\n");
	for (size_t i = 0; i < nr_hot; i++) {
		const struct pda_annot_line *l = &fn->lines[i];
		const char *text;
		size_t len;

		fputs(" ", out);
		for (size_t ev = 0; ev < fn->nr_events; ev++)
			if (pde_annot_event_in(fn, ev))
				fprintf(out, " %6.2f",
					pde_annot_pct(w, &l->counts[ev],
						      &fn->sym->counts[ev]));
		fputs("  ", out);
		pde_text_puts(out, pde_annot_base(l->file));
		fprintf(out, ":%u", l->line);
		text = pde_annot_hot_text(w, l, &len);
		if (text) {
			fputs("  ", out);
			src_text(out, text, len);
		}
		fputc('\n', out);
	}
}

/* The listing alone: columns, rows, and the hot lines with hot. */
static void text_listing(struct pde_annot *w, const struct pda_annot_func *fn,
			 bool color, bool hot)
{
	if (fn->error) {
		fprintf(w->out, "  (no disassembly: %s)\n", fn->error);
		return;
	}
	text_columns(w, fn);
	for (size_t i = 0; i < fn->nr_insns; i++) {
		const struct pda_annot_insn *in = &fn->insns[i];

		if (in->flags & PDA_INSN_INLINE_START)
			text_inline(w, fn, in, i ? &fn->insns[i - 1] : NULL,
				    color);
		if (in->flags & PDA_INSN_LINE_START)
			text_source(w, fn, in, color);
		text_insn(w, fn, in, color);
	}
	if (hot)
		text_hot_lines(w, fn);
}

static void text_func(struct pde_annot *w, const struct pda_annot_func *fn)
{
	if (w->nr_funcs)
		fputc('\n', w->out);
	text_header(w, fn, w->o.color);
	text_listing(w, fn, w->o.color, true);
}

/* ---- Markdown ------------------------------------------------------ */

static void md_text(FILE *out, const char *s)
{
	pde_md_text(out, s, strlen(s));
}

static void md_func(struct pde_annot *w, const struct pda_annot_func *fn)
{
	const struct pda_annot_sym *sym = fn->sym;
	const struct pda_annot_count *totals = pda_annot_totals(w->a);
	const size_t nr_hot = pde_annot_nr_hot(w, fn);
	FILE *out = w->out;

	fprintf(out, "\n## ");
	pde_md_code(out, sym->name, strlen(sym->name), false);
	fputs(" in ", out);
	if (sym->dso)
		md_text(out, sym->dso);
	else
		fputs("\\[unknown\\]", out);
	fprintf(out, "\n\n%s, 0x%" PRIx64 ", %" PRIu64 " bytes", fn->arch,
		sym->start, fn->size);
	if (sym->path) {
		fputs(", read from ", out);
		pde_md_code(out, sym->path, strlen(sym->path), false);
	}
	if (!sampled(fn))
		fputs(".  No samples: annotated for its branch entries.\n", out);
	else
		fprintf(out, ".\n\n| event | samples | period | of the event "
			     "|\n|---|---:|---:|---:|\n");
	for (size_t ev = 0; ev < fn->nr_events; ev++) {
		if (!pde_annot_event_in(fn, ev))
			continue;
		fputs("| ", out);
		md_text(out, pde_annot_event(w, ev));
		fprintf(out, " | %" PRIu64 " | %" PRIu64 " | %.2f%% |\n",
			sym->counts[ev].hits, sym->counts[ev].period,
			pde_annot_pct(w, &sym->counts[ev], &totals[ev]));
	}
	if (fn->nr_lines && sampled(fn)) {
		fprintf(out, "\n### Hottest source lines\n\n|");
		for (size_t ev = 0; ev < fn->nr_events; ev++)
			if (pde_annot_event_in(fn, ev)) {
				fputc(' ', out);
				md_text(out, pde_annot_event(w, ev));
				fputs(" % |", out);
			}
		fprintf(out, " line | source |\n|");
		for (size_t ev = 0; ev < fn->nr_events; ev++)
			if (pde_annot_event_in(fn, ev))
				fprintf(out, "---:|");
		fprintf(out, "---|---|\n");
		for (size_t i = 0; i < nr_hot; i++) {
			const struct pda_annot_line *l = &fn->lines[i];
			const char *text;
			size_t len;

			fputc('|', out);
			for (size_t ev = 0; ev < fn->nr_events; ev++)
				if (pde_annot_event_in(fn, ev))
					fprintf(out, " %.2f |",
						pde_annot_pct(
							w, &l->counts[ev],
							&sym->counts[ev]));
			fputc(' ', out);
			md_text(out, pde_annot_base(l->file));
			fprintf(out, ":%u | ", l->line);
			text = pde_annot_hot_text(w, l, &len);
			if (text)
				pde_md_code(out, text, len, true);
			fprintf(out, " |\n");
		}
	}
	fprintf(out, "\n### Disassembly\n\n```text\n");
	text_listing(w, fn, false, false);
	fprintf(out, "```\n");
}

/* ---- dispatch ------------------------------------------------------ */

int pde_annot_begin(struct pde_annot *w, FILE *out, struct pda_annot *a,
		    const struct pde_annot_opts *opts)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->o = *opts;
	w->a = a;
	switch (w->o.format) {
	case PDE_ANNOT_MD:
		fputs("# Annotation of ", out);
		if (opts->input)
			md_text(out, opts->input);
		else
			fputs("a capture", out);
		fprintf(out,
			"\n\n"
			"Percentages are of the function's %s (func) and of "
			"the event's (total).  `^` marks a loop back-edge, "
			"`>` the loop head it jumps to.\n",
			opts->hits ? "samples" : "periods");
		break;
	case PDE_ANNOT_HTML:
		pde_annot_html_begin(w);
		break;
	case PDE_ANNOT_JSON:
		pde_annot_json_begin(w);
		break;
	case PDE_ANNOT_TEXT:
	default:
		/* perf's legend of the Branch Counter column */
		if (cntr_shown(w) && (pda_brcntr_legend(w->o.brcntr, out, "#") < 0 ||
				      fputc('\n', out) == EOF))
			return PD_ERR_IO;
		break;
	}
	return pde_out_rc(out);
}

int pde_annot_func(struct pde_annot *w, const struct pda_annot_func *fn)
{
	switch (w->o.format) {
	case PDE_ANNOT_MD:
		md_func(w, fn);
		break;
	case PDE_ANNOT_HTML:
		pde_annot_html_func(w, fn);
		break;
	case PDE_ANNOT_JSON:
		pde_annot_json_func(w, fn);
		break;
	case PDE_ANNOT_TEXT:
	default:
		text_func(w, fn);
		break;
	}
	w->nr_funcs++;
	return pde_out_rc(w->out);
}

int pde_annot_end(struct pde_annot *w)
{
	switch (w->o.format) {
	case PDE_ANNOT_HTML:
		pde_annot_html_end(w);
		break;
	case PDE_ANNOT_JSON:
		pde_annot_json_end(w);
		break;
	case PDE_ANNOT_MD:
	case PDE_ANNOT_TEXT:
	default:
		break;
	}
	return pde_out_rc(w->out);
}
