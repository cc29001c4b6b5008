/*
 * testfile.h - build small perf.data files in memory for unit tests, in
 * either byte order, written from the format's rules (not from the
 * reader's code).
 *
 *	struct tf t;
 *	struct tf_attr a = { .type = 1, .sample_type = PD_SAMPLE_IP,
 *			     .flags = 1ull << PD_ATTR_sample_id_all };
 *	tf_init(&t, big_endian);
 *	tf_add_attr(&t, &a, ids, 1);
 *	tf_begin(&t, PD_REC_SAMPLE, PD_MISC_USER);
 *	tf_u64(&t, 0x1234);
 *	tf_end(&t);
 *	f = tf_open(&t);		// pd_file_open_mem over tf_build()
 *	...
 *	pd_file_close(f);
 *	tf_release(&t);
 *
 * Layout: the 104-byte header ("PERFILE2"), the attrs section (attr plus
 * {ids offset, ids size} per event), the ids, then the data section.  No
 * feature sections.  Allocation failures and misuse abort, saying why:
 * this is test code, for the unit tests and the fuzz targets alike.
 */
#ifndef TESTFILE_H
#define TESTFILE_H

#include "pd.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TF_MAX_ATTRS 8
#define TF_ATTR_SIZE 136 /* perf_event_attr up to config3 */

/* The attr fields tests vary; the rest are written as zero. */
struct tf_attr {
	uint32_t type;
	uint64_t config;
	uint64_t sample_period;
	uint64_t sample_type;
	uint64_t read_format;
	/*
	 * the flag bitfield with PD_ATTR_* bit numbers (a little-endian
	 * compiler's layout); written as a big-endian compiler lays it out
	 * when the file is big-endian
	 */
	uint64_t flags;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	uint64_t sample_regs_intr;
};

/* A growable byte buffer. */
struct tf_buf {
	unsigned char *p;
	size_t len, cap;
};

struct tf {
	bool big_endian;
	struct tf_attr attrs[TF_MAX_ATTRS];
	uint64_t *ids[TF_MAX_ATTRS];
	size_t nr_ids[TF_MAX_ATTRS];
	size_t nr_attrs;
	struct tf_buf data;  /* the data section */
	size_t rec_start;    /* offset in data of the open record */
	unsigned char *file; /* tf_build()'s result, owned */
	size_t file_len;
};

void tf_init(struct tf *t, bool big_endian);
void tf_release(struct tf *t);

void tf_add_attr(struct tf *t, const struct tf_attr *a, const uint64_t *ids,
		 size_t nr_ids);

/* Start a record (header.size is set by tf_end). */
void tf_begin(struct tf *t, uint32_t type, uint16_t misc);
void tf_u64(struct tf *t, uint64_t v);
void tf_u32(struct tf *t, uint32_t v);
void tf_u16(struct tf *t, uint16_t v);
void tf_u8(struct tf *t, uint8_t v);
void tf_bytes(struct tf *t, const void *p, size_t n);
void tf_zero(struct tf *t, size_t n);
/* s in a field of n bytes, NUL-padded (truncated when longer) */
void tf_str(struct tf *t, const char *s, size_t n);
/* Pad the record to 8 bytes and set its header.size; returns the size. */
uint32_t tf_end(struct tf *t);

/* The file's bytes (kept in t until tf_release or the next build). */
const unsigned char *tf_build(struct tf *t, size_t *len);
/* pd_file_open_mem() over tf_build(); fails the test on error. */
struct pd_file *tf_open(struct tf *t);

/*
 * A record with its own exact-size heap copy of the first len bytes of
 * the record at data offset `at` (header.size rewritten to len), so that
 * ASan catches any read past its end.  Free with tf_rec_free().
 */
struct pd_rec tf_rec_copy(const struct tf *t, size_t at, uint32_t len);
void tf_rec_free(struct pd_rec *rec);

/* Offset of the data section in the built file. */
uint64_t tf_data_offset(const struct tf *t);

#endif /* TESTFILE_H */
