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

#include <pthread.h>
#include <stdbool.h>
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

/* Rows [from, to) as lines into t, each handed to put(arg, line, len).
 * @return 0 or a negative pd_err (put's, or PD_ERR_NOMEM). */
static int format_rows(const struct pda_profile *p, unsigned col,
		       size_t from, size_t to, struct text *t,
		       int (*put)(void *arg, const char *line, size_t len),
		       void *arg)
{
	int rc = 0;

	for (size_t i = from; i < to && rc == 0; i++) {
		const size_t len = build(p, pda_profile_sample(p, i), col, t);

		rc = len ? put(arg, t->buf, len) : PD_ERR_NOMEM;
	}
	return rc;
}

static int put_file(void *arg, const char *line, size_t len)
{
	return fwrite(line, 1, len, arg) == len ? 0 : PD_ERR_IO;
}

static void text_release(struct text *t)
{
	free(t->buf);
	free(t->ids);
	free(t->end);
	free(t->plain);
}

/*
 * Writing on two threads: the rows in blocks of BLOCK_LINES, the even
 * blocks formatted and written by the caller's thread, the odd ones
 * formatted by a helper into one of NR_BUFS buffers, which the caller
 * writes in turn.  Formatting is most of the write (a -g capture's 30 MB
 * of lines: ~12 ms on one thread), and blocks keep the memory at a few
 * blocks' text whatever the profile's size.  Each thread keeps its own
 * line state: a line is built from any earlier line's, so the bytes are
 * the same.
 */
/* 512 lines: a DWARF capture's lines are ~0.5 KB (bench's unwind: 517
 * bytes on average, 3.3 KB at most): three buffers of 4096 of them took
 * fold -j2's peak anonymous memory from 57 to 62.7 MB, near the 64 MB
 * it must stay within (58.1-58.9 MB with 512); a block's handoff, a
 * lock and a wakeup, is small beside formatting 512 lines */
#define BLOCK_LINES 512
#define NR_BUFS 2

struct block_buf {
	char *buf;
	size_t len, cap;
	bool full; /* formatted, not written yet: the caller's */
};

struct helper {
	const struct pda_profile *p;
	unsigned col;
	size_t nr_rows, nr_blocks;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct block_buf bufs[NR_BUFS];
	bool stop; /* the caller failed: no more blocks */
	int rc;	   /* the helper's error */
};

static int put_buf(void *arg, const char *line, size_t len)
{
	struct block_buf *b = arg;

	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		char *nb;

		while (cap < b->len + len)
			cap *= 2;
		nb = realloc(b->buf, cap);
		if (!nb)
			return PD_ERR_NOMEM;
		b->buf = nb;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, line, len);
	b->len += len;
	return 0;
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	struct text t = {0};
	int rc = 0;

	t.plain = calloc(pda_profile_nr_locs(h->p), 1);
	for (size_t j = 0; 2 * j + 1 < h->nr_blocks && rc == 0; j++) {
		const size_t from = (2 * j + 1) * BLOCK_LINES;
		const size_t to = from + BLOCK_LINES < h->nr_rows
					  ? from + BLOCK_LINES
					  : h->nr_rows;
		struct block_buf *b = &h->bufs[j % NR_BUFS];
		bool stop;

		pthread_mutex_lock(&h->mu);
		while (b->full && !h->stop)
			pthread_cond_wait(&h->cv, &h->mu);
		stop = h->stop;
		pthread_mutex_unlock(&h->mu);
		if (stop)
			break;
		/* not full: the buffer is the helper's until it says so */
		b->len = 0;
		rc = format_rows(h->p, h->col, from, to, &t, put_buf, b);
		pthread_mutex_lock(&h->mu);
		if (rc < 0)
			h->rc = rc;
		else
			b->full = true;
		pthread_cond_broadcast(&h->cv);
		pthread_mutex_unlock(&h->mu);
	}
	text_release(&t);
	return NULL;
}

/* The caller's side: its blocks written as it formats them, the
 * helper's as they come.  @return 0 or a negative pd_err. */
static int write_blocks(FILE *out, struct helper *h, struct text *t)
{
	/* its own blocks too in a buffer, written at once: a line's
	 * fwrite takes the stream's lock, the process has threads */
	struct block_buf own = {0};
	int rc = 0;

	for (size_t b = 0; b < h->nr_blocks && rc == 0; b++) {
		const size_t from = b * BLOCK_LINES;
		const size_t to = from + BLOCK_LINES < h->nr_rows
					  ? from + BLOCK_LINES
					  : h->nr_rows;
		struct block_buf *buf = &h->bufs[b / 2 % NR_BUFS];

		if (b % 2 == 0) {
			own.len = 0;
			rc = format_rows(h->p, h->col, from, to, t, put_buf,
					 &own);
			if (rc == 0 &&
			    fwrite(own.buf, 1, own.len, out) != own.len)
				rc = PD_ERR_IO;
			continue;
		}
		pthread_mutex_lock(&h->mu);
		while (!buf->full && h->rc == 0)
			pthread_cond_wait(&h->cv, &h->mu);
		rc = buf->full ? 0 : h->rc;
		pthread_mutex_unlock(&h->mu);
		if (rc == 0 && fwrite(buf->buf, 1, buf->len, out) != buf->len)
			rc = PD_ERR_IO;
		pthread_mutex_lock(&h->mu);
		buf->full = false;
		pthread_cond_broadcast(&h->cv);
		pthread_mutex_unlock(&h->mu);
	}
	free(own.buf);
	return rc;
}

/* Rows written with a helper thread.  @return 0 or a negative pd_err;
 * 1: no helper could be had, nothing written. */
static int write_two(FILE *out, const struct pda_profile *p, unsigned col,
		     struct text *t)
{
	struct helper h = {.p = p, .col = col};
	pthread_t thread;
	int rc;

	h.nr_rows = pda_profile_nr_samples(p);
	h.nr_blocks = (h.nr_rows + BLOCK_LINES - 1) / BLOCK_LINES;
	if (pthread_mutex_init(&h.mu, NULL) != 0)
		return 1;
	if (pthread_cond_init(&h.cv, NULL) != 0) {
		pthread_mutex_destroy(&h.mu);
		return 1;
	}
	if (pthread_create(&thread, NULL, helper_main, &h) != 0) {
		pthread_cond_destroy(&h.cv);
		pthread_mutex_destroy(&h.mu);
		return 1;
	}
	rc = write_blocks(out, &h, t);
	pthread_mutex_lock(&h.mu);
	h.stop = true;
	pthread_cond_broadcast(&h.cv);
	pthread_mutex_unlock(&h.mu);
	pthread_join(thread, NULL);
	pthread_cond_destroy(&h.cv);
	pthread_mutex_destroy(&h.mu);
	for (size_t i = 0; i < NR_BUFS; i++)
		free(h.bufs[i].buf);
	return rc;
}

int pde_folded_write_jobs(FILE *out, const struct pda_profile *p,
			  unsigned col, unsigned jobs)
{
	const size_t nr = pda_profile_nr_samples(p);
	struct text t = {0};
	int rc = 1;

	if (col >= pda_profile_nr_columns(p))
		return PD_ERR_API;
	/* without it, each label is scanned as it is written */
	t.plain = calloc(pda_profile_nr_locs(p), 1);
	if (jobs >= 2 && nr > BLOCK_LINES)
		rc = write_two(out, p, col, &t);
	if (rc > 0)
		rc = format_rows(p, col, 0, nr, &t, put_file, out);
	text_release(&t);
	return rc < 0 ? rc : pde_out_rc(out);
}

int pde_folded_write(FILE *out, const struct pda_profile *p, unsigned col)
{
	return pde_folded_write_jobs(out, p, col, 1);
}
