/*
 * check_reader.c - the reader's core on files built in memory: the header
 * in both byte orders and at every attr size, zstd chunks whose records
 * span two chunks, COMPRESSED2 with a wrapped size, pipe mode over a real
 * pipe, directory captures, time order, the caps on sample ids and event
 * names, damage, and allocation failure at every step (T9).
 */
#include "pd_config.h" /* _DEFAULT_SOURCE: mkdtemp */
#include "testfile.h"

#include "failalloc.h"

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

/* ---- raw little-endian writers for hand-built files ---------------- */

struct raw {
	unsigned char *p;
	size_t len, cap;
};

static void raw_put(struct raw *r, const void *p, size_t n)
{
	if (r->len + n > r->cap) {
		r->cap = (r->len + n) * 2 + 64;
		r->p = realloc(r->p, r->cap);
		ck_assert_ptr_nonnull(r->p);
	}
	memcpy(r->p + r->len, p, n);
	r->len += n;
}

static void raw_u64(struct raw *r, uint64_t v)
{
	raw_put(r, &v, 8);
}

static void raw_u32(struct raw *r, uint32_t v)
{
	raw_put(r, &v, 4);
}

static void raw_u16(struct raw *r, uint16_t v)
{
	raw_put(r, &v, 2);
}

static void raw_set_u64(struct raw *r, size_t at, uint64_t v)
{
	memcpy(r->p + at, &v, 8);
}

/* A COMM record of `size` bytes (>= 16): pid, tid, comm. */
static void raw_comm(struct raw *r, uint32_t pid, uint16_t size)
{
	char comm[64] = "comm";

	raw_u32(r, 3);
	raw_u16(r, 0);
	raw_u16(r, size);
	raw_u32(r, pid);
	raw_u32(r, pid);
	raw_put(r, comm, size - 16u);
}

static struct pd_file *open_raw(const struct raw *r)
{
	char err[256] = "";
	PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));
	struct pd_file *f;
	int rc = pd_file_open_mem(r->p, r->len, &opts, &f);

	ck_assert_msg(rc == 0, "open: %s", err);
	return f;
}

/* Count records of each type, checking each COMM's pid runs 1, 2, ... */
static int read_all(struct pd_file *f, unsigned flags, uint64_t *nr_comm,
		    uint64_t *nr_total)
{
	struct pd_reader *r;
	struct pd_rec rec;
	uint32_t want_pid = 1;
	int rc;

	ck_assert_int_eq(pd_reader_new(f, flags, &r), 0);
	*nr_comm = *nr_total = 0;
	while ((rc = pd_reader_next(r, &rec)) > 0) {
		(*nr_total)++;
		if (rec.type != PD_REC_COMM)
			continue;
		ck_assert_uint_eq(pd_load_u32(rec.data + 8, 0), want_pid);
		want_pid++;
		(*nr_comm)++;
	}
	rc = rc < 0 ? rc : pd_reader_stats(r)->damaged;
	pd_reader_free(r);
	return rc;
}

/* ---- header and attrs --------------------------------------------- */

/*
 * One attr of `attr_size` bytes (0 = ABI v0 written as 0) with config 7,
 * sample_type IP|TID, one id; one COMM record.
 */
static void build_attr_file(struct raw *r, uint32_t attr_size)
{
	const uint32_t stride = (attr_size ? attr_size : 64) + 16;
	const size_t attrs_at = 104, ids_at = attrs_at + stride;
	const size_t data_at = ids_at + 8;
	unsigned char attr[256];

	memset(r, 0, sizeof(*r));
	raw_put(r, "PERFILE2", 8);
	raw_u64(r, 104);
	raw_u64(r, stride);
	raw_u64(r, attrs_at);
	raw_u64(r, stride);
	raw_u64(r, data_at);
	raw_u64(r, 0); /* data size, set below */
	raw_u64(r, 0);
	raw_u64(r, 0);
	for (int i = 0; i < 4; i++)
		raw_u64(r, 0);
	memset(attr, 0, sizeof(attr));
	memcpy(attr + 4, &attr_size, 4);
	attr[8] = 7;				/* config */
	attr[24] = PD_SAMPLE_IP | PD_SAMPLE_TID; /* sample_type */
	attr[42] = 1u << (PD_ATTR_sample_id_all - 16);
	raw_put(r, attr, stride - 16);
	raw_u64(r, ids_at);
	raw_u64(r, 8);
	raw_u64(r, 42); /* the id */
	raw_comm(r, 1, 24);
	raw_set_u64(r, 48, r->len - data_at);
}

static const uint32_t attr_sizes[] = { 0, 64, 72, 80, 96, 104, 112, 120,
				       128, 136, 144, 200 };

START_TEST(test_attr_sizes)
{
	struct raw r;
	struct pd_file *f;
	const struct pd_evsel *e;
	uint64_t nr_comm, nr_total;

	build_attr_file(&r, attr_sizes[_i]);
	f = open_raw(&r);
	ck_assert_uint_eq(pd_file_nr_evsels(f), 1);
	e = pd_file_evsel(f, 0);
	ck_assert_uint_eq(e->attr.config, 7);
	ck_assert_uint_eq(e->attr.sample_type, PD_SAMPLE_IP | PD_SAMPLE_TID);
	ck_assert(PD_ATTR_HAS(&e->attr, sample_id_all));
	ck_assert_uint_eq(e->nr_ids, 1);
	ck_assert_uint_eq(e->ids[0], 42);
	ck_assert_ptr_eq(pd_file_evsel_by_id(f, 42), e);
	ck_assert_str_eq(e->name, "stalled-cycles-frontend:HG");
	ck_assert_int_eq(read_all(f, 0, &nr_comm, &nr_total), 0);
	ck_assert_uint_eq(nr_comm, 1);
	pd_file_close(f);
	free(r.p);
}
END_TEST

START_TEST(test_attr_too_small)
{
	char err[256] = "";
	PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));
	struct pd_file *f;
	struct raw r;

	build_attr_file(&r, 64);
	/* attr.size 40 inside a 64-byte slot */
	r.p[104 + 4] = 40;
	ck_assert_int_eq(pd_file_open_mem(r.p, r.len, &opts, &f),
			 PD_ERR_FORMAT);
	ck_assert_ptr_null(f);
	ck_assert_msg(strstr(err, "attr at offset 0x68: size 40 < 64"), "%s",
		      err);
	free(r.p);
}
END_TEST

START_TEST(test_bad_magic)
{
	static const unsigned char v1[16] = "PERFFILE";
	static const unsigned char junk[16] = "hello, world....";
	static const unsigned char gz[16] = { 0x1f, 0x8b, 8, 0 };
	char err[256];
	PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));
	struct pd_file *f;

	ck_assert_int_eq(pd_file_open_mem(v1, sizeof(v1), &opts, &f),
			 PD_ERR_UNSUPPORTED);
	ck_assert(strstr(err, "version 1") != NULL);
	ck_assert_int_eq(pd_file_open_mem(junk, sizeof(junk), &opts, &f),
			 PD_ERR_FORMAT);
	ck_assert(strstr(err, "not a perf.data file") != NULL);
	ck_assert_int_eq(pd_file_open_mem(gz, sizeof(gz), &opts, &f),
			 PD_ERR_UNSUPPORTED);
	ck_assert(strstr(err, "gzip") != NULL);
	ck_assert_int_eq(pd_file_open_mem(junk, 4, &opts, &f), PD_ERR_FORMAT);
	ck_assert_int_eq(pd_file_open_mem(NULL, 0, &opts, &f), PD_ERR_FORMAT);
}
END_TEST

/* Every prefix of a valid file opens cleanly or fails with a message. */
START_TEST(test_header_truncations)
{
	struct raw r;

	build_attr_file(&r, 136);
	for (size_t len = 0; len < r.len; len++) {
		char err[256] = "";
		PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));
		unsigned char *copy = malloc(len + 1);
		struct pd_file *f;
		uint64_t nr_comm, nr_total;
		int rc;

		memcpy(copy, r.p, len);
		rc = pd_file_open_mem(copy, len, &opts, &f);
		if (rc == 0) {
			/* the data section was cut: damage, never a crash */
			ck_assert_int_eq(read_all(f, 0, &nr_comm, &nr_total),
					 1);
			pd_file_close(f);
		} else {
			ck_assert_msg(err[0] != '\0', "len %zu: no message",
				      len);
		}
		free(copy);
	}
	free(r.p);
}
END_TEST

/* The same attrs and records decode the same from either byte order. */
START_TEST(test_both_byte_orders)
{
	struct tf_attr a = {
		.type = 0,
		.config = 1,
		.sample_type = PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME |
			       PD_SAMPLE_ID | PD_SAMPLE_PERIOD,
		.flags = 1ull << PD_ATTR_sample_id_all |
			 1ull << PD_ATTR_exclude_kernel | 2ull << 15 |
			 1ull << PD_ATTR_freq,
		.sample_period = 4000,
	};
	const uint64_t ids[2] = { 11, 12 };
	struct pd_sample s[2];

	for (int be = 0; be < 2; be++) {
		struct tf t;
		struct pd_file *f;
		struct pd_reader *r;
		struct pd_rec rec;
		const struct pd_evsel *e;

		tf_init(&t, be);
		tf_add_attr(&t, &a, ids, 2);
		tf_begin(&t, PD_REC_SAMPLE, PD_MISC_USER);
		tf_u64(&t, 0xffffffff81000010ull);
		tf_u32(&t, 100);
		tf_u32(&t, 101);
		tf_u64(&t, 123456789);
		tf_u64(&t, 12);
		tf_u64(&t, 5000);
		tf_end(&t);
		f = tf_open(&t);
		ck_assert_int_eq(pd_file_header(f)->big_endian, be);
		e = pd_file_evsel(f, 0);
		ck_assert_uint_eq(PD_ATTR_PRECISE_IP(&e->attr), 2);
		ck_assert(PD_ATTR_HAS(&e->attr, exclude_kernel));
		ck_assert(!PD_ATTR_HAS(&e->attr, exclude_user));
		ck_assert(PD_ATTR_HAS(&e->attr, freq));
		ck_assert_str_eq(e->name, "instructions:uhpp");
		ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
		ck_assert_int_eq(pd_reader_next(r, &rec), 1);
		ck_assert_int_eq(pd_sample_decode(f, &rec, &s[be]), 0);
		ck_assert_uint_eq(s[be].ip, 0xffffffff81000010ull);
		ck_assert_uint_eq(s[be].pid, 100);
		ck_assert_uint_eq(s[be].tid, 101);
		ck_assert_uint_eq(s[be].time, 123456789);
		ck_assert_uint_eq(s[be].id, 12);
		ck_assert_uint_eq(s[be].period, 5000);
		ck_assert_int_eq(pd_reader_next(r, &rec), 0);
		pd_reader_free(r);
		pd_file_close(f);
		tf_release(&t);
	}
}
END_TEST

/* ---- compressed chunks -------------------------------------------- */

/*
 * The records COMM pid 1..n, packed as one zstd stream cut into chunks
 * at the given byte positions of the uncompressed stream (so records
 * span chunks), each chunk a COMPRESSED (or COMPRESSED2) record, with a
 * FINISHED_ROUND between chunks.
 */
static void build_compressed(struct raw *out, int nr_comm, uint16_t comm_size,
			     const size_t *cuts, int nr_cuts, bool v2)
{
	struct raw plain = { 0 };
	ZSTD_CStream *cs = ZSTD_createCStream();
	unsigned char *zbuf;
	size_t zcap, start = 0;

	for (int i = 1; i <= nr_comm; i++)
		raw_comm(&plain, (uint32_t)i, comm_size);
	ZSTD_initCStream(cs, 3);
	zcap = ZSTD_compressBound(plain.len) + 4096;
	zbuf = malloc(zcap);
	for (int c = 0; c <= nr_cuts; c++) {
		const size_t end = c < nr_cuts ? cuts[c] : plain.len;
		ZSTD_inBuffer in = { plain.p + start, end - start, 0 };
		ZSTD_outBuffer zo = { zbuf, zcap, 0 };
		size_t rem;
		uint64_t total;

		do {
			rem = ZSTD_compressStream2(cs, &zo, &in,
						   c < nr_cuts ? ZSTD_e_flush
							       : ZSTD_e_end);
			ck_assert(!ZSTD_isError(rem));
		} while (rem);
		if (v2) {
			total = (16 + zo.pos + 7) & ~7ull;
			raw_u32(out, PD_REC_COMPRESSED2);
			raw_u16(out, 0);
			raw_u16(out, (uint16_t)total); /* wraps past 64 KiB */
			raw_u64(out, zo.pos);
			raw_put(out, zbuf, zo.pos);
			while (out->len % 8)
				raw_put(out, "", 1);
		} else {
			ck_assert(8 + zo.pos < 65536);
			raw_u32(out, PD_REC_COMPRESSED);
			raw_u16(out, 0);
			raw_u16(out, (uint16_t)(8 + zo.pos));
			raw_put(out, zbuf, zo.pos);
		}
		if (c < nr_cuts) {
			raw_u32(out, PD_REC_FINISHED_ROUND);
			raw_u16(out, 0);
			raw_u16(out, 8);
		}
		start = end;
	}
	ZSTD_freeCStream(cs);
	free(zbuf);
	free(plain.p);
}

/* A file with one attr (sample_type IP) and the given data section. */
static void wrap_file(struct raw *file, const struct raw *data)
{
	struct raw hdr = { 0 };

	build_attr_file(&hdr, 136);
	/* drop the COMM that build_attr_file put in the data section */
	hdr.len -= 24;
	raw_set_u64(&hdr, 48, data->len);
	raw_put(&hdr, data->p, data->len);
	*file = hdr;
}

START_TEST(test_compressed_spanning)
{
	/* cuts inside the 3rd record's header and inside the 7th's body */
	const size_t cuts[] = { 2 * 40 + 5, 6 * 40 + 21, 9 * 40 };
	const int v2 = _i;
	struct raw data = { 0 }, file;
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	uint64_t nr_comm, nr_total;

	build_compressed(&data, 12, 40, cuts, 3, v2);
	wrap_file(&file, &data);
	f = open_raw(&file);
	ck_assert_int_eq(read_all(f, 0, &nr_comm, &nr_total), 0);
	ck_assert_uint_eq(nr_comm, 12);
	ck_assert_uint_eq(nr_total, 12 + 3); /* + FINISHED_ROUNDs */
	/* decompressed records live until the next chunk only */
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	while (pd_reader_next(r, &rec) > 0)
		ck_assert_msg(!(rec.flags & PD_RECF_STABLE) ==
				      !!(rec.flags & PD_RECF_DECOMPRESSED),
			      "%s", pd_rec_type_name(rec.type));
	pd_reader_free(r);
	/* the chunks themselves, when asked for */
	ck_assert_int_eq(pd_reader_new(f, PD_READ_KEEP_COMPRESSED, &r), 0);
	nr_total = 0;
	while (pd_reader_next(r, &rec) > 0)
		nr_total += rec.type == (v2 ? PD_REC_COMPRESSED2
					    : PD_REC_COMPRESSED);
	ck_assert_uint_eq(nr_total, 4);
	pd_reader_free(r);
	pd_file_close(f);
	free(data.p);
	free(file.p);
}
END_TEST

/* A COMPRESSED2 chunk over 64 KiB: header.size has wrapped. */
START_TEST(test_compressed2_wrapped)
{
	struct raw data = { 0 }, file;
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	uint64_t nr_comm = 0;
	int rc;

	/* incompressible-ish COMM names keep the chunk big */
	{
		struct raw plain = { 0 };
		ZSTD_CCtx *cc = ZSTD_createCCtx();
		unsigned char *z;
		size_t zlen, zcap;
		unsigned seed = 1;

		for (uint32_t i = 1; i <= 4000; i++) {
			unsigned char name[32];

			for (int k = 0; k < 32; k++) {
				seed = seed * 1103515245u + 12345u;
				name[k] = (unsigned char)(seed >> 16);
			}
			raw_u32(&plain, PD_REC_COMM);
			raw_u16(&plain, 0);
			raw_u16(&plain, 48);
			raw_u32(&plain, i);
			raw_u32(&plain, i);
			raw_put(&plain, name, 32);
		}
		zcap = ZSTD_compressBound(plain.len);
		z = malloc(zcap);
		zlen = ZSTD_compressCCtx(cc, z, zcap, plain.p, plain.len, 1);
		ck_assert(!ZSTD_isError(zlen));
		ck_assert_msg(zlen > 65536, "chunk only %zu bytes", zlen);
		raw_u32(&data, PD_REC_COMPRESSED2);
		raw_u16(&data, 0);
		raw_u16(&data, (uint16_t)((16 + zlen + 7) & ~7ull));
		raw_u64(&data, zlen);
		raw_put(&data, z, zlen);
		while (data.len % 8)
			raw_put(&data, "", 1);
		ZSTD_freeCCtx(cc);
		free(z);
		free(plain.p);
	}
	wrap_file(&file, &data);
	f = open_raw(&file);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	while ((rc = pd_reader_next(r, &rec)) > 0)
		nr_comm += rec.type == PD_REC_COMM;
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(nr_comm, 4000);
	ck_assert_uint_eq(pd_reader_stats(r)->nr_size_wrapped, 1);
	ck_assert_int_eq(pd_reader_stats(r)->damaged, 0);
	pd_reader_free(r);
	pd_file_close(f);
	free(data.p);
	free(file.p);
}
END_TEST

/* A chunk that is not zstd ends the reading as damage, not a crash. */
START_TEST(test_compressed_garbage)
{
	struct raw data = { 0 }, file;
	struct pd_file *f;
	uint64_t nr_comm, nr_total;

	raw_comm(&data, 1, 24);
	raw_u32(&data, PD_REC_COMPRESSED);
	raw_u16(&data, 0);
	raw_u16(&data, 24);
	raw_put(&data, "not zstd at all!", 16);
	raw_comm(&data, 2, 24);
	wrap_file(&file, &data);
	f = open_raw(&file);
	ck_assert_int_eq(read_all(f, 0, &nr_comm, &nr_total), 1);
	ck_assert_uint_eq(nr_comm, 1);
	pd_file_close(f);
	free(data.p);
	free(file.p);
}
END_TEST

/* What a reader delivers: each record's fields and bytes hashed in
 * order, the end's rc and the statistics. */
struct reading {
	uint64_t hash, nr;
	int rc;
	struct pd_reader_stats stats;
};

static void read_hashed(struct pd_file *f, unsigned flags, struct reading *out)
{
	struct pd_reader *r;
	struct pd_rec rec;
	uint64_t h = 1469598103934665603ull;

	memset(out, 0, sizeof(*out));
	ck_assert_int_eq(pd_reader_new(f, flags, &r), 0);
	while ((out->rc = pd_reader_next(r, &rec)) > 0) {
		const uint64_t head[4] = { rec.type, rec.size, rec.offset,
					   rec.flags };

		for (size_t i = 0; i < sizeof(head) + rec.size; i++) {
			h ^= i < sizeof(head)
				     ? ((const unsigned char *)head)[i]
				     : rec.data[i - sizeof(head)];
			h *= 1099511628211ull;
		}
		out->nr++;
	}
	out->hash = h;
	out->stats = *pd_reader_stats(r);
	pd_reader_free(r);
}

/*
 * PD_READ_PAGER inflates the chunks on a thread ahead of the caller: the
 * same records, damage and statistics as reading on one thread, over 60
 * chunks (more than its buffers) with records that span them; _i: 0
 * COMPRESSED, 1 COMPRESSED2, 2 a chunk's zstd damaged, 3 the data cut
 * inside the last chunk.  A reader freed half way stops its thread.
 */
START_TEST(test_compressed_ahead)
{
	size_t cuts[59];
	struct raw data = { 0 }, file;
	struct reading one, two;
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;

	for (int i = 0; i < 59; i++)
		cuts[i] = (size_t)(i + 1) * 2003;
	build_compressed(&data, 3000, 40, cuts, 59, _i == 1);
	if (_i == 2)
		data.p[data.len / 2] ^= 0x5a;
	if (_i == 3)
		data.len -= 7;
	wrap_file(&file, &data);
	f = open_raw(&file);
	read_hashed(f, 0, &one);
	read_hashed(f, PD_READ_PAGER, &two);
	ck_assert_int_eq(one.rc, two.rc);
	ck_assert_uint_eq(one.nr, two.nr);
	ck_assert_uint_eq(one.hash, two.hash);
	ck_assert_str_eq(one.stats.damage, two.stats.damage);
	ck_assert(memcmp(&one.stats, &two.stats, sizeof(one.stats)) == 0);
	ck_assert_int_eq(one.stats.damaged, _i >= 2);
	if (_i < 2)
		ck_assert_uint_eq(one.stats.nr_compressed, 60);
	ck_assert_uint_gt(one.nr, 100);
	ck_assert_int_eq(pd_reader_new(f, PD_READ_PAGER, &r), 0);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(pd_reader_next(r, &rec), 1);
	pd_reader_free(r);
	pd_file_close(f);
	free(data.p);
	free(file.p);
}
END_TEST

/* ---- pipe mode over a real pipe ------------------------------------ */

START_TEST(test_pipe_fd)
{
	struct raw s = { 0 };
	unsigned char attr[136];
	struct pd_file *f;
	uint64_t nr_comm, nr_total;
	int fds[2];
	pid_t child;
	int status;

	raw_put(&s, "PERFILE2", 8);
	raw_u64(&s, 16);
	/* HEADER_ATTR: attr + one id */
	memset(attr, 0, sizeof(attr));
	attr[4] = 136;
	attr[24] = PD_SAMPLE_IP;
	raw_u32(&s, PD_REC_HEADER_ATTR);
	raw_u16(&s, 0);
	raw_u16(&s, 8 + 136 + 8);
	raw_put(&s, attr, 136);
	raw_u64(&s, 5);
	for (int i = 1; i <= 3; i++)
		raw_comm(&s, (uint32_t)i, 32);
	ck_assert_int_eq(pipe(fds), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		/* trickle the stream in small writes */
		close(fds[0]);
		for (size_t at = 0; at < s.len; at += 7) {
			size_t n = s.len - at < 7 ? s.len - at : 7;

			if (write(fds[1], s.p + at, n) != (ssize_t)n)
				_exit(1);
		}
		_exit(0);
	}
	close(fds[1]);
	{
		char err[256] = "";
		PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));

		ck_assert_int_eq(pd_file_open_fd(fds[0], "pipe", &opts, &f), 0);
	}
	ck_assert_int_eq(pd_file_header(f)->kind, PD_KIND_PIPE);
	ck_assert_int_eq(read_all(f, 0, &nr_comm, &nr_total), 0);
	ck_assert_uint_eq(nr_comm, 3);
	ck_assert_uint_eq(pd_file_nr_evsels(f), 1);
	ck_assert_ptr_nonnull(pd_file_evsel_by_id(f, 5));
	/* a stream can be read once */
	{
		struct pd_reader *r;

		ck_assert_int_eq(pd_reader_new(f, 0, &r), PD_ERR_API);
	}
	pd_file_close(f);
	close(fds[0]);
	waitpid(child, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(s.p);
}
END_TEST

/* ---- time order --------------------------------------------------- */

/* SAMPLE with IP|TIME (id via the single attr) and time t. */
static void tf_sample_at(struct tf *t, uint64_t time)
{
	tf_begin(t, PD_REC_SAMPLE, PD_MISC_USER);
	tf_u64(t, 0x400000 + time);
	tf_u64(t, time);
	tf_end(t);
}

static void tf_round(struct tf *t)
{
	tf_begin(t, PD_REC_FINISHED_ROUND, 0);
	tf_end(t);
}

START_TEST(test_ordered)
{
	/* two CPUs' buffers interleaved, rounds between */
	static const uint64_t times[] = { 10, 30, 20, 0, 50, 40, 25, 0, 60,
					  45, 0, 70 };
	static const uint64_t want[] = { 10, 20, 25, 30, 40, 45, 50, 60, 70 };
	struct tf_attr a = { .type = 1, .sample_type = PD_SAMPLE_IP |
							PD_SAMPLE_TIME };
	const uint64_t id = 1;
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	size_t n = 0, rounds = 0;
	struct pd_rec kept[sizeof(want) / sizeof(want[0])];
	struct tf t;

	tf_init(&t, false);
	tf_add_attr(&t, &a, &id, 1);
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		if (times[i])
			tf_sample_at(&t, times[i]);
		else
			tf_round(&t);
	}
	f = tf_open(&t);
	ck_assert_int_eq(pd_reader_new(f, PD_READ_ORDERED, &r), 0);
	while (pd_reader_next(r, &rec) > 0) {
		struct pd_sample s;

		if (rec.type == PD_REC_FINISHED_ROUND) {
			rounds++;
			continue;
		}
		ck_assert_int_eq(pd_sample_decode(f, &rec, &s), 0);
		ck_assert_uint_lt(n, sizeof(want) / sizeof(want[0]));
		ck_assert_uint_eq(s.time, want[n]);
		ck_assert_uint_eq(s.ip, 0x400000 + want[n]);
		/* from the file's bytes (queued by reference): valid until
		 * the file is closed */
		ck_assert(rec.flags & PD_RECF_STABLE);
		kept[n++] = rec;
	}
	ck_assert_uint_eq(n, sizeof(want) / sizeof(want[0]));
	ck_assert_uint_eq(rounds, 3);
	for (size_t i = 0; i < n; i++) {
		struct pd_sample s;

		ck_assert_int_eq(pd_sample_decode(f, &kept[i], &s), 0);
		ck_assert_uint_eq(s.time, want[i]);
	}
	pd_reader_free(r);
	pd_file_close(f);
	tf_release(&t);
}
END_TEST

/*
 * O5: the sample ids of all events count against one cap (4M), not each
 * event's alone: HEADER_ATTR records could otherwise add 65,536 events
 * of thousands of ids each.  Two events of 3M and 1.2M ids: the second
 * is refused, naming the cap; 3M and 1M ids (exactly the cap) open.
 */
START_TEST(test_ids_cap)
{
	const size_t first = 3u << 20, nr = 4u << 20;
	const size_t second = _i ? nr - first : (1200u << 10);
	struct tf_attr a = { .type = 1, .sample_type = PD_SAMPLE_IP |
							PD_SAMPLE_IDENTIFIER };
	uint64_t *ids = malloc((first + second) * sizeof(*ids));
	char err[256] = "";
	PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));
	const unsigned char *file;
	struct pd_file *f;
	struct tf t;
	size_t len;
	int rc;

	ck_assert_ptr_nonnull(ids);
	for (size_t i = 0; i < first + second; i++)
		ids[i] = i + 1;
	tf_init(&t, false);
	tf_add_attr(&t, &a, ids, first);
	tf_add_attr(&t, &a, ids + first, second);
	file = tf_build(&t, &len);
	rc = pd_file_open_mem(file, len, &opts, &f);
	if (_i) {
		ck_assert_msg(rc == 0, "%s", err);
		ck_assert_uint_eq(pd_file_evsel(f, 1)->nr_ids, second);
		pd_file_close(f);
	} else {
		ck_assert_int_eq(rc, PD_ERR_FORMAT);
		ck_assert_msg(strstr(err, "more than 4194304 sample ids in all "
					  "events"),
			      "%s", err);
	}
	tf_release(&t);
	free(ids);
}
END_TEST

/*
 * O5: an EVENT_UPDATE may rename an event to 1 KiB at most: a longer name
 * is refused (a warning, the reading goes on) and the name stays.
 */
START_TEST(test_name_cap)
{
	struct tf_attr a = { .type = 1, .sample_type = PD_SAMPLE_IP |
							PD_SAMPLE_IDENTIFIER };
	const uint64_t id = 1;
	static const size_t lens[] = { 10, 1024, 1025, 60000 };
	char *name = malloc(60001);
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	size_t nr = 0;
	struct tf t;

	ck_assert_ptr_nonnull(name);
	tf_init(&t, false);
	tf_add_attr(&t, &a, &id, 1);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		memset(name, 'a' + (int)i, lens[i]);
		tf_begin(&t, PD_REC_EVENT_UPDATE, 0);
		tf_u64(&t, PD_EVENT_UPDATE_NAME);
		tf_u64(&t, id);
		tf_bytes(&t, name, lens[i]);
		tf_u8(&t, 0);
		tf_end(&t);
	}
	f = tf_open(&t);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	while (pd_reader_next(r, &rec) > 0)
		nr++;
	ck_assert_uint_eq(nr, 4);
	/* the 1024-byte name was the last one short enough */
	ck_assert_uint_eq(strlen(pd_file_evsel(f, 0)->name), 1024);
	ck_assert_int_eq(pd_file_evsel(f, 0)->name[0], 'b');
	ck_assert_str_ne(pd_file_errmsg(f), "");
	ck_assert_msg(strstr(pd_file_errmsg(f), "an event name of 60000 bytes "
						"(at most 1024)"),
		      "%s", pd_file_errmsg(f));
	pd_reader_free(r);
	pd_file_close(f);
	tf_release(&t);
	free(name);
}
END_TEST

/* ---- damage -------------------------------------------------------- */

START_TEST(test_damage_zero_size)
{
	struct raw data = { 0 }, file;
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	const struct pd_reader_stats *st;

	raw_comm(&data, 1, 24);
	raw_comm(&data, 2, 24);
	raw_u32(&data, PD_REC_SAMPLE);
	raw_u16(&data, 0);
	raw_u16(&data, 0); /* size 0 */
	raw_comm(&data, 3, 24);
	wrap_file(&file, &data);
	f = open_raw(&file);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	ck_assert_int_eq(pd_reader_next(r, &rec), 1);
	ck_assert_int_eq(pd_reader_next(r, &rec), 1);
	ck_assert_int_eq(pd_reader_next(r, &rec), 0);
	st = pd_reader_stats(r);
	ck_assert(st->damaged);
	ck_assert_uint_eq(st->damage_offset, 104 + 152 + 8 + 48);
	ck_assert_uint_eq(st->bytes_unread, 32);
	ck_assert_msg(strstr(st->damage, "size 0 < header size 8"), "%s",
		      st->damage);
	pd_reader_free(r);
	pd_file_close(f);
	free(data.p);
	free(file.p);
}
END_TEST

/* ---- directory captures -------------------------------------------- */

static void write_file(const char *path, const struct raw *r)
{
	FILE *fp = fopen(path, "wb");

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(r->p, 1, r->len, fp), r->len);
	fclose(fp);
}

START_TEST(test_directory)
{
	char dir[] = "/tmp/pd-dir-XXXXXX", path[256];
	struct raw main_file, d0 = { 0 }, d1 = { 0 }, data = { 0 };
	struct pd_file *f;
	uint64_t nr_comm, nr_total;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	raw_comm(&data, 1, 24);
	wrap_file(&main_file, &data);
	raw_comm(&d0, 2, 24);
	raw_comm(&d0, 3, 24);
	raw_comm(&d1, 4, 24);
	snprintf(path, sizeof(path), "%s/data", dir);
	write_file(path, &main_file);
	/* data.10 sorts after data.2 by number, not by name */
	snprintf(path, sizeof(path), "%s/data.2", dir);
	write_file(path, &d0);
	snprintf(path, sizeof(path), "%s/data.10", dir);
	write_file(path, &d1);
	{
		char err[256] = "";
		PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));

		ck_assert_msg(pd_file_open(dir, &opts, &f) == 0, "%s", err);
	}
	ck_assert_int_eq(pd_file_header(f)->kind, PD_KIND_DIR);
	ck_assert_int_eq(read_all(f, 0, &nr_comm, &nr_total), 0);
	ck_assert_uint_eq(nr_comm, 4);
	pd_file_close(f);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(path), 0);
	free(main_file.p);
	free(d0.p);
	free(d1.p);
	free(data.p);
}
END_TEST

/* The resident KB of this process's mappings of the file at path
 * (/proc/self/smaps), or -1 when it cannot be read. */
static long mapped_kb(const char *path)
{
	FILE *fp = fopen("/proc/self/smaps", "r");
	const size_t plen = strlen(path);
	char line[1024];
	bool in = false, seen = false;
	long kb = 0, v;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long lo, hi;
		size_t n = strlen(line);
		char c;

		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		/* a mapping's line: "lo-hi perms offset dev inode path" */
		if (sscanf(line, "%lx-%lx%c", &lo, &hi, &c) == 3 && c == ' ') {
			in = n >= plen && strcmp(line + n - plen, path) == 0;
			seen = seen || in;
		} else if (in && sscanf(line, "Rss: %ld kB", &v) == 1) {
			kb += v;
		}
	}
	fclose(fp);
	return seen ? kb : -1;
}

/* test_directory_release's directory: made and removed outside the
 * test's process, so that a failed check leaves no 36 MB behind */
static char tail_dir[64];

static void tail_dir_make(void)
{
	snprintf(tail_dir, sizeof(tail_dir), "/tmp/pd-tail-XXXXXX");
	if (!mkdtemp(tail_dir))
		tail_dir[0] = '\0';
}

static void tail_dir_remove(void)
{
	char cmd[128];

	if (!tail_dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tail_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "check_reader: cannot remove %s\n", tail_dir);
}

/*
 * A directory capture's files are handed back as the reader leaves them:
 * 12 MB files of 4 KB COMM records (pid 100000 * (file + 1) + record),
 * and once
 * the reader is 6 MB into data.1, no more than a few pages of data.0 stay
 * mapped (it kept the last one or two release steps, 4-8 MB, until the
 * reader ended), with the pager (which releases on its thread: waited
 * for) and without.  Every record is read once, in order.
 */
START_TEST(test_directory_release)
{
	const char *dir = tail_dir;
	char path[256], first[256];
	const unsigned nr_files = 3, per_file = (12u << 20) / 4096;
	struct raw main_file, data = { 0 };

	ck_assert_msg(dir[0], "no directory in /tmp");
	raw_comm(&data, 1, 24);
	wrap_file(&main_file, &data);
	snprintf(path, sizeof(path), "%s/data", dir);
	write_file(path, &main_file);
	for (unsigned i = 0; i < nr_files; i++) {
		struct raw d = { 0 };

		for (unsigned k = 0; k < per_file; k++) {
			raw_u32(&d, 3); /* COMM */
			raw_u16(&d, 0);
			raw_u16(&d, 4096);
			raw_u32(&d, 100000 * (i + 1) + k);
			raw_u32(&d, 100000 * (i + 1) + k);
			for (unsigned z = 16; z < 4096; z += 8)
				raw_u64(&d, 0);
		}
		snprintf(path, sizeof(path), "%s/data.%u", dir, i);
		write_file(path, &d);
		free(d.p);
	}
	snprintf(first, sizeof(first), "%s/data.0", dir);
	for (int pass = 0; pass < 2; pass++) {
		char err[256] = "";
		PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));
		struct pd_file *f;
		struct pd_reader *r;
		struct pd_rec rec;
		uint64_t nr = 0;
		long kb = -1;
		int rc;

		ck_assert_msg(pd_file_open(dir, &opts, &f) == 0, "%s", err);
		ck_assert_int_eq(pd_file_header(f)->kind, PD_KIND_DIR);
		ck_assert_int_eq(pd_reader_new(f, pass ? PD_READ_PAGER : 0, &r),
				 0);
		while ((rc = pd_reader_next(r, &rec)) > 0) {
			uint32_t pid;

			nr++;
			if (rec.size != 4096)
				continue;
			memcpy(&pid, rec.data + 8, 4);
			/* the records in order, files by number */
			ck_assert_uint_eq(pid,
					  100000 * ((nr - 2) / per_file + 1) +
						  (nr - 2) % per_file);
			/* data.0 mapped where it is read: the check below
			 * looks at the right mapping */
			if (pid == 100000 + (6u << 20) / 4096)
				ck_assert_int_gt(mapped_kb(first), 1024);
			if (pid != 200000 + (6u << 20) / 4096)
				continue;
			/* the pager hands pages back on its thread */
			for (int t = 0; t < 500; t++) {
				kb = mapped_kb(first);
				if (kb >= 0 && kb < 1024)
					break;
				usleep(10000);
			}
			ck_assert_msg(kb >= 0 && kb < 1024,
				      "pass %d: %ld KB of data.0 still mapped "
				      "6 MB into data.1",
				      pass, kb);
		}
		ck_assert_int_eq(rc, 0);
		ck_assert_int_ge(kb, 0);
		ck_assert_uint_eq(nr, 1 + (uint64_t)nr_files * per_file);
		pd_reader_free(r);
		pd_file_close(f);
	}
	free(main_file.p);
	free(data.p);
}
END_TEST

/* Write a capture of nr samples (ip 0x400000 + time, time 1..nr) as
 * dir/perf.data, its name in path. */
static void write_timed(const char *dir, uint64_t nr, char *path,
			size_t path_size)
{
	struct tf_attr a = { .type = 1, .sample_type = PD_SAMPLE_IP |
							PD_SAMPLE_TIME };
	const uint64_t id = 1;
	const unsigned char *bytes;
	size_t len;
	FILE *out;
	struct tf t;

	tf_init(&t, false);
	tf_add_attr(&t, &a, &id, 1);
	for (uint64_t i = 1; i <= nr; i++)
		tf_sample_at(&t, i);
	bytes = tf_build(&t, &len);
	snprintf(path, path_size, "%s/perf.data", dir);
	out = fopen(path, "wb");
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(fwrite(bytes, 1, len, out), len);
	ck_assert_int_eq(fclose(out), 0);
	tf_release(&t);
}

/*
 * PD_READ_PAGER: a mapped capture of 24 MB (several release steps and
 * more than the pager maps ahead) reads the same records in the same
 * order with the pager thread as without, and a record held one release
 * step behind (as the pipeline's batches are) is still readable.
 */
START_TEST(test_pager)
{
	char dir[] = "/tmp/pd-pager-XXXXXX", path[256];
	const uint64_t nr = 24u << 20 >> 5; /* 32-byte samples */
	uint64_t sums[2] = { 0, 0 }, counts[2] = { 0, 0 };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_timed(dir, nr, path, sizeof(path));
	for (int pass = 0; pass < 2; pass++) {
		char err[256] = "";
		PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));
		struct pd_file *f;
		struct pd_reader *r;
		struct pd_rec rec, held = { 0 };
		struct pd_sample s;
		int rc;

		ck_assert_msg(pd_file_open(path, &opts, &f) == 0, "%s", err);
		ck_assert_int_eq(pd_reader_new(f, pass ? PD_READ_PAGER : 0, &r),
				 0);
		while ((rc = pd_reader_next(r, &rec)) > 0) {
			ck_assert_int_eq(pd_sample_decode(f, &rec, &s), 0);
			ck_assert_uint_eq(s.ip, 0x400000 + s.time);
			sums[pass] = sums[pass] * 31 + s.time;
			/* a record from up to a release step (4 MB) back */
			if (counts[pass] % (3u << 20 >> 5) == 0)
				held = rec;
			else if (held.data) {
				ck_assert_int_eq(pd_sample_decode(f, &held, &s),
						 0);
				ck_assert_uint_eq(s.ip, 0x400000 + s.time);
			}
			counts[pass]++;
		}
		ck_assert_int_eq(rc, 0);
		pd_reader_free(r);
		pd_file_close(f);
	}
	ck_assert_uint_eq(counts[0], nr);
	ck_assert_uint_eq(counts[1], nr);
	ck_assert_uint_eq(sums[0], sums[1]);
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * pd_reader_new_range: places told every so many records cut a 12 MB
 * capture into ranges; read one after the other, with and without the pager, they give every record once, in
 * order, each range stopping where the next begins.
 */
START_TEST(test_range)
{
	char dir[] = "/tmp/pd-range-XXXXXX", path[256], err[256] = "";
	const uint64_t nr = 12u << 20 >> 5, step = nr / 4 + 7;
	struct pd_reader_pos cut[6];
	size_t nr_cuts = 0;
	struct pd_file *f;
	struct pd_reader *r;
	struct pd_rec rec;
	uint64_t n = 0;
	int rc;
	PD_OPTS(opts, .errbuf = err, .errbuf_size = sizeof(err));

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_timed(dir, nr, path, sizeof(path));
	ck_assert_msg(pd_file_open(path, &opts, &f) == 0, "%s", err);
	ck_assert_int_eq(pd_reader_new(f, 0, &r), 0);
	ck_assert_int_eq(pd_reader_tell(r, &cut[nr_cuts++]), 0);
	while ((rc = pd_reader_next(r, &rec)) > 0)
		if (++n % step == 0)
			ck_assert_int_eq(pd_reader_tell(r, &cut[nr_cuts++]), 0);
	ck_assert_int_eq(rc, 0);
	/* the reading ended: nothing to tell */
	ck_assert_int_eq(pd_reader_tell(r, &cut[nr_cuts]), PD_ERR_UNSUPPORTED);
	pd_reader_free(r);
	ck_assert_uint_eq(nr_cuts, 4);
	for (int pass = 0; pass < 2; pass++) {
		uint64_t next = 1;

		for (size_t i = 0; i < nr_cuts; i++) {
			struct pd_sample s;

			ck_assert_int_eq(
				pd_reader_new_range(f, pass ? PD_READ_PAGER : 0,
						    &cut[i],
						    i + 1 < nr_cuts ? &cut[i + 1]
								    : NULL,
						    &r),
				0);
			n = 0;
			while ((rc = pd_reader_next(r, &rec)) > 0) {
				ck_assert_int_eq(pd_sample_decode(f, &rec, &s),
						 0);
				ck_assert_uint_eq(s.time, next);
				next++;
				n++;
			}
			ck_assert_int_eq(rc, 0);
			ck_assert_uint_eq(n, i + 1 < nr_cuts ? step
							      : nr - 3 * step);
			pd_reader_free(r);
		}
		ck_assert_uint_eq(next, nr + 1);
	}
	/* backwards, or a stream's: refused */
	ck_assert_int_eq(pd_reader_new_range(f, 0, &cut[1], &cut[0], &r),
			 PD_ERR_API);
	pd_file_close(f);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* ---- allocation failure (T9) --------------------------------------- */

/*
 * Open and read a compressed, multi-record file with the Nth allocation
 * failing, for every N until none fails: each run ends in success or a
 * clean PD_ERR_NOMEM, and every allocation is freed.
 */
START_TEST(test_alloc_failures)
{
	const size_t cuts[] = { 85, 261 };
	struct raw data = { 0 }, file;
	bool completed = false;

	build_compressed(&data, 10, 40, cuts, 2, false);
	wrap_file(&file, &data);
	for (long n = 0; !completed && n < 1000; n++) {
		struct failalloc fa = { .fail_at = (unsigned long)n + 1,
					.persistent = true };
		const struct pd_alloc hooks = failalloc_hooks(&fa);
		char err[256] = "";
		PD_OPTS(opts, .alloc = &hooks, .errbuf = err,
			.errbuf_size = sizeof(err));
		struct pd_file *f;
		struct pd_reader *r;
		struct pd_rec rec;
		int rc;

		rc = pd_file_open_mem(file.p, file.len, &opts, &f);
		/* a failure always says why: never an empty message */
		if (rc < 0)
			ck_assert_msg(err[0], "n=%ld: open failed silently", n);
		if (rc == 0) {
			rc = pd_reader_new(f, PD_READ_ORDERED, &r);
			if (rc == 0) {
				while ((rc = pd_reader_next(r, &rec)) > 0)
					;
				pd_reader_free(r);
			}
			if (rc < 0)
				ck_assert_msg(pd_file_errmsg(f)[0],
					      "n=%ld: rc %d with no message", n,
					      rc);
			pd_file_close(f);
		}
		ck_assert_msg(rc == 0 || rc == PD_ERR_NOMEM,
			      "n=%ld: rc %d", n, rc);
		ck_assert_msg(fa.live == 0, "n=%ld: %ld blocks leaked", n,
			      fa.live);
		completed = rc == 0 && !fa.nr_failed;
	}
	ck_assert(completed);
	free(data.p);
	free(file.p);
}
END_TEST

Suite *reader_suite(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("core");

	tcase_add_unchecked_fixture(tc, tail_dir_make, tail_dir_remove);
	tcase_add_loop_test(tc, test_attr_sizes, 0,
			    sizeof(attr_sizes) / sizeof(attr_sizes[0]));
	tcase_add_test(tc, test_attr_too_small);
	tcase_add_test(tc, test_bad_magic);
	tcase_add_test(tc, test_header_truncations);
	tcase_add_test(tc, test_both_byte_orders);
	tcase_add_loop_test(tc, test_compressed_spanning, 0, 2);
	tcase_add_test(tc, test_compressed2_wrapped);
	tcase_add_test(tc, test_compressed_garbage);
	tcase_add_loop_test(tc, test_compressed_ahead, 0, 4);
	tcase_add_test(tc, test_pipe_fd);
	tcase_add_test(tc, test_ordered);
	tcase_add_loop_test(tc, test_ids_cap, 0, 2);
	tcase_add_test(tc, test_name_cap);
	tcase_add_test(tc, test_damage_zero_size);
	tcase_add_test(tc, test_directory);
	tcase_add_test(tc, test_directory_release);
	tcase_add_test(tc, test_pager);
	tcase_add_test(tc, test_range);
	tcase_add_test(tc, test_alloc_failures);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
