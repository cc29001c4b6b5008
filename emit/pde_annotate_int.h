/*
 * pde_annotate_int.h - what the annotation writers share
 * (pde_annotate.c: text, Markdown and the dispatch; pde_annotate_html.c;
 * pde_annotate_json.c).  Private to emit/.
 */
#ifndef PDE_ANNOTATE_INT_H
#define PDE_ANNOTATE_INT_H

#include "pd_config.h"
#include "pda_annotate.h"
#include "pda_branch.h"
#include "pde.h"
#include "pde_text_int.h"

/* perf's colour thresholds (ui/browsers: MIN_RED, MIN_GREEN), percent */
#define PDE_ANNOT_HOT 5.0
#define PDE_ANNOT_WARM 0.5

/* part of whole in percent, by period or (w->o.hits) samples */
double pde_annot_pct(const struct pde_annot *w,
		     const struct pda_annot_count *part,
		     const struct pda_annot_count *whole);
/* Whether event ev has samples in fn (only those get columns). */
bool pde_annot_event_in(const struct pda_annot_func *fn, size_t ev);
/* The event's name. */
const char *pde_annot_event(const struct pde_annot *w, size_t ev);
/* The last path component. */
const char *pde_annot_base(const char *path);
/* The hottest local percentage of a count array over the shown events. */
double pde_annot_max_pct(const struct pde_annot *w,
			 const struct pda_annot_func *fn,
			 const struct pda_annot_count *counts);

/* How many of fn's hottest lines are listed: up to the writer's
 * nr_hot_lines, the first without samples ending the list. */
size_t pde_annot_nr_hot(const struct pde_annot *w,
			const struct pda_annot_func *fn);
/* Hot line i's source text (from libpda), its leading blanks left out;
 * NULL when there is none. */
const char *pde_annot_hot_text(const struct pde_annot *w,
			       const struct pda_annot_line *l, size_t *len);

/* Instruction i's branch counts in words ("taken 40, 5.00% mispredicted,
 * 19 cycles, IPC 0.20") into buf; NULL when it has none. */
const char *pde_annot_br_words(const struct pde_annot *w, size_t i,
			       char *buf, size_t size);

void pde_annot_html_begin(struct pde_annot *w);
void pde_annot_html_func(struct pde_annot *w, const struct pda_annot_func *fn);
void pde_annot_html_end(struct pde_annot *w);
void pde_annot_json_begin(struct pde_annot *w);
void pde_annot_json_func(struct pde_annot *w, const struct pda_annot_func *fn);
void pde_annot_json_end(struct pde_annot *w);

#endif /* PDE_ANNOTATE_INT_H */
