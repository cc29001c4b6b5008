/*
 * pde_folded.c - folded stacks as text: "comm;outer;...;leaf weight", one
 * line per stack, the format of stackcollapse-perf.pl and of `perf script
 * report stackcollapse`, which flamegraph.pl, speedscope and inferno read.
 * The one folded-text writer: it writes a structured profile
 * (pda_profile.h); the one reader is pda_profile_add_folded().
 *
 * Rows in fold's order share long prefixes with the row before, and a
 * shared prefix is a shared stack id: each line is built from the
 * previous one's text, cut after the last frame they share, so only the
 * frames that differ are looked up and copied.
 */
#include "pd_config.h"
#include "pda_profile.h"
#include "pde.h"
#include "pde_text_int.h"
#include "pdc_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the previous line was, depth by depth. */
struct text {
	char *buf;
	size_t cap;
	uint32_t *ids;	/* the stack at depth d + 1 */
	size_t *end;	/* the text's length through depth d + 1 */
	size_t alloc;	/* of ids and end */
	size_t depth;
	/* by location id: 0 not looked at yet, 1 its label is printable
	 * text, 2 it holds a byte to write as \xNN; NULL: look every time */
	unsigned char *plain;
};

static int reserve(struct text *t, size_t len)
{
	char *nb;
	size_t cap = t->cap ? t->cap : 256;

	if (len <= t->cap)
		return 0;
	while (cap < len)
		cap *= 2;
	nb = realloc(t->buf, cap);
	if (!nb)
		return -1;
	t->buf = nb;
	t->cap = cap;
	return 0;
}

static int reserve_depth(struct text *t, size_t depth)
{
	uint32_t *ids;
	size_t *end;

	if (depth <= t->alloc)
		return 0;
	ids = realloc(t->ids, depth * 2 * sizeof(*ids));
	if (ids)
		t->ids = ids;
	end = realloc(t->end, depth * 2 * sizeof(*end));
	if (end)
		t->end = end;
	if (!ids || !end)
		return -1;
	t->alloc = depth * 2;
	return 0;
}

/*
 * The rest of a label that holds a byte that is not printable text, at
 * buf + len, with such bytes as \xNN (common/pdc_text.h), so that no
 * label can end its line or reach a terminal raw: fold's own profiles
 * have none, a profile from elsewhere may.  buf has room for 4 bytes a
 * byte.  @return the new length.
 */
static size_t put_text(char *buf, size_t len, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		const size_t plain = pdc_text_plain(s + i, n - i);

		memcpy(buf + len, s + i, plain);
		len += plain;
		i += plain;
		if (i < n) {
			pdc_text_esc((unsigned char)s[i++], buf + len);
			len += PDC_TEXT_ESC_LEN;
		}
	}
	return len;
}

/* Row s's line into t->buf, its value in col after it.  @return its
 * length, or 0 when out of memory (a line is never empty). */
static size_t build(const struct pda_profile *p,
		    const struct pda_profile_sample *s, unsigned col,
		    struct text *t)
{
	const struct pda_profile_stack *st = pda_profile_stack(p, s->stack);
	const size_t depth = st ? st->depth : 0;
	size_t d = depth, len;
	uint32_t id = s->stack;
	char num[24], *n = num + sizeof(num);
	uint64_t w = s->values[col];

	if (reserve_depth(t, depth) < 0)
		return 0;
	/* up from the leaf to the deepest stack the previous line had */
	while (d > 0 && !(d <= t->depth && t->ids[d - 1] == id)) {
		t->ids[d - 1] = id;
		id = pda_profile_stack(p, id)->prefix;
		d--;
	}
	len = d ? t->end[d - 1] : 0;
	for (; d < depth; d++) {
		const uint32_t loc = pda_profile_stack(p, t->ids[d])->loc;
		size_t nl, plain;
		const char *label = pda_profile_str(
			p, pda_profile_loc(p, loc)->label, &nl);

		/* a label is looked at once, not once a line */
		if (t->plain && t->plain[loc] == 1) {
			plain = nl;
		} else {
			plain = pdc_text_plain(label, nl);
			if (t->plain)
				t->plain[loc] = plain == nl ? 1 : 2;
		}

		/* room for the label, all but its plain start as \xNN */
		if (reserve(t, len + 1 + plain +
				       (nl - plain) * PDC_TEXT_ESC_LEN) < 0)
			return 0;
		if (d > 0)
			t->buf[len++] = ';';
		memcpy(t->buf + len, label, plain);
		len += plain;
		if (plain < nl)
			len = put_text(t->buf, len, label + plain, nl - plain);
		t->end[d] = len;
	}
	t->depth = depth;
	/* the count by hand: this loop writes every line of a profile, and
	 * fprintf's format parsing would dominate */
	*--n = '\n';
	do {
		*--n = (char)('0' + w % 10);
		w /= 10;
	} while (w);
	*--n = ' ';
	if (reserve(t, len + (size_t)(num + sizeof(num) - n)) < 0)
		return 0;
	memcpy(t->buf + len, n, (size_t)(num + sizeof(num) - n));
	return len + (size_t)(num + sizeof(num) - n);
}

int pde_folded_write(FILE *out, const struct pda_profile *p, unsigned col)
{
	const size_t nr = pda_profile_nr_samples(p);
	struct text t = {0};
	int rc = 0;

	if (col >= pda_profile_nr_columns(p))
		return PD_ERR_API;
	/* without it, each label is scanned as it is written */
	t.plain = calloc(pda_profile_nr_locs(p), 1);
	for (size_t i = 0; i < nr && rc == 0; i++) {
		const size_t len = build(p, pda_profile_sample(p, i), col, &t);

		if (len == 0)
			rc = PD_ERR_NOMEM;
		else if (fwrite(t.buf, 1, len, out) != len)
			rc = PD_ERR_IO;
	}
	free(t.buf);
	free(t.ids);
	free(t.end);
	free(t.plain);
	return rc < 0 ? rc : pde_out_rc(out);
}
