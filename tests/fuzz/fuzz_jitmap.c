/*
 * fuzz_jitmap.c - libFuzzer target for the perf-PID.map parser
 * (pda_jitmap_parse, analyze/machine/pda_jit.c), which reads the JIT
 * symbol files any process can write to /tmp (STYLE T7).
 *
 * The input is the file's bytes, parsed from a buffer of the session's
 * as pda_read_fd() hands it over (a NUL after the last byte).
 * Properties, for any input:
 *  - the result is what the format says (a model below, written from
 *    the file's rules): "START SIZE name" lines, START and SIZE hex,
 *    the name the rest of the line; empty lines skipped; a line with bad
 *    hex, a zero SIZE, START + SIZE past 2^64 or no name counted as bad;
 *    of lines at one START the last wins; sorted by START;
 *  - each symbol ends after it starts, its name lies in the buffer;
 *  - a lookup returns a symbol covering the address, the one starting
 *    last among those it looks at, or nothing when none of them does.
 * The session allocates through failing hooks (fuzz_with_oom).
 */
#include "fuzz.h"

#include "pda_machine_int.h"

#include <stdlib.h>
#include <string.h>

#define OVERLAP_SCAN 16 /* pda_jit.c's: earlier entries a lookup tries */

struct mline {
	uint64_t start, end;
	size_t index;
	const char *name; /* NUL-terminated in the model's copy */
};

struct model {
	char *text; /* a copy, each line NUL-terminated */
	struct mline *v;
	size_t nr, nr_bad;
};

static int cmp_mline(const void *a, const void *b)
{
	const struct mline *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool hex_field(const char **p, uint64_t *v)
{
	const char *q = *p;
	uint64_t x = 0;

	for (; (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') ||
	       (*q >= 'A' && *q <= 'F');
	     q++) {
		if (x >> 60)
			return false; /* past 64 bits */
		x = x << 4 | (uint64_t)(*q <= '9'   ? *q - '0'
					: *q <= 'F' ? *q - 'A' + 10
						    : *q - 'a' + 10);
	}
	if (q == *p)
		return false;
	*p = q;
	*v = x;
	return true;
}

/* One line, NUL-terminated (a NUL inside ends it early). */
static void model_line(struct model *m, const char *l)
{
	struct mline ml;
	uint64_t size;

	if (!*l)
		return; /* empty: not an error */
	if (!hex_field(&l, &ml.start) || *l != ' ')
		goto bad;
	while (*l == ' ')
		l++;
	if (!hex_field(&l, &size) || *l != ' ')
		goto bad;
	while (*l == ' ')
		l++;
	if (!*l || !size || size > UINT64_MAX - ml.start)
		goto bad;
	ml.end = ml.start + size;
	ml.name = l;
	ml.index = m->nr;
	m->v[m->nr++] = ml;
	return;
bad:
	m->nr_bad++;
}

static void model(struct model *m, const uint8_t *data, size_t size)
{
	size_t at = 0, out = 0;

	memset(m, 0, sizeof(*m));
	m->text = malloc(size + 1);
	m->v = malloc((size / 4 + 1) * sizeof(*m->v));
	if (!m->text || !m->v)
		abort();
	memcpy(m->text, data, size);
	m->text[size] = '\0';
	while (at < size) {
		char *line = m->text + at;
		char *nl = memchr(line, '\n', size - at);
		size_t len = nl ? (size_t)(nl - line) : size - at;

		line[len] = '\0';
		if (len && line[len - 1] == '\r')
			line[len - 1] = '\0';
		model_line(m, line);
		at += len + 1;
	}
	qsort(m->v, m->nr, sizeof(*m->v), cmp_mline);
	for (size_t i = 0; i < m->nr; i++)
		if (i + 1 == m->nr || m->v[i + 1].start != m->v[i].start)
			m->v[out++] = m->v[i];
	m->nr = out;
}

static void check_find(const struct pda_jitmap *j, uint64_t addr)
{
	const struct pda_jitsym *got = pda_jitmap_find(j, addr);
	size_t last = 0; /* entries starting at or below addr */

	while (last < j->nr && j->v[last].start <= addr)
		last++;
	if (got) {
		CHECK(got >= j->v && got < j->v + last);
		CHECK(got->start <= addr && addr < got->end);
	}
	/* none looked at after it (or at all) covers addr */
	for (size_t i = last, n = 0; i > 0 && n < OVERLAP_SCAN; i--, n++) {
		if (got && &j->v[i - 1] == got)
			break;
		CHECK(addr >= j->v[i - 1].end);
	}
}

static void check_jitmap(const struct pda_jitmap *j, const struct model *m,
			 const uint8_t *data, size_t size)
{
	CHECK(j->nr == m->nr && j->nr_bad == m->nr_bad);
	for (size_t i = 0; i < j->nr; i++) {
		const struct pda_jitsym *y = &j->v[i];

		CHECK(y->start == m->v[i].start && y->end == m->v[i].end);
		CHECK(y->start < y->end);
		CHECK(y->name >= j->buf && y->name < j->buf + size &&
		      strcmp(y->name, m->v[i].name) == 0);
		check_find(j, y->start);
		check_find(j, y->end - 1);
		check_find(j, y->end);
	}
	for (size_t i = 0; i + 8 <= size && i < 64 * 8; i += 8) {
		uint64_t addr;

		memcpy(&addr, data + i, 8);
		check_find(j, addr);
	}
	check_find(j, 0);
	check_find(j, UINT64_MAX);
}

static bool pass(const uint8_t *data, size_t size, struct failalloc *fa)
{
	const struct pd_alloc hooks = failalloc_hooks(fa);
	struct fuzz_session fs;
	struct pda_jitmap *j = NULL;
	struct model m;
	char *buf = fuzz_session_file(&fs, &hooks, data, size);
	int rc;

	if (!buf)
		return true;
	rc = pda_jitmap_parse(fs.s, buf, size, &j);
	CHECK(rc == 0 || rc == PD_ERR_NOMEM);
	CHECK((rc == 0) == (j != NULL));
	if (j && !fa->nr_failed) {
		model(&m, data, size);
		check_jitmap(j, &m, data, size);
		free(m.text);
		free(m.v);
	}
	pda_jitmap_free(fs.s, j);
	fuzz_session_free(&fs);
	return rc == PD_ERR_NOMEM;
}

int fuzz_jitmap(const uint8_t *data, size_t size)
{
	fuzz_with_oom(data, size, pass);
	return 0;
}
