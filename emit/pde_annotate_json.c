/*
 * pde_annotate_json.c - annotated functions as one JSON object:
 *
 *	{"input": ..., "percent": "period"|"hits",
 *	 "events": [{"name", "samples", "period"}],
 *	 "functions": [{"name", "dso", "path", "start", "size", "arch",
 *	   "error", "counts": [{"samples", "period"}] (per event),
 *	   "instructions": [{"addr", "size", "mnemonic", "operands",
 *	     "counts", "percent": [func% per event], "total_percent",
 *	     "file", "line", "flags": [...], "target", "target_name",
 *	     "inline": {"depth", "function", "call_file", "call_line"},
 *	     "data_type" (--code-with-type)}],
 *	   "lines": [{"file", "line", "instructions", "counts", "percent",
 *	     "text"}]}]}
 *
 * Addresses are "0x..." strings; per-event arrays follow "events".
 */
#include "pde_annotate_int.h"

static void counts(struct pde_json *j, const char *key,
		   const struct pda_annot_count *c, size_t nr)
{
	pde_json_begin_array(j, key);
	for (size_t ev = 0; ev < nr; ev++) {
		pde_json_begin_object(j, NULL);
		pde_json_u64(j, "samples", c[ev].hits);
		pde_json_u64(j, "period", c[ev].period);
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
}

static void pcts(struct pde_annot *w, const char *key,
		 const struct pda_annot_count *c,
		 const struct pda_annot_count *whole, size_t nr)
{
	pde_json_begin_array(&w->j, key);
	for (size_t ev = 0; ev < nr; ev++)
		pde_json_double(&w->j, NULL, pde_annot_pct(w, &c[ev], &whole[ev]));
	pde_json_end_array(&w->j);
}

void pde_annot_json_begin(struct pde_annot *w)
{
	const struct pda_annot_count *t = pda_annot_totals(w->a);

	pde_json_init(&w->j, w->out, false);
	pde_json_begin_object(&w->j, NULL);
	if (w->o.input)
		pde_json_str(&w->j, "input", w->o.input);
	pde_json_str(&w->j, "percent", w->o.hits ? "hits" : "period");
	pde_json_begin_array(&w->j, "events");
	for (size_t ev = 0; ev < w->o.nr_events; ev++) {
		pde_json_begin_object(&w->j, NULL);
		pde_json_str(&w->j, "name", pde_annot_event(w, ev));
		pde_json_u64(&w->j, "samples", t[ev].hits);
		pde_json_u64(&w->j, "period", t[ev].period);
		pde_json_end_object(&w->j);
	}
	pde_json_end_array(&w->j);
	pde_json_begin_array(&w->j, "functions");
}

static const struct {
	unsigned flag;
	const char *name;
} flag_names[] = {
	{PDA_INSN_JUMP, "jump"},
	{PDA_INSN_CALL, "call"},
	{PDA_INSN_RET, "return"},
	{PDA_INSN_BACK_EDGE, "back_edge"},
	{PDA_INSN_LOOP_HEAD, "loop_head"},
	{PDA_INSN_INLINE_START, "inline_start"},
	{PDA_INSN_LINE_START, "line_start"},
	{PDA_INSN_BAD, "undecodable"},
	{PDA_INSN_DATA_REF, "data_ref"},
};

static void insn(struct pde_annot *w, const struct pda_annot_func *fn,
		 const struct pda_annot_insn *in)
{
	struct pde_json *j = &w->j;
	const size_t nr = fn->nr_events;

	pde_json_begin_object(j, NULL);
	pde_json_hex(j, "addr", in->addr);
	pde_json_u64(j, "size", in->size);
	pde_json_str(j, "mnemonic", in->mnemonic);
	pde_json_str(j, "operands", in->operands);
	counts(j, "counts", in->counts, nr);
	pcts(w, "percent", in->counts, fn->sym->counts, nr);
	pcts(w, "total_percent", in->counts, pda_annot_totals(w->a), nr);
	if (in->srcfile) {
		pde_json_str(j, "file", in->srcfile);
		pde_json_u64(j, "line", in->line);
	}
	pde_json_begin_array(j, "flags");
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (in->flags & flag_names[i].flag)
			pde_json_str(j, NULL, flag_names[i].name);
	pde_json_end_array(j);
	/* a branch's target, or the named address of a Power10
	 * PC-relative load or store (the text's "<foo@got>") */
	if (((in->flags & (PDA_INSN_JUMP | PDA_INSN_CALL)) && in->target) ||
	    (in->flags & PDA_INSN_DATA_REF) || in->target_name) {
		pde_json_hex(j, "target", in->target);
		if (in->target_name)
			pde_json_str(j, "target_name", in->target_name);
	}
	if (w->notes && w->notes[in - fn->insns])
		pde_json_str(j, "data_type", w->notes[in - fn->insns]);
	if (w->branches) {
		const struct pda_branch_insn *b = &w->branches[in - fn->insns];

		if (b->taken || b->nr_cycles) {
			pde_json_begin_object(j, "branch");
			pde_json_u64(j, "taken", b->taken);
			pde_json_u64(j, "with_prediction", b->with_pred);
			pde_json_u64(j, "mispredicted", b->mispred);
			if (b->nr_cycles) {
				pde_json_u64(j, "timed", b->nr_cycles);
				pde_json_u64(j, "cycles_avg", b->cycles_avg);
				pde_json_u64(j, "cycles_min", b->cycles_min);
				pde_json_u64(j, "cycles_max", b->cycles_max);
			}
			if (b->ipc != 0.0)
				pde_json_double(j, "ipc", b->ipc);
			if (b->nr_cycles && w->o.brcntr && w->o.brcntr->nr)
				pde_json_brcntr(j, w->o.brcntr, b->cntr,
						b->nr_cycles);
			pde_json_end_object(j);
		}
	}
	if (in->inline_depth) {
		pde_json_begin_object(j, "inline");
		pde_json_u64(j, "depth", in->inline_depth);
		pde_json_str(j, "function", in->inline_func);
		if (in->call_file) {
			pde_json_str(j, "call_file", in->call_file);
			pde_json_u64(j, "call_line", in->call_line);
		}
		pde_json_end_object(j);
	}
	pde_json_end_object(j);
}

void pde_annot_json_func(struct pde_annot *w, const struct pda_annot_func *fn)
{
	const struct pda_annot_sym *sym = fn->sym;
	struct pde_json *j = &w->j;
	const size_t nr = fn->nr_events;

	pde_json_begin_object(j, NULL);
	pde_json_str(j, "name", sym->name);
	if (sym->dso)
		pde_json_str(j, "dso", sym->dso);
	if (sym->path)
		pde_json_str(j, "path", sym->path);
	pde_json_hex(j, "start", sym->start);
	pde_json_u64(j, "size", fn->size);
	pde_json_str(j, "arch", fn->arch);
	if (fn->error)
		pde_json_str(j, "error", fn->error);
	counts(j, "counts", sym->counts, nr);
	pcts(w, "total_percent", sym->counts, pda_annot_totals(w->a), nr);
	pde_json_begin_array(j, "instructions");
	for (size_t i = 0; i < fn->nr_insns; i++)
		insn(w, fn, &fn->insns[i]);
	pde_json_end_array(j);
	pde_json_begin_array(j, "lines");
	for (size_t i = 0; i < fn->nr_lines; i++) {
		const struct pda_annot_line *l = &fn->lines[i];
		const char *text;
		size_t len;

		pde_json_begin_object(j, NULL);
		pde_json_str(j, "file", l->file);
		pde_json_u64(j, "line", l->line);
		pde_json_u64(j, "instructions", l->nr_insns);
		counts(j, "counts", l->counts, nr);
		pcts(w, "percent", l->counts, sym->counts, nr);
		text = pda_annot_source(w->a, l->file, l->line, &len);
		if (text)
			pde_json_strn(j, "text", text, len);
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
	pde_json_end_object(j);
}

/* Why samples have no symbol: the block of the commands' stderr. */
static void unresolved(struct pde_json *j, const struct pde_annot_opts *o)
{
	pde_json_begin_array(j, "unresolved");
	for (size_t i = 0; i < o->nr_unresolved; i++) {
		const struct pda_missing_dso *m = &o->unresolved[i];

		pde_json_begin_object(j, NULL);
		pde_json_str(j, "dso", m->dso);
		pde_json_u64(j, "samples", m->nr_samples);
		pde_json_u64(j, "unresolved_samples", m->nr_unresolved);
		pde_json_str(j, "reason", pda_unres_reason_name(m->reason));
		if (m->detail)
			pde_json_str(j, "detail", m->detail);
		pde_json_str(j, "action", m->action);
		if (m->package)
			pde_json_str(j, "package", m->package);
		pde_json_begin_array(j, "tried");
		for (size_t t = 0; m->tried[t]; t++)
			pde_json_str(j, NULL, m->tried[t]);
		pde_json_end_array(j);
		pde_json_end_object(j);
	}
	pde_json_end_array(j);
}

void pde_annot_json_end(struct pde_annot *w)
{
	pde_json_end_array(&w->j);
	pde_json_u64(&w->j, "nr_functions", w->nr_funcs);
	if (w->o.nr_unresolved)
		unresolved(&w->j, &w->o);
	pde_json_end_object(&w->j);
	pde_json_newline(&w->j);
}
