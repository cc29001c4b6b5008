/*
 * pde_timeline_int.h - what the timeline writers share (pde_timeline.c:
 * speedscope and Chrome's trace events; pde_tlsvg.c: the SVG and HTML
 * lanes of `pdtool timeline`).  Private to emit/.
 */
#ifndef PDE_TIMELINE_INT_H
#define PDE_TIMELINE_INT_H

#include "pd_config.h"
#include "pde.h"

#include <stddef.h>
#include <stdint.h>

/* Sample i of t's end: the next sample's time, at most interval on (the
 * last sample: interval on). */
uint64_t pde_tl_sample_end(const struct pde_ff_thread *t, size_t i,
			   uint64_t interval);

#endif /* PDE_TIMELINE_INT_H */
