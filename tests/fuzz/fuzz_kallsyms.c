/*
 * fuzz_kallsyms.c - libFuzzer target for the kallsyms parser
 * (pda_ksyms_parse, analyze/machine/pda_kallsyms.c), which reads
 * --kallsyms files, the build-id cache's copies and /proc/kallsyms
 * (STYLE T7).
 *
 * The input is the file's bytes, parsed from a buffer of the session's
 * as pda_read_file() hands it over (a NUL after the last byte).
 * Properties, for any input:
 *  - the result is what the format says (a model below, written from
 *    the file's rules): of the "ADDR TYPE NAME[\t[MODULE]]" lines whose
 *    type is text, weak, data or bss, the last listed at each address,
 *    sorted by address, with its name and module; "no lines" and "every
 *    address 0" are refused with a reason;
 *  - each symbol ends after it starts and where the next one starts (a
 *    page on at a kernel/module boundary and after the last), and its
 *    strings lie in the buffer;
 *  - a lookup finds, for any address, the last symbol starting at or
 *    below it if it ends above it, else nothing; a lookup by name finds
 *    the first kernel symbol of that name.
 * The session allocates through failing hooks (fuzz_with_oom).
 */
#include "fuzz.h"

#include "pda_machine_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096u

/* A kept line, as the model reads it. */
struct mline {
	uint64_t addr;
	size_t index; /* line order */
	const char *name, *module;
	size_t name_len, module_len;
};

struct model {
	struct mline *v;
	size_t nr, nr_lines, nr_nonzero;
};

static int cmp_mline(const void *a, const void *b)
{
	const struct mline *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One line (no '\n'; a NUL ends it early): kept into m when it is one. */
static void model_line(struct model *m, const char *l, size_t len)
{
	struct mline ml;
	size_t i = 0, ndig;
	char type;

	memset(&ml, 0, sizeof(ml));
	/* a '\r' before the '\n' goes, then a NUL ends the line */
	if (len && l[len - 1] == '\r')
		len--;
	if (memchr(l, '\0', len))
		len = strlen(l);
	for (ndig = 0; i < len && hex(l[i]) >= 0; i++, ndig++) {
		if (ml.addr >> 60)
			return; /* past 64 bits */
		ml.addr = ml.addr << 4 | (uint64_t)hex(l[i]);
	}
	/* then " T NAME" */
	if (!ndig || len - i < 4 || l[i] != ' ' || l[i + 2] != ' ')
		return;
	m->nr_lines++;
	type = (char)toupper((unsigned char)l[i + 1]);
	if (type != 'T' && type != 'W' && type != 'D' && type != 'B')
		return;
	ml.name = l + i + 3;
	ml.name_len = len - i - 3;
	{
		const char *tab = memchr(ml.name, '\t', ml.name_len);

		if (tab) {
			const char *mod = tab + 1;
			const size_t n = ml.name_len - (size_t)(mod - ml.name);

			ml.name_len = (size_t)(tab - ml.name);
			if (n >= 2 && mod[0] == '[' && mod[n - 1] == ']') {
				ml.module = mod + 1;
				ml.module_len = n - 2;
			}
		}
	}
	ml.index = m->nr;
	m->nr_nonzero += ml.addr != 0;
	m->v[m->nr++] = ml;
}

/* The model of text: its kept lines, the last at each address, sorted. */
static void model(struct model *m, const char *text, size_t size)
{
	size_t at = 0, out = 0;

	memset(m, 0, sizeof(*m));
	m->v = malloc((size / 4 + 1) * sizeof(*m->v));
	if (!m->v)
		abort();
	while (at < size) {
		const char *nl = memchr(text + at, '\n', size - at);
		const size_t len = nl ? (size_t)(nl - text) - at : size - at;

		model_line(m, text + at, len);
		at += len + 1;
	}
	qsort(m->v, m->nr, sizeof(*m->v), cmp_mline);
	for (size_t i = 0; i < m->nr; i++)
		if (i + 1 == m->nr || m->v[i + 1].addr != m->v[i].addr)
			m->v[out++] = m->v[i];
	m->nr = out;
}

/* v rounded up to a page, UINT64_MAX past the top. */
static uint64_t page_up(uint64_t v)
{
	return v > UINT64_MAX - (PAGE - 1)
		       ? UINT64_MAX
		       : (v + PAGE - 1) & ~(uint64_t)(PAGE - 1);
}

/* perf's end of a symbol at a kernel/module boundary: the page after. */
static uint64_t boundary_end(uint64_t start)
{
	return start > UINT64_MAX - 2 * PAGE ? UINT64_MAX
					     : page_up(start + PAGE);
}

/* perf's end of the last symbol: the end of the page after its own. */
static uint64_t last_end(uint64_t start)
{
	return page_up(start) > UINT64_MAX - PAGE ? UINT64_MAX
						  : page_up(start) + PAGE;
}

static bool str_is(const char *s, const char *want, size_t len)
{
	return s && strlen(s) == len && memcmp(s, want, len) == 0;
}

/* [s, s + strlen(s)] lies in the buffer. */
static bool in_buf(const struct pda_ksyms *k, const char *s)
{
	return s >= k->buf && s < k->buf + k->buf_size + 1 &&
	       memchr(s, '\0', (size_t)(k->buf + k->buf_size + 1 - s));
}

static void check_find(const struct pda_ksyms *k, uint64_t addr)
{
	const struct pda_ksym *got = pda_ksyms_find(k, addr);
	const struct pda_ksym *want = NULL;

	for (size_t i = 0; i < k->nr && k->v[i].start <= addr; i++)
		want = &k->v[i];
	if (want && addr >= want->end)
		want = NULL;
	CHECK(got == want);
}

static void check_ksyms(const struct pda_ksyms *k, const struct model *m,
			const uint8_t *data, size_t size)
{
	uint64_t kernel_end = 0;

	CHECK(k->nr == m->nr);
	for (size_t i = 0; i < k->nr; i++) {
		const struct pda_ksym *y = &k->v[i];
		const struct mline *ml = &m->v[i];

		CHECK(y->start == ml->addr);
		CHECK(in_buf(k, y->name) &&
		      str_is(y->name, ml->name, ml->name_len));
		CHECK(ml->module ? in_buf(k, y->module) &&
					   str_is(y->module, ml->module,
						  ml->module_len)
				 : y->module == NULL);
		/* up to the next symbol; a page on past a kernel/module
		 * boundary (perf compares the first symbol at the next
		 * address, which may not be the one kept); after the last,
		 * to the end of the next page */
		if (i + 1 < k->nr)
			CHECK(y->end == k->v[i + 1].start ||
			      y->end == boundary_end(y->start));
		else
			CHECK(y->end == last_end(y->start));
		if (!y->module && y->end > kernel_end)
			kernel_end = y->end;
	}
	CHECK(k->kernel_end == kernel_end);
	for (size_t i = 0; i < k->nr; i++) {
		check_find(k, k->v[i].start);
		check_find(k, k->v[i].end - 1);
		check_find(k, k->v[i].end);
	}
	/* addresses from the input, and a few edges */
	for (size_t i = 0; i + 8 <= size && i < 64 * 8; i += 8) {
		uint64_t addr;

		memcpy(&addr, data + i, 8);
		check_find(k, addr);
	}
	check_find(k, 0);
	check_find(k, UINT64_MAX);
	for (size_t i = 0; i < k->nr && i < 32; i++) {
		uint64_t want = 0;

		for (size_t j = 0; j < k->nr; j++)
			if (!k->v[j].module &&
			    strcmp(k->v[j].name, k->v[i].name) == 0) {
				want = k->v[j].start;
				break;
			}
		CHECK(pda_ksyms_addr(k, k->v[i].name) == want);
	}
}

static bool pass(const uint8_t *data, size_t size, struct failalloc *fa)
{
	const struct pd_alloc hooks = failalloc_hooks(fa);
	struct fuzz_session fs;
	struct pda_ksyms *k = NULL;
	struct model m;
	const char *why = NULL;
	char *buf = fuzz_session_file(&fs, &hooks, data, size);
	int rc;

	if (!buf)
		return true;
	rc = pda_ksyms_parse(fs.s, buf, size, &k, &why);
	CHECK(rc == 0 || rc == PD_ERR_FORMAT || rc == PD_ERR_NOMEM);
	CHECK((rc == 0) == (k != NULL));
	if (!fa->nr_failed) {
		model(&m, (const char *)data, size);
		CHECK(rc == (m.nr_lines && m.nr_nonzero ? 0 : PD_ERR_FORMAT));
		if (rc == PD_ERR_FORMAT)
			CHECK(why && why[0]);
		if (k)
			check_ksyms(k, &m, data, size);
		free(m.v);
	}
	pda_ksyms_free(fs.s, k);
	fuzz_session_free(&fs);
	return rc == PD_ERR_NOMEM;
}

int fuzz_kallsyms(const uint8_t *data, size_t size)
{
	fuzz_with_oom(data, size, pass);
	return 0;
}
