/*
 * pde_flame.c - the SVG flame graph: one <g> per frame (a <title> for the
 * tooltip, a <rect>, a <text> label), a title, buttons and the script of
 * pde_flame_js.c, in one file with no external resources.
 *
 * Names from the capture go through put_xml() wherever they land (text,
 * <title>, attribute values); the script sets only textContent and
 * attributes, never markup.  The file carries a Content-Security-Policy
 * too, though no standard gives an SVG one: a <meta http-equiv> in an
 * XHTML <head> inside a <foreignObject>, which Chromium applies to an SVG
 * opened by itself (as of Chromium 13x; tests/cli/flame/browser.test
 * checks that it runs nothing but the file's own script and style) and
 * other browsers may ignore, so the escaping is what every browser gets.
 * The policy allows no handler attribute: init() runs from a load
 * listener.
 *
 * Layout, in px: frames are frame_height tall, depth 0 (the root, "all")
 * at the bottom, or at the top when inverted; the frames' area is
 * width - 2 * PDE_FLAME_XPAD wide and a frame is as wide as its share of
 * the root's samples.  Frames narrower than min_width are left out, and
 * so are their callees, which are narrower still.  Every number printed
 * comes from integers and the options, so the output is a function of
 * the input: no clocks, no randomness, no locale.
 */
#include "pd_config.h"
#include "pda_flame.h"
#include "pde.h"
#include "pde_flame_int.h"
#include "pde_html_int.h"
#include "pdc_utf8.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define DEF_WIDTH 1200
#define DEF_FRAME_HEIGHT 16
#define DEF_FONT_SIZE 12
/* a monospace glyph's advance, in ems: labels are cut to fit by it */
#define CHAR_WIDTH_EM 0.6

struct layout {
	const struct pde_flame_opts *o;
	const char *countname;
	unsigned width, frame_height, font_size;
	double scale;	      /* px per sample */
	double char_w;	      /* px per character of a label */
	double min_width;     /* px: narrower frames are left out */
	uint64_t all;	      /* the root's samples */
	unsigned top, bottom; /* space above and below the frames */
	uint32_t depth;	      /* the deepest frame drawn */
	unsigned height;
	double max_change;    /* a differential graph's largest |change|
			       * among the frames drawn */
};

static const char *const palette_names[PDE_PALETTE_MAX] = {
	[PDE_PALETTE_DEFAULT] = "default",
	[PDE_PALETTE_HOT] = "hot",
	[PDE_PALETTE_MEM] = "mem",
	[PDE_PALETTE_IO] = "io",
};

const char *pde_flame_palette_name(enum pde_flame_palette p)
{
	return (unsigned)p < PDE_PALETTE_MAX ? palette_names[p] : NULL;
}

/* ---- text ---------------------------------------------------------- */

/*
 * The length of the valid UTF-8 sequence at s[0..n) that XML 1.0 allows
 * as a character, or 0.  XML forbids most C0 controls, the surrogates and
 * U+FFFE/U+FFFF even as references, so those are written as \xNN text.
 */
static size_t xml_char_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80) {
		if (s[0] < 0x20 && s[0] != '\t' && s[0] != '\n' && s[0] != '\r')
			return 0;
		return 1;
	}
	len = pdc_utf8_decode(s, n, &cp);
	/* the non-characters XML forbids */
	if (!len || cp == 0xfffe || cp == 0xffff)
		return 0;
	return len;
}

/*
 * Write at most max_chars characters of s (all: SIZE_MAX) escaped for XML
 * text and attributes; a byte that is not a character counts as the four
 * characters of its \xNN.  @return the characters written.
 */
static size_t put_xml(FILE *out, const char *str, size_t max_chars)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), nr_chars = 0;

	for (size_t i = 0; i < n;) {
		size_t len = xml_char_len(s + i, n - i);

		if (len == 0) {
			if (nr_chars + 4 > max_chars)
				break;
			fprintf(out, "\\x%02x", s[i]);
			nr_chars += 4;
			i++;
			continue;
		}
		if (nr_chars + 1 > max_chars)
			break;
		switch (s[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		case '\t':
		case '\n':
		case '\r':
			/* kept as references, so attributes keep them too */
			fprintf(out, "&#%d;", s[i]);
			break;
		default:
			fwrite(s + i, 1, len, out);
			break;
		}
		nr_chars++;
		i += len;
	}
	return nr_chars;
}

/* The characters put_xml() would write for all of str. */
static size_t xml_chars(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), nr_chars = 0;

	for (size_t i = 0; i < n;) {
		size_t len = xml_char_len(s + i, n - i);

		nr_chars += len ? 1 : 4;
		i += len ? len : 1;
	}
	return nr_chars;
}

/*
 * A frame's label: its name when it fits in w px, else as many characters
 * as fit minus two, then "..", or nothing below three characters.  The
 * script does the same when it zooms.
 */
static void put_label(FILE *out, const struct layout *l, const char *name,
		      double w)
{
	const double fit = w / l->char_w;
	size_t max_chars = fit > 0 ? (size_t)fit : 0;

	if (max_chars < 3)
		return;
	if (xml_chars(name) <= max_chars) {
		put_xml(out, name, SIZE_MAX);
		return;
	}
	put_xml(out, name, max_chars - 2);
	fputs("..", out);
}

/* n units of 10^-decimals with thousands separators, whatever the
 * locale, and no trailing zero decimal: "1,234,567", "1.5" */
static void put_count(FILE *out, uint64_t n, unsigned decimals)
{
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%0*" PRIu64,
			   (int)decimals + 1, n);
	int whole = len - (int)decimals, last = len;

	while (last > whole && digits[last - 1] == '0')
		last--;
	for (int i = 0; i < last; i++) {
		if (i == whole)
			fputc('.', out);
		else if (i > 0 && i < whole && (whole - i) % 3 == 0)
			fputc(',', out);
		fputc(digits[i], out);
	}
}

/* ---- colours ------------------------------------------------------- */

enum kind { KIND_USER, KIND_KERNEL, KIND_JIT, KIND_INLINE, KIND_UNKNOWN };

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/*
 * What a folded name says about its frame: stackcollapse-perf.pl's and
 * `pdtool fold --kernel`'s annotations (_[k] kernel, _[j] JIT, _[i]
 * inlined) and perf's "[unknown]" for an unresolved address.
 */
static enum kind name_kind(const char *name)
{
	if (strncmp(name, "[unknown]", 9) == 0)
		return KIND_UNKNOWN;
	if (ends_with(name, "_[k]"))
		return KIND_KERNEL;
	if (ends_with(name, "_[j]"))
		return KIND_JIT;
	if (ends_with(name, "_[i]"))
		return KIND_INLINE;
	return KIND_USER;
}

/* splitmix64's finaliser: any change in x changes every output bit. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return mix64(h);
}

static unsigned char channel(unsigned base, unsigned span, double v)
{
	return (unsigned char)(base + (unsigned)(span * v));
}

void pde_flame_color(const struct pde_flame_opts *o,
		     const struct pda_flame_node *node, unsigned char rgb[3])
{
	/* three variations in [0, 1): from the name, or from the place */
	const uint64_t h = o->hash ? name_hash(node->name)
				   : mix64(node->start * 0x9e3779b97f4a7c15ull +
					   mix64(node->depth + 1));
	const double v1 = (double)(h & 0xffff) / 65536.0;
	const double v2 = (double)((h >> 16) & 0xffff) / 65536.0;
	const double v3 = (double)((h >> 32) & 0xffff) / 65536.0;

	switch (o->palette) {
	case PDE_PALETTE_MEM: /* greens */
		rgb[0] = 0;
		rgb[1] = channel(190, 50, v2);
		rgb[2] = channel(0, 210, v1);
		return;
	case PDE_PALETTE_IO: /* blues */
		rgb[0] = rgb[1] = channel(80, 60, v1);
		rgb[2] = channel(190, 55, v2);
		return;
	case PDE_PALETTE_HOT:
	case PDE_PALETTE_MAX:
		rgb[0] = channel(205, 50, v3);
		rgb[1] = channel(0, 230, v1);
		rgb[2] = channel(0, 55, v2);
		return;
	case PDE_PALETTE_DEFAULT:
		break;
	}
	switch (name_kind(node->name)) {
	case KIND_KERNEL: /* orange */
		rgb[0] = channel(225, 30, v1);
		rgb[1] = channel(130, 50, v2);
		rgb[2] = channel(0, 40, v3);
		return;
	case KIND_JIT: /* green */
		rgb[0] = channel(50, 60, v1);
		rgb[1] = channel(190, 50, v2);
		rgb[2] = channel(50, 60, v1);
		return;
	case KIND_INLINE: /* aqua */
		rgb[0] = channel(50, 60, v1);
		rgb[1] = rgb[2] = channel(170, 55, v2);
		return;
	case KIND_UNKNOWN: /* grey */
		rgb[0] = rgb[1] = rgb[2] = channel(165, 40, v1);
		return;
	case KIND_USER: /* red */
		rgb[0] = channel(200, 55, v1);
		rgb[1] = channel(40, 70, v2);
		rgb[2] = channel(40, 50, v3);
		return;
	}
}

double pde_flame_diff_change(const struct pde_flame_diff *diff,
			     const struct pda_flame_node *node)
{
	const uint64_t a = diff->negate ? node->total : node->other;
	const uint64_t b = diff->negate ? node->other : node->total;

	return ((double)b / diff->denom[1] - (double)a / diff->denom[0]) *
	       diff->unit;
}

/* From near white (no change) to red (growth) or blue (shrinkage), in
 * proportion to the change's share of the largest. */
void pde_flame_diff_color(double change, double max, unsigned char rgb[3])
{
	static const unsigned char white[3] = {250, 250, 250};
	static const unsigned char red[3] = {220, 30, 30};
	static const unsigned char blue[3] = {30, 80, 220};
	const unsigned char *to = change > 0 ? red : blue;
	double v = max > 0 ? fabs(change) / max : 0;

	if (!(v <= 1.0))
		v = v > 1.0 ? 1.0 : 0.0; /* NaN: no change */
	for (int i = 0; i < 3; i++)
		rgb[i] = (unsigned char)(white[i] +
					 ((double)to[i] - white[i]) * v + 0.5);
}

/* ---- the document -------------------------------------------------- */

static bool drawn(const struct layout *l, const struct pda_flame_node *n)
{
	return n->total > 0 && (double)n->total * l->scale >= l->min_width;
}

static void lay_out(struct layout *l, const struct pda_flame_node *nodes,
		    size_t nr, const struct pde_flame_opts *o)
{
	l->o = o;
	l->countname = o->countname ? o->countname : "samples";
	l->width = o->width ? o->width : DEF_WIDTH;
	if (l->width < 2 * PDE_FLAME_XPAD + 1)
		l->width = 2 * PDE_FLAME_XPAD + 1;
	l->frame_height = o->frame_height ? o->frame_height : DEF_FRAME_HEIGHT;
	l->font_size = o->font_size ? o->font_size : DEF_FONT_SIZE;
	l->char_w = l->font_size * CHAR_WIDTH_EM;
	l->all = nr ? nodes[0].total : 0;
	l->scale = l->all ? (double)(l->width - 2 * PDE_FLAME_XPAD) /
				    (double)l->all
			  : 0;
	l->min_width = o->min_width > 0 ? o->min_width : 0;
	l->depth = 0;
	l->max_change = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!drawn(l, &nodes[i]))
			continue;
		if (nodes[i].depth > l->depth)
			l->depth = nodes[i].depth;
		if (o->diff) {
			const double c =
				fabs(pde_flame_diff_change(o->diff, &nodes[i]));

			if (c > l->max_change)
				l->max_change = c;
		}
	}
	/* title (and subtitle) above; details and "Matched" below */
	l->top = l->font_size * 3 + (o->subtitle ? l->font_size * 2 : 0);
	l->bottom = l->font_size * 2 + 10;
	l->height = l->top + (l->depth + 1) * l->frame_height + l->bottom;
}

static double frame_y(const struct layout *l, uint32_t depth)
{
	if (l->o->inverted)
		return l->top + (double)depth * l->frame_height;
	return l->height - l->bottom - (double)(depth + 1) * l->frame_height;
}

static void put_head(FILE *out, const struct layout *l)
{
	const bool cool = l->o->palette == PDE_PALETTE_MEM ||
			  l->o->palette == PDE_PALETTE_IO;
	/* a differential graph's white frames need a background apart */
	const char *to = l->o->diff ? "#d0d0d0" : cool ? "#e0e0ff" : "#eeeeb0";
	char css[1024]; /* the style, exactly as between its CDATA marks */

	snprintf(css, sizeof(css),
		 "\n"
		 "text { font-family: monospace; font-size: %upx; "
		 "fill: #000000; }\n"
		 "#title { text-anchor: middle; font-size: %upx; }\n"
		 "#subtitle { text-anchor: middle; fill: #a0a0a0; }\n"
		 "#matched { text-anchor: end; }\n"
		 ".btn { cursor: pointer; }\n"
		 ".btn:hover { text-decoration: underline; }\n"
		 ".f { cursor: pointer; }\n"
		 ".f text { pointer-events: none; }\n"
		 ".f:hover > rect { stroke: #000000; stroke-width: 0.5; }\n"
		 ".f.m > rect { fill: #e600e6; }\n"
		 ".anc { opacity: 0.5; }\n"
		 ".hide { display: none; }\n",
		 l->font_size, l->font_size + 5);
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" "
		"standalone=\"yes\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		l->width, l->height, l->width, l->height);
	fputs("<foreignObject width=\"0\" height=\"0\"><html "
	      "xmlns=\"http://www.w3.org/1999/xhtml\"><head>",
	      out);
	pde_html_csp(out, pde_flame_script, css, true);
	fputs("</head></html></foreignObject>\n", out);
	fprintf(out,
		"<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" "
		"y2=\"1\"><stop stop-color=\"#eeeeee\" offset=\"5%%\"/>"
		"<stop stop-color=\"%s\" offset=\"95%%\"/></linearGradient>"
		"</defs>\n",
		to);
	fprintf(out, "<style type=\"text/css\"><![CDATA[%s]]></style>\n", css);
	fprintf(out,
		"<script type=\"text/ecmascript\"><![CDATA[%s]]>"
		"</script>\n",
		pde_flame_script);
	fprintf(out,
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" "
		"fill=\"url(#bg)\"/>\n",
		l->width, l->height);
}

static void put_chrome(FILE *out, const struct layout *l)
{
	const char *title = l->o->title;

	if (!title)
		title = l->o->diff	 ? "Differential Flame Graph"
			: l->o->inverted ? "Icicle Graph"
					 : "Flame Graph";
	fprintf(out, "<text id=\"title\" x=\"%u\" y=\"%u\">", l->width / 2,
		l->font_size * 2);
	put_xml(out, title, SIZE_MAX);
	fputs("</text>\n", out);
	if (l->o->subtitle) {
		fprintf(out, "<text id=\"subtitle\" x=\"%u\" y=\"%u\">",
			l->width / 2, l->font_size * 4);
		put_xml(out, l->o->subtitle, SIZE_MAX);
		fputs("</text>\n", out);
	}
	fprintf(out,
		"<text id=\"unzoom\" class=\"btn hide\" x=\"%u\" y=\"%u\">"
		"Reset Zoom</text>\n",
		PDE_FLAME_XPAD, l->font_size * 2);
	fprintf(out,
		"<text id=\"search\" class=\"btn\" x=\"%u\" y=\"%u\">"
		"Search</text>\n",
		l->width - PDE_FLAME_XPAD - l->font_size * 7, l->font_size * 2);
	fprintf(out, "<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n",
		PDE_FLAME_XPAD, l->height - l->bottom / 2);
	fprintf(out, "<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n",
		l->width - PDE_FLAME_XPAD, l->height - l->bottom / 2);
	if (!l->all)
		fprintf(out,
			"<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">"
			"No samples</text>\n",
			l->width / 2, l->top + l->frame_height);
}

/*
 * A differential frame's tooltip after its name: both sides' samples,
 * their values and the change, e.g. " (A 241, B 370 samples; 34.83% ->
 * 56.57%, +21.75 points)".  The script takes the name as what comes
 * before the last " (", so there is no other.
 */
static void put_diff_title(FILE *out, const struct layout *l,
			   const struct pda_flame_node *n)
{
	const struct pde_flame_diff *df = l->o->diff;
	const uint64_t a = df->negate ? n->total : n->other;
	const uint64_t b = df->negate ? n->other : n->total;
	const double va = (double)a / df->denom[0] * df->unit;
	const double vb = (double)b / df->denom[1] * df->unit;

	fputs(" (A ", out);
	put_count(out, a, l->o->decimals);
	fputs(", B ", out);
	put_count(out, b, l->o->decimals);
	fputc(' ', out);
	put_xml(out, l->countname, SIZE_MAX);
	if (df->unit == 1.0) {
		/* samples: a side's mean per run */
		fprintf(out, "; %+.1f ", vb - va);
		put_xml(out, l->countname, SIZE_MAX);
		fputs(")</title>", out);
		return;
	}
	fprintf(out, "; %.2f%% -&gt; %.2f%%", va, vb);
	if (df->of) {
		fputs(" of ", out);
		put_xml(out, df->of, SIZE_MAX);
	}
	fprintf(out, ", %+.2f points)</title>", vb - va);
}

static void put_frame(FILE *out, const struct layout *l,
		      const struct pda_flame_node *n)
{
	const double x = PDE_FLAME_XPAD + (double)n->start * l->scale;
	const double w = (double)n->total * l->scale;
	const double y = frame_y(l, n->depth);
	unsigned char rgb[3];

	if (l->o->diff)
		pde_flame_diff_color(pde_flame_diff_change(l->o->diff, n),
				     l->max_change, rgb);
	else
		pde_flame_color(l->o, n, rgb);
	fprintf(out,
		"<g class=\"f\" data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64
		"\" data-d=\"%" PRIu32 "\"><title>",
		n->start, n->total, n->depth);
	put_xml(out, n->name, SIZE_MAX);
	if (l->o->diff) {
		put_diff_title(out, l, n);
	} else {
		fputs(" (", out);
		put_count(out, n->total, l->o->decimals);
		fputc(' ', out);
		put_xml(out, l->countname, SIZE_MAX);
		fprintf(out, ", %.2f%%)</title>",
			100.0 * (double)n->total / (double)l->all);
	}
	fprintf(out,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%u\" "
		"fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/>",
		x, y, w, l->frame_height - 1, rgb[0], rgb[1], rgb[2]);
	fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3,
		y + l->frame_height / 2.0 + l->font_size * 0.35);
	put_label(out, l, n->name, w - 6);
	fputs("</text></g>\n", out);
}

int pde_flame_svg(FILE *out, const struct pda_flame_node *nodes, size_t nr,
		  const struct pde_flame_opts *opts, size_t *nr_drawn)
{
	struct layout l;
	size_t nr_frames = 0;

	lay_out(&l, nodes, nr, opts);
	put_head(out, &l);
	put_chrome(out, &l);
	fprintf(out,
		"<g id=\"frames\" data-total=\"%" PRIu64 "\" data-xpad=\"%u\" "
		"data-w=\"%u\" data-cw=\"%g\">\n",
		l.all, PDE_FLAME_XPAD, l.width - 2 * PDE_FLAME_XPAD, l.char_w);
	for (size_t i = 0; l.all && i < nr; i++) {
		if (!drawn(&l, &nodes[i]))
			continue;
		put_frame(out, &l, &nodes[i]);
		nr_frames++;
	}
	fputs("</g>\n</svg>\n", out);
	if (nr_drawn)
		*nr_drawn = nr_frames;
	return ferror(out) ? PD_ERR_IO : 0;
}
