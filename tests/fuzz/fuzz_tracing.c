/*
 * fuzz_tracing.c - libFuzzer target for the tracepoint formats of
 * HEADER_TRACING_DATA (pd_tracing_parse(), reader/pd_tracing.c) and the
 * print fmt evaluator (pd_tp_print(), reader/pd_tpprint.c), which read a
 * capture's tracing data and its tracepoint samples' raw bytes (STYLE
 * T7).
 *
 * The input: a u16 (little-endian) length N, N bytes of a sample's raw
 * data (PD_SAMPLE_RAW), then the tracing data section; an input shorter
 * than its N is all raw data and no section.  mkseed_tracing.py writes
 * the seeds from testdata's tracepoint captures.
 *
 * Properties, for any input:
 *  - the parse returns 0, PD_ERR_FORMAT with a message naming the
 *    section and a byte inside it (and the formats read before the
 *    damage), or PD_ERR_NOMEM and nothing; no magic is PD_ERR_FORMAT;
 *  - without a message buffer it reads the same formats;
 *  - each format has a name, a system and at most 256 fields, each field
 *    a name of one word and a declaration, its flags what
 *    the declaration says (a string is an array, a __rel_loc a
 *    __data_loc, common_ fields common); pd_tp_field() finds the first
 *    field of each name and pd_tracing_format() the first non-ftrace
 *    format of each id;
 *  - pd_tp_field_int() reads a field of 1, 2, 4 or 8 bytes inside the raw
 *    data, in the byte order the section says, sign-extended when
 *    signed, and refuses every other;
 *  - pd_tp_print() of each format (the first 64) on the raw data, with
 *    kernel symbols for odd addresses: the same text twice, NUL-ended,
 *    its length returned whatever the buffer (none, one byte, half),
 *    each shorter buffer holding the text's start; the raw data is a
 *    copy of its exact size, so ASan sees any read past it;
 *  - the parse's memory stays within 32 bytes per input byte and 256 KiB
 *    (the formats' fields and strings, in arena blocks).
 * The parse allocates through failing hooks (fuzz_with_oom).
 */
#include "fuzz.h"

#include "pd_int.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PRINTED 64
#define BUDGET_PER_BYTE 32
#define BUDGET_FIXED ((size_t)256 << 10)

/* The input's parts. */
struct tr_input {
	const uint8_t *raw;
	size_t raw_size;
	const uint8_t *sec;
	size_t sec_size;
};

static void split(const uint8_t *data, size_t size, struct tr_input *in)
{
	size_t n;

	memset(in, 0, sizeof(*in));
	if (size < 2) {
		in->raw = data;
		in->raw_size = size;
		return;
	}
	n = (size_t)data[0] | (size_t)data[1] << 8;
	if (n > size - 2)
		n = size - 2;
	in->raw = data + 2;
	in->raw_size = n;
	in->sec = data + 2 + n;
	in->sec_size = size - 2 - n;
}

/* Whether the section says big-endian: the byte after the magic and
 * the version string. */
static bool sec_big_endian(const struct tr_input *in)
{
	const uint8_t *nul;

	if (in->sec_size < 11)
		return false;
	nul = memchr(in->sec + 10, 0, in->sec_size - 10);
	return nul && nul + 1 < in->sec + in->sec_size && nul[1] != 0;
}

/* a word of the declaration: what ends it (a space, tab, ':' or ';')
 * is not in it */
static bool known_word(const char *name)
{
	return name[0] && !strpbrk(name, " \t:;\n");
}

static void check_field(const struct pd_tp_format *fmt, size_t i)
{
	const struct pd_tp_field *fl = &fmt->fields[i];
	const unsigned known = PD_TP_F_ARRAY | PD_TP_F_DYNAMIC |
			       PD_TP_F_RELATIVE | PD_TP_F_STRING |
			       PD_TP_F_POINTER | PD_TP_F_LONG | PD_TP_F_COMMON;
	const struct pd_tp_field *by_name;

	CHECK(fl->name && known_word(fl->name));
	CHECK(fl->type != NULL);
	fuzz_touch_str(fl->type);
	CHECK(fl->is_signed == 0 || fl->is_signed == 1);
	CHECK((fl->flags & ~known) == 0);
	if (fl->flags & (PD_TP_F_STRING | PD_TP_F_DYNAMIC))
		CHECK(fl->flags & PD_TP_F_ARRAY);
	if (fl->flags & PD_TP_F_RELATIVE)
		CHECK(fl->flags & PD_TP_F_DYNAMIC);
	CHECK(!(fl->flags & PD_TP_F_COMMON) ==
	      !!strncmp(fl->name, "common_", 7));
	/* the first field of its name */
	by_name = pd_tp_field(fmt, fl->name);
	CHECK(by_name && by_name <= fl && strcmp(by_name->name, fl->name) == 0);
	for (const struct pd_tp_field *p = fmt->fields; p < by_name; p++)
		CHECK(strcmp(p->name, fl->name) != 0);
}

/* A field's integer, as the raw data holds it in the section's order. */
static void check_int(const struct pd_tracing *t, const struct tr_input *in,
		      const uint8_t *raw, const struct pd_tp_field *fl)
{
	const bool fits = fl->offset <= in->raw_size &&
			  fl->size <= in->raw_size - fl->offset;
	const bool sized = fl->size == 1 || fl->size == 2 || fl->size == 4 ||
			   fl->size == 8;
	uint64_t u = 0;
	int64_t v = 0x5a5a;
	int rc;

	rc = pd_tp_field_int(t, fl, raw, in->raw_size, &v);
	CHECK(rc == 0 || rc == PD_ERR_FORMAT);
	CHECK((rc == 0) == (fits && sized));
	if (rc)
		return;
	for (uint32_t b = 0; b < fl->size; b++) {
		const uint32_t at = sec_big_endian(in)
					    ? fl->offset + fl->size - 1 - b
					    : fl->offset + b;

		u |= (uint64_t)raw[at] << (8 * b);
	}
	if (fl->is_signed && fl->size < 8 && (u >> (8 * fl->size - 1) & 1))
		u |= ~(uint64_t)0 << (8 * fl->size);
	CHECK((uint64_t)v == u);
}

/* %ps/%pS: odd addresses are in a function, even ones in none. */
static const char *sym_fn(void *arg, uint64_t addr, uint64_t *off)
{
	(void)arg;
	if (!(addr & 1))
		return NULL;
	*off = addr & 0xff;
	return "fuzz_function";
}

static void check_print(const struct pd_tracing *t,
			const struct pd_tp_format *fmt, const uint8_t *raw,
			size_t raw_size)
{
	const struct pd_tp_syms syms = {.fn = sym_fn};
	char *big, *again, small[64];
	size_t n, m;

	n = pd_tp_print(t, fmt, raw, raw_size, &syms, NULL, 0);
	big = malloc(n + 1);
	again = malloc(n + 1);
	if (!big || !again)
		abort();
	CHECK(pd_tp_print(t, fmt, raw, raw_size, &syms, big, n + 1) == n);
	CHECK(big[n] == '\0');
	CHECK(pd_tp_print(t, fmt, raw, raw_size, &syms, again, n + 1) == n);
	CHECK(memcmp(big, again, n + 1) == 0);
	/* a shorter buffer: the text's start, NUL-ended */
	for (size_t k = 1; k <= n && k <= sizeof(small); k = k * 3 + 1) {
		memset(small, 0x7f, sizeof(small));
		CHECK(pd_tp_print(t, fmt, raw, raw_size, &syms, small, k) == n);
		CHECK(small[k - 1] == '\0');
		CHECK(memcmp(small, big, k - 1) == 0);
	}
	m = n / 2 + 1;
	if (m <= n) {
		CHECK(pd_tp_print(t, fmt, raw, raw_size, &syms, again, m) == n);
		CHECK(again[m - 1] == '\0' && memcmp(again, big, m - 1) == 0);
	}
	/* no symbols: addresses, never a crash */
	(void)pd_tp_print(t, fmt, raw, raw_size, NULL, again, n + 1);
	free(big);
	free(again);
}

static size_t nr_formats(const struct pd_tracing *t)
{
	size_t n = 0;

	while (pd_tracing_format_at(t, n))
		n++;
	return n;
}

static void check_formats(const struct pd_tracing *t,
			  const struct tr_input *in)
{
	uint8_t *raw = malloc(in->raw_size ? in->raw_size : 1);
	const struct pd_tp_format *fmt;

	if (!raw)
		abort();
	memcpy(raw, in->raw, in->raw_size);
	for (size_t i = 0; (fmt = pd_tracing_format_at(t, i)) != NULL; i++) {
		CHECK(fmt->name && fmt->system);
		fuzz_touch_str(fmt->name);
		fuzz_touch_str(fmt->system);
		if (fmt->print_fmt)
			fuzz_touch_str(fmt->print_fmt);
		CHECK(fmt->nr_fields <= 256);
		CHECK(fmt->nr_fields == 0 || fmt->fields);
		for (size_t j = 0; j < fmt->nr_fields; j++) {
			check_field(fmt, j);
			check_int(t, in, raw, &fmt->fields[j]);
		}
		if (strcmp(fmt->system, "ftrace") != 0) {
			const struct pd_tp_format *by_id =
				pd_tracing_format(t, fmt->id);

			CHECK(by_id && by_id <= fmt && by_id->id == fmt->id);
			CHECK(strcmp(by_id->system, "ftrace") != 0);
		}
		if (i < MAX_PRINTED)
			check_print(t, fmt, raw, in->raw_size);
	}
	free(raw);
}

static bool pass(const uint8_t *data, size_t size, struct failalloc *fa)
{
	static char junk;
	const struct pd_alloc hooks = failalloc_hooks(fa);
	/* a failed parse must clear *out: start from a non-NULL value */
	struct pd_tracing *t = (struct pd_tracing *)(void *)&junk, *t2 = NULL;
	struct tr_input in;
	char err[256];
	int rc, rc2;

	split(data, size, &in);
	err[0] = '\0';
	rc = pd_tracing_parse(in.sec, in.sec_size, &hooks, &t, err,
			      sizeof(err));
	CHECK(rc == 0 || rc == PD_ERR_FORMAT || rc == PD_ERR_NOMEM);
	CHECK((rc == PD_ERR_NOMEM) == (t == NULL));
	if (rc == PD_ERR_FORMAT) {
		const char *prefix = "HEADER_TRACING_DATA at byte ";

		CHECK(strncmp(err, prefix, strlen(prefix)) == 0);
		CHECK(strtoull(err + strlen(prefix), NULL, 10) <= in.sec_size);
	}
	if (in.sec_size < 10 || memcmp(in.sec, "\x17\x08\x44tracing", 10))
		CHECK(rc != 0);
	if (rc == PD_ERR_NOMEM)
		return true;
	if (!fa->nr_failed) {
		CHECK(fa->peak_bytes <=
		      BUDGET_PER_BYTE * in.sec_size + BUDGET_FIXED);
		/* the same formats without a message buffer */
		rc2 = pd_tracing_parse(in.sec, in.sec_size, NULL, &t2, NULL, 0);
		CHECK(rc2 == rc);
		CHECK(nr_formats(t2) == nr_formats(t));
		pd_tracing_free(t2);
		check_formats(t, &in);
	}
	pd_tracing_free(t);
	return false;
}

int fuzz_tracing(const uint8_t *data, size_t size)
{
	fuzz_with_oom(data, size, pass);
	return 0;
}
