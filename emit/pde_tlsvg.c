/*
 * pde_tlsvg.c - per-thread lanes in time, as SVG or an HTML page around
 * it (`pdtool timeline`): the tracks pde_firefox() takes, one lane each,
 * every run of samples a rectangle and every off-CPU span a blue one.
 *
 * The lanes live in a nested <svg> whose viewBox is in microseconds from
 * the first moment shown, with preserveAspectRatio="none": zooming is
 * the script changing that viewBox, nothing redrawn, and the file's
 * coordinates are times a test can read back.  What the zoomed range is
 * in perf's seconds (`--time START,END`) is computed from the root's
 * data-start (absolute ns) by the script, the start rounded down and the
 * end up to the microsecond, so the range handed on holds every sample
 * in view.
 *
 * Consecutive samples of one colour that touch (each lasting until the
 * next) are one rectangle with their count in data-n: a thread running
 * one function for a second is one element, not a thousand.
 */
#include "pd_config.h"
#include "pda_profile.h"
#include "pde.h"
#include "pde_html_int.h"
#include "pde_timeline_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define LABEL_W 240
#define LANE_H 14
#define LANE_GAP 4
#define TOP 64
#define AXIS_H 34

#define COLOR_ON "#e0662b"
#define COLOR_OFF "#3a6fc4"
#define COLOR_PREEMPT "#9db9e8"

static const char tl_css[] =
	"\n"
	"text { font-family: monospace; font-size: 12px; fill: #000000; }\n"
	"#title { text-anchor: middle; font-size: 17px; }\n"
	"#range { fill: #404040; }\n"
	".btn { cursor: pointer; }\n"
	".btn:hover { text-decoration: underline; }\n"
	".tick { stroke: #b0b0b0; stroke-width: 1; }\n"
	".tl { text-anchor: middle; fill: #606060; }\n"
	"#plot rect:hover { opacity: 0.6; }\n"
	"#sel { fill: #808080; opacity: 0.3; pointer-events: none; }\n"
	".hide { display: none; }\n";

/* The zoom: a drag over the lanes selects a time range and shows it;
 * Reset Zoom (or a double click) shows everything again. */
static const char tl_script[] =
	"\n"
	"(function () {\n"
	"var NS = 'http://www.w3.org/2000/svg';\n"
	"var svg = document.getElementById('timeline');\n"
	"var plot = document.getElementById('plot');\n"
	"var sel = document.getElementById('sel');\n"
	"var range = document.getElementById('range');\n"
	"var unzoom = document.getElementById('unzoom');\n"
	"var ticks = document.getElementById('ticks');\n"
	"var base = Number(svg.getAttribute('data-start')) / 1000;\n"
	"var span = Number(svg.getAttribute('data-span'));\n"
	"var px = Number(plot.getAttribute('x'));\n"
	"var pw = Number(plot.getAttribute('width'));\n"
	"var py = Number(plot.getAttribute('y'));\n"
	"var ph = Number(plot.getAttribute('height'));\n"
	"var view = [0, span], down = null;\n"
	"function sec(us, up) {\n"
	"  var t = up ? Math.ceil(base + us) : Math.floor(base + us);\n"
	"  var s = Math.floor(t / 1e6), f = String(t - s * 1e6);\n"
	"  return s + '.' + '000000'.slice(f.length) + f;\n"
	"}\n"
	"function label(us, step) {\n"
	"  if (step >= 1e6) return (us / 1e6).toFixed(step >= 1e7 ? 0 : 1) +"
	" ' s';\n"
	"  if (step >= 1e3) return (us / 1e3).toFixed(step >= 1e4 ? 0 : 1) +"
	" ' ms';\n"
	"  return us.toFixed(step >= 10 ? 0 : 1) + ' us';\n"
	"}\n"
	"function show() {\n"
	"  var w = view[1] - view[0];\n"
	"  plot.setAttribute('viewBox', view[0] + ' 0 ' + w + ' ' + ph);\n"
	"  range.textContent = '--time ' + sec(view[0], false) + ',' +\n"
	"    sec(view[1], true);\n"
	"  unzoom.classList.toggle('hide', view[0] <= 0 && view[1] >= span);\n"
	"  while (ticks.firstChild) ticks.removeChild(ticks.firstChild);\n"
	"  var step = Math.pow(10, Math.floor(Math.log10(w / 8)));\n"
	"  if (w / step > 40) step *= 5; else if (w / step > 16) step *= 2;\n"
	"  for (var t = Math.ceil(view[0] / step) * step; t <= view[1];\n"
	"       t += step) {\n"
	"    var x = px + (t - view[0]) / w * pw;\n"
	"    var l = document.createElementNS(NS, 'line');\n"
	"    l.setAttribute('class', 'tick');\n"
	"    l.setAttribute('x1', x); l.setAttribute('x2', x);\n"
	"    l.setAttribute('y1', py + ph); l.setAttribute('y2', py + ph + 5);\n"
	"    ticks.appendChild(l);\n"
	"    var tx = document.createElementNS(NS, 'text');\n"
	"    tx.setAttribute('class', 'tl');\n"
	"    tx.setAttribute('x', x); tx.setAttribute('y', py + ph + 18);\n"
	"    tx.textContent = label(t, step);\n"
	"    ticks.appendChild(tx);\n"
	"  }\n"
	"}\n"
	"function at(ev) {\n"
	"  var p = svg.createSVGPoint();\n"
	"  p.x = ev.clientX; p.y = ev.clientY;\n"
	"  p = p.matrixTransform(svg.getScreenCTM().inverse());\n"
	"  return {x: Math.min(Math.max(p.x, px), px + pw), y: p.y};\n"
	"}\n"
	"function time(x) {\n"
	"  return view[0] + (x - px) / pw * (view[1] - view[0]);\n"
	"}\n"
	"svg.addEventListener('mousedown', function (ev) {\n"
	"  var p = at(ev);\n"
	"  if (p.y < py || p.y > py + ph) return;\n"
	"  down = p.x; ev.preventDefault();\n"
	"});\n"
	"svg.addEventListener('mousemove', function (ev) {\n"
	"  if (down === null) return;\n"
	"  var x = at(ev).x;\n"
	"  sel.setAttribute('x', Math.min(x, down));\n"
	"  sel.setAttribute('width', Math.abs(x - down));\n"
	"  sel.classList.remove('hide');\n"
	"});\n"
	"svg.addEventListener('mouseup', function (ev) {\n"
	"  if (down === null) return;\n"
	"  var x = at(ev).x, a = Math.min(x, down), b = Math.max(x, down);\n"
	"  down = null; sel.classList.add('hide');\n"
	"  if (b - a < 3) return;\n"
	"  view = [time(a), time(b)]; show();\n"
	"});\n"
	"function reset() { view = [0, span]; show(); }\n"
	"unzoom.addEventListener('click', reset);\n"
	"svg.addEventListener('dblclick', reset);\n"
	"show();\n"
	"})();\n";

struct tlsvg {
	FILE *out;
	const struct pda_profile *p;
	const struct pde_tlsvg_opts *o;
	uint64_t t0, t1, iv;
};

/* ns as perf prints a time: seconds with six decimals */
static void put_sec(FILE *out, uint64_t ns)
{
	const uint64_t us = ns / 1000;

	fprintf(out, "%" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
}

/* ns from t0 as the plot's microseconds */
static void put_us(FILE *out, const struct tlsvg *g, uint64_t ns)
{
	const uint64_t d = ns > g->t0 ? ns - g->t0 : 0;

	fprintf(out, "%" PRIu64 ".%03" PRIu64, d / 1000, d % 1000);
}

/* The leaf function's name of stack s (NULL: an empty stack). */
static const char *leaf_name(const struct pda_profile *p, uint32_t s)
{
	const struct pda_profile_loc *l;
	const struct pda_profile_func *f;

	if (!s)
		return NULL;
	l = pda_profile_loc(p, pda_profile_stack(p, s)->loc);
	f = pda_profile_func(p, l->func);
	return pda_profile_str(p, f && f->name ? f->name : l->label, NULL);
}

/* FlameGraph's "hot" colours, by a hash of the name: the same function
 * the same colour in every file. */
static void name_color(const char *name, char buf[8])
{
	uint32_t h = 2166136261u;
	double v1, v2, v3;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h ^ *c) * 16777619u;
	v1 = (double)(h & 0xff) / 255.0;
	v2 = (double)((h >> 8) & 0xff) / 255.0;
	v3 = (double)((h >> 16) & 0xff) / 255.0;
	snprintf(buf, 8, "#%02x%02x%02x", 205 + (unsigned)(50 * v3),
		 (unsigned)(230 * v1), (unsigned)(55 * v2));
}

static void put_rect(const struct tlsvg *g, size_t lane, uint64_t from,
		     uint64_t to, const char *cls, const char *fill)
{
	fprintf(g->out, "<rect class=\"%s\" x=\"", cls);
	put_us(g->out, g, from);
	fputs("\" width=\"", g->out);
	fprintf(g->out, "%" PRIu64 ".%03" PRIu64, (to - from) / 1000,
		(to - from) % 1000);
	fprintf(g->out, "\" y=\"%zu\" height=\"%u\" fill=\"%s\"",
		lane * (LANE_H + LANE_GAP), LANE_H, fill);
}

static void put_span(const struct tlsvg *g, uint64_t from, uint64_t to)
{
	put_sec(g->out, from);
	fputs(" - ", g->out);
	put_sec(g->out, to);
	fputs(" s", g->out);
}

/* Lane k's samples: each run of one colour whose samples touch. */
static void put_samples(const struct tlsvg *g, size_t k)
{
	const struct pde_ff_thread *t = &g->o->tl->threads[k];
	const bool by_fn = g->o->color == PDE_TL_BY_FUNCTION;

	for (size_t i = 0; i < t->nr_samples;) {
		const char *name = leaf_name(g->p, t->samples[i].stack);
		uint64_t end = pde_tl_sample_end(t, i, g->iv);
		size_t j = i + 1;
		char fill[8];

		while (j < t->nr_samples && t->samples[j].time == end &&
		       (!by_fn ||
			leaf_name(g->p, t->samples[j].stack) == name)) {
			end = pde_tl_sample_end(t, j, g->iv);
			j++;
		}
		if (by_fn)
			name_color(name ? name : "", fill);
		put_rect(g, k, t->samples[i].time, end, "s",
			 by_fn ? fill : COLOR_ON);
		fprintf(g->out, " data-n=\"%zu\"><title>", j - i);
		if (by_fn)
			pde_html_text(g->out, name ? name : "[no stack]",
				      SIZE_MAX);
		else
			fputs("on CPU", g->out);
		fprintf(g->out, ": %zu sample%s, ", j - i, j - i == 1 ? "" : "s");
		put_span(g, t->samples[i].time, end);
		fputs("</title></rect>\n", g->out);
		i = j;
	}
}

static void put_offcpu(const struct tlsvg *g, size_t k)
{
	const struct pde_ff_thread *t = &g->o->tl->threads[k];

	for (size_t i = 0; i < t->nr_markers; i++) {
		const struct pde_ff_marker *m = &t->markers[i];

		if (m->kind != PDE_FF_OFFCPU || m->end < m->start)
			continue;
		put_rect(g, k, m->start, m->end, "o",
			 m->value ? COLOR_PREEMPT : COLOR_OFF);
		fprintf(g->out, " data-ns=\"%" PRIu64 "\"><title>off CPU (%s)"
				", %.3f ms, ",
			m->end - m->start, m->value ? "preempted" : "blocked",
			(double)(m->end - m->start) / 1e6);
		put_span(g, m->start, m->end);
		fputs("</title></rect>\n", g->out);
	}
}

/* The first and last moment shown: samples' and off-CPU spans'. */
static void bounds(struct tlsvg *g)
{
	const struct pde_timeline_opts *tl = g->o->tl;

	g->t0 = tl->start_time;
	g->t1 = tl->start_time;
	for (size_t k = 0; k < tl->nr_threads; k++) {
		const struct pde_ff_thread *t = &tl->threads[k];

		for (size_t i = 0; i < t->nr_markers; i++)
			if (t->markers[i].kind == PDE_FF_OFFCPU) {
				if (t->markers[i].start < g->t0)
					g->t0 = t->markers[i].start;
				if (t->markers[i].end > g->t1)
					g->t1 = t->markers[i].end;
			}
		if (t->nr_samples) {
			const uint64_t e =
				pde_tl_sample_end(t, t->nr_samples - 1, g->iv);

			if (t->samples[0].time < g->t0)
				g->t0 = t->samples[0].time;
			if (e > g->t1)
				g->t1 = e;
		}
	}
	if (g->t1 <= g->t0)
		g->t1 = g->t0 + g->iv;
}

static void put_lane_label(const struct tlsvg *g, size_t k)
{
	const struct pde_ff_thread *t = &g->o->tl->threads[k];
	const char *name = t->name ? t->name : t->comm ? t->comm : "";

	fprintf(g->out, "<text x=\"8\" y=\"%zu\">",
		TOP + k * (LANE_H + LANE_GAP) + LANE_H - 2);
	/* a long comm and event cut to what the column holds */
	pde_html_text(g->out, name, strlen(name) > 22 ? 22 : strlen(name));
	fprintf(g->out, " %" PRId32 "/%" PRId32 "</text>\n",
		(int32_t)t->pid, (int32_t)t->tid);
}

static void put_legend(const struct tlsvg *g, unsigned y)
{
	static const struct {
		const char *fill, *what;
	} keys[] = {
		{COLOR_ON, "on CPU"},
		{COLOR_OFF, "off CPU, blocked"},
		{COLOR_PREEMPT, "off CPU, preempted"},
	};
	unsigned x = LABEL_W;

	for (size_t i = g->o->color == PDE_TL_BY_CPU ? 0 : 1;
	     i < sizeof(keys) / sizeof(keys[0]); i++) {
		fprintf(g->out,
			"<rect x=\"%u\" y=\"%u\" width=\"12\" height=\"12\" "
			"fill=\"%s\"/><text x=\"%u\" y=\"%u\">%s</text>\n",
			x, y - 10, keys[i].fill, x + 16, y, keys[i].what);
		x += 40 + 8 * (unsigned)strlen(keys[i].what);
	}
}

int pde_timeline_svg(FILE *out, const struct pda_profile *p,
		     const struct pde_tlsvg_opts *o)
{
	const struct pde_timeline_opts *tl = o->tl;
	struct tlsvg g = {.out = out, .p = p, .o = o,
			  .iv = tl->interval_ns ? tl->interval_ns : 1000000};
	const unsigned width = o->width ? o->width : 1200;
	const unsigned pw = width - LABEL_W - 16;
	const size_t ph = tl->nr_threads * (LANE_H + LANE_GAP);
	const size_t height = TOP + ph + AXIS_H + 24;
	const char *title = tl->name ? tl->name : "";

	bounds(&g);
	if (o->html) {
		fputs("<!DOCTYPE html>\n<html lang=\"en\"><head>"
		      "<meta charset=\"utf-8\">",
		      out);
		pde_html_csp(out, tl_script, tl_css, false);
		fputs("<title>Timeline: ", out);
		pde_html_text(out, title, SIZE_MAX);
		fprintf(out, "</title><style>%s</style></head><body>\n",
			tl_css);
	} else {
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" "
		      "standalone=\"yes\"?>\n",
		      out);
	}
	fprintf(out,
		"<svg id=\"timeline\" version=\"1.1\" width=\"%u\" "
		"height=\"%zu\" viewBox=\"0 0 %u %zu\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-start=\"%" PRIu64
		"\" data-span=\"",
		width, height, width, height, g.t0);
	put_us(out, &g, g.t1);
	fputs("\">\n", out);
	if (!o->html) {
		fputs("<foreignObject width=\"0\" height=\"0\"><html "
		      "xmlns=\"http://www.w3.org/1999/xhtml\"><head>",
		      out);
		pde_html_csp(out, tl_script, tl_css, true);
		fputs("</head></html></foreignObject>\n", out);
		fprintf(out, "<style type=\"text/css\"><![CDATA[%s]]></style>\n",
			tl_css);
	}
	fprintf(out,
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%zu\" "
		"fill=\"#ffffff\"/>\n<text id=\"title\" x=\"%u\" y=\"22\">"
		"Timeline: ",
		width, height, width / 2);
	pde_html_text(out, title, SIZE_MAX);
	fprintf(out,
		"</text>\n<text id=\"unzoom\" class=\"btn hide\" x=\"8\" "
		"y=\"46\">Reset Zoom</text>\n"
		"<text id=\"range\" x=\"%u\" y=\"46\"></text>\n",
		LABEL_W);
	for (size_t k = 0; k < tl->nr_threads; k++)
		put_lane_label(&g, k);
	fprintf(out,
		"<svg id=\"plot\" x=\"%u\" y=\"%u\" width=\"%u\" "
		"height=\"%zu\" viewBox=\"0 0 ",
		LABEL_W, TOP, pw, ph ? ph : 1);
	put_us(out, &g, g.t1);
	fprintf(out, " %zu\" preserveAspectRatio=\"none\">\n", ph ? ph : 1);
	for (size_t k = 0; k < tl->nr_threads; k++) {
		const struct pde_ff_thread *t = &tl->threads[k];

		fprintf(out,
			"<g class=\"lane\" data-pid=\"%" PRId32
			"\" data-tid=\"%" PRId32 "\">\n",
			(int32_t)t->pid, (int32_t)t->tid);
		put_offcpu(&g, k);
		put_samples(&g, k);
		fputs("</g>\n", out);
	}
	fprintf(out,
		"</svg>\n<g id=\"ticks\"></g>\n"
		"<rect id=\"sel\" class=\"hide\" x=\"0\" y=\"%u\" width=\"0\" "
		"height=\"%zu\"/>\n",
		TOP, ph);
	put_legend(&g, (unsigned)(TOP + ph + AXIS_H + 12));
	if (o->html)
		fprintf(out, "</svg>\n<script>%s</script>\n</body></html>\n",
			tl_script);
	else
		fprintf(out,
			"<script type=\"text/ecmascript\"><![CDATA[%s]]>"
			"</script>\n</svg>\n",
			tl_script);
	return ferror(out) ? PD_ERR_IO : 0;
}
