/*
 * pde_branches.c - `pdtool branches`' table: the taken branches by
 * (from, to), as text, GitHub Markdown, JSON or CSV.
 */
#include "pde.h"
#include "pda_branch.h"
#include "pde_text_int.h"
#include "pdc_strbuf.h"
#include "pdc_text.h"

#include <inttypes.h>
#include <string.h>

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* One end as the level asks: "sym", "sym+0xOFF", "file:line"; without a
 * symbol the address as perf names it (its map-relative al_addr) and
 * the DSO, or the bare address without a map. */
static void loc_label(struct pdc_strbuf *sb, enum pda_branch_by by,
		      const struct pda_branch_loc *l)
{
	if (l->missing) {
		/* a BRBE half record's end: no address */
		pdc_strbuf_addf(sb, "(not recorded)");
		return;
	}
	if (by == PDA_BRANCH_BY_SRCLINE && l->srcfile) {
		pdc_strbuf_addf(sb, "%s:%u", l->srcfile, l->line);
		return;
	}
	if (l->sym) {
		pdc_strbuf_add(sb, l->sym, strlen(l->sym));
		if (by != PDA_BRANCH_BY_SYM)
			pdc_strbuf_addf(sb, "+0x%" PRIx64, l->sym_off);
		return;
	}
	pdc_strbuf_addf(sb, "0x%" PRIx64, l->map_ip);
	if (l->dso)
		pdc_strbuf_addf(sb, " (%s)", l->dso);
}

static const char *label(struct pdc_strbuf *sb, enum pda_branch_by by,
			 const struct pda_branch_loc *l)
{
	pdc_strbuf_release(sb);
	loc_label(sb, by, l);
	return pdc_strbuf_str(sb);
}

/* "priv" as recorded (BRBE's PRIV_SAVE) or by the address */
static const char *priv_name(const struct pda_branch_row *r)
{
	static const char *const names[8] = {"?",    "user", "kernel", "hv",
					     "?",    "?",    "?",      "?"};
	uint64_t best = 0;
	unsigned k = 0;

	for (unsigned i = 1; i < 8; i++)
		if (r->by_priv[i] > best) {
			best = r->by_priv[i];
			k = i;
		}
	if (best)
		return names[k];
	if (r->kernel && r->user)
		return "mixed";
	return r->kernel ? "kernel" : "user";
}

static const char *dir_name(const struct pda_branch_row *r)
{
	if (r->half)
		return "-";
	if (r->forward == r->count)
		return "fwd";
	if (!r->forward)
		return "back";
	return "mixed";
}

static void put_rate(FILE *out, const struct pda_branch_row *r, int width)
{
	if (!r->with_pred)
		fprintf(out, "%*s", width, "-");
	else
		fprintf(out, "%*.1f%%", width - 1, pct(r->mispred, r->with_pred));
}

static void put_avg(FILE *out, const struct pda_branch_row *r, int width)
{
	if (!r->with_cycles)
		fprintf(out, "%*s", width, "-");
	else
		fprintf(out, "%*.1f", width,
			(double)r->cycles / (double)r->with_cycles);
}

/* What the hardware recorded, in words. */
static void layout_words(FILE *out, const struct pda_branch_totals *t)
{
	fprintf(out, "prediction %s",
		!t->nr_entries	      ? "-"
		: t->with_pred == t->nr_entries ? "recorded"
		: t->with_pred			? "partly recorded"
						: "not recorded (mispred = "
						  "predicted = 0: unknown, as "
						  "AMD BRS and perf inject "
						  "write)");
	fprintf(out, "; cycles %s",
		t->with_cycles ? "recorded"
			       : "not recorded (AMD's LBR and BRS, Haswell's "
				 "LBR have none)");
	fprintf(out, "; types %s",
		t->type_save ? "as recorded (TYPE_SAVE)"
			     : "decoded from the instructions");
	if (t->hw_index)
		fputs("; hw_idx", out);
	if (t->nr_spec)
		fputs("; speculation outcome (AMD Zen 4)", out);
	if (t->nr_priv)
		fputs("; privilege (ARM BRBE)", out);
	if (t->nr_source_only || t->nr_target_only)
		fprintf(out,
			"; %" PRIu64 " source-only and %" PRIu64 " target-only "
			"records (ARM BRBE: the other end at a level not "
			"recorded)",
			t->nr_source_only, t->nr_target_only);
}

/* The Branch Counter column's width: perf's cell, or its title. */
static int cntr_width(const struct pda_brcntr *c)
{
	const int cell = pda_brcntr_cell_width(c);

	return cell > 14 ? cell : 14;
}

/* A row's Branch Counter cell: its entries' average counts, perf's way;
 * empty where no entry carried counters. */
static const char *cntr_cell(const struct pda_brcntr *c,
			     const struct pda_branch_row *r, char *buf,
			     size_t size)
{
	if (!r->with_cntr) {
		buf[0] = 0;
		return buf;
	}
	return pda_brcntr_entry(c, r->cntr, r->with_cntr, buf, size);
}

static void write_text(FILE *out, const struct pda_branch *b,
		       enum pda_branch_by by, struct pdc_strbuf *sb)
{
	const struct pda_branch_totals *t = pda_branch_totals(b);
	const struct pda_brcntr *c = pda_branch_counters_of(b);
	char cell[PDA_BR_CNTR_CELL];

	fprintf(out,
		"# %" PRIu64 " taken branch%s in %" PRIu64 " branch stack%s "
		"(%" PRIu64 " sample%s); %" PRIu64 " mispredicted "
		"(%.2f%% of those with prediction)\n# ",
		t->nr_entries, t->nr_entries == 1 ? "" : "es", t->nr_stacks,
		t->nr_stacks == 1 ? "" : "s", t->nr_samples,
		t->nr_samples == 1 ? "" : "s", t->mispred,
		pct(t->mispred, t->with_pred));
	layout_words(out, t);
	fputs("\n#\n", out);
	if (c)
		(void)pda_brcntr_legend(c, out, "#");
	fprintf(out, "%10s %7s %9s %7s %-8s %-5s %4s %4s %8s %-6s  ", "count",
		"share", "mispred", "rate", "type", "dir", "4K", "2M", "cycles",
		"priv");
	if (c)
		fprintf(out, "%-*s  ", cntr_width(c), "Branch Counter");
	fputs("from -> to\n", out);
	for (size_t i = 0; i < pda_branch_nr_rows(b); i++) {
		const struct pda_branch_row *r = pda_branch_row(b, i);

		fprintf(out, "%10" PRIu64 " %6.2f%% ", r->count,
			pct(r->count, t->nr_entries));
		if (r->with_pred)
			fprintf(out, "%9" PRIu64, r->mispred);
		else
			fprintf(out, "%9s", "-");
		fputc(' ', out);
		put_rate(out, r, 7);
		fprintf(out, " %-8s %-5s ", pda_branch_type_name(r->type),
			dir_name(r));
		if (r->half)
			fprintf(out, "%4s %4s ", "-", "-");
		else
			fprintf(out, "%3.0f%% %3.0f%% ",
				pct(r->cross_4k, r->count),
				pct(r->cross_2m, r->count));
		put_avg(out, r, 8);
		fprintf(out, " %-6s  ", priv_name(r));
		if (c)
			fprintf(out, "%-*s  ", cntr_width(c),
				cntr_cell(c, r, cell, sizeof(cell)));
		pde_text_puts(out, label(sb, by, &r->from));
		fputs(" -> ", out);
		pde_text_puts(out, label(sb, by, &r->to));
		fputc('\n', out);
	}
}

static void md_cell(FILE *out, const char *s)
{
	fputs(" ", out);
	pde_md_code(out, s, strlen(s), true);
	fputs(" |", out);
}

static void write_md(FILE *out, const struct pda_branch *b,
		     enum pda_branch_by by, struct pdc_strbuf *sb)
{
	const struct pda_branch_totals *t = pda_branch_totals(b);
	const struct pda_brcntr *c = pda_branch_counters_of(b);
	char cell[PDA_BR_CNTR_CELL];

	fputs("## Branch hotspots\n\n", out);
	fprintf(out,
		"%" PRIu64 " taken branches in %" PRIu64 " branch stacks; %" PRIu64
		" mispredicted (%.2f%% of those with prediction).  ",
		t->nr_entries, t->nr_stacks, t->mispred,
		pct(t->mispred, t->with_pred));
	layout_words(out, t);
	fputs(".\n\n", out);
	if (c) {
		fputs("Branch counters per entry, as perf shows them:", out);
		for (unsigned k = 0; k < c->nr; k++) {
			fprintf(out, "%s `%c` ", k ? "," : "", 'A' + k);
			pde_md_text(out, c->names[k], strlen(c->names[k]));
		}
		fputs("; `-` none, `+` saturated (perhaps more).\n\n", out);
	}
	fputs("| rank | from | to | count | share | mispredicted | rate | "
	      "type | dir | 4K | 2M | avg cycles | priv |", out);
	fputs(c ? " branch counter |\n" : "\n", out);
	fputs("|---:|---|---|---:|---:|---:|---:|---|---|---:|---:|---:|---|",
	      out);
	fputs(c ? "---|\n" : "\n", out);
	for (size_t i = 0; i < pda_branch_nr_rows(b); i++) {
		const struct pda_branch_row *r = pda_branch_row(b, i);

		fprintf(out, "| %zu |", i + 1);
		md_cell(out, label(sb, by, &r->from));
		md_cell(out, label(sb, by, &r->to));
		fprintf(out, " %" PRIu64 " | %.2f%% | ", r->count,
			pct(r->count, t->nr_entries));
		if (r->with_pred)
			fprintf(out, "%" PRIu64 " | %.1f%% |", r->mispred,
				pct(r->mispred, r->with_pred));
		else
			fputs("- | - |", out);
		fprintf(out, " %s | %s | ", pda_branch_type_name(r->type),
			dir_name(r));
		if (r->half)
			fputs("- | - | ", out);
		else
			fprintf(out, "%.0f%% | %.0f%% | ",
				pct(r->cross_4k, r->count),
				pct(r->cross_2m, r->count));
		if (r->with_cycles)
			fprintf(out, "%.1f", (double)r->cycles /
						     (double)r->with_cycles);
		else
			fputs("-", out);
		fprintf(out, " | %s |", priv_name(r));
		if (c) {
			cntr_cell(c, r, cell, sizeof(cell));
			if (cell[0])
				md_cell(out, cell);
			else
				fputs(" - |", out);
		}
		fputc('\n', out);
	}
}

static void json_loc(struct pde_json *j, const char *key,
		     enum pda_branch_by by, const struct pda_branch_loc *l,
		     struct pdc_strbuf *sb)
{
	pde_json_begin_object(j, key);
	if (l->missing) {
		/* a BRBE half record's missing end */
		pde_json_null(j, "name");
		pde_json_bool(j, "recorded", false);
		pde_json_end_object(j);
		return;
	}
	pde_json_str(j, "name", label(sb, by, l));
	pde_json_hex(j, "addr", l->addr);
	pde_json_hex(j, "map_ip", l->map_ip);
	if (l->sym)
		pde_json_str(j, "sym", l->sym);
	else
		pde_json_null(j, "sym");
	if (by != PDA_BRANCH_BY_SYM && l->sym)
		pde_json_hex(j, "sym_off", l->sym_off);
	if (l->dso)
		pde_json_str(j, "dso", l->dso);
	else
		pde_json_null(j, "dso");
	if (by == PDA_BRANCH_BY_SRCLINE && l->srcfile) {
		pde_json_str(j, "file", l->srcfile);
		pde_json_u64(j, "line", l->line);
	}
	pde_json_end_object(j);
}

void pde_json_brcntr(struct pde_json *j, const struct pda_brcntr *c,
		     const uint64_t *sums, uint64_t n)
{
	char cell[PDA_BR_CNTR_CELL] = "";

	pde_json_begin_array(j, "counters");
	for (unsigned k = 0; k < c->nr; k++) {
		pde_json_begin_object(j, NULL);
		pde_json_str(j, "event", c->names[k]);
		pde_json_u64(j, "sum", sums[k] & ~PDA_BR_CNTR_SATURATED);
		pde_json_bool(j, "saturated",
			      (sums[k] & PDA_BR_CNTR_SATURATED) != 0);
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
	if (n)
		pda_brcntr_entry(c, sums, n, cell, sizeof(cell));
	pde_json_str(j, "counters_cell", cell);
}

static void write_json(FILE *out, const struct pda_branch *b,
		       enum pda_branch_by by, struct pdc_strbuf *sb)
{
	const struct pda_branch_totals *t = pda_branch_totals(b);
	const struct pda_brcntr *c = pda_branch_counters_of(b);
	static const char *const spec[4] = {"na", "wrong_path",
					    "non_spec_correct_path",
					    "spec_correct_path"};
	static const char *const priv[4] = {"unknown", "user", "kernel", "hv"};
	struct pde_json j;

	pde_json_init(&j, out, true);
	pde_json_begin_object(&j, NULL);
	pde_json_u64(&j, "samples", t->nr_samples);
	pde_json_u64(&j, "branch_stacks", t->nr_stacks);
	pde_json_u64(&j, "entries", t->nr_entries);
	pde_json_u64(&j, "entries_with_prediction", t->with_pred);
	pde_json_u64(&j, "mispredicted", t->mispred);
	pde_json_u64(&j, "entries_with_cycles", t->with_cycles);
	pde_json_u64(&j, "cycles", t->cycles);
	pde_json_bool(&j, "type_save", t->type_save);
	pde_json_bool(&j, "hw_index", t->hw_index);
	pde_json_u64(&j, "types_decoded", t->nr_decoded);
	pde_json_u64(&j, "types_unknown", t->nr_undecoded);
	pde_json_u64(&j, "source_only", t->nr_source_only);
	pde_json_u64(&j, "target_only", t->nr_target_only);
	if (c) {
		/* the events, in the counters' order (A, B, ...) */
		pde_json_begin_array(&j, "counter_events");
		for (unsigned k = 0; k < c->nr; k++)
			pde_json_str(&j, NULL, c->names[k]);
		pde_json_end_array(&j);
	}
	pde_json_begin_array(&j, "branches");
	for (size_t i = 0; i < pda_branch_nr_rows(b); i++) {
		const struct pda_branch_row *r = pda_branch_row(b, i);

		pde_json_begin_object(&j, NULL);
		json_loc(&j, "from", by, &r->from, sb);
		json_loc(&j, "to", by, &r->to, sb);
		pde_json_u64(&j, "count", r->count);
		pde_json_double(&j, "share", pct(r->count, t->nr_entries));
		if (r->with_pred) {
			pde_json_u64(&j, "mispredicted", r->mispred);
			pde_json_u64(&j, "with_prediction", r->with_pred);
			pde_json_double(&j, "mispredict_rate",
					pct(r->mispred, r->with_pred));
		} else {
			pde_json_null(&j, "mispredicted");
			pde_json_null(&j, "mispredict_rate");
		}
		pde_json_str(&j, "type", pda_branch_type_name(r->type));
		pde_json_bool(&j, "type_recorded", r->type_saved);
		if (r->half)
			pde_json_str(&j, "record",
				     r->half == PDA_BRANCH_SOURCE_ONLY
					     ? "source_only"
					     : "target_only");
		pde_json_u64(&j, "forward", r->forward);
		pde_json_u64(&j, "backward",
			     r->half ? 0 : r->count - r->forward);
		pde_json_u64(&j, "cross_4k", r->cross_4k);
		pde_json_u64(&j, "cross_2m", r->cross_2m);
		if (r->with_cycles) {
			pde_json_u64(&j, "with_cycles", r->with_cycles);
			pde_json_u64(&j, "cycles", r->cycles);
			pde_json_double(&j, "cycles_avg",
					(double)r->cycles /
						(double)r->with_cycles);
			pde_json_u64(&j, "cycles_min", r->cyc_min);
			pde_json_u64(&j, "cycles_max", r->cyc_max);
			/* [lo, hi] of each log2 bucket with entries */
			pde_json_begin_array(&j, "cycles_hist");
			for (unsigned k = 0; k < PDA_BRANCH_CYC_BUCKETS; k++) {
				if (!r->cyc_hist[k])
					continue;
				pde_json_begin_object(&j, NULL);
				pde_json_u64(&j, "lo", k ? 1u << k : 1);
				pde_json_u64(&j, "hi",
					     k == PDA_BRANCH_CYC_BUCKETS - 1
						     ? 65535
						     : (2u << k) - 1);
				pde_json_u64(&j, "count", r->cyc_hist[k]);
				pde_json_end_object(&j);
			}
			pde_json_end_array(&j);
		} else {
			pde_json_null(&j, "cycles");
		}
		pde_json_begin_object(&j, "priv");
		for (unsigned k = 1; k < 4; k++)
			if (r->by_priv[k])
				pde_json_u64(&j, priv[k], r->by_priv[k]);
		if (r->user)
			pde_json_u64(&j, "user_by_address", r->user);
		if (r->kernel)
			pde_json_u64(&j, "kernel_by_address", r->kernel);
		pde_json_end_object(&j);
		pde_json_begin_object(&j, "spec");
		for (unsigned k = 1; k < 4; k++)
			if (r->by_spec[k])
				pde_json_u64(&j, spec[k], r->by_spec[k]);
		pde_json_end_object(&j);
		pde_json_u64(&j, "in_tx", r->in_tx);
		pde_json_u64(&j, "abort", r->abort);
		if (c) {
			pde_json_u64(&j, "with_counters", r->with_cntr);
			pde_json_brcntr(&j, c, r->cntr, r->with_cntr);
		}
		pde_json_end_object(&j);
	}
	pde_json_end_array(&j);
	pde_json_end_object(&j);
	pde_json_newline(&j);
}

static void write_csv(FILE *out, const struct pda_branch *b,
		      enum pda_branch_by by, struct pdc_strbuf *sb)
{
	const struct pda_branch_totals *t = pda_branch_totals(b);
	const struct pda_brcntr *c = pda_branch_counters_of(b);

	fputs("from,to,from_addr,to_addr,count,share,mispredicted,"
	      "with_prediction,mispredict_rate,type,forward,cross_4k,"
	      "cross_2m,with_cycles,cycles,cycles_avg,priv",
	      out);
	/* per event its occurrences summed and entries saturated? */
	for (unsigned k = 0; c && k < c->nr; k++)
		fprintf(out, ",cntr_%c,cntr_%c_saturated", 'A' + k, 'A' + k);
	fputs(c ? ",with_counters\n" : "\n", out);
	for (size_t i = 0; i < pda_branch_nr_rows(b); i++) {
		const struct pda_branch_row *r = pda_branch_row(b, i);

		pde_csv_str(out, label(sb, by, &r->from));
		fputc(',', out);
		pde_csv_str(out, label(sb, by, &r->to));
		/* a half record's missing end has no address */
		fputc(',', out);
		if (!r->from.missing)
			fprintf(out, "0x%" PRIx64, r->from.addr);
		fputc(',', out);
		if (!r->to.missing)
			fprintf(out, "0x%" PRIx64, r->to.addr);
		fprintf(out, ",%" PRIu64 ",%.4f,", r->count,
			pct(r->count, t->nr_entries));
		if (r->with_pred)
			fprintf(out, "%" PRIu64 ",%" PRIu64 ",%.4f", r->mispred,
				r->with_pred, pct(r->mispred, r->with_pred));
		else
			fputs(",0,", out);
		fprintf(out, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",",
			pda_branch_type_name(r->type), r->forward, r->cross_4k,
			r->cross_2m, r->with_cycles, r->cycles);
		if (r->with_cycles)
			fprintf(out, "%.2f",
				(double)r->cycles / (double)r->with_cycles);
		fprintf(out, ",%s", priv_name(r));
		for (unsigned k = 0; c && k < c->nr; k++)
			fprintf(out, ",%" PRIu64 ",%d",
				r->cntr[k] & ~PDA_BR_CNTR_SATURATED,
				(r->cntr[k] & PDA_BR_CNTR_SATURATED) != 0);
		if (c)
			fprintf(out, ",%" PRIu64, r->with_cntr);
		fputc('\n', out);
	}
}

/* ---- basic blocks (--blocks) ---------------------------------------- */

static const char *block_label(struct pdc_strbuf *sb, enum pda_branch_by by,
			       const struct pda_branch_block *k)
{
	pdc_strbuf_release(sb);
	loc_label(sb, by, &k->start);
	if (by == PDA_BRANCH_BY_ADDR) {
		pdc_strbuf_add(sb, " .. ", 4);
		loc_label(sb, by, &k->end);
	}
	return pdc_strbuf_str(sb);
}

static double ipc(double insns, double cycles)
{
	return cycles > 0 ? insns / cycles : 0.0;
}

/* A row's cycles per timed execution and IPC; false when it has none
 * (no cycles recorded, or its instructions not decoded). */
static bool block_rates(const struct pda_branch_block *k, double *avg,
			double *ipc_)
{
	if (!k->with_cycles || k->cyc_insns <= 0)
		return false;
	*avg = k->cycles / (double)k->with_cycles;
	*ipc_ = ipc(k->cyc_insns, k->cycles);
	return true;
}

/* What a row is, by level. */
static const char *unit_name(enum pda_branch_by by)
{
	return by == PDA_BRANCH_BY_ADDR	  ? "block"
	       : by == PDA_BRANCH_BY_SYM ? "function"
					 : "source line";
}

static void blocks_words(FILE *out, const struct pda_branch *b)
{
	const struct pda_branch_block_totals *t = pda_branch_block_totals(b);

	fprintf(out,
		"%" PRIu64 " basic block%s run, of %" PRIu64
		" ranges between consecutive entries (%" PRIu64
		" across binaries, %" PRIu64 " backwards or over 64 KiB); %" PRIu64
		" not decoded",
		t->nr_blocks, t->nr_blocks == 1 ? "" : "s", t->nr_ranges,
		t->nr_split, t->nr_backward, t->nr_undecoded);
	if (t->nr_not_any)
		fprintf(out,
			"; %" PRIu64 " stack%s of an event not sampling every "
			"branch (-j any) tell no blocks",
			t->nr_not_any, t->nr_not_any == 1 ? "" : "s");
	if (t->nr_half)
		fprintf(out,
			"; %" PRIu64 " range%s with an end a half record "
			"(ARM BRBE) did not record",
			t->nr_half, t->nr_half == 1 ? "" : "s");
	if (t->cycles > 0)
		fprintf(out, "; IPC %.2f (%.0f instructions in %.0f cycles)",
			ipc(t->cyc_insns, t->cycles), t->cyc_insns, t->cycles);
	else if (t->with_cycles)
		fputs("; no IPC: no timed block decoded (binaries not found)",
		      out);
	else
		fputs("; no cycles recorded: no IPC (AMD's LBR and BRS, "
		      "Haswell's LBR have none)",
		      out);
}

static void write_blocks_text(FILE *out, const struct pda_branch *b,
			      enum pda_branch_by by, struct pdc_strbuf *sb)
{
	const struct pda_branch_block_totals *t = pda_branch_block_totals(b);

	fputs("# ", out);
	blocks_words(out, b);
	fputs("\n#\n", out);
	fprintf(out, "%10s %6s %12s %10s %7s %10s %6s  %s\n", "count", "insns",
		"executed", "timed", "cyc %", "avg cyc", "IPC",
		unit_name(by));
	for (size_t i = 0; i < pda_branch_nr_blocks(b); i++) {
		const struct pda_branch_block *k = pda_branch_block(b, i);
		double avg, r;

		fprintf(out, "%10" PRIu64 " ", k->count);
		if (k->insns)
			fprintf(out, "%6" PRIu64, k->insns);
		else
			fprintf(out, "%6s", "-");
		fprintf(out, " %12" PRIu64 " %10" PRIu64 " %6.2f%% ",
			k->executed, k->with_cycles,
			t->cycles > 0 ? 100.0 * k->cycles / t->cycles : 0.0);
		if (block_rates(k, &avg, &r))
			fprintf(out, "%10.1f %6.2f  ", avg, r);
		else
			fprintf(out, "%10s %6s  ", "-", "-");
		pde_text_puts(out, block_label(sb, by, k));
		fputc('\n', out);
	}
}

static void write_blocks_md(FILE *out, const struct pda_branch *b,
			    enum pda_branch_by by, struct pdc_strbuf *sb)
{
	fputs("## Basic blocks\n\n", out);
	blocks_words(out, b);
	fprintf(out,
		".\n\n| rank | %s | count | insns | executed | timed | "
		"avg cycles | IPC |\n"
		"|---:|---|---:|---:|---:|---:|---:|---:|\n",
		unit_name(by));
	for (size_t i = 0; i < pda_branch_nr_blocks(b); i++) {
		const struct pda_branch_block *k = pda_branch_block(b, i);
		double avg, r;

		fprintf(out, "| %zu |", i + 1);
		md_cell(out, block_label(sb, by, k));
		fprintf(out, " %" PRIu64 " | ", k->count);
		if (k->insns)
			fprintf(out, "%" PRIu64, k->insns);
		else
			fputs("-", out);
		fprintf(out, " | %" PRIu64 " | %" PRIu64 " | ", k->executed,
			k->with_cycles);
		if (block_rates(k, &avg, &r))
			fprintf(out, "%.1f | %.2f |\n", avg, r);
		else
			fputs("- | - |\n", out);
	}
}

static void write_blocks_json(FILE *out, const struct pda_branch *b,
			      enum pda_branch_by by, struct pdc_strbuf *sb)
{
	const struct pda_branch_block_totals *t = pda_branch_block_totals(b);
	struct pde_json j;

	pde_json_init(&j, out, true);
	pde_json_begin_object(&j, NULL);
	pde_json_str(&j, "level", unit_name(by));
	pde_json_u64(&j, "ranges", t->nr_ranges);
	pde_json_u64(&j, "blocks_run", t->nr_blocks);
	pde_json_u64(&j, "across_binaries", t->nr_split);
	pde_json_u64(&j, "backward_or_long", t->nr_backward);
	pde_json_u64(&j, "not_decoded", t->nr_undecoded);
	pde_json_u64(&j, "stacks_not_any", t->nr_not_any);
	pde_json_u64(&j, "ranges_half_records", t->nr_half);
	pde_json_u64(&j, "timed", t->with_cycles);
	pde_json_double(&j, "cycles", t->cycles);
	pde_json_double(&j, "instructions_timed", t->cyc_insns);
	if (t->cycles > 0)
		pde_json_double(&j, "ipc", ipc(t->cyc_insns, t->cycles));
	else
		pde_json_null(&j, "ipc");
	pde_json_begin_array(&j, "blocks");
	for (size_t i = 0; i < pda_branch_nr_blocks(b); i++) {
		const struct pda_branch_block *k = pda_branch_block(b, i);
		double avg, r;

		pde_json_begin_object(&j, NULL);
		pde_json_str(&j, "name", block_label(sb, by, k));
		json_loc(&j, "start", by, &k->start, sb);
		if (by == PDA_BRANCH_BY_ADDR) {
			json_loc(&j, "end", by, &k->end, sb);
			pde_json_u64(&j, "insns", k->insns);
		}
		pde_json_u64(&j, "count", k->count);
		pde_json_u64(&j, "executed", k->executed);
		pde_json_u64(&j, "timed", k->with_cycles);
		pde_json_double(&j, "cycles", k->cycles);
		pde_json_double(&j, "instructions_timed", k->cyc_insns);
		if (block_rates(k, &avg, &r)) {
			pde_json_double(&j, "cycles_avg", avg);
			pde_json_double(&j, "ipc", r);
		} else {
			pde_json_null(&j, "cycles_avg");
			pde_json_null(&j, "ipc");
		}
		pde_json_end_object(&j);
	}
	pde_json_end_array(&j);
	pde_json_end_object(&j);
	pde_json_newline(&j);
}

static void write_blocks_csv(FILE *out, const struct pda_branch *b,
			     enum pda_branch_by by, struct pdc_strbuf *sb)
{
	fputs("name,start_addr,end_addr,count,insns,executed,timed,cycles,"
	      "cycles_avg,ipc\n",
	      out);
	for (size_t i = 0; i < pda_branch_nr_blocks(b); i++) {
		const struct pda_branch_block *k = pda_branch_block(b, i);
		double avg, r;

		pde_csv_str(out, block_label(sb, by, k));
		fprintf(out, ",0x%" PRIx64 ",", k->start.addr);
		if (by == PDA_BRANCH_BY_ADDR)
			fprintf(out, "0x%" PRIx64, k->end.addr);
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%.2f,",
			k->count, k->insns, k->executed, k->with_cycles,
			k->cycles);
		if (block_rates(k, &avg, &r))
			fprintf(out, "%.2f,%.4f\n", avg, r);
		else
			fputs(",\n", out);
	}
}

typedef void writer_fn(FILE *out, const struct pda_branch *b,
		       enum pda_branch_by by, struct pdc_strbuf *sb);

/* Write b with the format's writer, by an enum pde_branches_format. */
static int write_with(FILE *out, writer_fn *const w[4],
		      enum pde_branches_format fmt,
		      const struct pda_branch *b, unsigned by)
{
	char small[256];
	struct pdc_strbuf sb;
	bool oom;

	pdc_strbuf_init(&sb, NULL, small, sizeof(small));
	w[fmt](out, b, (enum pda_branch_by)by, &sb);
	oom = sb.oom;
	pdc_strbuf_release(&sb);
	return oom ? PD_ERR_NOMEM : pde_out_rc(out);
}

int pde_branches(FILE *out, enum pde_branches_format fmt,
		 const struct pda_branch *b, unsigned by)
{
	static writer_fn *const w[4] = {
		[PDE_BRANCHES_TEXT] = write_text,
		[PDE_BRANCHES_MD] = write_md,
		[PDE_BRANCHES_JSON] = write_json,
		[PDE_BRANCHES_CSV] = write_csv,
	};

	return write_with(out, w, fmt, b, by);
}

int pde_branch_blocks(FILE *out, enum pde_branches_format fmt,
		      const struct pda_branch *b, unsigned by)
{
	static writer_fn *const w[4] = {
		[PDE_BRANCHES_TEXT] = write_blocks_text,
		[PDE_BRANCHES_MD] = write_blocks_md,
		[PDE_BRANCHES_JSON] = write_blocks_json,
		[PDE_BRANCHES_CSV] = write_blocks_csv,
	};

	return write_with(out, w, fmt, b, by);
}
