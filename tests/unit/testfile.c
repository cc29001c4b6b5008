/*
 * testfile.c - perf.data files built in memory for the unit tests.  See
 * testfile.h.  The byte layouts come from tools/perf/util/header.h
 * (struct perf_file_header, perf_file_attr) and
 * include/uapi/linux/perf_event.h (struct perf_event_attr).
 */
#include "pd_config.h"

#include "testfile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 104
#define IDS_SECTION 16 /* struct perf_file_section: offset, size */

/*
 * A misuse of the builder: say what and abort (a crash that Check's fork
 * mode reports as the test's failure).  Not ck_assert: the fuzz targets
 * build captures with this file outside any Check runner.
 */
static void PD_PRINTF(1, 2) PD_NORETURN fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("testfile: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

static void buf_put(struct tf_buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			abort();
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* v as n bytes in the file's byte order */
static void put_int(struct tf_buf *b, bool be, uint64_t v, size_t n)
{
	unsigned char tmp[8];

	for (size_t i = 0; i < n; i++) {
		const size_t shift = be ? 8 * (n - 1 - i) : 8 * i;

		tmp[i] = (unsigned char)(v >> shift);
	}
	buf_put(b, tmp, n);
}

void tf_init(struct tf *t, bool big_endian)
{
	memset(t, 0, sizeof(*t));
	t->big_endian = big_endian;
}

void tf_release(struct tf *t)
{
	for (size_t i = 0; i < t->nr_attrs; i++)
		free(t->ids[i]);
	free(t->data.p);
	free(t->file);
	memset(t, 0, sizeof(*t));
}

void tf_add_attr(struct tf *t, const struct tf_attr *a, const uint64_t *ids,
		 size_t nr_ids)
{
	if (t->nr_attrs >= TF_MAX_ATTRS)
		fail("more than %d attrs", TF_MAX_ATTRS);
	t->attrs[t->nr_attrs] = *a;
	t->ids[t->nr_attrs] = malloc((nr_ids + 1) * sizeof(uint64_t));
	if (!t->ids[t->nr_attrs])
		abort();
	if (nr_ids)
		memcpy(t->ids[t->nr_attrs], ids, nr_ids * sizeof(uint64_t));
	t->nr_ids[t->nr_attrs] = nr_ids;
	t->nr_attrs++;
}

void tf_begin(struct tf *t, uint32_t type, uint16_t misc)
{
	t->rec_start = t->data.len;
	put_int(&t->data, t->big_endian, type, 4);
	put_int(&t->data, t->big_endian, misc, 2);
	put_int(&t->data, t->big_endian, 0, 2); /* size, set by tf_end */
}

void tf_u64(struct tf *t, uint64_t v)
{
	put_int(&t->data, t->big_endian, v, 8);
}

void tf_u32(struct tf *t, uint32_t v)
{
	put_int(&t->data, t->big_endian, v, 4);
}

void tf_u16(struct tf *t, uint16_t v)
{
	put_int(&t->data, t->big_endian, v, 2);
}

void tf_u8(struct tf *t, uint8_t v)
{
	buf_put(&t->data, &v, 1);
}

void tf_bytes(struct tf *t, const void *p, size_t n)
{
	buf_put(&t->data, p, n);
}

void tf_zero(struct tf *t, size_t n)
{
	static const unsigned char zeros[64];

	while (n) {
		const size_t k = n < sizeof(zeros) ? n : sizeof(zeros);

		buf_put(&t->data, zeros, k);
		n -= k;
	}
}

void tf_str(struct tf *t, const char *s, size_t n)
{
	const size_t len = strlen(s) < n ? strlen(s) : n;

	tf_bytes(t, s, len);
	tf_zero(t, n - len);
}

static void set_size(struct tf *t, size_t at, uint32_t size)
{
	unsigned char *p = t->data.p + at + 6;

	if (size > 0xffff)
		fail("a record of %u bytes", size);
	if (t->big_endian) {
		p[0] = (unsigned char)(size >> 8);
		p[1] = (unsigned char)size;
	} else {
		p[0] = (unsigned char)size;
		p[1] = (unsigned char)(size >> 8);
	}
}

uint32_t tf_end(struct tf *t)
{
	uint32_t size;

	tf_zero(t, (8 - (t->data.len - t->rec_start) % 8) % 8);
	size = (uint32_t)(t->data.len - t->rec_start);
	set_size(t, t->rec_start, size);
	return size;
}

/*
 * A big-endian compiler allocates a bitfield from the most significant
 * bit: the field at little-endian offset o of width w occupies bits
 * [64-o-w, 64-o), its value in natural order.  precise_ip is the one
 * field wider than a bit (offset 15, width 2).
 */
static uint64_t flags_be_layout(uint64_t le)
{
	const uint64_t precise_ip = (le >> 15) & 3;
	uint64_t be = precise_ip << (64 - 15 - 2);

	for (unsigned bit = 0; bit < 64; bit++) {
		if (bit == 15 || bit == 16)
			continue;
		if (le >> bit & 1)
			be |= 1ull << (63 - bit);
	}
	return be;
}

static void put_attr(struct tf_buf *b, bool be, const struct tf_attr *a)
{
	const size_t start = b->len;

	put_int(b, be, a->type, 4);
	put_int(b, be, TF_ATTR_SIZE, 4);
	put_int(b, be, a->config, 8);
	put_int(b, be, a->sample_period, 8);
	put_int(b, be, a->sample_type, 8);
	put_int(b, be, a->read_format, 8);
	put_int(b, be, be ? flags_be_layout(a->flags) : a->flags, 8);
	put_int(b, be, 0, 4); /* wakeup_events */
	put_int(b, be, 0, 4); /* bp_type */
	put_int(b, be, 0, 8); /* config1 */
	put_int(b, be, 0, 8); /* config2 */
	put_int(b, be, a->branch_sample_type, 8);
	put_int(b, be, a->sample_regs_user, 8);
	put_int(b, be, a->sample_stack_user, 4);
	put_int(b, be, 0, 4); /* clockid */
	put_int(b, be, a->sample_regs_intr, 8);
	while (b->len - start < TF_ATTR_SIZE)
		put_int(b, be, 0, 8);
}

uint64_t tf_data_offset(const struct tf *t)
{
	size_t nr_ids = 0;

	for (size_t i = 0; i < t->nr_attrs; i++)
		nr_ids += t->nr_ids[i];
	return HEADER_SIZE + t->nr_attrs * (TF_ATTR_SIZE + IDS_SECTION) +
	       nr_ids * 8;
}

const unsigned char *tf_build(struct tf *t, size_t *len)
{
	const bool be = t->big_endian;
	const uint64_t attrs_off = HEADER_SIZE;
	const uint64_t attrs_size = t->nr_attrs * (TF_ATTR_SIZE + IDS_SECTION);
	const uint64_t data_off = tf_data_offset(t);
	uint64_t ids_off = attrs_off + attrs_size;
	struct tf_buf b = {NULL, 0, 0};

	/* "PERFILE2" is the magic read as a little-endian u64 */
	put_int(&b, be, 0x32454c4946524550ull, 8);
	put_int(&b, be, HEADER_SIZE, 8);
	put_int(&b, be, TF_ATTR_SIZE + IDS_SECTION, 8);
	put_int(&b, be, attrs_off, 8);
	put_int(&b, be, attrs_size, 8);
	put_int(&b, be, data_off, 8);
	put_int(&b, be, t->data.len, 8);
	put_int(&b, be, 0, 8); /* event_types */
	put_int(&b, be, 0, 8);
	for (int i = 0; i < 4; i++)
		put_int(&b, be, 0, 8); /* no features */
	for (size_t i = 0; i < t->nr_attrs; i++) {
		put_attr(&b, be, &t->attrs[i]);
		put_int(&b, be, ids_off, 8);
		put_int(&b, be, t->nr_ids[i] * 8, 8);
		ids_off += t->nr_ids[i] * 8;
	}
	for (size_t i = 0; i < t->nr_attrs; i++)
		for (size_t j = 0; j < t->nr_ids[i]; j++)
			put_int(&b, be, t->ids[i][j], 8);
	if (b.len != data_off)
		fail("the data section at %zu, not %llu", b.len,
		     (unsigned long long)data_off);
	buf_put(&b, t->data.p, t->data.len);
	free(t->file);
	t->file = b.p;
	t->file_len = b.len;
	*len = b.len;
	return t->file;
}

struct pd_file *tf_open(struct tf *t)
{
	char err[256] = "";
	PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));
	struct pd_file *f = NULL;
	size_t len;
	const unsigned char *p = tf_build(t, &len);
	int rc = pd_file_open_mem(p, len, &opts, &f);

	if (rc != 0)
		fail("pd_file_open_mem: %d %s", rc, err);
	return f;
}

struct pd_rec tf_rec_copy(const struct tf *t, size_t at, uint32_t len)
{
	struct pd_rec rec;
	unsigned char *copy;

	if (at + len > t->data.len || len < 8)
		fail("no record of %u bytes at %zu", len, at);
	copy = malloc(len);
	if (!copy)
		abort();
	memcpy(copy, t->data.p + at, len);
	/* header.size at byte 6 in the file's order */
	if (t->big_endian) {
		copy[6] = (unsigned char)(len >> 8);
		copy[7] = (unsigned char)len;
	} else {
		copy[6] = (unsigned char)len;
		copy[7] = (unsigned char)(len >> 8);
	}
	memset(&rec, 0, sizeof(rec));
	rec.type = t->big_endian
			   ? (uint32_t)copy[0] << 24 | (uint32_t)copy[1] << 16 |
				     (uint32_t)copy[2] << 8 | copy[3]
			   : (uint32_t)copy[3] << 24 | (uint32_t)copy[2] << 16 |
				     (uint32_t)copy[1] << 8 | copy[0];
	rec.misc = t->big_endian ? (uint16_t)(copy[4] << 8 | copy[5])
				 : (uint16_t)(copy[5] << 8 | copy[4]);
	rec.size = len;
	rec.offset = tf_data_offset(t) + at;
	rec.data = copy;
	return rec;
}

void tf_rec_free(struct pd_rec *rec)
{
	union {
		const unsigned char *c;
		unsigned char *m;
	} u = {rec->data};

	free(u.m);
	rec->data = NULL;
}
