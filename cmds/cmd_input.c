/*
 * cmd_input.c - inputs the reader cannot open as they are: a capture
 * compressed whole with gzip, xz or bzip2, and a file-mode capture on
 * standard input.  Each is inflated or copied into an unlinked temporary
 * file and handed to the reader from memory under its own name.
 *
 * Why here and not in reader/: L1 keeps libpd to libc and libzstd, so
 * that it stays small enough to embed and to fuzz; whole-file gzip, xz
 * and bzip2 are how a capture travels, not part of the perf.data format
 * (zstd-compressed records are, and stay the reader's).  A temporary
 * file rather than the heap: the page cache holds what a large capture
 * inflates to, and the reader reads it through one mapping, as it reads
 * any capture.
 */
#include "pdtool.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define CHUNK (1u << 16)
/* what a copy may grow to: the reader's cap on a whole-file .zst */
#define SPOOL_MAX ((uint64_t)1 << 34)
/* what an xz stream may ask for to be decoded (xz -9 needs 65 MiB) */
#define XZ_MEMLIMIT ((uint64_t)1 << 30)

/* a pipe-mode stream's header: the magic and a header size of 16 */
#define PIPE_HEADER 16

/* ZSTD only when asked for (cmd_input_spool_zstd): a whole-file .zst
 * capture is the reader's to open */
enum packing { RAW, GZIP, XZ, BZIP2, ZSTD };

static const char *const packing_names[] = {
	[RAW] = "raw", [GZIP] = "gzip", [XZ] = "xz", [BZIP2] = "bzip2",
	[ZSTD] = "zstd",
};

/* What is read: the bytes read ahead (to tell what it is) first. */
struct src {
	struct pd_ctx *ctx;
	const char *name;
	int fd;
	const unsigned char *head;
	size_t head_len;
	uint64_t taken; /* bytes handed out: the input offset in messages */
};

/* The temporary file it goes to. */
struct sink {
	struct pd_ctx *ctx;
	const char *name, *dir;
	int fd;
	uint64_t len;
};

static enum packing packing_of(const unsigned char *p, size_t n)
{
	/* bzip2: "BZh", the block size, the first block's magic (pi): text
	 * may start with "BZh" */
	static const unsigned char bz[8] = {'B', 'Z', 'h', '1',
					    0x31, 0x41, 0x59, 0x26};

	if (n >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8)
		return GZIP;
	if (n >= 6 && memcmp(p, "\xfd" "7zXZ\0", 6) == 0)
		return XZ;
	if (n >= 8 && memcmp(p, bz, 3) == 0 && p[3] >= '1' && p[3] <= '9' &&
	    memcmp(p + 4, bz + 4, 4) == 0)
		return BZIP2;
	return RAW;
}

const char *cmd_input_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

const char *cmd_input_packed(const unsigned char *p, size_t n)
{
	const enum packing k = packing_of(p, n);

	return k == RAW ? NULL : packing_names[k];
}

/* Up to cap bytes; 0 at the end. */
static size_t src_read(struct src *s, unsigned char *buf, size_t cap)
{
	ssize_t n;

	if (s->head_len) {
		const size_t k = s->head_len < cap ? s->head_len : cap;

		memcpy(buf, s->head, k);
		s->head += k;
		s->head_len -= k;
		s->taken += k;
		return k;
	}
	do
		n = read(s->fd, buf, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		die(s->ctx, "cannot read '%s': %s", s->name, strerror(errno));
	s->taken += (uint64_t)n;
	return (size_t)n;
}

int cmd_write_holes(int fd, const unsigned char *p, size_t n)
{
	static const unsigned char zero[4096];

	while (n) {
		const size_t chunk = n < sizeof(zero) ? n : sizeof(zero);
		ssize_t w;

		if (chunk == sizeof(zero) && !memcmp(p, zero, chunk)) {
			if (lseek(fd, (off_t)chunk, SEEK_CUR) < 0)
				return -1;
			w = (ssize_t)chunk;
		} else {
			/* up to the next block of zeros */
			size_t len = chunk;

			while (len < n && len < ((size_t)1 << 30) &&
			       (n - len < sizeof(zero) ||
				memcmp(p + len, zero, sizeof(zero))))
				len += n - len < sizeof(zero) ? n - len
							      : sizeof(zero);
			w = write(fd, p, len);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -1;
			if (w == 0) {
				errno = ENOSPC;
				return -1;
			}
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void sink_write(struct sink *k, const unsigned char *p, size_t n)
{
	/* O5: a size in the input (or a bomb) does not fill the disk */
	if (n > SPOOL_MAX - k->len)
		die(k->ctx,
		    "'%s': more than %llu GiB once inflated: too large to "
		    "copy (decompress it and give the file)",
		    k->name, (unsigned long long)(SPOOL_MAX >> 30));
	k->len += n;
	if (cmd_write_holes(k->fd, p, n) < 0)
		die(k->ctx,
		    "cannot write the copy of '%s' in '%s': %s "
		    "(TMPDIR says where it goes)",
		    k->name, k->dir, strerror(errno));
}

/* The copy's length, a hole at its end included. */
static void sink_end(struct sink *k)
{
	if (ftruncate(k->fd, (off_t)k->len) < 0)
		die(k->ctx, "cannot write the copy of '%s' in '%s': %s",
		    k->name, k->dir, strerror(errno));
}

PD_NORETURN static void corrupt(const struct src *s, enum packing k,
				uint64_t offset, const char *why)
{
	die(s->ctx, "'%s': %s-compressed, but the stream is corrupt at input "
		    "offset 0x%llx: %s",
	    s->name, packing_names[k], (unsigned long long)offset, why);
}

/* A stream that stopped before its end: what it held is read, and the
 * reader reports the capture cut short. */
static void cut_short(const struct src *s, enum packing k)
{
	warning(s->ctx,
		"'%s': the %s stream ends at input offset 0x%llx before its "
		"end (the file is cut short): reading what it holds",
		s->name, packing_names[k], (unsigned long long)s->taken);
}

static void gunzip(struct src *s, struct sink *k)
{
	unsigned char in[CHUNK], out[CHUNK];
	z_stream z;
	bool ended = false;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		die(s->ctx, "out of memory");
	for (;;) {
		int zr;

		if (!z.avail_in) {
			z.next_in = in;
			z.avail_in = (uInt)src_read(s, in, sizeof(in));
			if (!z.avail_in)
				break;
		}
		if (ended) {
			/* gzip members one after another (cat a.gz b.gz):
			 * one file */
			inflateReset(&z);
			ended = false;
		}
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_MEM_ERROR)
			die(s->ctx, "out of memory");
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			corrupt(s, GZIP, s->taken - z.avail_in,
				z.msg ? z.msg : "not deflate data");
		sink_write(k, out, sizeof(out) - z.avail_out);
		if (zr == Z_STREAM_END)
			ended = true;
	}
	inflateEnd(&z);
	if (!ended)
		cut_short(s, GZIP);
}

static void unxz(struct src *s, struct sink *k)
{
	unsigned char in[CHUNK], out[CHUNK];
	lzma_stream z = LZMA_STREAM_INIT;
	lzma_action action = LZMA_RUN;

	if (lzma_stream_decoder(&z, XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK)
		die(s->ctx, "out of memory");
	for (;;) {
		lzma_ret lr;

		if (!z.avail_in && action == LZMA_RUN) {
			z.next_in = in;
			z.avail_in = src_read(s, in, sizeof(in));
			if (!z.avail_in)
				action = LZMA_FINISH;
		}
		z.next_out = out;
		z.avail_out = sizeof(out);
		lr = lzma_code(&z, action);
		sink_write(k, out, sizeof(out) - z.avail_out);
		if (lr == LZMA_STREAM_END)
			break;
		if (lr == LZMA_OK)
			continue;
		if (lr == LZMA_MEM_ERROR)
			die(s->ctx, "out of memory");
		if (lr == LZMA_BUF_ERROR && action == LZMA_FINISH) {
			cut_short(s, XZ);
			break;
		}
		corrupt(s, XZ, z.total_in,
			lr == LZMA_MEMLIMIT_ERROR
				? "it needs more than 1 GiB of memory to decode"
			: lr == LZMA_OPTIONS_ERROR ? "options this liblzma lacks"
			: lr == LZMA_FORMAT_ERROR  ? "not an xz stream"
						   : "damaged data");
	}
	lzma_end(&z);
}

/* A new bzip2 stream where the last ended, the input left kept. */
static void bz_restart(const struct src *s, bz_stream *b)
{
	char *const next_in = b->next_in;
	const unsigned avail_in = b->avail_in;

	BZ2_bzDecompressEnd(b);
	memset(b, 0, sizeof(*b));
	if (BZ2_bzDecompressInit(b, 0, 0) != BZ_OK)
		die(s->ctx, "out of memory");
	b->next_in = next_in;
	b->avail_in = avail_in;
}

static void bunzip2(struct src *s, struct sink *k)
{
	char in[CHUNK], out[CHUNK];
	bz_stream b;
	bool ended = false;

	memset(&b, 0, sizeof(b));
	if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK)
		die(s->ctx, "out of memory");
	for (;;) {
		int br;

		if (!b.avail_in) {
			b.next_in = in;
			b.avail_in = (unsigned)src_read(
				s, (unsigned char *)in, sizeof(in));
			if (!b.avail_in)
				break;
		}
		if (ended) {
			/* streams one after another (pbzip2 writes them):
			 * one file */
			bz_restart(s, &b);
			ended = false;
		}
		b.next_out = out;
		b.avail_out = sizeof(out);
		br = BZ2_bzDecompress(&b);
		if (br == BZ_MEM_ERROR)
			die(s->ctx, "out of memory");
		if (br != BZ_OK && br != BZ_STREAM_END)
			corrupt(s, BZIP2, s->taken - b.avail_in,
				br == BZ_DATA_ERROR_MAGIC ? "not a bzip2 stream"
							  : "damaged data");
		sink_write(k, (unsigned char *)out,
			   sizeof(out) - b.avail_out);
		if (br == BZ_STREAM_END)
			ended = true;
	}
	BZ2_bzDecompressEnd(&b);
	if (!ended)
		cut_short(s, BZIP2);
}

static void unzstd(struct src *s, struct sink *k)
{
	unsigned char in[CHUNK], out[CHUNK];
	ZSTD_DCtx *z = ZSTD_createDCtx();
	size_t left = 1; /* 0: a frame ended */

	if (!z)
		die(s->ctx, "out of memory");
	for (;;) {
		ZSTD_inBuffer ib = {in, src_read(s, in, sizeof(in)), 0};

		if (!ib.size)
			break;
		while (ib.pos < ib.size) {
			ZSTD_outBuffer ob = {out, sizeof(out), 0};

			left = ZSTD_decompressStream(z, &ob, &ib);
			if (ZSTD_isError(left))
				corrupt(s, ZSTD, s->taken - (ib.size - ib.pos),
					ZSTD_getErrorName(left));
			sink_write(k, out, ob.pos);
		}
	}
	/* what a full last input left in the decoder */
	for (;;) {
		ZSTD_inBuffer ib = {in, 0, 0};
		ZSTD_outBuffer ob = {out, sizeof(out), 0};

		if (!left)
			break;
		left = ZSTD_decompressStream(z, &ob, &ib);
		if (ZSTD_isError(left))
			corrupt(s, ZSTD, s->taken, ZSTD_getErrorName(left));
		sink_write(k, out, ob.pos);
		if (!ob.pos)
			break;
	}
	ZSTD_freeDCtx(z);
	/* a bundle cut short is refused: its last member could be any
	 * length, and a partial binary gives wrong names */
	if (left)
		die(s->ctx,
		    "'%s': the zstd stream ends at input offset 0x%llx before "
		    "its end (the file is cut short)",
		    s->name, (unsigned long long)s->taken);
}

static void copy(struct src *s, struct sink *k)
{
	unsigned char buf[CHUNK];
	size_t n;

	while ((n = src_read(s, buf, sizeof(buf))) > 0)
		sink_write(k, buf, n);
}

/* A temporary file in $TMPDIR that goes when the process does. */
static void sink_open(struct sink *k)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];

	k->dir = dir && *dir ? dir : "/tmp";
	if (snprintf(path, sizeof(path), "%s/pdtool-input.XXXXXX", k->dir) >=
	    (int)sizeof(path))
		die(k->ctx, "TMPDIR '%s': too long a path", k->dir);
	k->fd = mkstemp(path);
	if (k->fd < 0)
		die(k->ctx,
		    "cannot make a copy of '%s' in '%s': %s (TMPDIR says "
		    "where it goes)",
		    k->name, k->dir, strerror(errno));
	/* nobody else opens it */
	unlink(path);
}

static const void *spool(struct pd_ctx *ctx, int fd, const char *name,
			 const unsigned char *head, size_t head_len,
			 bool zstd, size_t *len)
{
	struct src s = {.ctx = ctx, .name = name, .fd = fd, .head = head,
			.head_len = head_len};
	struct sink k = {.ctx = ctx, .name = name};
	/* what was read ahead, then enough to tell the packing */
	unsigned char peek[PIPE_HEADER];
	size_t n = 0, got;
	void *map;

	if (head_len > sizeof(peek))
		die(ctx, "%zu bytes read ahead of '%s': at most %zu", head_len,
		    name, sizeof(peek));
	while (n < sizeof(peek) &&
	       (got = src_read(&s, peek + n, sizeof(peek) - n)) > 0)
		n += got;
	s.head = peek;
	s.head_len = n;
	s.taken = 0;
	sink_open(&k);
	switch (zstd ? ZSTD : packing_of(peek, n)) {
	case ZSTD:
		unzstd(&s, &k);
		break;
	case GZIP:
		gunzip(&s, &k);
		break;
	case XZ:
		unxz(&s, &k);
		break;
	case BZIP2:
		bunzip2(&s, &k);
		break;
	case RAW:
		copy(&s, &k);
		break;
	}
	sink_end(&k);
	*len = (size_t)k.len;
	if (!k.len) {
		close(k.fd);
		return NULL;
	}
	/* the mapping lives as long as the process: the reader hands out
	 * views into it until pd_file_close(), and a run opens a few
	 * inputs */
	map = mmap(NULL, (size_t)k.len, PROT_READ, MAP_PRIVATE, k.fd, 0);
	close(k.fd);
	if (map == MAP_FAILED)
		die(ctx, "cannot map the copy of '%s': %s", name,
		    strerror(errno));
	return map;
}

const void *cmd_input_spool(struct pd_ctx *ctx, int fd, const char *name,
			    const unsigned char *head, size_t head_len,
			    size_t *len)
{
	return spool(ctx, fd, name, head, head_len, false, len);
}

/* fd's bytes (after head) copied as they are into a temporary file:
 * @return its descriptor, at offset 0. */
static int spool_raw(struct pd_ctx *ctx, int fd, const char *name,
		     const unsigned char *head, size_t head_len)
{
	struct src s = {.ctx = ctx, .name = name, .fd = fd, .head = head,
			.head_len = head_len};
	struct sink k = {.ctx = ctx, .name = name};

	sink_open(&k);
	copy(&s, &k);
	sink_end(&k);
	if (lseek(k.fd, 0, SEEK_SET) < 0)
		die(ctx, "cannot read the copy of '%s': %s", name,
		    strerror(errno));
	return k.fd;
}

const void *cmd_input_spool_zstd(struct pd_ctx *ctx, int fd, const char *name,
				 size_t *len)
{
	return spool(ctx, fd, name, NULL, 0, true, len);
}

/* A pipe-mode stream's 16-byte header: the magic, then 16 as the header
 * size in the magic's byte order (format.md §1). */
static bool is_pipe_header(const unsigned char *p, size_t n)
{
	static const unsigned char le[8] = {16}, be[8] = {0, 0, 0, 0,
							   0, 0, 0, 16};

	if (n < PIPE_HEADER)
		return false;
	return (memcmp(p, "PERFILE2", 8) == 0 && memcmp(p + 8, le, 8) == 0) ||
	       (memcmp(p, "2ELIFREP", 8) == 0 && memcmp(p + 8, be, 8) == 0);
}

/* Up to PIPE_HEADER bytes of standard input, ctx->stdin_head's first. */
static size_t read_stdin_head(struct pd_ctx *ctx, unsigned char *head)
{
	size_t n = ctx->stdin_head_len;

	if (n)
		memcpy(head, ctx->stdin_head, n);
	while (n < PIPE_HEADER) {
		const ssize_t got = read(STDIN_FILENO, head + n,
					 PIPE_HEADER - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			die(ctx, "cannot read '<stdin>': %s", strerror(errno));
		if (!got)
			break;
		n += (size_t)got;
	}
	return n;
}

int cmd_input_open(struct pd_ctx *ctx, const char *path, bool twice,
		   struct pd_open_opts *opts, struct pd_file **out)
{
	unsigned char head[PIPE_HEADER];
	const void *buf;
	size_t n = 0, len;
	struct stat sb;
	int fd;

	/* cmd_pda_opts() takes the last input's bundle, if it is one */
	ctx->bundle = NULL;
	if (strcmp(path, "-") == 0) {
		n = read_stdin_head(ctx, head);
		/*
		 * a pipe-mode stream is read as it comes, unless a
		 * session's run reads it more than once (pda_capture.h):
		 * then it is kept on disk, not in memory; anything else
		 * needs its end before its start (the header's sections)
		 */
		if (is_pipe_header(head, n) && !twice) {
			opts->head = head;
			opts->head_len = n;
			return pd_file_open_fd(STDIN_FILENO, "<stdin>", opts,
					       out);
		}
		if (n >= 4 && memcmp(head, "\x28\xb5\x2f\xfd", 4) == 0) {
			/* a bundle, or a capture zstd-compressed whole: a
			 * bundle is told by its first member, which needs
			 * the stream from its start again */
			const int tfd = spool_raw(ctx, STDIN_FILENO, "<stdin>",
						  head, n);
			const int kind = cmd_bundle_probe(tfd);

			if (kind < 0)
				die(ctx, "'<stdin>': a zstd stream that ends "
					 "before 512 bytes of it are out (the "
					 "input is cut short)");
			if (kind > 0) {
				const int rc = cmd_bundle_open(ctx, tfd,
							       "<stdin>", opts,
							       out);

				close(tfd);
				return rc;
			}
			buf = cmd_input_spool(ctx, tfd, "<stdin>", NULL, 0,
					      &len);
			close(tfd);
			if (!len)
				die(ctx, "'<stdin>': zstd-compressed, but "
					 "nothing could be inflated from it");
			opts->name = "<stdin>";
			return pd_file_open_mem(buf, len, opts, out);
		}
		if (is_pipe_header(head, n) && ctx->verbose)
			ctx_log(ctx, PD_LOG_INFO,
				"'<stdin>' is a pipe-mode stream: copied to a "
				"temporary file (TMPDIR) to be read twice");
		buf = cmd_input_spool(ctx, STDIN_FILENO, "<stdin>", head, n,
				      &len);
		opts->name = "<stdin>";
		return pd_file_open_mem(buf, len, opts, out);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		ssize_t got;

		do
			got = read(fd, head, sizeof(head));
		while (got < 0 && errno == EINTR);
		n = got > 0 ? (size_t)got : 0;
	}
	if (fd >= 0 && n >= 4 && memcmp(head, "\x28\xb5\x2f\xfd", 4) == 0) {
		/* a bundle (cmd_bundle.c), or a capture zstd-compressed
		 * whole, which the reader opens */
		const int kind = cmd_bundle_probe(fd);

		if (kind < 0)
			die(ctx, "'%s': a zstd stream that ends before 512 "
				 "bytes of it are out (the file is cut short)",
			    path);
		if (kind > 0) {
			const int rc = cmd_bundle_open(ctx, fd, path, opts, out);

			close(fd);
			return rc;
		}
	}
	if (!cmd_input_packed(head, n)) {
		/* the reader opens (or refuses) the rest itself */
		if (fd >= 0)
			close(fd);
		return pd_file_open(path, opts, out);
	}
	buf = cmd_input_spool(ctx, fd, path, head, n, &len);
	close(fd);
	if (!len)
		die(ctx, "'%s': %s-compressed, but nothing could be inflated "
			 "from it",
		    path, cmd_input_packed(head, n));
	if (!ctx_is_capture(buf, len))
		die(ctx, "'%s': %s-compressed, but what it holds is not a "
			 "perf.data capture",
		    path, cmd_input_packed(head, n));
	opts->name = path;
	return pd_file_open_mem(buf, len, opts, out);
}
