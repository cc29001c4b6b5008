/*
 * pde_mem.c - `pdtool mem`'s views of memory samples (pda_mem.h): a
 * table per view (data source level, snoop, TLB, lock, function, data
 * symbol, cache line) and the latency histogram per level, as text,
 * GitHub Markdown, JSON or CSV.  Every format writes the same cells: a
 * row is first made into cells, then each writer lays them out.
 */
#include "pde.h"
#include "pda_mem.h"
#include "pde_text_int.h"
#include "pdc_strbuf.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 20
#define CELL 40

struct cell {
	char num[CELL];	  /* a number as printed; "" for a name */
	const char *name; /* a name (label columns), else NULL */
	bool is_num;
	bool is_dbl;	  /* val holds it unrounded (JSON's) */
	double val;
	bool null;	  /* no value (JSON null, "-" elsewhere) */
};

struct table {
	const char *head[MAX_COLS], *key[MAX_COLS];
	unsigned nr_cols;
};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *const ds_field[4] = {"LVL", "SNP", "TLB", "LCK"};
static const char *const view_title[PDA_MEM_NR_VIEWS] = {
	"Data source", "Snoop", "TLB", "Lock", "Functions", "Data symbols",
	"Cache lines", "Data types by data source",
};

/* Which of a WEIGHT_STRUCT's extra latencies have columns. */
struct lats {
	bool var2, var3, spe;
};

/* The name columns each view starts with: header, JSON/CSV key. */
static const struct {
	const char *head[2], *key[2];
} label_cols[PDA_MEM_NR_VIEWS + 1] = {
	[PDA_MEM_LEVEL] = {{"level"}, {"level"}},
	[PDA_MEM_SNOOP] = {{"snoop"}, {"snoop"}},
	[PDA_MEM_TLB] = {{"tlb"}, {"tlb"}},
	[PDA_MEM_LOCK] = {{"locked"}, {"locked"}},
	[PDA_MEM_SYM] = {{"symbol", "object"}, {"symbol", "object"}},
	[PDA_MEM_DSYM] = {{"data symbol", "data object"},
			  {"data_symbol", "data_object"}},
	[PDA_MEM_LINE] = {{"line"}, {"line"}},
	[PDA_MEM_TYPE] = {{"level", "data type"}, {"level", "data_type"}},
	[PDA_MEM_NR_VIEWS] = {{"line"}, {"line"}},
};

static void set_table(struct table *t, enum pda_mem_view v,
		      const struct lats *l)
{
	unsigned n = 0;

#define COL(h, k) (t->head[n] = (h), t->key[n] = (k), n++)
	for (unsigned k = 0; k < 2 && label_cols[v].head[k]; k++)
		COL(label_cols[v].head[k], label_cols[v].key[k]);
	COL("samples", "samples");
	COL("share", "sample_share");
	COL("loads", "loads");
	COL("stores", "stores");
	COL("weight", "weight");
	COL("overhead", "weight_share");
	COL("avg", "latency_avg");
	COL("p50", "latency_p50");
	COL("p90", "latency_p90");
	COL("p99", "latency_p99");
	COL("max", "latency_max");
	if (l->var2) {
		if (l->spe)
			COL("issue", "issue_avg");
		else
			COL("ins_lat", "ins_lat_avg");
	}
	if (l->var3)
		COL(l->spe ? "xlat" : "var3", l->spe ? "translation_avg"
						    : "var3_avg");
	if (v == PDA_MEM_LINE) {
		COL("cpus", "cpus");
		COL("offsets", "offsets");
		COL("hitm", "hitm");
		COL("peer", "peer");
		COL("function", "function");
	}
	if (v == PDA_MEM_TYPE) {
		/* a global's accesses whose data address is in it, or in
		 * another symbol: the data address checks DWARF's answer */
		COL("in var", "addr_in_var");
		COL("elsewhere", "addr_elsewhere");
		/* the object's lines the data addresses hit (JSON: an
		 * array, json_view) */
		COL("lines (object start)", "cache_lines");
	}
#undef COL
	t->nr_cols = n;
}

/* Whether column k of view v's nr columns holds names (left-aligned):
 * the labels, and the line's function or the type's lines last. */
static bool name_col(enum pda_mem_view v, unsigned k, unsigned nr)
{
	return k < (v == PDA_MEM_SYM || v == PDA_MEM_DSYM || v == PDA_MEM_TYPE
			    ? 2u
			    : 1u) ||
	       ((v == PDA_MEM_LINE || v == PDA_MEM_TYPE) && k + 1 == nr);
}

static void num(struct cell *c, const char *fmt, ...) PD_PRINTF(2, 3);
static void num(struct cell *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->num, sizeof(c->num), fmt, ap);
	va_end(ap);
	c->is_num = true;
}

/* a share ("12.34%") or an average ("5.6"), JSON's value unrounded */
static void dbl(struct cell *c, bool share, double v)
{
	if (share)
		snprintf(c->num, sizeof(c->num), "%.2f%%", v);
	else
		snprintf(c->num, sizeof(c->num), "%.1f", v);
	c->is_num = c->is_dbl = true;
	c->val = v;
}

static void avg(struct cell *c, uint64_t sum, uint64_t n)
{
	if (!n)
		c->null = true;
	else
		dbl(c, false, (double)sum / (double)n);
}

/*
 * The type row's lines as text into out: "3 (+0x8)" for its object's
 * line 3 where the object starts 8 bytes into its line, most samples
 * first, ", " between; "+N more" for those that do not fit.  false: no
 * line (no sample with a data address).
 */
static bool tlines_text(const struct pda_mem_row *r, char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < r->nr_tlines; i++) {
		char one[48], more[32];
		const int n = snprintf(one, sizeof(one), "%s%" PRIu64 " (+%#" PRIx64 ")",
				       i ? ", " : "", r->tlines[i].line,
				       r->tlines[i].align);
		/* room kept for the "+N more" of the rest */
		const int m = i + 1 < r->nr_tlines
				      ? snprintf(more, sizeof(more), ", +%zu more",
						 r->nr_tlines - i - 1)
				      : 0;

		if (len + (size_t)n + (size_t)m >= size) {
			snprintf(out + len, size - len, ", +%zu more",
				 r->nr_tlines - i);
			break;
		}
		memcpy(out + len, one, (size_t)n + 1);
		len += (size_t)n;
	}
	return r->nr_tlines > 0;
}

/* Row r of view v as cells; label text in lb (two names at most). */
static unsigned cells(const struct pda_mem *m, enum pda_mem_view v,
		      const struct pda_mem_row *r, const struct lats *l, struct cell *c,
		      char lb[2][CELL * 4])
{
	const struct pda_mem_totals *t = pda_mem_totals(m);
	unsigned n = 0;

	memset(c, 0, MAX_COLS * sizeof(*c));
	switch (v) {
	case PDA_MEM_LEVEL:
	case PDA_MEM_SNOOP:
	case PDA_MEM_TLB:
	case PDA_MEM_LOCK:
		pde_data_src_field(r->key, ds_field[v], lb[0], CELL * 4);
		c[n++].name = lb[0];
		break;
	case PDA_MEM_SYM:
	case PDA_MEM_DSYM:
		if (r->sym)
			snprintf(lb[0], CELL * 4, "%s", r->sym);
		else if (v == PDA_MEM_SYM)
			snprintf(lb[0], CELL * 4, "0x%016" PRIx64, r->key);
		else
			snprintf(lb[0], CELL * 4, "[unknown]");
		c[n++].name = lb[0];
		c[n++].name = r->dso ? r->dso : "[unknown]";
		break;
	case PDA_MEM_TYPE:
		pde_data_src_field(r->key, "LVL", lb[0], CELL * 4);
		c[n++].name = lb[0];
		c[n++].name = r->sym ? r->sym : "(unknown)";
		break;
	case PDA_MEM_LINE:
	case PDA_MEM_NR_VIEWS:
		snprintf(lb[0], CELL * 4, "0x%" PRIx64, r->key);
		c[n++].name = lb[0];
		break;
	}
	num(&c[n++], "%" PRIu64, r->samples);
	dbl(&c[n++], true, pct(r->samples, t->nr_samples));
	num(&c[n++], "%" PRIu64, r->loads);
	num(&c[n++], "%" PRIu64, r->stores);
	num(&c[n++], "%" PRIu64, r->weight);
	dbl(&c[n++], true, pct(r->weight, t->weight));
	avg(&c[n++], r->weight, r->with_weight);
	if (r->with_weight) {
		num(&c[n++], "%" PRIu64, r->p50);
		num(&c[n++], "%" PRIu64, r->p90);
		num(&c[n++], "%" PRIu64, r->p99);
		num(&c[n++], "%" PRIu64, r->lat_max);
	} else {
		for (unsigned k = 0; k < 4; k++)
			c[n++].null = true;
	}
	if (l->var2)
		avg(&c[n++], r->issue, r->samples);
	if (l->var3)
		avg(&c[n++], r->xlat, r->samples);
	if (v == PDA_MEM_LINE) {
		num(&c[n++], "%" PRIu32, r->nr_cpus);
		num(&c[n++], "%" PRIu32, r->nr_offsets);
		num(&c[n++], "%" PRIu64, r->hitm);
		num(&c[n++], "%" PRIu64, r->peer);
		if (r->sym)
			snprintf(lb[1], CELL * 4, "%s", r->sym);
		else
			snprintf(lb[1], CELL * 4, "[unknown]");
		c[n++].name = lb[1];
	}
	if (v == PDA_MEM_TYPE) {
		num(&c[n++], "%" PRIu64, r->var_agree);
		num(&c[n++], "%" PRIu64, r->var_differ);
		if (tlines_text(r, lb[1], CELL * 4))
			c[n].name = lb[1];
		else
			c[n].null = true;
		n++;
	}
	return n;
}

static const char *cell_text(const struct cell *c)
{
	if (c->null)
		return "-";
	return c->name ? c->name : c->num;
}

static size_t nr_shown(const struct pda_mem *m, enum pda_mem_view v,
		       size_t top)
{
	const size_t n = pda_mem_nr_rows(m, v);

	return top && top < n ? top : n;
}

static void write_text_view(FILE *out, const struct pda_mem *m,
			    enum pda_mem_view v, const struct lats *l, size_t top)
{
	struct table t;
	struct cell c[MAX_COLS];
	char lb[2][CELL * 4];
	size_t w[MAX_COLS];
	const size_t nr = nr_shown(m, v, top);

	set_table(&t, v, l);
	for (unsigned k = 0; k < t.nr_cols; k++)
		w[k] = strlen(t.head[k]);
	for (size_t i = 0; i < nr; i++) {
		cells(m, v, pda_mem_row(m, v, i), l, c, lb);
		for (unsigned k = 0; k < t.nr_cols; k++) {
			const size_t len = strlen(cell_text(&c[k]));

			if (len > w[k])
				w[k] = len;
		}
	}
	fprintf(out, "# %s (%zu of %zu row%s)\n#\n", view_title[v], nr,
		pda_mem_nr_rows(m, v),
		pda_mem_nr_rows(m, v) == 1 ? "" : "s");
	/* numbers right-aligned, names left-aligned, as the rows */
	fputs("# ", out);
	for (unsigned k = 0; k < t.nr_cols; k++) {
		const bool name = name_col(v, k, t.nr_cols);

		const int width = name && k + 1 == t.nr_cols ? 0
				  : name ? -(int)w[k]
					 : (int)w[k];

		fprintf(out, "%*s%s", width, t.head[k],
			k + 1 < t.nr_cols ? "  " : "");
	}
	fputc('\n', out);
	for (size_t i = 0; i < nr; i++) {
		cells(m, v, pda_mem_row(m, v, i), l, c, lb);
		fputs("  ", out);
		for (unsigned k = 0; k < t.nr_cols; k++) {
			const char *s = cell_text(&c[k]);
			const size_t len = strlen(s);

			if (c[k].name) {
				pde_text_puts(out, s);
				if (k + 1 < t.nr_cols)
					for (size_t p = len; p < w[k] + 2; p++)
						fputc(' ', out);
			} else {
				fprintf(out, "%*s%s", (int)w[k], s,
					k + 1 < t.nr_cols ? "  " : "");
			}
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

/* [lo, hi] of latency bucket b: [0] 0, [b] 2^(b-1) .. 2^b - 1 */
static void bucket_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
	*lo = b ? 1ull << (b - 1) : 0;
	*hi = b == 0 ? 0 : b == PDA_MEM_HIST - 1 ? UINT64_MAX
						 : (1ull << b) - 1;
}

static void write_text_hist(FILE *out, const struct pda_mem *m)
{
	char lb[CELL * 4];

	fputs("# Latency histogram by level (samples per latency range)\n#\n",
	      out);
	for (size_t i = 0; i < pda_mem_nr_rows(m, PDA_MEM_LEVEL); i++) {
		const struct pda_mem_row *r = pda_mem_row(m, PDA_MEM_LEVEL, i);
		uint64_t most = 0;

		if (!r->with_weight)
			continue;
		pde_data_src_field(r->key, "LVL", lb, sizeof(lb));
		fputs("  ", out);
		pde_text_puts(out, lb);
		fputc('\n', out);
		for (unsigned b = 0; b < PDA_MEM_HIST; b++)
			if (r->hist[b] > most)
				most = r->hist[b];
		for (unsigned b = 0; b < PDA_MEM_HIST; b++) {
			uint64_t lo, hi;
			char range[48];
			unsigned bar;

			if (!r->hist[b])
				continue;
			bucket_range(b, &lo, &hi);
			if (hi == UINT64_MAX)
				snprintf(range, sizeof(range), "%" PRIu64 "-",
					 lo);
			else
				snprintf(range, sizeof(range),
					 "%" PRIu64 "-%" PRIu64, lo, hi);
			bar = (unsigned)((r->hist[b] * 40 + most - 1) / most);
			fprintf(out, "    %15s %10" PRIu64 "  ", range,
				r->hist[b]);
			for (unsigned k = 0; k < bar; k++)
				fputc('#', out);
			fputc('\n', out);
		}
	}
	fputc('\n', out);
}

static void write_totals_text(FILE *out, const struct pda_mem *m, bool spe)
{
	const struct pda_mem_totals *t = pda_mem_totals(m);

	fprintf(out,
		"# %" PRIu64 " memory sample%s: %" PRIu64 " load%s, %" PRIu64
		" store%s; %" PRIu64 " with a data address; weight (latency "
		"summed) %" PRIu64 "\n",
		t->nr_samples, t->nr_samples == 1 ? "" : "s", t->loads,
		t->loads == 1 ? "" : "s", t->stores, t->stores == 1 ? "" : "s",
		t->with_addr, t->weight);
	if (spe)
		fputs("# latencies in cycles (Arm SPE): total (the weight), "
		      "issue and translation (their averages)\n",
		      out);
	fputs("#\n", out);
}

static void md_cell(FILE *out, const struct cell *c)
{
	const char *s = cell_text(c);

	fputc(' ', out);
	if (c->name)
		pde_md_code(out, s, strlen(s), true);
	else
		fputs(s, out);
	fputs(" |", out);
}

static void write_md_view(FILE *out, const struct pda_mem *m,
			  enum pda_mem_view v, const struct lats *l, size_t top)
{
	struct table t;
	struct cell c[MAX_COLS];
	char lb[2][CELL * 4];
	const size_t nr = nr_shown(m, v, top);

	set_table(&t, v, l);
	fprintf(out, "### %s\n\n", view_title[v]);
	if (!nr) {
		fputs("None.\n\n", out);
		return;
	}
	fputc('|', out);
	for (unsigned k = 0; k < t.nr_cols; k++)
		fprintf(out, " %s |", t.head[k]);
	fputs("\n|", out);
	for (unsigned k = 0; k < t.nr_cols; k++)
		fputs(name_col(v, k, t.nr_cols) ? "---|" : "---:|", out);
	fputc('\n', out);
	for (size_t i = 0; i < nr; i++) {
		cells(m, v, pda_mem_row(m, v, i), l, c, lb);
		fputc('|', out);
		for (unsigned k = 0; k < t.nr_cols; k++)
			md_cell(out, &c[k]);
		fputc('\n', out);
	}
	fputc('\n', out);
}

/* The histogram's rows, one per level and latency range with samples:
 * a Markdown table or CSV rows. */
static void write_hist_rows(FILE *out, const struct pda_mem *m, bool md)
{
	char lb[CELL * 4];

	fputs(md ? "### Latency by level\n\n| level | from | to | samples |\n"
		   "|---|---:|---:|---:|\n"
		 : "view,level,lo,hi,samples\n",
	      out);
	for (size_t i = 0; i < pda_mem_nr_rows(m, PDA_MEM_LEVEL); i++) {
		const struct pda_mem_row *r = pda_mem_row(m, PDA_MEM_LEVEL, i);

		pde_data_src_field(r->key, "LVL", lb, sizeof(lb));
		for (unsigned b = 0; b < PDA_MEM_HIST; b++) {
			uint64_t lo, hi;

			if (!r->hist[b])
				continue;
			bucket_range(b, &lo, &hi);
			if (md) {
				fputs("| ", out);
				pde_md_code(out, lb, strlen(lb), true);
			} else {
				fputs("hist,", out);
				pde_csv_str(out, lb);
			}
			fprintf(out, md ? " | %" PRIu64 " | " : ",%" PRIu64 ",",
				lo);
			if (hi != UINT64_MAX)
				fprintf(out, "%" PRIu64, hi);
			else if (md)
				fputc('-', out);
			fprintf(out, md ? " | %" PRIu64 " |\n" : ",%" PRIu64 "\n",
				r->hist[b]);
		}
	}
	if (md)
		fputc('\n', out);
}

/* The type row's lines (tlines_text's) as objects: line, start (the
 * object's in its line), samples. */
static void json_tlines(struct pde_json *j, const char *key,
			const struct pda_mem_row *r)
{
	pde_json_begin_array(j, key);
	for (size_t i = 0; i < r->nr_tlines; i++) {
		pde_json_begin_object(j, NULL);
		pde_json_u64(j, "line", r->tlines[i].line);
		pde_json_u64(j, "start", r->tlines[i].align);
		pde_json_u64(j, "samples", r->tlines[i].samples);
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
}

static void json_view(struct pde_json *j, const struct pda_mem *m,
		      enum pda_mem_view v, const struct lats *l, size_t top)
{
	struct table t;
	struct cell c[MAX_COLS];
	char lb[2][CELL * 4];
	const size_t nr = nr_shown(m, v, top);

	set_table(&t, v, l);
	pde_json_begin_array(j, pda_mem_view_name(v));
	for (size_t i = 0; i < nr; i++) {
		const struct pda_mem_row *r = pda_mem_row(m, v, i);

		cells(m, v, r, l, c, lb);
		pde_json_begin_object(j, NULL);
		for (unsigned k = 0; k < t.nr_cols; k++) {
			if (v == PDA_MEM_TYPE && k + 1 == t.nr_cols)
				json_tlines(j, t.key[k], r);
			else if (c[k].null)
				pde_json_null(j, t.key[k]);
			else if (c[k].name)
				pde_json_str(j, t.key[k], c[k].name);
			else if (c[k].is_dbl)
				pde_json_double(j, t.key[k], c[k].val);
			else
				pde_json_u64(j, t.key[k],
					     strtoull(c[k].num, NULL, 10));
		}
		if (v <= PDA_MEM_LOCK)
			pde_json_hex(j, "data_src_bits", r->key);
		if (v == PDA_MEM_LEVEL) {
			pde_json_begin_array(j, "latency_hist");
			for (unsigned b = 0; b < PDA_MEM_HIST; b++) {
				uint64_t lo, hi;

				if (!r->hist[b])
					continue;
				bucket_range(b, &lo, &hi);
				pde_json_begin_object(j, NULL);
				pde_json_u64(j, "lo", lo);
				if (hi == UINT64_MAX)
					pde_json_null(j, "hi");
				else
					pde_json_u64(j, "hi", hi);
				pde_json_u64(j, "samples", r->hist[b]);
				pde_json_end_object(j);
			}
			pde_json_end_array(j);
		}
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
}

static void csv_view(FILE *out, const struct pda_mem *m, enum pda_mem_view v,
		     const struct lats *l, size_t top)
{
	struct table t;
	struct cell c[MAX_COLS];
	char lb[2][CELL * 4];
	const size_t nr = nr_shown(m, v, top);

	set_table(&t, v, l);
	fputs("view", out);
	for (unsigned k = 0; k < t.nr_cols; k++)
		fprintf(out, ",%s", t.key[k]);
	fputc('\n', out);
	for (size_t i = 0; i < nr; i++) {
		cells(m, v, pda_mem_row(m, v, i), l, c, lb);
		fputs(pda_mem_view_name(v), out);
		for (unsigned k = 0; k < t.nr_cols; k++) {
			fputc(',', out);
			if (c[k].null)
				continue;
			if (c[k].name) {
				pde_csv_str(out, c[k].name);
			} else {
				const size_t len = strlen(c[k].num);

				/* a share without its sign, as a number */
				fprintf(out, "%.*s",
					(int)(len && c[k].num[len - 1] == '%'
						      ? len - 1
						      : len),
					c[k].num);
			}
		}
		fputc('\n', out);
	}
}

int pde_mem(FILE *out, const struct pde_mem_opts *o, const struct pda_mem *m)
{
	const struct lats l = {pda_mem_totals(m)->has_var2,
			       pda_mem_totals(m)->has_var3, o->spe};
	struct pde_json j;
	bool first = true;

	if (o->format == PDE_MEM_JSON) {
		const struct pda_mem_totals *t = pda_mem_totals(m);

		pde_json_init(&j, out, true);
		pde_json_begin_object(&j, NULL);
		pde_json_u64(&j, "samples", t->nr_samples);
		pde_json_u64(&j, "loads", t->loads);
		pde_json_u64(&j, "stores", t->stores);
		pde_json_u64(&j, "with_addr", t->with_addr);
		pde_json_u64(&j, "weight", t->weight);
		pde_json_bool(&j, "spe", o->spe);
	} else if (o->format == PDE_MEM_TEXT) {
		write_totals_text(out, m, o->spe);
	} else if (o->format == PDE_MEM_MD) {
		fputs("## Memory\n\n", out);
	}
	for (unsigned v = 0; v < PDA_MEM_NR_VIEWS; v++) {
		if (!(o->views & (1u << v)))
			continue;
		switch (o->format) {
		case PDE_MEM_TEXT:
			write_text_view(out, m, (enum pda_mem_view)v, &l,
					o->top);
			break;
		case PDE_MEM_MD:
			write_md_view(out, m, (enum pda_mem_view)v, &l,
				      o->top);
			break;
		case PDE_MEM_JSON:
			json_view(&j, m, (enum pda_mem_view)v, &l, o->top);
			break;
		case PDE_MEM_CSV:
			if (!first)
				fputc('\n', out);
			csv_view(out, m, (enum pda_mem_view)v, &l, o->top);
			break;
		}
		first = false;
	}
	if ((o->views & PDE_MEM_HIST_VIEW) && o->format == PDE_MEM_TEXT)
		write_text_hist(out, m);
	if ((o->views & PDE_MEM_HIST_VIEW) && o->format == PDE_MEM_MD)
		write_hist_rows(out, m, true);
	if ((o->views & PDE_MEM_HIST_VIEW) && o->format == PDE_MEM_CSV) {
		if (!first)
			fputc('\n', out);
		write_hist_rows(out, m, false);
	}
	if (o->format == PDE_MEM_JSON) {
		pde_json_end_object(&j);
		pde_json_newline(&j);
	}
	return pde_out_rc(out);
}
