/*
 * pde_diff.c - the writers of `pdtool diff`: difffolded.pl's two-count
 * folded lines, and the report (text for a terminal, or Markdown) of the
 * largest changes per symbol and per DSO, headed by what was compared,
 * how it was scaled and how it was tested.
 */
#include "pda_diff.h"
#include "pde_text_int.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

int pde_diff_folded(FILE *out, const struct pda_diff *d)
{
	const double factor = pda_diff_summary(d)->factor;
	const size_t nr = pda_diff_nr_stacks(d);

	for (size_t i = 0; i < nr; i++) {
		const struct pda_diff_stack *st = pda_diff_stack(d, i);
		const double a = floor((double)st->count[0] * factor + 0.5);

		for (size_t k = 0; k < st->nr; k++) {
			if (k)
				fputc(';', out);
			/* shown as text already (pda_diff.c): no name
			 * ends the line or reaches a terminal */
			fputs(st->frames[k], out);
		}
		fprintf(out, " %.0f %" PRIu64 "\n", a, st->count[1]);
		if (ferror(out))
			return PD_ERR_IO;
	}
	return pde_out_rc(out);
}

/* --scale SYMBOL's sentence, around the symbol (twice) */
static const char scale_symbol_text[3][48] = {
	"per unit of work (--scale ",
	"): values are percentages of the samples in ",
	" (inclusive)",
};

const char *pde_diff_scaling_text(const struct pda_diff *d, char *buf,
				  size_t size)
{
	const struct pda_diff_summary *s = pda_diff_summary(d);

	switch (s->scale) {
	case PDA_DIFF_SCALE_NONE:
		return "not scaled (--scale none): values are samples, a "
		       "side's mean per input";
	case PDA_DIFF_SCALE_SYMBOL:
		snprintf(buf, size, "%s%s%s%s%s", scale_symbol_text[0],
			 s->scale_symbol, scale_symbol_text[1],
			 s->scale_symbol, scale_symbol_text[2]);
		return buf;
	case PDA_DIFF_SCALE_TOTAL:
		break;
	}
	return "each side to its total (--scale total): values are "
	       "percentages of a side's samples, so a longer run does not "
	       "look slower";
}

const char *pde_diff_tests_text(const struct pda_diff *d)
{
	const struct pda_diff_summary *s = pda_diff_summary(d);

	switch (s->scale) {
	case PDA_DIFF_SCALE_NONE:
		return s->runs_tested
			       ? "sampling noise: z-test on Poisson sample "
				 "counts; run-to-run variation: Welch's "
				 "t-test over the inputs"
			       : "sampling noise: z-test on Poisson sample "
				 "counts";
	case PDA_DIFF_SCALE_SYMBOL:
		return s->runs_tested
			       ? "sampling noise: z-test on a ratio of Poisson "
				 "counts (delta method); run-to-run "
				 "variation: Welch's t-test over the inputs"
			       : "sampling noise: z-test on a ratio of Poisson "
				 "counts (delta method)";
	case PDA_DIFF_SCALE_TOTAL:
		break;
	}
	return s->runs_tested ? "sampling noise: two-proportion z-test; "
				"run-to-run variation: Welch's t-test over "
				"the inputs"
			      : "sampling noise: two-proportion z-test";
}

/* ---- the report ---------------------------------------------------- */

struct report {
	FILE *out;
	const struct pda_diff *d;
	const struct pda_diff_summary *s;
	const struct pde_diff_opts *o;
	bool md;
};

static void para_end(const struct report *r)
{
	fputc('\n', r->out);
	if (r->md)
		fputc('\n', r->out);
}

static void put_inputs(const struct report *r)
{
	static const char side_name[2] = {'A', 'B'};

	for (int side = 0; side < 2; side++) {
		fprintf(r->out, "%s%c (%s): %u input%s, %" PRIu64 " samples",
			r->md ? "- " : "", side_name[side],
			side ? "after" : "before", r->s->nr_runs[side],
			r->s->nr_runs[side] == 1 ? "" : "s",
			r->s->weight[side]);
		for (unsigned i = 0; r->o->paths[side] && i < r->s->nr_runs[side];
		     i++) {
			const char *path = r->o->paths[side][i];

			fputs(i ? ", " : ": ", r->out);
			if (r->md)
				pde_md_code(r->out, path, strlen(path), false);
			else
				pde_text_puts(r->out, path);
		}
		fputc('\n', r->out);
	}
	if (r->md)
		fputc('\n', r->out);
}

static void put_method(const struct report *r)
{
	const struct pda_diff_summary *s = r->s;
	char buf[512];

	if (s->scale == PDA_DIFF_SCALE_SYMBOL) {
		void (*put)(FILE *, const char *, size_t) =
			r->md ? pde_md_text : pde_text_str;
		const size_t len = strlen(s->scale_symbol);

		fprintf(r->out, "Scaling: %s", scale_symbol_text[0]);
		put(r->out, s->scale_symbol, len);
		fputs(scale_symbol_text[1], r->out);
		put(r->out, s->scale_symbol, len);
		fprintf(r->out, "%s.", scale_symbol_text[2]);
	} else {
		fprintf(r->out, "Scaling: %s.",
			pde_diff_scaling_text(r->d, buf, sizeof(buf)));
	}
	if (s->unit != 1.0)
		fputs(" Changes are in percentage points.", r->out);
	if (s->nr_renamed)
		fprintf(r->out,
			" Names normalised: %zu name%s lost compiler suffixes "
			"(.cold, .isra.N, ...).",
			s->nr_renamed, s->nr_renamed == 1 ? "" : "s");
	para_end(r);
	fprintf(r->out,
		"Tests: %s; the sampling test's p-values are Holm-adjusted "
		"over each table%s; significance level %g.",
		pde_diff_tests_text(r->d),
		s->runs_tested ? ", Welch's over the changes beyond sampling "
				 "noise"
			       : "",
		s->alpha);
	para_end(r);
	if (s->runs_tested) {
		fprintf(r->out,
			"A change is \"significant\" when it exceeds both "
			"sampling noise and the spread between inputs (%u "
			"against %u); \"sampling-only\" when it exceeds "
			"sampling noise but not the spread between inputs.",
			s->nr_runs[0], s->nr_runs[1]);
		para_end(r);
		return;
	}
	fprintf(r->out,
		"Run-to-run variation is NOT covered: with %s, a change "
		"marked \"sampling-only\" exceeds sampling noise, but may "
		"still be the machine, its caches or the input varying "
		"between runs.  Give several inputs a side (pdtool diff "
		"A1 A2 A3 -- B1 B2 B3) to test it.",
		s->nr_runs[0] == 1 && s->nr_runs[1] == 1
			? "one input per side"
		: s->nr_runs[0] == 1 ? "one input of A"
				     : "one input of B");
	para_end(r);
}

static const char *verdict_name(enum pda_diff_verdict v)
{
	switch (v) {
	case PDA_DIFF_REAL:
		return "significant";
	case PDA_DIFF_SAMPLING:
		return "sampling-only";
	case PDA_DIFF_NOISE:
		break;
	}
	return "-";
}

static bool shown(const struct report *r, const struct pda_diff_row *row)
{
	const enum pda_diff_verdict best =
		r->s->runs_tested ? PDA_DIFF_REAL : PDA_DIFF_SAMPLING;

	if (fabs(row->delta) < r->o->min_delta)
		return false;
	return !r->o->significant || row->verdict == best;
}

/* A p-value in 9 characters at most. */
static void fmt_p(char *buf, size_t size, double p)
{
	if (isnan(p))
		snprintf(buf, size, "-");
	else if (p < 1e-99)
		snprintf(buf, size, "<1e-99");
	else if (p < 0.001)
		snprintf(buf, size, "%.1e", p);
	else
		snprintf(buf, size, "%.3f", p);
}

/* A value in the summary's unit: "34.83%" or "123.5". */
static void fmt_value(const struct report *r, char *buf, size_t size,
		      double v, bool sign)
{
	if (r->s->unit == 1.0)
		snprintf(buf, size, sign ? "%+.1f" : "%.1f", v);
	else
		snprintf(buf, size, sign ? "%+.2f" : "%.2f%%", v);
}

static void put_row(const struct report *r, const struct pda_diff_row *row)
{
	char before[32], after[32], delta[32], ps[16], pr[16];

	fmt_value(r, before, sizeof(before), row->value[0], false);
	fmt_value(r, after, sizeof(after), row->value[1], false);
	fmt_value(r, delta, sizeof(delta), row->delta, true);
	fmt_p(ps, sizeof(ps), row->p_sampling);
	fmt_p(pr, sizeof(pr), row->p_runs);
	if (r->md) {
		fprintf(r->out, "| %s | %s | %s | %s |", before, after, delta,
			ps);
		if (r->s->runs_tested)
			fprintf(r->out, " %s |", pr);
		fprintf(r->out, " %s | ", verdict_name(row->verdict));
		pde_md_text(r->out, row->name, strlen(row->name));
		fputs(" |\n", r->out);
		return;
	}
	fprintf(r->out, "%9s %9s %9s %10s", before, after, delta, ps);
	if (r->s->runs_tested)
		fprintf(r->out, " %10s", pr);
	fprintf(r->out, "  %-13s  ", verdict_name(row->verdict));
	pde_text_str(r->out, row->name, strlen(row->name));
	fputc('\n', r->out);
}

static void put_table(const struct report *r, enum pda_diff_table t,
		      const char *what, const char *things)
{
	size_t nr, nr_shown = 0, nr_sig = 0, nr_real = 0;
	const struct pda_diff_row *rows = pda_diff_rows(r->d, t, &nr);
	const bool runs = r->s->runs_tested;

	for (size_t i = 0; i < nr; i++) {
		nr_sig += rows[i].verdict != PDA_DIFF_NOISE;
		nr_real += rows[i].verdict == PDA_DIFF_REAL;
	}
	fprintf(r->out, "%s%s: %zu %s%s, %zu beyond sampling noise",
		r->md ? "## " : "", what, nr, things, nr == 1 ? "" : "s",
		nr_sig);
	if (runs)
		fprintf(r->out, ", %zu of them significant", nr_real);
	fputc('\n', r->out);
	if (r->md)
		fprintf(r->out, "\n| before | after | change | p sampling |%s "
				"verdict | %s |\n|---:|---:|---:|---:|%s---|---|\n",
			runs ? " p runs |" : "", things,
			runs ? "---:|" : "");
	else
		fprintf(r->out, "%9s %9s %9s %10s%s  %-13s  %s\n", "before",
			"after", "change", "p sampling", runs ? "     p runs" : "",
			"verdict", things);
	for (size_t i = 0; i < nr; i++) {
		if (!shown(r, &rows[i]))
			continue;
		if (r->o->top && nr_shown == r->o->top)
			break;
		put_row(r, &rows[i]);
		nr_shown++;
	}
	if (!nr_shown)
		fprintf(r->out, "%s(no change%s)\n", r->md ? "\n" : "",
			r->o->significant || r->o->min_delta > 0
				? " passes the filters"
				: "");
	fputc('\n', r->out);
}

int pde_diff_report(FILE *out, const struct pda_diff *d,
		    const struct pde_diff_opts *opts)
{
	const struct report r = {out, d, pda_diff_summary(d), opts,
				 opts->format == PDE_DIFF_MARKDOWN};
	size_t nr;

	if (r.md)
		fputs("# pdtool diff\n\n", out);
	put_inputs(&r);
	if (!r.md)
		fputc('\n', out);
	put_method(&r);
	if (!r.md)
		fputc('\n', out);
	put_table(&r, PDA_DIFF_SELF, "Self, per symbol", "symbol");
	put_table(&r, PDA_DIFF_INCL, "Inclusive, per symbol", "symbol");
	if (pda_diff_rows(d, PDA_DIFF_DSO_SELF, &nr) && nr) {
		put_table(&r, PDA_DIFF_DSO_SELF, "Self, per DSO", "DSO");
		put_table(&r, PDA_DIFF_DSO_INCL, "Inclusive, per DSO", "DSO");
	}
	return pde_out_rc(out);
}
