/*
 * pde_report.c - pdtool report's tables as `perf report --stdio` 6.1
 * prints them (ui/stdio/hist.c, util/sort.c): the header comment lines,
 * then per event the sample count, event count and column headers, and
 * a row per entry.
 *
 * Column widths are perf's: an overhead column is 8 characters a member
 * ("%7.2f%%"), a count 12; a key column is as wide as its header and its
 * widest value over every row of the table (perf's hists__calc_col_len
 * runs over all entries, --percent-limit hides rows only when printing).
 * Names from the capture are written by pdc_text's rule (\xNN for bytes
 * that are not text), and measured so.
 */
#include "pde.h"
#include "pda_report.h"
#include "pdc_strbuf.h"
#include "pdc_text.h"

#include <inttypes.h>
#include <string.h>

#define OVERHEAD_W 8
#define COUNT_W 12
/* perf's unresolved_col_width: an address's hex digits */
#define ADDR_DIGITS 16

struct widths {
	size_t key[PDA_REPORT_MAX_KEYS];
};

/* The cell of key k for entry e, as perf's se_snprintf() writes it
 * before padding: into b (escaped). */
static void key_text(struct pdc_strbuf *b, enum pda_report_key k,
		     const struct pda_report_entry *e)
{
	switch (k) {
	case PDA_REPORT_COMM:
		pdc_strbuf_add_text(b, e->comm, strlen(e->comm));
		break;
	case PDA_REPORT_PID:
		/* the digits are write_key()'s */
		pdc_strbuf_add_text(b, e->thread_comm, strlen(e->thread_comm));
		break;
	case PDA_REPORT_DSO:
		if (e->dso)
			pdc_strbuf_add_text(b, e->dso, strlen(e->dso));
		else
			pdc_strbuf_add(b, "[unknown]", 9);
		break;
	case PDA_REPORT_SYM:
		pdc_strbuf_addf(b, "[%c] ", e->level);
		if (e->sym)
			pdc_strbuf_add_text(b, e->sym, strlen(e->sym));
		else
			/* perf's "%-#.*llx": no "0x" for 0 */
			pdc_strbuf_addf(b, "%#.*" PRIx64, ADDR_DIGITS,
					e->addr);
		break;
	case PDA_REPORT_SRCLINE:
		pdc_strbuf_add_text(b, e->srcline, strlen(e->srcline));
		break;
	case PDA_REPORT_SRCFILE:
		pdc_strbuf_add_text(b, e->srcfile, strlen(e->srcfile));
		break;
	case PDA_REPORT_CPU:
		pdc_strbuf_addf(b, "%d", e->cpu);
		break;
	case PDA_REPORT_PARENT:
		if (e->parent)
			pdc_strbuf_add_text(b, e->parent, strlen(e->parent));
		else
			pdc_strbuf_add(b, "[other]", 7);
		break;
	case PDA_REPORT_TYPE:
		pdc_strbuf_add_text(b, e->type, strlen(e->type));
		break;
	case PDA_REPORT_TYPEOFF:
		pdc_strbuf_add_text(b, e->typeoff, strlen(e->typeoff));
		break;
	case PDA_REPORT_NR_KEYS:
		break;
	}
}

/* What entry e asks of key k's column width (hists__calc_col_len). */
static size_t key_need(const struct pda_report_entry *e, enum pda_report_key k,
		       struct pdc_strbuf *b)
{
	size_t n;

	b->len = 0;
	switch (k) {
	case PDA_REPORT_SYM:
		/* "[x] " and the name; an address: "0x" and 16 digits */
		if (!e->sym)
			return ADDR_DIGITS + 4 + 2;
		key_text(b, k, e);
		return b->len;
	case PDA_REPORT_PID:
		key_text(b, k, e);
		return b->len + 8;
	case PDA_REPORT_COMM:
		/* the thread's last comm, whichever the row shows */
		pdc_strbuf_add_text(b, e->thread_comm, strlen(e->thread_comm));
		return b->len;
	case PDA_REPORT_CPU:
		return 3;
	case PDA_REPORT_PARENT:
		/* "[other]" asks nothing */
		if (!e->parent)
			return 0;
		key_text(b, k, e);
		return b->len;
	case PDA_REPORT_DSO:
		if (!e->dso)
			return 0;
		key_text(b, k, e);
		return b->len;
	case PDA_REPORT_SRCLINE:
	case PDA_REPORT_SRCFILE:
	case PDA_REPORT_TYPE:
	case PDA_REPORT_TYPEOFF:
		key_text(b, k, e);
		return b->len;
	case PDA_REPORT_NR_KEYS:
		break;
	}
	n = b->len;
	return n;
}

static void calc_widths(const struct pda_report *rep,
			const struct pda_report_table *t, struct widths *w,
			struct pdc_strbuf *b)
{
	const unsigned nr_keys = pda_report_nr_keys(rep);
	bool unresolved = false;

	for (unsigned i = 0; i < nr_keys; i++)
		w->key[i] = strlen(pda_report_key_header(pda_report_key(rep, i)));
	for (size_t r = 0; r < t->nr_rows; r++) {
		const struct pda_report_entry *e =
			pda_report_entry(rep, t->rows[r]);

		unresolved |= !e->sym;
		for (unsigned i = 0; i < nr_keys; i++) {
			const size_t n = key_need(e, pda_report_key(rep, i), b);

			if (n > w->key[i])
				w->key[i] = n;
		}
	}
	/* hists__set_unres_dso_col_len(): an entry without a symbol widens
	 * the DSO column to an address's width */
	for (unsigned i = 0; unresolved && i < nr_keys; i++)
		if (pda_report_key(rep, i) == PDA_REPORT_DSO &&
		    w->key[i] < ADDR_DIGITS)
			w->key[i] = ADDR_DIGITS;
}

/* perf's convert_unit(): 1234 -> 1 'K' */
static uint64_t convert_unit(uint64_t v, char *unit)
{
	*unit = ' ';
	if (v > 1000) {
		v /= 1000;
		*unit = 'K';
	}
	if (v > 1000) {
		v /= 1000;
		*unit = 'M';
	}
	if (v > 1000) {
		v /= 1000;
		*unit = 'G';
	}
	return v;
}

static double percent(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* The period of event member m (a table's columns are shares of it). */
static uint64_t member_total(const struct pda_report *rep,
			     const struct pda_report_table *t, unsigned m)
{
	uint64_t nr_samples, period;

	pda_report_event_totals(rep, t->members[m], &nr_samples, &period);
	return period;
}

/* Whether --percent-limit hides row id: perf compares a float
 * (hist_entry__get_percent_limit) with the limit, the leader's share. */
static bool hidden(const struct pda_report *rep,
		   const struct pda_report_table *t, uint32_t id,
		   const struct pde_report_opts *o)
{
	const struct pda_report_val *v = pda_report_val(rep, t->members[0], id);
	const uint64_t total = member_total(rep, t, 0);
	const uint64_t period = pda_report_flags(rep) & PDA_REPORT_CHILDREN
					? v->acc_period
					: v->period;
	float pct;

	if (o->percent_limit <= 0)
		return false;
	pct = total ? (float)((double)period * 100.0 / (double)total) : 0;
	return pct < o->percent_limit;
}

/* "%*s" of s in w, right-aligned (alignment true) or left. */
static void pad(FILE *out, const char *s, size_t len, size_t w, bool right)
{
	if (right)
		for (size_t i = len; i < w; i++)
			fputc(' ', out);
	fwrite(s, 1, len, out);
	if (!right)
		for (size_t i = len; i < w; i++)
			fputc(' ', out);
}

/* A key whose cell perf does not pad when it ends the line. */
static bool unpadded_last(enum pda_report_key k)
{
	return k == PDA_REPORT_SYM || k == PDA_REPORT_SRCLINE ||
	       k == PDA_REPORT_SRCFILE;
}

static void write_headers(FILE *out, const struct pda_report *rep,
			  const struct pda_report_table *t,
			  const struct widths *w)
{
	const unsigned nr = t->nr_members, flags = pda_report_flags(rep);
	const unsigned nr_keys = pda_report_nr_keys(rep);
	const char *names[5];
	size_t widths[5], nr_fixed = 0;

	if (flags & PDA_REPORT_LATENCY) {
		names[nr_fixed] = "Latency";
		widths[nr_fixed++] = OVERHEAD_W * nr;
	}
	if (flags & PDA_REPORT_CHILDREN) {
		names[nr_fixed] = "Children";
		widths[nr_fixed++] = OVERHEAD_W * nr;
	}
	names[nr_fixed] = flags & PDA_REPORT_CHILDREN ? "Self" : "Overhead";
	widths[nr_fixed++] = OVERHEAD_W * nr;
	if (flags & PDA_REPORT_NR_SAMPLES) {
		names[nr_fixed] = "Samples";
		widths[nr_fixed++] = COUNT_W * nr;
	}
	if (flags & PDA_REPORT_PERIOD) {
		names[nr_fixed] = "Period";
		widths[nr_fixed++] = COUNT_W * nr;
	}
	fputs("# ", out);
	for (size_t i = 0; i < nr_fixed; i++) {
		if (i)
			fputs("  ", out);
		pad(out, names[i], strlen(names[i]), widths[i], true);
	}
	for (unsigned i = 0; i < nr_keys; i++) {
		const char *h = pda_report_key_header(pda_report_key(rep, i));

		fputs("  ", out);
		pad(out, h, strlen(h), w->key[i], false);
	}
	fputs("\n# ", out);
	for (size_t i = 0; i < nr_fixed + nr_keys; i++) {
		const size_t n = i < nr_fixed ? widths[i] : w->key[i - nr_fixed];

		if (i)
			fputs("  ", out);
		for (size_t d = 0; d < n; d++)
			fputc('.', out);
	}
	fputs("\n#\n", out);
}

static void write_key(FILE *out, enum pda_report_key k,
		      const struct pda_report_entry *e, size_t w, bool last,
		      struct pdc_strbuf *b)
{
	b->len = 0;
	if (k == PDA_REPORT_PID) {
		const size_t cw = (w > 7 ? w : 7) - 8;

		/* "%7d:%-*.*s" */
		fprintf(out, "%7d:", e->tid);
		key_text(b, k, e);
		pad(out, b->p, b->len < cw ? b->len : cw, cw, false);
		return;
	}
	if (k == PDA_REPORT_CPU) {
		/* "%*.*d": at least w digits */
		fprintf(out, "%*.*d", (int)w, (int)w, e->cpu);
		return;
	}
	key_text(b, k, e);
	if (k == PDA_REPORT_SYM && e->inlined)
		pdc_strbuf_add(b, " (inlined)", 10);
	if (last && unpadded_last(k)) {
		fwrite(b->p, 1, b->len, out);
		return;
	}
	/* "%-*.*s": cut to the column (a comm longer than the thread's
	 * last one, which the column is measured by) */
	pad(out, b->p, b->len < w ? b->len : w, w, false);
}

static void write_row(FILE *out, const struct pda_report *rep,
		      const struct pda_report_table *t, uint32_t id,
		      const struct widths *w, struct pdc_strbuf *b)
{
	const unsigned nr = t->nr_members, flags = pda_report_flags(rep);
	const unsigned nr_keys = pda_report_nr_keys(rep);
	const struct pda_report_entry *e = pda_report_entry(rep, id);

	fputs("  ", out);
	if (flags & PDA_REPORT_LATENCY) {
		for (unsigned m = 0; m < nr; m++)
			fprintf(out, "%7.2f%%",
				percent(pda_report_val(rep, t->members[m], id)
						->latency,
					pda_report_event_latency(
						rep, t->members[m])));
		fputs("  ", out);
	}
	if (flags & PDA_REPORT_CHILDREN) {
		for (unsigned m = 0; m < nr; m++)
			fprintf(out, "%7.2f%%",
				percent(pda_report_val(rep, t->members[m], id)
						->acc_period,
					member_total(rep, t, m)));
		fputs("  ", out);
	}
	for (unsigned m = 0; m < nr; m++)
		fprintf(out, "%7.2f%%",
			percent(pda_report_val(rep, t->members[m], id)->period,
				member_total(rep, t, m)));
	if (flags & PDA_REPORT_NR_SAMPLES) {
		fputs("  ", out);
		for (unsigned m = 0; m < nr; m++)
			fprintf(out, "%12" PRIu64,
				pda_report_val(rep, t->members[m], id)->samples);
	}
	if (flags & PDA_REPORT_PERIOD) {
		fputs("  ", out);
		for (unsigned m = 0; m < nr; m++)
			fprintf(out, "%12" PRIu64,
				pda_report_val(rep, t->members[m], id)->period);
	}
	for (unsigned i = 0; i < nr_keys; i++) {
		fputs("  ", out);
		write_key(out, pda_report_key(rep, i), e, w->key[i],
			  i + 1 == nr_keys, b);
	}
	fputc('\n', out);
}

int pde_report_text(FILE *out, const struct pda_report *rep,
		    const struct pde_report_opts *o)
{
	struct pdc_strbuf b;
	char small[512];
	int rc = 0;

	pdc_strbuf_init(&b, NULL, small, sizeof(small));
	fputs("# To display the perf.data header info, please use "
	      "--header/--header-only options.\n#\n",
	      out);
	fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", o->lost);
	for (size_t i = 0; i < pda_report_nr_tables(rep); i++) {
		const struct pda_report_table *t = pda_report_table(rep, i);
		struct widths w;
		char unit;
		const uint64_t n = convert_unit(t->nr_samples, &unit);

		fprintf(out, "# Samples: %" PRIu64 "%c of event%s '", n, unit,
			t->nr_members > 1 ? "s" : "");
		pde_text_puts(out, t->event);
		fprintf(out, "'\n# Event count (approx.): %" PRIu64 "\n#\n",
			t->total_period);
		calc_widths(rep, t, &w, &b);
		write_headers(out, rep, t, &w);
		for (size_t r = 0; r < t->nr_rows; r++)
			if (!hidden(rep, t, t->rows[r], o))
				write_row(out, rep, t, t->rows[r], &w, &b);
		fputs("\n\n", out);
	}
	if (b.oom)
		rc = PD_ERR_NOMEM;
	pdc_strbuf_release(&b);
	if (rc == 0 && ferror(out))
		rc = PD_ERR_IO;
	return rc;
}
