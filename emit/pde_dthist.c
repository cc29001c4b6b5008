/*
 * pde_dthist.c - samples per data type and member (pda_dthist.h): the
 * text is perf 7.2's `perf annotate --data-type --stdio` (annotate-data.c's
 * print_annotated_data_type(); 6.8 wrote offsets and sizes in decimal): a
 * member's value is its share of the type's period, its rows nested in
 * braces.
 */
#include "pde.h"
#include "pda_dthist.h"
#include "pde_text_int.h"

#include <inttypes.h>
#include <string.h>

/* perf's width of a value column without --show-total-period */
#define VALUE_WIDTH 7

static double percent(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* --data-type=NAME: "foo" also names "struct foo" and "union foo", as
 * perf's hists__find_annotations() skips the prefix. */
static bool wanted(const char *only, const char *type)
{
	if (!only)
		return true;
	if (strncmp(only, "struct ", 7) && !strncmp(type, "struct ", 7))
		type += 7;
	else if (strncmp(only, "union ", 6) && !strncmp(type, "union ", 6))
		type += 6;
	return !strcmp(only, type);
}

/* perf's get_percent_color(): red from 5%, green over 0.5%. */
static const char *color_of(bool color, double pct)
{
	if (!color)
		return NULL;
	if (pct >= 5.0)
		return "\033[31m";
	if (pct > 0.5)
		return "\033[32m";
	return NULL;
}

/* " %#10x" */
static void hex10(FILE *out, uint64_t v)
{
	char buf[24];

	if (v)
		snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	else
		snprintf(buf, sizeof(buf), "0");
	fprintf(out, " %10s", buf);
}

/* Row i and its members; @return the index past them. */
static size_t text_row(FILE *out, const struct pda_dthist_type *t, size_t i,
		       bool color)
{
	const struct pda_dthist_row *r = &t->rows[i];
	const double pct = percent(r->period, t->period);
	const char *c = color_of(color, pct);
	const int indent = (int)r->depth * 4;
	size_t k;

	fputc(' ', out);
	if (c)
		fputs(c, out);
	fprintf(out, "%*.2f", VALUE_WIDTH, pct);
	if (c)
		fputs("\033[m", out);
	/* perf 7.2's "%#10x": hex, 0 as "0" */
	hex10(out, (uint64_t)r->offset);
	hex10(out, r->size);
	fprintf(out, "  %*s", indent, "");
	pde_text_puts(out, r->type);
	fputc('\t', out);
	pde_text_puts(out, r->name);
	if (r->end > i + 1)
		fputs(" {\n", out);
	for (k = i + 1; k < r->end && k < t->nr_rows;)
		k = text_row(out, t, k, color);
	if (r->end > i + 1)
		fprintf(out, "%*s}", VALUE_WIDTH + 1 + 24 + indent, "");
	fputs(";\n", out);
	return r->end > i ? r->end : i + 1;
}

/* Rows nested deeper are not named in a line's fields. */
#define MAX_NEST 32

typedef void line_field_fn(void *arg, const char *path, bool first);

/* A member's path from its type ("in.pt.y") */
#define PATH_MAX_LEN 512

/*
 * Row r's path from its type into path ("" for the type itself and for
 * rows nested deeper than MAX_NEST): the names of the rows it is in,
 * anonymous ones left out, then its own.  names[] holds the names of
 * the rows above it, kept here as the caller walks the rows in order.
 */
static const char *row_path(const char **names, const struct pda_dthist_row *r,
			    char *path)
{
	size_t len = 0;

	path[0] = '\0';
	if (r->depth >= MAX_NEST)
		return path;
	names[r->depth] = r->name;
	for (unsigned d = 1; d <= r->depth && len < PATH_MAX_LEN; d++)
		if (names[d])
			len += (size_t)snprintf(path + len, PATH_MAX_LEN - len,
						"%s%s", len ? "." : "",
						names[d]);
	return path;
}

/*
 * The fields of t whose bytes meet cache line l: its innermost members
 * (an array as one), each by its path from the type ("in.pt.y"; an
 * anonymous one by its type; a scalar type by its name), in layout
 * order: which fields share the line, the false-sharing question.
 */
static void line_fields(const struct pda_dthist_type *t,
			const struct pda_dthist_line *l, line_field_fn *fn,
			void *arg)
{
	const char *names[MAX_NEST] = {0};
	const int64_t lo = l->start, hi = lo + PDA_DTHIST_LINE;
	bool first = true;

	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct pda_dthist_row *r = &t->rows[i];
		const int64_t size = r->size ? (int64_t)r->size : 1;
		char path[PATH_MAX_LEN];

		if (r->depth >= MAX_NEST)
			continue;
		row_path(names, r, path);
		if (!r->depth || r->end > i + 1 || r->offset >= hi ||
		    r->offset + size <= lo)
			continue;
		fn(arg, path[0] ? path : r->type, first);
		first = false;
	}
	/* a scalar type is its own field */
	if (first && t->nr_rows == 1)
		fn(arg, t->rows[0].type, true);
}

static void text_field(void *arg, const char *path, bool first)
{
	FILE *out = arg;

	if (!first)
		fputs(", ", out);
	pde_text_puts(out, path);
}

/* A line's offset in the type, signed: "-0x8" before the object. */
static void shex10(FILE *out, int64_t v)
{
	char buf[24];

	if (v < 0)
		snprintf(buf, sizeof(buf), "-0x%" PRIx64, (uint64_t)0 - (uint64_t)v);
	else if (v)
		snprintf(buf, sizeof(buf), "0x%" PRIx64, (uint64_t)v);
	else
		snprintf(buf, sizeof(buf), "0");
	fprintf(out, " %10s", buf);
}

/* --cacheline: the type's lines with samples under its members; then,
 * when samples have data addresses, the lines they hit in memory, by
 * where the object starts in its line */
static void text_lines(FILE *out, const struct pda_dthist_type *t)
{
	fprintf(out, "%*s %10s %10s  %s\n", VALUE_WIDTH + 1, "Percent",
		"line", "offset", "fields (64-byte cache lines)");
	for (size_t k = 0; k < t->nr_lines; k++) {
		const struct pda_dthist_line *l = &t->lines[k];

		fprintf(out, " %*.2f %10" PRIu64, VALUE_WIDTH,
			percent(l->period, t->period), l->line);
		hex10(out, l->line * PDA_DTHIST_LINE);
		fputs("  ", out);
		line_fields(t, l, text_field, out);
		fputc('\n', out);
	}
	if (!t->nr_addr_lines)
		return;
	fprintf(out,
		"%*s %10s %10s %10s  fields (the lines %" PRIu64
		" sample%s with a data address hit)\n",
		VALUE_WIDTH + 1, "Percent", "start", "line", "offset",
		t->addr_samples, t->addr_samples == 1 ? "" : "s");
	for (size_t k = 0; k < t->nr_addr_lines; k++) {
		const struct pda_dthist_line *l = &t->addr_lines[k];

		fprintf(out, " %*.2f", VALUE_WIDTH,
			percent(l->period, t->addr_period));
		hex10(out, l->align);
		fprintf(out, " %10" PRIu64, l->line);
		shex10(out, l->start);
		fputs("  ", out);
		line_fields(t, l, text_field, out);
		fputc('\n', out);
	}
}

static void text_type(FILE *out, const struct pda_dthist_type *t,
		      const struct pde_dthist_opts *o)
{
	fputs("Annotate type: '", out);
	pde_text_puts(out, t->type);
	fputs("' in ", out);
	pde_text_puts(out, t->dso);
	fprintf(out, " (%" PRIu64 " samples):\n", t->samples);
	fputs("============================================================"
	      "================\n",
	      out);
	fprintf(out, "%*s %10s %10s  %s\n", VALUE_WIDTH + 1, "Percent",
		"offset", "size", "field");
	text_row(out, t, 0, o->color);
	if (o->cacheline)
		text_lines(out, t);
	fputc('\n', out);
}

static void md_field(void *arg, const char *path, bool first)
{
	FILE *out = arg;

	if (!first)
		fputs(", ", out);
	pde_md_code(out, path, strlen(path), true);
}

static void json_field(void *arg, const char *path, bool first)
{
	(void)first;
	pde_json_str(arg, NULL, path);
}

static void md_type(FILE *out, const struct pda_dthist_type *t,
		    const struct pde_dthist_opts *o)
{
	fputs("## ", out);
	pde_md_code(out, t->type, strlen(t->type), false);
	fputs(" in ", out);
	pde_md_code(out, t->dso, strlen(t->dso), false);
	if (o->nr_events > 1 && t->event < o->nr_events)
		fprintf(out, " (%s)", o->events[t->event]);
	fprintf(out, "\n\n%" PRIu64 " samples, period %" PRIu64 ".\n\n",
		t->samples, t->period);
	fputs("| Percent | Samples | Offset | Size | Field |\n"
	      "|--:|--:|--:|--:|---|\n",
	      out);
	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct pda_dthist_row *r = &t->rows[i];
		const char *name = r->name ? r->name : "";

		fprintf(out, "| %.2f | %" PRIu64 " | %" PRId64 " | %" PRIu64
			" | ",
			percent(r->period, t->period), r->samples, r->offset,
			r->size);
		/* the nesting as indentation a table cell keeps */
		for (unsigned d = 0; d < r->depth; d++)
			fputs("&emsp;", out);
		pde_md_code(out, r->type, strlen(r->type), true);
		if (*name) {
			fputc(' ', out);
			pde_md_text(out, name, strlen(name));
		}
		fputs(" |\n", out);
	}
	fputc('\n', out);
	if (!o->cacheline)
		return;
	fputs("| Percent | Samples | Cache line | Offset | Fields |\n"
	      "|--:|--:|--:|--:|---|\n",
	      out);
	for (size_t k = 0; k < t->nr_lines; k++) {
		const struct pda_dthist_line *l = &t->lines[k];

		fprintf(out, "| %.2f | %" PRIu64 " | %" PRIu64 " | %" PRIu64
			" | ",
			percent(l->period, t->period), l->samples, l->line,
			l->line * PDA_DTHIST_LINE);
		line_fields(t, l, md_field, out);
		fputs(" |\n", out);
	}
	fputc('\n', out);
	if (!t->nr_addr_lines)
		return;
	fprintf(out,
		"The lines the %" PRIu64 " sample%s with a data address hit, "
		"by where the object starts in its line:\n\n"
		"| Percent | Samples | Start | Line | Offset | Fields |\n"
		"|--:|--:|--:|--:|--:|---|\n",
		t->addr_samples, t->addr_samples == 1 ? "" : "s");
	for (size_t k = 0; k < t->nr_addr_lines; k++) {
		const struct pda_dthist_line *l = &t->addr_lines[k];

		fprintf(out, "| %.2f | %" PRIu64 " | %" PRIu64 " | %" PRIu64
			" | %" PRId64 " | ",
			percent(l->period, t->addr_period), l->samples,
			l->align, l->line, l->start);
		line_fields(t, l, md_field, out);
		fputs(" |\n", out);
	}
	fputc('\n', out);
}

/* A type's lines as a json array named name; with start, the object's
 * start in its line ("start") and the line's offset signed. */
static void json_lines(struct pde_json *j, const char *name,
		       const struct pda_dthist_type *t,
		       const struct pda_dthist_line *lines, size_t nr,
		       uint64_t total, bool start)
{
	pde_json_begin_array(j, name);
	for (size_t k = 0; k < nr; k++) {
		const struct pda_dthist_line *l = &lines[k];

		pde_json_begin_object(j, NULL);
		if (start)
			pde_json_u64(j, "start", l->align);
		pde_json_u64(j, "line", l->line);
		pde_json_i64(j, "offset", l->start);
		pde_json_u64(j, "samples", l->samples);
		pde_json_u64(j, "period", l->period);
		pde_json_double(j, "percent", percent(l->period, total));
		pde_json_begin_array(j, "fields");
		line_fields(t, l, json_field, j);
		pde_json_end_array(j);
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
}

static void json_type(struct pde_json *j, const struct pda_dthist_type *t,
		      const struct pde_dthist_opts *o)
{
	const char *names[MAX_NEST] = {0};

	pde_json_begin_object(j, NULL);
	if (t->event < o->nr_events)
		pde_json_str(j, "event", o->events[t->event]);
	pde_json_str(j, "dso", t->dso);
	pde_json_str(j, "type", t->type);
	pde_json_u64(j, "size", t->size);
	pde_json_u64(j, "samples", t->samples);
	pde_json_u64(j, "period", t->period);
	if (o->event_periods && t->event < o->nr_events)
		pde_json_double(j, "share", percent(t->period,
						    o->event_periods[t->event]));
	pde_json_begin_array(j, "members");
	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct pda_dthist_row *r = &t->rows[i];
		char path[PATH_MAX_LEN];

		row_path(names, r, path);
		pde_json_begin_object(j, NULL);
		pde_json_i64(j, "offset", r->offset);
		pde_json_u64(j, "size", r->size);
		pde_json_u64(j, "depth", r->depth);
		pde_json_str(j, "type", r->type);
		if (r->name)
			pde_json_str(j, "name", r->name);
		else
			pde_json_null(j, "name");
		pde_json_str(j, "field", path);
		pde_json_u64(j, "samples", r->samples);
		pde_json_u64(j, "period", r->period);
		pde_json_double(j, "percent", percent(r->period, t->period));
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
	if (o->cacheline) {
		json_lines(j, "cache_lines", t, t->lines, t->nr_lines,
			   t->period, false);
		pde_json_u64(j, "address_samples", t->addr_samples);
		json_lines(j, "address_lines", t, t->addr_lines,
			   t->nr_addr_lines, t->addr_period, true);
	}
	pde_json_end_object(j);
}

/* pdtool types: per event its samples and each wanted type's share of
 * its period, before the types' layouts */
static void summary(FILE *out, const struct pda_dthist *h,
		    const struct pde_dthist_opts *o)
{
	const bool md = o->format == PDE_ANNOT_MD;

	for (size_t ev = 0; ev < o->nr_events; ev++) {
		size_t nr = 0;

		for (size_t i = 0; i < pda_dthist_nr(h); i++)
			nr += pda_dthist_type(h, i)->event == ev &&
			      wanted(o->only, pda_dthist_type(h, i)->type);
		if (!nr)
			continue;
		if (md) {
			fputs("| Percent | Samples | Type | Binary |\n"
			      "|--:|--:|---|---|\n",
			      out);
		} else {
			fputs("Data types of ", out);
			pde_text_puts(out, o->events[ev]);
			fprintf(out,
				": %" PRIu64 " sample%s, period %" PRIu64
				"\n%*s %10s  %s\n",
				o->event_samples[ev],
				o->event_samples[ev] == 1 ? "" : "s",
				o->event_periods[ev], VALUE_WIDTH + 1,
				"Percent", "Samples", "type (binary)");
		}
		for (size_t i = 0; i < pda_dthist_nr(h); i++) {
			const struct pda_dthist_type *t = pda_dthist_type(h, i);
			const double pct = percent(t->period,
						   o->event_periods[ev]);

			if (t->event != ev || !wanted(o->only, t->type))
				continue;
			if (md) {
				fprintf(out, "| %.2f | %" PRIu64 " | ", pct,
					t->samples);
				pde_md_code(out, t->type, strlen(t->type), true);
				fputs(" | ", out);
				pde_md_code(out, t->dso, strlen(t->dso), true);
				fputs(" |\n", out);
				continue;
			}
			fprintf(out, " %*.2f %10" PRIu64 "  ", VALUE_WIDTH, pct,
				t->samples);
			pde_text_puts(out, t->type);
			fputs(" (", out);
			pde_text_puts(out, t->dso);
			fputs(")\n", out);
		}
		if (md) {
			fprintf(out, "\nOf the %" PRIu64 " samples of ",
				o->event_samples[ev]);
			pde_md_text(out, o->events[ev], strlen(o->events[ev]));
			fprintf(out, " (period %" PRIu64 ").\n",
				o->event_periods[ev]);
		}
		fputc('\n', out);
	}
}

/* A line's fields joined by spaces, for one CSV column. */
struct csv_fields {
	char buf[4096];
	size_t len;
};

static void csv_field(void *arg, const char *path, bool first)
{
	struct csv_fields *f = arg;
	const int n = snprintf(f->buf + f->len, sizeof(f->buf) - f->len,
			       "%s%s", first ? "" : " ", path);

	if (n > 0)
		f->len += (size_t)n < sizeof(f->buf) - f->len
				  ? (size_t)n
				  : sizeof(f->buf) - f->len - 1;
}

/* A CSV row's first columns: the type's event, binary and name. */
static void csv_type(FILE *out, const struct pda_dthist_type *t,
		     const struct pde_dthist_opts *o)
{
	pde_csv_str(out, t->event < o->nr_events ? o->events[t->event] : "");
	fputc(',', out);
	pde_csv_str(out, t->dso);
	fputc(',', out);
	pde_csv_str(out, t->type);
}

/* --cacheline in CSV: a row per line, the type's lines (start empty)
 * then the lines of the samples with a data address */
static void csv_lines(FILE *out, const struct pda_dthist_type *t,
		      const struct pde_dthist_opts *o, bool addr)
{
	const struct pda_dthist_line *lines = addr ? t->addr_lines : t->lines;
	const size_t nr = addr ? t->nr_addr_lines : t->nr_lines;

	for (size_t k = 0; k < nr; k++) {
		const struct pda_dthist_line *l = &lines[k];
		struct csv_fields fields = {.len = 0};

		fields.buf[0] = '\0';
		line_fields(t, l, csv_field, &fields);
		csv_type(out, t, o);
		if (addr)
			fprintf(out, ",%" PRIu64, l->align);
		else
			fputc(',', out);
		fprintf(out, ",%" PRIu64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64
			",%.2f,",
			l->line, l->start, l->samples, l->period,
			percent(l->period, addr ? t->addr_period : t->period));
		pde_csv_str(out, fields.buf);
		fputc('\n', out);
	}
}

/* A row per member (the type's own first), or per cache line. */
static void csv_rows(FILE *out, const struct pda_dthist_type *t,
		     const struct pde_dthist_opts *o)
{
	const char *names[MAX_NEST] = {0};
	const double share =
		o->event_periods && t->event < o->nr_events
			? percent(t->period, o->event_periods[t->event])
			: 0.0;

	if (o->cacheline) {
		csv_lines(out, t, o, false);
		csv_lines(out, t, o, true);
		return;
	}
	for (size_t i = 0; i < t->nr_rows; i++) {
		const struct pda_dthist_row *r = &t->rows[i];
		char path[PATH_MAX_LEN];

		row_path(names, r, path);
		csv_type(out, t, o);
		fprintf(out, ",%" PRIu64 ",%.2f,%" PRId64 ",%" PRIu64 ",",
			t->samples, share, r->offset, r->size);
		pde_csv_str(out, path);
		fputc(',', out);
		pde_csv_str(out, r->type);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.2f\n", r->samples,
			r->period, percent(r->period, t->period));
	}
}

int pde_dthist(FILE *out, const struct pda_dthist *h,
	       const struct pde_dthist_opts *o, size_t *nr_shown)
{
	struct pde_json j;

	*nr_shown = 0;
	if (o->csv) {
		fputs(o->cacheline ? "event,dso,type,start,line,offset,samples,"
				     "period,percent,fields\n"
				   : "event,dso,type,type_samples,type_share,"
				     "offset,size,field,member_type,samples,"
				     "period,percent\n",
		      out);
		for (size_t i = 0; i < pda_dthist_nr(h); i++) {
			const struct pda_dthist_type *t = pda_dthist_type(h, i);

			if (!wanted(o->only, t->type))
				continue;
			++*nr_shown;
			csv_rows(out, t, o);
		}
		return ferror(out) ? PD_ERR_IO : 0;
	}
	if (o->format == PDE_ANNOT_JSON) {
		pde_json_init(&j, out, false);
		pde_json_begin_object(&j, NULL);
		if (o->input)
			pde_json_str(&j, "input", o->input);
		if (o->event_samples) {
			pde_json_begin_array(&j, "events");
			for (size_t ev = 0; ev < o->nr_events; ev++) {
				pde_json_begin_object(&j, NULL);
				pde_json_str(&j, "event", o->events[ev]);
				pde_json_u64(&j, "samples",
					     o->event_samples[ev]);
				pde_json_u64(&j, "period",
					     o->event_periods[ev]);
				pde_json_end_object(&j);
			}
			pde_json_end_array(&j);
		}
		pde_json_begin_array(&j, "types");
	} else if (o->format == PDE_ANNOT_MD) {
		fputs("# Data types", out);
		if (o->input) {
			fputs(" of ", out);
			pde_md_code(out, o->input, strlen(o->input), false);
		}
		fputs("\n\n", out);
	}
	if (o->event_samples && o->format != PDE_ANNOT_JSON)
		summary(out, h, o);
	for (size_t i = 0; i < pda_dthist_nr(h); i++) {
		const struct pda_dthist_type *t = pda_dthist_type(h, i);

		if (!wanted(o->only, t->type))
			continue;
		++*nr_shown;
		if (o->format == PDE_ANNOT_JSON)
			json_type(&j, t, o);
		else if (o->format == PDE_ANNOT_MD)
			md_type(out, t, o);
		else
			text_type(out, t, o);
	}
	if (o->format == PDE_ANNOT_JSON) {
		pde_json_end_array(&j);
		if (o->coverage) {
			pde_json_begin_object(&j, "coverage");
			for (size_t w = 0; w < o->nr_why; w++)
				pde_json_u64(&j, o->why[w], o->coverage[w]);
			pde_json_end_object(&j);
		}
		pde_json_end_object(&j);
		pde_json_newline(&j);
	} else if (o->format == PDE_ANNOT_MD && o->coverage) {
		uint64_t total = 0;

		for (size_t w = 0; w < o->nr_why; w++)
			total += o->coverage[w];
		fputs("## Coverage\n\n| Samples | |\n|--:|---|\n", out);
		for (size_t w = 0; w < o->nr_why; w++)
			if (o->coverage[w] || !w)
				fprintf(out, "| %" PRIu64 " | %s |\n",
					o->coverage[w], o->why[w]);
		fprintf(out, "| %" PRIu64 " | total |\n\n", total);
	}
	return ferror(out) ? PD_ERR_IO : 0;
}
